"""Each kubeconfig, flag set and proxy setting run through the real kubectl and through kubectl-pd against the
same loopback API server (HTTPS, throwaway CA): the same outcome (served, or refused before any request),
the same impersonation headers, the same route (direct or via the proxy), and no credential in any output.

kubectl is the reference (issue 21). kubectl exits 1 for every refusal; kubectl-pd uses its documented codes
(2: a kubeconfig file it cannot read as kubectl would, 1: a configuration kubectl's validation refuses, or
a connection that fails), which each case states.
"""

from __future__ import annotations

import base64
import json
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.apiserver import TLS, TOKEN, ConnectProxy, FakeApiServer
from tests.conftest import Pki, run_cli, run_kubectl

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}
RAW_PATH = "/apis/kueue.x-k8s.io/v1beta2/clusterqueues"
NO_PROXY_ENV = {"HTTPS_PROXY": "", "https_proxy": "", "HTTP_PROXY": "", "http_proxy": "", "NO_PROXY": "",
                "no_proxy": ""}


@pytest.fixture(scope="module")
def server() -> Iterator[FakeApiServer]:
    s = FakeApiServer(objects=[dict(CQ)]).start()
    if not isinstance(s.tls, TLS) or s.tls.ca is None:
        s.stop()
        pytest.fail("the loopback server has no throwaway CA (tests/pki.py)")
    yield s
    s.stop()


def _ca(server: FakeApiServer) -> Path:
    assert isinstance(server.tls, TLS) and server.tls.ca is not None
    return server.tls.ca


@dataclass
class Case:
    id: str
    cluster: list[str] = field(default_factory=list)  # raw YAML lines of the cluster entry (4-space indent)
    user: list[str] | None = None  # raw YAML lines of the user entry; None: the server's token
    flags: list[str] = field(default_factory=list)
    served: bool = True  # kubectl's outcome: the request served (else refused before any request went out)
    code: int = 0  # kubectl-pd's exit code
    trust: bool = True  # the kubeconfig carries the server's CA
    context: str = "loopback"
    user_name: str = "tester"
    tail: str = ""  # text after the document
    encoding: str = "utf-8"
    kubectl_leaks: bool = False  # kubectl prints the token in its error (we do not): docs/global-options.md


def kubeconfig_text(server: FakeApiServer, case: Case, url: str | None = None) -> str:
    cluster = [f"    server: {url or server.url}"]
    if case.trust:
        cluster.append(f"    certificate-authority-data: {base64.b64encode(_ca(server).read_bytes()).decode()}")
    user = case.user if case.user is not None else [f"    token: {TOKEN}"]
    lines = ["apiVersion: v1", "kind: Config", f"current-context: {case.context}", "contexts:",
             f"- name: {case.context}", "  context:", "    cluster: loopback", f"    user: {case.user_name}",
             "clusters:", "- name: loopback", "  cluster:", *cluster, *case.cluster, "users:",
             f"- name: {case.user_name}", "  user:", *user]
    return "\n".join(lines) + "\n" + case.tail


def write(path: Path, text: str, encoding: str = "utf-8") -> Path:
    data = text.encode(encoding)
    if encoding == "utf-16-le":
        data = b"\xff\xfe" + data
    path.write_bytes(data)
    return path


@dataclass
class Outcome:
    code: int
    requests: int
    impersonation: list[tuple[str, str]]
    output: str


def _impersonation(log: list[list[tuple[str, str]]]) -> list[tuple[str, str]]:
    if not log:
        return []
    return sorted(((k.lower(), v) for k, v in log[0] if k.lower().startswith("impersonate-")), key=lambda kv: kv[0])


def via_kubectl(server: FakeApiServer, env: dict[str, str], flags: list[str]) -> Outcome:
    server.header_log.clear()
    p = run_kubectl(["get", "--raw", RAW_PATH, "--request-timeout", "10s", *flags], env={**NO_PROXY_ENV, **env})
    return Outcome(p.returncode, len(server.header_log), _impersonation(server.header_log), p.stdout + p.stderr)


