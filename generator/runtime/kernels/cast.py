"""ONNX Cast, CastLike and BitCast: conversions between ONNX's element types (strings, the 2- and 4-bit
integers and the 4-, 6- and 8-bit floats included), chosen by a TensorProto data type code.

Where ONNX's rules are hlir Convert's, the helpers of `conversion` do the work (floating -> floating
rounded once to nearest even; integer -> floating correctly rounded; anything -> bool is x != 0). ONNX
differs from hlir Convert in the rest, so those rules are written here (the spec notes of Cast say why):
- integer -> integer keeps the low bits (two's complement), also for a narrowing between signed types
  (ONNX: int16 200 -> int8 -56; hlir Convert keeps the sign bit);
- floating -> integer: toward zero for the 8- to 64-bit integers (C's conversion), to nearest even for
  the 2- and 4-bit integers (ONNX's int4/int2 documents), then, like integer -> integer, the low bits of
  that integer (ONNX leaves a value out of range undefined; NaN and infinities give 0);
- the float8 types (E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ) round to nearest even; with `saturate` a value
  beyond the largest finite one, infinities included, becomes that value of its sign, without it NaN
  (infinity for E5M2); float4e2m1 and the float6 types always saturate, NaN becoming their largest value;
- float8e8m0 (a power of two 2^-127 .. 2^127) follows `round_mode` and `saturate` (see _to_e8m0);
- strings: see cast_strings.
Every rounding happens once: a wider value reaches a narrow format through a rounded-to-odd float64 or
float32 (which keeps what the final rounding to nearest needs), never through a rounded one.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import ml_dtypes
import numpy as np

from ...dtypes import ELEM_TYPES, elem_of_numpy
from . import cast_strings
from .conversion import (
    _bit_length,
    _contiguous,
    _float64_to_float32_round_to_odd,
    _float_to_float,
    _int_to_float,
    bitcast_convert,
)

# TensorProto.DataType codes (the `to` attribute) -> spec element names.
ONNX_DATA_TYPES: dict[int, str] = {
    1: "float", 2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 8: "string", 9: "bool",
    10: "float16", 11: "double", 12: "uint32", 13: "uint64", 14: "complex64", 15: "complex128", 16: "bfloat16",
    17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz", 21: "uint4", 22: "int4",
    23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2", 27: "float6e2m3", 28: "float6e3m2",
}
_FLOAT8 = ("float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")
_ALWAYS_SATURATED = ("float4e2m1", "float6e2m3", "float6e3m2")  # no infinity, no NaN
_NO_NEGATIVE_ZERO = ("float6e2m3", "float6e3m2")  # ONNX's float6 document: -0 becomes 0
_BF16 = np.dtype(ml_dtypes.bfloat16)
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def elem(dtype: np.dtype[Any]) -> str:
    return elem_of_numpy(np.dtype(dtype))


def family(dtype: np.dtype[Any]) -> str:
    """bool, int (8 to 64 bits), narrow_int (2 and 4 bits), float (float16, bfloat16, float, double),
    narrow_float (float8 but e8m0, float6, float4), e8m0, string or complex."""
    name = elem(dtype)
    info = ELEM_TYPES[name]
    if info.kind in ("bool", "string", "complex"):
        return info.kind
    if info.kind in ("int", "uint"):
        return "int" if info.bits >= 8 else "narrow_int"
    if name == "float8e8m0":
        return "e8m0"
    return "float" if info.bits >= 16 else "narrow_float"


def target_dtype(to: int | str) -> np.dtype[Any]:
    """The dtype a `to` attribute names: a TensorProto code, or (Cast-1) the enum's name such as "FLOAT"."""
    if isinstance(to, (str, bytes)):
        name = (to.decode() if isinstance(to, bytes) else to).lower()
    else:
        name = ONNX_DATA_TYPES.get(int(to), "")
    if name not in ELEM_TYPES or name == "":
        raise ValueError(f"to={to!r} names no element type ONNX defines")
    return ELEM_TYPES[name].numpy


def _check_requested(requested: Any, dst: np.dtype[Any], src: np.dtype[Any]) -> None:
    """The generated kernel passes the declared output dtype, or the input's when none is declared."""
    if requested is not None and np.dtype(requested) not in (dst, src):
        raise ValueError(f"the output is declared {elem(np.dtype(requested))}, but to names {elem(dst)}")


