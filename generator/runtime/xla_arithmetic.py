"""XLA's binary arithmetic for the generated element-wise kernels (hlir Div, Rem, Max, Min, Clamp, Select
and the shifts; the ONNX ops that mean the same): integer division and remainder as XLA defines them (no
trap: x / 0 and INT_MIN / -1 have values), IEEE 754-2019 maximum and minimum (NaN propagates, -0.0 < +0.0),
select as a bit blend, and shifts whose amount may reach or pass the bit width. The generated kernels call
them as `_ew.<name>`: opgen.runtime.elementwise re-exports every public function here."""
from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

# ---- XLA binary arithmetic (hlir Div, Rem, Max, Min, Clamp and the shifts) ----------------------

def _int_div_parts(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Broadcast integer operands, the masks of XLA's special cases and a divisor safe to use."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    zero = b == 0
    overflow = np.zeros(a.shape, bool)
    if a.dtype.kind == "i":
        overflow = (a == np.iinfo(a.dtype).min) & (b == -1)
    safe = np.where(zero | overflow, np.ones_like(b), b)
    return a, b, zero, overflow, safe


def _plain_divisors(a: np.ndarray, b: np.ndarray) -> bool:
    """Integer operands of one type with no divisor 0 and, for signed types, no divisor -1 (which could
    meet INT_MIN): the remainders need none of XLA's special cases."""
    if a.dtype != b.dtype:
        return False
    if b.dtype.kind == "i":
        return not bool(np.any((b == 0) | (b == -1)))
    return bool(np.all(b))


def xla_div(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """XLA Div. Floats: IEEE a / b. Integers: the quotient truncated toward zero (C, not Python's
    floor); x / 0 = -1 (all bits set, the maximum for unsigned types) and INT_MIN / -1 = INT_MIN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu":
        return a / b
    a, b, zero, overflow, safe = _int_div_parts(a, b)
    remainder = np.fmod(a, safe)  # C's %, the sign of the dividend
    quotient = (a - remainder) // safe  # exact: a - remainder is a multiple of the divisor
    all_ones = np.array(-1).astype(a.dtype) if a.dtype.kind == "i" else np.array(np.iinfo(a.dtype).max, a.dtype)
    return np.where(zero, all_ones, np.where(overflow, a, quotient)).astype(a.dtype)


def xla_rem(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """XLA Rem: the remainder with the sign of the dividend (C fmod / %). Integers: x % 0 = x and
    INT_MIN % -1 = 0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu":
        return np.fmod(a, b)
    if _plain_divisors(a, b):  # no x % 0 or INT_MIN % -1: C's % is NumPy's fmod
        return np.asarray(np.fmod(a, b)).astype(a.dtype, copy=False)
    a, b, zero, overflow, safe = _int_div_parts(a, b)
    return np.where(zero, a, np.where(overflow, np.zeros_like(a), np.fmod(a, safe))).astype(a.dtype)


def floor_mod(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """The remainder with the sign of the divisor (Python's %; ONNX Mod with fmod=0). Floats: NumPy's
    remainder (a zero result takes b's sign; x mod 0 and inf mod y are NaN). Integers: xla_rem's remainder
    plus b where it is nonzero and of the other sign, so x mod 0 = x and INT_MIN mod -1 = 0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind not in "iu":
        return np.remainder(a, b)
    if _plain_divisors(a, b):  # no x mod 0 or INT_MIN mod -1: the remainder is Python's %, NumPy's remainder
        return np.asarray(np.remainder(a, b)).astype(a.dtype, copy=False)
    r = xla_rem(a, b)
    if a.dtype.kind == "u":
        return r
    b = np.broadcast_to(b, r.shape)
    return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r).astype(a.dtype)


def _zero_tie_possible(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether max/min may have to choose between -0.0 and +0.0: not when either operand is a single
    non-zero value (a tie needs two zeros; NaN is no zero)."""
    return not ((a.ndim == 0 and a != 0) or (b.ndim == 0 and b != 0))


_SIGNED_OF_SIZE: dict[int, np.dtype[Any]] = {2: np.dtype(np.int16), 4: np.dtype(np.int32), 8: np.dtype(np.int64)}


def _may_need_zero_fix(out: np.ndarray, take_negative: bool) -> bool:
    """Whether np.maximum (np.minimum) may have picked the zero of the wrong sign somewhere: each returns
    one of its operands, so a wrong maximum is a -0.0 where +0.0 was due, a wrong minimum a +0.0 where
    -0.0 was due."""
    return may_hold_zero(out, negative=not take_negative)


def may_hold_zero(out: np.ndarray, negative: bool) -> bool:
    """Whether a floating array holds a -0.0 (negative) or a +0.0 (not negative); True also when it cannot
    tell them apart cheaply (widths without an integer twin: any zero). Asked of the bits in one integer
    min-reduction, no temporary array: as a signed integer -0.0 is the lowest value of its width (sign bit
    alone), as an unsigned one +0.0 is 0; half the cost of the `out == 0` test and its boolean array."""
    signed = _SIGNED_OF_SIZE.get(out.dtype.itemsize)
    if signed is None or out.size == 0 or out.dtype.kind != "f":
        return bool(np.any(out == 0))
    # np.minimum.reduce itself, not ndarray.min (its Python wrapper) nor np.iinfo: a few us a call
    if not negative:  # a +0.0
        return bool(np.minimum.reduce(out.view(_UNSIGNED_OF_SIZE[out.dtype.itemsize]), axis=None) == 0)
    return bool(np.minimum.reduce(out.view(signed), axis=None) == _LOWEST_SIGNED[signed])  # a -0.0


_LOWEST_SIGNED: dict[np.dtype[Any], int] = {t: int(np.iinfo(t).min) for t in _SIGNED_OF_SIZE.values()}


def _signed_zero_fix(a: np.ndarray, b: np.ndarray, out: np.ndarray, take_negative: bool) -> np.ndarray:
    """Where out is zero, the zero of the right sign: -0.0 when take_negative and either operand is
    -0.0 (minimum), else +0.0 unless both are -0.0 (maximum). Only the zero results are looked at."""
    if not _may_need_zero_fix(np.asarray(out), take_negative):
        return out
    zero = out == 0
    a, b = np.broadcast_to(a, out.shape)[zero], np.broadcast_to(b, out.shape)[zero]
    negative = (np.signbit(a) | np.signbit(b)) if take_negative else (np.signbit(a) & np.signbit(b))
    out = np.array(out)
    out[zero] = np.where(negative, -0.0, 0.0)
    return out


def _against_scalar(a: np.ndarray, b: np.ndarray, largest: bool) -> np.ndarray | None:
    """max (min) of a floating array and a 0-d operand of its type as np.clip against +-inf, which
    NumPy runs about 3x faster than np.maximum with a 0-d operand; NaN propagates the same way. None
    when the operands are not such a pair."""
    if a.dtype != b.dtype or a.dtype.kind != "f" or (a.ndim == 0) == (b.ndim == 0):
        return None
    array, scalar = (a, b) if b.ndim == 0 else (b, a)
    inf = np.array(np.inf, array.dtype)
    return np.clip(array, scalar, inf) if largest else np.clip(array, -inf, scalar)


def ieee_maximum(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """IEEE 754-2019 maximum (XLA Max): NaN if either is NaN, and max(-0.0, +0.0) = +0.0."""
    a, b = np.asarray(a), np.asarray(b)
    out = _against_scalar(a, b, largest=True)
    if out is None:
        out = np.maximum(a, b)  # propagates NaN
    if out.dtype.kind != "f" or not _zero_tie_possible(a, b):
        return out
    return _signed_zero_fix(a, b, out, take_negative=False)


def ieee_minimum(a: npt.ArrayLike, b: npt.ArrayLike) -> np.ndarray:
    """IEEE 754-2019 minimum (XLA Min): NaN if either is NaN, and min(-0.0, +0.0) = -0.0."""
    a, b = np.asarray(a), np.asarray(b)
    out = _against_scalar(a, b, largest=False)
    if out is None:
        out = np.minimum(a, b)
    if out.dtype.kind != "f" or not _zero_tie_possible(a, b):
        return out
    return _signed_zero_fix(a, b, out, take_negative=True)


def ieee_clamp(x: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike) -> np.ndarray:
    """ieee_minimum(ieee_maximum(x, low), high) (XLA Clamp, ONNX Clip), in one np.clip pass when the bounds
    are single ordered non-zero numbers of x's floating type: then no signed-zero tie can occur and np.clip
    gives x itself (NaN included) between the bounds and the bound beyond them, as the two steps do."""
    x, low, high = np.asarray(x), np.asarray(low), np.asarray(high)
    if (x.dtype.kind == "f" and x.ndim and low.ndim == 0 and high.ndim == 0 and low.dtype == x.dtype == high.dtype
            and low != 0 and high != 0 and low <= high):  # False for a NaN bound
        return np.clip(x, low, high)
    return ieee_minimum(ieee_maximum(x, low), high)


_UNSIGNED_OF_SIZE: dict[int, np.dtype[Any]] = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
                                                8: np.dtype(np.uint64)}


def select(condition: npt.ArrayLike, on_true: npt.ArrayLike, on_false: npt.ArrayLike) -> np.ndarray:
    """np.where(condition, on_true, on_false), bit for bit, without branches: NumPy's where branches per
    element and runs about 5x slower on unpredictable conditions. The operands' bits are blended with
    an all-ones/all-zeros mask made from the condition (types of 1, 2, 4 or 8 bytes; others use where)."""
    if _size(condition) <= _SMALL_SELECT and _size(on_true) <= _SMALL_SELECT and _size(on_false) <= _SMALL_SELECT:
        # small operands: np.where's per-element branches cost less than the blend's fixed cost (dtype
        # look-ups, views, masks: about 8 us); same bits either way
        return np.where(condition, on_true, on_false)
    dtype = np.result_type(on_true, on_false)
    unsigned = _UNSIGNED_OF_SIZE.get(dtype.itemsize) if dtype.kind != "O" else None
    if unsigned is None:
        return np.where(condition, on_true, on_false)
    a, b = np.asarray(on_true, dtype), np.asarray(on_false, dtype)
    condition = np.asarray(condition, np.bool_)
    shape = np.broadcast_shapes(condition.shape, a.shape, b.shape)
    if condition.shape == shape and condition.ndim:
        return _select_in_place(condition, a.view(unsigned), b.view(unsigned), unsigned).view(dtype)
    mask = np.negative(condition.astype(unsigned))  # all ones where true
    bits = (a.view(unsigned) & mask) | (b.view(unsigned) & ~mask)
    return np.broadcast_to(bits, shape).view(dtype) if bits.shape != shape else bits.view(dtype)


_SMALL_SELECT = 4096  # elements: below this np.where is faster than the blend (measured on float32 Relu)


def _size(value: npt.ArrayLike) -> int:
    kind = type(value)
    if kind is np.ndarray:
        return value.size  # type: ignore[union-attr]
    return 1 if kind is int or kind is float or kind is bool else int(np.size(value))


def _select_in_place(condition: np.ndarray, a: np.ndarray, b: np.ndarray, unsigned: np.dtype) -> np.ndarray:
    """select() on the operands' bits when the condition has the result's shape: the mask array made from
    the condition becomes the result in place, so that no further temporary is allocated (each one costs
    a pass over fresh memory). A branch that is a single all-zero value (Relu's 0) needs no blend at all:
    the mask keeps the other branch's bits. A condition that is the same everywhere (all inputs of a Relu
    positive, say) takes a copy of one operand: one pass instead of the blend's four. Telling costs one
    scan of the condition when it is uniform, and almost nothing otherwise (all() and any() stop at the
    first element that decides them)."""
    if condition.all():
        return _bits_copy(a, condition.shape, unsigned)
    if not condition.any():
        return _bits_copy(b, condition.shape, unsigned)
    if a.ndim == 0 and not a:
        keep = condition.astype(unsigned)  # 1 where true ...
        keep -= unsigned.type(1)  # ... all ones where false: keep on_false there, 0 elsewhere
        return np.bitwise_and(keep, b, out=keep)
    mask = condition.astype(unsigned)
    np.negative(mask, out=mask)  # all ones where true
    if b.ndim == 0 and not b:
        return np.bitwise_and(mask, a, out=mask)
    # b ^ ((a ^ b) & mask): a's bits where the mask is set, b's elsewhere (operands broadcast to the mask)
    np.bitwise_and(mask, np.bitwise_xor(a, b), out=mask)
    return np.bitwise_xor(mask, b, out=mask)


def _bits_copy(operand: np.ndarray, shape: tuple[int, ...], unsigned: np.dtype) -> np.ndarray:
    """A new array of `shape` holding `operand`'s bits (broadcast): never the operand itself, which may be
    the caller's input."""
    out = np.empty(shape, unsigned)
    np.copyto(out, operand)
    return out


def _shift_parts(x: npt.ArrayLike, amount: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]:
    """x's bits as unsigned 64-bit values, its width, and which amounts lie outside [0, width)."""
    x, amount = np.broadcast_arrays(np.asarray(x), np.asarray(amount))
    if x.dtype.kind not in "iu" or amount.dtype.kind not in "iu":
        raise TypeError(f"shifts take integers, not {x.dtype} and {amount.dtype}")
    bits = 8 * x.dtype.itemsize
    unsigned = np.dtype(f"u{x.dtype.itemsize}")
    outside = (amount < 0) | (amount >= bits) if amount.dtype.kind == "i" else amount >= bits
    count = np.where(outside, 0, amount).astype(np.uint64)
    return x, x.view(unsigned).astype(np.uint64), bits, outside, count


def shift_left(x: npt.ArrayLike, amount: npt.ArrayLike) -> np.ndarray:
    """XLA ShiftLeft: x << amount in x's width; 0 when the amount is negative or >= the width."""
    x, u, bits, outside, count = _shift_parts(x, amount)
    out = np.where(outside, np.uint64(0), u << count)
    return out.astype(f"u{x.dtype.itemsize}").view(x.dtype)


def shift_right_logical(x: npt.ArrayLike, amount: npt.ArrayLike) -> np.ndarray:
    """XLA ShiftRightLogical: x's bits shifted right, filled with 0; 0 when the amount is negative
    or >= the width."""
    x, u, bits, outside, count = _shift_parts(x, amount)
    out = np.where(outside, np.uint64(0), u >> count)
    return out.astype(f"u{x.dtype.itemsize}").view(x.dtype)


def shift_right_arithmetic(x: npt.ArrayLike, amount: npt.ArrayLike) -> np.ndarray:
    """XLA ShiftRightArithmetic: x's bits, read as signed, shifted right and filled with the sign
    bit; all sign bits when the amount is negative or >= the width. Unsigned x is read as signed."""
    x, u, bits, outside, count = _shift_parts(x, amount)
    signed = np.dtype(f"i{x.dtype.itemsize}")
    s = u.astype(f"u{x.dtype.itemsize}").view(signed).astype(np.int64)  # sign-extended
    out = np.where(outside, np.where(s < 0, np.int64(-1), np.int64(0)), s >> count.astype(np.int64))
    return out.astype(signed).view(x.dtype)


def shift_right(x: npt.ArrayLike, amount: npt.ArrayLike) -> np.ndarray:
    """x shifted right keeping its sign: arithmetic for signed x, logical for unsigned x (ONNX BitShift
    RIGHT); amounts outside [0, bit width) give the fill alone (-1 for negative x, else 0)."""
    if np.asarray(x).dtype.kind == "i":
        return shift_right_arithmetic(x, amount)
    return shift_right_logical(x, amount)
