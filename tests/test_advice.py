"""Advice that works (issue 46, findings 6 and 8): a negative shortfall is a contradiction said, never "raise
nominalQuota by -8" nor SHORT -8; another ClusterQueue is offered as GPUStack's InstanceType only for a GPUStack
pool (its entrance LocalQueue), and a plain Kueue ClusterQueue only on the condition of a LocalQueue the namespace
has (none is read). Asserted on the suggestion's kind and params; the sentences on the absence of the wrong
advice."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import pytest

from kubectl_pd.gpustack import names
from kubectl_pd.pending import suggest as sg
from kubectl_pd.pending import words
from kubectl_pd.pending.render import suggestion_text
from kubectl_pd.pending.say import say
from tests.test_quota_figures import NS, layout

NEGATIVE = [("next.raise-nominal", {"flavor": "a100", "amount": Fraction(-8), "resource": "nvidia.com/gpu",
                                    "role": "w"}),
            ("next.raise-nominal-of", {"flavor": "a100", "needed": Fraction(-8), "resource": "nvidia.com/gpu"}),
            ("next.raise-nominal", {"flavor": "a100", "amount": Fraction(0), "resource": "nvidia.com/gpu",
                                    "role": None})]


@pytest.mark.parametrize("sid, values", NEGATIVE, ids=[f"{s}-{v.get('amount', v.get('needed'))}" for s, v in NEGATIVE])
def test_a_negative_shortfall_is_no_raise(sid: str, values: dict[str, object]) -> None:
    text = words.text(say(sid, **values))  # type: ignore[arg-type]
    assert "raise" not in text and "-8" not in text and "by 0" not in text


def test_a_positive_shortfall_is_still_a_raise() -> None:
    text = words.text(say("next.raise-nominal", flavor="a100", amount=Fraction(6), resource="nvidia.com/gpu",
                          role=None))
    assert "raise nominalQuota" in text and "6" in text


def test_another_plain_queue_is_a_condition_not_advice(cli: Callable, tmp_path: Path) -> None:
    """research is full; prod (same cohort) has room: a plain ClusterQueue is said only on the condition of a
    LocalQueue of the namespace (none read), never as GPUStack's InstanceType."""
    path = tmp_path / "layout.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": layout(0, None, 0, 10, 0)}))
    r = cli(["why-pending", f"podgroup/{names.pod_group_name(NS, 'g')}", "-n", NS, "-f", str(path), "-o", "json"])
    doc = json.loads(r.stdout)
    assert [s["to"] for s in doc["suggestions"] if s["kind"] == sg.QUEUE] == ["prod"]
    from kubectl_pd.kueue import admission as ad
    from kubectl_pd.kueue.model import Snapshot

    snap = Snapshot.of(layout(0, None, 0, 10, 0))
    pods = [ad.PodSetDemand("w", 1, {"nvidia.com/gpu": Fraction(4)})]
    (got,) = sg._other_queues(snap, "research", pods)
    assert (got.target, got.reach) == ("prod", sg.REACH_UNREAD)
    text = suggestion_text(got)
    assert "InstanceType" not in text and "GPUStack" not in text and "if a LocalQueue" in text


def test_a_gpustack_pool_is_offered_as_its_instance_type() -> None:
    text = suggestion_text(sg.Suggestion(sg.QUEUE, None, "a", "b", reach=sg.REACH_INSTANCE_TYPE))
    assert "InstanceType b" in text


def test_a_queue_read_outranks_kueues_older_words(cli: Callable, tmp_path: Path) -> None:
    """Kueue's last message says the LocalQueue is stopped; the LocalQueue read is not (it was released): the state
    read decides (no LocalQueueStopped "the queue itself was not read"), and Kueue's words are kept as a note."""
    from tests.test_cohort_cycle import objects

    objs = objects(looped=False)
    wl = next(o for o in objs if o["kind"] == "Workload")
    wl["status"]["conditions"] = [{"type": "QuotaReserved", "status": "False", "reason": "Inadmissible",
                                   "message": "LocalQueue lq1 is stopped",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]
    path = tmp_path / "stale.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objs}))
    r = cli(["why-pending", "workload/w1", "-n", NS, "-f", str(path), "-o", "json"])
    doc = json.loads(r.stdout)
    assert "LocalQueueStopped" not in [x["code"] for x in doc["reasons"]]
    assert doc["reasons"][0]["kueueMessage"] == "LocalQueue lq1 is stopped"  # shown as Kueue's, not as a verdict
