"""Under faults, live: never lie, never leak, never hang (issue 13), through the real kubernetes-free path
against the loopback server with fault rules, and next to the real kubectl where kubectl is the reference."""

from __future__ import annotations

import json
import re
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.config import ClusterOptions
from kubectl_pd.cluster.endpoint import resolve
from kubectl_pd.cluster.http import DEFAULT_READ_TIMEOUT, Transport
from tests.apiserver import TOKEN, Fault
from tests.conftest import run_kubectl
from tests.test_create_wait import _create_while_playing

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "gpu"},
      "spec": {"namespaceSelector": {}}}
KUEUE = "/apis/kueue.x-k8s.io"
CQ_LIST = f"{KUEUE}/v1beta2/clusterqueues"
WL_GET = f"{KUEUE}/v1beta2/namespaces/team-a/workloads/*"
MD_LIST = "/apis/worker.gpustack.ai/v1alpha1/namespaces/team-a/modeldeployments"
MD_GET = MD_LIST + "/qwen-pd"
HTML = b"<!doctype html><html><body>Sign in to continue</body></html>"
NOT_LISTS = {"html": (HTML, "text/html"),
             "truncated": (b'{"kind":"ClusterQueueList","items":[{"met', "application/json"),
             "empty": (b"", "application/json"), "null": (b"null", "application/json")}


def _one_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    return lines[0]


# -- wrong answers: a list that is not a list ------------------------------------------------------

@pytest.mark.parametrize("shape", sorted(NOT_LISTS))
def test_lint_never_says_clean_from_a_list_that_is_not_one(cli: Callable, apiserver: Callable, shape: str) -> None:
    body, ctype = NOT_LISTS[shape]
    server, env = apiserver(CQ, faults=[Fault(CQ_LIST, body=body, content_type=ctype)])
    r = cli(["lint", "--request-timeout", "5s"], env=env)
    assert r.exit_code == 1 and r.stdout == ""
    described = {"html": "an HTML page (60 bytes)", "truncated": "JSON cut short (41 bytes)", "empty": "an empty body",
                 "null": "null"}
    assert _one_error(r.stderr) == (f"error: the API server answered list clusterqueues.kueue.x-k8s.io with "
                                    f"{described[shape]}, not a list of clusterqueues.kueue.x-k8s.io")
    kc = env["KUBECONFIG"]  # kubectl, with the same kubeconfig, refuses the same answers
    assert run_kubectl(["get", "--raw", CQ_LIST, "--kubeconfig", kc]).returncode == 0 or shape in ("html", "empty")
    assert run_kubectl(["get", "clusterqueues.kueue.x-k8s.io", "--kubeconfig", kc]).returncode == 1


@pytest.mark.parametrize("shape", ["html", "null"])
def test_why_pending_all_and_target_never_say_nothing_or_not_found(cli: Callable, apiserver: Callable,
                                                                    shape: str) -> None:
    body, ctype = NOT_LISTS[shape]
    server, env = apiserver("pending/quota-exhausted.yaml",
                            faults=[Fault(MD_LIST, body=body, content_type=ctype),
                                    Fault(MD_GET, body=body, content_type=ctype)])
    described = {"html": "an HTML page (60 bytes)", "null": "null"}[shape]
    r = cli(["why-pending", "-n", "team-a", "--request-timeout", "5s"], env=env)
    assert (r.exit_code, r.stdout) == (1, "")  # never "No pending ..."
    assert _one_error(r.stderr) == (f"error: the API server answered list modeldeployments.worker.gpustack.ai with "
                                    f"{described}, not a list of modeldeployments.worker.gpustack.ai")
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "--request-timeout", "5s"], env=env)
    assert (r.exit_code, r.stdout) == (1, "")  # never "not found"
    assert _one_error(r.stderr) == (f'error: the API server answered GET modeldeployments.worker.gpustack.ai "qwen-pd" '
                                    f"with {described}, not a ModelDeployment")


# -- wrong answers: a failed read is never evidence ------------------------------------------------

