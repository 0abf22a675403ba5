"""Type conversions: hlir Convert (a value conversion, like C++ static_cast) and BitcastConvert
(a reinterpretation of the bits).

Convert's rules (specs/hlir/Convert.yaml notes say why):
- integer -> integer: C++ static_cast (two's complement, modulo 2^n), except a narrowing conversion
  between signed types, which keeps the sign bit as the result's top bit and takes the other bits from
  the low bits (the document's convert<int64_t,int32_t>(0x8FFFFFFF1FFFFFFF) = 0x9FFFFFFF);
- floating -> integer: toward zero; NaN -> 0; +-inf and out-of-range values saturate to the target's
  limits;
- -> floating: rounded to nearest, ties to even, once from the exact value (also for float64 or wide
  integers to bfloat16, which a conversion through float32 would round twice);
- -> bool: x != 0 (NaN is true); bool -> number: 0 or 1;
- complex -> real: the real part, then the rules above; real -> complex: imaginary part 0;
  complex -> complex: each component.
"""
from __future__ import annotations

import sys
from typing import Any

import ml_dtypes
import numpy as np

from ...dtypes import ELEM_TYPES, elem_of_numpy

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F16 = np.dtype(np.float16)
_COMPONENT: dict[np.dtype[Any], np.dtype[Any]] = {np.dtype(np.complex64): np.dtype(np.float32),
                                                  np.dtype(np.complex128): np.dtype(np.float64)}