def via_pd(server: FakeApiServer, env: dict[str, str], flags: list[str]) -> Outcome:
    server.header_log.clear()
    r = run_cli(["lint", "--request-timeout", "10s", *flags], env={**NO_PROXY_ENV, "NO_COLOR": "1", **env})
    return Outcome(r.exit_code, len(server.header_log), _impersonation(server.header_log), r.stdout + r.stderr)


def assert_same(case: Case, theirs: Outcome, ours: Outcome) -> None:
    assert (theirs.code == 0, theirs.requests > 0) == (case.served, case.served), theirs.output
    assert (ours.code, ours.requests > 0) == (case.code, case.served), ours.output
    assert ours.impersonation == theirs.impersonation
    assert TOKEN not in ours.output
    assert (TOKEN in theirs.output) == case.kubectl_leaks
    if not case.served:
        assert len(ours.output.strip().splitlines()) == 1  # one `error:` line


EXEC_V1 = ["    exec:", "      apiVersion: client.authentication.k8s.io/v1", "      command: /bin/true"]

KUBECONFIG_CASES = [
    # typed booleans, read as kubectl reads them (YAML 1.1 words; a quoted string is not a boolean)
    Case("insecure-quoted-false", ['    insecure-skip-tls-verify: "false"'], trust=False, served=False, code=2),
    Case("insecure-quoted-no", ["    insecure-skip-tls-verify: 'no'"], trust=False, served=False, code=2),
    Case("insecure-number", ["    insecure-skip-tls-verify: 1"], trust=False, served=False, code=2),
    Case("insecure-n-verifies", ["    insecure-skip-tls-verify: n"], trust=False, served=False, code=1),
    Case("insecure-off-verifies", ["    insecure-skip-tls-verify: off"], trust=False, served=False, code=1),
    Case("insecure-y", ["    insecure-skip-tls-verify: y"], trust=False),
    Case("insecure-yes", ["    insecure-skip-tls-verify: yes"], trust=False),
    Case("token-number", user=["    token: 12345"], served=False, code=2),
    Case("token-boolean", user=["    token: yes"], served=False, code=2),
    Case("bad-base64", user=[f"    token: {TOKEN}", "    client-certificate-data: '!!!'"], served=False, code=2),
    Case("extra-not-a-list", user=[f"    token: {TOKEN}", "    as: alice", "    as-user-extra: {k: v}"],
         served=False, code=2),
    Case("duplicate-user", user=[f"    token: {TOKEN}"], tail="- name: tester\n  user:\n    token: other\n",
         served=False, code=2, kubectl_leaks=True),
    # kubectl's validation of the user it is about to use
    Case("groups-without-as", user=[f"    token: {TOKEN}", "    as-groups: [dev]"], served=False, code=1),
    Case("token-and-basic", user=[f"    token: {TOKEN}", "    username: a", "    password: b"], served=False,
         code=1),
    Case("exec-v1-without-interactive-mode", user=EXEC_V1, served=False, code=1),
    Case("exec-unknown-interactive-mode", user=[*EXEC_V1, "      interactiveMode: Sometimes"], served=False, code=1),
    # forms kubectl reads
    Case("second-document-ignored", tail="---\nnot: [valid\n"),
    Case("utf-16-with-bom", encoding="utf-16-le"),
    Case("non-ascii-names", context="прод-контекст", user_name="ユーザー"),
    # impersonation: one header per group, one per extra value, the key escaped as client-go does
    Case("impersonation-in-kubeconfig", user=[f"    token: {TOKEN}", "    as: alice", "    as-uid: '42'",
                                              "    as-groups: [dev, ops]",
                                              "    as-user-extra: {scopes: [read, write], 'odd key/é': [x]}"]),
]


