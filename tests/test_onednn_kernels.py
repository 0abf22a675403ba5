"""oneDNN Graph reference kernels (element-wise formulas and generator/runtime/kernels/onednn_ops.py)
against torch on CPU, an independent implementation of the same maths.

f32 inputs are compared at float32 tolerance; bf16 cases compare with torch computing in float32 and
rounding once to bfloat16 (what the kernels do), at bfloat16's tolerance.
"""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

from opgen.testing import TOLERANCES
from conftest import onednn_kernel as kernel

RNG = np.random.default_rng(20261126)
X = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32) * 3
X[0, 0, 0, :3] = [0.5, -2.5, 1.5]  # halves for Round


def close(got: np.ndarray, want: torch.Tensor, elem: str = "float") -> None:
    rtol, atol = TOLERANCES[elem]
    expected = want.detach().to(torch.float64).numpy()
    assert got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=rtol, atol=atol, equal_nan=True)


def t(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.asarray(x, np.float32).copy())


UNARY: dict[str, tuple[dict[str, Any], Callable[[torch.Tensor], torch.Tensor], Callable[[np.ndarray], np.ndarray]]] = {
    "Abs": ({}, torch.abs, lambda x: x), "Exp": ({}, torch.exp, lambda x: x),
    "Log": ({}, torch.log, np.abs), "Sqrt": ({}, torch.sqrt, np.abs), "Square": ({}, torch.square, lambda x: x),
    "ReLU": ({}, torch.relu, lambda x: x), "Sigmoid": ({}, torch.sigmoid, lambda x: x),
    "Tanh": ({}, torch.tanh, lambda x: x), "Reciprocal": ({}, torch.reciprocal, lambda x: x),
    "Round": ({}, torch.round, lambda x: x),
    "Clamp": ({"min": -1.5, "max": 2.0}, lambda x: torch.clamp(x, -1.5, 2.0), lambda x: x),
    "Elu": ({"alpha": 0.7}, lambda x: tf.elu(x, 0.7), lambda x: x),
    "LeakyReLU": ({"alpha": 0.1}, lambda x: tf.leaky_relu(x, 0.1), lambda x: x),
    "HardSigmoid": ({"alpha": 1 / 6, "beta": 0.5}, tf.hardsigmoid, lambda x: x),
    "HardSwish": ({}, tf.hardswish, lambda x: x), "Mish": ({}, tf.mish, lambda x: x * 10),
    "SoftPlus": ({"beta": 2.0}, lambda x: tf.softplus(x, beta=2.0), lambda x: x * 10),
    "Pow": ({"beta": 3.0}, lambda x: torch.pow(x, 3.0), lambda x: x),
}


@pytest.mark.parametrize("op", sorted(UNARY))
@pytest.mark.parametrize("elem", ["float", "bfloat16"])
def test_unary_formula_matches_torch(op: str, elem: str) -> None:
    attrs, reference, prepare = UNARY[op]
    x = prepare(X).astype(np.float32)
    if elem == "bfloat16":
        x = x.astype(ml_dtypes.bfloat16)
    (got,) = kernel(op)(x, **attrs)
    assert got.dtype == x.dtype
    want = reference(t(x.astype(np.float32)))
    close(got, want.to(torch.bfloat16) if elem == "bfloat16" else want, elem)


BINARY: dict[str, Callable[[torch.Tensor, torch.Tensor], torch.Tensor]] = {
    "Add": torch.add, "Subtract": torch.sub, "Multiply": torch.mul, "Divide": torch.div,
    "Maximum": torch.maximum, "Minimum": torch.minimum, "SquaredDifference": lambda a, b: (a - b) ** 2,
}


@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_formula_broadcasts_as_torch(op: str) -> None:
    b = RNG.standard_normal((4, 1)).astype(np.float32)
    (got,) = kernel(op)(X, b)
    close(got, BINARY[op](t(X), t(b)))