@pytest.mark.parametrize("status", [429, 504])
@pytest.mark.parametrize("output", ["text", "json"])
def test_a_failed_workload_read_gives_no_verdict(cli: Callable, apiserver: Callable, status: int,
                                                 output: str) -> None:
    status_body = {"kind": "Status", "apiVersion": "v1", "status": "Failure", "code": status, "message": "slow down"}
    server, env = apiserver("pending/quota-exhausted.yaml", faults=[Fault(WL_GET, status=status, body=status_body)])
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", output, "--request-timeout", "5s"], env=env)
    assert r.exit_code == 1
    assert r.stdout == ""  # no "NOT PENDING", no `"pending": false`
    cause = {429: f"the API server at {server.url} is throttling requests (429 Too Many Requests to GET "
                  "workloads.kueue.x-k8s.io): wait and retry",
             504: "the API server answered 504 to GET workloads.kueue.x-k8s.io: slow down"}[status]
    assert _one_error(r.stderr) == ("error: the diagnosis of modeldeployment team-a/qwen-pd is incomplete, so there is "
                                    f'no verdict: could not read workload "qwen-pd": {cause}')


def test_a_pending_verdict_that_stands_without_the_failed_read(cli: Callable, apiserver: Callable) -> None:
    from kubectl_pd.gpustack.names import hashed

    # per-replica groups: one Workload unreadable, the others read and blocked on quota
    broken = hashed("team-a/qwen-pd/decode/1")
    server, env = apiserver("pending/per-replica-joint.yaml",
                            faults=[Fault(f"{KUEUE}/v1beta2/namespaces/team-a/workloads/{broken}", status=504,
                                          body=b"gateway timeout", content_type="text/plain")])
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-o", "json", "--request-timeout", "5s"], env=env)
    if r.exit_code == 0:
        data = json.loads(r.stdout)
        assert data["pending"] is True and data["incomplete"][0]["read"] == f'workload "{broken}"'
        assert all(reason["workload"] != broken for reason in data["reasons"])
    else:
        assert r.stdout == ""
        assert _one_error(r.stderr).startswith("error: the diagnosis of modeldeployment team-a/qwen-pd is incomplete, "
                                               f'so there is no verdict: could not read workload "{broken}": ')


