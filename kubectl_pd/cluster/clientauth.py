"""Credentials only the kubernetes package knows how to get: kubeconfig `auth-provider` users (OIDC, GCP, Azure).

The package is imported here and nowhere else, and only for such a user; it resolves the Authorization
header, and our own transport sends the requests. Its log lines are captured, never printed raw.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from kubectl_pd.cluster.config import ClusterOptions, kubeconfig_paths
from kubectl_pd.errors import ClusterError


class _Capture(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.lines.append(record.getMessage().strip().splitlines()[0] if record.getMessage().strip() else "")


def provider_headers(opts: ClusterOptions, context: str) -> dict[str, str]:
    """The auth-provider's headers for `context`, or a ClusterError naming what went wrong."""
    from kubernetes import client as kclient
    from kubernetes import config as kconfig
    from kubernetes.config.config_exception import ConfigException

    capture = _Capture()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        cfg = kclient.Configuration()
        kconfig.load_kube_config(config_file=os.pathsep.join(kubeconfig_paths(opts)), context=context or None,
                                 client_configuration=cfg, persist_config=False)
        hook: Any = getattr(cfg, "refresh_api_key_hook", None)
        if hook is not None:
            hook(cfg)
        settings: Any = cfg.auth_settings()
        headers = {a["key"]: a["value"] for a in settings.values() if a.get("in") == "header" and a.get("value")}
    except (ConfigException, OSError, ValueError) as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ClusterError(f"the auth-provider of context {context!r} failed: {first[:200]}") from None
    finally:
        root.removeHandler(capture)
    if not headers:
        why = next((line for line in capture.lines if line), "it gave no credentials")
        raise ClusterError(f"the auth-provider of context {context!r} failed: {why[:200]}")
    return headers
