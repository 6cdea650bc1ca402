"""The Source boundary (issue 29, item 1): a run parses each object once, where gather receives it, and
`Facts` holds typed records only; no API dict travels past it.

(a) by type: no field of Facts is typed with Any or an API dict (`Obj`, `dict[str, Any]`), at any depth;
containers keyed by name are fine when their values are typed records.
(b) at run time: every why-pending fixture gathered from a snapshot (one target, and the whole file as
`why-pending -A` reads it), each Facts walked recursively: no plain dict holding an API object's fields
(`apiVersion`, `metadata`, `spec`, `status`). The run's memo (`Facts.run`) keeps the objects it parsed, by
design (an identity is never reused while it lives), and is not walked.
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.pending.gather import Facts, Typed, gather, gather_all
from kubectl_pd.pending.target import Target
from tests.apiserver import load_objects

FIX = Path(__file__).parent / "fixtures" / "pending"
API_FIELDS = frozenset({"apiVersion", "metadata", "spec", "status"})
FIXTURES = sorted(p.stem for p in FIX.glob("*.yaml"))


def _untyped(t: Any) -> list[str]:
    """Where Any appears in the type `t` (itself or any argument, at any depth)."""
    if t is Any:
        return ["Any"]
    return [f"{t!r} > {x}" for a in typing.get_args(t) for x in _untyped(a)]


def test_no_field_of_facts_is_typed_with_an_api_dict() -> None:
    hints = typing.get_type_hints(Facts)
    assert set(hints) >= {"deployment", "pods", "workloads", "local_queues", "cluster_queues", "flavors", "checks",
                          "instance_types", "namespace_obj", "events", "pending", "peer_queues", "cohorts",
                          "limit_ranges", "nodes", "ahead", "run"}
    found = {name: bad for name, t in hints.items() if (bad := _untyped(t))}
    assert not found


def test_the_memos_are_gone_and_the_run_owns_the_one_left() -> None:
    for gone in ("derived", "parsed", "wl", "cq", "lq", "pod", "view", "event_views"):
        assert not hasattr(Facts, gone), gone
    assert Facts(Target("Workload", "w", "ns")).run is not Facts(Target("Workload", "w", "ns")).run


def _api_dicts(value: Any, path: str, seen: set[int]) -> list[str]:
    """Paths inside `value` at which a plain dict holds an API object's fields."""
    if id(value) in seen or isinstance(value, str | int | float | bool | type(None)):
        return []
    seen.add(id(value))
    out: list[str] = []
    if isinstance(value, dict):
        if API_FIELDS & set(value):
            out.append(path)
        items = list(value.items())
        out += [p for k, v in items for p in _api_dicts(k, f"{path}[key]", seen) + _api_dicts(v, f"{path}[{k!r}]",
                                                                                              seen)]
    elif isinstance(value, list | tuple | set | frozenset):
        out += [p for i, v in enumerate(value) for p in _api_dicts(v, f"{path}[{i}]", seen)]
    elif isinstance(value, Typed):
        return []
    elif dataclasses.is_dataclass(value):
        out += [p for f in dataclasses.fields(value) for p in _api_dicts(getattr(value, f.name), f"{path}.{f.name}",
                                                                         seen)]
    elif hasattr(value, "items"):  # a Mapping that is not a dict
        out += [p for k, v in value.items() for p in _api_dicts(v, f"{path}[{k!r}]", seen)]
    return out


def _walk(facts: Facts) -> list[str]:
    seen: set[int] = set()
    return [p for f in dataclasses.fields(facts) if f.name != "run"
            for p in _api_dicts(getattr(facts, f.name), f"{facts.target.kind}/{facts.target.name}.{f.name}", seen)]


@pytest.mark.parametrize("name", FIXTURES)
def test_no_api_dict_past_the_source_boundary(name: str) -> None:
    objs = load_objects(FIX / f"{name}.yaml")
    from tests.test_pending_fixtures import target_of

    facts = gather(SnapshotSource.from_objects(objs), Target(target_of(name)[1], "qwen-pd", "team-a"), strict=False)
    assert facts.deployment is not None or facts.pods or facts.workloads  # the walk saw what was read
    assert not _walk(facts)
    every, _notes = gather_all(SnapshotSource.from_objects(load_objects(FIX / f"{name}.yaml")), None)
    assert every
    assert len({id(f.run) for f in every}) == 1  # one memo for the run's targets
    assert not [p for f in every for p in _walk(f)]


def test_the_walk_finds_an_api_dict_where_one_is_left() -> None:
    facts = Facts(Target("Workload", "w", "ns"))
    facts.notes.append({"metadata": {"name": "w"}})  # type: ignore[arg-type]
    assert _walk(facts) == ["Workload/w.notes[0]"]


def test_the_walk_looks_inside_the_records() -> None:
    from kubectl_pd import kube
    from kubectl_pd.records import replace

    pod = kube.pod({"metadata": {"name": "p"}, "spec": {"overhead": {"metadata": {}}}})
    assert _walk(Facts(Target("Pod", "p", "ns"), pods=[pod])) == []  # the PodSet its spec makes: no dict kept
    planted = replace(pod, annotations={"k": {"metadata": {}}})  # a record that kept one
    assert _walk(Facts(Target("Pod", "p", "ns"), pods=[planted])) == ["Pod/p.pods[0].annotations['k']"]
