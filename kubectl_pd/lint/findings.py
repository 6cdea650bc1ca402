"""What a check reports: a Finding names a rule, an object, a field path and a message."""

from __future__ import annotations

from typing import Any

from kubectl_pd.lint.rules import RULES, Rule, RuleId
from kubectl_pd.records import dataclass, field

PathT = tuple[str | int, ...]


@dataclass(frozen=True)
class ObjectRef:
    kind: str
    name: str
    namespace: str | None = None

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "name": self.name, "namespace": self.namespace}


@dataclass(frozen=True)
class Finding:
    """One rule violation. `message` starts with Kueue's own text when the finding's path is where
    Kueue reports it; `kueue_message` is Kueue's whole line (path included) when one exists."""

    rule_id: RuleId
    obj: ObjectRef
    path: PathT
    message: str
    kueue_message: str | None = None
    file: str | None = None
    line: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def rule(self) -> Rule:
        return RULES[self.rule_id]

    @property
    def severity(self) -> str:
        return self.rule.severity

    @property
    def path_text(self) -> str:
        return format_path(self.path)


def format_path(path: PathT) -> str:
    """("spec", "resourceGroups", 1, "coveredResources", 0) -> spec.resourceGroups[1].coveredResources[0]"""
    out = ""
    for step in path:
        if isinstance(step, int):
            out += f"[{step}]"
        else:
            out += ("." if out else "") + step
    return out

