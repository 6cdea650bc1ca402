"""The two import circles stay cut: the fair-sharing preemptor shares its types with the classical one
through kueue/preempt_common.py (Kueue's preemption/common), never by importing kueue/preemption.py; and
pending/gather.py (the reads) never calls the printer (pending/words.py) for an error's text. Checked on
every import statement of the module, those inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent / "kubectl_pd"


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


@pytest.mark.parametrize(("module", "never"), [
    ("kueue/fairsharing.py", "kubectl_pd.kueue.preemption"),
    ("kueue/preempt_common.py", "kubectl_pd.kueue.preemption"),
    ("kueue/preempt_common.py", "kubectl_pd.kueue.fairsharing"),
    ("pending/gather.py", "kubectl_pd.pending.words"),
])
def test_no_circle(module: str, never: str) -> None:
    assert never not in _imports(ROOT / module)


# The whole graph: every module's imports (inside functions and under TYPE_CHECKING too), at the level of modules and
# at the level of the package's wings. `from pkg import mod` is an arrow to the module, never to pkg's __init__ (which
# Python has run already as the parent of whatever imports it).
MODULES = {".".join(p.relative_to(ROOT.parent).with_suffix("").parts).removesuffix(".__init__"): p
           for p in ROOT.rglob("*.py")}


def _arrows(module: str) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(MODULES[module].read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for a in node.names:
                sub = f"{node.module}.{a.name}"
                out.add(sub if sub in MODULES else node.module)
    return {m for m in out if m in MODULES and m != module}


def _wing(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one node (Tarjan's, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[frozenset[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = set()
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.add(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(frozenset(comp))
    return out


def _graph(level: str) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for m in MODULES:
        src = m if level == "module" else _wing(m)
        for t in _arrows(m):
            dst = t if level == "module" else _wing(t)
            if dst != src:
                graph.setdefault(src, set()).add(dst)
    return graph


@pytest.mark.parametrize("level", ["module", "wing"])
def test_no_import_circle_at_any_level(level: str) -> None:
    circles = _circles(_graph(level))  # none allowed, type-only ones included (the shared types live below both
    # ends: cluster/objects.py, pending/facts.py)
    assert not circles, sorted(sorted(c) for c in circles)


ROOT_MODULES = {"__init__", "__main__", "atomic", "contract", "errors", "interrupt", "kube", "labels",
                "lazyre", "memo", "records", "registry", "termsafe"}  # shared infrastructure: what many wings use


def test_the_root_keeps_shared_infrastructure_only() -> None:
    assert {p.stem for p in ROOT.glob("*.py")} == ROOT_MODULES


FLOORS = {  # docs/architecture.md, "The wings and their floors": a wing imports only from floors below its own
    **dict.fromkeys(("errors", "memo", "records", "lazyre", "interrupt", "termsafe", "contract", "labels", "atomic",
                     "registry", "__init__"), 0),
    **dict.fromkeys(("kueue", "kube", "gpustack", "output"), 1),
    **dict.fromkeys(("cluster", "snapshot", "completion"), 2),
    **dict.fromkeys(("pending", "lint", "create", "queues"), 3),
    **dict.fromkeys(("multikueue", "capacity"), 4),
    "agent": 5,
    **dict.fromkeys(("commands", "__main__"), 6),
}


def _floor(module: str) -> int:
    parts = module.split(".")
    return FLOORS["__init__" if len(parts) == 1 else parts[1]]


def test_no_arrow_runs_up_a_floor() -> None:
    """An arrow between two wings stays on its floor (the circle test keeps those apart) or goes down."""
    up = sorted((m, t) for m in MODULES for t in _arrows(m) if _floor(t) > _floor(m))
    assert not up, up


def test_every_wing_has_its_floor() -> None:
    assert {_wing(m).split(".")[-1] if "." in m else "__init__" for m in MODULES} <= FLOORS.keys() | {"kubectl_pd"}
