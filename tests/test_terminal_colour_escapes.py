"""Issue 42, M8: with colour on (a terminal, or --color always), SGR (conceal `ESC[8m`, a green "ADMITTED") and
erase-line (`ESC[2K`) sequences from cluster text reached the terminal raw; only our own, marked, get through."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd import termsafe
from tests.apiserver import load_objects
from tests.test_pending_fixtures import FIX

FAKE = "\x1b[2K\r\x1b[32mADMITTED\x1b[0m\x1b[8m hidden"
RAW = ("\x1b[2K", "\x1b[32mADMITTED", "\x1b[8m")


@pytest.mark.parametrize("ours", [True, False])
def test_cluster_sgr_and_erase_line_are_escaped_whatever_the_colour(ours: bool) -> None:
    out = termsafe.clean(f"{termsafe.sgr(1)}x{termsafe.sgr(0)} {FAKE} {termsafe.csi('2K')}", ours=ours)
    theirs = "^[[2K\\r^[[32mADMITTED^[[0m^[[8m hidden"
    assert out == (f"\x1b[1mx\x1b[0m {theirs} \x1b[2K" if ours else f"x {theirs} ")


def test_the_mark_is_never_printed() -> None:
    for ours in (True, False):
        out = termsafe.clean(termsafe.sgr(31) + "red" + termsafe.sgr(0) + termsafe.csi("3F"), ours=ours)
        assert all(not 0xE000 <= ord(c) <= 0xF8FF for c in out)


def test_why_pending_with_colour_escapes_the_clusters_sequences(cli: Any, tmp_path: Path) -> None:
    objs = load_objects(FIX / "quota-exhausted.yaml")
    for o in objs:
        if o["kind"] == "Workload":
            for c in o.get("status", {}).get("conditions") or []:
                c["message"] = FAKE + " " + c.get("message", "")
        if o["kind"] in ("Workload", "ModelDeployment", "Pod"):
            o["metadata"].setdefault("labels", {})["x"] = "y"
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump_all(objs))
    r = cli(["why-pending", "qwen-pd", "-n", "team-a", "-f", str(path), "--color", "always"])
    assert r.exit_code in (0, 1), r.stderr
    assert "ADMITTED" in r.stdout  # the message is shown ...
    assert [s for s in RAW if s in r.stdout + r.stderr] == []  # ... escaped
    assert "\x1b[" in r.stdout  # our own colour is on
