"""ONNX linear quantization: QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger and
QLinearMatMul.

Granularity follows the shape of the scale (QuantizeLinear's text): a scalar (or one-element) scale is
per-tensor, a 1-D scale is per-axis (one value per index of x along axis), a scale of x's rank is
blocked (each value covers block_size consecutive elements along axis, the last block may be shorter).
The zero point has the scale's shape and is laid out the same way.

Arithmetic (the choices the texts leave open are spec notes of QuantizeLinear and DequantizeLinear):
- x / y_scale is the exact quotient of the two values rounded once to the precision type (the
  `precision` attribute, else the type of y_scale): computed in float64 and rounded once
  (onnx_dtypes.round_float64). A float8e8m0 scale (a power of two) or an int32 one divides exactly.
- integer targets: round half to even, add the zero point, clamp to the type's range; NaN becomes the
  type's smallest value (as onnxruntime: its clamp sends NaN to the lower bound).
- float targets (float8, float6, float4): x / y_scale + zero point, rounded once to the target. With
  saturate (float8 only; float6 and float4 have no infinity and always saturate) out-of-range values and
  infinities become the largest finite value of their sign; without, they become what a plain conversion
  gives (NaN for the "fn"/"fnuz" formats, infinity for float8e5m2). NaN stays NaN where the format has
  one; float4e2m1 and float6 have none, and NaN converts as ml_dtypes converts it. A zero point of 0 is
  not added, so -0 stays -0 (Cast's tables).
- DequantizeLinear: (x - zero point) * x_scale from the exact values (float64), rounded once to the
  output type.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from .onnx_dtypes import dtype_of_code, round_float64

_FLOAT8_WITH_SPECIALS = {np.dtype(t) for t in (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3fnuz,
                                                ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz)}
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)
_NARROW_INTS = {np.dtype(t) for t in (ml_dtypes.int4, ml_dtypes.uint4, ml_dtypes.int2, ml_dtypes.uint2)}


def _is_integer(dtype: np.dtype[Any]) -> bool:
    return dtype.kind in "iu" or dtype in _NARROW_INTS


_ML_IINFO: Any = ml_dtypes.iinfo  # knows int4/int2 (ml_dtypes has no annotations)
_ML_FINFO: Any = ml_dtypes.finfo


def _int_range(dtype: np.dtype[Any]) -> tuple[int, int]:
    info: Any = _ML_IINFO(dtype) if dtype in _NARROW_INTS else np.iinfo(dtype)
    return int(info.min), int(info.max)


def to_float_format(value: np.ndarray, dtype: np.dtype[Any], saturate: bool) -> np.ndarray:
    """float64 values converted to a float8/float6/float4 dtype with ONNX's saturation rules (module doc)."""
    if saturate or dtype not in _FLOAT8_WITH_SPECIALS:
        limit = float(_ML_FINFO(dtype).max)
        value = np.clip(value, -limit, limit)  # NaN stays NaN; infinities become the largest value
    return round_float64(value, dtype)


def _layout(param: np.ndarray, x_shape: tuple[int, ...], axis: int, block_size: int) -> np.ndarray:
    """A scale (or a zero point of the scale's shape) as an array that broadcasts against x."""
    if param.ndim == 0 or (block_size == 0 and param.size == 1):
        return param.reshape(())  # per-tensor (a one-element 1-D value included: ONNX's own tests use it)
    axis = axis % len(x_shape)
    if block_size == 0:  # per-axis
        dims = [1] * len(x_shape)
        dims[axis] = param.shape[0]
        return param.reshape(dims)
    repeated = np.repeat(param, block_size, axis=axis)  # blocked: the last block may be cut short
    return np.take(repeated, np.arange(x_shape[axis]), axis=axis)


def _zero_point(zero_point: np.ndarray | None, scale: np.ndarray, x_shape: tuple[int, ...], axis: int,
                block_size: int) -> np.ndarray:
    """The zero point (0 when absent) as float64 values laid out like `scale`, the scale input as given."""
    if zero_point is None:
        return np.zeros((), np.float64)
    zero_point = np.asarray(zero_point)
    if zero_point.size == scale.size:
        zero_point = zero_point.reshape(scale.shape)
    return _layout(zero_point, x_shape, axis, block_size).astype(np.float64)


