"""The odd inputs of issue 30 (item 6, "every error says what happened") that other tests do not cover:
complex YAML keys in manifests and kubeconfigs, JSON nested past the documented 200 levels, 1e400 in every
numeric field, an auth-provider (OIDC) token refresh and an exec credential refresh that fail, and a control
character in a header value an auth-provider gives. Each a one-line error with the documented exit code.

kubectl refuses a complex key too: `yaml: invalid map key: []interface {}{"a"}` (sigs.k8s.io/yaml);
Go's net/http refuses a header value with a control character (`invalid header field value`)."""

from __future__ import annotations

import base64
import copy
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.cluster import parse
from kubectl_pd.errors import InputError
from tests.apiserver import TOKEN, FakeApiServer
from tests.conftest import FIXTURES

CQ_HEAD = "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ClusterQueue\nmetadata: {name: q}\n"


def _one_error(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "internal error" not in stderr and "Traceback" not in stderr, stderr
    return lines[0]


# ---------------------------------------------------------------------------------------------- complex keys
COMPLEX = [
    ("list-key-block", CQ_HEAD + "spec:\n  ? [a, b]\n  : c\n", 5),
    ("mapping-key-flow", CQ_HEAD + "spec: {? {a: 1}: 2}\n", 4),
    ("list-key-in-a-list-item", CQ_HEAD + "spec:\n  resourceGroups:\n  - ? [x]\n    : y\n", 6),
    ("anchored-document", CQ_HEAD + "spec: &s\n  ? [a]\n  : b\nstatus: *s\n", 5),
]


@pytest.mark.parametrize(("text", "line"), [(t, n) for _, t, n in COMPLEX], ids=[n for n, _, _ in COMPLEX])
@pytest.mark.parametrize("command", [["lint"], ["why-pending", "-A"]], ids=["lint", "why-pending"])
def test_a_complex_key_in_a_manifest_is_one_line(cli: Callable, tmp_path: Path, command: list[str], text: str,
                                                 line: int) -> None:
    f = tmp_path / "q.yaml"
    f.write_text(text)
    r = cli([*command, "-f", str(f)])
    assert r.exit_code == 2
    assert _one_error(r.stderr).startswith(f"error: {f}:{line}: a ")


@pytest.mark.parametrize("where", ["user", "top"])
def test_a_complex_key_in_a_kubeconfig_is_one_line(cli: Callable, tmp_path: Path, where: str) -> None:
    kc = tmp_path / "kc"
    user = "{token: t, ? [a]: b}" if where == "user" else "{token: t}"
    kc.write_text("apiVersion: v1\nkind: Config\ncurrent-context: c\n"
                  "clusters: [{name: x, cluster: {server: 'https://127.0.0.1:9'}}]\n"
                  f"users: [{{name: u, user: {user}}}]\n"
                  "contexts: [{name: c, context: {cluster: x, user: u}}]\n"
                  + ("? [x]\n: y\n" if where == "top" else ""))
    r = cli(["lint", "--request-timeout", "2s"], env={"KUBECONFIG": str(kc)})
    assert r.exit_code == 2
    assert "mapping key" in _one_error(r.stderr) and f"kubeconfig {kc}:" in r.stderr


# ---------------------------------------------------------------------------------------------- JSON nesting
def _nested(levels: int, shape: str) -> str:
    """A JSON file whose deepest container is `levels` containers deep, counting the top one."""
    head = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "q"}}
    inner: Any = 1
    if shape == "object":  # top object > spec > deep lists
        for _ in range(levels - 2):
            inner = [inner]
        return json.dumps({**head, "spec": {"deep": inner}} if levels > 2 else head)
    if shape == "list-item":  # List > items > item > spec > deep lists
        for _ in range(levels - 4):
            inner = [inner]
        return json.dumps({"kind": "List", "apiVersion": "v1", "items": [{**head, "spec": {"deep": inner}}]})
    for _ in range(levels - 1):  # a top-level array
        inner = [inner]
    return json.dumps([inner])


