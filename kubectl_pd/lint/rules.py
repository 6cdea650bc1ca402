"""The lint rules, as they live in the one registry (kubectl_pd.registry): lookups by id and name."""

from __future__ import annotations

from typing import Literal

from kubectl_pd.gpustack.roles import RoleRule
from kubectl_pd.registry import ERROR, WARNING, Entry
from kubectl_pd.registry import RULES as _RULES

Rule = Entry
__all__ = ["ERROR", "WARNING", "Rule", "RuleId", "RULES", "BY_NAME", "ROLE_RULES", "all_rules", "resolve"]

# The registry's lint rule ids, for a type checker (tests/test_lint_rules.py holds the two equal)
RuleId = Literal[
    "PD101", "PD102", "PD103", "PD104", "PD105", "PD106", "PD107", "PD108", "PD109", "PD110", "PD111", "PD112", "PD113",
    "PD201", "PD202", "PD203",
    "PD301", "PD302", "PD303", "PD304", "PD305", "PD306", "PD307", "PD308", "PD309", "PD310", "PD311", "PD312",
    "PD313", "PD314", "PD315", "PD316", "PD317", "PD318", "PD319", "PD320", "PD321", "PD322",
    "PD401", "PD402", "PD403", "PD404", "PD405", "PD406", "PD407", "PD408", "PD409", "PD410", "PD411", "PD412",
    "PD413", "PD414", "PD415", "PD416",
    "PD501", "PD502",
]

RULES: dict[str, Rule] = {r.id: r for r in _RULES}
BY_NAME: dict[str, Rule] = {r.name: r for r in _RULES}

# validate_roles' rule names -> our ids
ROLE_RULES: dict[RoleRule, RuleId] = {"roles-count": "PD301", "role-name": "PD302", "instance-type-mismatch": "PD303",
              "role-kind": "PD304", "replicas": "PD305", "accelerator-key": "PD306"}


def all_rules() -> tuple[Rule, ...]:
    return _RULES


def resolve(token: str) -> Rule | None:
    """A rule by id (`PD203`, any case) or by name (`gpustack-single-group`)."""
    t = token.strip()
    return RULES.get(t.upper()) or BY_NAME.get(t.lower())
