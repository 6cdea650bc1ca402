"""The krew release: manifest rules, one reproducible archive per platform whose sha256 the manifest
carries, and a launcher with its zip of code that runs with nothing but Python (no site-packages),
directly and through the
real kubectl, with PyYAML's C loader for its platform and the completion bridge's fast path.

The archives are built once per session by scripts/build-release in a copy of the tree (the build
rewrites krew-manifest.yaml; the work tree is left alone). It downloads pinned wheels from PyPI.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.apiserver import TOKEN
from tests.builders import namespace
from tests.conftest import kubectl_binary

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "tests" / "fixtures" / "release" / "clusterqueue.yaml"
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
PLATFORMS = ("linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64")
# this machine's krew platform: the archive the tests unpack and run
HOST = {"Linux": "linux", "Darwin": "darwin"}.get(platform.system(), "?") + "/" + \
    {"x86_64": "amd64", "AMD64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine(), "?")
# CPython versions whose PyYAML extension each archive carries (scripts/release-native-wheels.txt)
CPYTHONS = ("311", "312", "313", "314", "315")
EPOCH = 315532800  # 1980-01-01, what build-release stamps on every entry


def archive_name(plat: str) -> str:
    return f"kubectl-pd-{VERSION}-{plat.replace('/', '-')}.tar.gz"


@dataclass
class Release:
    tree: Path  # the copy the build ran in
    archives: dict[str, bytes]  # krew os/arch -> archive
    manifest: dict
    build_output: str

    @property
    def archive(self) -> bytes:
        """The archive for this machine."""
        return self.archives[HOST]

    @property
    def sha256s(self) -> dict[str, str]:
        return {p: hashlib.sha256(a).hexdigest() for p, a in self.archives.items()}


def _copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in ("pyproject.toml", "LICENSE", "krew-manifest.yaml"):
        shutil.copy2(ROOT / name, dest / name)
    for name in ("kubectl_pd", "completions", "scripts"):
        shutil.copytree(ROOT / name, dest / name, ignore=ignore)
    wheels = ROOT / "build" / "release-wheels"
    if wheels.is_dir():  # a warm cache only saves downloads; the build checks every hash anyway
        shutil.copytree(wheels, dest / "build" / "release-wheels")


def _build(tree: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    r = subprocess.run([sys.executable, "scripts/build-release"], cwd=tree, capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, f"build-release failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


@pytest.fixture(scope="session")
def release(tmp_path_factory: pytest.TempPathFactory) -> Release:
    tree = tmp_path_factory.mktemp("release-tree")
    _copy_tree(tree)
    out = _build(tree)
    archives = {p: (tree / "dist" / archive_name(p)).read_bytes() for p in PLATFORMS}
    manifest = yaml.safe_load((tree / "krew-manifest.yaml").read_text())
    assert HOST in archives, f"no krew platform for this machine ({platform.system()} {platform.machine()})"
    return Release(tree, archives, manifest, out)


@pytest.fixture(scope="session")
def unpacked(release: Release, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive unpacked into an empty directory, as krew does."""
    where = tmp_path_factory.mktemp("unpacked")
    assert list(where.iterdir()) == []
    with tarfile.open(fileobj=io.BytesIO(release.archive), mode="r:gz") as tar:
        tar.extractall(where, filter="data")
    return where


@pytest.fixture(scope="session")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory whose only entry is `python3`: the base interpreter, outside any virtualenv."""
    d = tmp_path_factory.mktemp("python-only")
    base = getattr(sys, "_base_executable", None) or sys.executable
    os.symlink(base, d / "python3")
    return d


def isolated(args: list[str], cwd: Path, *, env: dict[str, str] | None = None,
             timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`python3 -I -S`: no environment variables, no user or system site-packages, not even a venv's."""
    full = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "XDG_CACHE_HOME": str(cwd / ".cache"), **(env or {})}
    return subprocess.run([sys.executable, "-I", "-S", *args], cwd=cwd, capture_output=True, text=True,
                          env=full, timeout=timeout)


