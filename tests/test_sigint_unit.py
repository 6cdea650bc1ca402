"""kubectl_pd/interrupt.py in-process: the pieces that make Ctrl-C reach the main thread and never get lost."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator

import pytest

from kubectl_pd import interrupt


@pytest.fixture
def sigint_default() -> Iterator[None]:
    """Python's own SIGINT handler around each test, whatever the run was started with."""
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, before)


def test_worker_threads_block_sigint() -> None:
    masks: list[set[signal.Signals]] = []
    worker = interrupt.thread(lambda: masks.append(signal.pthread_sigmask(signal.SIG_BLOCK, [])), "t")
    interrupt.join(worker, 10)
    assert signal.SIGINT in masks[0]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # the main thread takes it


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_an_interrupt_a_finaliser_dropped_is_raised_at_the_next_wait(sigint_default: None) -> None:
    class Finalised:
        def __del__(self) -> None:  # the handler runs here: Python prints its KeyboardInterrupt and drops it
            handler = signal.getsignal(signal.SIGINT)
            assert callable(handler)
            handler(signal.SIGINT, None)

    release = threading.Event()
    with interrupt.handling():
        Finalised()
        assert interrupt.interrupted()
        worker = interrupt.thread(lambda: release.wait(10), "t")
        with pytest.raises(KeyboardInterrupt):
            interrupt.join(worker)
        with pytest.raises(KeyboardInterrupt):
            interrupt.sleep(10)
    release.set()


def test_handling_installs_and_restores_python_s_handler(sigint_default: None) -> None:
    with interrupt.handling():
        assert signal.getsignal(signal.SIGINT) is not signal.default_int_handler
        assert not interrupt.interrupted()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_sigint_stays_ignored(sigint_default: None) -> None:
    """POSIX: a program started with SIGINT ignored (a background job, nohup) keeps it ignored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    with interrupt.handling():
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_join_gives_up_at_its_timeout() -> None:
    release = threading.Event()
    worker = interrupt.thread(lambda: release.wait(10), "t")
    interrupt.join(worker, 0.05)
    assert worker.is_alive()
    release.set()
    interrupt.join(worker)
    assert not worker.is_alive()
