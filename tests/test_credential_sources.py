"""Odd credential sources (issue 30, items 5 and 6): a tokenFile, KUBECONFIG or certificate-authority that
is /dev/zero, a directory, or a FIFO with no writer ends at once with one line (never a MemoryError after
seconds, never a hang); a control character in --as or the kubeconfig's `as:` is said, not an internal
error. Real subprocess runs against the loopback server."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apiserver import FakeApiServer


def _run(args: list[str], env: dict[str, str]) -> tuple[int, str, float]:
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "kubectl_pd", *args], env={**os.environ, **env}, capture_output=True,
                       text=True, timeout=30)
    return r.returncode, r.stderr, time.monotonic() - t


@pytest.fixture
def server() -> Iterator[FakeApiServer]:
    s = FakeApiServer().start()
    yield s
    s.stop()


def _odd(tmp_path: Path, kind: str) -> str:
    if kind == "dev-zero":
        return "/dev/zero"
    if kind == "directory":
        return str(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    return str(fifo)


def _one_line(err: str) -> None:
    assert len(err.splitlines()) == 1 and err.startswith("error: ") and "Traceback" not in err, err
    assert "internal error" not in err


@pytest.mark.parametrize("kind", ["dev-zero", "directory", "fifo"])
def test_an_odd_token_file(server: FakeApiServer, tmp_path: Path, kind: str) -> None:
    kc = server.write_kubeconfig(tmp_path / "kc", user={"tokenFile": _odd(tmp_path, kind)})
    code, err, seconds = _run(["lint", "--request-timeout", "5s"], {"KUBECONFIG": str(kc)})
    assert code in (1, 2) and seconds < 5
    _one_line(err)


@pytest.mark.parametrize("kind", ["dev-zero", "directory", "fifo"])
def test_an_odd_kubeconfig(tmp_path: Path, kind: str) -> None:
    code, err, seconds = _run(["lint", "--request-timeout", "5s"], {"KUBECONFIG": _odd(tmp_path, kind)})
    assert code in (1, 2) and seconds < 5
    _one_line(err)


@pytest.mark.parametrize("key", ["certificate-authority"])
def test_an_odd_certificate_file(server: FakeApiServer, tmp_path: Path, key: str) -> None:
    kc = server.write_kubeconfig(tmp_path / "kc", cluster={key: "/dev/zero"})
    code, err, seconds = _run(["lint", "--request-timeout", "5s"], {"KUBECONFIG": str(kc)})
    assert code == 2 and seconds < 5 and "/dev/zero" in err
    _one_line(err)


def test_a_client_key_that_is_a_device(server: FakeApiServer, tmp_path: Path) -> None:
    kc = server.write_kubeconfig(tmp_path / "kc", user={"client-certificate": "/dev/zero", "client-key": "/dev/zero"})
    code, err, seconds = _run(["lint", "--request-timeout", "5s"], {"KUBECONFIG": str(kc)})
    assert code == 2 and seconds < 5
    _one_line(err)


@pytest.mark.parametrize("value", ["bob\r\nX-Evil: 1", "bob\x07", "bob\n"])
def test_a_control_character_in_impersonation_is_said(server: FakeApiServer, tmp_path: Path, value: str) -> None:
    kc = server.write_kubeconfig(tmp_path / "kc")
    code, err, _ = _run(["lint", "--as", value], {"KUBECONFIG": str(kc)})
    assert code == 1 and "--as" in err
    _one_line(err)
    kc = server.write_kubeconfig(tmp_path / "kc2", user={"token": server.token, "as": value})
    code, err, _ = _run(["lint"], {"KUBECONFIG": str(kc)})
    assert code == 1
    _one_line(err)
    assert not [q for q in server.requests if any("X-Evil" in k for k, _ in q.headers)]


def _server_cert(d: Path, *, expired: bool = False, name: str = "127.0.0.1") -> tuple[Path, Path, Path]:
    """A CA and a server certificate it signed: expired, or for another address."""
    import datetime
    import ipaddress

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization

    from tests import pki

    ca_key, key = pki._key(), pki._key()
    ca_name = pki._name("odd-ca")
    ca = (pki._builder(ca_name, ca_name, ca_key)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(ca_key, hashes.SHA256()))
    now = datetime.datetime.now(datetime.UTC)
    start, end = (now - datetime.timedelta(days=10), now - datetime.timedelta(days=1)) if expired else \
        (now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=3))
    b = (x509.CertificateBuilder().subject_name(pki._name("server")).issuer_name(ca_name)
         .public_key(key.public_key()).serial_number(x509.random_serial_number())
         .not_valid_before(start).not_valid_after(end)
         .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(name))]), critical=False))
    paths = (d / "ca.crt", d / "server.crt", d / "server.key")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(b.sign(ca_key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM))
    pki._write_key(paths[2], key)
    return paths


@pytest.mark.parametrize("problem", ["expired", "another-address"])
def test_a_tls_failure_names_the_certificates_own_problem(tmp_path: Path, problem: str) -> None:
    from tests.apiserver import TLS

    ca, cert, key = _server_cert(tmp_path, expired=problem == "expired",
                                 name="127.0.0.1" if problem == "expired" else "10.9.8.7")
    s = FakeApiServer(tls=TLS(cert=cert, key=key, ca=ca)).start()
    try:
        kc = s.write_kubeconfig(tmp_path / "kc")
        code, err, _ = _run(["lint", "--request-timeout", "5s"], {"KUBECONFIG": str(kc)})
        assert code == 1
        _one_line(err)
        assert ("has expired" if problem == "expired" else "for another address") in err
    finally:
        s.stop()
