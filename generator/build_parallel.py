"""Spreading a build's per-op work (parsing and checking op files, rendering ops) over the machine's
cores. Each op's work is a pure function of its inputs and the results are gathered in input order,
so the output is byte-identical to a sequential build's.

Worker processes are forked after the parent has loaded what they read (the model, the imported
renderers), so nothing is re-imported or sent to them but an index; only results travel back.
Where fork is unavailable, with no idle core, or for a few items (an edit's build), the work runs
in this process. OPGEN_JOBS sets the number of processes (1: no workers)."""
from __future__ import annotations

import os
import sys
from typing import Any, Callable, Sequence, TypeVar

T = TypeVar("T")

MIN_ITEMS = 24  # below this, forking costs more than it saves
_TASK: tuple[Callable[[Any], Any], Sequence[Any]] | None = None  # what the forked workers run


def jobs() -> int:
    """OPGEN_JOBS, else the cores other work leaves idle (measured on a 2-core machine running eight
    other busy processes, two workers took 12% more CPU time and longer than one process)."""
    configured = os.environ.get("OPGEN_JOBS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        busy = os.getloadavg()[0]
    except (AttributeError, OSError):
        busy = 0.0
    return max(1, min(cores, round(cores - busy)))


def _has_other_threads() -> bool:
    """Whether this process runs threads besides the main one (a library's thread pool, e.g. when a
    build is called from a program that imported torch or onnxruntime): a forked child inherits their
    locks without the threads that would release them, so the build then stays in this process."""
    try:
        return len(os.listdir("/proc/self/task")) > 1
    except OSError:
        return True  # cannot tell: do not fork


def _ignore_interrupt() -> None:
    """A worker leaves Ctrl-C (SIGINT, sent to the whole process group) to the parent, which stops the pool
    and reports it once: otherwise every worker printed its own traceback."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_one(index: int) -> Any:
    assert _TASK is not None
    fn, items = _TASK
    return fn(items[index])


def ordered_map(fn: Callable[[Any], T], items: Sequence[Any]) -> list[T]:
    """[fn(item) for item in items], in worker processes when that pays. `fn` and `items` are not
    pickled (the workers inherit them); each result is, so it must be picklable."""
    global _TASK
    workers = min(jobs(), len(items) // (MIN_ITEMS // 2) or 1)
    if workers < 2 or len(items) < MIN_ITEMS or sys.platform == "win32" or _has_other_threads():
        return [fn(item) for item in items]
    import multiprocessing

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return [fn(item) for item in items]
    _TASK = (fn, items)
    try:
        with context.Pool(workers, initializer=_ignore_interrupt) as pool:
            # Small chunks keep both workers busy to the end (op costs differ tenfold).
            return pool.map(_run_one, range(len(items)), chunksize=4)
    finally:
        _TASK = None
