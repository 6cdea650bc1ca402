"""The kubeconfig is read once per run, as kubectl loads it once: the live Source and the default namespace (no -n)
both ask for it (issue 38: `default_namespace` used to read and parse it a second time)."""

from __future__ import annotations

from pathlib import Path

import yaml

from kubectl_pd import memo
from kubectl_pd.cluster.config import ClusterOptions, default_namespace, read_kubeconfig


def _write(path: Path, namespace: str) -> None:
    path.write_text(yaml.safe_dump({
        "apiVersion": "v1", "kind": "Config", "current-context": "c",
        "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u", "namespace": namespace}}],
        "clusters": [{"name": "k", "cluster": {"server": "https://127.0.0.1:1"}}],
        "users": [{"name": "u", "user": {"token": "t"}}]}))


def test_one_run_reads_the_kubeconfig_once(tmp_path: Path) -> None:
    kc = tmp_path / "config"
    _write(kc, "first")
    opts = ClusterOptions(kubeconfig=str(kc))
    with memo.run():
        assert default_namespace(opts) == "first"
        _write(kc, "second")  # changed on disk during the run: the run keeps what it read
        assert default_namespace(opts) == "first"
        assert read_kubeconfig(opts) is read_kubeconfig(opts)
    with memo.run():  # the next run reads it afresh
        assert default_namespace(opts) == "second"
    _write(kc, "third")
    assert default_namespace(opts) == "third"  # outside any run nothing is kept


def test_other_files_or_flags_are_other_reads(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    _write(a, "ns-a")
    _write(b, "ns-b")
    with memo.run():
        assert default_namespace(ClusterOptions(kubeconfig=str(a))) == "ns-a"
        assert default_namespace(ClusterOptions(kubeconfig=str(b))) == "ns-b"
        assert default_namespace(ClusterOptions(kubeconfig=str(a), namespace="flag")) == "flag"
