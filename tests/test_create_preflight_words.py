"""create's preflight says nothing itself: every sentence is in create/preflight_words.py, chosen by the finding's
sentence id and made from its params (and the values only the sentence needs). Checked on the source (no English
literal in preflight.py, every sentence id it names registered and every registered one named) and on a table of
findings, one per sentence, each rendering from exactly the values the finding carries."""

from __future__ import annotations

import ast
import inspect
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.create import preflight
from kubectl_pd.create import preflight_words as words
from kubectl_pd.create.preflight import ERROR, WARNING, CheckFinding
from kubectl_pd.registry import CHECKS

SOURCE = Path(preflight.__file__)
CARD = Fraction(1_600_000)


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def test_no_english_in_the_preflight() -> None:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    prose = [(n.lineno, n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and id(n) not in docs and " " in n.value]
    formatted = [(n.lineno, ast.unparse(n)) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
                 and any(isinstance(v, ast.Constant) and " " in str(v.value) for v in n.values)]
    assert prose == [] and formatted == []


def test_every_sentence_named_is_registered_and_every_registered_one_named() -> None:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    named = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
             and n.value in words.SENTENCES}
    said = {n.args[2].value for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") ==
            "CheckFinding" and len(n.args) > 2 and isinstance(n.args[2], ast.Constant)}
    assert said <= set(words.SENTENCES)
    assert named == set(words.SENTENCES)


_ASKS = {"resource": "credits.gpustack.ai/nvidia", "asked": 4 * CARD, "count": 4, "size": 1, "perPod": CARD,
         "perReplica": False}
_BEST = {"flavor": "f", "requested": 4 * CARD, "previous": None, "available": CARD, "capacity": 2 * CARD,
         "nominal": 2 * CARD, "needed": 3 * CARD}