# -- krew-manifest.yaml ------------------------------------------------------------------------------


def _manifest() -> dict:
    return yaml.safe_load((ROOT / "krew-manifest.yaml").read_text())


def test_manifest_header_and_version() -> None:
    m = _manifest()
    assert m["apiVersion"] == "krew.googlecontainertools.github.com/v1alpha2"
    assert m["kind"] == "Plugin"
    assert m["metadata"]["name"] == "pd" and re.fullmatch(r"[\w-]+", m["metadata"]["name"])
    assert m["spec"]["version"] == f"v{VERSION}"
    assert re.fullmatch(r"v\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", m["spec"]["version"])
    assert m["spec"]["homepage"].startswith("https://")


def test_manifest_descriptions() -> None:
    spec = _manifest()["spec"]
    short = spec["shortDescription"]
    assert short and "\n" not in short and len(short) <= 50
    desc = spec["description"]
    assert desc.strip()
    assert all(len(line) <= 80 for line in desc.splitlines()), "description must wrap at 80 columns"
    assert not re.search(r"(?m)^\s*(\$ |kubectl )", desc) and "kubectl pd " not in desc, "no usage examples"
    caveats = spec["caveats"]
    assert "python3" in caveats and "3.11" in caveats


def test_manifest_platforms() -> None:
    spec = _manifest()["spec"]
    seen = set()
    for p in spec["platforms"]:
        assert set(p["selector"]) == {"matchLabels"}
        labels = p["selector"]["matchLabels"]
        assert set(labels) == {"os", "arch"}
        seen.add((labels["os"], labels["arch"]))
        plat = f"{labels['os']}/{labels['arch']}"
        assert p["uri"].startswith("https://") and p["uri"].endswith("/" + archive_name(plat))
        assert f"/v{VERSION}/" in p["uri"]
        assert re.fullmatch(r"[a-f0-9]{64}", p["sha256"]), "sha256 must be 64 lowercase hex digits"
        assert p["bin"] == "kubectl-pd"
        files = {(f["from"], f["to"]) for f in p["files"]}
        assert {("kubectl-pd", "."), ("kubectl-pd.pyz", "."), ("kubectl_complete-pd", "."), ("LICENSE", ".")} == files
    assert seen == {(o, a) for o in ("linux", "darwin") for a in ("amd64", "arm64")}


def _platform_shas(manifest: dict) -> dict[str, str]:
    labels = [(p["selector"]["matchLabels"], p["sha256"]) for p in manifest["spec"]["platforms"]]
    return {f"{m['os']}/{m['arch']}": sha for m, sha in labels}


def test_manifest_sha256_matches_a_fresh_build(release: Release) -> None:
    assert _platform_shas(_manifest()) == release.sha256s, (
        "krew-manifest.yaml's sha256 does not match a build of this tree: run scripts/build-release"
    )


def test_build_rewrites_the_manifest_only_where_needed(release: Release) -> None:
    before = (ROOT / "krew-manifest.yaml").read_text()
    after = (release.tree / "krew-manifest.yaml").read_text()
    strip = re.compile(r"(?m)^(\s*sha256:).*$")
    assert strip.sub(r"\1", before) == strip.sub(r"\1", after)
    assert _platform_shas(release.manifest) == release.sha256s
    assert len(set(release.sha256s.values())) == len(PLATFORMS)
    for sha in release.sha256s.values():
        assert sha in release.build_output


# -- the archive ------------------------------------------------------------------------------------


def test_build_is_reproducible(release: Release) -> None:
    _build(release.tree)
    for plat in PLATFORMS:
        again = (release.tree / "dist" / archive_name(plat)).read_bytes()
        assert again == release.archives[plat], plat


