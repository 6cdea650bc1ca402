"""kubectl-pd: prefill/decode deployments admitted all-or-nothing through Kueue."""

__version__ = "0.1.0"

from kubectl_pd import interrupt as _interrupt  # noqa: E402 - first thing: Ctrl-C during the imports exits 130

_interrupt.install_early()