def _is_float(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype == _BF16


def _contiguous(a: np.ndarray) -> np.ndarray:
    """A C-contiguous array of a's shape (np.ascontiguousarray turns rank 0 into rank 1)."""
    a = np.asarray(a)
    return np.ascontiguousarray(a).reshape(a.shape)


def _float64_to_float32_round_to_odd(x: np.ndarray) -> np.ndarray:
    """float64 -> float32 rounded to odd (truncate toward zero, set the last bit when inexact).

    Rounding that once more to a format at least 2 bits narrower (bfloat16) gives the correctly
    rounded result: round-to-odd keeps the information that decides the final rounding."""
    with np.errstate(all="ignore"):
        nearest = x.astype(np.float32)
        back = nearest.astype(np.float64)
        inexact = (back != x) & ~np.isnan(x)
        truncated = np.where(inexact & (np.abs(back) > np.abs(x)), np.nextafter(nearest, np.float32(0)), nearest)
    bits = _contiguous(truncated).view(np.uint32) | inexact.astype(np.uint32)
    return bits.view(np.float32)


def _bit_length(mag: np.ndarray) -> np.ndarray:
    """Number of significant bits of each uint64 value (0 for 0)."""
    length = np.zeros(mag.shape, np.uint64)
    rest = mag.copy()
    for step in (32, 16, 8, 4, 2, 1):
        big = rest >= (np.uint64(1) << np.uint64(step))
        rest = np.where(big, rest >> np.uint64(step), rest)
        length += big.astype(np.uint64) * np.uint64(step)
    return length + (rest > 0).astype(np.uint64)


def _int_to_bfloat16(x: np.ndarray) -> np.ndarray:
    """Integers to bfloat16 (8 significant bits), rounded to nearest even in integer arithmetic."""
    negative = x < 0
    wide = x.astype(np.int64 if x.dtype.kind == "i" else np.uint64)
    unsigned = wide.view(np.uint64) if wide.dtype == np.int64 else wide
    mag = np.where(negative, np.uint64(0) - unsigned, unsigned)
    shift = np.maximum(_bit_length(mag).astype(np.int64) - 8, 0).astype(np.uint64)
    kept = mag >> shift
    rest = mag - (kept << shift)
    half = np.where(shift > 0, np.uint64(1) << (np.maximum(shift, np.uint64(1)) - np.uint64(1)), np.uint64(0))
    up = (shift > 0) & ((rest > half) | ((rest == half) & ((kept & np.uint64(1)) == 1)))
    kept = kept + up.astype(np.uint64)
    value = kept.astype(np.float64) * np.exp2(shift.astype(np.float64))  # <= 9 significant bits: exact
    value = np.where(negative, -value, value)
    return value.astype(np.float32).astype(_BF16)  # exact: the value is a bfloat16 already


def _float_to_float(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    if x.dtype in (_F16, _BF16):
        x = x.astype(np.float32)  # exact
    if dst == _BF16:
        if x.dtype == np.float64:
            x = _float64_to_float32_round_to_odd(x)
        return x.astype(_BF16)
    with np.errstate(all="ignore"):
        return x.astype(dst)  # NumPy rounds float64 -> float16 directly (once)


def _float_to_int(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    x = x.astype(np.float64)  # exact for every floating type here
    info = np.iinfo(dst)
    bits = dst.itemsize * 8
    lower = -2.0 ** (bits - 1) if dst.kind == "i" else 0.0
    upper = 2.0 ** (bits - 1) if dst.kind == "i" else 2.0 ** bits  # exclusive, exact powers of two
    whole = np.trunc(x)
    out = np.zeros(x.shape, dst)
    with np.errstate(invalid="ignore"):
        inside = (whole >= lower) & (whole < upper)
        out[inside] = whole[inside].astype(dst)
        out[whole >= upper] = info.max
        out[whole < lower] = info.min
    return out  # NaN: neither inside nor beyond a bound, stays 0


def _int_to_int(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    if x.dtype.kind == "i" and dst.kind == "i" and dst.itemsize < x.dtype.itemsize:
        bits = dst.itemsize * 8
        low = x.astype(np.int64).view(np.uint64) & np.uint64((1 << (bits - 1)) - 1)
        sign = (x < 0).astype(np.uint64) << np.uint64(bits - 1)
        return (low | sign).astype(np.dtype(f"u{dst.itemsize}")).view(dst)
    return x.astype(dst)  # two's complement, modulo 2^n (NumPy's integer casts wrap)


def _int_to_float(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    if dst == _BF16:
        return _int_to_bfloat16(x)
    with np.errstate(over="ignore"):
        return x.astype(dst)  # correctly rounded (float16: every int beyond 65520 becomes inf either way)


def _to_real(x: np.ndarray, dst: np.dtype) -> np.ndarray:
    """x (bool, integer or floating) to a real (non-complex) dtype."""
    if dst == np.bool_:
        return (x.astype(np.float32) if x.dtype in (_F16, _BF16) else x) != 0
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    if _is_float(x.dtype):
        return _float_to_int(x, dst) if dst.kind in "iu" else _float_to_float(x, dst)
    return _int_to_int(x, dst) if dst.kind in "iu" else _int_to_float(x, dst)


def convert(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """hlir Convert: every element of `input` converted to `output_dtype` by the rules above."""
    x = np.asarray(input)
    dst = np.dtype(output_dtype)
    if x.dtype == dst:
        return x.copy()
    if x.dtype.kind == "c":
        if dst.kind == "c":
            part = _COMPONENT[dst]
            out = np.empty(x.shape, dst)
            out.real, out.imag = _float_to_float(x.real, part), _float_to_float(x.imag, part)
            return out
        if dst == np.bool_:
            return np.asarray(x != 0)
        x = _contiguous(x.real)
    if dst.kind == "c":
        out = np.zeros(x.shape, dst)
        out.real = _to_real(x, _COMPONENT[dst])
        return out
    return np.asarray(_to_real(x, dst), dtype=dst).reshape(x.shape)


def _bits(dtype: np.dtype) -> int:
    return ELEM_TYPES[elem_of_numpy(dtype)].bits


def bitcast_convert(input: np.ndarray, *, output_dtype: np.dtype[Any] | None) -> np.ndarray:
    """hlir BitcastConvert (XLA BitcastConvertType): the bits of each element read as `output_dtype`.

    Same width: same shape. Narrower target: a trailing dimension of width ratio, least significant
    piece first (little-endian element layout). Wider target: the input's last dimension (of size
    width ratio) is consumed. bool is one byte holding 0 or 1 (a byte read as bool is true when
    nonzero); a complex number is its (real, imaginary) pair."""
    if sys.byteorder != "little":  # pragma: no cover - the layout is defined little-endian
        raise NotImplementedError("BitcastConvert's reference kernel assumes a little-endian host")
    x = _contiguous(input)
    dst = np.dtype(output_dtype)
    bits_in, bits_out = _bits(x.dtype), _bits(dst)
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    target = np.dtype(np.uint8) if dst == np.bool_ else dst
    if bits_in == bits_out:
        out = x.reshape(x.shape + (1,)).view(target).reshape(x.shape)
    elif bits_in > bits_out:
        out = x.reshape(x.shape + (1,)).view(target)
    else:
        ratio = bits_out // bits_in
        if x.ndim == 0 or x.shape[-1] != ratio:
            raise ValueError(f"BitcastConvert: widening {bits_in}-bit {x.dtype} to {bits_out}-bit {dst} needs a last "
                             f"dimension of {ratio}, the input has shape {list(x.shape)}")
        out = x.view(target).reshape(x.shape[:-1])
    out = out != 0 if dst == np.bool_ else out.copy()
    return np.asarray(out, dtype=dst)