# ---- Cast, CastLike, BitCast -----------------------------------------------------------------

def onnx_cast(input: np.ndarray, *, to: int | str, saturate: int = 1, round_mode: str = "up",
              output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """ONNX Cast (every version; `saturate` from 19, `round_mode` from 24 take their defaults before)."""
    x = np.asarray(input)
    dst = target_dtype(to)
    _check_requested(output_dtype, dst, x.dtype)
    return cast_array(x, dst, saturate=bool(saturate), round_mode=round_mode)


def onnx_cast_like(input: np.ndarray, target_type: np.ndarray, *, saturate: int = 1,
                   round_mode: str = "up") -> np.ndarray:
    """ONNX CastLike: Cast to the element type of target_type (whose values are not read)."""
    return cast_array(np.asarray(input), np.asarray(target_type).dtype, saturate=bool(saturate),
                      round_mode=round_mode)


def onnx_bit_cast(input: np.ndarray, *, to: int, output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """ONNX BitCast: the bits of each element read as the type `to` names, which has the same width (C1):
    hlir BitcastConvert's same-width case (little-endian; a byte read as bool is true when nonzero).
    The 2- and 4-bit types are held one per byte in their low bits, so a byte view reads them too."""
    x = np.asarray(input)
    dst = target_dtype(to)
    _check_requested(output_dtype, dst, x.dtype)
    if ELEM_TYPES[elem(x.dtype)].bits != ELEM_TYPES[elem(dst)].bits:
        raise ValueError(f"BitCast: {elem(x.dtype)} and {elem(dst)} differ in width")
    return bitcast_convert(x, output_dtype=dst)


def cast_array(x: np.ndarray, dst: np.dtype[Any], *, saturate: bool = True, round_mode: str = "up") -> np.ndarray:
    """Every element of x converted to dst by ONNX Cast's rules (module docstring)."""
    dst = np.dtype(dst)
    out = _cast(x, dst, saturate, round_mode)
    return np.asarray(out, dtype=dst).reshape(x.shape)  # NumPy turns some rank-0 results into scalars


def _cast(x: np.ndarray, dst: np.dtype[Any], saturate: bool, round_mode: str) -> np.ndarray:
    src_family, dst_family = family(x.dtype), family(dst)
    if "complex" in (src_family, dst_family):
        raise ValueError("Cast does not convert complex numbers")
    if x.dtype == dst:
        return x.copy()
    if dst_family == "string":
        return cast_strings.to_strings(x, family(x.dtype))
    if src_family == "string":
        if dst_family in ("int", "narrow_int"):  # integer literals exactly, other numbers as floats
            bits, literal = cast_strings.parse_integers(x)
            floats = cast_strings.parse_floats(np.where(literal, "0", x))
            return np.where(literal, _int_to_int(bits, dst), _float_to_int(floats, dst))
        x, src_family = cast_strings.parse_floats(x, odd=dst != np.float64), "float"
    if src_family == "bool":
        x, src_family = x.astype(np.uint8), "int"
    elif src_family == "narrow_int":
        x, src_family = x.astype(np.int8 if ELEM_TYPES[elem(x.dtype)].kind == "int" else np.uint8), "int"
    elif src_family in ("narrow_float", "e8m0"):
        x, src_family = x.astype(np.float32), "float"  # exact
    return _convert(x, src_family == "int", dst, saturate, round_mode)


def _convert(x: np.ndarray, is_int: bool, dst: np.dtype[Any], saturate: bool, round_mode: str) -> np.ndarray:
    """x: bool-free integers (int8..uint64) or floats (float16, bfloat16, float, double)."""
    target = family(dst)
    if target == "bool":
        return np.asarray((x.astype(np.float32) if x.dtype in (np.float16, _BF16) else x) != 0)
    if target in ("int", "narrow_int"):
        return _int_to_int(x, dst) if is_int else _float_to_int(x, dst)
    if target == "float":
        return _int_to_float(x, dst) if is_int else _float_to_float(x, dst)
    wide = _int_to_float64_odd(x) if is_int else x.astype(np.float64)  # float sources: exact
    if target == "e8m0":
        return _to_e8m0(wide, saturate, round_mode)
    return _to_narrow_float(wide, dst, saturate)


# ---- integers ----------------------------------------------------------------------------------

def _int_to_int(x: np.ndarray, dst: np.dtype[Any]) -> np.ndarray:
    """The low bits of x in dst (two's complement): NumPy's integer casts wrap; the 2- and 4-bit types
    take the low 2 or 4 bits, sign-extended for the signed ones."""
    if family(dst) == "int":
        return x.astype(dst)
    info = ELEM_TYPES[elem(dst)]
    low = x.astype(np.int64).view(np.uint64) & np.uint64((1 << info.bits) - 1)
    value = low.astype(np.int64)
    if info.kind == "int":
        value = np.where(value >= (1 << (info.bits - 1)), value - (1 << info.bits), value)
    return value.astype(dst)  # in range: exact


_NATIVE_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))


