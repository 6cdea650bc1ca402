"""A Source says what it is (issue 38, item 3; cluster/protocols.Source): `is_live`, `parallel`, `replay`,
`served_versions`, `version_for` and `stored` are the protocol's, every Source class answers them
(cluster/source.SourceDefaults, or its inner's for a Source over another), and no caller probes for them with
getattr/hasattr.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.kinds import KINDS
from kubectl_pd.cluster.live import LiveSource
from kubectl_pd.cluster.prefetch import PrefetchedSource
from kubectl_pd.cluster.protocols import Source
from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.cluster.source import SourceDefaults

PACKAGE = Path(__file__).resolve().parent.parent / "kubectl_pd"
CAPABILITIES = {"is_live", "parallel", "replay", "inner", "served_versions", "version_for", "stored"}
CALLERS = ["pending/inputs.py", "pending/gather.py", "create/preflight.py", "commands/lint.py",
           "commands/create.py", "multikueue/run.py"]

CQ = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": "cq"}, "spec": {}}


def _snapshot() -> SnapshotSource:
    return SnapshotSource.from_objects([CQ])


@pytest.mark.parametrize(("make", "live", "parallel"), [
    (_snapshot, False, True),
    (lambda: PrefetchedSource(_snapshot(), {}), False, False),  # a run's memo: reads answered from memory
])
def test_every_source_answers_its_capabilities(make: Any, live: bool, parallel: bool) -> None:
    src = make()
    assert isinstance(src, Source) and isinstance(src, SourceDefaults)
    got = (src.is_live, src.parallel, src.served_versions("kueue.x-k8s.io"), src.version_for(KINDS["ClusterQueue"]),
           [o["metadata"]["name"] for o in src.stored("ClusterQueue")])
    assert got == (live, parallel, None, None, ["cq"])
    assert src.replay is not None and not src.replay.rows  # a snapshot's record; through the memo, the inner's


def test_a_live_source_is_one() -> None:
    assert issubclass(LiveSource, SourceDefaults) and LiveSource.is_live and LiveSource.parallel
    assert LiveSource.served_versions is not SourceDefaults.served_versions
    assert LiveSource.version_for is not SourceDefaults.version_for


@pytest.mark.parametrize("rel", CALLERS)
def test_no_caller_probes_a_capability(rel: str) -> None:
    tree = ast.parse((PACKAGE / rel).read_text())
    probes = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
              and n.func.id in ("getattr", "hasattr") and len(n.args) >= 2
              and isinstance(n.args[1], ast.Constant) and n.args[1].value in CAPABILITIES]
    assert probes == []
