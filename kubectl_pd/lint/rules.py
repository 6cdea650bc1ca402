"""The lint rules, as they live in the one registry (kubectl_pd.registry): lookups by id and name."""

from __future__ import annotations

from kubectl_pd.registry import ERROR, WARNING, Entry
from kubectl_pd.registry import RULES as _RULES

Rule = Entry
__all__ = ["ERROR", "WARNING", "Rule", "RULES", "BY_NAME", "ROLE_RULES", "all_rules", "resolve"]

RULES: dict[str, Rule] = {r.id: r for r in _RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in _RULES}

# validate_roles' rule names -> our ids
ROLE_RULES = {"roles-count": "PD301", "role-name": "PD302", "instance-type-mismatch": "PD303",
              "role-kind": "PD304", "replicas": "PD305", "accelerator-key": "PD306"}


def all_rules() -> tuple[Rule, ...]:
    return _RULES


def resolve(token: str) -> Rule | None:
    """A rule by id (`PD203`, any case) or by name (`gpustack-single-group`)."""
    t = token.strip()
    return RULES.get(t.upper()) or BY_NAME.get(t.lower())
