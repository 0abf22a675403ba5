"""Parts of complex numbers: hlir Real, Imag (XLA Real/Imag), StablehloImag, StablehloComplexAbs and
StablehloComplexExp.

A complex64 element yields float32 parts, complex128 float64 parts; a floating-point element is its
own real part and has imaginary part 0 (of its own type)."""
from __future__ import annotations

from typing import Any

import numpy as np

_COMPONENT: dict[np.dtype[Any], np.dtype[Any]] = {np.dtype(np.complex64): np.dtype(np.float32),
                                                  np.dtype(np.complex128): np.dtype(np.float64)}


def _component(dtype: np.dtype) -> np.dtype:
    return _COMPONENT.get(np.dtype(dtype), np.dtype(dtype))


def real(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """The real part of every element; `output_dtype` must be the input's component type."""
    x = np.asarray(input)
    want = _component(x.dtype)
    if np.dtype(output_dtype) != want:
        raise ValueError(f"Real: the output of a {x.dtype} input has type {want}, not {np.dtype(output_dtype)}")
    return np.array(np.real(x), dtype=want, copy=True)


def imag(input: np.ndarray) -> np.ndarray:
    """The imaginary part of every element (0 of the input's type for a floating-point input)."""
    x = np.asarray(input)
    if x.dtype.kind == "c":
        return np.array(np.imag(x), dtype=_component(x.dtype), copy=True)
    return np.zeros(x.shape, x.dtype)


def imag_part(operand: np.ndarray, *, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """StablehloImag: imag(), whose output has the input's component type (`output_dtype`, when given, must
    be that type)."""
    x = np.asarray(operand)
    if output_dtype is not None and np.dtype(output_dtype) != _component(x.dtype):
        raise ValueError(f"StablehloImag: the output of a {x.dtype} input has type {_component(x.dtype)}, "
                         f"not {np.dtype(output_dtype)}")
    return imag(x)


def modulus(operand: np.ndarray, *, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """StablehloComplexAbs: |a + bi| = hypot(a, b) in the input's component type (+inf when a part is
    infinite, even beside a NaN); `output_dtype`, when given, must be that type."""
    x = np.asarray(operand)
    want = _component(x.dtype)
    if output_dtype is not None and np.dtype(output_dtype) != want:
        raise ValueError(f"StablehloComplexAbs: the output of a {x.dtype} input has type {want}, "
                         f"not {np.dtype(output_dtype)}")
    return np.asarray(np.abs(x), dtype=want)


def complex_exp(operand: np.ndarray) -> np.ndarray:
    """StablehloComplexExp: e^a (cos b + i sin b) in the operand's type, special values as C99's cexp (NumPy's
    exp of complex numbers is cexp)."""
    with np.errstate(all="ignore"):
        return np.asarray(np.exp(np.asarray(operand)))
