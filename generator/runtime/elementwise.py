"""Helpers for the generated element-wise NumPy kernels: element types and their compute types, the
formula functions NumPy lacks (erf, rsqrt, power, ...), and, re-exported, XLA's binary arithmetic
(opgen.runtime.xla_arithmetic)."""
from __future__ import annotations

import functools
import math

from typing import Any, Callable, ParamSpec, Sequence, TypeVar

import ml_dtypes
import numpy as np
import numpy.typing as npt

from . import broadcast
from ..dtypes import ELEM_TYPES
from ..dtypes import elem_of_numpy
# XLA's binary arithmetic has its own module; the generated kernels reach it here, as _ew.<name>
from .xla_arithmetic import floor_mod as floor_mod
from .xla_arithmetic import ieee_clamp as ieee_clamp
from .xla_arithmetic import ieee_maximum as ieee_maximum
from .xla_arithmetic import ieee_minimum as ieee_minimum
from .xla_arithmetic import may_hold_zero
from .xla_arithmetic import select as select
from .xla_arithmetic import shift_left as shift_left
from .xla_arithmetic import shift_right as shift_right
from .xla_arithmetic import shift_right_arithmetic as shift_right_arithmetic
from .xla_arithmetic import shift_right_logical as shift_right_logical
from .xla_arithmetic import xla_div as xla_div
from .xla_arithmetic import xla_rem as xla_rem

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
    """The accumulator of a fold (spec elementwise.fold: Max, Sum, ...): the first array in the compute type,
    then step(acc, x) with each further array in order, converted to the compute type. NumPy broadcasts
    the operands (multidirectional), so the result has their broadcast shape; nothing is rounded to the
    element type here (finish() does that once).

    The first array is not copied when others follow: each step makes a new array (formulas are
    element-wise expressions), so only a single array, or a step that hands back an operand, needs the
    copy that keeps the kernel from returning (or aliasing) its input. The copy cost one pass more
    than onnx.reference's Max (measured 1.6x on 1M float32 elements)."""
    acc = np.asarray(arrays[0]).astype(compute, copy=False)
    for x in arrays[1:]:
        acc = np.asarray(step(acc, np.asarray(x).astype(compute, copy=False)))
    if any(np.may_share_memory(acc, x) for x in arrays):
        acc = acc.copy()
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


def popcount_bits(x: np.ndarray) -> np.ndarray:
    """The number of 1 bits of each integer as stored (two's complement for signed ones: -1 as int8 has 8),
    in x's own type: StableHLO's popcnt. np.bitwise_count counts the bits of |x| for signed integers."""
    x = np.asarray(x)
    bits = x.view(np.dtype(f"u{x.dtype.itemsize}")) if x.dtype.kind == "i" else x
    return np.bitwise_count(bits).astype(x.dtype)


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


def leaky_relu(x: npt.ArrayLike, alpha: Any) -> np.ndarray:
    """where(x < 0, mul_trunc(alpha, x), x) (LeakyRelu's formula), bit for bit. For floating x and one
    positive finite alpha it is max(x, alpha * x) when alpha <= 1 and min(x, alpha * x) when alpha >= 1: the
    product has x's sign (zeros keep theirs, so no -0.0/+0.0 tie), lies beyond x exactly when x < 0, and is no
    NaN unless x is, where max and min return their first operand, x, as the formula does. Two passes over
    the data instead of the comparison, the product and the select's blend (about six)."""
    x = np.asarray(x)
    product = mul_trunc(alpha, x)
    if x.dtype.kind == "f" and type(alpha) in (float, int) and product.dtype == x.dtype:
        # a Python number multiplies x in x's type: alpha as rounded there must be positive and finite
        with np.errstate(over="ignore", under="ignore"):
            factor = float(np.array(alpha, x.dtype))
        if 0 < factor < math.inf:
            pick = np.maximum if factor <= 1 else np.minimum
            return pick(x, product, out=product) if isinstance(product, np.ndarray) else pick(x, product)
    return select(x < 0, product, x)


