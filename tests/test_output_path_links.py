"""Issue 42, M9: `snapshot -o PATH` and `lint --write-baseline PATH` resolved links with realpath and renamed over
the target, so in a sticky world-writable directory a link another user planted had the caller's file replaced
(the kernel's protected_symlinks rule stops `> PATH` there). Now the rule is followed whatever the sysctl says.
The links are made by this (root) test process and given to another uid with lchown, as another user's would be."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from kubectl_pd import atomic

OTHER = 4242  # a uid that is neither the caller nor the directory's owner
ROOT = Path(__file__).parent.parent
QUEUES = ROOT / "examples" / "lint" / "gpustack-split-queue.yaml"


def _st(uid: int, mode: int) -> Any:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


STICKY = stat.S_IFDIR | 0o1777
CASES = [  # (link owner, directory mode, directory owner, caller, followed)
    (OTHER, STICKY, 0, 0, False),  # the attack: another user's link in /tmp
    (0, STICKY, 0, 0, True),  # the caller's own link
    (OTHER, STICKY, OTHER, 0, True),  # the directory's owner's link
    (OTHER, stat.S_IFDIR | 0o0777, 0, 0, True),  # world-writable, not sticky
    (OTHER, stat.S_IFDIR | 0o1755, 0, 0, True),  # sticky, not world-writable
    (OTHER, STICKY, 0, 1000, False),  # whoever the caller is (root is not exempt in the kernel either)
]


@pytest.mark.parametrize(("owner", "mode", "dir_owner", "uid", "followed"), CASES)
def test_may_follow(owner: int, mode: int, dir_owner: int, uid: int, followed: bool) -> None:
    assert atomic.may_follow(_st(owner, stat.S_IFLNK | 0o777), _st(dir_owner, mode), uid) is followed


@pytest.fixture
def planted(tmp_path: Path) -> tuple[Path, Path]:
    """A sticky world-writable directory with a link owned by OTHER to the victim's file."""
    if os.geteuid() != 0:
        pytest.fail("giving a link to another uid needs root (this suite runs as root)")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    victim = tmp_path / "victim.yaml"
    victim.write_text("precious: true\n")
    link = shared / "out.yaml"
    link.symlink_to(victim)
    os.lchown(link, OTHER, OTHER)
    return link, victim


def test_atomic_write_refuses_the_planted_link(planted: tuple[Path, Path]) -> None:
    link, victim = planted
    with pytest.raises(PermissionError):
        atomic.write(str(link), "replaced\n")
    assert victim.read_text() == "precious: true\n" and link.is_symlink()
    assert not [p for p in link.parent.iterdir() if p.name.endswith(".tmp")]


def test_a_link_of_the_callers_own_is_followed(planted: tuple[Path, Path]) -> None:
    link, victim = planted
    os.lchown(link, os.geteuid(), os.getegid())
    atomic.write(str(link), "replaced\n")
    assert victim.read_text() == "replaced\n" and link.is_symlink()


def test_a_planted_link_in_the_middle_of_the_path_is_refused_too(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    real = tmp_path / "mine"
    real.mkdir()
    (shared / "d").symlink_to(real)
    os.lchown(shared / "d", OTHER, OTHER)
    with pytest.raises(PermissionError):
        atomic.write(str(shared / "d" / "f.yaml"), "x\n")
    assert not (real / "f.yaml").exists()


def test_snapshot_and_write_baseline_refuse_it(cli: Any, apiserver: Any, planted: tuple[Path, Path]) -> None:
    link, victim = planted
    _server, env = apiserver("pending/quota-exhausted.yaml")
    r = cli(["snapshot", "qwen-pd", "-n", "team-a", "-o", str(link)], env=env)
    assert r.exit_code == 1 and r.stderr.startswith(f"error: cannot write {link}: ")
    assert "protected_symlinks" in r.stderr
    r = cli(["lint", "-f", str(QUEUES), "--write-baseline", str(link)])
    assert r.exit_code == 2 and "protected_symlinks" in r.stderr, r.stderr  # lint's code for an unwritable file
    assert victim.read_text() == "precious: true\n"


def test_a_loop_of_links_is_eloop(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OSError) as e:
        atomic.write(str(tmp_path / "a"), "x")
    assert "symbolic links" in str(e.value) or e.value.errno == 40


@pytest.mark.parametrize("path", ["x.yaml", "d/../x.yaml", "./d/./../x.yaml", "link/x.yaml", "rel"])
def test_resolve_is_realpath_where_links_are_allowed(tmp_path: Path, path: str, monkeypatch: Any) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "link").symlink_to("d")
    (tmp_path / "rel").symlink_to("d/../link/../x.yaml")
    monkeypatch.chdir(tmp_path)
    assert atomic.resolve(path) == os.path.realpath(path)