def _depth(o: Any) -> int:
    deepest, stack = 0, [(o, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


@pytest.mark.parametrize("shape", ["object", "list-item", "array"])
@pytest.mark.parametrize(("levels", "refused"), [(150, False), (199, False), (200, False), (201, True),
                                                 (202, True), (250, True), (900, True)])
def test_json_nested_past_200_levels_is_refused_as_the_docs_say(shape: str, levels: int, refused: bool) -> None:
    """docs/lint.md: 'nesting deeper than 200 levels' is malformed input; YAML stopped at 200, JSON at
    Python's recursion limit (about 1,000): 250 levels were accepted."""
    text = _nested(levels, shape)
    if levels < 900:  # json.loads itself stops near 1,000
        assert _depth(json.loads(text)) == levels
    if refused:
        with pytest.raises(InputError, match="nested too deeply"):
            list(parse.json_documents(text, "f.json"))
    else:
        assert list(parse.json_documents(text, "f.json"))


@pytest.mark.parametrize(("levels", "deeper"), [(1, False), (200, False), (201, True), (250, True)])
def test_the_depth_walk(levels: int, deeper: bool) -> None:
    """What has more than 200 opening brackets in its text is walked for its depth."""
    data = json.loads(_nested(levels, "array")) if levels > 1 else [1]
    assert parse._deeper_than(data, parse.MAX_DEPTH) is deeper


def test_250_levels_of_json_through_the_cli(cli: Callable, tmp_path: Path) -> None:
    f = tmp_path / "deep.json"
    f.write_text(_nested(250, "object"))
    for command in (["lint"], ["why-pending", "-A"]):
        r = cli([*command, "-f", str(f)])
        assert r.exit_code == 2 and _one_error(r.stderr) == f"error: {f}:1: nested too deeply: not a Kubernetes object"


# ---------------------------------------------------------------------------------------------- 1e400
def _numeric_paths(doc: Any, path: list[Any]) -> list[list[Any]]:
    if isinstance(doc, dict):
        return [p for k, v in doc.items() for p in _numeric_paths(v, [*path, k])]
    if isinstance(doc, list):
        return [p for i, v in enumerate(doc) for p in _numeric_paths(v, [*path, i])]
    numeric = (isinstance(doc, int | float) and not isinstance(doc, bool)) or (
        isinstance(doc, str) and re.fullmatch(r"[0-9.]+[a-zA-Z]{0,2}", doc) is not None)
    return [path] if numeric else []


PENDING_DOCS = [i for d in yaml.safe_load_all((FIXTURES / "pending/quota-exhausted.yaml").read_text()) if d
                for i in (d["items"] if d.get("kind") == "List" else [d])]
NUMERIC = [p for i, d in enumerate(PENDING_DOCS) for p in _numeric_paths(d, [i])]


def test_the_fixture_has_numeric_fields_of_each_kind() -> None:
    kinds = {PENDING_DOCS[p[0]]["kind"] for p in NUMERIC}
    assert len(NUMERIC) >= 40 and {"ClusterQueue", "Workload"} <= kinds


@pytest.mark.parametrize("value", ["1e400", "unquoted-1e400", "1e-400", "-1e400"])
def test_1e400_in_every_numeric_field_is_answered(cli: Callable, tmp_path: Path, value: str) -> None:
    """Every numeric field of a pending deployment's objects in turn: an answer (a verdict, a finding, an
    unknown) or one error line; never an internal error or a traceback."""
    f = tmp_path / "n.yaml"
    for path in NUMERIC:
        docs = copy.deepcopy(PENDING_DOCS)
        node: Any = docs
        for k in path[:-1]:
            node = node[k]
        node[path[-1]] = "@@" if value == "unquoted-1e400" else value
        f.write_text("---\n".join(yaml.safe_dump(d) for d in docs).replace("'@@'", "1e400"))
        for command in (["why-pending", "-A"], ["why-pending", "qwen-pd", "-n", "team-a", "-o", "json"], ["lint"]):
            r = cli([*command, "-f", str(f)])
            assert r.exit_code in (0, 1, 2), (path, command, r.stderr)
            assert "internal error" not in r.stderr and "Traceback" not in r.stderr, (path, command, r.stderr)


# ---------------------------------------------------------------------------------------------- refreshes
def _b64url(d: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")


def _kubeconfig(tmp_path: Path, user: dict[str, Any], server: str = "https://127.0.0.1:9") -> Path:
    kc = tmp_path / "kc"
    kc.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "clusters": [{"name": "x", "cluster": {"server": server, "insecure-skip-tls-verify": True}}],
        "contexts": [{"name": "c", "context": {"cluster": "x", "user": "u"}}],
        "users": [{"name": "u", "user": user}]}))
    return kc


def _run(kc: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "KUBECONFIG": str(kc), "NO_COLOR": "1"}
    env.pop("KUBECTL_PD_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "kubectl_pd", "lint", "--request-timeout", "5s", *args],
                          capture_output=True, text=True, timeout=60, env=env)


@pytest.mark.parametrize("refresh_token", [True, False], ids=["refresh-token", "no-refresh-token"])
def test_a_failed_oidc_refresh_says_which_and_why(tmp_path: Path, refresh_token: bool) -> None:
    """An expired id-token whose issuer cannot be reached: was 'internal error (MaxRetryError: ...)'."""
    expired = ".".join([_b64url({"alg": "none"}), _b64url({"exp": int(time.time()) - 3600}), "sig"])
    config = {"client-id": "k", "client-secret": "oidc-secret-do-not-print", "id-token": expired,
              "idp-issuer-url": "https://127.0.0.1:1"}
    if refresh_token:
        config["refresh-token"] = "refresh-do-not-print"
    r = _run(_kubeconfig(tmp_path, {"auth-provider": {"name": "oidc", "config": config}}))
    line = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
    assert r.returncode == 1 and line == [r.stderr.strip().splitlines()[-1]]
    assert line[0] == ("error: the auth-provider of context 'c' failed to get or refresh its token: cannot reach "
                       "the identity provider at https://127.0.0.1:1/.well-known/openid-configuration "
                       "(connection refused)")
    assert "do-not-print" not in r.stderr


