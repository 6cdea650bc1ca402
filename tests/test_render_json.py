"""The -o json text of why-pending, byte for byte: one golden file per reason-code fixture, of every target
of the snapshot (`-A`: to_dict's items through echo_dump's pieces). The JSON is written by common._indented
and its quantities by the memos of kueue/quantity; these files were written by the code before either, so
any byte they change shows here. The text of -A and of the single target (`to_json`) is also the standard
library's indented form of the same data. PD_UPDATE_GOLDEN=1 rewrites them (review the diff)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.test_pending_fixtures import CASES, FIX, normalised

GOLDEN = Path(__file__).parent / "golden" / "why-pending-json"


def assert_golden(text: str, name: str) -> None:
    path = GOLDEN / f"{name}.json"
    if os.environ.get("PD_UPDATE_GOLDEN") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(normalised(text))
    assert path.is_file(), f"no golden {path.name}: run with PD_UPDATE_GOLDEN=1 and review it"
    assert normalised(text) == path.read_text(), f"{name}: the JSON differs from {path} (PD_UPDATE_GOLDEN=1)"


def test_no_golden_without_its_fixture() -> None:
    assert {p.stem for p in GOLDEN.glob("*.json")} == set(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_json_bytes(cli: Any, name: str) -> None:
    snapshot = str(FIX / f"{name}.yaml")
    from tests.test_pending_fixtures import TARGETS

    form = TARGETS.get(name, ("md/qwen-pd",))[0]  # a PD framework's fixture names its own kind
    for args in ([form, "-n", "team-a"], ["-A"]):
        r = cli(["why-pending", *args, "-f", snapshot, "-o", "json"])
        assert r.exit_code in (0, 1), r.stderr
        assert r.stdout == json.dumps(json.loads(r.stdout), indent=2, ensure_ascii=False) + "\n"
    assert_golden(r.stdout, name)
