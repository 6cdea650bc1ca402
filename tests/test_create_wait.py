"""`create --wait` against the loopback server; fake time (tests/clock.py) plays the operator and Kueue."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kubectl_pd.errors import PdError
from tests.apiserver import FakeApiServer
from tests.clock import FakeTime
from tests.scenarios import H20, qwen_created_then, qwen_workload

FLAVOR = "gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d"
BASE = ["create", "qwen", "--model", "Qwen/Qwen2.5-7B", "--engine-version", "0.8.5", "--kv-cache-pool", "kv",
        "--prefill", "1", "--decode", "2", "--instance-type", H20]


def _create_while_playing(cli: Callable, apiserver: Callable, monkeypatch: pytest.MonkeyPatch,
                          admit_after: float | None, wait: str, **server_kw: Any) -> tuple[FakeApiServer, Any]:
    """Run `create --wait` on fake time: after the first poll the operator renders the Pods and Kueue
    composes a pending Workload; at `admit_after` (fake seconds) Kueue admits it (tests/scenarios.py)."""
    server, env = apiserver("create/cluster.yaml", "create/crd-pd-atomic.yaml", namespace="team-a", **server_kw)
    qwen_created_then(server, FakeTime(), admit_after).install(monkeypatch)
    return server, cli([*BASE, f"--wait={wait}"], env=env)


def test_wait_follows_until_every_role_is_admitted(cli: Callable, apiserver: Callable,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    server, r = _create_while_playing(cli, apiserver, monkeypatch, 1.5, "30s")
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "modeldeployment.worker.gpustack.ai/qwen created\n"
    assert r.stderr.splitlines() == [  # a line for a role only when its progress changes
        "prefill  pods 0/1  admitted 0/1  ready 0/1  pending",  # the first poll: nothing rendered yet
        "decode   pods 0/2  admitted 0/2  ready 0/2  pending",
        "prefill  pods 1/1  admitted 0/1  ready 0/1  pending",  # the operator rendered, Kueue holds them
        "decode   pods 2/2  admitted 0/2  ready 0/2  pending",
        "prefill  pods 1/1  admitted 1/1  ready 1/1  admitted",  # 1.5 s later Kueue admits the group
        "decode   pods 2/2  admitted 2/2  ready 0/2  admitted",
        "qwen: every role admitted"]
    after_post = server.methods[server.methods.index("POST") + 1:]
    assert after_post and set(after_post) == {"GET"}


def test_wait_times_out_with_a_diagnosis(cli: Callable, apiserver: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    _, r = _create_while_playing(cli, apiserver, monkeypatch, None, "2s")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == "error: timed out after 2s waiting for qwen to be admitted"
    # the why-pending diagnosis, with each role placed on the flavor its Pods' requests fit
    out = r.stdout.splitlines()
    assert out[:2] == ["modeldeployment.worker.gpustack.ai/qwen created",
                       f"PENDING  modeldeployment team-a/qwen is pending (QuotaExhausted): decode needs 1 more card in "
                       f"flavor {FLAVOR}; on the usage read now, our arithmetic says decode fits flavor {FLAVOR} "
                       "(Kueue's message is from its last attempt)"]  # no claim of quota freed (issue 37 W3)
    assert [line.split() for line in out if line.startswith(("  prefill  prefill ", "  decode   decode "))] == [
        ["prefill", "prefill", "1/1", "1", "card", FLAVOR, "fits"],
        ["decode", "decode", "2/2", "1", "card", FLAVOR, "fits"]]


def test_wait_on_plain_pods(cli: Callable, apiserver: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    server, env = apiserver("create/cluster.yaml", namespace="team-a")

    def admit() -> None:
        assert len([r for r in server.requests if r.method == "POST"]) == 2  # both Pods were created
        wl = qwen_workload(True)
        wl["spec"]["podSets"] = [{"name": "decode", "count": 1}, {"name": "prefill", "count": 1}]
        server.put(wl)

    FakeTime().at(0, admit).install(monkeypatch)
    r = cli(["create", "qwen", "--model", "m", "--target", "pods", "--instance-type", H20,
             "--role", "name=prefill,kind=prefill,image=i", "--role", "name=decode,kind=decode,image=i",
             "--wait", "-o", "name"], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines() == ["prefill  pods 1/1  admitted 0/1  ready 0/1  pending",  # our Pods, gated
                                     "decode   pods 1/1  admitted 0/1  ready 0/1  pending",
                                     "prefill  pods 1/1  admitted 1/1  ready 0/1  admitted",
                                     "decode   pods 1/1  admitted 1/1  ready 0/1  admitted",
                                     "qwen: every role admitted"]


def test_timeout_falls_back_to_our_summary_when_the_diagnosis_fails(cli: Callable, apiserver: Callable,
                                                                    monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import kubectl_pd.pending

    def failing(*_a: object, **_k: object) -> str:
        raise PdError("the diagnosis could not be completed")

    monkeypatch.setattr(kubectl_pd.pending, "explain", failing)
    _, r = _create_while_playing(cli, apiserver, monkeypatch, None, "2s")
    assert r.exit_code == 1
    assert r.stderr.splitlines()[-1] == "error: timed out after 2s waiting for qwen to be admitted"
    assert r.stdout.splitlines()[1:] == [
        "qwen in namespace team-a: not every role is admitted",
        "  role prefill: 0/1 admitted; Workload 'qwen': couldn't assign flavors to pod set decode: insufficient "
        "unused quota for credits.gpustack.ai/nvidia in flavor gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d, "
        "1600k more needed",
        "  role decode: 0/2 admitted; Workload 'qwen': couldn't assign flavors to pod set decode: insufficient "
        "unused quota for credits.gpustack.ai/nvidia in flavor gpustack--amd-epyc-9004--nvidia-h20-linux-amd64-8d, "
        "1600k more needed",
        "  next: kubectl pd why-pending qwen -n team-a",
    ]
