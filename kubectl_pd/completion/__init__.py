"""Tab: kubectl's `__complete` protocol (bridge) and the live names it lists (live)."""
