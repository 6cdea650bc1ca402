"""`lint` against the real API server (issue 28, 4c): for each object, does the server refuse it
(`dryRun=All`, strict field validation, as `kubectl apply --dry-run=server` sends it: the CRD's schema and CEL
rules, then Kueue's webhooks), and does `lint` report an error a server here would give?

Only what runs here is compared: GPUStack's own webhook (PD2xx, PD3xx) does not run, and PD111/PD112
(a referenced flavor or check that does not exist) are refusals of Kueue's controller, not of the API
server: a finding of those rules on an object the server accepts is no false positive; an object the server
refuses counts as caught when lint reports any error on it.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.conftest import ROOT
from tests.realcluster import lintgen
from tests.realcluster.plane import Plane

MD_CRD = ROOT / "tests" / "fixtures" / "create" / "crd-per-replica-pascal.yaml"
NOT_HERE = ("PD111", "PD112")  # Kueue's controller, not the API server


def comparable(rule: str) -> bool:
    return rule not in NOT_HERE and not rule.startswith(("PD2", "PD3"))


@dataclass
class Result:
    total: int = 0
    counts: dict[str, int] = field(default_factory=lambda: {"bothRefuse": 0, "bothAccept": 0,
                                                            "falsePositive": 0, "falseNegative": 0})
    disagreements: list[dict[str, Any]] = field(default_factory=list)


class DryRun:
    """POST with dryRun=All&fieldValidation=Strict as the admin user: what `kubectl apply --dry-run=server`
    asks of the server for a new object (nothing is stored)."""

    def __init__(self, plane: Plane) -> None:
        self.server = plane.state()["server"]
        self.ctx = plane.admin_tls()

    def refuses(self, obj: dict[str, Any]) -> str | None:
        group, version = obj["apiVersion"].split("/")
        plural = obj["kind"].lower() + "s"
        ns = obj["metadata"].get("namespace")
        path = f"/apis/{group}/{version}/" + (f"namespaces/{ns}/" if ns else "") + plural
        req = urllib.request.Request(self.server + path + "?dryRun=All&fieldValidation=Strict",
                                     data=json.dumps(obj).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=30):
                return None
        except urllib.error.HTTPError as e:
            body = json.loads(e.read() or b"{}")
            if e.code == 409:  # AlreadyExists: not a refusal of the object
                return None
            return f"{e.code} {body.get('reason')}: {body.get('message')}"


def run(plane: Plane, tmp: Path, seed: int, count: int) -> Result:
    ns = plane.namespace("lint")
    objs = lintgen.generate(seed, count, ns) + fixtures(ns)
    d = tmp / "objs"
    d.mkdir()
    files = []
    for i, o in enumerate(objs):
        f = d / f"{i:04d}.yaml"
        f.write_text(yaml.safe_dump(o, sort_keys=False))
        files.append(f)
    kueue_src = Path(plane.state()["kueueSource"])
    got = plane.pd("lint", "-f", str(d), "-o", "json", "--kueue-version", plane.kueue,
                   "--crd", str(kueue_src / "config/components/crd/bases"), "--crd", str(MD_CRD), timeout=300)
    if got.returncode not in (0, 1):
        raise AssertionError(f"lint exited {got.returncode}: {got.stderr}")
    errors: dict[str, list[str]] = {}  # comparable error findings per file
    caught: dict[str, list[str]] = {}  # any error finding (a refusal reported under GPUStack's rule is caught)
    for f in json.loads(got.stdout)["findings"]:
        if f["severity"] == "error":
            caught.setdefault(Path(f["file"]).name, []).append(f"{f['id']} {f['path']}")
            if comparable(f["id"]):
                errors.setdefault(Path(f["file"]).name, []).append(f"{f['id']} {f['path']}")
    dry = DryRun(plane)
    res = Result(total=len(objs))
    for f, o in zip(files, objs, strict=True):
        refused = dry.refuses(o)
        found = caught.get(f.name, []) if refused else errors.get(f.name, [])
        key = ("bothRefuse" if found else "falseNegative") if refused else ("falsePositive" if found else
                                                                             "bothAccept")
        res.counts[key] += 1
        if key in ("falsePositive", "falseNegative"):
            res.disagreements.append({"kind": key, "server": refused, "lint": found, "object": o})
    return res


def fixtures(ns: str) -> list[dict[str, Any]]:
    """The repository's lint fixtures, each object on its own (ModelDeployments moved to NS)."""
    out = []
    for f in sorted((ROOT / "tests" / "fixtures" / "lint").glob("*.yaml")):
        for o in yaml.safe_load_all(f.read_text()):
            if not isinstance(o, dict) or "kind" not in o or o["kind"] == "CustomResourceDefinition":
                continue
            if o["kind"] == "List":
                continue
            if o.get("metadata", {}).get("namespace") is not None or o["kind"] in ("LocalQueue", "ModelDeployment"):
                o.setdefault("metadata", {})["namespace"] = ns
            o["metadata"]["name"] = f"fx-{o['metadata'].get('name', 'x')}"[:63]
            out.append(o)
    return out


def save(plane: Plane, result: Result) -> Path:
    from tests.realcluster.cases import HERE

    p = HERE / f"lint-kueue-{plane.kueue}.yaml"
    p.write_text(yaml.safe_dump({"kueue": plane.version, "counts": result.counts,
                                 "disagreements": result.disagreements}, sort_keys=False))
    return p
