"""Issue 42, residue: `why-pending -f` refused (exit 2, "not a Kubernetes quantity") a quota such as `1e400`
that the API server stores and that its own snapshot wrote. The replay now reads what the API server reads,
and the answer is the live one: the quota's size unknown, never a number computed from an infinity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue.quantity import api_parses, try_parse
from tests.apiserver import load_objects
from tests.test_pending_fixtures import FIX

ARGS = ["qwen-pd", "-n", "team-a"]


@pytest.mark.parametrize(("value", "stored", "sized"), [
    ("1e400", True, False), ("-1e400", True, False), ("1e-400", True, False), ("2.5E+400", True, False),
    ("1e9223372036854775807", True, False),  # the largest exponent resource.ParseQuantity reads (an int64)
    ("1e9223372036854775808", False, False),  # past an int64: the API server refuses it too
    ("1e99", True, True), ("25600k", True, True), (" 4 ", True, True), (4, True, True),
    ("1e4O0", False, False), ("inf", False, False), ("nan", False, False), (float("inf"), False, False),
    (True, False, False), (None, False, False), ("1" * 200 + "e400", False, False),
])
def test_what_the_api_server_stores_as_a_quantity(value: Any, stored: bool, sized: bool) -> None:
    assert api_parses(value) is stored
    assert (try_parse(value) is not None) is sized


def _with_quota(value: str) -> list[dict[str, Any]]:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    for o in objs:
        if o.get("kind") == "ClusterQueue":
            for g in o["spec"]["resourceGroups"]:
                for f in g["flavors"]:
                    for r in f["resources"]:
                        r["nominalQuota"] = value
    return objs


def _no_claim_from_infinity(text: str) -> None:
    low = text.lower()
    assert "infinity" not in low and "nan" not in low.replace("nano", "") and "inf " not in low, text
    assert "Traceback" not in text and "internal error" not in text, text


@pytest.mark.parametrize("value", ["1e400", "1e-400", "-1e400"])
@pytest.mark.parametrize("out", ["s.yaml", "s.json", "d/"])
def test_a_snapshot_holding_1e400_replays_as_the_live_run_answers(cli: Any, apiserver: Any, tmp_path: Path,
                                                                  value: str, out: str) -> None:
    _server, env = apiserver(_with_quota(value))
    path = str(tmp_path / out) + ("/" if out.endswith("/") else "")
    live = cli(["why-pending", *ARGS, "-o", "json"], env=env)
    taken = cli(["snapshot", *ARGS, "-o", path], env=env)
    assert taken.exit_code == 0, taken.stderr
    assert value in "".join(p.read_text() for p in sorted(Path(path).iterdir())) if out == "d/" \
        else value in Path(path).read_text()
    replay = cli(["why-pending", *ARGS, "-o", "json", "-f", path], env={"NO_COLOR": "1"})
    assert replay.exit_code == live.exit_code, (replay.stderr, live.stderr)
    _no_claim_from_infinity(replay.stdout + replay.stderr)
    mine, theirs = json.loads(replay.stdout), json.loads(live.stdout)
    assert [(r["name"], r["verdict"]) for r in mine["roles"]] == [(r["name"], r["verdict"]) for r in theirs["roles"]]
    assert mine["reasons"] == theirs["reasons"]
    for command in (["why-pending", "-A"], ["queues"]):
        r = cli([*command, "-f", path], env={"NO_COLOR": "1"})
        assert r.exit_code in (0, 1), r.stderr
        _no_claim_from_infinity(r.stdout + r.stderr)


@pytest.mark.parametrize("value", ["1e9223372036854775808", "1e4O0", "lots"])
def test_a_quota_the_api_server_would_refuse_is_still_malformed_input(cli: Any, tmp_path: Path, value: str) -> None:
    import yaml

    f = tmp_path / "q.yaml"
    f.write_text(yaml.safe_dump_all(_with_quota(value)))
    r = cli(["why-pending", *ARGS, "-f", str(f)], env={"NO_COLOR": "1"})
    lines = r.stderr.splitlines()
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and ":" in lines[0], r.stderr
    assert "nominalQuota" in lines[0]