@pytest.mark.parametrize("plat", PLATFORMS)
def test_archive_layout(release: Release, plat: str) -> None:
    archive = release.archives[plat]
    assert archive[:3] == b"\x1f\x8b\x08"
    assert archive[3] == 0, "no file name or other optional gzip header fields"
    assert archive[4:8] == b"\0\0\0\0", "gzip header mtime must be 0"
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == ["LICENSE", "kubectl-pd", "kubectl-pd.pyz", "kubectl_complete-pd"]
        modes = {m.name: m.mode for m in members}
        assert modes == {"LICENSE": 0o644, "kubectl-pd": 0o755, "kubectl-pd.pyz": 0o644, "kubectl_complete-pd": 0o755}
        assert {m.mtime for m in members} == {EPOCH}
        assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "", "")}
        assert tar.extractfile("LICENSE").read() == (ROOT / "LICENSE").read_bytes()
        bridge = tar.extractfile("kubectl_complete-pd").read()
        assert bridge == (ROOT / "completions" / "kubectl_complete-pd").read_bytes()


# krew platform -> (extension suffix after the CPython tag, how the binary starts, its machine)
NATIVE = {
    "linux/amd64": ("-x86_64-linux-gnu.so", b"\x7fELF", 62),  # ELF e_machine EM_X86_64
    "linux/arm64": ("-aarch64-linux-gnu.so", b"\x7fELF", 183),  # EM_AARCH64
    "darwin/amd64": ("-darwin.so", b"\xcf\xfa\xed\xfe", 0x01000007),  # Mach-O 64, CPU_TYPE_X86_64
    "darwin/arm64": ("-darwin.so", b"\xcf\xfa\xed\xfe", 0x0100000C),  # CPU_TYPE_ARM64
}


def _zipapp(archive: bytes) -> zipfile.ZipFile:
    with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
        return zipfile.ZipFile(io.BytesIO(tar.extractfile("kubectl-pd.pyz").read()))


def _machine(binary: bytes) -> int:
    if binary.startswith(b"\x7fELF"):
        return int.from_bytes(binary[18:20], "little")
    return int.from_bytes(binary[4:8], "little")


@pytest.mark.parametrize("plat", PLATFORMS)
def test_each_platform_carries_pyyamls_extension_for_itself(release: Release, plat: str) -> None:
    suffix, magic, machine = NATIVE[plat]
    zf = _zipapp(release.archives[plat])
    compiled = sorted(n for n in zf.namelist() if n.endswith((".so", ".pyd", ".dylib", ".dll")))
    assert compiled == [f"yaml/_yaml.cpython-{v}{suffix}" for v in CPYTHONS]
    for name in compiled:
        binary = zf.read(name)
        assert binary.startswith(magic) and _machine(binary) == machine, (name, binary[:20])
    others = {n for p in PLATFORMS if p != plat for n in _zipapp(release.archives[p]).namelist()}
    pure = [n for n in zf.namelist() if n not in compiled]
    assert set(pure) <= others, "every platform's zip holds the same .py files"


