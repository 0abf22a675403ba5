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
    return max(1, min(cores, round(cores - _busy())))


def _busy() -> float:
    """How many cores other work keeps busy now (busy_from), 0 where the system does not say."""
    try:
        average = os.getloadavg()[0]
    except (AttributeError, OSError):
        return 0.0
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            return busy_from(average, handle.read())
    except OSError:
        return average


def busy_from(average: float, loadavg: str) -> float:
    """The 1-minute load average, unless fewer other processes are runnable right now (Linux's
    /proc/loadavg, "0.81 1.47 2.50 1/80 11950": 1 runnable of 80, this one included). The average
    lags a minute behind: builds run one after another (make, a save hook, a benchmark) would count
    their own predecessors as other work and leave a core idle."""
    try:
        runnable = int(loadavg.split()[3].split("/")[0])
    except (ValueError, IndexError):
        return average
    return min(average, max(0, runnable - 1))


# The BLAS libraries NumPy and SciPy load start a thread pool on import (OpenBLAS: one thread per core),
# and a build imports NumPy (its kernels are checked and its examples run): once it had, the render
# phase saw those threads and stayed in one process. A build multiplies no matrices worth a second
# thread, so its command asks for none (os.environ.setdefault: a user's own setting wins).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def single_threaded_blas() -> None:
    """Ask the BLAS libraries NumPy and SciPy will load for no thread pool, so that the build's
    workers may still be forked after NumPy is imported. For the `opgen build` command only, before
    NumPy is imported (afterwards it changes nothing); a program calling opgen.build keeps its own."""
    for variable in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(variable, "1")


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
