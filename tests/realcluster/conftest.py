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
    config.addinivalue_line("markers", "multikueue_skew: a MultiKueue manager and workers of two Kueue lines")
    config.addinivalue_line("markers", "disaggregatedset: needs the DisaggregatedSet API (LWS v0.9, Kueue 0.19+): "
                                       "deselected on the frameworks' planes of older lines")


def _asked(config: pytest.Config) -> bool:
    return re.search(r"\bcluster\b", config.option.markexpr or "") is not None


# MultiKueue on the older line: CI runs 2 of tests/realcluster/test_multikueue.py's tests there (their names below),
# the rest on the newest line only; PD_MULTIKUEUE_ALL=1 runs every one on every line (docs/multikueue.md)
MK_SAMPLED = ("test_one_worker_fits_it_is_dispatched_there_and_named",
              "test_zz_a_worker_unreachable_the_other_diagnosed")
MK_ALL = "PD_MULTIKUEUE_ALL"


def mk_lines() -> list[str]:
    """The Kueue lines the MultiKueue planes run: every line asked for (PD_REAL_CLUSTER_KUEUE)."""
    return lines()


def _mk_sampled_out(item: pytest.Item) -> bool:
    """A MultiKueue test on an older line that CI leaves out (PD_MULTIKUEUE_ALL=1 keeps it)."""
    spec = getattr(item, "callspec", None)
    line = spec.params.get("mk_planes") if spec is not None else None
    name = getattr(item, "originalname", item.name)
    return (line is not None and line != mk_lines()[-1] and name not in MK_SAMPLED
            and os.environ.get(MK_ALL) != "1")


def _no_disaggregated_set(item: pytest.Item) -> bool:
    """A test of the DisaggregatedSet API on a frameworks' plane whose LWS has none (Kueue 0.18's v0.8.0)."""
    spec = getattr(item, "callspec", None)
    line = spec.params.get("lws_plane") if spec is not None else None
    return (line is not None and item.get_closest_marker("disaggregatedset") is not None
            and tuple(int(x) for x in str(line).split(".")[:2]) < (0, 19))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if _asked(config):
        no_ds = [i for i in items if _no_disaggregated_set(i)]
        if no_ds:
            config.hook.pytest_deselected(items=no_ds)
            items[:] = [i for i in items if i not in no_ds]
            config.stash[_DS_DROPPED] = len(no_ds)
        sampled = [i for i in items if _mk_sampled_out(i) or (len(mk_lines()) < 2 and i.get_closest_marker(
            "multikueue_skew") is not None)]  # version skew needs two lines
        if sampled:
            config.hook.pytest_deselected(items=sampled)
            items[:] = [i for i in items if i not in sampled]
            config.stash[_MK_DROPPED] = len(sampled)
        return
    dropped = [i for i in items if i.get_closest_marker("cluster") is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [i for i in items if i.get_closest_marker("cluster") is None]
        config.stash[_DROPPED] = len(dropped)


_DROPPED = pytest.StashKey[int]()
_MK_DROPPED = pytest.StashKey[int]()
_DS_DROPPED = pytest.StashKey[int]()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    n = config.stash.get(_DROPPED, 0)
    if n:
        terminalreporter.write_line(f"{n} {HOW}")
    n = config.stash.get(_MK_DROPPED, 0)
    if n:
        terminalreporter.write_line(f"{n} MultiKueue tests deselected: on Kueue {', '.join(mk_lines()[:-1]) or '-'} CI "
                                    f"runs {len(MK_SAMPLED)} ({MK_ALL}=1 runs them all on every line); version skew "
                                    f"needs two lines in PD_REAL_CLUSTER_KUEUE")
    n = config.stash.get(_DS_DROPPED, 0)
    if n:
        terminalreporter.write_line(f"{n} DisaggregatedSet tests deselected on Kueue lines before 0.19 (their LWS has "
                                    f"no DisaggregatedSet API)")


def lws_lines() -> list[str]:
    """The Kueue lines the frameworks' plane (--lws) runs: PD_LWS_KUEUE, default the newest line asked for."""
    asked = [v.strip() for v in os.environ.get("PD_LWS_KUEUE", "").split(",") if v.strip()]
    return asked or lines()[-1:]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "plane" in metafunc.fixturenames:
        metafunc.parametrize("plane", lines(), indirect=True, scope="session")
    if "lws_plane" in metafunc.fixturenames:
        metafunc.parametrize("lws_plane", lws_lines(), indirect=True, scope="session")
    if "mk_planes" in metafunc.fixturenames:  # one set of planes per line, the older line's stopped first
        metafunc.parametrize("mk_planes", mk_lines(), indirect=True, scope="module")


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


@pytest.fixture(scope="session")
def lws_plane(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plane]:
    """The frameworks' plane (`up --lws`: LWS's manager, kube-controller-manager, Kueue's LWS, Deployment and
    StatefulSet integrations), shared by the frameworks' tests and journeys."""
    line = str(request.param)
    p = Plane(line, tmp_path_factory.mktemp(f"plane-{line}-lws") / "run")
    try:
        p.up("--lws")
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the frameworks' control plane (Kueue {line}, --lws) did not start: {e}", pytrace=False)
    yield p
    p.down()


@pytest.fixture(scope="module")
def mk_planes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MultiKueuePlanes]:
    """A MultiKueue manager and two workers of one Kueue line (each line of mk_lines), for one test module:
    started when the module's first test of that line asks, stopped after its last."""
    line = str(request.param)
    p = MultiKueuePlanes(line, tmp_path_factory.mktemp(f"multikueue-{line}") / "run", workers=2)
    try:
        p.up("--nodes", "2")
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the MultiKueue control planes (Kueue {line}, 2 workers) did not start: {e}", pytrace=False)
    yield p
    p.down()


@pytest.fixture(scope="module")
def mk_skew_planes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MultiKueuePlanes]:
    """Version skew: a manager of the newest line asked for and one worker of the oldest (--worker-kueue)."""
    manager, worker = mk_lines()[-1], mk_lines()[0]
    p = MultiKueuePlanes(manager, tmp_path_factory.mktemp(f"multikueue-{manager}-{worker}") / "run", workers=1)
    try:
        p.up("--nodes", "2", "--worker-kueue", f"worker-1={worker}")
    except (PlaneError, OSError) as e:
        p.down()
        pytest.fail(f"the MultiKueue planes (manager Kueue {manager}, worker Kueue {worker}) did not start: {e}",
                    pytrace=False)
    yield p
    p.down()
