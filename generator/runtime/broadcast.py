"""Broadcasting rules shared by the validators (is it allowed?) and the kernels (how to align?)."""
from __future__ import annotations

from typing import Sequence

Shape = Sequence[int]


def unidirectional(source: Shape, target: Shape) -> bool:
    """ONNX unidirectional broadcasting: `source` can be broadcast to `target` without changing it."""
    if len(source) > len(target):
        return False
    return all(s == t or s == 1 for s, t in zip(reversed(source), reversed(target)))


def multidirectional(*shapes: Shape) -> tuple[int, ...] | None:
    """NumPy/ONNX multidirectional broadcast of shapes; None when incompatible."""
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(1, rank + 1):
        dims = {s[-k] for s in shapes if len(s) >= k} - {1}
        if len(dims) > 1:
            return None
        out.append(dims.pop() if dims else 1)
    return tuple(reversed(out))


def onnx_prelu_legacy(slope: Shape, x: Shape) -> tuple[int, ...] | None:
    """PRelu-1/6: the shape to view `slope` as, so it broadcasts over `x`; None if not allowed.

    A size-1 slope is shared; a 1-D slope with as many elements as x has
    channels (axis 1) applies per channel; otherwise it must broadcast
    unidirectionally.
    """
    size = 1
    for d in slope:
        size *= d
    if size == 1:
        return (1,) * len(x)
    if len(x) >= 2 and len(slope) == 1 and size == x[1]:
        return (1, x[1]) + (1,) * (len(x) - 2)
    if unidirectional(slope, x):
        return tuple(slope)
    return None


def onednn_channel_axis(rank: int, data_format: str) -> int:
    return 1 if data_format == "NCX" else rank - 1


def onednn_prelu_per_channel(slope_rank: int, src_rank: int, per_channel_broadcast: bool) -> bool:
    """Whether a slope is read per channel (rule 1). oneDNN does so only for a 1-D slope over a src of
    rank 2 or more: over a 1-D src the one axis is both the channel and the rightmost one, so rule 2
    applies (NCX's axis 1 does not exist there)."""
    return slope_rank == 1 and per_channel_broadcast and src_rank >= 2


def onednn_prelu_allows(slope: Sequence[int | None], src: Sequence[int | None], data_format: str,
                        per_channel_broadcast: bool) -> bool:
    """oneDNN PReLU's slope rules, as the library applies them; None is a dimension not known yet, which
    may take any value (the verdict is "allowed" when some value makes the shapes acceptable).

    The slope has rank 1 to rank(src). Rule 1: a 1-D per-channel slope has src's channel length. Otherwise
    the slope aligns with src from the right, each dimension equal or 1 (rule 3, and rule 2 for a 1-D
    slope: the rightmost length, or a single shared value). A scalar slope or src is never allowed.
    """
    def same(a: int | None, b: int | None) -> bool:
        return a is None or b is None or a == b

    if not 1 <= len(slope) <= len(src):
        return False
    if onednn_prelu_per_channel(len(slope), len(src), per_channel_broadcast):
        return same(slope[0], src[onednn_channel_axis(len(src), data_format)])
    return all(same(s, t) or s == 1 for s, t in zip(reversed(slope), reversed(src)))


def onednn_prelu(slope: Shape, src: Shape, data_format: str, per_channel_broadcast: bool) -> tuple[int, ...] | None:
    """oneDNN PReLU: the shape to view `slope` as over `src` (rules 1-3); None if no rule applies."""
    if not onednn_prelu_allows(slope, src, data_format, per_channel_broadcast):
        return None
    rank = len(src)
    if onednn_prelu_per_channel(len(slope), rank, per_channel_broadcast):
        axis = onednn_channel_axis(rank, data_format)
        return tuple(slope[0] if k == axis else 1 for k in range(rank))
    return (1,) * (rank - len(slope)) + tuple(slope)
