"""Views over one list of findings: text lines, JSON/YAML data, SARIF 2.1.0, and unified diffs."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable
from typing import Any

from kubectl_pd import __version__
from kubectl_pd.contract import LINT
from kubectl_pd.lint.engine import LintResult
from kubectl_pd.lint.findings import Finding, ObjectRef
from kubectl_pd.lint.rules import ERROR, all_rules

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
Style = Callable[[str, str], str]  # (text, role) -> text; role: error | warning | dim | bold


def plain(text: str, role: str) -> str:
    return text


def object_label(ref: ObjectRef) -> str:
    """`ClusterQueue/NAME`; namespaced objects as `ModelDeployment/NS/NAME`."""
    return f"{ref.kind}/{ref.namespace}/{ref.name}" if ref.namespace else f"{ref.kind}/{ref.name}"


def location(f: Finding) -> str:
    if f.file is None or f.file == "cluster" or f.line is None:
        return f.file or "cluster"
    return f"{f.file}:{f.line}"


def text_line(f: Finding, style: Style = plain) -> str:
    sev = style(f.severity, f.severity)
    return (f"{location(f)}: {sev} {style(f.rule_id, 'bold')} {f.rule.name} {object_label(f.obj)} "
            f"{f.path_text}: {f.message}")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def summary_line(result: LintResult) -> str:
    kinds = ", ".join(_plural(n, k) for k, n in sorted(result.linted.items()))
    objects = _plural(sum(result.linted.values()), "object") + (f" ({kinds})" if kinds else "")
    if result.findings:
        head = f"{_plural(result.errors, 'error')}, {_plural(result.warnings, 'warning')} in {objects}"
    else:
        head = f"no findings in {objects}"
    tail = ""
    if result.suppressed:
        tail += f"; {result.suppressed} suppressed"
    if result.baselined:
        tail += f"; {result.baselined} in the baseline"
    if result.unchecked:
        tail += f"; {_plural(len(result.unchecked), 'CEL rule check')} could not run (see the notes)"
    if result.unjudged:
        tail += f"; {_plural(len(result.unjudged), 'group fit')} not judged (see the notes)"
    if result.unread:
        tail += f"; {_plural(len(result.unread), 'read')} refused: that part is unknown (see the notes)"
    if result.skipped:
        skipped = ", ".join(f"{n} {k}" for k, n in sorted(result.skipped.items()))
        tail += f"; {_plural(sum(result.skipped.values()), 'object')} of other kinds skipped ({skipped})"
    return head + tail


def render_text(result: LintResult, style: Style = plain) -> str:
    lines = [text_line(f, style) for f in result.findings]
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"


def finding_data(f: Finding) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": f.rule_id,
        "rule": f.rule.name,
        "severity": f.severity,
        "object": f.obj.as_dict(),
        "file": f.file,
        "line": f.line,
        "path": f.path_text,
        "message": f.message,
    }
    if f.kueue_message:
        data["kueueMessage"] = f.kueue_message
    if f.extra:
        data["params"] = f.extra  # the rule's evidence as data, for tools that do not read English
    return data


def render_data(result: LintResult) -> dict[str, Any]:
    """The `-o json|yaml` document."""
    return {"schemaVersion": LINT, "findings": [finding_data(f) for f in result.findings], "summary": result.summary()}


def _level(severity: str) -> str:
    return "error" if severity == ERROR else "warning"


def render_sarif(result: LintResult) -> dict[str, Any]:
    """One SARIF 2.1.0 run: every rule declared with its help, every finding a result with a location."""
    rules = list(all_rules())
    index = {r.id: i for i, r in enumerate(rules)}
    driver = {
        "name": "kubectl-pd",
        "semanticVersion": __version__,
        "rules": [
            {
                "id": r.id,
                "name": r.name,
                "shortDescription": {"text": r.summary},
                "fullDescription": {"text": f"{r.summary} Applies to: {r.applies_to}."},
                "help": {"text": r.remediation, "markdown": f"**{r.id} {r.name}**: {r.remediation}"},
                "defaultConfiguration": {"level": _level(r.severity)},
                "properties": {"tags": [r.applies_to]},
            }
            for r in rules
        ],
    }
    results = []
    for f in result.findings:
        region = {"startLine": f.line} if f.line else None
        physical: dict[str, Any] = {"artifactLocation": {"uri": f.file or "cluster"}}
        if region:
            physical["region"] = region
        results.append({
            "ruleId": f.rule_id,
            "ruleIndex": index[f.rule_id],
            "level": _level(f.severity),
            "message": {"text": f"{f.path_text}: {f.message}"},
            "locations": [{
                "physicalLocation": physical,
                "logicalLocations": [{"fullyQualifiedName": f"{object_label(f.obj)}/{f.path_text}",
                                      "kind": "object"}],
            }],
        })
    return {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [{"tool": {"driver": driver}, "results": results}]}


def unified_diff(before: str, after: str, label: str) -> str:
    """`diff -u` of one object's YAML, labelled like `kubectl diff` does (a/ and b/)."""
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=f"a/{label}", tofile=f"b/{label}")
    return "".join(lines)


def join_documents(docs: Iterable[str]) -> str:
    return "".join(("---\n" if i else "") + d for i, d in enumerate(docs))


def render_junit(result: LintResult) -> str:
    """JUnit XML: one test case per object and rule that fired (a failure), one passing case per clean object.

    CI systems (GitLab, Jenkins, Azure) show each case; `classname` is the object, `name` the rule.
    """
    from xml.etree import ElementTree as ET

    by_obj: dict[tuple[ObjectRef, str | None], dict[str, list[Finding]]] = {}
    for f in result.findings:  # keyed by file too: two files may hold a queue of the same name
        by_obj.setdefault((f.obj, f.file), {}).setdefault(f.rule_id, []).append(f)
    suite = ET.Element("testsuite", name="kubectl-pd lint")
    failures = tests = 0
    for ref, file in result.objects:
        rules = by_obj.pop((ref, file), {})
        label = object_label(ref)
        if not rules:
            tests += 1
            ET.SubElement(suite, "testcase", classname=label, name="lint", file=file or "cluster")
            continue
        for rid, found in rules.items():
            tests += 1
            failures += 1
            first = found[0]
            case = ET.SubElement(suite, "testcase", classname=label, name=f"{rid} {first.rule.name}",
                                 file=first.file or "cluster")
            if first.line:
                case.set("line", str(first.line))
            fail = ET.SubElement(case, "failure", message=f"{first.path_text}: {first.message}",
                                 type=first.severity)
            fail.text = "\n".join(text_line(f) for f in found)
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("errors", "0")
    root = ET.Element("testsuites", name="kubectl-pd", tests=str(tests), failures=str(failures))
    root.append(suite)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _gh_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(text: str) -> str:
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: LintResult) -> str:
    """GitHub Actions workflow commands: `::error file=F,line=N,title=ID name::path: message` per finding."""
    lines = []
    for f in result.findings:
        props = []
        if f.file and f.file != "cluster":
            props.append(f"file={_gh_prop(f.file)}")
            if f.line:
                props.append(f"line={f.line}")
        props.append(f"title={_gh_prop(f'{f.rule_id} {f.rule.name} {object_label(f.obj)}')}")
        level = "error" if f.severity == ERROR else "warning"
        lines.append(f"::{level} {','.join(props)}::{_gh_data(f'{f.path_text}: {f.message}')}")
    lines.append(summary_line(result))
    return "\n".join(lines) + "\n"
