"""Tab: the live names a completion lists (live.py) and what a candidate may be (safe.py); kubectl's `__complete`
protocol is answered by commands/bridge.py, the `kubectl_complete-pd` entry point."""

DEFAULT_TIMEOUT = 2.0  # seconds: a completion has to feel instant or give up
