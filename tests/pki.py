"""Throw-away certificates for the loopback servers, made with the `cryptography` package (a test extra),
so the suite needs no openssl command-line tool: a P-256 CA, a server certificate for 127.0.0.1 and
localhost, and a client certificate (O=system:masters, CN=tester). Valid for three days."""

from __future__ import annotations

import datetime
import ipaddress
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))


def _name(cn: str, org: str | None = None) -> x509.Name:
    attrs = [x509.NameAttribute(NameOID.ORGANIZATION_NAME, org)] if org else []
    return x509.Name([*attrs, x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _builder(subject: x509.Name, issuer: x509.Name, key: ec.EllipticCurvePrivateKey) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=3)))


def make(d: Path) -> dict[str, Path]:
    """Writes ca.crt/ca.key, server.crt/server.key and client.crt/client.key into `d`; returns their paths."""
    ca_key = _key()
    ca_name = _name("loopback-ca")
    ca = (_builder(ca_name, ca_name, ca_key)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                       data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                       crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
          .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
          .sign(ca_key, hashes.SHA256()))
    out = {"ca": d / "ca.crt", "ca_key": d / "ca.key"}
    out["ca"].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    _write_key(out["ca_key"], ca_key)
    aki = x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key())
    leaves = {
        "server": (_name("localhost"), ExtendedKeyUsageOID.SERVER_AUTH,
                   x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                                                x509.DNSName("localhost")])),
        "client": (_name("tester", "system:masters"), ExtendedKeyUsageOID.CLIENT_AUTH, None),
    }
    for leaf, (subject, usage, san) in leaves.items():
        key = _key()
        b = (_builder(subject, ca_name, key).add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
             .add_extension(aki, critical=False))
        if san is not None:
            b = b.add_extension(san, critical=False)
        cert = b.sign(ca_key, hashes.SHA256())
        out[leaf] = d / f"{leaf}.crt"
        out[f"{leaf}_key"] = d / f"{leaf}.key"
        out[leaf].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        _write_key(out[f"{leaf}_key"], key)
    return out
