"""HTTPS_PROXY / HTTP_PROXY / NO_PROXY are honoured like kubectl does (the kubernetes client alone ignores them)."""

from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_pd.cluster.config import proxy_for

ENV = {"HTTPS_PROXY": "http://proxy:3128", "HTTP_PROXY": "http://plain:3128"}


@pytest.mark.parametrize(
    ("server", "no_proxy", "expected"),
    [
        ("https://api.prod.example:6443", "", "http://proxy:3128"),
        ("http://api.prod.example:6443", "", "http://plain:3128"),
        ("https://api.prod.example:6443", "example", None),
        ("https://api.prod.example:6443", ".prod.example", None),
        ("https://api.prod.example:6443", "other.example,*.example", None),
        ("https://api.prod.example:6443", "api.prod.example:443", "http://proxy:3128"),
        ("https://api.prod.example:6443", "api.prod.example:6443", None),
        ("https://10.1.2.3:6443", "10.0.0.0/8", None),
        ("https://10.1.2.3:6443", "192.168.0.0/16", "http://proxy:3128"),
        ("https://[fd00::1]:6443", "fd00::/8", None),
        ("https://anything:6443", "*", None),
        ("https://examples.org:6443", "example.org", "http://proxy:3128"),
    ],
)
def test_proxy_for(server: str, no_proxy: str, expected: str | None) -> None:
    assert proxy_for(server, {**ENV, "no_proxy": no_proxy}) == expected


def test_no_proxy_variables_means_direct() -> None:
    assert proxy_for("https://api:6443", {}) is None


def _kubeconfig(path: Path, token: str) -> Path:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "behind-proxy",
        "clusters": [{"name": "c", "cluster": {"server": "http://kube.invalid:6443"}}],
        "users": [{"name": "u", "user": {"token": token}}],
        "contexts": [{"name": "behind-proxy", "context": {"cluster": "c", "user": "u"}}],
    }))
    return path


def test_requests_go_through_the_proxy(cli: Callable, apiserver: Callable, tmp_path: Path) -> None:
    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
          "spec": {"namespaceSelector": {}}}
    # the loopback server answers absolute-URI requests as a forward proxy would; plain http and, like
    # `kubectl proxy`, serving requests without credentials (none are sent to an http:// server)
    proxy, _ = apiserver(cq, tls=False, anonymous=True)
    kc = _kubeconfig(tmp_path / "kc", proxy.token)
    r = cli(["lint", "--request-timeout", "5s"], env={"KUBECONFIG": str(kc), "HTTP_PROXY": proxy.url,
                                                       "NO_PROXY": "localhost"})
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "no findings in 1 object (1 ClusterQueue)\n"
    assert "/apis/kueue.x-k8s.io/v1beta2/clusterqueues" in [q.path for q in proxy.requests]
    direct = cli(["lint", "--request-timeout", "5s"], env={"KUBECONFIG": str(kc), "HTTP_PROXY": proxy.url,
                                                            "NO_PROXY": ".invalid"})
    assert direct.exit_code == 1
    assert direct.stderr == ("error: cannot reach the API server at http://kube.invalid:6443 (host name not found): is "
                             "the cluster up, and is context 'behind-proxy' the right one?\n")  # direct, not proxied


