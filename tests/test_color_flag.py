"""`queues` and `capacity` take `--color` as every command that prints text does (issue 50, cosmetic)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.builders import resource_flavor
from tests.test_capacity_count import _write, pool
from tests.test_unknown_quantities import CAPACITY


@pytest.mark.parametrize("argv", [["queues"], CAPACITY])
def test_queues_and_capacity_take_color(cli: Callable[..., Any], tmp_path: Path, argv: list[str]) -> None:
    f = _write(tmp_path, [*pool("pool", {"h20": 8}), resource_flavor("h20")])
    for mode in ("never", "always", "auto"):
        r = cli([*argv, "-f", f, "--color", mode])
        assert r.exit_code == 0, r.stderr