_FLAGGING_TARGETS = (np.dtype(np.int32), np.dtype(np.int64))


@lru_cache(maxsize=None)
def _conversion_flags_out_of_range(src: np.dtype[Any], dst: np.dtype[Any]) -> bool:
    """Whether converting src floats to dst raises IEEE 754's 'invalid' flag exactly for the values that
    have no dst value (NaN, infinities, values whose integer part is out of range), as C's Annex F has
    it and NumPy reports it under errstate(invalid="raise"). True for int32 and int64 on x86-64 and
    AArch64, which convert to those widths in one instruction; a narrower or unsigned target goes
    through a wider integer (300.0 -> int8 raises nothing), so only these two are asked. Probed once
    per pair on this machine's NumPy: each value outside alone must raise, the values inside must not."""
    info = np.iinfo(dst)
    with np.errstate(over="ignore"):  # 2 * max is inf in float16: still outside
        outside = np.array([np.nan, np.inf, -np.inf, 2.0 * info.max, 2.0 * info.min], np.float64).astype(src)
        inside = np.array([0.0, -0.0, 0.5, -0.75, float(info.min), 127.0, -128.0], np.float64).astype(src)
        top = np.array(float(info.max) + 1, np.float64).astype(src)  # float16: inf, whose neighbour is its largest
    inside = np.append(inside, np.nextafter(top, np.array(0, src)))  # the largest value below max + 1
    inside = inside[np.isfinite(inside)]  # float16 has no -2**31
    for value in outside:
        try:
            with np.errstate(invalid="raise"):
                value.reshape(1).astype(dst)
        except FloatingPointError:
            continue
        return False
    try:
        with np.errstate(invalid="raise"):
            inside.astype(dst)
    except FloatingPointError:
        return False
    return True


def _float_to_int(x: np.ndarray, dst: np.dtype[Any]) -> np.ndarray:
    """An integer first (toward zero; to nearest even for the 2- and 4-bit types), then its low bits;
    NaN and infinities give 0."""
    x = np.asarray(x)
    if dst in _FLAGGING_TARGETS and x.dtype in _NATIVE_FLOATS and _conversion_flags_out_of_range(x.dtype, dst):
        # The conversion itself says whether every value was in range, in the one pass onnx.reference's
        # astype makes: no flag, and NumPy's conversion (C's, toward zero) is the integer itself.
        try:
            with np.errstate(invalid="raise"):
                return x.astype(dst)
        except FloatingPointError:
            pass  # a NaN, an infinity or a value out of range: the general path below
    elif family(dst) == "int" and x.dtype in _NATIVE_FLOATS and x.size:
        # Every value within the type's range (no NaN: a NaN makes min and max NaN, and the test false):
        # NumPy's conversion is C's, toward zero, and the low bits of an integer in range are itself. Two
        # reductions instead of ~10 passes and two masked copies (28x onnx.reference's astype).
        info = np.iinfo(dst)
        if float(np.min(x)) > float(info.min) - 1 and float(np.max(x)) < float(info.max) + 1:
            return x.astype(dst)
    wide = x.astype(np.float64)  # exact
    with np.errstate(invalid="ignore"):
        whole = np.rint(wide) if family(dst) == "narrow_int" else np.trunc(wide)
    whole = np.where(np.isfinite(whole), whole, 0.0)
    small = np.abs(whole) < 2.0 ** 63
    low = np.zeros(whole.shape, np.uint64)
    low[small] = whole[small].astype(np.int64).view(np.uint64)
    big = whole[~small]  # a multiple of 2^11: its remainder modulo 2^64 is computed exactly
    low[~small] = (big - np.floor(big / 2.0 ** 64) * 2.0 ** 64).astype(np.uint64)
    return _int_to_int(low.view(np.int64), dst)


