"""One longest duration (cluster.config.MAX_DURATION): Go's time.Duration, int64 nanoseconds, as kubectl
parses --request-timeout and --wait; the flags and the kubeconfig agree on it."""

from __future__ import annotations

import pytest

from kubectl_pd.cluster import config
from kubectl_pd.commands.options import checked_duration
from kubectl_pd.errors import InputError


def test_the_longest_is_gos() -> None:
    assert config.MAX_DURATION == (2**63 - 1) / 1e9


@pytest.mark.parametrize("value", ["2562047h", "2562047h47m", "2562047h47m16s"])
def test_up_to_gos_longest_is_accepted(value: str) -> None:
    assert config.parse_duration(value) == checked_duration(value, "--wait")


@pytest.mark.parametrize("value", ["2562047h47m17s", "2562048h"])
def test_beyond_it_is_refused_by_both(value: str) -> None:
    for parse in (lambda: config.parse_duration(value), lambda: checked_duration(value, "--wait")):
        with pytest.raises(InputError):
            parse()