def test_create_wait_times_out_without_a_verdict_from_a_failed_read(cli: Callable, apiserver: Callable,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    faults = [Fault(f"{KUEUE}/v1beta2/namespaces/team-a/workloads/qwen", status=504, body=b"",
                    content_type="text/plain")]
    _, r = _create_while_playing(cli, apiserver, monkeypatch, None, "2s", faults=faults)
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == "error: timed out after 2s waiting for qwen to be admitted"
    # no verdict from the failed read (never "NOT PENDING"): our own summary of what was observed
    assert r.stdout.splitlines()[:2] == ["modeldeployment.worker.gpustack.ai/qwen created",
                                         "qwen in namespace team-a: not every role is admitted"]
    assert r.stdout.splitlines()[-1] == "  next: kubectl pd why-pending qwen -n team-a"


def test_create_wait_polls_through_a_failing_list_then_says_so(cli: Callable, apiserver: Callable,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    faults = [Fault(f"{KUEUE}/v1beta2/namespaces/team-a/workloads", status=503, body=b"", content_type="text/plain")]
    _, r = _create_while_playing(cli, apiserver, monkeypatch, None, "2s", faults=faults)
    assert r.exit_code == 1 and "qwen: every role admitted" not in r.stderr.splitlines()
    assert r.stderr.splitlines()[-1] == ("error: could not observe the new deployment's admission: the API server "
                                         "answered 503 to GET workloads.kueue.x-k8s.io: an empty body")


# -- wrong root cause: discovery -------------------------------------------------------------------

@pytest.mark.parametrize(("fault", "words"), [
    (Fault(KUEUE, status=429, body={"kind": "Status", "code": 429}),
     "the API server at {url} is throttling requests (429 Too Many Requests to GET apigroups/kueue.x-k8s.io): wait "
     "and retry"),
    (Fault(KUEUE, status=302, body=b"", headers={"Location": "https://login.example/sso"}),
     "the API server at {url} answered 302 (a redirect to login.example) to GET apigroups/kueue.x-k8s.io: a proxy or "
     "login page is in the way; check the server of context 'loopback'"),
    (Fault(KUEUE, body=HTML, content_type="text/html"),
     "the API server answered GET /apis/kueue.x-k8s.io with an HTML page (60 bytes), not an APIGroup"),
    (Fault(KUEUE, body=b"not json", content_type="text/plain"),
     "the API server answered GET /apis/kueue.x-k8s.io with text that is not JSON (text/plain, 8 bytes), not an "
     "APIGroup"),
    (Fault(KUEUE, status=500, body={"kind": "Status", "code": 500, "message": "etcd down"}),
     "the API server answered 500 to GET apigroups/kueue.x-k8s.io: etcd down"),
], ids=["429", "302", "html", "text", "500"])
def test_only_a_404_means_kueue_is_not_installed(cli: Callable, apiserver: Callable, fault: Fault,
                                                 words: str) -> None:
    # a version that is not served answers a bare 404, which sends the client to discovery
    unserved = Fault(CQ_LIST, status=404, body=b"404 page not found\n", content_type="text/plain")
    server, env = apiserver(CQ, faults=[unserved, fault])
    r = cli(["lint", "--request-timeout", "5s"], env=env)
    assert r.exit_code == 1
    assert _one_error(r.stderr) == "error: " + words.format(url=server.url)  # the cause, never "not installed"
    assert [q.path for q in server.requests][:2] == [CQ_LIST, KUEUE]
    server, env = apiserver(CQ, groups={"": ["v1"]})
    assert _one_error(cli(["lint"], env=env).stderr) == ("error: Kueue is not installed in this cluster (the API group "
                                                         "kueue.x-k8s.io is not served): install Kueue, or check the "
                                                         "context")


def test_throttling_is_retried_after_retry_after(cli: Callable, apiserver: Callable,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_pd.cluster import http

    waits: list[float] = []
    monkeypatch.setattr(http, "SLEEP", waits.append)  # what the client waits, without waiting
    throttle = Fault(CQ_LIST, status=429, body={"kind": "Status", "code": 429}, headers={"Retry-After": "1"}, times=2)
    server, env = apiserver(CQ, faults=[throttle])
    r = cli(["lint", "--request-timeout", "10s"], env=env)
    assert r.exit_code == 0, r.stderr
    assert ([q.path for q in server.requests].count(CQ_LIST), waits) == (3, [1.0, 1.0])


def test_throttling_past_the_timeout_is_reported_as_throttling(cli: Callable, apiserver: Callable) -> None:
    throttle = Fault(CQ_LIST, status=429, body={"kind": "Status", "code": 429}, headers={"Retry-After": "30"})
    server, env = apiserver(CQ, faults=[throttle])
    t0 = time.monotonic()
    r = cli(["lint", "--request-timeout", "2s"], env=env)
    assert r.exit_code == 1 and time.monotonic() - t0 < 2
    assert _one_error(r.stderr) == (f"error: the API server at {server.url} is throttling requests (429 Too Many "
                                    f"Requests to GET {CQ_LIST}): wait and retry, or raise --request-timeout")


# -- leaks -----------------------------------------------------------------------------------------

def test_a_token_ending_in_a_newline_is_trimmed(cli: Callable, apiserver: Callable, tmp_path: Path) -> None:
    server, env = apiserver(CQ)
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")  # `echo $TOKEN > token`
    kc = server.write_kubeconfig(tmp_path / "kc", user={"tokenFile": str(token_file)})
    r = cli(["lint", "--kubeconfig", str(kc)])
    assert r.exit_code == 0, r.stderr
    assert run_kubectl(["get", "--raw", CQ_LIST, "--kubeconfig", str(kc)]).returncode == 0
    # an inline token with a trailing newline: kubectl refuses the header; we trim it too, and never print it
    kc = server.write_kubeconfig(tmp_path / "kc2", user={"token": TOKEN + "\n"})
    r = cli(["lint", "--kubeconfig", str(kc)])
    assert r.exit_code == 0, r.stderr


def _plugin(tmp_path: Path, body: str) -> dict[str, Any]:
    script = tmp_path / "plugin.py"
    script.write_text(textwrap.dedent(body))
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable,
                     "args": [str(script)], "interactiveMode": "Never"}}


SECRET = "s3cr3t-" + TOKEN


def _secret_scenarios(tmp_path: Path, server: Any) -> dict[str, tuple[Path, list[str]]]:
    """Kubeconfigs and commands that each end in an error, every one holding SECRET somewhere."""
    key = tmp_path / "bad.key"
    key.write_text(f"-----BEGIN PRIVATE KEY-----\n{SECRET}\n-----END PRIVATE KEY-----\n")
    out: dict[str, tuple[Path, list[str]]] = {}

    def kc(name: str, **kw: Any) -> Path:
        return server.write_kubeconfig(tmp_path / f"kc-{name}", **kw)

    out["401"] = (kc("401", token=SECRET), ["lint"])
    out["inner-newline"] = (kc("nl", token=f"{SECRET}\nX-Evil: 1"), ["lint"])
    out["bad-key"] = (kc("key", user={"client-certificate": str(key), "client-key": str(key)}), ["lint"])
    out["plugin-fails"] = (kc("pf", user=_plugin(tmp_path, f"""
        import sys
        print('{{"status": {{"token": "{SECRET}"}}}}')
        print("cannot refresh: the session expired", file=sys.stderr)
        sys.exit(3)
        """)), ["lint"])
    out["plugin-garbage"] = (kc("pg", user=_plugin(tmp_path / "..", f"print('token={SECRET}')")), ["lint"])
    out["echoing-500"] = (kc("echo", token=TOKEN), ["lint"])
    out["basic-over-http"] = (kc("basic", user={"username": "admin", "password": SECRET}), ["why-pending", "x"])
    return out


def test_no_error_path_prints_a_secret(cli: Callable, apiserver: Callable, tmp_path: Path) -> None:
    echo = {"kind": "Status", "code": 500, "message": f"upstream said: Authorization: Bearer {TOKEN}"}
    server, _ = apiserver(CQ, faults=[Fault(CQ_LIST, status=500, body=echo)])
    scenarios = _secret_scenarios(tmp_path, server)
    for name, (kc, args) in scenarios.items():
        r = cli([*args, "--kubeconfig", str(kc), "--request-timeout", "5s"])
        assert r.exit_code == 1, (name, r.stdout, r.stderr)
        for secret in (SECRET, TOKEN, "Bearer " + TOKEN):
            assert secret not in r.stdout + r.stderr, (name, r.stderr)
        assert not _one_error(r.stderr).startswith("error: internal error"), (name, r.stderr)
    plugin = _one_error(cli(["lint", "--kubeconfig", str(scenarios["plugin-fails"][0])]).stderr)
    assert "exit code 3" in plugin and "cannot refresh: the session expired" in plugin and sys.executable in plugin


def test_a_failing_plugin_sends_no_request(cli: Callable, apiserver: Callable, tmp_path: Path) -> None:
    server, _ = apiserver(CQ)
    kc = server.write_kubeconfig(tmp_path / "kc", user=_plugin(tmp_path, "import sys; sys.exit(1)"))
    assert cli(["lint", "--kubeconfig", str(kc)]).exit_code == 1
    assert server.requests == []
    assert run_kubectl(["get", "--raw", CQ_LIST, "--kubeconfig", str(kc)]).returncode == 1


def test_a_hanging_plugin_is_bounded_by_the_request_timeout(cli: Callable, apiserver: Callable,
                                                            tmp_path: Path) -> None:
    server, _ = apiserver(CQ)
    kc = server.write_kubeconfig(tmp_path / "kc", user=_plugin(tmp_path, "import time; time.sleep(60)"))
    t0 = time.monotonic()
    r = cli(["lint", "--kubeconfig", str(kc), "--request-timeout", "1s"])
    assert r.exit_code == 1 and time.monotonic() - t0 < 5
    assert re.fullmatch(r"error: exec credential plugin `\S+` did not finish within 1s "  # the executable only
                        r"\(--request-timeout\)", _one_error(r.stderr))


def test_no_bearer_token_over_plain_http_like_kubectl(cli: Callable, apiserver: Callable) -> None:
    server, env = apiserver(CQ, tls=False)
    r = cli(["lint", "--request-timeout", "5s"], env=env)
    assert r.exit_code == 1
    assert _one_error(r.stderr) == (f"error: the API server at {server.url} asks for credentials (401 Unauthorized), "
                                    "and those of context 'loopback' are not sent over plain http:// (kubectl does "
                                    "not either): use the server's https:// URL")
    p = run_kubectl(["get", "--raw", CQ_LIST], env=env)
    assert (p.returncode, p.stderr) == (1, "error: You must be logged in to the server (Unauthorized)\n")  # no token


# -- hangs -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("fault", [
    Fault(CQ_LIST, body=json.dumps({"kind": "ClusterQueueList", "items": []}).encode() + b" " * 200, trickle=0.05),
    Fault(CQ_LIST, hang=30),
], ids=["trickle", "silent"])
def test_request_timeout_bounds_the_whole_request(cli: Callable, apiserver: Callable, fault: Fault) -> None:
    server, env = apiserver(CQ, faults=[fault])
    t0 = time.monotonic()
    r = cli(["lint", "--request-timeout", "1s"], env=env)
    assert r.exit_code == 1 and time.monotonic() - t0 < 3
    assert _one_error(r.stderr) == (f"error: the API server at {server.url} did not answer within 1s "
                                    "(--request-timeout): check the network or raise the timeout")


