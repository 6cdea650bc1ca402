"""Untrusted text never reaches the terminal raw (issue 30, item 4; kubectl since CVE-2021-25743).

OSC 52 (clipboard), CSI clear-screen, colour, CR (overwrite the line) and an 8-bit CSI are planted in a
Kueue message, an Event note, an object's name and label, and a linted file's values; why-pending (text,
live and from a snapshot) and lint (text, --diff) show them escaped; -o json and -o yaml keep the data
exact and stay valid. Real subprocess runs (and the loopback server for live)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.apiserver import FakeApiServer
from tests.conftest import FIXTURES

ROOT = Path(__file__).parent.parent
EVIL = "x\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[32mADMITTED\x1b[0m\rok\x9b2J\x08\x7f"
RAW = ("\x1b", "\x07", "\r", "\x9b", "\x08")


def _run(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **(env or {})}
    full.pop("NO_COLOR", None)
    return subprocess.run([sys.executable, "-m", "kubectl_pd", *args], capture_output=True, text=True,
                          timeout=60, env=full)


def _raw(text: str) -> list[str]:
    return [c for c in RAW if c in text]


def _pending_snapshot(tmp_path: Path) -> Path:
    docs = [d for d in yaml.safe_load_all((FIXTURES / "pending/quota-exhausted.yaml").read_text()) if d]
    for doc in docs:
        items = doc.get("items") if doc.get("kind", "").endswith("List") else [doc]
        for obj in items or []:
            meta = obj.setdefault("metadata", {})
            meta.setdefault("labels", {})["evil"] = EVIL
            for cond in (obj.get("status") or {}).get("conditions") or []:
                if cond.get("message"):
                    cond["message"] = cond["message"] + " " + EVIL
            if obj.get("kind") == "Event":
                obj["message"] = obj.get("message", "") + " " + EVIL
                obj["note"] = EVIL
    path = tmp_path / "snapshot.yaml"
    path.write_text(yaml.safe_dump_all(docs, allow_unicode=False))
    return path


def _lint_file(tmp_path: Path) -> Path:
    text = (ROOT / "examples/lint/gpustack-split-queue.yaml").read_text()
    planted = json.dumps("gpustack-" + EVIL)  # a JSON string is a YAML double-quoted scalar
    text = text.replace("name: gpustack--nvidia-h20-linux-amd64", f"name: {planted}", 1)
    path = tmp_path / "queues.yaml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("args", [[], ["--diff"], ["-o", "github"]], ids=["text", "diff", "github"])
def test_lint_text_shows_planted_escapes_escaped(tmp_path: Path, args: list[str]) -> None:
    r = _run(["lint", "-f", str(_lint_file(tmp_path)), *args])
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert _raw(r.stdout + r.stderr) == []
    if args != ["-o", "github"]:
        assert "^[]52;c;ZXZpbA==^G" in r.stdout  # shown, not dropped: as kubectl shows ESC


@pytest.mark.parametrize("fmt", ["json", "yaml"])
def test_lint_json_and_yaml_keep_the_data_exact(tmp_path: Path, fmt: str) -> None:
    r = _run(["lint", "-f", str(_lint_file(tmp_path)), "-o", fmt])
    assert r.returncode == 1 and _raw(r.stdout) == []
    doc = json.loads(r.stdout) if fmt == "json" else yaml.safe_load(r.stdout)
    names = {f["object"]["name"] for f in doc["findings"]}
    assert names == {"gpustack-" + EVIL}


def test_why_pending_from_a_snapshot(tmp_path: Path) -> None:
    snap = _pending_snapshot(tmp_path)
    for args in (["qwen-pd", "-n", "team-a"], ["-A"], ["qwen-pd", "-n", "team-a", "-o", "wide"]):
        r = _run(["why-pending", *args, "--from-file", str(snap)])
        assert "Traceback" not in r.stderr, r.stderr
        assert _raw(r.stdout + r.stderr) == [], (args, r.stdout)
    r = _run(["why-pending", "qwen-pd", "-n", "team-a", "--from-file", str(snap)])
    assert "^[" in r.stdout  # the Kueue message is printed, escaped
    for fmt in ("json", "yaml"):
        r = _run(["why-pending", "qwen-pd", "-n", "team-a", "-o", fmt, "--from-file", str(snap)])
        assert _raw(r.stdout) == []
        assert (json.loads(r.stdout) if fmt == "json" else yaml.safe_load(r.stdout))  # still valid


def test_why_pending_live(tmp_path: Path) -> None:
    snap = _pending_snapshot(tmp_path)
    objs = [o for d in yaml.safe_load_all(snap.read_text()) if d
            for o in (d.get("items") if d.get("kind", "").endswith("List") else [d])]
    server = FakeApiServer(objects=objs).start()
    try:
        kc = server.write_kubeconfig(tmp_path / "kc")
        for args in (["qwen-pd", "-n", "team-a"], ["-A"]):
            r = _run(["why-pending", *args, "--request-timeout", "10s"], env={"KUBECONFIG": str(kc)})
            assert "Traceback" not in r.stderr
            assert _raw(r.stdout + r.stderr) == [], r.stdout
        r = _run(["why-pending", "-A", "-o", "json", "--request-timeout", "10s"], env={"KUBECONFIG": str(kc)})
        assert r.returncode in (0, 1) and _raw(r.stdout) == []
        json.loads(r.stdout)
    finally:
        server.stop()


def test_a_planted_object_name_on_the_command_line_is_escaped_in_errors(tmp_path: Path) -> None:
    r = _run(["why-pending", EVIL, "-n", "team-a", "--from-file", str(FIXTURES / "pending/quota-exhausted.yaml")])
    assert r.returncode != 0 and _raw(r.stderr) == [] and "Traceback" not in r.stderr


def test_the_neutraliser_is_keeps_our_own_colour_only_on_a_terminal() -> None:
    from kubectl_pd import termsafe

    assert termsafe.clean(EVIL) == "x^[]52;c;ZXZpbA==^G^[[2J^[[32mADMITTED^[[0m\\rok\\u009b2J^H\x7f"
    kept = termsafe.clean(f"{termsafe.sgr(31)}red{termsafe.sgr(0)} \x1b]52;c;x\x07", ours=True)
    assert kept == "\x1b[31mred\x1b[0m ^[]52;c;x^G"
    assert json.loads(termsafe.clean(json.dumps({"a": "\x9b\x1b"}, ensure_ascii=False))) == {"a": "\x9b\x1b"}
