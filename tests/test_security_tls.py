"""A TLS failure names the certificate's own problem (issue 30, item 6): not yet valid, signed by an authority
the kubeconfig does not trust, for another DNS name; tests/test_credential_sources.py holds expired and
another address. Was: "check the certificate-authority" for every one of them. Real subprocess runs against
the loopback server over TLS with certificates made here (tests/pki.py's helpers)."""

from __future__ import annotations

import datetime
import ipaddress
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization

from tests import pki
from tests.apiserver import TLS, FakeApiServer


def _ca(d: Path, name: str) -> tuple[Path, x509.Certificate, object]:
    key = pki._key()
    subject = pki._name(name)
    cert = (pki._builder(subject, subject, key)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True).sign(key, hashes.SHA256()))
    path = d / f"{name}.crt"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path, cert, key


def _server(d: Path, problem: str) -> tuple[Path, Path, Path]:
    """(the CA the kubeconfig trusts, the server's certificate, its key)."""
    trusted, ca_cert, ca_key = _ca(d, "trusted-ca")
    if problem == "unknown-authority":
        _, ca_cert, ca_key = _ca(d, "other-ca")  # the server's certificate comes from a CA nobody trusts
    now = datetime.datetime.now(datetime.UTC)
    start, end = now - datetime.timedelta(minutes=5), now + datetime.timedelta(days=3)
    if problem == "not-yet-valid":
        start, end = now + datetime.timedelta(days=1), now + datetime.timedelta(days=10)
    names: list[x509.GeneralName] = [x509.DNSName("other.example")] if problem == "another-name" else [
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]
    key = pki._key()
    cert = (x509.CertificateBuilder().subject_name(pki._name("server")).issuer_name(ca_cert.subject)  # type: ignore[attr-defined]
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(start).not_valid_after(end)
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .sign(ca_key, hashes.SHA256()))  # type: ignore[arg-type]
    cert_path, key_path = d / "server.crt", d / "server.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    pki._write_key(key_path, key)
    return trusted, cert_path, key_path


WHY = {
    "not-yet-valid": "its certificate is not yet valid (check this machine's clock)",
    "unknown-authority": "its certificate was signed by an authority the kubeconfig's certificate-authority does "
                         "not include",
    "another-name": "its certificate is for another name (check the server URL or tls-server-name)",
}


@pytest.mark.parametrize("problem", sorted(WHY))
def test_a_tls_failure_names_the_certificates_own_problem(tmp_path: Path, problem: str) -> None:
    trusted, cert, key = _server(tmp_path, problem)
    server = FakeApiServer(tls=TLS(cert=cert, key=key, ca=trusted)).start()
    try:
        cluster = {"server": server.url.replace("127.0.0.1", "localhost")} if problem == "another-name" else {}
        kc = server.write_kubeconfig(tmp_path / "kc", cluster=cluster)
        r = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "5s"],
                           env={**os.environ, "KUBECONFIG": str(kc)}, capture_output=True, text=True, timeout=60)
    finally:
        server.stop()
    origin = (cluster.get("server") or server.url).rstrip("/")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [f"error: the API server at {origin} cannot be trusted: {WHY[problem]}"]