def _quotient(x: np.ndarray, scale: np.ndarray, precision: np.dtype[Any]) -> np.ndarray:
    """x / scale as float64 values of the precision type (rounded once; exact for integer or e8m0)."""
    with np.errstate(all="ignore"):
        exact = x.astype(np.float64) / scale.astype(np.float64)
    if precision.kind in "iu" or precision == _E8M0:
        return exact
    return round_float64(exact, precision).astype(np.float64)


def _output_type(zero_point: np.ndarray | None, output_dtype: int) -> np.dtype[Any]:
    if zero_point is not None:
        zp_type = np.asarray(zero_point).dtype
        if output_dtype and dtype_of_code(output_dtype, "output_dtype") != zp_type:
            raise ValueError(f"output_dtype={output_dtype} names {dtype_of_code(output_dtype)}, the zero point is "
                             f"{zp_type}: they must agree")
        return zp_type
    return dtype_of_code(output_dtype, "output_dtype") if output_dtype else np.dtype(np.uint8)


def saturate_to(value: np.ndarray, dtype: np.dtype[Any], saturate: bool = True) -> np.ndarray:
    """Real values (float64, before rounding to an integer) as the quantized type: integers rounded half to
    even and clamped (NaN to the smallest value), float formats converted (to_float_format)."""
    if not _is_integer(dtype):
        return to_float_format(value, dtype, saturate)
    low, high = _int_range(dtype)
    with np.errstate(invalid="ignore"):
        clamped = np.clip(np.rint(value), low, high)
    clamped = np.where(np.isnan(clamped), low, clamped)
    return clamped.astype(np.int64).astype(dtype)


def quantize_linear(x: np.ndarray, y_scale: np.ndarray, y_zero_point: np.ndarray | None = None, *, axis: int = 1,
                    block_size: int = 0, output_dtype: int = 0, precision: int = 0,
                    saturate: int = 1) -> np.ndarray:
    """ONNX QuantizeLinear (every version): y = saturate(round(x / y_scale) + y_zero_point) (module doc)."""
    x, y_scale = np.asarray(x), np.asarray(y_scale)
    target = _output_type(y_zero_point, output_dtype)
    scale = _layout(y_scale, x.shape, axis, block_size)
    zero = _zero_point(y_zero_point, y_scale, x.shape, axis, block_size)
    divide_in = dtype_of_code(precision, "precision") if precision else y_scale.dtype
    quotient = _quotient(x, scale, divide_in)
    if _is_integer(target):
        with np.errstate(invalid="ignore"):
            return saturate_to(np.rint(quotient) + zero, target)
    # A zero point of 0 is not added: -0 stays -0 (Cast's tables map -0 to -0; IEEE -0 + 0 would be +0).
    return saturate_to(np.where(zero == 0, quotient, quotient + zero), target, bool(saturate))


def dequantize_linear(x: np.ndarray, x_scale: np.ndarray, x_zero_point: np.ndarray | None = None, *, axis: int = 1,
                      block_size: int = 0, output_dtype: int = 0, y_dtype: Any = None) -> np.ndarray:
    """ONNX DequantizeLinear (every version): y = (x - x_zero_point) * x_scale, in the type output_dtype names,
    else x_scale's (versions 10 and 13: float, whose only scale type is float)."""
    x, x_scale = np.asarray(x), np.asarray(x_scale)
    target = dtype_of_code(output_dtype, "output_dtype") if output_dtype else x_scale.dtype
    if y_dtype is not None and np.dtype(y_dtype) != target:
        raise ValueError(f"y is declared {np.dtype(y_dtype)}, but output_dtype={output_dtype} and x_scale "
                         f"({x_scale.dtype}) make it {target}")
    scale = _layout(x_scale, x.shape, axis, block_size)
    zero = _zero_point(x_zero_point, x_scale, x.shape, axis, block_size)
    with np.errstate(all="ignore"):
        value = (x.astype(np.float64) - zero) * scale.astype(np.float64)
    return round_float64(value, target)