@pytest.mark.parametrize("case", KUBECONFIG_CASES, ids=lambda c: c.id)
def test_kubeconfig_cases_match_kubectl(case: Case, server: FakeApiServer, tmp_path: Path) -> None:
    kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, case), case.encoding)
    env = {"KUBECONFIG": str(kc)}
    assert_same(case, via_kubectl(server, env, case.flags), via_pd(server, env, case.flags))


FLAG_CASES = [
    Case("as-and-groups", flags=["--as", "alice", "--as-group", "dev", "--as-group", "ops", "--as-uid", "7"]),
    Case("as-non-ascii", flags=["--as", "josé", "--as-group", "équipe"]),
    Case("as-group-alone", flags=["--as-group", "dev"], served=False, code=1),
    Case("as-replaces-kubeconfig", user=[f"    token: {TOKEN}", "    as: bob", "    as-groups: [x]"],
         flags=["--as", "alice"]),
    Case("unknown-user", flags=["--user", "nobody"], served=False, code=1),
    Case("unknown-cluster", flags=["--cluster", "nowhere"], served=False, code=1),
    Case("unknown-context", flags=["--context", "nothing"], served=False, code=1),
    Case("user-flag", user=["    token: wrong"], tail=f"- name: other\n  user:\n    token: {TOKEN}\n",
         flags=["--user", "other"]),
    Case("insecure-flag", trust=False, flags=["--insecure-skip-tls-verify"]),
    Case("insecure-flag-false", trust=False, flags=["--insecure-skip-tls-verify=false"], served=False, code=1),
    Case("insecure-flag-and-ca", flags=["--insecure-skip-tls-verify", "--certificate-authority", "CA"],
         served=False, code=1),
    Case("ca-flag", trust=False, flags=["--certificate-authority", "CA"]),
    Case("tls-server-name-localhost", flags=["--tls-server-name", "localhost"]),
    Case("tls-server-name-wrong", flags=["--tls-server-name", "wrong.example"], served=False, code=1),
    Case("token-flag", user=["    token: wrong"], flags=["--token", TOKEN]),
    Case("user-extra-flags", user=[f"    token: {TOKEN}", "    as: alice", "    as-user-extra: {a: [k1], b: [k2]}"],
         flags=["--as-user-extra", "b=x=y", "--as-user-extra", "b=z", "--as-user-extra", "ignored",
                "--as-user-extra", "=v", "--as-user-extra", "k y=é"]),
    Case("user-extra-alone", flags=["--as-user-extra", "a=b"], served=False, code=1),
]


@pytest.mark.parametrize("case", FLAG_CASES, ids=lambda c: c.id)
def test_connection_flags_match_kubectl(case: Case, server: FakeApiServer, tmp_path: Path) -> None:
    kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, case))
    flags = [str(_ca(server)) if f == "CA" else f for f in case.flags]
    env = {"KUBECONFIG": str(kc)}
    assert_same(case, via_kubectl(server, env, flags), via_pd(server, env, flags))


def test_server_and_token_flags_without_any_kubeconfig(server: FakeApiServer, tmp_path: Path) -> None:
    env = {"KUBECONFIG": str(tmp_path / "absent")}
    flags = ["-s", server.url, "--token", TOKEN, "--certificate-authority", str(_ca(server))]
    assert_same(Case("no-kubeconfig"), via_kubectl(server, env, flags), via_pd(server, env, flags))


def test_flags_before_the_command_too(server: FakeApiServer, tmp_path: Path) -> None:
    kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, Case("x")))
    server.header_log.clear()
    r = run_cli(["--as", "alice", "--as-group", "dev", "lint", "--as-group", "ops", "--request-timeout", "10s"],
                env={**NO_PROXY_ENV, "KUBECONFIG": str(kc)})
    assert r.exit_code == 0, r.stderr
    # the subcommand's --as-group replaces the one given before it, --as carries over
    assert _impersonation(server.header_log) == [("impersonate-group", "ops"), ("impersonate-user", "alice")]


