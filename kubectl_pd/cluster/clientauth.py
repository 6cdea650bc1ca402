"""Credentials only the kubernetes package knows how to get: kubeconfig `auth-provider` users (OIDC, GCP, Azure).

The package is imported here and nowhere else, and only for such a user; it resolves the Authorization
header, and our own transport sends the requests. Its log lines are captured, never printed raw.

`PrivateFiles`: Python's ssl loads a client certificate and key from files only. In-memory data (a kubeconfig's
`client-key-data`, an exec plugin's clientKeyData) is handed to it as an anonymous memory file (Linux memfd,
named /proc/self/fd/N): nothing lands on disk, and a SIGKILL leaves nothing behind (issue 42, M3). Where there is
no memfd, a private (0600) temporary file, unlinked as soon as ssl has loaded it.
"""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

from kubectl_pd.cluster.config import ClusterOptions, kubeconfig_paths
from kubectl_pd.errors import ClusterError


def _capture() -> Any:
    """A log handler that keeps the first line of each warning (logging is imported only for an auth-provider
    user: every client certificate goes through PrivateFiles, and a run need not pay for logging)."""
    import logging

    class _Capture(logging.Handler):
        def __init__(self) -> None:
            super().__init__(logging.DEBUG)
            self.lines: list[str] = []

        def emit(self, record: logging.LogRecord) -> None:
            if record.levelno >= logging.WARNING:
                text = record.getMessage().strip()
                self.lines.append(text.splitlines()[0] if text else "")

    return _Capture()


FLAGS_CONTEXT = "kubectl-pd: --user/--cluster"


def _flagged(opts: ClusterOptions, context: str, config: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The merged kubeconfig with one more context: the chosen context's cluster and user, as --cluster and
    --user override them (kubectl's rule), for the kubernetes package, which reads contexts only; and the
    directory the user's relative paths are relative to."""
    from kubectl_pd.cluster.config import origin_of

    ctx = next((c.get("context") or {} for c in config.get("contexts", []) if c.get("name") == context), {})
    user_name = opts.user or ctx.get("user")
    user: dict[str, Any] = next((u for u in config.get("users", []) if u.get("name") == user_name), {})
    merged = {"clusters": config.get("clusters", []), "users": config.get("users", []),
              "contexts": [{"name": FLAGS_CONTEXT, "context": {"cluster": opts.cluster or ctx.get("cluster"),
                                                               "user": user_name}}],
              "current-context": FLAGS_CONTEXT}
    return merged, origin_of(config, "users", user)


def provider_headers(opts: ClusterOptions, context: str, config: dict[str, Any] | None = None) -> dict[str, str]:
    """The auth-provider's headers for `context`, or a ClusterError naming what went wrong. With --user or
    --cluster (and the merged kubeconfig in `config`), the user they name, as kubectl uses it."""
    import logging

    from kubernetes import client as kclient
    from kubernetes import config as kconfig
    from kubernetes.config.config_exception import ConfigException

    capture = _capture()
    root = logging.getLogger()
    root.addHandler(capture)
    try:
        cfg = kclient.Configuration()
        if config is not None and (opts.user or opts.cluster):
            merged, base = _flagged(opts, context, config)
            kconfig.load_kube_config_from_dict(merged, context=FLAGS_CONTEXT, client_configuration=cfg,
                                               persist_config=False, temp_file_path=base)
        else:
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
    except Exception as e:  # noqa: BLE001 - the package's HTTP client (urllib3) failing to reach the issuer
        raise ClusterError(f"the auth-provider of context {context!r} failed to get or refresh its token: "
                           f"{_why(e)}") from None
    finally:
        root.removeHandler(capture)
    if not headers:
        why = next((line for line in capture.lines if line), "it gave no credentials")
        raise ClusterError(f"the auth-provider of context {context!r} failed: {why[:200]}")
    return headers


def _why(e: BaseException) -> str:
    """One line for an error of the package's HTTP client: urllib3's MaxRetryError says where and why in
    its `url` and `reason` (connection refused, a certificate, a timeout); anything else its first line."""
    url, reason = getattr(e, "url", None), getattr(e, "reason", None)
    if url and reason is not None:
        cause = str(getattr(reason, "reason", None) or reason)
        errno_text = cause.rsplit("] ", 1)[-1] if "] " in cause else cause
        pool = getattr(e, "pool", None)
        if pool is not None and str(url).startswith("/"):
            url = f"{getattr(pool, 'scheme', 'https')}://{getattr(pool, 'host', '')}:{getattr(pool, 'port', '')}{url}"
        return f"cannot reach the identity provider at {url} ({errno_text.rstrip(')').strip()[:150].lower()})"
    text = str(e).strip()
    return (text.splitlines()[0] if text else type(e).__name__)[:200]


class PrivateFiles:
    """Paths ssl can open for in-memory data, gone when the block ends: memory files, else temporary files."""

    def __init__(self) -> None:
        self._fds: list[int] = []
        self._paths: list[str] = []

    def __enter__(self) -> PrivateFiles:
        return self

    def add(self, data: bytes) -> str:
        path = self._memory(data)
        return path if path is not None else self._temporary(data)

    def _memory(self, data: bytes) -> str | None:
        create = getattr(os, "memfd_create", None)
        if create is None or not os.path.isdir("/proc/self/fd"):
            return None
        try:
            fd = create("kubectl-pd-credential", getattr(os, "MFD_CLOEXEC", 1))
        except OSError:
            return None
        self._fds.append(fd)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return f"/proc/self/fd/{fd}"

    def _temporary(self, data: bytes) -> str:
        import tempfile

        fd, path = tempfile.mkstemp(prefix="kubectl-pd-")
        self._paths.append(path)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        return path

    def __exit__(self, kind: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None) -> None:
        for fd in self._fds:
            os.close(fd)
        for p in self._paths:
            try:
                os.unlink(p)
            except FileNotFoundError:
                pass
        self._fds, self._paths = [], []
