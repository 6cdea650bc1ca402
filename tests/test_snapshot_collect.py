"""`kubectl pd snapshot` (issue 32, item 4): the loopback server serves each why-pending fixture, snapshot
collects, `why-pending --from-file` replays it, and the JSON is the live run's byte for byte (one target, and
-A); what failed live (RBAC refusals, an API not served) fails the same way in the replay."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import Forbid, load_objects
from tests.test_pending_fixtures import CASES, FIX, VIS_PATH
from tests.test_pending_screen import STATES as SCREEN_STATES


def _serve(apiserver: Any, name: str, forbid: list[Forbid] | None = None) -> dict[str, str]:
    raw = {}
    if name == "waiting-in-queue":
        raw[VIS_PATH] = json.loads((FIX / "waiting-in-queue-visibility.json").read_text())
    if forbid is None:
        forbid = [Forbid("list", "clusterqueues")] if name == "quota-unknown" else []
    from tests.test_pending_fixtures import serve

    _server, env = serve(apiserver, name, raw=raw, forbid=forbid)  # a MultiKueue fixture's workers: their own
    return env


def _replayed(cli: Any, env: dict[str, str], args: list[str], out: Path) -> tuple[str, str]:
    live = cli(["why-pending", *args, "-o", "json"], env=env)
    snap = cli(["snapshot", *args, "-o", str(out)], env=env)
    assert snap.exit_code == 0, snap.stderr
    replay = cli(["why-pending", *args, "-o", "json", "-f", str(out)], env={"NO_COLOR": "1"})
    assert (live.exit_code, live.stderr) == (replay.exit_code, replay.stderr)
    return live.stdout, replay.stdout


@pytest.mark.parametrize("name", sorted(CASES))
def test_one_target_replays_byte_for_byte(cli: Any, apiserver: Any, tmp_path: Path, name: str) -> None:
    env = _serve(apiserver, name)
    from tests.test_pending_fixtures import target_of, worker_flags

    live, replay = _replayed(cli, env, [target_of(name)[0], "-n", "team-a", *worker_flags(name)],
                             tmp_path / "snap.yaml")
    assert json.loads(live)["reasons"][0]["code"] == CASES[name][0]
    assert replay == live


@pytest.mark.parametrize("name", sorted(CASES))
def test_all_namespaces_replays_byte_for_byte(cli: Any, apiserver: Any, tmp_path: Path, name: str) -> None:
    env = _serve(apiserver, name)
    live, replay = _replayed(cli, env, ["-A"], tmp_path / "snap.json")
    assert replay == live


# ClusterQueues refused to get are refused to list too: a live why-pending reads them by one list when it may
# (pending/plan.py), the snapshot by name (issue 49)
@pytest.mark.parametrize(("fixture", "forbid"), [("quota-exhausted", Forbid("list", "events", "team-a")),
                                                ("quota-exhausted", Forbid("get", "clusterqueues")),
                                                ("quota-unknown", Forbid("list", "clusterqueues"))])
def test_refused_reads_are_refused_again(cli: Any, apiserver: Any, tmp_path: Path, fixture: str,
                                         forbid: Forbid) -> None:
    also = [Forbid("list", "clusterqueues")] if forbid.verb == "get" else []
    env = _serve(apiserver, fixture, [forbid, *also])
    live, replay = _replayed(cli, env, ["qwen-pd", "-n", "team-a"], tmp_path / "snap.yaml")
    assert replay == live
    header = next(yaml.safe_load_all((tmp_path / "snap.yaml").read_text()))
    assert [(f["verb"], f["kind"], f["error"]) for f in header["failed"]] == [
        (forbid.verb, {"events": "Event", "clusterqueues": "ClusterQueue"}[forbid.plural], "ForbiddenError")]


def test_directory_output_one_file_per_kind(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    env = _serve(apiserver, "waiting-in-queue")
    out = tmp_path / "snap"
    out.mkdir()
    live, replay = _replayed(cli, env, ["qwen-pd", "-n", "team-a"], out)
    assert replay == live
    files = sorted(p.name for p in out.iterdir())
    assert files[0] == "00-snapshot.yaml" and "workload.yaml" in files and "pendingworkloadssummary.yaml" in files
    assert not [p for p in out.iterdir() if p.name.startswith(".")]  # no temporary file left behind


def test_header_says_what_was_read(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    env = _serve(apiserver, "quota-exhausted")
    r = cli(["snapshot", "qwen-pd", "-n", "team-a", "-o", str(tmp_path / "s.yaml")], env=env)
    assert r.exit_code == 0, r.stderr
    docs = list(yaml.safe_load_all((tmp_path / "s.yaml").read_text()))
    header = docs[0]
    assert (header["apiVersion"], header["kind"]) == ("kubectl-pd.io/v1alpha1", "Snapshot")
    assert header["context"] == "loopback" and header["server"].startswith("https://127.0.0.1:")
    assert (header["target"], header["namespace"]) == ("qwen-pd", "team-a")
    assert header["kueue"] == {"apiVersions": ["v1beta2", "v1beta1"], "version": "unknown"}
    assert header["read"] == {k: sum(1 for d in docs[1:] if d["kind"] == k) for k in header["read"]}
    assert header["notServed"] == [VIS_PATH] and header["failed"] == [] and header["unread"] == []
    assert all("managedFields" not in d.get("metadata", {}) for d in docs)


def test_missing_target_exits_1(cli: Any, apiserver: Any, tmp_path: Path) -> None:
    env = _serve(apiserver, "quota-exhausted")
    r = cli(["snapshot", "nothing-here", "-n", "team-a", "-o", str(tmp_path / "s.yaml")], env=env)
    assert r.exit_code == 1 and r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1
    assert not (tmp_path / "s.yaml").exists()


def test_usage(cli: Any, tmp_path: Path) -> None:
    r = cli(["snapshot", "qwen-pd", "-A", "-o", str(tmp_path / "s.yaml")])
    assert r.exit_code == 2 and r.stderr.startswith("error: ")
    r = cli(["snapshot", "qwen-pd"])
    assert r.exit_code == 2 and "-o" in r.stderr


@pytest.mark.parametrize("state", sorted(SCREEN_STATES))
def test_every_screen_state_replays(cli: Any, apiserver: Any, tmp_path: Path, state: str) -> None:
    """why-pending's screen states (tests/golden/why-pending-screen/): served live (the visibility API's summary
    as the API serves it), collected, replayed; --what-if on the replay as live."""
    fixture, change, extra, code = SCREEN_STATES[state]
    objs = change(load_objects(FIX / f"{fixture}.yaml"))
    summaries = [o for o in objs if o["kind"] == "PendingWorkloadsSummary"]
    raw = {VIS_PATH: summaries[0]} if summaries else {}
    _server, env = apiserver([o for o in objs if o["kind"] != "PendingWorkloadsSummary"], raw=raw)
    out = tmp_path / "snap.yaml"
    live = cli(["why-pending", "qwen-pd", "-n", "team-a", *extra, "-o", "json"], env=env)
    assert cli(["snapshot", "qwen-pd", "-n", "team-a", "-o", str(out)], env=env).exit_code == 0
    replay = cli(["why-pending", "qwen-pd", "-n", "team-a", *extra, "-o", "json", "-f", str(out)])
    assert json.loads(live.stdout)["reasons"][0]["code"] == code
    assert replay.stdout == live.stdout
