"""hlir CustomCall (a registry of Python targets) and PartialReduce (XLA ApproxTopK's partial reduction).

CustomCall: XLA calls `extern "C" void target_name(void* out, void** in)`; the reference looks
`target_name` up in a registry of Python functions instead (spec note target_registry):

    from opgen.runtime.kernels import custom
    custom.register_target("my_add", lambda a, b, *, shape, dtype: (a + b).astype(dtype))

A target is called as fn(*args, shape=shape, dtype=dtype) with the arguments as read-only arrays (a
target must not have side effects) and returns the output, which must have exactly that shape and
dtype. An unknown target_name is an error naming the registered targets.

PartialReduce (spec note partial_reduce_windows): along reduction_dim, with L the output size
ceil(ceil(n / T) / 2^log2_reduction) * T (T = 1024 for rank 1, else 128, XLA's TPU tiling), element i
of the inputs belongs to window i mod L: every window holds the elements i, i + L, i + 2L, ... (about
2^log2_reduction of them). Output j is the top-1 of window j: starting from the init values, an element
replaces the current best when comparator(element..., best...) is true, i.e. it comes strictly before
it; earlier elements win ties, and an empty window gives the init values. The comparator is called
element-wise on arrays (as a scalar comparator written with NumPy or hlir element-wise ops is), with
the arguments (lhs_0, rhs_0, lhs_1, rhs_1, ...); a comparator graph declared on scalars is run on
whole arrays in the same way (its nodes must be element-wise, as Compare, Select, And, Or are).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ..graph_runner import as_callable, results
from . import generated_ops

# ---- CustomCall ----------------------------------------------------------------------------------

_TARGETS: dict[str, Callable[..., np.ndarray]] = {}


def register_target(name: str, fn: Callable[..., np.ndarray], *, replace: bool = False) -> None:
    """Make `fn` the CustomCall target `name`: fn(*args, shape=tuple, dtype=np.dtype) -> array."""
    if not callable(fn):
        raise TypeError(f"target {name!r} must be callable")
    if name in _TARGETS and not replace and _TARGETS[name] is not fn:
        raise ValueError(f"CustomCall target {name!r} is already registered (pass replace=True)")
    _TARGETS[name] = fn


def unregister_target(name: str) -> None:
    _TARGETS.pop(name, None)


def registered_targets() -> list[str]:
    return sorted(_TARGETS)


def _read_only(x: np.ndarray) -> np.ndarray:
    view = np.asarray(x).view()
    view.flags.writeable = False
    return view


def custom_call(args: Sequence[np.ndarray], *, target_name: str, shape: Any,
                output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """Calls the registered target `target_name` on args; its result must have `shape` and output_dtype."""
    fn = _TARGETS.get(target_name)
    if fn is None:
        known = ", ".join(registered_targets()) or "none"
        raise LookupError(f"CustomCall target {target_name!r} is not registered; registered targets: {known} "
                          f"(register one with opgen.runtime.kernels.custom.register_target)")
    shape, dtype = tuple(int(d) for d in shape), np.dtype(output_dtype)
    out = np.asarray(fn(*(_read_only(a) for a in args), shape=shape, dtype=dtype))
    if out.shape != shape or out.dtype != dtype:
        raise ValueError(f"CustomCall target {target_name!r} returned {out.dtype} {out.shape}; "
                         f"the node declares {dtype} {shape}")
    return np.array(out, copy=True)


# ---- PartialReduce -------------------------------------------------------------------------------

TPU_LANE_TILING = 128  # rank >= 2
TPU_CHUNK_TILING = 1024  # rank 1


def output_size(n: int, rank: int, log2_reduction: int) -> int:
    """XLA's approx_output_size: ceil(ceil(n / T) / 2^log2_reduction) * T."""
    tiling = TPU_CHUNK_TILING if rank == 1 else TPU_LANE_TILING
    tiles = -(-n // tiling)
    return -(-tiles // (1 << log2_reduction)) * tiling


def partial_reduce(inputs: Sequence[np.ndarray], init_values: Sequence[np.ndarray], *, comparator: Callable[..., Any],
                   top_k: int, reduction_dim: int, recall_target: float = 0.9, log2_reduction: int) -> tuple[np.ndarray,
                   ...]:
    """Top-1 of every window {i, i + L, i + 2L, ...} along reduction_dim (see the module docstring).
    top_k and recall_target choose log2_reduction upstream and do not change the result."""
    xs = [np.asarray(x) for x in inputs]
    inits = [np.asarray(v) for v in init_values]
    if not xs or len(xs) != len(inits):
        raise ValueError(f"PartialReduce needs one init value per input: {len(xs)} inputs, {len(inits)} init_values")
    rank = xs[0].ndim
    if rank == 0 or not 0 <= int(reduction_dim) < rank:
        raise ValueError(f"reduction_dim {reduction_dim} must be a dimension of the inputs (rank {rank} >= 1)")
    for k, (x, v) in enumerate(zip(xs, inits)):
        if x.shape != xs[0].shape or v.ndim != 0 or v.dtype != x.dtype:
            raise ValueError(f"input {k}: every input needs the shape {xs[0].shape} and a scalar init value "
                             f"of its own type; found {x.dtype} {x.shape} and init {v.dtype} {v.shape}")
    if int(log2_reduction) < 0:
        raise ValueError(f"log2_reduction {log2_reduction} must be >= 0")
    before = as_callable(comparator, "PartialReduce comparator", elementwise=True,
                         resolver=generated_ops)
    axis = int(reduction_dim)
    n = xs[0].shape[axis]
    size = output_size(n, rank, int(log2_reduction))
    windows = -(-n // size) if size else 0  # the number of chunks of `size` consecutive elements
    # chunk c holds the elements c*size .. c*size + size - 1; window j takes position j of every chunk
    padded = [np.concatenate([np.moveaxis(x, axis, -1),
                              np.broadcast_to(v, x.shape[:axis] + x.shape[axis + 1:] + (windows * size - n,))],
                             axis=-1) for x, v in zip(xs, inits)]
    valid = np.arange(windows * size) < n
    best = [np.broadcast_to(v, p.shape[:-1] + (size,)).copy() for v, p in zip(inits, padded)]
    for c in range(windows):
        chunk = [p[..., c * size:(c + 1) * size] for p in padded]
        pairs = [a for candidate, current in zip(chunk, best) for a in (candidate, current)]
        wins = np.asarray(results(before(*pairs), "the PartialReduce comparator")[0], dtype=bool)
        wins = np.broadcast_to(wins, chunk[0].shape) & valid[c * size:(c + 1) * size]
        best = [np.where(wins, candidate, current) for candidate, current in zip(chunk, best)]
    return tuple(np.moveaxis(b, -1, axis).astype(x.dtype, copy=False) for b, x in zip(best, xs))
