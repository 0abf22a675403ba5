"""oneDNN Graph operations whose semantics are those of existing kernels, adapted to oneDNN's attributes.

Each function says which semantics it reuses and how oneDNN's attributes differ (transpose flags, an
optional bias, an axes attribute or input, special_zero, per-channel quantization parameters as
attributes). The numerics follow the other kernels: float16/bfloat16 are computed in float32 and
rounded once to the output type.
"""
from __future__ import annotations

from typing import Any, Sequence

import ml_dtypes
import numpy as np

from ..elementwise import compute_dtype, finish, ieee_results
from .activation import softmax as _softmax
from .onnx_linalg import onnx_matmul
from .onnx_normalization import onnx_rms_norm

_ML_FINFO: Any = ml_dtypes.finfo  # (ml_dtypes has no annotations)


def _out(requested: np.dtype[Any] | None, default: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(default if requested is None else requested)


def _swap_last(x: np.ndarray, swap: bool) -> np.ndarray:
    """oneDNN's transpose_a/transpose_b: swap the last two dimensions; a 1-D tensor is left alone."""
    return np.swapaxes(x, -1, -2) if swap and x.ndim > 1 else x


@ieee_results
def matmul(src: np.ndarray, weights: np.ndarray, bias: np.ndarray | None = None, *, transpose_a: bool = False,
           transpose_b: bool = False, accumulation_mode: str = "strict",
           dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """ONNX MatMul (numpy.matmul: 1-D operands promoted, batch dimensions broadcast) of the optionally
    transposed operands, plus a bias broadcast to the product, rounded once to dst's type (src's by
    default; oneDNN also allows f32 for a bf16/f16 src). accumulation_mode is a performance hint that
    the reference ignores: it always accumulates in float32 (float64 for f64)."""
    a, b = np.asarray(src), np.asarray(weights)
    out = _out(dst_dtype, a.dtype)
    work = compute_dtype(a.dtype)
    product = onnx_matmul(_swap_last(a, transpose_a).astype(work), _swap_last(b, transpose_b).astype(work))
    if bias is not None:
        product = product + np.asarray(bias).astype(work)
    return finish(np.asarray(product), out)


def softmax(src: np.ndarray, *, axis: int = 1, mode: str = "none", dst_dtype: np.dtype[Any] | None = None,
            stats_dtype: np.dtype[Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """hlir Softmax (max-shifted, accurate) along axis. mode inf_as_zero: a row whose inputs are all
    -inf gives zeros instead of NaN. The second output (stats, f32) is the row's log-sum-exp,
    max + log(sum(exp(x - max))), of the shape of src with size 1 along axis."""
    x = np.asarray(src)
    out = _out(dst_dtype, x.dtype)
    c = x.astype(compute_dtype(x.dtype))
    result = _softmax(c, axis=axis, accurate=True, logarithmic=False, epsilon=0.0)
    with np.errstate(all="ignore"):
        peak = np.max(c, axis=axis, keepdims=True) if x.size else np.zeros(x.shape, c.dtype)
        stats = peak + np.log(np.sum(np.exp(c - peak), axis=axis, keepdims=True))
    if mode == "inf_as_zero":
        all_minus_inf = np.all(np.isneginf(c), axis=axis, keepdims=True)
        result = np.where(all_minus_inf, np.zeros((), c.dtype), result)
    return finish(result, out), finish(np.asarray(stats), _out(stats_dtype, np.dtype(np.float32)))


def log_softmax(src: np.ndarray, *, axis: int = -1) -> np.ndarray:
    """hlir Softmax with logarithmic output (x - max - log(sum(exp(x - max)))) along axis."""
    return _softmax(np.asarray(src), axis=axis, accurate=True, logarithmic=True, epsilon=0.0)


def type_cast(src: np.ndarray, *, dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """Conversion between f32 and bf16/f16, rounding to nearest even (NumPy's and ml_dtypes' casts)."""
    x = np.asarray(src)
    if dst_dtype is None:
        raise ValueError("onednn.TypeCast: the dst data type must be given (dst_dtype)")
    return x.astype(np.dtype(dst_dtype))


def reorder(src: np.ndarray) -> np.ndarray:
    """A copy: Reorder changes only the memory layout, which a NumPy array does not expose."""
    return np.array(src, copy=True)


def static_transpose(src: np.ndarray, *, order: Sequence[int]) -> np.ndarray:
    """numpy.transpose with negative entries counted from the end; an empty order reverses the axes."""
    x = np.asarray(src)
    return np.ascontiguousarray(np.transpose(x, [o % x.ndim for o in order] if len(order) else None))


def static_reshape(src: np.ndarray, *, shape: Sequence[int], special_zero: bool) -> np.ndarray:
    """numpy.reshape, where a 0 keeps src's dimension at that index when special_zero is true."""
    x = np.asarray(src)
    target = [x.shape[j] if special_zero and d == 0 else int(d) for j, d in enumerate(shape)]
    return x.reshape(target).copy()


def concat(src_i: Sequence[np.ndarray], *, axis: int) -> np.ndarray:
    """numpy.concatenate along axis (negative counted from the end)."""
    return np.concatenate([np.asarray(t) for t in src_i], axis=axis)


def _axes(src: np.ndarray, axes: Sequence[int] | None, axes_input: np.ndarray | None) -> tuple[int, ...]:
    chosen = [int(a) for a in np.asarray(axes_input).reshape(-1)] if axes_input is not None else list(axes or [])
    return tuple(sorted({a % src.ndim for a in chosen}))


def _reduce(kind: str, src: np.ndarray, axes_input: np.ndarray | None, axes: Sequence[int] | None,
            keep_dims: bool) -> np.ndarray:
    """The reductions of ONNX's Reduce* (over the named axes, in float32 for bf16/f16)."""
    x = np.asarray(src)
    dims = _axes(x, axes, axes_input)
    c = x.astype(compute_dtype(x.dtype))
    with np.errstate(all="ignore"):
        if kind == "l1":
            r = np.sum(np.abs(c), axis=dims, keepdims=keep_dims)
        elif kind == "l2":
            r = np.sqrt(np.sum(c * c, axis=dims, keepdims=keep_dims))
        elif kind == "max":
            r = np.max(c, axis=dims, keepdims=keep_dims)
        elif kind == "min":
            r = np.min(c, axis=dims, keepdims=keep_dims)
        elif kind == "mean":
            r = np.mean(c, axis=dims, keepdims=keep_dims)
        elif kind == "prod":
            r = np.prod(c, axis=dims, keepdims=keep_dims)
        else:
            r = np.sum(c, axis=dims, keepdims=keep_dims)
    return finish(np.asarray(r), x.dtype)


def reduce_l1(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
              keep_dims: bool = False) -> np.ndarray:
    """Sum of absolute values over the axes (the attribute, or the second input)."""
    return _reduce("l1", src, axes_input, axes, keep_dims)


def reduce_l2(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
              keep_dims: bool = False) -> np.ndarray:
    """Square root of the sum of squares over the axes."""
    return _reduce("l2", src, axes_input, axes, keep_dims)


def reduce_max(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
               keep_dims: bool = False) -> np.ndarray:
    """Maximum over the axes (NaN propagates)."""
    return _reduce("max", src, axes_input, axes, keep_dims)


def reduce_min(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
               keep_dims: bool = False) -> np.ndarray:
    """Minimum over the axes (NaN propagates)."""
    return _reduce("min", src, axes_input, axes, keep_dims)


def reduce_mean(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
                keep_dims: bool = False) -> np.ndarray:
    """Arithmetic mean over the axes."""
    return _reduce("mean", src, axes_input, axes, keep_dims)


def reduce_prod(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
                keep_dims: bool = False) -> np.ndarray:
    """Product over the axes."""
    return _reduce("prod", src, axes_input, axes, keep_dims)


def reduce_sum(src: np.ndarray, axes_input: np.ndarray | None = None, *, axes: Sequence[int] | None = None,
               keep_dims: bool = False) -> np.ndarray:
    """Sum over the axes."""
    return _reduce("sum", src, axes_input, axes, keep_dims)


def _channel_view(vector: np.ndarray, rank: int, data_format: str) -> np.ndarray:
    """A per-channel vector shaped to broadcast along the channel axis (1 for NCX, last for NXC)."""
    shape = [1] * rank
    shape[1 if data_format == "NCX" else rank - 1] = -1
    return np.asarray(vector).reshape(shape)


@ieee_results
def bias_add(src: np.ndarray, bias: np.ndarray, *, data_format: str = "NXC") -> np.ndarray:
    """src + bias, the 1-D bias along the channel dimension."""
    x = np.asarray(src)
    c = compute_dtype(x.dtype)
    return finish(x.astype(c) + _channel_view(np.asarray(bias).astype(c), x.ndim, data_format), x.dtype)


@ieee_results
def layer_norm(src: np.ndarray, gamma: np.ndarray | None = None, beta: np.ndarray | None = None, *,
               keep_stats: bool = True, begin_norm_axis: int = -1, use_affine: bool = True,
               epsilon: float = 1e-5) -> tuple[np.ndarray, ...]:
    """(src - mean) / sqrt(variance + epsilon) over the dimensions from begin_norm_axis on, then
    * gamma + beta (each when given and use_affine); mean and variance (biased) keep src's leading
    dimensions (f32). With keep_stats false only dst is returned."""
    x = np.asarray(src)
    c: np.ndarray[Any, np.dtype[np.floating[Any]]] = x.astype(np.float64 if x.dtype == np.float64 else np.float32)
    dims = tuple(range(begin_norm_axis % x.ndim, x.ndim))
    mean = np.mean(c, axis=dims, keepdims=True)
    variance = np.mean((c - mean) ** 2, axis=dims, keepdims=True)
    result = (c - mean) / np.sqrt(variance + c.dtype.type(epsilon))
    if use_affine and gamma is not None:
        result = result * np.asarray(gamma).astype(c.dtype)
    if use_affine and beta is not None:
        result = result + np.asarray(beta).astype(c.dtype)
    dst = finish(result, x.dtype)
    if not keep_stats:
        return (dst,)
    stats_type = np.dtype(np.float32)
    return dst, finish(mean.reshape(x.shape[:dims[0]]), stats_type), \
        finish(variance.reshape(x.shape[:dims[0]]), stats_type)


@ieee_results
def batch_norm_inference(src: np.ndarray, gamma: np.ndarray, beta: np.ndarray, mean: np.ndarray,
                         variance: np.ndarray, *, epsilon: float, data_format: str = "NXC") -> np.ndarray:
    """gamma * (src - mean) / sqrt(variance + epsilon) + beta per channel (the channel axis by
    data_format), computed in float32."""
    x = np.asarray(src)
    c = np.float32

    def per_channel(v: np.ndarray) -> np.ndarray:
        return _channel_view(np.asarray(v).astype(c), x.ndim, data_format)
    result = per_channel(gamma) * (x.astype(c) - per_channel(mean)) / np.sqrt(per_channel(variance) + c(epsilon)) \
        + per_channel(beta)
    return finish(result, x.dtype)


def _quant_params(x: np.ndarray, values: Sequence[float] | Sequence[int], qtype: str, axis: int,
                  dtype: type, op: str, name: str) -> np.ndarray:
    """Scales or zero points broadcast to x: one value (per_tensor) or one per index along axis.

    The validator accepts per_channel values that do not number src's dimension along axis, as oneDNN
    does (spec note per_channel_count: its grouped int8 ConvTranspose graph gives 16 scales for an axis
    of size 1, which only the fused grouped convolution knows how to apply). Alone, the op has no meaning
    for them, so the kernel refuses them rather than broadcasting into an output of another shape; a
    single value applies to every index."""
    arr: np.ndarray = np.asarray(values, dtype=dtype)
    if qtype == "per_tensor":
        return arr.reshape(())
    axis %= x.ndim
    if arr.size not in (1, x.shape[axis]):
        raise ValueError(f"onednn.{op}: per_channel {name} has {arr.size} values but src has {x.shape[axis]} "
                         f"along axis {axis}; alone the op applies one per index along axis (oneDNN applies "
                         "such values only inside a fused grouped convolution)")
    return _along(arr, x.ndim, axis)


def _along(vector: np.ndarray, rank: int, axis: int) -> np.ndarray:
    shape = [1] * rank
    shape[axis] = -1
    return vector.reshape(shape)


def quantize(src: np.ndarray, *, qtype: str = "per_tensor", axis: int = 1, scales: Sequence[float],
             zps: Sequence[int] | None = None, dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """ONNX QuantizeLinear's formula: round(src / scales + zps) (to nearest, ties to even), saturated
    to an integer dst; an 8-bit floating-point dst is src / scales rounded to that format (saturating
    to its largest finite value, as QuantizeLinear with saturate=1)."""
    if dst_dtype is None:
        raise ValueError("onednn.Quantize: the dst data type must be given (dst_dtype)")
    x = np.asarray(src).astype(np.float32)
    out = np.dtype(dst_dtype)
    scaled = x / _quant_params(x, scales, qtype, axis, np.float32, "Quantize", "scales")
    if out.kind in "iu":
        info = np.iinfo(out)
        zero = _quant_params(x, zps, qtype, axis, np.float32, "Quantize", "zps") if zps is not None else np.float32(0)
        return np.clip(np.rint(scaled) + zero, info.min, info.max).astype(out)
    limit = np.float32(_ML_FINFO(out).max)
    return np.clip(scaled, -limit, limit).astype(out)


def dequantize(src: np.ndarray, *, qtype: str = "per_tensor", axis: int = 1, scales: Sequence[float],
               zps: Sequence[int] | None = None, dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """ONNX DequantizeLinear's formula, (src - zps) * scales, in f32 (dst's only type)."""
    x = np.asarray(src).astype(np.float32)
    zero = _quant_params(x, zps, qtype, axis, np.float32, "Dequantize", "zps") if zps is not None else np.float32(0)
    return ((x - zero) * _quant_params(x, scales, qtype, axis, np.float32, "Dequantize", "scales")).astype(np.float32)


def group_norm(src: np.ndarray, gamma: np.ndarray | None = None, beta: np.ndarray | None = None, *, groups: int,
               keep_stats: bool = True, use_affine: bool = True, epsilon: float = 1e-5,
               data_format: str = "NXC") -> tuple[np.ndarray, ...]:
    """LayerNorm of each instance's groups: the channels split into `groups` runs of C / groups, each run
    with all spatial positions normalised together (ONNX GroupNormalization's statistics), then gamma
    and beta per channel; mean and variance are (N, groups) in f32."""
    x = np.asarray(src)
    ncx = np.moveaxis(x, -1, 1) if data_format == "NXC" and x.ndim > 2 else x
    work = ncx.astype(compute_dtype(x.dtype))
    if groups <= 0 or ncx.shape[1] % groups:
        raise ValueError(f"onednn.GroupNorm: {ncx.shape[1]} channels do not split into {groups} groups")
    normed, mean, variance = layer_norm(work.reshape(ncx.shape[0], groups, -1), begin_norm_axis=2, use_affine=False,
                                        epsilon=epsilon)
    result = normed.reshape(ncx.shape)
    if use_affine and gamma is not None:
        result = result * _channel_view(np.asarray(gamma).astype(work.dtype), result.ndim, "NCX")
    if use_affine and beta is not None:
        result = result + _channel_view(np.asarray(beta).astype(work.dtype), result.ndim, "NCX")
    dst = finish(np.moveaxis(result, 1, -1) if ncx is not x else result, x.dtype)
    return (dst, mean, variance) if keep_stats else (dst,)


def rms_norm(src: np.ndarray, gamma: np.ndarray | None = None, *, begin_norm_axis: int = -1,
             epsilon: float = 1e-5) -> np.ndarray:
    """ONNX RMSNormalization (src / sqrt(mean(src^2) + epsilon) over the dimensions from begin_norm_axis
    on, times gamma: ones when absent) in f32, rounded once to src's type (ONNX gives gamma's)."""
    x = np.asarray(src)
    work = compute_dtype(x.dtype)
    scale = np.ones(x.shape[begin_norm_axis % x.ndim:], work) if gamma is None else np.asarray(gamma).astype(work)
    return finish(onnx_rms_norm(x.astype(work), scale, axis=begin_norm_axis, epsilon=epsilon), x.dtype)


def end(src: np.ndarray) -> tuple[()]:
    """End marks src as consumed and computes nothing: no output (a graph that ends its tensors with End
    runs, as oneDNN runs it)."""
    return ()


def gen_index(src: np.ndarray, *, axis: int, dst_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """Each element's coordinate along axis (negative counts from the end), as s32 (dst's one type): only
    src's shape is read, as the library's executable writes int32(coordinate[axis]) for every element."""
    x = np.asarray(src)
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"onednn.GenIndex: axis {axis} is outside [-{x.ndim}, {x.ndim - 1}] for src of rank {x.ndim}")
    along = np.arange(x.shape[axis], dtype=np.int32).reshape([-1 if k == axis % x.ndim else 1 for k in range(x.ndim)])
    return np.array(np.broadcast_to(along, x.shape), dtype=_out(dst_dtype, np.dtype(np.int32)))
