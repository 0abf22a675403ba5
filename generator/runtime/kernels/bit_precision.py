"""Bit-level element-wise kernels of the hlir extension ops (operations jax emits as StableHLO that
document 004 lacks): CountLeadingZeros, ReducePrecision and ChloNextAfter.

ReducePrecision works on the bit pattern of each value, so float16, bfloat16, float and double are
all handled by one integer recipe parameterised by the source format's exponent and mantissa widths.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from .conversion import _bit_length

# (unsigned integer view, exponent bits, mantissa bits) of each floating-point storage type.
_FLOAT_LAYOUT: dict[np.dtype[Any], tuple[type[np.unsignedinteger[Any]], int, int]] = {
    np.dtype(np.float16): (np.uint16, 5, 10),
    np.dtype(ml_dtypes.bfloat16): (np.uint16, 8, 7),
    np.dtype(np.float32): (np.uint32, 8, 23),
    np.dtype(np.float64): (np.uint64, 11, 52),
}


def count_leading_zeros(operand: np.ndarray) -> np.ndarray:
    """The number of zero bits above the highest set bit, in the operand's own bit width (the full
    width for 0; 0 for a negative signed value, whose sign bit is set). Result in the operand's type."""
    width = operand.dtype.itemsize * 8
    unsigned = operand.view(np.dtype(f"u{operand.dtype.itemsize}")).astype(np.uint64)
    return (np.uint64(width) - _bit_length(unsigned)).astype(operand.dtype)


def reduce_precision(operand: np.ndarray, *, exponent_bits: int, mantissa_bits: int) -> np.ndarray:
    """Round each value to the nearest value of a float format with `exponent_bits` exponent and
    `mantissa_bits` mantissa bits (ties to even), keeping the operand's type: values beyond that
    format's range become infinities of their sign, values below its smallest normal number become
    zeros of their sign (subnormals of the narrow format are not kept), NaN stays NaN."""
    layout = _FLOAT_LAYOUT.get(operand.dtype)
    if layout is None:
        raise TypeError(f"ReducePrecision: operand type {operand.dtype} is not a floating-point type")
    if exponent_bits < 1 or mantissa_bits < 0:
        raise ValueError(f"ReducePrecision: exponent_bits must be >= 1 and mantissa_bits >= 0, "
                         f"found {exponent_bits} and {mantissa_bits}")
    uint, src_exponent_bits, src_mantissa_bits = layout
    one = uint(1)
    bits = np.ascontiguousarray(operand).view(uint).copy()
    is_nan = np.isnan(operand)
    if mantissa_bits < src_mantissa_bits:
        # Round to nearest even on the kept mantissa bits: add half an ulp minus one, plus the lowest
        # kept bit (so an exact tie rounds to even), then clear the dropped bits. A carry into the
        # exponent is the correct result (the next binade, or infinity).
        dropped = src_mantissa_bits - mantissa_bits
        lowest_kept = one << uint(dropped)
        half_minus_one = (lowest_kept >> one) - one
        bias = ((bits & lowest_kept) >> uint(dropped)) + half_minus_one
        bits = (bits + bias) & ~(lowest_kept - one)
    if exponent_bits < src_exponent_bits:
        sign_mask = one << uint(src_exponent_bits + src_mantissa_bits)
        exponent_mask = ((one << uint(src_exponent_bits)) - one) << uint(src_mantissa_bits)
        src_bias = (1 << (src_exponent_bits - 1)) - 1
        narrow_bias = (1 << (exponent_bits - 1)) - 1
        exponent = bits & exponent_mask
        overflows = exponent > (uint(src_bias + narrow_bias) << uint(src_mantissa_bits))
        underflows = exponent <= (uint(src_bias - narrow_bias) << uint(src_mantissa_bits))
        signed_zero = bits & sign_mask
        bits = np.where(overflows, signed_zero | exponent_mask, np.where(underflows, signed_zero, bits))
    result = bits.astype(uint).view(operand.dtype).reshape(operand.shape)
    # A NaN whose kept mantissa bits are all zero would read as infinity: keep the original NaN.
    return np.where(is_nan, operand, result).astype(operand.dtype)


def next_after(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The value of x's type next to x in the direction of y (subnormals included; y itself where x == y,
    so -0.0 towards +0.0 is +0.0; NaN where either is NaN), computed in that type: float16 and bfloat16
    have steps of their own, which computing in float would lose (NumPy and ml_dtypes both give nextafter
    for their types)."""
    y = y.astype(x.dtype, copy=False)
    with np.errstate(over="ignore"):  # the largest value stepping towards inf gives inf, a result
        # x == y gives y, as C's nextafter does (NumPy's float16 gives x: +0.0 towards -0.0 stayed +0.0)
        return np.asarray(np.where(x == y, y, np.nextafter(x, y)))