def test_launcher_and_zip_contents(unpacked: Path) -> None:
    launcher = (unpacked / "kubectl-pd").read_bytes()
    assert launcher.startswith(b"#!/usr/bin/env python3\n# kubectl-pd launcher")
    assert not zipfile.is_zipfile(unpacked / "kubectl-pd"), "Python would read a zip's whole directory first"
    compile(launcher, "kubectl-pd", "exec")
    with zipfile.ZipFile(unpacked / "kubectl-pd.pyz") as zf:
        names = zf.namelist()
        assert names == sorted(names) and "__main__.py" not in names
        assert not [n for n in names if n.endswith((".pyc", ".pyo", ".dylib", ".dll"))]
        assert [n for n in names if n.endswith((".so", ".pyd"))] == \
            [f"yaml/_yaml.cpython-{v}{NATIVE[HOST][0]}" for v in CPYTHONS]
        assert not [n for n in names if "__pycache__" in n]
        assert {i.date_time for i in zf.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        for required in ("kubectl_pd/commands/cli.py", "kubectl_pd/commands/bridge.py", "click/__init__.py",
                         "yaml/__init__.py", "kubernetes/client/__init__.py", "tabulate/__init__.py",
                         "jsonpatch.py", "jsonpointer.py", "urllib3/__init__.py", "certifi/cacert.pem"):
            assert required in names, required


# -- running it with nothing but Python -------------------------------------------------------------


def test_help_with_no_site_packages(unpacked: Path) -> None:
    r = isolated(["./kubectl-pd", "--help"], unpacked)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Usage: kubectl pd [OPTIONS] COMMAND [ARGS]...")
    assert "Traceback" not in r.stderr


def test_version_with_no_site_packages(unpacked: Path) -> None:
    r = isolated(["./kubectl-pd", "--version"], unpacked)
    assert (r.returncode, r.stdout) == (0, f"kubectl-pd {VERSION}\n")


def test_lint_with_no_site_packages(unpacked: Path) -> None:
    r = isolated(["./kubectl-pd", "lint", "-f", str(EXAMPLE)], unpacked)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert r.stdout or r.stderr


INSPECT = """
import json, runpy, sys
sys.argv = ["kubectl-pd", *json.loads(sys.argv[1])]
try:
    runpy.run_path("kubectl-pd", run_name="__main__")
except SystemExit:
    pass
sys.stdout.flush()
out = {"click_loaded": "click" in sys.modules}
out.update({name: getattr(sys.modules.get(name), "__file__", None) for name in ("click", "yaml", "kubectl_pd")})
out["libyaml"] = getattr(sys.modules.get("yaml"), "__with_libyaml__", None)
out["yaml_c"] = getattr(sys.modules.get("yaml._yaml"), "__file__", None)
out["kubernetes_loaded"] = any(m.split(".")[0] == "kubernetes" for m in sys.modules)
out["site_packages"] = [p for p in sys.path if "site-packages" in p or "dist-packages" in p]
print("@@" + json.dumps(out))
"""


def inspect(unpacked: Path, args: list[str], env: dict[str, str] | None = None) -> tuple[str, dict]:
    """Run the launcher in this (isolated) interpreter, then report where its modules came from."""
    r = isolated(["-c", INSPECT, json.dumps(args)], unpacked, env=env)
    assert r.returncode == 0, r.stderr
    out, _, report = r.stdout.rpartition("@@")
    return out, json.loads(report)


def test_everything_comes_from_the_archive(unpacked: Path) -> None:
    _, got = inspect(unpacked, ["--help"])
    assert got["site_packages"] == []
    cache = str(unpacked / ".cache" / "kubectl-pd")
    for name in ("click", "kubectl_pd"):
        assert got[name].startswith(cache), (name, got[name])
    assert got["kubernetes_loaded"] is False, "--help must not import the kubernetes client"


def test_pyyaml_loads_its_c_extension_from_the_cache(unpacked: Path) -> None:
    assert f"{sys.version_info.major}{sys.version_info.minor}" in CPYTHONS, "this Python has no extension shipped"
    _, got = inspect(unpacked, ["lint", "-f", str(EXAMPLE)])
    assert got["libyaml"] is True
    for name in ("yaml", "yaml_c"):
        assert got[name].startswith(str(unpacked / ".cache" / "kubectl-pd")), (name, got[name])


def test_pyyaml_falls_back_to_pure_python_in_the_zip(unpacked: Path) -> None:
    """Extension modules cannot load from inside a zip: with no cache, PyYAML's own Python loader reads."""
    _, got = inspect(unpacked, ["lint", "-f", str(EXAMPLE)], env={"KUBECTL_PD_NO_CACHE": "1"})
    assert (got["libyaml"], got["yaml_c"]) == (False, None)
    assert got["yaml"] == str(unpacked / "kubectl-pd.pyz" / "yaml" / "__init__.py")  # zipimport


@pytest.mark.parametrize("cache", ["", "1"], ids=["cache", "zip"])
def test_the_krew_bridge_takes_the_fast_path(unpacked: Path, cache: str) -> None:
    """`kubectl_complete-pd why-pending <TAB>` runs `kubectl-pd __complete ...`: answered without click."""
    env = {"KUBECONFIG": str(unpacked / "no-kubeconfig"), **({"KUBECTL_PD_NO_CACHE": cache} if cache else {})}
    out, got = inspect(unpacked, ["__complete", "why-pending", ""], env=env)
    assert out.splitlines() == [":4"]
    assert got["click_loaded"] is False
    out, got = inspect(unpacked, ["__complete", "wh"], env=env)  # not the fast path's case: the command tree
    assert out.splitlines()[0].split("\t")[0] == "why-pending" and got["click_loaded"] is True


def test_first_run_unpacks_into_the_user_cache(unpacked: Path, tmp_path: Path) -> None:
    r = isolated([str(unpacked / "kubectl-pd"), "--version"], tmp_path)
    assert r.returncode == 0, r.stderr
    builds = list((tmp_path / ".cache" / "kubectl-pd").iterdir())
    assert len(builds) == 1 and (builds[0] / ".complete").exists()
    assert (builds[0] / "kubectl_pd" / "commands" / "cli.py").exists()
    assert oct(builds[0].stat().st_mode & 0o777) == oct(0o700)


def test_krew_link_and_a_warm_cache_that_never_opens_the_zip(unpacked: Path, tmp_path: Path) -> None:
    """krew links bin/kubectl-pd to the launcher in its store: the zip is found beside the link's target.
    Once the cache is complete the zip is not read at all (here: not even there)."""
    store, bin_dir = tmp_path / "store", tmp_path / "bin"
    shutil.copytree(unpacked, store, ignore=shutil.ignore_patterns(".cache"))
    bin_dir.mkdir()
    (bin_dir / "kubectl-pd").symlink_to(store / "kubectl-pd")
    r = isolated([str(bin_dir / "kubectl-pd"), "--version"], tmp_path)
    assert (r.returncode, r.stdout) == (0, f"kubectl-pd {VERSION}\n"), r.stderr
    (store / "kubectl-pd.pyz").rename(tmp_path / "moved.pyz")
    r = isolated([str(bin_dir / "kubectl-pd"), "lint", "-f", str(EXAMPLE)], tmp_path)
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    r = isolated([str(bin_dir / "kubectl-pd"), "--version"], tmp_path, env={"KUBECTL_PD_NO_CACHE": "1"})
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("error: ") and len(r.stderr.splitlines()) == 1, r.stderr
    assert str(store / "kubectl-pd.pyz") in r.stderr


def test_runs_from_the_zip_when_no_cache_can_be_made(unpacked: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    r = isolated([str(unpacked / "kubectl-pd"), "--help"], tmp_path, env={"XDG_CACHE_HOME": str(blocker)})
    assert r.returncode == 0 and r.stdout.startswith("Usage: kubectl pd "), r.stderr
    r = isolated([str(unpacked / "kubectl-pd"), "lint", "-f", str(EXAMPLE)], tmp_path,
                 env={"KUBECTL_PD_NO_CACHE": "1"})
    assert r.returncode in (0, 1) and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / ".cache").exists()


def test_bundled_kubernetes_client_talks_to_a_cluster(unpacked: Path, apiserver: Callable) -> None:
    ns = [namespace(n) for n in ("ml", "mlops", "web")]
    server, env = apiserver(ns)
    args = ["./kubectl-pd", "__complete", "why-pending", "--request-timeout", "20s", "-n", "ml"]
    r = isolated(args, unpacked, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "ml\nmlops\n:4\n"
    assert set(server.methods) == {"GET"}
    assert TOKEN not in r.stdout + r.stderr


# -- through the real kubectl, with only the unpacked directory added to PATH -----------------------


def _kubectl(args: list[str], unpacked: Path, bare_python: Path,
             env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full = {"PATH": f"{unpacked}{os.pathsep}{bare_python}", "HOME": str(unpacked),
            "XDG_CACHE_HOME": str(unpacked / ".cache"), "KUBECONFIG": str(unpacked / "no-kubeconfig"),
            **(env or {})}
    return subprocess.run([kubectl_binary(), *args], capture_output=True, text=True, env=full, timeout=120)


def test_kubectl_runs_the_unpacked_plugin(unpacked: Path, bare_python: Path) -> None:
    listed = _kubectl(["plugin", "list"], unpacked, bare_python)
    assert str(unpacked / "kubectl-pd") in listed.stdout, listed.stdout + listed.stderr
    r = _kubectl(["pd", "--help"], unpacked, bare_python)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Usage: kubectl pd [OPTIONS] COMMAND [ARGS]...")


def test_kubectl_lint_with_the_unpacked_plugin(unpacked: Path, bare_python: Path) -> None:
    r = _kubectl(["pd", "lint", "-f", str(EXAMPLE)], unpacked, bare_python)
    assert r.returncode in (0, 1), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr


def test_kubectl_completes_through_the_unpacked_bridge(unpacked: Path, bare_python: Path) -> None:
    r = _kubectl(["__complete", "pd", "wh"], unpacked, bare_python)
    assert r.returncode == 0, r.stderr
    assert f"About to call: {unpacked / 'kubectl_complete-pd'}" in r.stderr
    assert r.stdout.splitlines()[0].split("\t")[0] == "why-pending"
    assert r.stdout.splitlines()[-1] == ":4"


def test_gzip_member_is_the_plain_tar(release: Release) -> None:
    raw = gzip.decompress(release.archive)
    assert len(raw) % 512 == 0 and raw[257:262] == b"ustar"


def test_kubectl_completes_a_target_through_the_bridges_fast_path(unpacked: Path, bare_python: Path) -> None:
    r = _kubectl(["__complete", "pd", "why-pending", ""], unpacked, bare_python)
    assert r.returncode == 0, r.stderr
    assert f"About to call: {unpacked / 'kubectl_complete-pd'}" in r.stderr
    assert r.stdout.splitlines() == [":4"]


def _build_script(cwd: Path) -> Any:
    """scripts/build-release as a module, its paths taken from `cwd` (it reads them from the working directory)."""
    import importlib.machinery
    import importlib.util

    here = os.getcwd()
    os.chdir(cwd)
    try:
        loader = importlib.machinery.SourceFileLoader("build_release", str(ROOT / "scripts" / "build-release"))
        spec = importlib.util.spec_from_loader("build_release", loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
    finally:
        os.chdir(here)
    return module


def test_manifest_rewrite_sets_each_platforms_archive_and_refuses_an_unknown_one(tmp_path: Path,
                                                                                 capsys: pytest.CaptureFixture) -> None:
    script = _build_script(tmp_path)
    shas = {p: hashlib.sha256(p.encode()).hexdigest() for p in PLATFORMS}
    text = (ROOT / "krew-manifest.yaml").read_text()
    (tmp_path / "krew-manifest.yaml").write_text(text)
    script.rewrite_manifest("9.8.7", shas)
    got = yaml.safe_load((tmp_path / "krew-manifest.yaml").read_text())
    assert got["spec"]["version"] == "v9.8.7"
    for p in got["spec"]["platforms"]:
        plat = "{os}/{arch}".format(**p["selector"]["matchLabels"])
        assert p["sha256"] == shas[plat]
        assert p["uri"].endswith(f"/v9.8.7/kubectl-pd-9.8.7-{plat.replace('/', '-')}.tar.gz")
    (tmp_path / "krew-manifest.yaml").write_text(text.replace("os: darwin\n        arch: arm64",
                                                              "os: windows\n        arch: arm64"))
    with pytest.raises(SystemExit) as stop:
        script.rewrite_manifest("9.8.7", shas)
    assert stop.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("build-release: error: ") and "windows/arm64" in err and len(err.splitlines()) == 1