def test_a_failed_exec_refresh_says_it_was_a_refresh(tmp_path: Path) -> None:
    """The first credential is refused (401); the plugin's second run, the refresh, fails."""
    runs = tmp_path / "runs"
    plugin = tmp_path / "plugin.py"
    plugin.write_text(textwrap.dedent(f"""
        import json, pathlib, sys
        runs = pathlib.Path({str(runs)!r})
        n = int(runs.read_text()) if runs.exists() else 0
        runs.write_text(str(n + 1))
        if n:
            print("the identity provider is down", file=sys.stderr)
            sys.exit(4)
        print(json.dumps({{"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                          "status": {{"token": "stale"}}}}))
    """))
    server = FakeApiServer().start()
    try:
        user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                         "args": [str(plugin)], "interactiveMode": "Never"}}
        r = _run(server.write_kubeconfig(tmp_path / "kc", user=user))
    finally:
        server.stop()
    assert runs.read_text() == "2" and r.returncode == 1
    assert _one_error(r.stderr) == ("error: the API server refused the exec credential (401 Unauthorized) and its "
                                    f"refresh failed: exec credential plugin `{sys.executable}` failed with exit "
                                    "code 4: the identity provider is down")
    assert TOKEN not in r.stderr


@pytest.mark.parametrize("char", ["\x01", "\x1b", "\x7f", "\n"], ids=["SOH", "ESC", "DEL", "LF"])
def test_a_control_character_in_an_auth_provider_header_is_said(tmp_path: Path, char: str) -> None:
    """The gcp provider hands its cached access-token as the Authorization header (no gcloud run)."""
    token = f"ya29.secret{char}part"
    user = {"auth-provider": {"name": "gcp", "config": {"access-token": token, "expiry": "2099-01-01T00:00:00Z"}}}
    r = _run(_kubeconfig(tmp_path, user))
    assert r.returncode == 1
    assert _one_error(r.stderr) == ("error: the auth-provider of context 'c' gave a header (authorization) with a "
                                    "control character in its value (a line break or other): it cannot be sent; "
                                    "check the kubeconfig user's auth-provider")
    assert "secret" not in r.stderr


# ---------------------------------------------------------------------------------------------- lint and 1e400
LINT_QUOTA = CQ_HEAD + """spec:
  namespaceSelector: {}
  resourceGroups:
  - coveredResources: [cpu]
    flavors:
    - name: f
      resources:
      - {name: cpu, nominalQuota: VALUE}
"""


@pytest.mark.parametrize(("value", "codes"), [
    ('"1e400"', []), ('1e999999999', []), ('"2.5E+400"', []), ('"1e-400"', []), ('"1e101"', []), ('"-0e400"', []),
    ('"1e9223372036854775807"', []),  # the largest exponent resource.ParseQuantity reads (an int64)
    ('"-1e400"', ["PD108"]),  # negative: Kueue's webhook refuses it, whatever its size
    ('"1e9223372036854775808"', ["PD108"]),  # past an int64: ParseQuantity's own error
    ('"1e4O0"', ["PD108"]),
])
def test_lint_accepts_every_exponent_the_api_server_parses(cli: Callable, tmp_path: Path, value: str,
                                                           codes: list[str]) -> None:
    """resource.ParseQuantity takes any decimal exponent that fits an int64 (quantity.go@009f4971a05ddf1ed
    c5616eab805f5b79017da08, ParseQuantity and parseQuantityString); lint refused past 100 (PD108)."""
    f = tmp_path / "q.yaml"
    f.write_text(LINT_QUOTA.replace("VALUE", value))
    r = cli(["lint", "-f", str(f), "-o", "json"])
    assert [x["id"] for x in json.loads(r.stdout)["findings"]] == codes, r.stdout


@pytest.mark.parametrize("source", ["kubeconfig", "exec"])
@pytest.mark.parametrize("char", ["\x01", "\r\nX-Evil: 1", "\x7f"], ids=["SOH", "CRLF-header", "DEL"])
def test_a_control_character_in_a_token_is_said_and_never_sent(tmp_path: Path, source: str, char: str) -> None:
    token = f"secret{char}value"
    server = FakeApiServer(token=token).start()
    try:
        if source == "kubeconfig":
            user: dict[str, Any] = {"token": token}
        else:
            plugin = tmp_path / "plugin.py"
            plugin.write_text("import json\nprint(json.dumps({'apiVersion': 'client.authentication.k8s.io/v1', "
                              f"'kind': 'ExecCredential', 'status': {{'token': {token!r}}}}}))\n")
            user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                             "args": [str(plugin)], "interactiveMode": "Never"}}
        r = _run(server.write_kubeconfig(tmp_path / "kc", user=user))
        sent = list(server.requests)
    finally:
        server.stop()
    assert r.returncode == 1
    assert _one_error(r.stderr) == ("error: the token of user 'tester' (context 'loopback') contains characters that "
                                    "an HTTP header cannot carry: check the kubeconfig user")
    assert sent == [] and "secret" not in r.stderr
