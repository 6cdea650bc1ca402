"""Issue 42, M3: the client key's temporary file (mode 0600) stayed in $TMPDIR after a SIGKILL (two files left in
four runs). Now in-memory key data reaches ssl as a memory file (/proc/self/fd/N of a memfd): nothing is written
to $TMPDIR at all, so no kill can leave anything there."""

from __future__ import annotations

import base64
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.clientauth import PrivateFiles
from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.live import LiveSource
from tests.apiserver import TLS, FakeApiServer
from tests.conftest import Pki

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}


def _b64(p: Path) -> str:
    return base64.b64encode(p.read_bytes()).decode()


@pytest.fixture
def tls_server(pki: Pki) -> Iterator[FakeApiServer]:
    server = FakeApiServer(objects=[dict(CQ)], tls=TLS(pki.server_cert, pki.server_key, client_ca=pki.ca),
                           delay=0.05).start()
    yield server
    server.stop()


def test_key_data_never_reaches_the_temporary_directory(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with PrivateFiles() as files:
        path = files.add(b"-----BEGIN PRIVATE KEY-----\nsecret\n")
        assert path.startswith("/proc/self/fd/")
        assert Path(path).read_bytes() == b"-----BEGIN PRIVATE KEY-----\nsecret\n"
        assert os.listdir(tmp_path) == []
    assert not Path(path).exists() or Path(path).read_bytes() != b"-----BEGIN PRIVATE KEY-----\nsecret\n"


def test_a_client_certificate_from_data_authenticates(tls_server: FakeApiServer, pki: Pki, tmp_path: Path,
                                                      monkeypatch: Any) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spool))
    kc = tls_server.write_kubeconfig(tmp_path / "kc", user={"client-certificate-data": _b64(pki.client_cert),
                                                            "client-key-data": _b64(pki.client_key)},
                                     cluster={"certificate-authority-data": _b64(pki.ca)})
    names = [o["metadata"]["name"] for o in LiveSource(ClusterOptions(kubeconfig=str(kc), request_timeout=10))
             .list("ClusterQueue")]
    assert names == ["gpu"] and os.listdir(spool) == []


def test_a_kill_at_any_moment_leaves_nothing_in_tmpdir(tls_server: FakeApiServer, pki: Pki, tmp_path: Path) -> None:
    spool = tmp_path / "spool"
    spool.mkdir()
    kc = tls_server.write_kubeconfig(tmp_path / "kc", user={"client-certificate-data": _b64(pki.client_cert),
                                                            "client-key-data": _b64(pki.client_key)},
                                     cluster={"certificate-authority-data": _b64(pki.ca)})
    env = {**os.environ, "TMPDIR": str(spool), "KUBECONFIG": str(kc)}
    for _ in range(int(os.environ.get("PD_KILL_RUNS", "10"))):
        p = subprocess.Popen([sys.executable, "-m", "kubectl_pd", "lint"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        time.sleep(random.uniform(0.05, 0.8))
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert os.listdir(spool) == []
