"""Every plain or quoted scalar in a typed kubeconfig field, read by kubectl (`kubectl config view`, which
loads and decodes the file as every kubectl command does) and by kubectl-pd: refused by both, or the same
value. The field is a boolean (`insecure-skip-tls-verify`) or a string (a context's `namespace`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_pd.cluster.config import ClusterOptions, read_kubeconfig
from kubectl_pd.errors import PdError
from tests.conftest import run_kubectl

SCALARS = [
    "true", "True", "TRUE", "tRue", "y", "Y", "yes", "yEs", "n", "N", "no", "on", "ON", "oN", "off", "false",
    '"true"', "'y'", "'no'", '""', "''", "1", "0", "-1", "+1", "1.0", "1e3", ".5", "012", "09", "0o17", "0x1f",
    "0b101", "1_000", "1:30", "2024-01-01", "2024-01-01T10:00:00Z", ".inf", "-.Inf", ".nan", "~", "null", "Null",
    "nULL", "x", "team-a", "=", "<<", "'@x'", '"\\u00e9"', "é",
]
FIELDS = {
    "boolean": ("clusters[0].cluster.insecure-skip-tls-verify", "    insecure-skip-tls-verify: {}\n", ""),
    "string": ("contexts[0].context.namespace", "", "    namespace: {}\n"),
}


def _text(field: str, scalar: str) -> str:
    _, in_cluster, in_context = FIELDS[field]
    return ("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://127.0.0.1:1\n"
            + in_cluster.format(scalar) + "contexts:\n- name: x\n  context:\n    cluster: c\n"
            + in_context.format(scalar) + "current-context: x\n")


def _value(doc: dict, field: str) -> object:
    if field == "boolean":
        return bool(doc["clusters"][0]["cluster"].get("insecure-skip-tls-verify"))
    return doc["contexts"][0]["context"].get("namespace") or ""


def kubectl_reads(path: Path, field: str) -> tuple[bool, object]:
    p = run_kubectl(["config", "view", "--raw", "-o", "json", "--kubeconfig", str(path)])
    if p.returncode != 0:
        return False, None
    return True, _value(json.loads(p.stdout), field)


def we_read(path: Path, field: str) -> tuple[bool, object]:
    try:
        doc = read_kubeconfig(ClusterOptions(kubeconfig=str(path)))
    except PdError:
        return False, None
    return True, _value(doc, field)


@pytest.mark.parametrize("field", sorted(FIELDS))
@pytest.mark.parametrize("scalar", SCALARS)
def test_scalar_read_as_kubectl_reads_it(scalar: str, field: str, tmp_path: Path) -> None:
    path = tmp_path / "kubeconfig"
    path.write_text(_text(field, scalar), encoding="utf-8")
    assert we_read(path, field) == kubectl_reads(path, field)


_PIECES = st.sampled_from(["y", "n", "0", "1", "7", "x", "e", "E", ".", "_", "-", "+", ":", "o", "b", "true",
                           "no", "inf", "nan", "~", " ", "T", "Z", "é"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(scalar=st.lists(_PIECES, min_size=1, max_size=4).map("".join).map(str.strip).filter(bool),
       field=st.sampled_from(sorted(FIELDS)))
def test_generated_scalars_read_as_kubectl_reads_them(scalar: str, field: str, tmp_path: Path) -> None:
    path = tmp_path / "generated"
    path.write_text(_text(field, scalar), encoding="utf-8")
    assert we_read(path, field) == kubectl_reads(path, field), scalar
