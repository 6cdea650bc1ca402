"""Exec credential plugins (`users[].user.exec`), run the way client-go runs them, but bounded and honest.

The plugin gets `KUBERNETES_EXEC_INFO`, must print an `ExecCredential` whose status carries a token or a
client certificate and key. When it fails, hangs or prints something else, the command stops with the
plugin's command, exit code and first stderr line: a request never goes out without the credentials.
The plugin's stdout (the credential) is never printed.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from kubectl_pd import interrupt
from kubectl_pd.errors import ClusterError

if TYPE_CHECKING:  # mypy reads records' dataclass as the standard one (same semantics)
    from dataclasses import dataclass
else:
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
    command, api_version = _command(spec, base_dir)
    args = [str(a) for a in spec.get("args") or []]
    interactive = _interactive(spec, command)
    info: dict[str, Any] = {"apiVersion": api_version, "kind": "ExecCredential",
                            "spec": {"interactive": interactive}}
    if spec.get("provideClusterInfo"):
        info["spec"]["cluster"] = cluster_info(cluster, server)
    shown = command  # the executable only, as kubectl names it: its arguments may carry a client secret
    proc = _spawn(spec, [command, *args], _environment(spec, info), interactive, timeout, shown)
    if proc.returncode != 0:
        why = _first_line(proc.stderr)
        raise ClusterError(f"exec credential plugin `{shown}` failed with exit code {proc.returncode}"
                           + (f": {why}" if why else ""))
    return _parse(proc.stdout, api_version, shown)


def _command(spec: dict[str, Any], base_dir: str | None) -> tuple[str, str]:
    command = str(spec.get("command") or "")
    api_version = str(spec.get("apiVersion") or "")
    if not command:
        raise ClusterError("the kubeconfig user's exec credential plugin has no command")
    if api_version not in API_VERSIONS:
        raise ClusterError(f"exec credential plugin {command}: apiVersion {api_version!r} is not supported "
                           f"(use {API_VERSIONS[0]})")
    if api_version == API_VERSIONS[0] and not spec.get("interactiveMode"):  # kubectl's validation refuses it
        raise ClusterError(f"exec credential plugin {command}: client.authentication.k8s.io/v1 needs "
                           f"interactiveMode (Never, IfAvailable or Always)")
    if base_dir and os.sep in command and not os.path.isabs(command):
        command = os.path.join(base_dir, command)  # client-go: relative to the kubeconfig's directory
    return command, api_version


def _interactive(spec: dict[str, Any], command: str) -> bool:
    mode = str(spec.get("interactiveMode") or "IfAvailable")
    interactive = mode != "Never" and sys.stdin is not None and _isatty(sys.stdin)
    if mode == "Always" and not interactive:  # client-go refuses this too
        raise ClusterError(f"exec credential plugin {command!r} needs a terminal (interactiveMode: Always), and "
                           f"standard input is not one")
    return interactive


def _environment(spec: dict[str, Any], info: dict[str, Any]) -> dict[str, str]:
    env = dict(os.environ)
    for e in spec.get("env") or []:
        if isinstance(e, dict) and e.get("name"):
            env[str(e["name"])] = str(e.get("value") or "")
    env["KUBERNETES_EXEC_INFO"] = json.dumps(info)
    return env


@dataclass(frozen=True)
class _Finished:
    returncode: int
    stdout: bytes
    stderr: bytes


OUTPUT_BOUND = 16 << 20  # bytes of stdout or stderr kept: an ExecCredential is a few KiB
_KILL_GRACE = 2.0  # seconds a killed plugin's group has to go before we stop waiting for it


def _spawn(spec: dict[str, Any], argv: list[str], env: dict[str, str], interactive: bool, timeout: float | None,
           shown: str) -> _Finished:
    """Run the plugin; its output is taken once it has exited, whatever a child of it still holds open.

    A non-interactive plugin runs in its own process group, killed with its children on timeout or Ctrl-C.
    An interactive one stays in ours (the terminal's foreground group, the only one that may read the
    terminal): the terminal's Ctrl-C reaches it and its children as it does under kubectl."""
    command = argv[0]
    try:
        proc = subprocess.Popen(argv, env=env, stdin=None if interactive else subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                process_group=None if interactive else 0)
    except FileNotFoundError:
        hint = str(spec.get("installHint") or "").strip().splitlines()
        raise ClusterError(f"exec credential plugin {command!r} not found" +
                           (f": {hint[0]}" if hint else ": install it or fix the kubeconfig user")) from None
    except PermissionError:
        raise ClusterError(f"exec credential plugin {command!r} cannot be run (permission denied)") from None
    except OSError as e:
        raise ClusterError(f"exec credential plugin {command!r} cannot be run ({e.strerror or e})") from None
    group = not interactive
    interrupt.adopt(proc, group)
    try:
        out, err = _collect(proc, timeout)
    except BaseException:  # Ctrl-C (KeyboardInterrupt) or a bug: the plugin does not outlive us
        _stop(proc, group)
        raise
    finally:
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    if out is None:
        _stop(proc, group)
        raise ClusterError(f"exec credential plugin `{shown}` did not finish within {timeout:g}s "
                           f"(--request-timeout)")
    interrupt.release(proc)
    return _Finished(proc.returncode, out, err)


