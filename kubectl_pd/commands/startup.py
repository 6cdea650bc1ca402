"""What both entry points (commands/cli.py: `kubectl-pd`; commands/bridge.py: `kubectl_complete-pd`) do first,
before anything heavy is imported."""

from __future__ import annotations

import atexit
import gc


def short_lived_gc() -> None:
    """The cyclic collector tuned for a process that lives well under a second, called before the heavy imports.

    Start-up creates tens of thousands of long-lived objects (modules, classes, functions) and next to no
    garbage, so the default collection of young objects every 700 allocations only rescans them: here it runs
    every 50,000 (garbage cycles are still collected, so a long `--watch` does not grow). At exit everything
    is frozen first, so the interpreter's last collection has nothing to walk. Under callgrind this takes
    about 35M of 425M instructions off a live `why-pending -o json` and 23M of 195M off a live Tab; 50,000
    rather than 20,000 spares a live diagnosis its one young collection (about 7M of 354M: some 27,000
    allocations after start-up) and costs `why-pending -A` over 2,000 Workloads 2.6 MiB of peak memory
    (55.6 to 58.2 MiB, kubectl's own list 79 MiB) for 2% less CPU (docs/benchmarks.md)."""
    if gc.get_threshold()[0] < _GC_YOUNG:
        gc.set_threshold(_GC_YOUNG, 10, 10)
        atexit.register(gc.freeze)


_GC_YOUNG = 50_000