def dynamic_quantize_linear(x: np.ndarray, *, y_dtype: Any = None,
                            y_zero_point_dtype: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ONNX DynamicQuantizeLinear: uint8 quantization of x with a scale and zero point that map the range of x,
    widened to include 0, onto [0, 255]; computed in float32 as the operator's function body.

    NaN elements take no part in the range (and quantize to 0, as in QuantizeLinear); a range of 0 (x all
    zeros, or empty) gives scale 1 (any positive scale quantizes it to 0; onnxruntime's choice), zero point 0."""
    x = np.asarray(x, np.float32)
    values = x[~np.isnan(x)]
    zero = np.float32(0)
    low = min(zero, values.min()) if values.size else zero
    high = max(zero, values.max()) if values.size else zero
    with np.errstate(all="ignore"):
        scale = np.float32((high - low) / np.float32(255))
        if scale == 0:
            scale = np.float32(1)
        zero_point = np.rint(np.clip(zero - low / scale, 0, 255)).astype(np.uint8)
    y = quantize_linear(x, np.asarray(scale), np.asarray(zero_point))
    return y, np.asarray(scale, np.float32), np.asarray(zero_point)


def _matmul_zero_point(zero_point: np.ndarray | None, rank: int, per_row: bool) -> np.ndarray:
    """A matmul zero point as int64 (or float64) values broadcasting against its operand: a scalar or one
    element is per tensor; a 1-D one is per row of a (shape [M, 1]) or per column of b (shape [N]); an N-D
    one ([..., M, 1] or [..., 1, N]) broadcasts as it is."""
    if zero_point is None:
        return np.zeros((), np.int64)
    zp = np.asarray(zero_point)
    zp = zp.astype(np.int64) if _is_integer(zp.dtype) else zp.astype(np.float64)
    if zp.size == 1:
        return zp.reshape(())
    if zp.ndim == 1 and per_row and rank >= 2:
        return zp.reshape(-1, 1)
    return zp


def matmul_integer(a: np.ndarray, b: np.ndarray, a_zero_point: np.ndarray | None = None,
                   b_zero_point: np.ndarray | None = None, *, Y_dtype: Any = None) -> np.ndarray:
    """ONNX MatMulInteger: (A - a_zero_point) @ (B - b_zero_point) as numpy.matmul, accumulated in int32 (exact
    in int64 and wrapped to int32: the text lets only the 32-bit accumulation overflow). Y is int32, the only
    type the spec allows (Y_dtype is not read)."""
    a, b = np.asarray(a), np.asarray(b)
    lhs = a.astype(np.int64) - _matmul_zero_point(a_zero_point, a.ndim, per_row=True)
    rhs = b.astype(np.int64) - _matmul_zero_point(b_zero_point, b.ndim, per_row=False)
    return np.matmul(lhs, rhs).astype(np.int32)


def qlinear_matmul(a: np.ndarray, a_scale: np.ndarray, a_zero_point: np.ndarray, b: np.ndarray,
                   b_scale: np.ndarray, b_zero_point: np.ndarray, y_scale: np.ndarray,
                   y_zero_point: np.ndarray) -> np.ndarray:
    """ONNX QLinearMatMul: the real product ((a - a_zp) * a_scale) @ ((b - b_zp) * b_scale) quantized with y_scale
    and y_zero_point. The integer (or float8) accumulation is exact (float64 holds it), the requantization
    multiplies by a_scale * b_scale / y_scale in float64 and rounds once: half to even and clamped for
    integers, saturating for float8 (QuantizeLinear's default)."""
    a, b = np.asarray(a), np.asarray(b)
    lhs = a.astype(np.float64) - _matmul_zero_point(a_zero_point, a.ndim, per_row=True)
    rhs = b.astype(np.float64) - _matmul_zero_point(b_zero_point, b.ndim, per_row=False)
    column_scale = np.asarray(b_scale, np.float64)
    column_scale = column_scale.reshape(()) if column_scale.size == 1 else column_scale
    with np.errstate(all="ignore"):
        real = np.matmul(lhs, rhs) * (np.float64(np.asarray(a_scale, np.float64).reshape(())) * column_scale)
        value = real / np.asarray(y_scale, np.float64).reshape(())
    target = np.asarray(y_zero_point).dtype
    zero = np.asarray(y_zero_point).astype(np.float64).reshape(())
    if _is_integer(target):
        with np.errstate(invalid="ignore"):
            return saturate_to(np.rint(value) + zero, target)
    return saturate_to(value if zero == 0 else value + zero, target)