@pytest.mark.parametrize("op", ["Add", "Subtract"])
def test_s32_add_and_subtract_match_torch(op: str) -> None:
    a = RNG.integers(-1000, 1000, (3, 4)).astype(np.int32)
    b = RNG.integers(-1000, 1000, (4,)).astype(np.int32)
    (got,) = kernel(op)(a, b)
    want = BINARY[op](torch.from_numpy(a), torch.from_numpy(b))
    assert got.dtype == np.int32 and np.array_equal(got, want.numpy())


def test_mixed_types_and_comparison_and_select() -> None:
    b = RNG.standard_normal((5,)).astype(ml_dtypes.bfloat16)
    (got,) = kernel("Multiply")(X, b)
    assert got.dtype == np.float32  # dst takes src_0's type unless told
    close(got, t(X) * t(b.astype(np.float32)))
    (ge,) = kernel("GreaterEqual")(X, np.float32([0.0]))
    assert ge.dtype == np.bool_ and np.array_equal(ge, (t(X) >= 0).numpy())
    cond = X[0, 0] > 0
    (sel,) = kernel("Select")(cond, X, np.float32([-7.0]))
    close(sel, torch.where(torch.from_numpy(cond), t(X), torch.tensor([-7.0])))


@pytest.mark.parametrize("a_shape,b_shape,ta,tb", [
    ((2, 1, 3, 4), (5, 6, 4), False, True), ((4, 3), (4, 6), True, False), ((4,), (2, 6, 4), True, True),
    ((2, 3, 4), (4,), False, False)])
def test_matmul_matches_torch(a_shape: tuple[int, ...], b_shape: tuple[int, ...], ta: bool, tb: bool) -> None:
    a = RNG.standard_normal(a_shape).astype(np.float32)
    b = RNG.standard_normal(b_shape).astype(np.float32)

    def swap(x: torch.Tensor, flag: bool) -> torch.Tensor:
        return x.transpose(-1, -2) if flag and x.dim() > 1 else x
    want = torch.matmul(swap(t(a), ta), swap(t(b), tb))
    bias = RNG.standard_normal(want.shape[-1:] if want.dim() else ()).astype(np.float32)
    (got,) = kernel("MatMul")(a, b, bias, transpose_a=ta, transpose_b=tb)
    close(got, want + t(bias))
    (low,) = kernel("MatMul")(a.astype(ml_dtypes.bfloat16), b.astype(ml_dtypes.bfloat16), transpose_a=ta,
                              transpose_b=tb, dst_dtype=np.float32)
    assert low.dtype == np.float32
    ref = torch.matmul(swap(t(a).to(torch.bfloat16).float(), ta), swap(t(b).to(torch.bfloat16).float(), tb))
    close(low, ref)


def test_softmax_logsoftmax_and_stats_match_torch() -> None:
    dst, stats = kernel("SoftMax")(X, axis=1)
    close(dst, torch.softmax(t(X), 1))
    close(stats, torch.logsumexp(t(X), 1, keepdim=True))
    rows = np.array([[-np.inf, -np.inf], [0.0, 1.0]], np.float32)
    dst, _ = kernel("SoftMax")(rows, axis=-1, mode="inf_as_zero")
    close(dst, torch.nan_to_num(torch.softmax(t(rows), -1), nan=0.0))
    (log,) = kernel("LogSoftmax")(X, axis=2)
    close(log, torch.log_softmax(t(X), 2))


def test_type_cast_rounds_as_torch() -> None:
    (got,) = kernel("TypeCast")(X, dst_dtype=ml_dtypes.bfloat16)
    assert got.dtype == ml_dtypes.bfloat16
    assert np.array_equal(got.view(np.uint16), t(X).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16))
    (half,) = kernel("TypeCast")(X, dst_dtype=np.float16)
    assert np.array_equal(half, t(X).to(torch.float16).numpy())