def test_a_body_cut_short_is_an_error(cli: Callable, apiserver: Callable) -> None:
    body = json.dumps({"kind": "ClusterQueueList", "items": [CQ]}).encode()
    server, env = apiserver(CQ, faults=[Fault(CQ_LIST, body=body, close_after=20)])
    r = cli(["lint", "--request-timeout", "5s"], env=env)
    assert r.exit_code == 1
    assert _one_error(r.stderr) == (f"error: the API server at {server.url} broke off its answer to GET {CQ_LIST} "
                                    "(the body ended early): retry, or check the network")


def test_reads_have_a_default_deadline_writes_do_not(apiserver: Callable, tmp_path: Path) -> None:
    server, env = apiserver()
    ep = resolve(ClusterOptions(kubeconfig=env["KUBECONFIG"]))
    assert Transport(ep, None).deadline_for("GET") == DEFAULT_READ_TIMEOUT
    assert Transport(ep, None).deadline_for("POST") is None
    assert Transport(ep, 0.0).deadline_for("GET") is None  # --request-timeout 0: no limit, like kubectl
    assert Transport(ep, 5.0).deadline_for("POST") == 5.0


def test_why_pending_list_mode_never_says_nothing_pending_from_a_failed_list(cli: Callable,
                                                                             apiserver: Callable) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml",
                            faults=[Fault(f"{KUEUE}/v1beta2/namespaces/team-a/workloads", status=504,
                                          body={"kind": "Status", "code": 504, "message": "timeout"})])
    r = cli(["why-pending", "-n", "team-a", "--request-timeout", "5s"], env=env)
    assert (r.exit_code, r.stdout) == (1, "")  # never "No pending ..."
    assert _one_error(r.stderr) == "error: the API server answered 504 to GET workloads.kueue.x-k8s.io: timeout"


@pytest.mark.parametrize(("secrets", "text", "expected"), [
    ({"t"}, "etcd is down; token t refused", "etcd is down; token <redacted> refused"),
    ({"t"}, "Bearer t", "Bearer <redacted>"),
    ({"abc"}, "token=abc&x=abcd", "token=<redacted>&x=abcd"),
    ({"s3cr3t-long-token"}, "xs3cr3t-long-tokeny", "x<redacted>y"),
    ({"Bearer s3cr3t-long-token", "s3cr3t-long-token"}, "Authorization: Bearer s3cr3t-long-token",
     "Authorization: <redacted>"),
])
def test_redaction_of_short_and_long_credentials(secrets: set[str], text: str, expected: str) -> None:
    from kubectl_pd.cluster import http

    saved = set(http._SECRETS)
    http._SECRETS.clear()
    http._SECRETS.update(secrets)
    try:
        assert http.redact(text) == expected
    finally:
        http._SECRETS.clear()
        http._SECRETS.update(saved)
