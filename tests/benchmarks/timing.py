"""How `make bench` times things: one helper for every benchmark script."""
from __future__ import annotations

import os
import resource
import statistics
import time
from pathlib import Path
from typing import Callable


def median_time(fn: Callable[[], object], repeat: int = 5, warm_up: bool = True) -> float:
    """Median wall-clock seconds of `repeat` calls, after one untimed call (jit compilation, caches)."""
    if warm_up:
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def best_time(fn: Callable[[], object], repeat: int = 15) -> float:
    """The fastest of several runs after a warm-up (as timeit advises: slower runs measure the machine's
    noise)."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def paired_times(ours: Callable[[], object], peer: Callable[[], object], repeat: int = 15,
                 pick: Callable[[list[float]], float] = min,
                 clock: Callable[[], float] = time.perf_counter) -> tuple[float, float]:
    """(ours, peer): both timed in alternation, one call of each per round after a warm-up of each, and
    `pick` (min: best; statistics.median) of each side's times. On a shared machine the load changes
    from second to second; alternating exposes both sides to the same load, so their ratio is steadier
    than that of two series timed one after the other. `clock`: wall time by default; time.process_time
    counts only this process's CPU time (all its threads), which a machine loaded beyond its cores does
    not inflate with the time the process waits for a core."""
    ours()
    peer()
    mine, theirs = [], []
    for _ in range(repeat):
        start = clock()
        ours()
        middle = clock()
        peer()
        mine.append(middle - start)
        theirs.append(clock() - middle)
    return pick(mine), pick(theirs)


def flag(ratio: float) -> str:
    """The mark of a ratio opgen / onnx.reference above 1.0 (opgen slower) in the benchmark tables."""
    return " SLOWER" if ratio > 1.0 else ""


def children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes: paired_times' clock for whole processes."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def with_bytecode_cache(folder: Path) -> dict[str, str]:
    """The environment with Python's bytecode cache on (in `folder`, outside the repository): an installed
    package has its modules compiled, but a shell with PYTHONDONTWRITEBYTECODE=1 compiles every opgen
    module (generated validators included) from source at each start, which onnx's installed modules
    do not pay."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(folder)
    return env
