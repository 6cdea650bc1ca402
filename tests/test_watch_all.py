"""`why-pending -A --watch` (issue 32, item 3) through the loopback server (tests/apiserver_watch.py): list,
then watch Workloads from the list's resourceVersion with bookmarks; a scripted sequence of changes and 410s;
one line per change when stdout is not a terminal; the table redrawn in place on a terminal."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from kubectl_pd.pending import watch_render
from kubectl_pd.pending.watch_all import changes
from tests.apiserver import load_objects, unrelated_workloads
from tests.apiserver_watch import script
from tests.test_pending_fixtures import FIX


def _admission() -> list[tuple[str, dict[str, Any]]]:
    """Kueue admits qwen-pd: its ClusterQueue's usage and running Pods (applied), its Workload (streamed)."""
    objs = load_objects(FIX / "not-pending.yaml")
    applied = [("APPLY", o) for o in objs if o["kind"] in ("ClusterQueue", "Pod")]
    return [*applied, *[("MODIFIED", o) for o in objs if o["kind"] == "Workload"]]


def _run(cli: Any, apiserver: Any, batches: list[Any], rounds: int) -> tuple[Any, Any, Any]:
    server, env = apiserver("pending/quota-exhausted.yaml")
    s = script(server, batches)
    started = time.monotonic()
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", str(rounds)], env=env)
    assert time.monotonic() - started < 60
    return r, s, server


def test_changes_one_line_each_and_410_relists(cli: Any, apiserver: Any) -> None:
    added = unrelated_workloads(1, namespace="team-b")[0]
    r, s, server = _run(cli, apiserver, [_admission(), "gone", [("ADDED", added)], "error-gone", []], 5)
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert re.fullmatch(r"\d\d:\d\d:\d\d", lines[0])  # the first table, stamped
    assert lines[1].split() == ["NAMESPACE", "TARGET", "ROLE", "REASON", "DETAIL"]
    assert lines[2].split()[:4] == ["team-a", "md/qwen-pd", "decode", "QuotaExhausted"]
    changed = [line.split("  ", 1)[1] for line in lines[3:]]
    assert changed[0] == "team-a/md/qwen-pd  not pending (admitted or gone)"
    assert changed[1].startswith("team-b/wl/batch-00000  pending: LocalQueueMissing")
    assert len(changed) == 2  # the 410s and the quiet window change nothing that is shown
    # list-then-watch: bookmarks asked for, each window resumes where the last ended, a 410 relists
    assert all(w["allowWatchBookmarks"] == "true" and 300 <= int(w["timeoutSeconds"]) <= 600 for w in s.watches)
    assert [w["resourceVersion"] for w in s.watches] == ["1", "105", "1", "106", "1"]
    assert sum(1 for q in server.requests if q.path.endswith("/workloads") and q.query.get("limit") == "1") == 3
    assert set(server.methods) == {"GET"}


def test_a_short_request_timeout_shortens_the_window(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    s = script(server, [[]])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "1", "--request-timeout", "4s"], env=env)
    assert r.exit_code == 0, r.stderr
    assert [w["timeoutSeconds"] for w in s.watches] == ["2"]


def test_nothing_changes_nothing_printed_again(cli: Any, apiserver: Any) -> None:
    r, s, _server = _run(cli, apiserver, [[], []], 2)
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout.splitlines()) == 3 and len(s.watches) == 2


def test_ctrl_c_within_a_second(apiserver: Any, tmp_path: Any) -> None:
    """A real process, its watch held open by the server: Ctrl-C ends it within a second, no traceback."""
    import os
    import signal
    import sys

    from tests.conftest import spawn_interruptible

    server, env = apiserver("pending/quota-exhausted.yaml")
    s = script(server, [], hold=30)
    p = spawn_interruptible([sys.executable, "-m", "kubectl_pd", "why-pending", "-A", "--watch"],
                            env={**os.environ, **env})
    deadline = time.monotonic() + 30
    while not s.watches and time.monotonic() < deadline:  # the first table drawn, the watch open
        time.sleep(0.05)
    assert s.watches, "the watch never started"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=10)
    assert time.monotonic() - sent < 1.0
    assert p.returncode in (0, 130) and "Traceback" not in err
    assert "QuotaExhausted" in out


def test_usage(cli: Any) -> None:
    r = cli(["why-pending", "-A", "--watch", "-o", "json"])
    assert r.exit_code == 2 and "-o text" in r.stderr
    r = cli(["why-pending", "-A", "--watch", "-f", str(FIX / "quota-exhausted.yaml")])
    assert r.exit_code == 2


ROW = ("decode", "QuotaExhausted", "needs more", "qwen-pd")
CHANGES = [  # (before, after, the changes)
    ({}, {("a", "ModelDeployment", "x"): ROW}, [("pending", ("a", "ModelDeployment", "x"), ROW)]),
    ({("a", "ModelDeployment", "x"): ROW}, {}, [("not-pending", ("a", "ModelDeployment", "x"), None)]),
    ({("a", "ModelDeployment", "x"): ROW}, {("a", "ModelDeployment", "x"): ROW}, []),
    ({("a", "ModelDeployment", "x"): ROW}, {("a", "ModelDeployment", "x"): ("decode", "PodsGated", "g", "x")},
     [("changed", ("a", "ModelDeployment", "x"), ("decode", "PodsGated", "g", "x"))]),
]


@pytest.mark.parametrize(("before", "after", "want"), CHANGES)
def test_changes(before: Any, after: Any, want: Any) -> None:
    assert changes(before, after) == want


def test_redraw_goes_back_and_clears() -> None:
    from kubectl_pd.termsafe import as_terminal

    first = watch_render.table({("a", "ModelDeployment", "x"): ROW}, "00:00:00")
    n = len(first.splitlines())
    again = as_terminal(watch_render.redraw(n, watch_render.table({}, "00:00:01")))
    assert again.startswith(f"\x1b[{n}F\x1b[2K00:00:01")
    assert again.count("\x1b[2K") == n  # every line of the old table cleared
