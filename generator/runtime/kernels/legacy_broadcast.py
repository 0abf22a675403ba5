"""ONNX's binary operators before multidirectional broadcasting (Add, Sub, Mul, Div 1 and 6; Pow, And, Or,
Xor, Equal, Greater, Less 1): the attributes `broadcast` and `axis` say how B is stretched to A's shape.

- broadcast = 0 (default): A and B have the same shape.
- broadcast = 1: B is one element (a scalar, or any tensor of one element and rank at most A's), or its
  shape equals a contiguous run of A's dimensions, starting at dimension `axis` of A, or ending with A's
  last dimension when axis is not given (suffix matching). A size-1 dimension of B is not stretched
  against a larger one of A ("1-dim expansion doesn't work yet", the ONNX text). ONNX gives no meaning
  to a negative axis; it is refused.

Once B is aligned (reshaped with 1s around the run), each version computes what version 7 of its op
computes (the element-wise formula of the same operator; the changelog of version 7 changes only the
broadcasting): these functions call that kernel. Add-1 and its kin's `consumed_inputs` (an in-place
hint of the first ONNX versions) does not change the result and is ignored.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import generated_ops

_NEWER = 7  # the version whose formula each legacy version computes


def align(a: np.ndarray, b: np.ndarray, broadcast: int, axis: int | None) -> np.ndarray:
    """B reshaped so that NumPy broadcasting stretches it to A's shape exactly as the legacy rule does."""
    if not broadcast:
        if a.shape != b.shape:
            raise ValueError(f"broadcast=0: B's shape {list(b.shape)} must equal A's {list(a.shape)} "
                             "(set broadcast=1 to stretch B)")
        return b
    if b.size == 1 and b.ndim <= a.ndim:
        return b.reshape(())
    if axis is not None and axis < 0:
        raise ValueError(f"axis={axis}: the legacy broadcast gives no meaning to a negative axis")
    start = a.ndim - b.ndim if axis is None else axis
    end = start + b.ndim
    if start < 0 or end > a.ndim or a.shape[start:end] != b.shape:
        where = "A's last dimensions" if axis is None else f"A's dimensions from axis {axis}"
        raise ValueError(f"broadcast=1: B's shape {list(b.shape)} does not equal {where} (A has shape "
                         f"{list(a.shape)})")
    return b.reshape((1,) * start + b.shape + (1,) * (a.ndim - end))


def _apply(op: str, a: np.ndarray, b: np.ndarray, broadcast: int, axis: int | None, **output: Any) -> np.ndarray:
    """Version 7's kernel of op on A and the aligned B; `output`: the bool output's C_dtype, passed on."""
    a, b = np.asarray(a), np.asarray(b)
    kernel = generated_ops().get_kernel("onnx", op, _NEWER)
    return kernel(a, align(a, b, broadcast, axis), **output)[0]


def add(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        consumed_inputs: list[int] | None = None) -> np.ndarray:
    return _apply("Add", A, B, broadcast, axis)


def sub(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        consumed_inputs: list[int] | None = None) -> np.ndarray:
    return _apply("Sub", A, B, broadcast, axis)


def mul(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        consumed_inputs: list[int] | None = None) -> np.ndarray:
    return _apply("Mul", A, B, broadcast, axis)


def div(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        consumed_inputs: list[int] | None = None) -> np.ndarray:
    return _apply("Div", A, B, broadcast, axis)


def pow(X: np.ndarray, Y: np.ndarray, *, broadcast: int = 0, axis: int | None = None) -> np.ndarray:
    return _apply("Pow", X, Y, broadcast, axis)


def logical_and(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("And", A, B, broadcast, axis, C_dtype=C_dtype)


def logical_or(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("Or", A, B, broadcast, axis, C_dtype=C_dtype)


def logical_xor(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("Xor", A, B, broadcast, axis, C_dtype=C_dtype)


def equal(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("Equal", A, B, broadcast, axis, C_dtype=C_dtype)


def greater(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("Greater", A, B, broadcast, axis, C_dtype=C_dtype)


def less(A: np.ndarray, B: np.ndarray, *, broadcast: int = 0, axis: int | None = None,
        C_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    return _apply("Less", A, B, broadcast, axis, C_dtype=C_dtype)
