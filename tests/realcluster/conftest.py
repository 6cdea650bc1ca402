"""The real-control-plane tier: selected by `pytest -m cluster`, deselected (never skipped) otherwise.

PD_REAL_CLUSTER_KUEUE chooses the Kueue lines (default "0.18,0.19"): one control plane per line per run,
started once and shared by the tier's tests (each test works in namespaces and cluster-scoped names of its
own: no namespace controller runs, so nothing is deleted).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator

import pytest

from tests.realcluster.plane import MultiKueuePlanes, Plane, PlaneError

HOW = ("real-control-plane tests (marker cluster) deselected: run them with `pytest -m cluster` (builds etcd, "
       "kube-apiserver, kube-scheduler, kwok and Kueue from Go modules with Go 1.26+; needs root)")


def lines() -> list[str]:
    return [v.strip() for v in os.environ.get("PD_REAL_CLUSTER_KUEUE", "0.18,0.19").split(",") if v.strip()]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "cluster: needs a real control plane (scripts/real-cluster); "
                                       "run with `pytest -m cluster`")


def _asked(config: pytest.Config) -> bool:
    return re.search(r"\bcluster\b", config.option.markexpr or "") is not None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _asked(config):
        return
    dropped = [i for i in items if i.get_closest_marker("cluster") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i.get_closest_marker("cluster") is None]
        config.stash[_DROPPED] = len(dropped)


_DROPPED = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    n = config.stash.get(_DROPPED, 0)
    if n:
        terminalreporter.write_line(f"{n} {HOW}")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "plane" in metafunc.fixturenames:
        metafunc.parametrize("plane", lines(), indirect=True, scope="session")


@pytest.fixture(scope="session")
def plane(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plane]:
    line = str(request.param)
    p = Plane(line, tmp_path_factory.mktemp(f"plane-{line}") / "run")
    try:
        p.up()
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the control plane with Kueue {line} did not start: {e}", pytrace=False)
    yield p
    p.down()


@pytest.fixture(scope="session")
def fair_plane(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plane]:
    """One more control plane, of the newest line asked for, with Kueue's fair sharing on."""
    line = lines()[-1]
    p = Plane(line, tmp_path_factory.mktemp(f"plane-{line}-fair") / "run")
    try:
        p.up("--fair-sharing")
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the fair-sharing control plane with Kueue {line} did not start: {e}", pytrace=False)
    yield p
    p.down()


@pytest.fixture(scope="module")
def mk_planes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MultiKueuePlanes]:
    """A MultiKueue manager and two workers of Kueue 0.19 (the line the facts of docs/multikueue.md were read
    at), for one test module: started when the module's first test asks, stopped after its last."""
    p = MultiKueuePlanes("0.19", tmp_path_factory.mktemp("multikueue-0.19") / "run", workers=2)
    try:
        p.up("--nodes", "2")
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the MultiKueue control planes (Kueue 0.19, 2 workers) did not start: {e}", pytrace=False)
    yield p
    p.down()