def test_https_goes_through_a_connect_tunnel_like_kubectl(cli: Callable, apiserver: Callable,
                                                         tmp_path: Path) -> None:
    import base64

    from tests.apiserver import ConnectProxy
    from tests.conftest import run_kubectl

    cq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
          "spec": {"namespaceSelector": {}}}
    server, _ = apiserver(cq)  # HTTPS
    auth = "Basic " + base64.b64encode(b"proxyuser:p@ss").decode()
    proxy = ConnectProxy(auth=auth)
    try:
        with_creds = proxy.url.replace("http://", "http://proxyuser:p%40ss@")
        kc = server.write_kubeconfig(tmp_path / "kc", cluster={"proxy-url": with_creds})
        r = cli(["lint", "--kubeconfig", str(kc), "--request-timeout", "5s"])
        assert r.exit_code == 0, r.stderr
        assert proxy.tunnels == [server.url.removeprefix("https://")]
        assert "p@ss" not in r.stderr
        p = run_kubectl(["get", "--raw", "/apis/kueue.x-k8s.io/v1beta2/clusterqueues", "--kubeconfig", str(kc)])
        assert p.returncode == 0, p.stderr
        assert len(proxy.tunnels) >= 2  # kubectl tunnelled through the same proxy
        bad = server.write_kubeconfig(tmp_path / "bad", cluster={"proxy-url": proxy.url})  # no credentials
        r = cli(["lint", "--kubeconfig", str(bad), "--request-timeout", "5s"])
        assert (r.exit_code, r.stderr) == (1, f"error: cannot reach the API server at {server.url} through the proxy "
                                              "(it refused the tunnel): check HTTPS_PROXY/NO_PROXY or the kubeconfig's "
                                              "proxy-url\n")
    finally:
        proxy.stop()


# Go's own table for NO_PROXY (golang.org/x/net, http/httpproxy/proxy_test.go: UseProxyTests and noProxy),
# translated: every host is asked for on port 80, `True` means it goes through the proxy.
GO_NO_PROXY = ("foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, "
               "2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64")
GO_USE_PROXY = [
    ("localhost", False), ("127.0.0.1", False), ("127.0.0.2", False), ("[::1]", False), ("[::2]", True),
    ("192.168.1.1", False), ("192.168.1.2", True), ("192.168.1.3", False), ("192.168.1.4", True),
    ("10.0.0.2", False), ("[2001:db8::52:0:1]", False), ("[2001:db8::52:0:2]", True),
    ("[2001:db8::52:0:3]", False), ("[2002:db8:a::123]", False), ("[fe80::424b:c8be:1643:a1b6]", True),
    ("barbaz.net", True), ("www.barbaz.net", False), ("foobar.com", False), ("www.foobar.com", False),
    ("foofoobar.com", True), ("baz.com", True), ("localhost.net", True), ("local.localhost", True),
    ("barbarbaz.net", True), ("wildcard.io", True), ("nested.wildcard.io", False), ("awildcard.io", True),
]


@pytest.mark.parametrize(("host", "proxied"), GO_USE_PROXY, ids=[h for h, _ in GO_USE_PROXY])
def test_no_proxy_as_go_reads_it(host: str, proxied: bool) -> None:
    env = {"HTTPS_PROXY": "http://proxy:3128", "NO_PROXY": GO_NO_PROXY}
    assert (proxy_for(f"https://{host}:80", env) is not None) == proxied
    assert proxy_for(f"https://{host}:80", {**env, "NO_PROXY": "*"}) is None  # TestAllNoProxy


@pytest.mark.parametrize(
    ("server", "no_proxy", "proxied"),
    [
        ("https://api", "api:443", False),  # no port in the URL: the scheme's default is compared
        ("https://api", "api:8443", True),
        ("http://api", "api:80", False),
        ("https://LOCALHOST:6443", "", False),
        ("https://example.com:80", ":1", True),  # TestInvalidNoProxy: a bad entry matches nothing
        ("https://[::1]:6443", "", False),
    ],
)
def test_ports_and_loopback(server: str, no_proxy: str, proxied: bool) -> None:
    env = {"HTTPS_PROXY": "http://proxy:3128", "HTTP_PROXY": "http://proxy:3128", "NO_PROXY": no_proxy}
    assert (proxy_for(server, env) is not None) == proxied


def test_upper_case_wins_and_empty_is_unset() -> None:
    assert proxy_for("https://api:6443", {"HTTPS_PROXY": "http://up:1", "https_proxy": "http://low:1"}) == "http://up:1"
    assert proxy_for("https://api:6443", {"HTTPS_PROXY": "", "https_proxy": "http://low:1"}) == "http://low:1"
    assert proxy_for("https://api:6443", {"HTTP_PROXY": "http://plain:1"}) is None  # https never uses HTTP_PROXY
