"""Issue 37 item 2, one set of figures per screen, held as a property over every pending fixture and every
"screen truth" state: the headline is the first reason; no `next:` is said twice; one free figure per flavor (a
reason's `available` is the bar's free, or free plus what the cohort may lend); the flavor a blocked role is named
in by its reason is its table row's; a NeedsPreemption verdict names its targets or says why they are unknown."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from kubectl_pd.kueue.quantity import parse
from tests import screen_cases as sc

FIX = Path(__file__).parent / "fixtures" / "pending"
STATES = {"charged-in-order": sc.charged_in_order, "all-deleting": sc.all_deleting, "lent-away": sc.lent_away,
          "over-every-flavor": sc.over_every_flavor, "retried-from-another-flavor": sc.retried_from_another_flavor}
QUOTA = ("QuotaExhausted", "NeedsPreemption", "QuotaExceedsCapacity")


def _targets(path: str, cli: Any) -> list[tuple[str, str]]:
    r = cli(["why-pending", "-A", "-f", path, "-o", "json"])
    doc = json.loads(r.stdout) if r.stdout.strip() else {"items": []}
    kinds = {"ModelDeployment": "md", "PodGroup": "podgroup", "Workload": "workload", "LeaderWorkerSet": "lws",
             "DisaggregatedSet": "ds", "Deployment": "deploy", "StatefulSet": "sts", "LLMInferenceService": "llmisvc"}
    return list(dict.fromkeys((f"{kinds[i['target']['kind']]}/{i['target']['name']}", i["target"]["namespace"])
                              for i in doc["items"]))  # a framework's groups: one row each, one target


def _inputs(tmp: Path) -> list[str]:
    out = sorted(str(p) for p in FIX.glob("*.yaml"))
    for name, make in STATES.items():
        p = tmp / f"{name}.yaml"
        p.write_text(yaml.safe_dump(make()))
        out.append(str(p))
    return out


def _q(text: str | None) -> Fraction | None:
    return None if text is None else parse(text)


def check_screen(doc: dict[str, Any], text: str) -> list[str]:
    """What breaks the property on one screen (its -o json and its text), as short codes."""
    bad = []
    reasons = doc["reasons"]
    head = text.splitlines()[0] if text else ""
    if reasons and f"({reasons[0]['code']})" not in head and doc["pending"]:
        bad.append("headline-not-first-reason")
    nexts = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("next:")]
    if len(nexts) != len(set(nexts)):
        bad.append("next-repeated")
    bars = {(b["flavor"], b["resource"]): b for b in doc.get("quota") or []}
    for r in reasons:
        b = bars.get((r.get("flavor"), r.get("resource")))
        if r["code"] in ("QuotaExhausted", "NeedsPreemption") and b is not None and r.get("available") is not None:
            free, avail = _q(b["free"]), _q(r["available"])
            lend = _q(b.get("borrowable")) or Fraction(0)
            if avail not in (free, (free or 0) + lend) and not r.get("params", {}).get("previous"):
                bad.append(f"two-free-figures:{r['flavor']}")
    rows = {row["name"]: row for row in doc.get("roles") or []}
    for r in reasons:
        row = rows.get(r.get("role") or "")
        if r["code"] in QUOTA and row and row.get("verdict") == "blocked" \
                and r.get("flavor") and row.get("flavor") and r["flavor"] not in row["flavor"].split(","):
            bad.append(f"flavor-disagrees:{r['role']}")
    first = reasons[0] if reasons else {}
    if first.get("code") in QUOTA and first.get("flavor") and len(reasons) == 1:
        named = {m.group(1) for ln in nexts for m in re.finditer(r"in flavor (\S+)", ln)}
        if named - {first["flavor"]}:
            bad.append("next-names-another-flavor")
    if reasons and reasons[0]["code"] == "NeedsPreemption" and doc["pending"]:
        p = doc.get("preemption")
        if p is None:
            bad.append("needs-preemption-names-nothing")
        elif p.get("targets") == []:  # W8: "fits only by preempting", then "Would preempt: nothing"
            bad.append("needs-preemption-preempts-nothing")
    return bad


def test_one_set_of_figures_on_every_screen(cli: Any, tmp_path: Path) -> None:
    broken: dict[str, list[str]] = {}
    seen = 0
    for path in _inputs(tmp_path):
        for target, ns in _targets(path, cli):
            j = cli(["why-pending", target, "-n", ns, "-f", path, "-o", "json"])
            t = cli(["why-pending", target, "-n", ns, "-f", path])
            if j.exit_code != 0 or t.exit_code != 0:
                continue  # an incomplete diagnosis says so and exits 1: nothing is claimed
            seen += 1
            bad = check_screen(json.loads(j.stdout), t.stdout)
            if bad:
                broken[f"{Path(path).stem}:{target}"] = bad
    assert seen >= 40
    assert not broken, broken


@pytest.mark.parametrize("bad", ["headline-not-first-reason", "next-repeated"])
def test_the_property_sees_a_broken_screen(bad: str) -> None:
    doc = {"pending": True, "reasons": [{"code": "QuotaExhausted"}], "quota": [], "roles": []}
    text = {"headline-not-first-reason": "PENDING  x is pending (NeedsPreemption): y",
            "next-repeated": "PENDING  x (QuotaExhausted)\n  next: a\n  next: a"}[bad]
    assert bad in check_screen(doc, text)