def test_kubeconfig_list_with_an_empty_current_context_takes_the_next(server: FakeApiServer, tmp_path: Path) -> None:
    first = write(tmp_path / "a", 'apiVersion: v1\nkind: Config\ncurrent-context: ""\n')
    second = write(tmp_path / "b", kubeconfig_text(server, Case("b")))
    env = {"KUBECONFIG": f"{first}:{second}"}
    assert_same(Case("empty-current-context"), via_kubectl(server, env, []), via_pd(server, env, []))


# -- proxies: the route, as Go's httpproxy decides it ---------------------------------------------------

def _port(server: FakeApiServer) -> int:
    return int(server.url.rsplit(":", 1)[1])


ROUTE_CASES = [  # (server host, port or None for the default 443, NO_PROXY, via the proxy)
    ("127.0.0.1", "port", "", False),
    ("localhost", "port", "", False),
    ("api.corp.test", "port", "", True),
    ("api.corp.test", "port", ".corp.test", False),
    ("corp.test", "port", ".corp.test", True),
    ("api.corp.test", "port", "*.corp.test", False),
    ("corp.test", "port", "*.corp.test", True),
    ("api.corp.test", "port", "corp.test", False),
    ("api.corp.test", "port", "api.corp.test:443", True),
    ("api.corp.test", "port", "api.corp.test:PORT", False),
    ("api.corp.test", None, "api.corp.test:443", False),
    ("api.corp.test", None, "api.corp.test:8443", True),
    ("api.corp.test", "port", "other.test,*", False),
]


@pytest.mark.parametrize(("host", "port", "no_proxy", "proxied"), ROUTE_CASES,
                         ids=[f"{h}:{p or 443}-[{n}]" for h, p, n, _ in ROUTE_CASES])
def test_proxy_route_matches_kubectl(host: str, port: str | None, no_proxy: str, proxied: bool,
                                     server: FakeApiServer, tmp_path: Path) -> None:
    proxy = ConnectProxy(upstream=("127.0.0.1", _port(server)))
    try:
        url = f"https://{host}:{_port(server)}" if port else f"https://{host}"
        case = Case("route", cluster=["    tls-server-name: localhost"])
        kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, case, url))
        env = {"KUBECONFIG": str(kc), "HTTPS_PROXY": proxy.url,
               "NO_PROXY": no_proxy.replace("PORT", str(_port(server)))}
        routes = []
        for run in (via_kubectl, via_pd):
            proxy.tunnels.clear()
            outcome = run(server, env, ["--request-timeout", "5s"])
            routes.append(bool(proxy.tunnels))
            assert TOKEN not in outcome.output
            if proxied:
                assert outcome.code == 0, outcome.output
        assert routes == [proxied, proxied]
    finally:
        proxy.stop()


def test_kubeconfig_proxy_url_is_used_for_loopback_too(server: FakeApiServer, tmp_path: Path) -> None:
    proxy = ConnectProxy(upstream=("127.0.0.1", _port(server)))
    try:
        kc = write(tmp_path / "kubeconfig",
                   kubeconfig_text(server, Case("p", cluster=[f"    proxy-url: {proxy.url}"])))
        for run in (via_kubectl, via_pd):
            proxy.tunnels.clear()
            assert run(server, {"KUBECONFIG": str(kc)}, []).code == 0
            assert proxy.tunnels == [f"127.0.0.1:{_port(server)}"]
    finally:
        proxy.stop()


# -- exec plugins: what KUBERNETES_EXEC_INFO carries ----------------------------------------------------

