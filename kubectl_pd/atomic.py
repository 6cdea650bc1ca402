"""Files the tool writes, replaced atomically: nothing lost, nothing half-written.

`write(path, text)`: the text goes to a temporary file beside the target (through a symbolic link, beside
the file it names, which is the one replaced), is flushed and synced, takes the target's mode (and owner,
where allowed), then is renamed over the target, and the directory synced. On any failure, Ctrl-C
included, the old file is intact and the temporary one removed; a SIGKILL can leave only the temporary
file (`.NAME.*.tmp`), never a lost or partial target. `-` means stdout.

A link is followed only where the kernel would follow it for `> PATH` under `fs.protected_symlinks` (whatever
that setting is on this machine): not a link in a sticky, world-writable directory (the system's temporary
directory) whose owner is neither the caller nor the directory's owner. A rename into place would otherwise
sidestep that rule, and a link another user planted would have the caller's file replaced (issue 42, M9).
"""

from __future__ import annotations

import errno
import os
import stat
import sys

MAX_LINKS = 40  # links followed in one path, as Linux (ELOOP past it)
REFUSED_LINK = ("a symbolic link in a sticky world-writable directory, owned by another user: not followed "
                "(the kernel's protected_symlinks rule)")


def may_follow(link: os.stat_result, folder: os.stat_result, uid: int) -> bool:
    """The kernel's protected_symlinks rule (fs/namei.c, may_follow_link): a link is followed when its owner is
    the follower, or its directory is not both sticky and world-writable, or the directory's owner owns it."""
    if link.st_uid == uid:
        return True
    if not (folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH):
        return True
    return link.st_uid == folder.st_uid


def resolve(path: str, uid: int | None = None) -> str:
    """`os.path.realpath(path)`, refusing (PermissionError) a link the protected_symlinks rule would not follow,
    and ELOOP past MAX_LINKS links. A part that does not exist ends the walk: the rest is taken as given."""
    uid = os.geteuid() if uid is None else uid
    todo = list(reversed(os.path.abspath(path).split("/")))
    out, links = "/", 0
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            out = os.path.dirname(out)
            continue
        here = os.path.join(out, name)
        try:
            st = os.lstat(here)
        except (FileNotFoundError, NotADirectoryError):
            return os.path.join(here, *reversed(todo))
        if not stat.S_ISLNK(st.st_mode):
            out = here
            continue
        links += 1
        if links > MAX_LINKS:
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP))
        if not may_follow(st, os.stat(out), uid):
            raise PermissionError(errno.EACCES, REFUSED_LINK)
        target = os.readlink(here)
        if target.startswith("/"):
            out = "/"
        todo.extend(reversed(target.split("/")))
    return out


def same_as_stdout(path: str) -> bool:
    """Whether `path` is the regular file stdout writes to (`... > path`: the shell has emptied it)."""
    try:
        out = os.fstat(sys.stdout.fileno())
        st = os.stat(path)
    except (OSError, ValueError, AttributeError):
        return False
    return stat.S_ISREG(out.st_mode) and (out.st_dev, out.st_ino) == (st.st_dev, st.st_ino)


def write(path: str, text: str) -> None:
    """Replace `path` with `text` (UTF-8) atomically; `-`: write it to stdout. OSError on failure, the old
    file intact."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    target = resolve(path)  # through a symbolic link (as `>` may follow it): its target is replaced, the link stays
    folder, name = os.path.split(target)
    try:
        old: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):
        raise IsADirectoryError(21, "not a regular file") if stat.S_ISDIR(old.st_mode) else \
            OSError(22, "not a regular file")
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=folder or ".", prefix=f".{name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            if old is not None:
                os.fchmod(fh.fileno(), stat.S_IMODE(old.st_mode))
                try:
                    os.fchown(fh.fileno(), old.st_uid, old.st_gid)
                except OSError:
                    pass  # not ours to give away: the mode is kept, the owner becomes us (as an editor does)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.fchmod(fh.fileno(), 0o666 & ~umask)  # what open(path, "w") would have made
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dfd = os.open(folder or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
