"""`kubectl pd capacity`'s shapes as the issue lists them: `--manifest` takes a pod group's Pods (as `create --target
pods -o yaml` writes them) as well as a ModelDeployment; `--target pods` by flags needs no image (capacity weighs
what the Pods request, not what they run)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.create.flags import CreateRequest, check_request, parse_role
from kubectl_pd.create.pods import render_pods
from tests.builders import CREDITS, resource_flavor
from tests.test_capacity_count import NS, pool

TEXTS = ("name=prefill,kind=prefill,replicas=1,image=e:1,accelerator=2", "name=decode,kind=decode,replicas=2,image=e:1")


def _pods(name: str = "qwen") -> list[dict[str, Any]]:
    req = CreateRequest(name=name, namespace=NS, model="m", roles=tuple(parse_role(t) for t in TEXTS), target="pods",
                        local_queue="pool-lq")
    roles = check_request(req).roles
    return render_pods(req, roles, {r.name: "pool-lq" for r in roles}, {r.name: CREDITS for r in roles})


def _files(tmp_path: Path, manifest: list[dict[str, Any]]) -> tuple[str, str]:
    snap, man = tmp_path / "snap.json", tmp_path / "man.yaml"
    snap.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [*pool("pool", {"h20": 13}), resource_flavor("h20")]}))
    man.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": manifest}))
    return str(snap), str(man)


def test_a_pod_group_manifest_is_weighed_as_its_flags(cli: Callable, tmp_path: Path) -> None:
    snap, man = _files(tmp_path, _pods())
    by_manifest = cli(["capacity", "--manifest", man, "-n", NS, "-f", snap, "-o", "json"])
    assert by_manifest.exit_code == 0, by_manifest.stderr
    got = json.loads(by_manifest.stdout)
    by_flags = json.loads(cli(["capacity", "--target", "pods", "--local-queue", "pool-lq", "-n", NS, "-f", snap,
                               *[x for t in TEXTS for x in ("--role", t)], "-o", "json"]).stdout)
    assert (got["target"]["kind"], got["target"]["name"], got["now"]) == ("PodGroup", "qwen", 3)
    assert got["perRole"] == by_flags["perRole"] and got["now"] == by_flags["now"]


@pytest.mark.parametrize("manifest", [[], [*_pods("a"), *_pods("b")]], ids=["nothing", "two-groups"])
def test_a_manifest_of_neither_is_one_error(cli: Callable, tmp_path: Path, manifest: list[dict[str, Any]]) -> None:
    snap, man = _files(tmp_path, manifest)
    r = cli(["capacity", "--manifest", man, "-n", NS, "-f", snap])
    assert r.exit_code == 1 and r.stderr.startswith("error: --manifest ") and r.stderr.count("\n") == 1


def test_target_pods_by_flags_needs_no_image(cli: Callable, tmp_path: Path) -> None:
    snap, _ = _files(tmp_path, [])
    r = cli(["capacity", "--target", "pods", "--local-queue", "pool-lq", "-n", NS, "-f", snap, "--prefill", "1",
             "--decode", "2", "-o", "json"])
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["now"] == 4
