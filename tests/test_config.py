import os
from pathlib import Path

import pytest
import yaml

from kubectl_pd.cluster.config import ClusterOptions, default_namespace, parse_duration, read_kubeconfig
from kubectl_pd.errors import InputError, PdError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("5s", 5), ("30", 30), ("1m30s", 90), ("500ms", 0.5), ("1h", 3600), ("0", 0), ("0s", 0), ("", None),
     ("2.5s", 2.5)],
)
def test_durations(text: str, seconds: float | None) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("bad", ["5x", "s", "-1s", "1m junk", "five", "999999999999h"])
def test_bad_durations(bad: str) -> None:
    with pytest.raises(InputError, match="--request-timeout"):
        parse_duration(bad)


def _kc(path: Path, ctx: str, ns: str | None = None, current: bool = True) -> Path:
    c = {"cluster": "c-" + ctx, "user": "u"}
    if ns:
        c["namespace"] = ns
    doc = {"apiVersion": "v1", "kind": "Config", "contexts": [{"name": ctx, "context": c}],
           "clusters": [{"name": "c-" + ctx, "cluster": {"server": "https://127.0.0.1:1"}}],
           "users": [{"name": "u", "user": {"token": "secret"}}]}
    if current:
        doc["current-context"] = ctx
    path.write_text(yaml.safe_dump(doc))
    return path


def test_kubeconfig_env_with_several_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a = _kc(tmp_path / "a", "first", "team-a")
    b = _kc(tmp_path / "b", "second", "team-b", current=False)
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(a), str(tmp_path / "missing"), str(b)]))
    merged = read_kubeconfig(ClusterOptions())
    assert [c["name"] for c in merged["contexts"]] == ["first", "second"]
    assert default_namespace(ClusterOptions()) == "team-a"
    assert default_namespace(ClusterOptions(context="second")) == "team-b"
    assert default_namespace(ClusterOptions(namespace="x", context="second")) == "x"


def test_namespace_defaults_to_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KUBECONFIG", str(_kc(tmp_path / "a", "nons")))
    assert default_namespace(ClusterOptions()) == "default"
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    assert default_namespace(ClusterOptions()) == "default"
    with pytest.raises(PdError, match="no kubeconfig found"):
        read_kubeconfig(ClusterOptions())


def test_explicit_kubeconfig_must_exist(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        read_kubeconfig(ClusterOptions(kubeconfig=str(tmp_path / "nope")))
    bad = tmp_path / "bad"
    bad.write_text("contexts: [unclosed\n")
    with pytest.raises(InputError, match="cannot be read as YAML"):
        read_kubeconfig(ClusterOptions(kubeconfig=str(bad)))
