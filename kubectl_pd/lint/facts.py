"""Kueue 0.18/0.19 facts as data, for when no CRD is at hand: enums, name rules, CEL messages, limits.

Read from config/components/crd/bases/kueue.x-k8s.io_clusterqueues.yaml and _cohorts.yaml (identical
in v0.18.4 and v0.19.2 for these fields) and pkg/webhooks/common.go; the name checks follow
apimachinery's IsQualifiedName, IsDNS1123Subdomain and IsValidLabelValue, with their wording.
"""

from __future__ import annotations

import re
from fractions import Fraction

NAME_MAX = 253
SUBDOMAIN_PATTERN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
SUBDOMAIN_RE = re.compile(SUBDOMAIN_PATTERN)

# x-kubernetes-validations messages (the CRD's CEL rules)
PREEMPTION_CEL = "reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never"
FUNGIBILITY_CEL = "preference can only be set when both whenCanBorrow and whenCanPreempt are TryNextFlavor"

MIN_WEIGHT = Fraction(1, 10**9)  # fairSharing.weight: 0 < w <= 1n is refused

_ENUMS_V1BETA2: dict[str, tuple[str, ...]] = {
    "queueingStrategy": ("StrictFIFO", "BestEffortFIFO"),
    "stopPolicy": ("None", "Hold", "HoldAndDrain"),
    "preemption.reclaimWithinCohort": ("Never", "LowerPriority", "Any"),
    "preemption.withinClusterQueue": ("Never", "LowerPriority", "LowerOrNewerEqualPriority"),
    "preemption.borrowWithinCohort.policy": ("Never", "LowerPriority"),
    "flavorFungibility.whenCanBorrow": ("MayStopSearch", "TryNextFlavor"),
    "flavorFungibility.whenCanPreempt": ("MayStopSearch", "TryNextFlavor"),
    "flavorFungibility.preference": ("BorrowingOverPreemption", "PreemptionOverBorrowing"),
    "admissionScope.admissionMode": ("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing"),
    "concurrentAdmissionPolicy.migration.mode": ("TryPreferredFlavors", "RetainFirstAdmission"),
}
# v1beta1 keeps the old fungibility words and has no enum on admissionMode
_ENUMS_V1BETA1: dict[str, tuple[str, ...]] = {
    **{k: v for k, v in _ENUMS_V1BETA2.items() if k != "admissionScope.admissionMode"},
    "flavorFungibility.whenCanBorrow": ("MayStopSearch", "TryNextFlavor", "Borrow"),
    "flavorFungibility.whenCanPreempt": ("MayStopSearch", "TryNextFlavor", "Preempt"),
}


def enums(version: str) -> dict[str, tuple[str, ...]]:
    """Enum fields of a ClusterQueue spec (dotted, below `spec`) for a served version."""
    return _ENUMS_V1BETA1 if version == "v1beta1" else _ENUMS_V1BETA2


# (kind, version) -> spec fields that version does not have, with what to write instead
UNKNOWN_FIELDS: dict[tuple[str, str], dict[str, str]] = {
    ("ClusterQueue", "v1beta1"): {"cohortName": "v1beta1 calls it spec.cohort; without it the queue has no cohort"},
    ("ClusterQueue", "v1beta2"): {"cohort": "v1beta2 calls it spec.cohortName; without it the queue has no cohort"},
    ("Cohort", "v1beta1"): {"parent": "the parent is spec.parentName (parent was v1alpha1); without it the "
                                      "Cohort has no parent"},
    ("Cohort", "v1beta2"): {"parent": "the parent is spec.parentName (parent was v1alpha1); without it the "
                                      "Cohort has no parent"},
}

_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_NAME_RE = re.compile(f"^{_NAME_FMT}$")
_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
             "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
             f"'{_NAME_FMT}')")
_DNS_FMT = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*"
_DNS_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and "
            f"must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
            f"'{_DNS_FMT}')")
_VALUE_FMT = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?"
_VALUE_RE = re.compile(f"^{_VALUE_FMT}$")
_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
              "must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "
              f"regex used for validation is '{_VALUE_FMT}')")


def qualified_name_errors(value: str) -> list[str]:
    """apimachinery's IsQualifiedName (resource names, label keys): its messages, empty when valid."""
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
        out: list[str] = []
    elif len(parts) == 2:
        prefix, name = parts
        out = ["prefix part must be non-empty"] if not prefix else [
            "prefix part " + m for m in subdomain_errors(prefix)]
    else:
        return [f"a qualified name {_NAME_MSG} with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"]
    if not name:
        out.append("name part must be non-empty")
    elif len(name) > 63:
        out.append("name part must be no more than 63 characters")
    if name and not _NAME_RE.match(name):
        out.append(f"name part {_NAME_MSG}")
    return out


def subdomain_errors(value: str) -> list[str]:
    out = []
    if len(value) > NAME_MAX:
        out.append(f"must be no more than {NAME_MAX} characters")
    if not SUBDOMAIN_RE.match(value):
        out.append(_DNS_MSG)
    return out


def label_value_errors(value: object) -> list[str]:
    """apimachinery's IsValidLabelValue."""
    text = value if isinstance(value, str) else str(value)
    out = []
    if len(text) > 63:
        out.append("must be no more than 63 characters")
    if not _VALUE_RE.match(text):
        out.append(_VALUE_MSG)
    return out
