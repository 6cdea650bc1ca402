"""The dependent rounds of one run, from kubectl-pd's request trace (KUBECTL_PD_TRACE, cluster/pool.py).

A trace line is `start end fresh status method path` (time.monotonic seconds; fresh 1: the request opened its
connection, a TCP connect and, on https, a TLS handshake). A request is one round deeper than the deepest
request that had answered before it started (round 1: started before any answer came back); `rounds` is the
deepest. A request that started late for another reason (a thread busy parsing) counts as deeper too: the
figure is the critical path as the wire saw it, an upper bound on the plan's own depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Traced:
    requests: int
    rounds: int
    handshakes: int
    per_round: tuple[int, ...]  # requests in each round
    fresh_rounds: tuple[int, ...]  # the round of each request that opened a connection


def rounds(path: Path) -> Traced:
    rows = []
    for line in path.read_text().splitlines() if path.exists() else []:
        t0, t1, fresh, _status, _method, _path = line.split(" ", 5)
        rows.append((float(t0), float(t1), fresh == "1"))
    rows.sort()
    depth: list[int] = []
    for i, (t0, _t1, _f) in enumerate(rows):
        before = [depth[j] for j in range(i) if rows[j][1] <= t0]
        depth.append(1 + max(before, default=0))
    deepest = max(depth, default=0)
    per = tuple(depth.count(d) for d in range(1, deepest + 1))
    fresh = tuple(d for d, r in zip(depth, rows, strict=True) if r[2])
    return Traced(len(rows), deepest, len(fresh), per, fresh)
