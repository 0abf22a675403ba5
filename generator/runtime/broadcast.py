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


def onednn_prelu(slope: Shape, src: Shape, data_format: str, per_channel_broadcast: bool) -> tuple[int, ...] | None:
    """oneDNN PReLU: the shape to view `slope` as over `src` (rules 1-3); None if no rule applies."""
    rank = len(src)
    if len(slope) == 1:
        if rank == 0:
            return None
        axis = onednn_channel_axis(rank, data_format) if per_channel_broadcast else rank - 1
        if axis < 0 or slope[0] != src[axis]:
            return None
        return tuple(slope[0] if k == axis else 1 for k in range(rank))
    if unidirectional(slope, src):  # rule 3
        return (1,) * (rank - len(slope)) + tuple(slope)
    return None
