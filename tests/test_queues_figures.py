"""`kubectl pd queues` and kueue/figures.py: the figures per ClusterQueue and flavor, the same as why-pending's
quota bars, lent and who borrows from whom; the command from a snapshot and against the loopback server."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.kueue import figures as fg
from kubectl_pd.kueue import verdicts as vd
from kubectl_pd.kueue.model import Snapshot
from tests.builders import CARD, CREDITS, cards, cluster_queue, cohort

C = Fraction(CARD)


def cq(name: str, nominal: int, used: int = 0, *, cohort_name: str | None = "team", admitted: int | None = None,
       lending: int | None = None, borrowing: int | None = None, **status: Any) -> dict[str, Any]:
    limits = {k: cards(v) for k, v in (("lendingLimit", lending), ("borrowingLimit", borrowing)) if v is not None}
    o = cluster_queue(name, {"h20": cards(nominal)}, resource=CREDITS, cohort=cohort_name,
                      used={"h20": cards(used)}, limits={"h20": limits}, active=True)
    o["status"]["flavorsUsage"] = [{"name": "h20", "resources": [{"name": CREDITS,
                                                                   "total": cards(used if admitted is None else
                                                                                  admitted)}]}]
    o["status"].update(status)
    return o


# (case, queues, want per queue: (used, reserved, borrowed, lent, free) in cards; lent: what of its unused nominal
# quota others of the cohort use now (why-pending's bars' figure; not in free)
CASES = [
    ("alone: nothing lent, nothing borrowed", [cq("a", 8, 3, cohort_name=None)],
     {"a": (3, 0, 0, 0, 5)}),
    ("reserved but not admitted is said apart", [cq("a", 8, 5, admitted=2, cohort_name=None)],
     {"a": (2, 3, 0, 0, 3)}),
    ("one lender: what the borrower uses beyond nominal is lent by it",
     [cq("a", 4, 6), cq("b", 4, 1)], {"a": (6, 0, 2, 0, 0), "b": (1, 0, 0, 2, 1)}),
    ("two lenders: each could still take all of its own unused quota (the cohort has 5 left)",
     [cq("a", 4, 6), cq("b", 4, 1), cq("c", 4, 0)], {"a": (6, 0, 2, 0, 0), "b": (1, 0, 0, 0, 3),
                                                      "c": (0, 0, 0, 0, 4)}),
    ("nobody borrows: nobody lends", [cq("a", 4, 4), cq("b", 4, 1)], {"a": (4, 0, 0, 0, 0), "b": (1, 0, 0, 0, 3)}),
    ("the lending limit bounds what is lendable: one lender with room",
     [cq("a", 4, 5), cq("b", 4, 0, lending=1), cq("c", 4, 4)], {"a": (5, 0, 1, 0, 0), "b": (0, 0, 0, 1, 3),
                                                                "c": (4, 0, 0, 0, 0)}),
]


def _cards(q: Fraction | None) -> int | None:
    return None if q is None else int(q / C)


@pytest.mark.parametrize("case, objs, want", CASES, ids=[c[0] for c in CASES])
def test_figures(case: str, objs: list[dict[str, Any]], want: dict[str, tuple[Any, ...]]) -> None:
    rows = fg.figures(Snapshot.of(objs))
    got = {n: tuple(_cards(x) for x in (r[0].used, r[0].reserved, r[0].borrowed, r[0].lent, r[0].free))
           for n, r in rows.items()}
    assert got == want


@pytest.mark.parametrize("case, objs, want", CASES, ids=[c[0] for c in CASES])
def test_figures_are_why_pendings_bars(case: str, objs: list[dict[str, Any]], want: Any) -> None:
    """The one set of figures: each bar why-pending draws for a queue has the figures `queues` prints."""
    snap = Snapshot.of(objs)
    rows = fg.figures(snap)
    for name, q in snap.cluster_queues.items():
        bars = vd._bars(q, {}, snap)
        for b in bars:
            (r,) = [r for r in rows[name] if (r.flavor, r.resource) == (b.flavor, b.resource)]
            assert (r.nominal, r.used, r.reserved, r.free, r.cohort_free, r.borrowable) == (
                b.nominal, b.used, b.reserved, b.free, b.cohort_free, b.borrowable)
            assert b.cohort is None or r.lent == b.lent
            if b.cohort is not None:
                assert r.borrowed == b.borrowed


def test_flows_say_who_borrows_from_whom() -> None:
    snap = Snapshot.of([cq("a", 4, 6), cq("b", 4, 1), cohort("team")])
    (f,) = fg.flows(snap, fg.figures(snap))
    assert (f.cohort, f.borrowers, f.lenders, f.attributed) == ("team", (("a", 2 * C),), (("b", 2 * C),), True)


def test_unknown_peers_make_lending_unknown() -> None:
    snap = Snapshot.read({"a": cq("a", 4, 6)}, {}, None, None)
    (r,) = fg.figures(snap)["a"]
    assert (r.lent, r.cohort_free, r.borrowable) == (None, None, None)
    assert fg.flows(snap, fg.figures(snap)) == ()


# ------------------------------------------------------------------------------------------- the command


def _write(tmp_path: Path, objs: list[dict[str, Any]]) -> str:
    p = tmp_path / "snap.json"
    p.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    return str(p)


def test_json_carries_the_status_figures(cli: Callable, tmp_path: Path) -> None:
    objs = [cq("b", 4, 1, pendingWorkloads=3, admittedWorkloads=1, reservingWorkloads=1), cq("a", 4, 6),
            cohort("team")]
    off = cq("z", 2, 0, cohort_name=None)
    off["status"]["conditions"] = [{"type": "Active", "status": "False", "reason": "FlavorNotFound",
                                    "message": "Can't admit new workloads: references missing ResourceFlavor(s)"}]
    r = cli(["queues", "-f", _write(tmp_path, [*objs, off]), "-o", "json"])
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [q["name"] for q in doc["clusterQueues"]] == ["a", "b", "z"]  # sorted like kubectl
    b = doc["clusterQueues"][1]
    assert (b["pendingWorkloads"], b["admittedWorkloads"], b["reservingWorkloads"]) == (3, 1, 1)
    assert b["flavors"][0]["lent"] == "3200k"  # 2 cards: what a borrows beyond its nominal
    z = doc["clusterQueues"][2]
    assert (z["active"], z["reason"]) == (False, "FlavorNotFound")
    assert doc["borrowing"][0]["borrowers"] == [{"clusterQueue": "a", "amount": "3200k"}]


def test_text_tree_and_inactive(cli: Callable, tmp_path: Path) -> None:
    off = cq("z", 2, 0, cohort_name=None, )
    off["spec"]["stopPolicy"] = "Hold"
    r = cli(["queues", "-f", _write(tmp_path, [cq("a", 4, 6), cq("b", 4, 1), off])])
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].split()[:4] == ["CLUSTERQUEUE", "COHORT", "FLAVOR", "RESOURCE"]
    assert [ln.split()[0] for ln in lines[1:4]] == ["a", "b", "z"]
    assert any(ln.startswith("cohort team: a, b") for ln in lines)
    assert any("ClusterQueue z is inactive (Stopped" in ln for ln in lines)


def test_wide_adds_columns(cli: Callable, tmp_path: Path) -> None:
    r = cli(["queues", "-f", _write(tmp_path, [cq("a", 4, 1, borrowing=2)]), "-o", "wide"])
    head = r.stdout.splitlines()[0].split()
    assert head[-5:] == ["BORROWINGLIMIT", "LENDINGLIMIT", "COHORTFREE", "BORROWABLE", "ACTIVE"]


def test_no_queues(cli: Callable, tmp_path: Path) -> None:
    r = cli(["queues", "-f", _write(tmp_path, [])])
    assert (r.exit_code, r.stdout, r.stderr.strip()) == (0, "", "No resources found")


def test_live_two_lists_and_forbidden(cli: Callable, apiserver: Callable) -> None:
    from tests.apiserver import Forbid

    server, env = apiserver([cq("a", 4, 6), cq("b", 4, 1)])
    r = cli(["queues", "-o", "json"], env=env)
    assert r.exit_code == 0, r.stderr
    gets = [q.path for q in server.requests if q.method == "GET"]
    assert sum("clusterqueues" in p for p in gets) == 1 and sum("cohorts" in p for p in gets) == 1
    server2, env2 = apiserver([cq("a", 4, 6)], forbid=[Forbid("list", "cohorts")])
    r = cli(["queues", "-o", "json"], env=env2)
    assert r.exit_code == 1
    doc = json.loads(r.stdout)
    assert doc["cohortsKnown"] is False and doc["clusterQueues"][0]["flavors"][0]["lent"] is None
    _, env3 = apiserver([cq("a", 4, 6)], forbid=[Forbid("list", "clusterqueues")])
    r = cli(["queues"], env=env3)
    assert r.exit_code == 1 and r.stderr.startswith("error: ")


def test_watch_prints_changed_rows(cli: Callable, apiserver: Callable, monkeypatch: pytest.MonkeyPatch) -> None:
    from kubectl_pd.commands import queues as cmd

    server, env = apiserver([cq("a", 4, 1, cohort_name=None)])
    changes = iter([lambda: None, lambda: server.put(cq("a", 4, 3, cohort_name=None))])
    monkeypatch.setattr(cmd, "SLEEP", lambda _s: next(changes)())
    r = cli(["queues", "--watch", "--watch-rounds=2"], env=env)
    assert r.exit_code == 0, r.stderr
    rows = [ln for ln in r.stdout.splitlines() if ln.startswith("a ")]
    assert len(rows) == 2 and rows[0].split()[5] == "1c" and rows[1].split()[5] == "3c"


def figures(nominal: int, used: int, reserved: int, borrowed: int) -> Any:
    """A flavor's figures as kueue/figures.py gives them (the record queues' bar is drawn from)."""
    F = Fraction
    return fg.FlavorFigures("q", "f", "nvidia.com/gpu", F(nominal), F(used), F(reserved), F(nominal - used - reserved),
                            F(borrowed), None, F(0))


@pytest.mark.parametrize("used, reserved, borrowed, want", [
    ("0", "0", "0", "[............]"),
    ("6", "0", "0", "[######......]"),
    ("3", "3", "0", "[###===......]"),  # '=' reserved, as on why-pending's bars (issue 46: one meaning a symbol)
    ("12", "0", "2", "[############]!"),
])
def test_bar(used: str, reserved: str, borrowed: str, want: str) -> None:
    from kubectl_pd.queues.words import bar

    assert bar(figures(12, int(used), int(reserved), int(borrowed))) == want


def test_documents_obey_the_schema_and_the_mcp_tool(cli: Callable, tmp_path: Path) -> None:
    import jsonschema

    from kubectl_pd.agent import schemas, tools
    from kubectl_pd.agent.run import run

    objs = [cq("a", 4, 6), cq("b", 4, 1, pendingWorkloads=2), cq("c", 4, 0), cohort("team", parent="org")]
    r = cli(["queues", "-f", _write(tmp_path, objs), "-o", "json"])
    doc = json.loads(r.stdout)
    jsonschema.Draft202012Validator(schemas.SCHEMAS["queues"]()).validate(doc)
    a = tools.call("pd_queues", {"snapshot": json.dumps({"apiVersion": "v1", "kind": "List", "items": objs})},
                   tools.Guard(), [], run)
    assert a.code == 0 and a.document == doc and a.text.startswith("3 ClusterQueues, 1 borrowing flows")
