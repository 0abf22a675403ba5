"""oneDNN's own acceptance rules for PReLU, written independently of opgen (the reference of
tests/test_onednn_prelu_rules.py). Facts read from oneDNN's sources, restated here in our code:

- the schema (src/graph/interface/op_def.hpp): PReLU takes src and slope, gives dst, one type T in
  {f32, bf16, f16}; data_format in {NCX, NXC} (default NXC); per_channel_broadcast (default true);
- shape inference (infer_identity_output_shape, validate() in shape_infer.cpp): dst has src's dims; a
  dst that states its shape must have src's rank, and each stated dim (not DNNL_GRAPH_UNKNOWN_DIM)
  must equal src's;
- prelu_doable() (backend/dnnl/passes/utils.cpp), run when the partition is compiled: slope rank
  <= src rank; a 1-D slope is compared with src's last dim (or may be 1) when per_channel_broadcast
  is false or src is 1-D, else with the channel dim (axis 1 for NCX, the last for NXC), exactly; a
  slope of rank >= 2 aligns from the right, each dim equal or 1; a 0-D slope passes no branch;
- insert_unsqueeze_for_prelu() (backend/dnnl/passes/insert_ops.cpp): how the slope is then viewed
  over src, which decides the values computed.

A dimension None is unknown (DNNL_GRAPH_UNKNOWN_DIM): its value comes at compile time, so a use is
accepted when some value of every unknown dimension of src and slope makes the library accept it.
"""
from __future__ import annotations

import itertools
from typing import Sequence

import numpy as np

Dims = Sequence[int | None]


def channel_axis(src_rank: int, data_format: str) -> int:
    return 1 if data_format == "NCX" else src_rank - 1


def doable(src: Sequence[int], slope: Sequence[int], data_format: str, per_channel_broadcast: bool) -> bool:
    """prelu_doable on concrete dims, branch by branch."""
    if len(src) < len(slope):
        return False
    if len(slope) == 1:
        if not per_channel_broadcast or len(src) == 1:
            return src[-1] == slope[0] or slope[0] == 1
        return src[channel_axis(len(src), data_format)] == slope[0]
    ok = False  # the library's loop leaves a 0-D slope undoable
    for i in range(1, len(slope) + 1):
        ok = src[-i] == slope[-i] or slope[-i] == 1
        if not ok:
            break
    return ok


def output_agrees(src: Sequence[int], dst: Dims | None) -> bool:
    """validate(inferred = src dims, expected = dst dims) of the identity shape inference."""
    if dst is None:  # no shape stated (DNNL_GRAPH_UNKNOWN_NDIMS): inference fills it in
        return True
    return len(src) == len(dst) and all(d is None or d == s for s, d in zip(src, dst))


def accepts(src: Dims, slope: Dims, dst: Dims | None, data_format: str, per_channel_broadcast: bool) -> bool:
    """Whether some values of the unknown dims of src and slope make oneDNN accept the op. Only
    equalities between dims matter, so the known dims, 1 and one value unlike all of them suffice."""
    known = {d for shape in (src, slope, dst or ()) for d in shape if d is not None}
    candidates = sorted(known | {1, max(known, default=1) + 1})
    holes = [("src", k) for k, d in enumerate(src) if d is None] + \
        [("slope", k) for k, d in enumerate(slope) if d is None]
    for values in itertools.product(candidates, repeat=len(holes)):
        filled = {"src": list(src), "slope": list(slope)}
        for (which, k), value in zip(holes, values):
            filled[which][k] = value
        s, w = [int(d) for d in filled["src"]], [int(d) for d in filled["slope"]]
        if doable(s, w, data_format, per_channel_broadcast) and output_agrees(s, dst):
            return True
    return False


def library_slope_view(src_rank: int, slope_shape: Sequence[int], data_format: str,
                       per_channel_broadcast: bool) -> tuple[int, ...]:
    """The shape insert_unsqueeze_for_prelu gives the slope: unsqueezed at axes 0..(rank gap - 1), except
    that for NCX with per_channel_broadcast and a gap of 2 or more the second axis moves to the end (-1)."""
    gap = src_rank - len(slope_shape)
    if gap == 0:
        return tuple(slope_shape)
    axes = list(range(gap))
    if data_format == "NCX" and per_channel_broadcast and len(axes) >= 2:
        del axes[1]
        axes.append(-1)
    axes = [a + src_rank if a < 0 else a for a in axes]  # unsqueeze's output rank is src_rank
    dims = iter(slope_shape)
    return tuple(1 if k in axes else next(dims) for k in range(src_rank))


def rule3_view(src_rank: int, slope_shape: Sequence[int], data_format: str,
               per_channel_broadcast: bool) -> tuple[int, ...]:
    """Document 002's placement: a 1-D per-channel slope on the channel axis (rule 1), any other slope
    aligned from the rightmost dimension (rules 2 and 3)."""
    if len(slope_shape) == 1 and per_channel_broadcast and src_rank >= 2:
        axis = channel_axis(src_rank, data_format)
        return tuple(slope_shape[0] if k == axis else 1 for k in range(src_rank))
    return (1,) * (src_rank - len(slope_shape)) + tuple(slope_shape)


def library_dst(src: np.ndarray, slope: np.ndarray, data_format: str, per_channel_broadcast: bool) -> np.ndarray:
    """dst as the library computes it: the slope viewed as the unsqueeze pass views it, then
    dst = src where src >= 0, slope * src elsewhere (computed in float64, as the caller rounds)."""
    view = slope.reshape(library_slope_view(src.ndim, slope.shape, data_format, per_channel_broadcast))
    wide = src.astype(np.float64)
    return np.where(wide >= 0, wide, np.broadcast_to(view.astype(np.float64), src.shape) * wide)