@pytest.mark.parametrize("extension", [True, False], ids=["exec-extension", "no-extension"])
def test_exec_info_matches_kubectl(server: FakeApiServer, tmp_path: Path, extension: bool) -> None:
    """provideClusterInfo: spec.cluster as kubectl hands it, `config` included (the exec extension's
    value, and null without one: client-go's RawExtension is not omitted when empty)."""
    out = tmp_path / "info.json"
    script = tmp_path / "plugin.py"
    script.write_text(textwrap.dedent(f"""
        import json, os, sys
        info = json.loads(os.environ["KUBERNETES_EXEC_INFO"])
        open({str(out)!r}, "w").write(json.dumps(info))
        print(json.dumps({{"apiVersion": info["apiVersion"], "kind": "ExecCredential",
                           "status": {{"token": {TOKEN!r}}}}}))
    """))
    case = Case("exec", trust=False,
                cluster=[f"    certificate-authority: {_ca(server)}", "    tls-server-name: localhost"]
                + (["    extensions:", "    - name: client.authentication.k8s.io/exec",
                    "      extension: {audience: kube, region: north}"] if extension else []),
                user=["    exec:", "      apiVersion: client.authentication.k8s.io/v1",
                      f"      command: {sys.executable}", f"      args: [{json.dumps(str(script))}]",
                      "      interactiveMode: Never", "      provideClusterInfo: true"])
    kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, case))
    infos = []
    for run in (via_kubectl, via_pd):
        outcome = run(server, {"KUBECONFIG": str(kc)}, [])
        assert outcome.code == 0, outcome.output
        infos.append(json.loads(out.read_text()))
    theirs, ours = infos
    assert ours == theirs
    assert set(ours["spec"]["cluster"]) == {"server", "tls-server-name", "certificate-authority-data", "config"}
    assert base64.b64decode(ours["spec"]["cluster"]["certificate-authority-data"]) == _ca(server).read_bytes()


@pytest.mark.parametrize(("file_token", "flag_token", "served"), [(TOKEN, "wrong", True), ("wrong", TOKEN, False)])
def test_token_flag_against_a_token_file(file_token: str, flag_token: str, served: bool, server: FakeApiServer,
                                         tmp_path: Path) -> None:
    """kubectl keeps reading the kubeconfig's tokenFile when --token is given (the file wins); so do we."""
    (tmp_path / "token").write_text(file_token + "\n")
    case = Case("token-file", user=[f"    tokenFile: {tmp_path / 'token'}"], served=served, code=0 if served else 1)
    kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, case))
    env = {"KUBECONFIG": str(kc)}
    theirs, ours = (run(server, env, ["--token", flag_token]) for run in (via_kubectl, via_pd))
    assert (theirs.code == 0, ours.code) == (served, case.code), (theirs.output, ours.output)
    assert TOKEN not in ours.output


def test_proxy_url_flag(server: FakeApiServer, tmp_path: Path) -> None:
    proxy = ConnectProxy(upstream=("127.0.0.1", _port(server)))
    try:
        kc = write(tmp_path / "kubeconfig", kubeconfig_text(server, Case("p")))
        for run in (via_kubectl, via_pd):
            proxy.tunnels.clear()
            assert run(server, {"KUBECONFIG": str(kc)}, ["--proxy-url", proxy.url]).code == 0
            assert proxy.tunnels == [f"127.0.0.1:{_port(server)}"]
    finally:
        proxy.stop()


@pytest.mark.parametrize("in_kubeconfig", [[], ["    client-certificate-data: bm90IGEgY2VydA==",
                                                 "    client-key-data: bm90IGEga2V5"]])
def test_client_certificate_flags(in_kubeconfig: list[str], pki: Pki, tmp_path: Path,
                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """--client-certificate/--client-key (relative to the working directory) replace the kubeconfig's data."""
    tls = FakeApiServer(objects=[dict(CQ)], tls=TLS(pki.server_cert, pki.server_key, client_ca=pki.ca, ca=pki.ca))
    tls.start()
    try:
        kc = write(tmp_path / "kubeconfig", kubeconfig_text(tls, Case("cert", user=in_kubeconfig)))
        monkeypatch.chdir(pki.dir)
        flags = ["--client-certificate", "client.crt", "--client-key", "client.key"]
        for run in (via_kubectl, via_pd):
            outcome = run(tls, {"KUBECONFIG": str(kc)}, flags)
            assert outcome.code == 0, outcome.output
    finally:
        tls.stop()
