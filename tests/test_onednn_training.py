"""oneDNN batch-norm training, BiasAddBackward and dynamic (de)quantization kernels
(generator/runtime/kernels/onednn_training.py) against torch on CPU."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

from conftest import onednn_kernel as kernel

RNG = np.random.default_rng(20261129)


def t(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x))


def close(got: np.ndarray, want: torch.Tensor | np.ndarray, tol: float = 1e-5) -> None:
    expected = want.detach().numpy() if isinstance(want, torch.Tensor) else want
    assert got.shape == expected.shape
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=tol, atol=tol)


def layout(x: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if data_format == "NXC" else x


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
def test_batch_norm_training_and_its_gradient_match_torch(data_format: str) -> None:
    x = RNG.standard_normal((4, 3, 5, 2)).astype(np.float32) * 2 + 0.5
    gamma, beta = RNG.standard_normal(3).astype(np.float32), RNG.standard_normal(3).astype(np.float32)
    old_mean, old_var = RNG.standard_normal(3).astype(np.float32), RNG.random(3).astype(np.float32) + 0.5
    src = t(x).requires_grad_()
    weight, bias = t(gamma).requires_grad_(), t(beta).requires_grad_()
    want = tf.batch_norm(src, None, None, weight, bias, training=True, eps=1e-3)
    batch_var, batch_mean = torch.var_mean(t(x), (0, 2, 3), correction=0)
    dst, run_mean, run_var, mean, var = kernel("BatchNormForwardTraining")(
        layout(x, data_format), old_mean, old_var, gamma, beta, epsilon=1e-3, momentum=0.8, data_format=data_format)
    close(dst, layout(want.detach().numpy(), data_format))
    close(mean, batch_mean)
    close(var, batch_var)
    close(run_mean, 0.8 * old_mean + 0.2 * batch_mean.numpy())  # the library's stated update
    close(run_var, 0.8 * old_var + 0.2 * batch_var.numpy())
    (_, default_mean, *_) = kernel("BatchNormForwardTraining")(layout(x, data_format), old_mean, old_var,
                                                               epsilon=1e-3, data_format=data_format)
    close(default_mean, 0.5 * old_mean + 0.5 * batch_mean.numpy())  # momentum 0.5 when not given
    diff_dst = RNG.standard_normal(x.shape).astype(np.float32)
    grads = torch.autograd.grad(want, (src, weight, bias), t(diff_dst))
    diff_src, diff_gamma, diff_beta = kernel("BatchNormTrainingBackward")(
        layout(x, data_format), layout(diff_dst, data_format), mean, var, gamma, epsilon=1e-3,
        data_format=data_format)
    close(diff_src, layout(grads[0].numpy(), data_format), 1e-4)
    close(diff_gamma, grads[1], 1e-4)
    close(diff_beta, grads[2], 1e-4)
    (bias_grad,) = kernel("BiasAddBackward")(layout(diff_dst, data_format), data_format=data_format)
    close(bias_grad, t(diff_dst).sum((0, 2, 3)), 1e-4)


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor:UserWarning")  # torch's quantized tensors: deprecated
def test_dynamic_quantize_and_dequantize_match_torch() -> None:
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32) * 4
    (q,) = kernel("DynamicQuantize")(x, np.float32([0.05]), np.uint8([7]), dst_dtype=np.uint8)
    ref = torch.quantize_per_tensor(t(x), 0.05, 7, torch.quint8)
    assert q.dtype == np.uint8 and np.array_equal(q, ref.int_repr().numpy())
    scales, zps = np.float32([0.1, 0.02, 0.3]), np.int8([1, -2, 0])
    (qc,) = kernel("DynamicQuantize")(x, scales, zps, qtype="per_channel", axis=1, dst_dtype=np.int8)
    refc = torch.quantize_per_channel(t(x), t(scales.astype(np.float64)), t(zps.astype(np.int64)), 1, torch.qint8)
    assert np.array_equal(qc, refc.int_repr().numpy())
    (dq,) = kernel("DynamicDequantize")(qc, scales, zps, qtype="per_channel", axis=1)
    close(dq, refc.dequantize())
    # per_group: one scale and zero point per block of group_shape (1, 1, 2) elements, as int4 weights use it
    w = RNG.integers(-8, 8, (2, 3, 4)).astype(ml_dtypes.int4)
    group_scales = RNG.random((2, 3, 2)).astype(np.float32)
    group_zps = RNG.integers(-2, 3, (2, 3, 2)).astype(ml_dtypes.int4)
    (dg,) = kernel("DynamicDequantize")(w, group_scales, group_zps, qtype="per_group", group_shape=[1, 1, 2])
    widen = [torch.from_numpy(np.asarray(a, np.float32)).repeat_interleave(2, dim=2) for a in (group_scales, group_zps)]
    close(dg, (torch.from_numpy(w.astype(np.float32)) - widen[1]) * widen[0])
    (half,) = kernel("DynamicDequantize")(w, group_scales.astype(np.float16), group_zps, qtype="per_group",
                                          group_shape=[1, 1, 2])
    assert half.dtype == np.float16
