"""Element-wise binary and ternary hlir operators that one formula cannot state: Compare (a string
attribute picks the comparison), Complex (a complex result), Pow (base and exponent of different
types), ShiftLeft (an int64 shift amount for unsigned operands) and Select (a bool predicate with
operands of another type).

The generated kernel has validated the arguments (types and shapes) before calling these."""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import elementwise as _ew
from .conversion import _BF16, _float_to_float, _float_to_int

# ---- Compare ---------------------------------------------------------------------------------

_ORDERED = {"GE": np.greater_equal, "GT": np.greater, "LE": np.less_equal, "LT": np.less}


def compare(lhs: np.ndarray, rhs: np.ndarray, *, comparison_direction: str,
            output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """XLA Compare with the default comparison type of each element type.

    Floats compare as IEEE-754 quiet comparisons (NaN is unordered: only NE is true; -0.0 == +0.0),
    integers by value, bool as unsigned (false < true). Complex numbers compare lexicographically
    by (real, imag), each part as a float (StableHLO; note complex_ordering)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    direction = comparison_direction
    with np.errstate(invalid="ignore"):
        if lhs.dtype.kind == "c":
            out = _compare_complex(lhs, rhs, direction)
        elif direction == "EQ":
            out = lhs == rhs
        elif direction == "NE":
            out = lhs != rhs
        elif direction in _ORDERED:
            if lhs.dtype.kind == "b":
                lhs, rhs = lhs.astype(np.uint8), rhs.astype(np.uint8)
            out = _ORDERED[direction](lhs, rhs)
        else:
            raise ValueError(f"comparison_direction {direction!r} is not one of EQ, NE, GE, GT, LE, LT")
    return np.asarray(out, dtype=np.bool_)


def _compare_complex(lhs: np.ndarray, rhs: np.ndarray, direction: str) -> np.ndarray:
    lr, li, rr, ri = lhs.real, lhs.imag, rhs.real, rhs.imag
    if direction == "EQ":
        return (lr == rr) & (li == ri)
    if direction == "NE":
        return ~((lr == rr) & (li == ri))
    if direction not in _ORDERED:
        raise ValueError(f"comparison_direction {direction!r} is not one of EQ, NE, GE, GT, LE, LT")
    strict = np.greater if direction in ("GE", "GT") else np.less
    return strict(lr, rr) | ((lr == rr) & _ORDERED[direction](li, ri))


# ---- Complex ---------------------------------------------------------------------------------

def complex(lhs: np.ndarray, rhs: np.ndarray, *, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """Complex(lhs, rhs) = lhs + i*rhs, each part taken exactly as given (an infinite or NaN part
    stays in its place; no complex multiplication is involved). The result is complex64 (note
    complex_type): float16 parts are exact in it, double parts are rounded to float once."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    dtype = np.dtype(output_dtype) if output_dtype is not None else np.dtype(np.complex64)
    part = np.float32 if dtype == np.complex64 else np.float64
    with np.errstate(over="ignore"):  # a double part beyond float's range becomes +-inf
        real, imag = np.broadcast_arrays(lhs.astype(part), rhs.astype(part))
    out = np.empty(real.shape, dtype)
    out.real = real
    out.imag = imag
    return out


# ---- Pow -------------------------------------------------------------------------------------

def _int_power(base: np.ndarray, exponent: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """base ** exponent for integers, wrapping modulo 2**bits like repeated multiplication in the type.

    A negative exponent gives the integer part of 1 / base**-exponent: 1 for base 1, +-1 for base -1
    (by the exponent's parity), 0 otherwise, 0 for base 0 included (note pow_integer)."""
    base, exponent = np.broadcast_arrays(base.astype(dtype), exponent)
    negative = exponent < 0 if exponent.dtype.kind == "i" else np.zeros(exponent.shape, bool)
    odd = (exponent % 2) != 0
    remaining = np.where(negative, 0, exponent).astype(np.uint64)
    factor = base.astype(np.uint64)  # two's complement bits; products wrap modulo 2**64
    acc = np.ones(base.shape, np.uint64)
    with np.errstate(over="ignore"):
        while np.any(remaining):
            acc = np.where(remaining & np.uint64(1), acc * factor, acc)
            factor = factor * factor
            remaining = remaining >> np.uint64(1)
    positive = acc.astype(dtype)  # modulo 2**bits, then read as signed
    one, minus_one = np.ones_like(base), -np.ones_like(base)
    reciprocal = np.where(base == 1, one, np.where((base == -1) & odd, minus_one,
                                                     np.where(base == -1, one, np.zeros_like(base))))
    return np.where(negative, reciprocal, positive).astype(dtype)


def pow(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Pow(lhs, rhs) = lhs ** rhs, with ONNX Pow's typing (base T, exponent T1, result T) and
    multidirectional broadcasting; also ONNX Pow 12, 13 and 15, whose bfloat16 bases and exponents
    compute like float16's.

    - float base, integer exponent: C pow() with the exponent's exact parity: |lhs| ** rhs in double,
      negative when lhs has its sign bit set and rhs is odd; rounded once to T.
    - float base, float exponent: C pow() in float (double when either operand is double), rounded
      once to T.
    - integer base, integer exponent: exact, wrapping (see _int_power).
    - integer base, float exponent: pow() in double, converted to T toward zero, saturating, NaN -> 0
      (note pow_integer)."""
    lhs, rhs = np.asarray(lhs), np.asarray(rhs)
    out = lhs.dtype
    with np.errstate(all="ignore"):
        if _is_floating(out):
            if rhs.dtype.kind in "iu":
                base = lhs.astype(np.float64)
                magnitude = np.power(np.abs(base), rhs.astype(np.float64))
                negative = np.signbit(base) & ((rhs % 2) != 0)
                return _float_to_float(np.where(negative, -magnitude, magnitude), out)
            wide = np.dtype(np.float64) if np.float64 in (lhs.dtype, rhs.dtype) else np.dtype(np.float32)
            # the operands are only read: copy=False spares two copies when they already have that type
            power = np.power(lhs.astype(wide, copy=False), rhs.astype(wide, copy=False))
            return power if power.dtype == out else _float_to_float(power, out)  # a fresh array either way
        if rhs.dtype.kind in "iu":
            return _int_power(lhs, rhs, out)
        value = np.power(lhs.astype(np.float64), rhs.astype(np.float64))
        return _float_to_int(value, out)  # Convert's float -> integer rule


def _is_floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == _BF16


# ---- ShiftLeft -------------------------------------------------------------------------------

def shift_left(lhs: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """ShiftLeft(lhs, rhs): lhs << rhs in lhs's width (XLA); the int64 shift amount is used as a
    number, so an amount that is negative or not below the width gives 0 (note shift_amount)."""
    return _ew.shift_left(np.asarray(lhs), np.asarray(rhs))


# ---- Select ----------------------------------------------------------------------------------

def select(pred: np.ndarray, on_true: np.ndarray, on_false: np.ndarray) -> np.ndarray:
    """Select: on_true where pred is true, else on_false; a scalar pred picks a whole operand."""
    pred, on_true, on_false = np.asarray(pred), np.asarray(on_true), np.asarray(on_false)
    return np.where(pred, on_true, on_false).astype(on_true.dtype, copy=False)
