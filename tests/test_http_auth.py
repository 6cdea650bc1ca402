"""The auth matrix through our own HTTP path, against the loopback server over TLS, next to the real kubectl.

Token, client certificate (files and data), CA (file, data, relative path), tls-server-name, insecure,
exec plugins (token and client certificate), in-cluster; and a token kubeconfig never imports the
kubernetes client.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.endpoint import in_cluster
from kubectl_pd.cluster.http import Transport
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.errors import ClusterError
from tests.apiserver import TLS, TOKEN, FakeApiServer
from tests.conftest import Pki, run_cli, run_kubectl

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}


def _b64(p: Path) -> str:
    return base64.b64encode(p.read_bytes()).decode()


@pytest.fixture
def tls_server(pki: Pki) -> Iterator[FakeApiServer]:
    server = FakeApiServer(objects=[dict(CQ)], tls=TLS(pki.server_cert, pki.server_key, client_ca=pki.ca)).start()
    yield server
    server.stop()


def _names(kc: Path) -> list[str]:
    return [o["metadata"]["name"] for o in LiveSource(ClusterOptions(kubeconfig=str(kc), request_timeout=10))
            .list("ClusterQueue")]


def _kubectl_agrees(kc: Path) -> None:
    p = run_kubectl(["get", "--raw", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", "--kubeconfig", str(kc),
                     "--request-timeout", "10s"])
    assert p.returncode == 0, p.stderr
    assert [i["metadata"]["name"] for i in json.loads(p.stdout)["items"]] == ["gpu"]


def _exec_plugin(tmp_path: Path, status: dict[str, Any]) -> dict[str, Any]:
    script = tmp_path / "plugin.py"
    script.write_text(textwrap.dedent(f"""
        import json, os, sys
        info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
        assert info["kind"] == "ExecCredential" and os.environ["PLUGIN_FLAVOUR"] == "test"
        print(json.dumps({{"apiVersion": info["apiVersion"], "kind": "ExecCredential",
                           "status": {json.dumps(status)}}}))
    """))
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                     "args": [str(script)], "env": [{"name": "PLUGIN_FLAVOUR", "value": "test"}],
                     "interactiveMode": "Never"}}


@pytest.mark.parametrize("shape", ["token+ca-file", "token+ca-data", "cert-files", "cert-data", "token-file",
                                   "exec-token", "exec-cert", "tls-server-name", "relative-paths"])
def test_auth_shapes_over_tls(shape: str, tls_server: FakeApiServer, pki: Pki, tmp_path: Path) -> None:
    ca_file = {"certificate-authority": str(pki.ca)}
    ca_data = {"certificate-authority-data": _b64(pki.ca)}
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")  # written with echo: kubectl trims it
    user, cluster = {
        "token+ca-file": ({"token": TOKEN}, ca_file),
        "token+ca-data": ({"token": TOKEN}, ca_data),
        "cert-files": ({"client-certificate": str(pki.client_cert), "client-key": str(pki.client_key)}, ca_file),
        "cert-data": ({"client-certificate-data": _b64(pki.client_cert),
                       "client-key-data": _b64(pki.client_key)}, ca_data),
        "token-file": ({"tokenFile": str(token_file)}, ca_file),
        "exec-token": (_exec_plugin(tmp_path, {"token": TOKEN}), ca_file),
        "exec-cert": (_exec_plugin(tmp_path, {"clientCertificateData": pki.client_cert.read_text(),
                                              "clientKeyData": pki.client_key.read_text()}), ca_file),
        "tls-server-name": ({"token": TOKEN}, {**ca_file, "tls-server-name": "localhost"}),
        "relative-paths": ({"client-certificate": "client.crt", "client-key": "client.key"},
                           {"certificate-authority": "ca.crt"}),
    }[shape]
    kc_dir = pki.dir if shape == "relative-paths" else tmp_path
    kc = tls_server.write_kubeconfig(kc_dir / f"kc-{shape}", user=user, cluster=cluster)
    assert _names(kc) == ["gpu"]
    _kubectl_agrees(kc)


def test_wrong_ca_is_a_tls_error(tls_server: FakeApiServer, pki: Pki, tmp_path: Path) -> None:
    other = tmp_path / "other-ca.crt"
    other.write_text(pki.client_cert.read_text())  # a certificate, but not the server's CA
    kc = tls_server.write_kubeconfig(tmp_path / "kc", cluster={"certificate-authority": str(other)})
    r = run_cli(["lint", "--kubeconfig", str(kc), "--request-timeout", "5s"])
    assert r.exit_code == 1
    assert r.stderr.startswith("error: the API server at https://127.0.0.1:")
    assert "cannot be trusted: its certificate chain ends in a certificate-authority" in r.stderr  # named
    assert r.stderr.count("\n") == 1


def test_insecure_warns_once_in_our_words(tls_server: FakeApiServer, tmp_path: Path) -> None:
    kc = tls_server.write_kubeconfig(tmp_path / "kc", cluster={"insecure-skip-tls-verify": True})
    p = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--kubeconfig", str(kc)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    assert "InsecureRequestWarning" not in p.stderr and "site-packages" not in p.stderr
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("warning: ")
    _kubectl_agrees(kc)


def test_insecure_with_a_ca_is_refused_like_kubectl(tls_server: FakeApiServer, pki: Pki, tmp_path: Path) -> None:
    kc = tls_server.write_kubeconfig(tmp_path / "kc", cluster={"insecure-skip-tls-verify": True,
                                                               "certificate-authority": str(pki.ca)})
    r = run_cli(["lint", "--kubeconfig", str(kc)])
    assert (r.exit_code, r.stderr) == (1, "error: context 'loopback': specifying a root certificates file with the "
                                          "insecure flag is not allowed (certificate-authority and "
                                          "insecure-skip-tls-verify both set)\n")
    assert run_kubectl(["get", "ns", "--kubeconfig", str(kc)]).returncode == 1


def test_in_cluster_service_account(tls_server: FakeApiServer, pki: Pki, tmp_path: Path,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text(TOKEN + "\n")
    (sa / "ca.crt").write_bytes(pki.ca.read_bytes())
    host, port = tls_server.url.removeprefix("https://").rsplit(":", 1)
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", host)
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", port)
    ep = in_cluster(str(sa))
    reply = Transport(ep, 5).send("GET", ep.server + "/apis/kueue.x-k8s.io/v1beta2/clusterqueues")
    assert reply.status == 200 and json.loads(reply.body)["items"][0]["metadata"]["name"] == "gpu"


def test_client_certificate_without_the_ca_is_not_trusted(tls_server: FakeApiServer, pki: Pki,
                                                           tmp_path: Path) -> None:
    kc = tls_server.write_kubeconfig(tmp_path / "kc")
    with pytest.raises(ClusterError, match="cannot be trusted: its certificate chain ends in a certificate-authority"):
        _names(kc)


PROBE = """
import sys
from kubectl_pd.commands.cli import main
try:
    main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print("@@", code, sorted(m for m in sys.modules if m.split(".")[0] == "kubernetes"))