# (sentence id, check, severity, params, words)
FINDINGS: list[tuple[str, str, str, dict[str, Any], dict[str, Any]]] = [
    ("instance-type", "instance-type", ERROR, {"roles": ["prefill"], "instanceType": "it"}, {}),
    ("accelerator-type", "accelerator-type", WARNING, {"role": "prefill", "acceleratorType": "h100"}, {}),
    ("local-queue.no-entrance", "local-queue", WARNING, {"instanceType": "it", "localQueue": "lq"}, {}),
    ("local-queue.missing", "local-queue", ERROR,
     {"roles": ["prefill"], "localQueue": "lq", "namespace": "ns", "instanceType": None}, {}),
    ("local-queue.inactive", "local-queue", ERROR, {"roles": ["prefill"], "localQueue": "lq"},
     {"reason": "Stopped", "message": ""}),
    ("cluster-queue.missing", "cluster-queue", ERROR, {"roles": ["prefill"], "clusterQueue": "cq"}, {}),
    ("cluster-queue.inactive", "cluster-queue", ERROR, {"roles": ["prefill"], "clusterQueue": "cq"},
     {"reason": "FlavorNotFound", "message": "Can't admit new workloads"}),
    ("cluster-queue.stopped", "cluster-queue", ERROR, {"roles": ["prefill"], "clusterQueue": "cq",
                                                      "stopPolicy": "Hold"}, {}),
    ("cluster-queue.no-condition", "cluster-queue", WARNING, {"clusterQueue": "cq"}, {}),
    ("joint-check", "joint-check", WARNING, {"clusterQueue": "cq", "admissionCheck": preflight.JOINT_CHECK}, {}),
    ("accelerator-key", "accelerator-key", ERROR, {"role": "prefill", "acceleratorKey": "nvidia-h20",
                                                   "clusterQueue": "cq", "offered": []}, {}),
    ("never-fits", "never-fits", ERROR, {"role": "decode", "code": "QuotaExceedsCapacity", "clusterQueue": "cq",
                                         **_BEST}, {**_ASKS, "attempts": (), "unread": None}),
    ("no-matching-flavor", "no-matching-flavor", ERROR, {"role": "decode", "code": "NoMatchingFlavor",
                                                         "clusterQueue": "cq"},
     {**_ASKS, "attempts": (), "unread": None}),
    ("waits-for-quota", "waits-for-quota", WARNING, {"role": "decode", "code": "NeedsPreemption",
                                                     "clusterQueue": "cq", **_BEST, "previous": CARD},
     {**_ASKS, "attempts": (), "unread": None}),
    ("fit-unknown.quota", "fit-unknown", WARNING, {"role": "decode", "code": "QuotaUnknown", "clusterQueue": "cq"},
     {**_ASKS, "attempts": (), "unread": "cohort"}),
    ("fit-unknown.order", "fit-unknown", WARNING, {"clusterQueue": "cq", "unknown": preflight.ORDER_UNKNOWN,
                                                   "orders": {"a,b": ["fits"], "b,a": ["QuotaExhausted"]}}, {}),
    ("no-node-fits", preflight.NODE_CHECK, ERROR, {"role": "decode", "code": "PodsUnschedulable", "never": True,
                                                   "clusterQueue": "cq", "flavor": "f", "nodes": 2, "allowed": 2,
                                                   "resource": "credits.gpustack.ai/nvidia", "requested": 4 * CARD,
                                                   "node": "n1", "largest": 2 * CARD}, {}),
    ("no-node-fits", preflight.NODE_CHECK, ERROR, {"role": "decode", "code": "PodsUnschedulable", "never": True,
                                                   "clusterQueue": "cq", "flavor": "f", "nodes": 2, "allowed": 0,
                                                   "resource": None, "requested": None, "node": None,
                                                   "largest": None}, {}),
    ("skipped.read", "skipped", WARNING, {"kind": "ClusterQueue", "name": "cq"}, {"reason": "forbidden"}),
    ("skipped.read", "skipped", WARNING, {"kind": "Cohort"}, {"reason": "forbidden"}),
    ("skipped.nodes", "skipped", WARNING, {"unknown": "nodes"}, {"what": "Nodes", "reason": "forbidden"}),
    ("priority-class.missing", "priority-class", ERROR, {"priorityClass": "high"}, {}),
    ("admitted-apart", preflight.APART, WARNING, {"kind": "LeaderWorkerSet", "workloads": {"p": 1, "d": 2},
                                                  "fits": ["p"], "waits": ["d"], "unknown": [], "partly": True,
                                                  "held": [{"role": "p", "resource": "nvidia.com/gpu",
                                                            "quantity": "4"}]}, {}),
    ("admitted-apart", preflight.APART, WARNING, {"kind": "DisaggregatedSet", "workloads": {"p": 1, "d": 1},
                                                  "fits": ["p", "d"], "waits": [], "unknown": [], "partly": False,
                                                  "held": []}, {}),
    ("integration-off", preflight.INTEGRATION, ERROR, {"framework": "pod", "frameworks": ["batch/job"],
                                                       "source": "configmap"}, {}),
    ("integration-off", preflight.INTEGRATION, ERROR, {"framework": "leaderworkerset.x-k8s.io/leaderworkerset",
                                                       "frameworks": [], "source": "file"}, {}),
]


@pytest.mark.parametrize("say, check, severity, params, values", FINDINGS, ids=[f[0] for f in FINDINGS])
def test_each_sentence_renders_from_its_finding(say: str, check: str, severity: str, params: dict[str, Any],
                                                values: dict[str, Any]) -> None:
    f = CheckFinding(severity, check, say, params=params, words=values)
    assert check in {c.id for c in CHECKS}
    text = f.message
    assert text and "\n" not in text and "{" not in text
    # every value a sentence names without a default is one the finding carries
    required = {p.name for p in inspect.signature(words.SENTENCES[say]).parameters.values()
                if p.default is inspect.Parameter.empty and p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD}
    assert required <= {**params, **values}.keys()


def test_every_sentence_has_a_row() -> None:
    assert {f[0] for f in FINDINGS} == set(words.SENTENCES)


def test_a_finding_compares_on_its_codes_not_its_values() -> None:
    a = CheckFinding(WARNING, "waits-for-quota", "waits-for-quota", params={"role": "a"}, words={"asked": 1})
    b = CheckFinding(WARNING, "waits-for-quota", "waits-for-quota", params={"role": "b"}, words={"asked": 2})
    assert a == b and a != CheckFinding(ERROR, "never-fits", "never-fits")
