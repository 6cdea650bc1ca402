"""The English of `kubectl pd snapshot`: what was written, and what could not be read."""

from __future__ import annotations

from typing import Any


def written(path: str, counts: dict[str, int], header: dict[str, Any]) -> str:
    unread = len(header.get("failed") or [])
    tail = f"; {unread} read(s) failed (listed in the header)" if unread else ""
    return (f"snapshot written to {path}: {counts['objects']} objects, {counts['redacted']} values redacted, "
            f"{counts.get('dropped', 0)} fields dropped{tail}; "
            f"replay with: kubectl pd why-pending{_replay_args(header)} -f {path}")


def _replay_args(header: dict[str, Any]) -> str:
    if header.get("target"):
        return f" {header['target']} -n {header['namespace']}"
    if header.get("allNamespaces"):
        return " -A"
    return f" -n {header['namespace']}"


def unread_warnings(header: dict[str, Any]) -> list[str]:
    """The warnings (each a `warning:` line on stderr) of the reads that failed."""
    lines = [f"the diagnosis rests on a read that failed: {u['read']}: {u['error']}"
             for u in header.get("unread") or []]
    for f in header.get("failed") or []:
        what = f.get("path") or " ".join(str(f[k]) for k in ("kind", "namespace", "name") if f.get(k))
        lines.append(f"could not {f.get('verb', 'read')} {what}: {f.get('refusal') or f['message']}")
    return lines


def not_ours(path: str, entries: list[str]) -> str:
    shown = ", ".join(entries[:5]) + (f" and {len(entries) - 5} more" if len(entries) > 5 else "")
    return (f"{path} holds files that are not a kubectl-pd snapshot's ({shown}): a replay would read them as the "
            f"cluster's; write the snapshot into an empty or new directory")


def not_a_directory(path: str) -> str:
    return f"{path} is not a directory (a path ending in / names a directory)"