def clamp(x: npt.ArrayLike, low: npt.ArrayLike, high: npt.ArrayLike) -> np.ndarray:
    """np.minimum(np.maximum(x, low), high) (ONNX Clip's formula minimum(maximum(...))), bit for bit, in one
    np.clip pass when the bounds are single values of x's numeric type, instead of two passes of which
    the first, against a single value, runs ~2.5x slower than np.maximum of two arrays (NumPy 2.4).

    np.clip keeps x on a tie with a bound, while np.maximum and np.minimum return one operand of a tie
    or the other depending on the type (float32 and float64: the second, float16: the first; measured).
    Equal operands have equal bits except -0.0 and +0.0, so the two differ only at a zero bound, and
    only where np.clip's result holds the zero of the other sign (x's zero kept where the formula may
    have taken the bound's): one integer min-reduction per zero bound looks for it, and when it is there
    the formula is computed as written. A NaN bound also takes the formula (NaN everywhere, whichever
    NaN it returns)."""
    x, low, high = np.asarray(x), np.asarray(low), np.asarray(high)
    if (x.ndim and low.ndim == 0 and high.ndim == 0 and low.dtype == x.dtype == high.dtype
            and x.dtype.kind in "fiu"):
        if x.dtype.kind != "f":
            return np.clip(x, low, high)
        low_value, high_value = float(low), float(high)
        if low_value == low_value and high_value == high_value:  # no NaN bound
            out = np.clip(x, low, high)
            if not _zero_kept_against(out, low_value) and not _zero_kept_against(out, high_value):
                return out
    return np.minimum(np.maximum(x, low), high)


def _zero_kept_against(out: np.ndarray, bound: float) -> bool:
    """Whether a zero bound may have tied with a zero of the other sign that np.clip kept in out."""
    return bound == 0 and may_hold_zero(out, negative=math.copysign(1.0, bound) > 0)


def softplus(x: npt.ArrayLike) -> np.ndarray:
    """where(x > 0, x + log1p(exp(-x)), log1p(exp(x))) (ONNX Softplus's formula), bit for bit, with one
    exp and one log1p per element instead of two: both branches take log1p(exp(m)) of m = min(x, -x),
    which is -x where x > 0 and x itself where x < 0; at x = +-0 either zero gives exp 1 exactly, and a
    NaN x is np.minimum's first operand, so the NaN the formula's second branch sees. (NumPy's float32
    log1p is a scalar loop: the second one cost half the kernel's time, 1.5x onnx.reference.)"""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        return select(x > 0, x + np.log1p(np.exp(-x)), np.log1p(np.exp(x)))
    tail = np.log1p(np.exp(np.minimum(x, -x)))
    return select(x > 0, x + tail, tail)


def softsign(x: npt.ArrayLike) -> np.ndarray:
    """x / (1 + abs(x)) (Softsign's formula), bit for bit: the same three operations in the same type, the
    temporary made by abs reused for the other two (each fresh temporary costs a pass over new memory:
    1.4x onnx.reference, which works in place)."""
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.ndim == 0:
        return x / (1 + np.abs(x))
    denominator = np.abs(x)
    np.add(denominator, 1, out=denominator)
    return np.divide(x, denominator, out=denominator)


def inf_flags(x: npt.ArrayLike, positive: Any, negative: Any) -> np.ndarray:
    """where(isfinite(x), 0, where(x > 0, positive, where(x < 0, negative, 0))) (IsInf's formula): positive at
    +inf, negative at -inf, 0 elsewhere (NaN included). With flags of 0 or 1 (IsInf's attributes as ONNX
    uses them) the values are given as booleans, the type IsInf's output has: one np.isinf pass and at
    most one comparison, where the formula built three int64 selects (18x onnx.reference). Other flags
    give the formula's values in its type."""
    x = np.asarray(x)
    if x.dtype.kind == "f" and x.ndim and positive in (0, 1) and negative in (0, 1):
        flags = np.isinf(x)
        if positive and negative:
            return flags
        if positive or negative:
            return np.logical_and(flags, x > 0 if positive else x < 0, out=flags)
        return np.zeros(x.shape, np.bool_)
    return select(np.isfinite(x), 0, select(x > 0, positive, select(x < 0, negative, 0)))


def either(condition: Any, on_true: Callable[[], np.ndarray], on_false: Callable[[], np.ndarray]) -> np.ndarray:
    """select(condition, on_true(), on_false()) for two branches that have one shape and type (the fusion
    checks that they are such a pair): a single truth value (an attribute's test, ONNX Mod's fmod == 1)
    computes only the branch it picks; an array condition computes both and selects."""
    if type(condition) is bool or type(condition) is np.bool_:
        return np.asarray(on_true() if condition else on_false())
    return select(condition, on_true(), on_false())


def rsqrt(x: np.ndarray) -> np.ndarray:
    """hlir Rsqrt: 1/sqrt(x) for x > 0 and NaN for x <= 0 (the seed's rule, also for 0 and -0.0).
    Integers get that result converted like Convert (truncation toward zero, NaN -> 0): 1 for x == 1,
    else 0."""
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return (x == 1).astype(x.dtype)
    with np.errstate(all="ignore"):
        return np.where(x > 0, 1 / np.sqrt(x), np.array(np.nan, x.dtype))

