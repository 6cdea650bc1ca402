"""The smaller items of issue 46 (finding 9): --prefill/--decode with --engine-image under --target pods; Ctrl-C ends
queues --watch and why-pending --watch with the same exit code; one meaning per bar symbol across queues and
why-pending. Asserted on exit codes, objects and symbols."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
import yaml

from kubectl_pd.kueue.verdicts import FlavorBar
from kubectl_pd.pending.render import bar as wp_bar
from kubectl_pd.queues.words import bar as q_bar
from tests.builders import cluster_queue
from tests.test_queues_figures import figures


def test_prefill_decode_take_the_engine_image_with_target_pods(cli: Callable) -> None:
    r = cli(["create", "g", "--model", "m", "--target", "pods", "--local-queue", "q", "--prefill", "1", "--decode",
             "2", "--engine-image", "img:1", "--resource", "nvidia.com/gpu", "--dry-run=client", "-o", "yaml"])
    assert r.exit_code == 0, r.stderr
    pods = [d for d in yaml.safe_load_all(r.stdout) if d]
    items = pods[0]["items"] if pods and pods[0].get("kind") == "List" else pods
    assert [(p["metadata"]["labels"]["app.kubernetes.io/component"], p["spec"]["containers"][0]["image"])
            for p in items] == [("prefill", "img:1"), ("decode", "img:1"), ("decode", "img:1")]


def test_a_role_image_wins_over_the_engine_image(cli: Callable) -> None:
    r = cli(["create", "g", "--model", "m", "--target", "pods", "--local-queue", "q", "--role",
             "name=w,kind=prefill,replicas=1,image=own:2", "--engine-image", "img:1", "--resource", "nvidia.com/gpu",
             "--dry-run=client", "-o", "yaml"])
    assert r.exit_code == 0, r.stderr
    assert "own:2" in r.stdout and "img:1" not in r.stdout


def _interrupt(_s: float) -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("argv", [["queues", "--watch"]], ids=["queues"])
def test_ctrl_c_ends_a_watch_with_exit_0(cli: Callable, apiserver: Callable, monkeypatch: pytest.MonkeyPatch,
                                        argv: list[str]) -> None:
    from kubectl_pd.commands import queues as cmd

    _, env = apiserver([cluster_queue("a", {"f": "4"}, resource="nvidia.com/gpu", active=True)])
    monkeypatch.setattr(cmd, "SLEEP", _interrupt)
    r = cli(argv, env=env)
    assert r.exit_code == 0, r.stderr  # why-pending --watch's exit on Ctrl-C (commands/why_pending._watch_one)


def test_one_meaning_per_bar_symbol() -> None:
    """Reserved is '=' on both screens; '+' only ever what a pending Workload needs (why-pending)."""
    assert q_bar(figures(12, 3, 3, 0)) == "[###===......]"
    b = FlavorBar("f", "nvidia.com/gpu", Fraction(12), Fraction(3), Fraction(3), Fraction(0))
    drawn = wp_bar(b, unicode=False)
    assert drawn.count("=") == drawn.count("#") and "+" not in drawn
