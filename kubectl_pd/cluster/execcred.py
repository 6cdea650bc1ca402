"""Exec credential plugins (`users[].user.exec`), run the way client-go runs them, but bounded and honest.

The plugin gets `KUBERNETES_EXEC_INFO`, must print an `ExecCredential` whose status carries a token or a
client certificate and key. When it fails, hangs or prints something else, the command stops with the
plugin's command, exit code and first stderr line: a request never goes out without the credentials.
The plugin's stdout (the credential) is never printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from kubectl_pd.errors import ClusterError
from kubectl_pd.records import dataclass

API_VERSIONS = ("client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1")


@dataclass(frozen=True)
class Credential:
    token: str | None = None
    cert_data: bytes | None = None
    key_data: bytes | None = None


def _first_line(data: bytes) -> str:
    for raw in data.decode("utf-8", "replace").splitlines():
        if raw.strip():
            return raw.strip()[:300]
    return ""


def run(spec: dict[str, Any], *, cluster: dict[str, Any], server: str, base_dir: str | None,
        timeout: float | None) -> Credential:
    """Run the plugin once and return what it printed, or raise a ClusterError saying why not."""
    command = str(spec.get("command") or "")
    api_version = str(spec.get("apiVersion") or "")
    if not command:
        raise ClusterError("the kubeconfig user's exec credential plugin has no command")
    if api_version not in API_VERSIONS:
        raise ClusterError(f"exec credential plugin {command}: apiVersion {api_version!r} is not supported "
                           f"(use {API_VERSIONS[0]})")
    if base_dir and os.sep in command and not os.path.isabs(command):
        command = os.path.join(base_dir, command)  # client-go: relative to the kubeconfig's directory
    args = [str(a) for a in spec.get("args") or []]
    mode = str(spec.get("interactiveMode") or "IfAvailable")
    interactive = mode != "Never" and sys.stdin is not None and _isatty(sys.stdin)
    if mode == "Always" and not interactive:  # client-go refuses this too
        raise ClusterError(f"exec credential plugin {command!r} needs a terminal (interactiveMode: Always), and "
                           f"standard input is not one")
    info: dict[str, Any] = {"apiVersion": api_version, "kind": "ExecCredential",
                            "spec": {"interactive": interactive}}
    if spec.get("provideClusterInfo"):
        info["spec"]["cluster"] = _cluster_info(cluster, server)
    env = dict(os.environ)
    for e in spec.get("env") or []:
        if isinstance(e, dict) and e.get("name"):
            env[str(e["name"])] = str(e.get("value") or "")
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    shown = " ".join([command, *args])[:200]
    try:
        proc = subprocess.run([command, *args], env=env, capture_output=True, timeout=timeout,
                              stdin=None if interactive else subprocess.DEVNULL, check=False)
    except FileNotFoundError:
        hint = str(spec.get("installHint") or "").strip().splitlines()
        raise ClusterError(f"exec credential plugin {command!r} not found" +
                           (f": {hint[0]}" if hint else ": install it or fix the kubeconfig user")) from None
    except PermissionError:
        raise ClusterError(f"exec credential plugin {command!r} cannot be run (permission denied)") from None
    except subprocess.TimeoutExpired:
        raise ClusterError(f"exec credential plugin `{shown}` did not finish within {timeout:g}s "
                           f"(--request-timeout)") from None
    except OSError as e:
        raise ClusterError(f"exec credential plugin {command!r} cannot be run ({e.strerror or e})") from None
    if proc.returncode != 0:
        why = _first_line(proc.stderr)
        raise ClusterError(f"exec credential plugin `{shown}` failed with exit code {proc.returncode}"
                           + (f": {why}" if why else ""))
    return _parse(proc.stdout, api_version, shown)


def _parse(out: bytes, api_version: str, shown: str) -> Credential:
    bad = f"exec credential plugin `{shown}` did not print an ExecCredential"
    try:
        doc = json.loads(out)
    except ValueError:
        raise ClusterError(bad + " (its output is not JSON)") from None
    if not isinstance(doc, dict) or doc.get("kind") != "ExecCredential":
        raise ClusterError(bad)
    if doc.get("apiVersion") != api_version:
        raise ClusterError(f"exec credential plugin `{shown}` answered apiVersion {doc.get('apiVersion')!r}, "
                           f"not the {api_version!r} it was asked for")
    status = doc.get("status") if isinstance(doc.get("status"), dict) else {}
    token = status.get("token")
    cert, key = status.get("clientCertificateData"), status.get("clientKeyData")
    if bool(cert) != bool(key):
        raise ClusterError(f"exec credential plugin `{shown}` gave a client certificate without its key "
                           f"(or a key without its certificate)")
    if not token and not cert:
        raise ClusterError(bad + " with a token or a client certificate")
    return Credential(token=str(token).strip() if token else None,
                      cert_data=str(cert).encode() if cert else None,
                      key_data=str(key).encode() if key else None)


def _cluster_info(cluster: dict[str, Any], server: str) -> dict[str, Any]:
    out: dict[str, Any] = {"server": server}
    for ours, theirs in (("tls-server-name", "tlsServerName"), ("insecure-skip-tls-verify", "insecureSkipTLSVerify"),
                         ("certificate-authority-data", "certificateAuthorityData"), ("proxy-url", "proxyURL")):
        if cluster.get(ours):
            out[theirs] = cluster[ours]
    ext = cluster.get("extensions")
    if isinstance(ext, list):
        for e in ext:
            if isinstance(e, dict) and e.get("name") == "client.authentication.k8s.io/exec":
                out["config"] = e.get("extension")
    return out


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