def _int_to_float64_odd(x: np.ndarray) -> np.ndarray:
    """Integers as float64 rounded to odd (exact below 2^53): a later rounding to a format of at most 51
    significant bits then rounds as if from the integer itself."""
    x = np.asarray(x)
    negative = x < 0
    unsigned = x.astype(np.int64).view(np.uint64) if x.dtype.kind == "i" else x.astype(np.uint64)
    mag = np.where(negative, np.uint64(0) - unsigned, unsigned)
    shift = np.maximum(_bit_length(mag).astype(np.int64) - 53, 0).astype(np.uint64)
    kept = mag >> shift
    sticky = (mag - (kept << shift)) != 0
    kept = kept | sticky.astype(np.uint64)
    value = kept.astype(np.float64) * np.exp2(shift.astype(np.float64))  # kept < 2^53: exact
    return np.where(negative, -value, value)


# ---- the narrow floats -------------------------------------------------------------------------

def _to_narrow_float(wide: np.ndarray, dst: np.dtype[Any], saturate: bool) -> np.ndarray:
    """float64 (exact or rounded to odd) -> a float8 type other than e8m0, a float6 or float4e2m1."""
    name = elem(dst)
    single = _float64_to_float32_round_to_odd(wide)  # at least 2 bits beyond any narrow format: one rounding
    finfo: Any = ml_dtypes.finfo  # (ml_dtypes has no annotations)
    largest = np.float32(finfo(dst).max)
    if name in _ALWAYS_SATURATED or saturate:
        beyond = np.abs(single) > largest  # NaN is not beyond
        single = np.where(beyond, np.copysign(largest, single), single)
        if name in _ALWAYS_SATURATED:
            single = np.where(np.isnan(single), largest, single)
    with np.errstate(all="ignore"):
        out = single.astype(dst)  # ml_dtypes: to nearest even; beyond the range NaN (or inf for E5M2)
    if name in _NO_NEGATIVE_ZERO:
        out = np.where(out == 0, np.zeros((), dst), out)
    return np.asarray(out, dtype=dst).reshape(wide.shape)


def _to_e8m0(wide: np.ndarray, saturate: bool, round_mode: str) -> np.ndarray:
    """float64 (exact or rounded to odd) -> float8e8m0, the powers of two 2^-127 .. 2^127 (biased exponent
    0 .. 254; 255 is NaN). As ONNX's table, the range is decided on x itself: above 2^127 (+inf included)
    gives 2^127 with saturate, else NaN; below 2^-127 gives 2^-127 with saturate, else NaN. The type has
    no zero and no sign: 0 and every negative value are below the range (ONNX leaves negative values
    unspecified; this is onnxruntime's choice). NaN stays NaN. Within the range `round_mode` picks the
    power: "up" the smallest one not below x, "down" the largest one not above it, "nearest" the nearer
    one, a tie (1.5 * 2^k) going up."""
    if round_mode not in ("up", "down", "nearest"):
        raise ValueError(f"round_mode {round_mode!r} is not one of up, down, nearest")
    x = np.asarray(wide, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        inside = (x >= 2.0 ** -127) & (x <= 2.0 ** 127)
        mantissa, exponent = np.frexp(np.where(inside, x, 1.0))  # x = mantissa * 2^exponent, mantissa in [0.5, 1)
        power = exponent.astype(np.int64) - 1  # 2^power <= x < 2^(power + 1)
        if round_mode == "up":
            power = power + (mantissa != 0.5)
        elif round_mode == "nearest":
            power = power + (mantissa >= 0.75)
        nan_code = 255
        above, below = (254, 0) if saturate else (nan_code, nan_code)
        code = np.where(inside, power + 127, np.where(np.isnan(x), nan_code, np.where(x > 2.0 ** 127, above, below)))
    return _contiguous(code.astype(np.uint8)).view(_E8M0).reshape(x.shape)


def xla_convert_float8(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """hlir StablehloConvertFloat8 (StableHLO convert where a float8 type takes part): ONNX Cast's float rules
    without saturation, which are XLA's: rounded once to nearest even, a value beyond the largest finite
    one NaN (an infinity for E5M2, which has them), NaN staying NaN."""
    if output_dtype is None:
        raise ValueError("StablehloConvertFloat8 needs output_dtype")
    return cast_array(np.asarray(input), np.dtype(output_dtype), saturate=False)
