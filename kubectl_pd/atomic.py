"""Files the tool writes, replaced atomically: nothing lost, nothing half-written.

`write(path, text)`: the text goes to a temporary file beside the target (through a symbolic link, beside
the file it names, which is the one replaced), is flushed and synced, takes the target's mode (and owner,
where allowed), then is renamed over the target, and the directory synced. On any failure, Ctrl-C
included, the old file is intact and the temporary one removed; a SIGKILL can leave only the temporary
file (`.NAME.*.tmp`), never a lost or partial target. `-` means stdout.
"""

from __future__ import annotations

import os
import stat
import sys


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
    target = os.path.realpath(path)  # through a symbolic link: its target is replaced, the link stays
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
