"""The text of `kubectl pd tree` (kubectl-tree's layout: one object a line, box-drawing branches)."""

from __future__ import annotations

from typing import Any

STATE_WORDS = {"finished": "Finished", "admitted": "Admitted", "quota-reserved": "QuotaReserved",
               "evicted": "Evicted", "inactive": "Inactive", "pending": "Pending", "missing": "Missing",
               "unknown": "Unknown (not read)"}


def render(tree: dict[str, Any]) -> str:
    lines = [f"{_root(tree)}"]
    groups = tree.get("groups") or []
    if not groups:
        lines.append("└── (no replica groups: no Pods and no Workload yet)")
    for i, g in enumerate(groups):
        last = i == len(groups) - 1
        lines.extend(_group(g, "└── " if last else "├── ", "    " if last else "│   "))
    return "\n".join(lines) + "\n"


def _event(e: dict[str, Any] | None) -> str:
    if not e:
        return ""
    count = f" x{e['count']}" if e.get("count") and e["count"] > 1 else ""
    return f"  [{e.get('type') or 'Event'} {e.get('reason') or ''}{count}: {e.get('message') or ''}]"


def _root(t: dict[str, Any]) -> str:
    kind = {"ModelDeployment": "ModelDeployment", "PodGroup": "PodGroup", "Workload": "Workload",
            "Pod": "Pod"}.get(t["kind"], t["kind"])
    phase = f"  phase={t['phase']}" if t.get("phase") else ""
    return f"{kind}/{t['name']} (namespace {t['namespace']}){phase}{_event(t.get('event'))}"


def _group(g: dict[str, Any], head: str, pad: str) -> list[str]:
    roles = f" roles={','.join(g['roles'])}" if g.get("roles") else ""
    lines = [f"{head}ReplicaGroup/{g['name'] or '-'}{roles}"]
    kids: list[list[str]] = []
    wl = g.get("workload")
    pods = g.get("pods") or []
    if wl is not None:
        kids.append([_workload(wl)])
    kids.extend([_pod(p)] for p in pods)
    if not pods:
        kids.append(["(no Pods)"])
    for i, k in enumerate(kids):
        last = i == len(kids) - 1
        lines.append(f"{pad}{'└── ' if last else '├── '}{k[0]}")
    return lines


def _workload(w: dict[str, Any]) -> str:
    parts = [f"Workload/{w['name']}", STATE_WORDS.get(w["state"], w["state"])]
    if w.get("localQueue") or w.get("clusterQueue"):
        parts.append(f"queue={w.get('localQueue') or '?'}->{w.get('clusterQueue') or '?'}")
    if w.get("flavors"):
        parts.append(f"flavor={','.join(w['flavors'])}")
    return "  ".join(parts) + _event(w.get("event"))


def _pod(p: dict[str, Any]) -> str:
    parts = [f"Pod/{p['name']}", p.get("phase") or "Unknown"]
    if p.get("role"):
        parts.append(f"role={p['role']}")
    parts.append(f"node={p['node'] or '<none>'}")
    if p.get("gates"):
        parts.append(f"gates={','.join(p['gates'])}")
    if p.get("deleting"):
        parts.append("deleting")
    return "  ".join(parts) + _event(p.get("event"))