def test_data_movement_matches_torch() -> None:
    (perm,) = kernel("StaticTranspose")(X, order=[0, -1, 1, 2])
    assert np.array_equal(perm, t(X).permute(0, 3, 1, 2).numpy())
    (rev,) = kernel("StaticTranspose")(X, order=[])
    assert np.array_equal(rev, t(X).permute(3, 2, 1, 0).numpy())
    (reshaped,) = kernel("StaticReshape")(X, shape=[0, -1, 5], special_zero=True)
    assert np.array_equal(reshaped, t(X).reshape(2, -1, 5).numpy())
    y = RNG.standard_normal((2, 1, 4, 5)).astype(np.float32)
    (joined,) = kernel("Concat")(X, y, X, axis=-3)
    assert np.array_equal(joined, torch.cat([t(X), t(y), t(X)], 1).numpy())
    (copied,) = kernel("Reorder")(X)
    assert np.array_equal(copied, X) and copied is not X


REDUCTIONS: dict[str, Callable[..., torch.Tensor]] = {
    "ReduceSum": lambda x, d, k: torch.sum(x, d, keepdim=k), "ReduceMean": lambda x, d, k: torch.mean(x, d, keepdim=k),
    "ReduceMax": lambda x, d, k: torch.amax(x, d, keepdim=k), "ReduceMin": lambda x, d, k: torch.amin(x, d, keepdim=k),
    "ReduceProd": lambda x, d, k: torch.prod(torch.prod(x, d[1], keepdim=k), d[0], keepdim=k),
    "ReduceL1": lambda x, d, k: torch.linalg.vector_norm(x, 1, d, keepdim=k),
    "ReduceL2": lambda x, d, k: torch.linalg.vector_norm(x, 2, d, keepdim=k),
}


@pytest.mark.parametrize("op", sorted(REDUCTIONS))
def test_reduction_matches_torch(op: str) -> None:
    (kept,) = kernel(op)(X, axes=[1, -1], keep_dims=True)
    close(kept, REDUCTIONS[op](t(X), (1, 3), True))
    (dropped,) = kernel(op)(X, np.int32([3, 1]))  # the axes as the second input
    close(dropped, REDUCTIONS[op](t(X), (1, 3), False))


def test_normalizations_match_torch() -> None:
    (biased,) = kernel("BiasAdd")(X, np.float32([1, 2, 3]), data_format="NCX")
    close(biased, t(X) + torch.tensor([1.0, 2.0, 3.0]).view(1, 3, 1, 1))
    gamma, beta = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    dst, mean, variance = kernel("LayerNorm")(X, gamma, beta, epsilon=1e-5)
    close(dst, tf.layer_norm(t(X), (5,), t(gamma), t(beta), 1e-5), "float16")
    var_ref, mean_ref = torch.var_mean(t(X), -1, correction=0)
    close(mean, mean_ref)
    close(variance, var_ref)
    stats = [RNG.standard_normal(3).astype(np.float32) for _ in range(3)] + [RNG.random(3).astype(np.float32) + 0.5]
    (bn,) = kernel("BatchNormInference")(X, *stats, epsilon=1e-3, data_format="NCX")
    close(bn, tf.batch_norm(t(X), t(stats[2]), t(stats[3]), t(stats[0]), t(stats[1]), False, 0.0, 1e-3), "float16")


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # torch's quantized tensors: deprecated
def test_quantize_and_dequantize_match_torch() -> None:
    (q,) = kernel("Quantize")(X, scales=[0.05], zps=[7], dst_dtype=np.uint8)
    ref = torch.quantize_per_tensor(t(X), 0.05, 7, torch.quint8)
    assert np.array_equal(q, ref.int_repr().numpy())
    scales, zps = [0.1, 0.02, 0.3], [1, -2, 0]
    (qc,) = kernel("Quantize")(X, qtype="per_channel", axis=1, scales=scales, zps=zps, dst_dtype=np.int8)
    refc = torch.quantize_per_channel(t(X), torch.tensor(scales, dtype=torch.float64), torch.tensor(zps), 1,
                                      torch.qint8)
    assert np.array_equal(qc, refc.int_repr().numpy())
    (dq,) = kernel("Dequantize")(qc, qtype="per_channel", axis=1, scales=scales, zps=zps)
    close(dq, refc.dequantize())


