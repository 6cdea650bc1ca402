"""kubectl-pd: prefill/decode deployments admitted all-or-nothing through Kueue."""

__version__ = "0.1.0"
