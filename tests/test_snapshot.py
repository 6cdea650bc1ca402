import io
import json
import sys
from pathlib import Path

import pytest

from kubectl_pd.cluster.snapshot import SnapshotSource
from kubectl_pd.errors import InputError

CQ_LIST = """\
apiVersion: v1
kind: List
items:
- apiVersion: kueue.x-k8s.io/v1beta2
  kind: ClusterQueue
  metadata:
    name: gpu
    labels:
      resource.gpustack.ai/type: instancetypes
  spec:
    resourceGroups:
    - coveredResources: ["credits.gpustack.ai/nvidia"]
      flavors:
      - name: f1
        resources:
        - name: credits.gpustack.ai/nvidia
          nominalQuota: 1600k
    - coveredResources:
      - credits.gpustack.ai/nvidia
      flavors: []
- apiVersion: kueue.x-k8s.io/v1beta1
  kind: ClusterQueue
  metadata: {name: old}
  spec: {cohort: pool}
"""


def test_list_expanded_with_lines(tmp_path: Path) -> None:
    f = tmp_path / "cq.yaml"
    f.write_text(CQ_LIST + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a, labels: {x: y}}\n")
    src = SnapshotSource.from_paths([str(f)])
    gpu = src.get("cq", "gpu")
    assert gpu is not None
    origin = src.origin(gpu)
    assert origin.file == str(f) and origin.line == 4
    assert origin.line_of(("spec", "resourceGroups", 1, "coveredResources", 0)) == 19
    assert origin.line_of(("spec", "resourceGroups", 0, "flavors", 0, "resources", 0, "nominalQuota")) == 17
    assert origin.line_of(("metadata", "labels")) == 8
    assert origin.line_of(("spec", "nope", 3)) == 10  # nearest existing ancestor
    old = src.get("ClusterQueue", "old")
    assert old is not None and old["spec"] == {"cohortName": "pool"}  # normalised
    assert src.origin(old).line_of(("spec",)) == 24
    assert [o["metadata"]["name"] for o in src.list("Pod", "a", label_selector="x=y")] == ["p"]
    assert src.list("Pod", "b") == [] and src.get("Pod", "p", "b") is None


def test_directory_recursive_and_json(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.yml").write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n")
    (tmp_path / "b.json").write_text(json.dumps(
        {"apiVersion": "v1", "kind": "NamespaceList", "items": [{"metadata": {"name": "b"}}]}, indent=1))
    (tmp_path / "notes.txt").write_text("ignored")
    src = SnapshotSource.from_paths([str(tmp_path)])
    assert sorted(o["metadata"]["name"] for o in src.list("ns")) == ["a", "b"]
    b = src.get("Namespace", "b")
    assert b is not None and b["kind"] == "Namespace" and src.origin(b).line == 5


def test_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("apiVersion: v1\nkind: Namespace\nmetadata: {name: s}\n"))
    src = SnapshotSource.from_paths(["-"])
    ns = src.get("ns", "s")
    assert ns is not None and src.origin(ns).location() == "-:1"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nkind: Pod\nmetadata: {name: [unclosed\n", "f.yaml:4: malformed YAML"),
        ("a: b\n  c: d\n", "f.yaml:2: malformed YAML"),
        ("- 1\n- 2\n", "f.yaml:1: not a Kubernetes object (a document must be a mapping, got a list)"),
        ("just text\n", "f.yaml:1: not a Kubernetes object (a document must be a mapping, got str)"),
        ("kind: Pod\nmetadata: {}\n", "f.yaml:1: not a Kubernetes object (no apiVersion)"),
        ("---\napiVersion: v1\nkind: Pod\n---\nfoo: bar\n", "f.yaml:5: not a Kubernetes object (no kind)"),
    ],
)
def test_bad_input_names_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    f = tmp_path / "f.yaml"
    f.write_text(text)
    with pytest.raises(InputError) as e:
        SnapshotSource.from_paths([str(f)])
    assert e.value.message.startswith(str(tmp_path / message.split(":")[0]) + ":" + message.split(":", 1)[1])
    assert e.value.exit_code == 2


def test_malformed_json_and_missing_file(tmp_path: Path) -> None:
    f = tmp_path / "x.json"
    f.write_text('{\n  "apiVersion": "v1",\n  "kind": \n}\n')
    with pytest.raises(InputError, match=r"x\.json:4: malformed JSON"):
        SnapshotSource.from_paths([str(f)])
    with pytest.raises(InputError, match="no such file or directory"):
        SnapshotSource.from_paths([str(tmp_path / "absent.yaml")])
    (tmp_path / "bin.yaml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        SnapshotSource.from_paths([str(tmp_path / "bin.yaml")])


def test_empty_documents_are_skipped(tmp_path: Path) -> None:
    f = tmp_path / "e.yaml"
    f.write_text("---\n---\n# only a comment\n")
    assert list(SnapshotSource.from_paths([str(f)]).all_objects()) == []


def test_scalars_anchors_and_merge_keys_read_like_yaml_safe_load(tmp_path: Path) -> None:
    import yaml

    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  labels: &l {a: '1', b: 2}\n"
        "data:\n  copy: *l\n  merged:\n    <<: *l\n    c: null\n  when: 2026-11-29\n"
        "  flags: [yes, true, 0x10, 1.5, ~]\n"
    )
    f = tmp_path / "c.yaml"
    f.write_text(text)
    src = SnapshotSource.from_paths([str(f)])
    cm = src.get("ConfigMap", "c")
    assert cm == yaml.safe_load(text)
    origin = src.origin(cm)
    assert origin.line_of(("data", "copy")) == 7
    assert origin.line_of(("data", "merged", "c")) == 8  # no index inside a `<<` merge: its key's line
    assert origin.line_of(("data", "flags", 2)) == 12
    assert origin.raw is cm