def _collect(proc: subprocess.Popen[bytes], timeout: float | None) -> tuple[bytes | None, bytes]:
    """The plugin's stdout and stderr once it has exited (None for stdout: the deadline passed first).

    Read as they come (a plugin printing more than a pipe holds must not block), in slices of
    interrupt.SLICE so that Ctrl-C and the deadline are seen; after the exit, what the pipes already hold
    is taken without waiting for an end-of-file that a child holding them open would never give."""
    import selectors

    assert proc.stdout is not None and proc.stderr is not None
    deadline = None if not timeout else time.monotonic() + timeout
    got: dict[int, bytearray] = {proc.stdout.fileno(): bytearray(), proc.stderr.fileno(): bytearray()}
    with selectors.DefaultSelector() as sel:
        for fd in got:
            os.set_blocking(fd, False)
            sel.register(fd, selectors.EVENT_READ)
        while True:
            exited = proc.poll() is not None
            _drain(sel, got, 0 if exited else interrupt.SLICE)
            if exited:
                return bytes(got[proc.stdout.fileno()]), bytes(got[proc.stderr.fileno()])
            interrupt.check()
            if deadline is not None and time.monotonic() >= deadline:
                return None, b""


def _drain(sel: Any, got: dict[int, bytearray], wait: float) -> None:
    """Read what is ready; with wait 0, what the pipes hold now (until nothing is ready, or past the bound
    of what is kept: a child writing on and on after the plugin's exit does not hold us)."""
    for _ in range(2 * (OUTPUT_BOUND >> 16) + 2):
        ready = sel.select(wait)
        if not ready:
            return
        for key, _ in ready:
            try:
                data = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not data:  # end of file: nobody holds this pipe any more
                sel.unregister(key.fd)
                continue
            kept = got[key.fd]
            kept += data[: max(0, OUTPUT_BOUND - len(kept))]
        if wait or not sel.get_map():
            return


def _stop(proc: subprocess.Popen[bytes], group: bool) -> None:
    """SIGKILL the plugin (its whole process group when it has one) and reap it."""
    interrupt.kill(proc, group)
    try:
        proc.wait(_KILL_GRACE)
    except subprocess.TimeoutExpired:
        pass
    interrupt.release(proc)


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
    status: dict[str, Any] = doc["status"] if isinstance(doc.get("status"), dict) else {}
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


EXEC_EXTENSION = "client.authentication.k8s.io/exec"


def cluster_info(cluster: dict[str, Any], server: str) -> dict[str, Any]:
    """`spec.cluster` of KUBERNETES_EXEC_INFO, with client.authentication.k8s.io's field names; the CA as
    data even when the kubeconfig names a file (client-go reads it), empty fields left out but `config`:
    the exec extension's value, null without one (client-go's RawExtension is a struct, never omitted)."""
    out: dict[str, Any] = {"server": server}
    if cluster.get("tls-server-name"):
        out["tls-server-name"] = cluster["tls-server-name"]
    if cluster.get("insecure-skip-tls-verify") is True:
        out["insecure-skip-tls-verify"] = True
    ca = _ca_data(cluster)
    if ca:
        out["certificate-authority-data"] = ca
    for key in ("proxy-url", "disable-compression"):
        if cluster.get(key):
            out[key] = cluster[key]
    out["config"] = None
    for e in cluster.get("extensions") or []:
        if isinstance(e, dict) and e.get("name") == EXEC_EXTENSION and e.get("extension") is not None:
            out["config"] = e["extension"]
    return out


def _ca_data(cluster: dict[str, Any]) -> str | None:
    """The CA as base64 text: the kubeconfig's data, else the named file's bytes."""
    if cluster.get("certificate-authority-data"):
        return str(cluster["certificate-authority-data"]).replace("\n", "").replace("\r", "")
    path = cluster.get("certificate-authority")
    if not path:
        return None
    try:
        with open(str(path), "rb") as fh:
            return base64.b64encode(fh.read()).decode("ascii")
    except OSError as e:
        raise ClusterError(f"exec credential plugin: cannot read certificate-authority {path} "
                           f"({e.strerror or e})") from None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
