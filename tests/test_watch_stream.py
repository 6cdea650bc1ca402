"""`why-pending -A --watch` on a held watch stream (issue 32): one chunked answer held open by the loopback
server (tests/apiserver_watch.Held), events read as they arrive, a burst diagnosed once, bookmarks moving the
resourceVersion, an in-stream 410 relisting, a closed stream resumed. Lines asserted by their keys and codes."""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from typing import Any

from kubectl_pd.pending.watch_render import WORDS
from tests.apiserver import load_objects, unrelated_workloads
from tests.apiserver_watch import Held
from tests.test_pending_fixtures import FIX


def _admission() -> list[tuple[Any, ...]]:
    """Kueue admits qwen-pd: its ClusterQueue's usage and running Pods (stored), its Workload (sent)."""
    objs = load_objects(FIX / "not-pending.yaml")
    return [*[("apply", o) for o in objs if o["kind"] in ("ClusterQueue", "Pod")],
            *[("event", "MODIFIED", o) for o in objs if o["kind"] == "Workload"]]


def _changes(stdout: str) -> list[tuple[str, str]]:
    """(target key, what the line says) of each change line: the first table's lines left out."""
    out = []
    for line in stdout.splitlines():
        parts = line.split("  ", 2)
        if len(parts) == 3 and "/" in parts[1]:
            out.append((parts[1], parts[2]))
    return out


def test_a_scripted_sequence_on_held_streams(cli: Any, apiserver: Any) -> None:
    added = unrelated_workloads(1, namespace="team-b")[0]
    server, env = apiserver("pending/quota-exhausted.yaml")
    held = Held(server, [
        ("pause", 0.2), *_admission(), ("pause", 1.0), ("bookmark",), ("close",),  # stream 1
        ("event", "ADDED", added), ("pause", 1.0), ("event", "DELETED", added), ("pause", 1.0),  # stream 2
        ("error-gone",),
        ("bookmark",), ("close",),  # stream 3, from the relisted version
    ])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "3"], env=env)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2].split()[:4] == ["team-a", "md/qwen-pd", "decode", "QuotaExhausted"]
    changes = _changes(r.stdout)
    assert [key for key, _ in changes] == ["team-a/md/qwen-pd", "team-b/wl/batch-00000", "team-b/wl/batch-00000"]
    assert changes[0][1] == WORDS["not-pending"]
    assert changes[1][1].startswith(WORDS["pending"] + ": LocalQueueMissing")
    assert changes[2][1] == WORDS["not-pending"]
    # stream 1 from the list's version; stream 2 from the bookmark's; after the in-stream 410, a relist
    bookmark = str(100 + len(_admission()))
    assert [w["resourceVersion"] for w in held.watches] == ["1", bookmark, "1"]
    assert all(w["allowWatchBookmarks"] == "true" and 300 <= int(w["timeoutSeconds"]) <= 600
               for w in held.watches)
    assert sum(1 for q in server.requests if q.path.endswith("/workloads") and q.query.get("limit") == "1") == 2
    assert set(server.methods) == {"GET"}


def test_a_410_status_relists(cli: Any, apiserver: Any) -> None:
    server, env = apiserver("pending/quota-exhausted.yaml")
    held = Held(server, [("bookmark",), ("close",), ("gone",), *_admission(), ("close",)])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "3"], env=env)
    assert r.exit_code == 0, r.stderr
    assert [key for key, _ in _changes(r.stdout)] == ["team-a/md/qwen-pd"]
    assert [w["resourceVersion"] for w in held.watches] == ["1", "100", "1"]


def _spawn(env: dict[str, str]) -> tuple[Any, list[tuple[float, str]]]:
    from tests.conftest import spawn_interruptible

    p = spawn_interruptible([sys.executable, "-m", "kubectl_pd", "why-pending", "-A", "--watch"],
                            env={**os.environ, **env})
    lines: list[tuple[float, str]] = []

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            lines.append((time.monotonic(), line))

    threading.Thread(target=read, daemon=True).start()
    return p, lines


def _wait(cond: Any, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert cond()


def test_a_change_shows_within_1_5_s_on_one_held_stream(apiserver: Any) -> None:
    """The admission is sent 2 s into the stream: its line is printed less than 1.5 s later, and the whole run
    sends one watch request (a 5-second window would have sent one more by then)."""
    server, env = apiserver("pending/quota-exhausted.yaml")
    held = Held(server, [("pause", 2.0), *_admission(), ("pause", 4.0), ("bookmark",)])
    p, lines = _spawn(env)
    try:
        _wait(lambda: held.sent)
        _wait(lambda: any("qwen-pd" in line and WORDS["not-pending"] in line for _t, line in lines), 10)
        shown = next(t for t, line in lines if WORDS["not-pending"] in line)
        sent = held.sent[-1][0]
        print(f"latency of a change: {shown - sent:.2f} s")
        assert shown - sent < 1.5, f"{shown - sent:.2f} s"
        time.sleep(max(0.0, sent + 4.5 - time.monotonic()))  # past the 5 s an old window lasted
        assert len(held.watches) == 1
    finally:
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=10)
    assert p.returncode in (0, 130) and "Traceback" not in err, err


def test_ctrl_c_within_a_second_while_the_stream_is_quiet(apiserver: Any) -> None:
    """The stream's headers came and nothing since: the reader is blocked on the socket, Ctrl-C ends it."""
    server, env = apiserver("pending/quota-exhausted.yaml")
    held = Held(server, [("bookmark",)])
    p, lines = _spawn(env)
    _wait(lambda: held.watches and lines)
    time.sleep(0.5)
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    _out, err = p.communicate(timeout=10)
    assert time.monotonic() - sent < 1.0
    assert p.returncode in (0, 130) and "Traceback" not in err


def test_selectors_choose_the_watched_targets(cli: Any, apiserver: Any) -> None:
    """-l with -A --watch: the targets as without --watch (the Workload batch-00000 is labelled, qwen-pd not)."""
    added = unrelated_workloads(1, namespace="team-b")[0]
    added["metadata"]["labels"] = {"team": "a"}
    server, env = apiserver("pending/quota-exhausted.yaml")
    Held(server, [*_admission(), ("event", "ADDED", added), ("close",)])
    r = cli(["why-pending", "-A", "--watch", "--watch-rounds", "1", "-l", "team=a"], env=env)
    assert r.exit_code == 0, r.stderr
    assert "md/qwen-pd" not in r.stdout
    assert [key for key, _ in _changes(r.stdout)] == ["team-b/wl/batch-00000"]
