"""The statistics behind `make bench`'s SLOWER marks (tests/benchmarks/timing.py): the sign test's p-value
against scipy's binomial test, and the marks it gives. A mark is what a reader of the tables acts on, so a
wrong test would hide a slow kernel or flag a fast one."""
from __future__ import annotations

import sys
from itertools import cycle, islice
from pathlib import Path

import pytest
from scipy.stats import binomtest

sys.path.insert(0, str(Path(__file__).parent / "benchmarks"))
from timing import SIGNIFICANCE, Paired, paired, paired_times  # noqa: E402


def rounds(slower: int, total: int, by: float = 1.05) -> Paired:
    """`slower` rounds at `by`, the others at 1/by (ours / peer)."""
    ratios = (by,) * slower + (1 / by,) * (total - slower)
    return Paired(ours=1.0, peer=1.0, ratios=ratios)


@pytest.mark.parametrize("slower,total", [(0, 8), (8, 8), (6, 8), (23, 41), (28, 41), (29, 41), (41, 41), (12, 15)])
def test_p_value_is_the_one_sided_binomial_tail(slower: int, total: int) -> None:
    expected = binomtest(slower, total, 0.5, alternative="greater").pvalue
    assert rounds(slower, total).p_value == pytest.approx(expected, rel=1e-12)


def test_marks_follow_the_sign_test() -> None:
    # 41 rounds: 28 slower rounds do not pass at 1% (p = 0.0138), 29 do (p = 0.0058)
    assert rounds(28, 41).flag.startswith(" ~1 (slower in 28 of 41 rounds)")
    assert not rounds(28, 41).consistently_slower
    assert rounds(29, 41).flag == " SLOWER" and rounds(29, 41).consistently_slower
    assert rounds(29, 41).p_value < SIGNIFICANCE <= rounds(28, 41).p_value
    # a median at or below 1.0 is no mark, however the rounds fall
    assert rounds(20, 41).flag == "" and rounds(20, 41).ratio < 1.0
    # the fewest rounds paired() takes for a slow peer can still show a real difference
    assert rounds(8, 8).consistently_slower and not rounds(7, 8).consistently_slower


def test_paired_alternates_the_order_and_keeps_each_side_its_own_time() -> None:
    """A clock that charges each call by who made it: ours always takes 3 ticks, the peer 2, whichever
    goes first. The ratios must all be 1.5 and the calls must alternate first and second."""
    calls: list[str] = []
    now = [0.0]

    def clock() -> float:
        return now[0]

    def ours() -> None:
        calls.append("ours")
        now[0] += 3

    def peer() -> None:
        calls.append("peer")
        now[0] += 2

    result = paired(ours, peer, repeat=6, clock=clock, min_rounds=6)
    assert result.ratios == (1.5,) * 6 and (result.ours, result.peer) == (3, 2)
    timed = calls[2:]  # after one warm-up call of each
    assert timed == list(islice(cycle(["ours", "peer", "peer", "ours"]), 12))

    # out of time budget: the fewest rounds, no more; paired_times takes every round it is asked for
    assert len(paired(ours, peer, repeat=41, clock=clock, budget_s=0, min_rounds=8).ratios) == 8
    calls.clear()
    assert paired_times(ours, peer, 5, clock=clock) == (3, 2) and len(calls) == 2 + 2 * 5