@pytest.mark.parametrize("mode,approximate", [("gelu_erf", "none"), ("gelu_tanh", "tanh")])
@pytest.mark.parametrize("elem", ["float", "bfloat16"])
def test_gelu_matches_torch(mode: str, approximate: str, elem: str) -> None:
    x = X.astype(ml_dtypes.bfloat16) if elem == "bfloat16" else X
    (got,) = kernel("GELU")(x, mode=mode)
    assert got.dtype == x.dtype
    want = tf.gelu(t(x.astype(np.float32)), approximate=approximate)
    close(got, want.to(torch.bfloat16) if elem == "bfloat16" else want, elem)


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
def test_group_norm_and_rms_norm_match_torch(data_format: str) -> None:
    x = RNG.standard_normal((2, 6, 3, 4)).astype(np.float32) * 2 + 1
    gamma, beta = RNG.standard_normal(6).astype(np.float32), RNG.standard_normal(6).astype(np.float32)
    given = np.moveaxis(x, 1, -1) if data_format == "NXC" else x
    dst, mean, variance = kernel("GroupNorm")(given, gamma, beta, groups=3, epsilon=1e-4, data_format=data_format)
    want = tf.group_norm(t(x), 3, t(gamma), t(beta), 1e-4)
    close(np.moveaxis(dst, -1, 1) if data_format == "NXC" else dst, want)
    var_ref, mean_ref = torch.var_mean(t(x).reshape(2, 3, -1), -1, correction=0)
    close(mean, mean_ref)
    close(variance, var_ref)
    (plain,) = kernel("GroupNorm")(given, groups=2, keep_stats=False, use_affine=False, data_format=data_format)
    close(np.moveaxis(plain, -1, 1) if data_format == "NXC" else plain, tf.group_norm(t(x), 2))
    weight = RNG.standard_normal((3, 4)).astype(np.float32)
    (rms,) = kernel("RMSNorm")(x, weight, begin_norm_axis=-2, epsilon=1e-6)
    close(rms, tf.rms_norm(t(x), (3, 4), t(weight), 1e-6))
    (rms_bf16,) = kernel("RMSNorm")(x.astype(ml_dtypes.bfloat16))
    assert rms_bf16.dtype == ml_dtypes.bfloat16
    close(rms_bf16, tf.rms_norm(t(x.astype(ml_dtypes.bfloat16).astype(np.float32)), (4,), eps=1e-5).to(torch.bfloat16),
          "bfloat16")


def test_per_channel_values_that_do_not_number_the_axis_are_refused() -> None:
    """Spec note per_channel_count: validation accepts per_channel scales that do not number src's
    dimension along axis (oneDNN does), but alone the op has no meaning for them; the kernels refused
    nothing and broadcast 3 scales on an axis of size 1 into an output three times as large. Now a
    count other than 1 or that dimension is an error naming both; one value applies to every index."""
    x = X[:, :1]  # one channel on axis 1
    for op, extra in (("Quantize", {"dst_dtype": np.int8}), ("Dequantize", {})):
        src = x if op == "Quantize" else np.rint(x).astype(np.int8)
        with pytest.raises(ValueError, match=f"onednn.{op}: per_channel scales has 3 values but src has 1 along "
                                             "axis 1"):
            kernel(op)(src, qtype="per_channel", axis=1, scales=[0.1, 0.2, 0.3], **extra)
        with pytest.raises(ValueError, match="per_channel (scales|zps) has 2 values but src has 4 along axis 2"):
            kernel(op)(np.asarray(X if op == "Quantize" else np.rint(X).astype(np.int8)), qtype="per_channel",
                       axis=-2, scales=[0.1, 0.2], zps=[1, 2], **extra)
        (one,) = kernel(op)(src, qtype="per_channel", axis=1, scales=[0.25], zps=[3], **extra)
        (per_tensor,) = kernel(op)(src, scales=[0.25], zps=[3], **extra)
        assert one.shape == src.shape and np.array_equal(one, per_tensor)
