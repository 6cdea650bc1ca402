"""What the core returns instead of English: a sentence id and the values it names (pending/words.py, the
printer, writes the sentence). A module of its own, below everything that speaks."""

from __future__ import annotations

from typing import Any

from kubectl_pd.records import dataclass, field


@dataclass(frozen=True)
class Say:
    """Words for a printer to write, never written here: which sentence (an id of pending/words.py, the one
    place English is made) and the values it names."""

    id: str
    args: dict[str, Any] = field(default_factory=dict)


def say(id: str, **args: Any) -> Say:  # noqa: A002 - the sentence's id
    return Say(id, args)
