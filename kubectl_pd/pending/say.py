"""What the core returns instead of English: a sentence id and the values it names (pending/words.py, the
printer, writes the sentence). A module of its own, below everything that speaks."""

from __future__ import annotations

from typing import Any, Literal

from kubectl_pd.records import dataclass, field


@dataclass(frozen=True)
class Say:
    """Words for a printer to write, never written here: which sentence (an id of pending/words.py, the one
    place English is made) and the values it names."""

    id: str
    args: dict[str, Any] = field(default_factory=dict)


def say(id: str, **args: Any) -> Say:  # noqa: A002 - the sentence's id
    return Say(id, args)


# What a read was for, when it is not a plain GET or list of its kind (a printer says each its own way)
ReadPurpose = Literal["get", "list", "events", "pod-workload", "cohort-peers", "flavor-nodes", "ahead",
                      "pending-workloads", "raw"]


@dataclass(frozen=True)
class Read:
    """A read described without words, for the notes and errors that say it failed: the kind read, the
    object's name (for "flavor-nodes" the flavor's, for "pending-workloads" the ClusterQueue's, for "raw"
    the path), the namespace when it is part of what is said, and what the read was for."""

    kind: str
    name: str = ""
    namespace: str | None = None
    purpose: ReadPurpose = "get"
