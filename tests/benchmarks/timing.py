"""How `make bench` times things: one helper for every benchmark script."""
from __future__ import annotations

import statistics
import time
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
