"""Tab after `lws/`, `ds/`, `deploy/`, `sts/`, `llmisvc/` offers that kind's names (issue 47), through the command
tree and through the bridge's fast path alike; a bare NAME still offers ModelDeployments only (one list)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_pd.commands.bridge import fast_target
from tests import frameworks as fw
from tests.test_completion import directive, values


@pytest.mark.parametrize(("typed", "want"), [
    ("lws/", ["lws/vllm", "lws/vllm-2"]), ("leaderworkerset/vllm-", ["leaderworkerset/vllm-2"]),
    ("ds/", ["ds/pd"]), ("deploy/ll", ["deploy/llama"]), ("sts/", []), ("nope/", []),
])
def test_a_frameworks_names_after_its_form(cli: Any, apiserver: Any, monkeypatch: Any, typed: str,
                                           want: list[str]) -> None:
    ds, lws_of_ds = fw.disaggregated_set("pd", {"prefill": 1})
    objs = [fw.lws("vllm"), fw.lws("vllm-2"), ds, fw.deployment("llama", 1)]
    server, env = apiserver(objs, groups=fw.groups(), namespace=fw.NS)
    r = cli(["__complete", "why-pending", typed], env=env)
    assert r.exit_code == 0, r.stderr
    assert values(r.stdout) == want and directive(r.stdout) == 4
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert fast_target(["why-pending", typed]) == [*want, ":4"]  # the bridge answers the same
    assert set(server.methods) <= {"GET"}  # an unknown form reads nothing
