"""The English of the run's own errors and notes that no diagnosis makes (issue "screen truth"): a bare NAME
found under no form, a refused list, an API that is not served."""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: these words load on the Tab and error paths
if TYPE_CHECKING:
    from collections.abc import Iterable

_FORM = {"ModelDeployment": "modeldeployment", "PodGroup": "pod group", "Workload": "workload"}


def bare_not_found(name: str, namespace: str, missing: list[str]) -> str:
    """NAME is neither a ModelDeployment, a pod group nor a Workload in NAMESPACE (nor, where served, what a PD
    framework makes: an LWS, a DisaggregatedSet, a Deployment, ...). MISSING: the forms tried,
    `Kind!` where the cluster does not serve that API at all."""
    parts = []
    for m in missing:
        kind = m.rstrip("!")
        parts.append(f"no {_FORM.get(kind, kind.lower())} API served" if m.endswith("!")
                     else f"no {_FORM.get(kind, kind.lower())}")
    return (f'"{name}" not found in {_where(namespace)} ({", ".join(parts)} of that name); name the form '
            f"to be sure: md/{name}, podgroup/{name}, workload/{name} or pod/NAME")


def forbidden_lists(where: str, refusals: list[str]) -> str:
    """Every list that would show the pending targets of WHERE was refused: nothing can be said of them."""
    return (f"cannot tell what is pending in {where}: {'; '.join(refusals)}")


def _where(namespace: str) -> str:
    return namespace if namespace.startswith("any namespace") else f'namespace "{namespace}"'


def list_read(kind: str, namespace: str | None) -> str:
    """A run's list, named for `incomplete[].read`: `list of Workloads in namespace "a"`, `... in every namespace`."""
    return f"list of {kind}s " + (f'in namespace "{namespace}"' if namespace else "in every namespace")


def not_in_snapshot(kind: str, name: str, files: tuple[str, ...]) -> str:
    """-f with no -n: no namespace of the snapshot holds the target."""
    what = {"ModelDeployment": "modeldeployment", "PodGroup": "pod group"}.get(kind, kind.lower())
    return f'{what} "{name}" not found in any namespace of the snapshot ({", ".join(files)})'


def ambiguous_in_snapshot(name: str, namespaces: list[str]) -> str:
    """-f with no -n: several namespaces of the snapshot hold the target."""
    return f"{name} exists in namespaces {', '.join(namespaces)} of the snapshot: choose one with -n"


WORKER_HEADER = "WORKER"  # why-pending's list (no TARGET): the column after ROLE (pending/placements.py)


def nothing_pending(where: str) -> str:
    """No target is pending in WHERE (`namespace NS`, `any namespace`): why-pending's list and -A --watch."""
    return f"No pending deployments, pod groups or Workloads in {where}."


def incomplete(rows: Iterable[tuple[str, str]]) -> list[dict[str, str]]:
    """A document's `incomplete[]` from its (what was not read, why) rows: every command's, built in one place."""
    return [{"read": what, "error": why} for what, why in rows]


def could_not_read(rows: Iterable[tuple[str, str]]) -> str:
    """The rows of `incomplete[]` as one error's clause: `could not read WHAT: WHY; ...`."""
    return "could not read " + "; ".join(f"{what}: {why}" for what, why in rows)
