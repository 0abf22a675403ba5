"""Helpers for the generated element-wise NumPy kernels."""
from __future__ import annotations

import functools

from typing import Any, Callable, ParamSpec, Sequence, TypeVar

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import broadcast
from ..dtypes import ELEM_TYPES
from ..dtypes import elem_of_numpy

P = ParamSpec("P")
R = TypeVar("R")

_LOW_PRECISION = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def elem(dtype: Any) -> str | None:
    """The spec name of a dtype (used by the generated kernels); a sequence or optional type, already
    spelled as the spec spells it (seq(tensor(float))), and None stay what they are."""
    return dtype if dtype is None or isinstance(dtype, str) else elem_of_numpy(dtype)


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """float16 and bfloat16 are computed in float32 and rounded once at the end."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float32) if dtype in _LOW_PRECISION else dtype


def numpy_dtype(elem: str) -> np.dtype:
    return ELEM_TYPES[elem].numpy


def ieee_results(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorator for kernels: infinities, NaN and overflow when rounding to the output type are
    results there, not warnings."""
    @functools.wraps(fn)
    def quiet(*args: P.args, **kwargs: P.kwargs) -> R:
        with np.errstate(all="ignore"):
            return fn(*args, **kwargs)
    return quiet


def finish(value: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Round the computed result once to the output dtype."""
    return np.asarray(value).astype(dtype, copy=False)


def fold(arrays: Sequence[np.ndarray], compute: np.dtype,
         step: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
    """The accumulator of a fold (spec elementwise.fold: Max, Sum, ...): a copy of the first array in the compute
    type, then step(acc, x) with each further array in order, converted to the compute type. NumPy broadcasts
    the operands (multidirectional), so the result has their broadcast shape; nothing is rounded to the
    element type here (finish() does that once)."""
    acc = np.array(arrays[0], dtype=compute)  # a copy: the kernel never returns its input array itself
    for x in arrays[1:]:
        acc = np.asarray(step(acc, np.asarray(x).astype(compute, copy=False)))
    return acc


def align_onnx_prelu_legacy(slope: np.ndarray, x_shape: Sequence[int]) -> np.ndarray:
    return slope.reshape(broadcast.onnx_prelu_legacy(slope.shape, x_shape))


def align_onednn_prelu(slope: np.ndarray, src_shape: Sequence[int], data_format: str,
                       per_channel_broadcast: bool) -> np.ndarray:
    return slope.reshape(broadcast.onednn_prelu(slope.shape, src_shape, data_format, per_channel_broadcast))


def type_limit(dtype: np.dtype, compute: np.dtype, which: str) -> np.ndarray:
    """The lowest (most negative finite) or highest finite value of `dtype` (C++ numeric_limits lowest() and
    max()), as a 0-d array of the compute type: what an absent optional input or attribute takes where the
    spec's elementwise.absent says so (Clip's min and max)."""
    dtype = np.dtype(dtype)
    finfo: Any = ml_dtypes.finfo  # knows bfloat16 as well as NumPy's types (ml_dtypes has no annotations)
    info: Any = np.iinfo(dtype) if dtype.kind in "iu" else finfo(dtype)
    return np.asarray(info.min if which == "lowest" else info.max).astype(compute)


def float32_attribute(value: Any) -> Any:
    """A float attribute (or a list of them) as a domain with float32 attributes stores it (ONNX's
    AttributeProto): each value rounded to float32, kept as a Python float (a list stays a list, a tuple
    a tuple). None and values that are not numbers pass unchanged, for the validator to report."""
    if value is None or isinstance(value, (bool, str, bytes)):
        return value
    try:
        if isinstance(value, (list, tuple)):
            return type(value)(float(np.float32(v)) for v in value)
        if isinstance(value, np.ndarray):
            return value.astype(np.float32).astype(np.float64)
        return float(np.float32(value))
    except (TypeError, ValueError):
        return value


def output_dtype(requested: str | np.dtype | None, first_input: np.dtype | None, allowed: tuple[str, ...],
                 name: str, named: int | str | None = None) -> np.dtype | str | None:
    """The dtype of an output that no input determines (e.g. Convert's T1, Cbrt's To, Iota's T).

    Given explicitly, it is used; otherwise the type an attribute names (`named`: the value of the
    spec's kernel.dtype_from attribute, a TensorProto code or Cast-1's name; absent or 0 names none);
    otherwise the first input's dtype (or the fallback input's) when the spec allows it. A sequence
    or optional output's type stays its spelling (seq(tensor(float))); when the spec allows such types
    and none is given, None: the kernel function decides (SequenceEmpty's dtype attribute)."""
    if requested is not None:
        if isinstance(requested, str) and requested in ELEM_TYPES:
            return numpy_dtype(requested)
        if isinstance(requested, str) and "(" in requested:
            return requested
        return np.dtype(requested)
    if named is not None and named != 0 and named != "":
        from .kernels.cast import target_dtype  # ONNX's type codes: imported where an attribute names one

        return target_dtype(named)
    if first_input is not None and elem(first_input) in allowed:
        return np.dtype(first_input)
    if len(allowed) == 1 and allowed[0] in ELEM_TYPES:  # one type only (Compare's bool, Complex's complex64)
        return numpy_dtype(allowed[0])
    if any(a not in ELEM_TYPES for a in allowed):
        return None
    what = f"the input dtype {first_input} is not one of" if first_input is not None else "choose one of"
    raise ValueError(f"{name}_dtype is required: {what} {', '.join(allowed)}")


def compute_dtype_for(out: np.dtype, first_input: np.dtype) -> np.dtype:
    """Floating results are computed in the output's precision (float32 for float16/bfloat16);
    boolean and integer results in the input's. A floating input wider than that precision is not
    narrowed first (the narrowing would change its value: a double 1e300 would become inf before
    IsFinite looks at it); the computation keeps the input's precision and the result is rounded once."""
    try:  # every element-wise kernel asks this once per call, for a handful of dtype pairs
        return _COMPUTE_DTYPES[out, first_input]
    except (KeyError, TypeError):  # TypeError: an unhashable spelling of a dtype, answered uncached
        pass
    compute = _compute_dtype_for(out, first_input)
    if type(out) is type(first_input) and isinstance(out, np.dtype) and len(_COMPUTE_DTYPES) < 256:
        _COMPUTE_DTYPES[out, first_input] = compute
    return compute


_COMPUTE_DTYPES: dict[tuple[np.dtype, np.dtype], np.dtype] = {}


def _compute_dtype_for(out: np.dtype, first_input: np.dtype) -> np.dtype:
    out = np.dtype(out)
    if out.kind in "fc" or out in _LOW_PRECISION:
        compute, source = compute_dtype(out), compute_dtype(first_input)
        if compute.kind == "f" and source.kind == "f" and source.itemsize > compute.itemsize:
            return source
        return compute
    return compute_dtype(first_input)


def align_xla(lhs: np.ndarray, rhs: np.ndarray, dims: Sequence[int] | None) -> tuple[np.ndarray, np.ndarray]:
    """XLA broadcast_dimensions: place the lower-rank operand's dimensions at `dims` of the other."""
    if dims is None or lhs.ndim == rhs.ndim:
        return lhs, rhs
    low, high = (lhs, rhs) if lhs.ndim < rhs.ndim else (rhs, lhs)
    shape = [1] * high.ndim
    for k, d in enumerate(dims):
        shape[d] = low.shape[k]
    low = low.reshape(shape)
    return (low, high) if lhs.ndim < rhs.ndim else (high, low)


def round_half_away(x: np.ndarray) -> np.ndarray:
    """Round half away from zero (C round), unlike np.round's half to even.

    Exact for every value: x - trunc(x) is exact, so no addition of 0.5 can round (floor(|x| + 0.5)
    gives 1 for the largest value below 0.5, and 2^52 + 2 for 2^52 + 1)."""
    whole = np.trunc(x)
    return np.where(np.abs(x - whole) >= 0.5, whole + np.copysign(np.ones_like(whole), x), whole)


def power(a: Any, b: Any) -> np.ndarray:
    """C's pow (IEEE 754 pow) element by element. np.power takes shortcuts when the exponent is a single
    value (0.5 as sqrt, so (-inf) ** 0.5 gives NaN and (-0.0) ** 0.5 gives -0.0 where pow gives inf and
    +0.0); it is called here on operands broadcast to the result's shape, where it does not."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    shape = a.shape
    return np.power(np.ascontiguousarray(a).reshape(-1), np.ascontiguousarray(b).reshape(-1)).reshape(shape)


def erf(x: np.ndarray) -> np.ndarray:
    from scipy.special import erf as _erf

    return _erf(x)


def erfc(x: np.ndarray) -> np.ndarray:
    from scipy.special import erfc as _erfc

    return _erfc(x)


def mul_trunc(a: float, x: np.ndarray) -> np.ndarray:
    """a * x. For integer x the product is taken in double, converted toward zero and saturated to
    x's type (NaN -> 0): a float factor applied to integers (LeakyRelu's alpha)."""
    x = np.asarray(x)
    if x.dtype.kind not in "iu":
        return a * x
    info = np.iinfo(x.dtype)
    product = np.trunc(np.asarray(a, np.float64) * x.astype(np.float64))
    lo, hi = float(info.min), float(info.max)  # hi rounds up to 2**63 / 2**64 for the 64-bit types
    out = np.zeros(product.shape, x.dtype)
    inside = (product > lo) & (product < hi)
    out[inside] = product[inside].astype(x.dtype)
    out[product >= hi] = info.max
    out[product <= lo] = info.min
    return out


def rsqrt(x: np.ndarray) -> np.ndarray:
    """hlir Rsqrt: 1/sqrt(x) for x > 0 and NaN for x <= 0 (the seed's rule, also for 0 and -0.0).
    Integers get that result converted like Convert (truncation toward zero, NaN -> 0): 1 for x == 1,
    else 0."""
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return (x == 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        return np.where(x > 0, 1 / np.sqrt(x), np.array(np.nan, x.dtype))


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


def _signed_zero_fix(a: np.ndarray, b: np.ndarray, out: np.ndarray, take_negative: bool) -> np.ndarray:
    """Where out is zero, the zero of the right sign: -0.0 when take_negative and either operand is
    -0.0 (minimum), else +0.0 unless both are -0.0 (maximum). Only the zero results are looked at."""
    zero = out == 0
    if not zero.any():
        return out
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
    the mask keeps the other branch's bits."""
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
