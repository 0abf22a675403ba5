"""How `make bench` times things: one helper for every benchmark script."""
from __future__ import annotations

import math
import os
import resource
import statistics
import time
from dataclasses import dataclass
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
    not inflate with the time the process waits for a core. Every round is taken (`paired` with no time
    budget), the side going first alternating."""
    timed = paired(ours, peer, repeat, pick, clock, budget_s=math.inf, min_rounds=repeat)
    return timed.ours, timed.peer


def flag(ratio: float) -> str:
    """The mark of a ratio opgen / onnx.reference above 1.0 (opgen slower) in the benchmark tables."""
    return " SLOWER" if ratio > 1.0 else ""


SIGNIFICANCE = 0.01  # the sign test's level: how unlikely a SLOWER mark is for two equally fast sides


@dataclass(frozen=True)
class Paired:
    """Two callables timed round by round (see `paired`): each side's picked time, and the ratio
    ours / peer of every round, whose median is the figure to compare."""

    ours: float
    peer: float
    ratios: tuple[float, ...]

    @property
    def ratio(self) -> float:
        return statistics.median(self.ratios)

    @property
    def slower_rounds(self) -> int:
        return sum(r > 1.0 for r in self.ratios)

    @property
    def p_value(self) -> float:
        """The sign test's one-sided p-value: the chance of at least this many slower rounds if each round
        were a coin toss (two equally fast sides, the order alternating)."""
        n, k = len(self.ratios), self.slower_rounds
        return sum(math.comb(n, j) for j in range(k, n + 1)) / 2**n

    @property
    def consistently_slower(self) -> bool:
        """Slower in the median, and in so many rounds that chance explains it less than once in 100."""
        return self.ratio > 1.0 and self.p_value < SIGNIFICANCE

    @property
    def flag(self) -> str:
        """The row's mark: " SLOWER" when consistently slower; " ~1" when the median is above 1.0 but not
        significantly (the difference is below what this run resolves: e.g. both sides make the same NumPy
        call, whose time varies by 10-20% from call to call on a shared 2-core machine); else nothing."""
        if self.consistently_slower:
            return " SLOWER"
        return f" ~1 (slower in {self.slower_rounds} of {len(self.ratios)} rounds)" if self.ratio > 1.0 else ""


def paired(ours: Callable[[], object], peer: Callable[[], object], repeat: int = 41,
           pick: Callable[[list[float]], float] = min, clock: Callable[[], float] = time.perf_counter,
           budget_s: float = 4.0, min_rounds: int = 8) -> Paired:
    """Both sides timed in alternation (why: paired_times), the ratio of each round kept: a round times one
    call of each side back to back after a warm-up of each, the side going first alternating from round
    to round (the second call of a round may find caches and freed memory the first left). The median of
    the rounds' ratios is steadier than the ratio of two best times, and how many rounds were slower says
    whether a difference is real (a sign test: Paired.consistently_slower). Rounds stop at `repeat`, or
    after `min_rounds` once `budget_s` seconds have gone (slow peers: pooling, Conv); with 8 rounds, all
    of them slower still passes the test (p = 1/256)."""
    ours()
    peer()
    mine: list[float] = []
    theirs: list[float] = []
    began = time.perf_counter()
    for k in range(repeat):
        if k >= min_rounds and time.perf_counter() - began > budget_s:
            break
        first, second = (ours, peer) if k % 2 == 0 else (peer, ours)
        start = clock()
        first()
        middle = clock()
        second()
        end = clock()
        a, b = (middle - start, end - middle) if k % 2 == 0 else (end - middle, middle - start)
        mine.append(a)
        theirs.append(b)
    return Paired(pick(mine), pick(theirs), tuple(a / b for a, b in zip(mine, theirs)))


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