"""


def test_a_token_kubeconfig_never_imports_the_kubernetes_client(apiserver: Any, tmp_path: Path) -> None:
    server, env = apiserver(CQ)
    for args in (["lint"], ["why-pending", "-A"], ["__complete", "why-pending", ""]):
        p = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, timeout=60,
                           env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), **env})
        out = p.stdout.rsplit("@@", 1)[1].split(None, 1)
        assert out[0] in ("0", "None"), p.stderr
        assert out[1].strip() == "[]", f"{args} imported {out[1][:200]}"
    assert len(server.requests) >= 3


def _b64url(doc: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(doc).encode()).rstrip(b"=").decode()


def test_auth_provider_is_resolved_by_the_kubernetes_package(tmp_path: Path) -> None:
    import time

    jwt = ".".join([_b64url({"alg": "none", "typ": "JWT"}),
                    _b64url({"iss": "https://issuer.example", "sub": "tester", "exp": int(time.time()) + 3600}),
                    "sig"])
    server = FakeApiServer(objects=[dict(CQ)], token=jwt).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc", user={"auth-provider": {"name": "oidc", "config": {
            "id-token": jwt, "idp-issuer-url": "https://issuer.example", "client-id": "kubectl"}}})
        p = subprocess.run([sys.executable, "-c", PROBE, "lint", "--kubeconfig", str(kc)], capture_output=True,
                           text=True, timeout=60)
        code, modules = p.stdout.rsplit("@@", 1)[1].split(None, 1)
        assert code == "0", p.stderr
        assert "kubernetes.config" in modules  # the one shape that loads it
    finally:
        server.stop()


def test_an_expired_exec_credential_is_fetched_again_once(tls_server: FakeApiServer, pki: Pki,
                                                          tmp_path: Path) -> None:
    counter = tmp_path / "runs"
    script = tmp_path / "rotating.py"
    script.write_text(textwrap.dedent(f"""
        import json, os, pathlib
        runs = pathlib.Path({str(counter)!r})
        n = int(runs.read_text()) if runs.exists() else 0
        runs.write_text(str(n + 1))
        token = "expired" if n == 0 else {TOKEN!r}
        info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
        print(json.dumps({{"apiVersion": info["apiVersion"], "kind": "ExecCredential", "status": {{"token": token}}}}))
    """))
    user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                     "args": [str(script)], "interactiveMode": "Never"}}
    kc = tls_server.write_kubeconfig(tmp_path / "kc", user=user, cluster={"certificate-authority": str(pki.ca)})
    assert _names(kc) == ["gpu"]
    assert counter.read_text() == "2"


def test_in_cluster_takes_the_server_token_and_ca_flags(tls_server: FakeApiServer, pki: Pki, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_pd.cluster.endpoint import in_cluster_with

    sa = tmp_path / "sa"
    sa.mkdir()
    (sa / "token").write_text("a-stale-token\n")
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.255.255.1")  # never reached: --server replaces it
    opts = ClusterOptions(server=tls_server.url, token=TOKEN, certificate_authority=str(pki.ca))
    ep = in_cluster_with(opts, str(sa))
    reply = Transport(ep, 5).send("GET", ep.server + "/apis/kueue.x-k8s.io/v1beta2/clusterqueues")
    assert reply.status == 200


def test_user_flag_picks_an_auth_provider_user_as_kubectl_does(tmp_path: Path) -> None:
    """--user names an auth-provider (OIDC) user that is not the context's: its token is what goes out, not
    the context's user's (the kubernetes package reads contexts only; it gets one made of the flags)."""
    import time

    import yaml

    jwt = ".".join([_b64url({"alg": "none", "typ": "JWT"}),
                    _b64url({"iss": "https://issuer.example", "sub": "tester", "exp": int(time.time()) + 3600}),
                    "sig"])
    server = FakeApiServer(objects=[dict(CQ)], token=jwt).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc", token="not-the-token")
        doc = yaml.safe_load(kc.read_text())
        doc["users"].append({"name": "oidc", "user": {"auth-provider": {"name": "oidc", "config": {
            "id-token": jwt, "idp-issuer-url": "https://issuer.example", "client-id": "kubectl"}}}})
        kc.write_text(yaml.safe_dump(doc))
        denied = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--kubeconfig", str(kc)],
                                capture_output=True, text=True, timeout=60)
        chosen = subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--kubeconfig", str(kc), "--user", "oidc"],
                                capture_output=True, text=True, timeout=60)
        assert denied.returncode != 0
        assert chosen.returncode == 0, chosen.stderr
        assert jwt not in chosen.stdout + chosen.stderr and "not-the-token" not in denied.stdout + denied.stderr
    finally:
        server.stop()
