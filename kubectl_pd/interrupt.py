"""Ctrl-C: the command stops within a second, whatever its worker threads are doing.

Python turns SIGINT into KeyboardInterrupt in the main thread, but only when the main thread runs Python
code: a main thread asleep in `Thread.join()` wakes for it only if the kernel delivered the signal to that
thread, and a KeyboardInterrupt raised inside a finaliser (`__del__` of a socket file, say) is printed and
dropped. So here:

- worker threads block SIGINT (the kernel then always delivers it to the main thread);
- the main thread waits for workers, and sleeps, in slices of at most `SLICE` seconds, and raises
  KeyboardInterrupt again at the next slice when an earlier one was dropped;
- from the package's import until `main()` starts, Ctrl-C exits at once (nothing was done yet), and once
  `main()` has chosen its exit code a late Ctrl-C is ignored (the work is done) instead of breaking the
  interpreter's shutdown. Both only in a process that is the plugin, never inside a host such as pytest.

A SIGINT that was ignored when the process started (a background job of a non-interactive shell, nohup)
stays ignored, as POSIX asks of every program.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (mypy reads it the same)

if TYPE_CHECKING:
    import signal
    import threading
    from collections.abc import Callable
    from types import FrameType, TracebackType
    from typing import Any
else:  # the completion bridge imports this package: `signal` would load enum on every Tab press, its C half not
    import _signal as signal

SLICE = 0.1  # seconds: the longest the main thread goes without looking for a Ctrl-C while it waits
EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl-C
MESSAGE = "error: interrupted"

_PLUGIN_NAMES = ("kubectl-pd", "kubectl_complete-pd", "__main__.py", "-m")
_state: dict[str, Any] = {"hit": False}
_children: dict[int, tuple[Any, bool]] = {}  # pid -> (Popen, own process group): what must not outlive main()


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def _say_and_exit(code: int) -> None:
    try:
        os.write(2, f"\n{MESSAGE}\n".encode())
    except OSError:
        pass
    os._exit(code)


def _early(signum: int, frame: FrameType | None) -> None:
    """Before main(): nothing has been read or written, so stop at once."""
    _say_and_exit(EXIT_INTERRUPTED)


def _raise(signum: int, frame: FrameType | None) -> None:
    """During main(): KeyboardInterrupt in the main thread, remembered; a second Ctrl-C does not wait."""
    if _state["hit"]:
        _say_and_exit(EXIT_INTERRUPTED)
    _state["hit"] = True
    raise KeyboardInterrupt


def install_early() -> None:
    """Called when the package is imported: in the plugin's own process, Ctrl-C before main() exits 130."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if name not in _PLUGIN_NAMES:
        return
    try:  # ValueError outside the main thread
        if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
            signal.signal(signal.SIGINT, _early)
    except (ValueError, OSError):  # no signals here (an embedded interpreter)
        pass


class handling:  # noqa: N801 - used as `with interrupt.handling():`, like a contextlib function
    """Around main(): SIGINT raises KeyboardInterrupt in the main thread and is remembered (see `check`).

    A handler other than Python's default (or ours) is left alone: SIG_IGN, or a host's own."""

    def __enter__(self) -> None:
        self.previous: Any = None
        try:
            current = signal.getsignal(signal.SIGINT) if _in_main_thread() else None
        except (ValueError, OSError):
            current = None
        if current is signal.default_int_handler or current is _early:
            self.previous = current
            _state["hit"] = False
            signal.signal(signal.SIGINT, _raise)

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 tb: TracebackType | None) -> None:
        stop_children()  # a child a worker thread started (an exec plugin) ends with the run
        if self.previous is None:
            return
        _state["hit"] = False  # for this run only: code after it (a host's own, in tests) waits undisturbed
        if self.previous is _early and kind is SystemExit:
            # the plugin's own process, and the exit code is chosen: a Ctrl-C no longer changes it
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        else:
            signal.signal(signal.SIGINT, self.previous)


def interrupted() -> bool:
    return bool(_state["hit"])


def check() -> None:
    """Raise KeyboardInterrupt again when a Ctrl-C was seen but its exception was dropped on the way."""
    if _state["hit"] and _in_main_thread():
        raise KeyboardInterrupt


def thread(target: Callable[[], None], name: str) -> threading.Thread:
    """A started daemon thread that never receives SIGINT (the main thread does). It belongs to the caller's
    run (kubectl_pd/memo.py): it runs in a copy of the caller's context, so the run's memo and settings."""
    import contextvars
    import threading

    context = contextvars.copy_context()

    def run() -> None:
        try:
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        except (AttributeError, OSError, ValueError):  # no pthread_sigmask on this platform
            pass
        context.run(target)

    t = threading.Thread(target=run, name=name, daemon=True)
    t.start()
    return t


def join(worker: threading.Thread, timeout: float | None = None) -> None:
    """`worker.join(timeout)` that notices Ctrl-C within SLICE seconds."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while worker.is_alive():
        check()
        left = SLICE if deadline is None else min(SLICE, deadline - time.monotonic())
        if left <= 0:
            return
        worker.join(left)
    check()


def sleep(seconds: float) -> None:
    """`time.sleep` that notices Ctrl-C within SLICE seconds."""
    deadline = time.monotonic() + seconds
    while True:
        check()
        left = deadline - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(SLICE, left))


def adopt(proc: Any, group: bool) -> None:
    """Remember a child process (with its own process group when `group`), killed if the run ends first."""
    _children[proc.pid] = (proc, group)


def release(proc: Any) -> None:
    _children.pop(proc.pid, None)


def kill(proc: Any, group: bool) -> None:
    """SIGKILL the child, and every process of its group when it leads one (its children with it)."""
    try:
        if group and hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError, OSError):  # gone already
        pass


def stop_children() -> None:
    """Kill and reap every adopted child still running (Ctrl-C while a worker thread waited on one)."""
    for pid, (proc, group) in list(_children.items()):
        kill(proc, group)
        try:
            proc.wait(2.0)
        except Exception:  # noqa: BLE001 - a child that will not be reaped is left to init, never a traceback
            pass
        _children.pop(pid, None)
