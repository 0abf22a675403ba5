"""oneDNN backward operations (element-wise formulas in specs/onednn/*Backward.yaml, and
generator/runtime/kernels/onednn_backward.py) against torch autograd on CPU: torch.autograd.grad of the
forward torch function, in float32 and, rounded once, in bfloat16. With use_dst the kernel reads the
forward result; torch's own backward-from-result functions (aten tanh_backward, sigmoid_backward,
elu_backward with is_result, threshold_backward) are the reference where torch has one."""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import opgen_ops
from conftest import onednn_kernel as kernel

RNG = np.random.default_rng(20261126)
BF16 = np.dtype(ml_dtypes.bfloat16)
ATEN: Any = torch.ops.aten

Forward = Callable[[torch.Tensor], torch.Tensor]


def t(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(np.asarray(x, np.float32)))


def close(got: np.ndarray, want: torch.Tensor | np.ndarray, dtype: np.dtype[Any], tol: float = 1e-5) -> None:
    """got (of dtype) against a float32 reference rounded once to dtype; bfloat16 within one unit of its
    8-bit significand (the kernel and torch may round float32 values a hair apart to different sides)."""
    expected = want.detach().numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.dtype == dtype and got.shape == expected.shape
    if dtype == BF16:
        expected = expected.astype(BF16).astype(np.float32)
        tol = 2.0 ** -7
    np.testing.assert_allclose(np.asarray(got, np.float64), expected, rtol=tol, atol=tol)


# op, attributes, the torch forward, whether the op has use_dst, how to draw src
ELEMENTWISE: list[tuple[str, dict[str, Any], Forward, bool, str]] = [
    ("AbsBackward", {}, torch.abs, False, "normal"),
    ("ClampBackward", {"min": -1.5, "max": 2.0}, lambda x: torch.clamp(x, -1.5, 2.0), True, "normal"),
    ("EluBackward", {"alpha": 0.7}, lambda x: tf.elu(x, 0.7), True, "normal"),
    ("GELUBackward", {"mode": "gelu_erf"}, tf.gelu, False, "normal"),
    ("GELUBackward", {"mode": "gelu_tanh"}, lambda x: tf.gelu(x, approximate="tanh"), False, "normal"),
    ("HardSigmoidBackward", {"alpha": 0.2, "beta": 0.4}, lambda x: torch.clamp(0.2 * x + 0.4, 0, 1), False, "normal"),
    ("HardSwishBackward", {}, tf.hardswish, False, "normal"),
    ("MishBackward", {}, tf.mish, False, "wide"),
    ("ReLUBackward", {}, torch.relu, True, "normal"),
    ("SigmoidBackward", {}, torch.sigmoid, True, "wide"),
    ("SoftPlusBackward", {"beta": 1.5}, lambda x: tf.softplus(x, beta=1.5), False, "wide"),
    ("SqrtBackward", {}, torch.sqrt, True, "positive"),
    ("TanhBackward", {}, torch.tanh, True, "normal"),
]


def draw(kind: str, dtype: np.dtype[Any]) -> np.ndarray:
    x = RNG.standard_normal(96).astype(np.float32) * 3
    if kind == "wide":
        x = x * 8  # saturated tails (exp overflowing in the unselected branch)
    if kind == "positive":
        x = np.abs(x) + 0.05
    return x.astype(dtype)


def from_result(op: str, attrs: dict[str, Any], dy: torch.Tensor, y: torch.Tensor) -> torch.Tensor | None:
    """torch's backward computed from the forward result, where torch has one for op."""
    if op == "TanhBackward":
        return ATEN.tanh_backward(dy, y)  # type: ignore[no-any-return]
    if op == "SigmoidBackward":
        return ATEN.sigmoid_backward(dy, y)  # type: ignore[no-any-return]
    if op == "EluBackward":
        return ATEN.elu_backward(dy, attrs["alpha"], 1.0, 1.0, True, y)  # type: ignore[no-any-return]
    if op == "ReLUBackward":
        return ATEN.threshold_backward(dy, y, 0.0)  # type: ignore[no-any-return]
    return None


@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16], ids=["f32", "bf16"])
@pytest.mark.parametrize("op,attrs,forward,has_use_dst,kind", ELEMENTWISE,
                         ids=[f"{e[0]}-{e[1].get('mode', '')}" for e in ELEMENTWISE])
def test_elementwise_gradients_match_torch_autograd(op: str, attrs: dict[str, Any], forward: Forward,
                                                    has_use_dst: bool, kind: str, dtype: np.dtype[Any]) -> None:
    x = draw(kind, dtype)
    dy = RNG.standard_normal(x.shape).astype(dtype)
    src = t(x).requires_grad_()
    y = forward(src)
    (want,) = torch.autograd.grad(y, src, t(dy))
    if not has_use_dst:
        close(kernel(op)(x, dy, **attrs)[0], want, dtype)
        return
    close(kernel(op)(x, dy, use_dst=False, **attrs)[0], want, dtype)
    dst = y.detach().numpy().astype(dtype)  # the forward result as the graph would hold it
    reference = from_result(op, attrs, t(dy), t(dst))
    if reference is None:  # Clamp: dst == src inside the bounds; Sqrt: src = dst^2 exactly (dst has <= 24/2 bits)
        exact_src = t(dst * dst if op == "SqrtBackward" else x).requires_grad_()
        (reference,) = torch.autograd.grad(forward(exact_src), exact_src, t(dy))
    close(kernel(op)(dst, dy, use_dst=True, **attrs)[0], reference, dtype, 1e-4)


def test_kinks_follow_the_library() -> None:
    """At the kinks the library's derivatives are its own: ReLU and Abs give 0 at 0 (as torch does);
    Clamp passes the gradient only strictly inside (min, max) (torch also at the bounds); HardSwish gives
    0 at -3 and the full gradient at 3 (torch: -0.5 and 1.5 times it); HardSigmoid 0 at both ends."""
    ones = np.ones(3, np.float32)
    assert kernel("ReLUBackward")(np.float32([0, -0.0, 1]), ones, use_dst=False)[0].tolist() == [0, 0, 1]
    assert kernel("AbsBackward")(np.float32([0, -2, 3]), ones)[0].tolist() == [0, -1, 1]
    for use_dst in (False, True):
        got = kernel("ClampBackward")(np.float32([-1, 2, 0.5]), ones, min=-1.0, max=2.0, use_dst=use_dst)[0]
        assert got.tolist() == [0, 0, 1]
    src = t(np.float32([-1, 2])).requires_grad_()
    assert torch.autograd.grad(torch.clamp(src, -1, 2), src, torch.ones(2))[0].tolist() == [1, 1]  # torch differs
    assert kernel("HardSwishBackward")(np.float32([-3, 3, 0]), ones)[0].tolist() == [0, 1, 0.5]
    assert kernel("HardSigmoidBackward")(np.float32([-2, 2, 0]), ones, alpha=0.25, beta=0.5)[0].tolist() == \
        [0, 0, 0.25]


def layout(x: np.ndarray, data_format: str) -> np.ndarray:
    return np.moveaxis(x, 1, -1) if data_format == "NXC" else x


@pytest.mark.parametrize("data_format,slope_shape", [("NCX", (3,)), ("NXC", (3,)), ("NCX", (1, 5)), ("NXC", (1,))])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16], ids=["f32", "bf16"])
def test_prelu_backward_matches_torch(data_format: str, slope_shape: tuple[int, ...], dtype: np.dtype[Any]) -> None:
    """A 1-D slope of the channel length is read per channel (axis 1 in NCX, last in NXC), other slopes
    align from the right; torch's PReLU takes the per-channel slope along axis 1 of an NCX tensor."""
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    x[0, 0, 0, :2] = 0  # the kink: the slope's side (diff_src = diff_dst * slope, diff_slope gets 0)
    w = RNG.standard_normal(slope_shape).astype(np.float32)
    dy = RNG.standard_normal(x.shape).astype(np.float32)
    x, w, dy = x.astype(dtype), w.astype(dtype), dy.astype(dtype)
    src, slope = t(x).requires_grad_(), t(w).requires_grad_()
    per_channel = slope_shape == (3,)
    y = tf.prelu(src, slope) if per_channel else torch.where(src > 0, src, slope * src)
    want_src, want_slope = torch.autograd.grad(y, (src, slope), t(dy))
    # a per-channel slope follows the channels into the NXC layout; other slopes are laid out as given
    arrange = (lambda a: layout(a, data_format)) if per_channel else (lambda a: a)
    diff_src, diff_slope = kernel("PReLUBackward")(arrange(x), w, arrange(dy), data_format=data_format)
    close(diff_src, arrange(want_src.numpy()), dtype)
    close(diff_slope, want_slope, dtype, 1e-4)


def library_slope_view(slope_shape: tuple[int, ...], src_rank: int, data_format: str) -> tuple[int, ...]:
    """The shape the library's backward pass gives slope before its kernel (the unsqueeze it inserts for
    prelu_bwd): new axes 0 .. k-1 for k missing dimensions, except that an NCX per-channel slope (1-D,
    length not 1) over k >= 2 missing dimensions keeps axis 1 and takes the last axis as new instead."""
    missing = src_rank - len(slope_shape)
    new_axes = list(range(missing))
    if data_format == "NCX" and len(slope_shape) == 1 and slope_shape[0] != 1 and missing >= 2:
        new_axes = new_axes[:1] + new_axes[2:] + [src_rank - 1]
    dims = iter(slope_shape)
    return tuple(1 if axis in new_axes else next(dims) for axis in range(src_rank))


@pytest.mark.parametrize("data_format,src_shape,slope_shape", [
    ("NCX", (2, 5, 3, 5), (5,)),  # per channel (axis 1), though it is also the last dimension's length
    ("NCX", (4, 3), (3,)), ("NXC", (2, 4, 3), (3,)), ("NCX", (6,), (6,)), ("NXC", (2, 3, 4), (1,)),
    ("NCX", (2, 3, 4, 5), (4, 1)), ("NXC", (2, 3, 4, 5), (1, 3, 1, 5))])
def test_prelu_backward_lays_the_slope_as_the_library_does(data_format: str, src_shape: tuple[int, ...],
                                                             slope_shape: tuple[int, ...]) -> None:
    """torch autograd of PReLU (aten._prelu_kernel, the function torch.nn.functional.prelu runs) with the
    slope reshaped as the library reshapes it; its slope gradient reduced to that shape."""
    x = RNG.standard_normal(src_shape).astype(np.float32)
    x.reshape(-1)[:2] = 0  # the kink
    w = RNG.standard_normal(slope_shape).astype(np.float32)
    dy = RNG.standard_normal(src_shape).astype(np.float32)
    src, slope = t(x).requires_grad_(), t(w).requires_grad_()
    y = ATEN._prelu_kernel(src, slope.reshape(library_slope_view(slope_shape, len(src_shape), data_format)))
    want_src, want_slope = torch.autograd.grad(y, (src, slope), t(dy))
    diff_src, diff_slope = kernel("PReLUBackward")(x, w, dy, data_format=data_format)
    close(diff_src, want_src, np.dtype(np.float32))
    close(diff_slope, want_slope, np.dtype(np.float32), 1e-4)


@pytest.mark.parametrize("data_format,src_shape,slope_shape", [
    ("NCX", (2, 3, 4, 5), (5,)),  # per channel, so the channel length 3 is required: no fallback to the last
    ("NXC", (2, 3, 4, 5), (3,)), ("NCX", (2, 3, 4, 5), (2, 1)), ("NCX", (3, 4), (1, 3, 4)), ("NCX", (2, 3), ())])
def test_prelu_backward_refuses_what_the_library_refuses(data_format: str, src_shape: tuple[int, ...],
                                                         slope_shape: tuple[int, ...]) -> None:
    validator = opgen_ops.get_validator("onednn", "PReLUBackward", 1)
    problems = [str(p) for p in validator([("float", src_shape), ("float", slope_shape), ("float", src_shape)],
                                          {"data_format": data_format})]
    assert len(problems) == 1 and "constraint C1" in problems[0], problems
    with pytest.raises(ValueError, match="constraint C1"):  # the kernel validates its arguments first
        kernel("PReLUBackward")(np.ones(src_shape, np.float32), np.ones(slope_shape, np.float32),
                                np.ones(src_shape, np.float32), data_format=data_format)


@pytest.mark.parametrize("axis", [1, -1])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16], ids=["f32", "bf16"])
def test_softmax_and_log_softmax_backward_match_torch(axis: int, dtype: np.dtype[Any]) -> None:
    x = (RNG.standard_normal((2, 5, 3)) * 2).astype(np.float32)
    dy = RNG.standard_normal(x.shape).astype(dtype)
    for op, forward in (("SoftMaxBackward", torch.softmax), ("LogSoftmaxBackward", torch.log_softmax)):
        src = t(x).requires_grad_()
        y = forward(src, axis)
        dst = y.detach().numpy().astype(dtype)
        # torch's backward from the result (as the library's: it takes dst), on the dst the kernel gets
        aten = ATEN._softmax_backward_data if op == "SoftMaxBackward" else ATEN._log_softmax_backward_data
        want = aten(t(dy), t(dst), axis, torch.float32)
        (autograd,) = torch.autograd.grad(y, src, t(dy))
        np.testing.assert_allclose(want.numpy(), autograd.numpy(), rtol=0.05, atol=0.05)  # the same gradient
        (got,) = kernel(op)(dy, dst, axis=axis)
        close(got, want, dtype, 1e-5)
    (wide,) = kernel("SoftMaxBackward")(dy, dst, axis=axis, diff_src_dtype=np.dtype(np.float32))
    assert wide.dtype == np.float32


@pytest.mark.parametrize("begin_norm_axis,use_affine", [(-1, True), (1, True), (2, False)])
@pytest.mark.parametrize("dtype", [np.dtype(np.float32), BF16], ids=["f32", "bf16"])
def test_layer_norm_backward_matches_torch(begin_norm_axis: int, use_affine: bool, dtype: np.dtype[Any]) -> None:
    x = (RNG.standard_normal((2, 3, 4)) * 3 + 1).astype(dtype)
    norm_shape = x.shape[begin_norm_axis % 3:]
    gamma, beta = RNG.standard_normal(norm_shape).astype(np.float32), RNG.standard_normal(norm_shape).astype(np.float32)
    dy = RNG.standard_normal(x.shape).astype(dtype)
    src, weight, bias = t(x).requires_grad_(), t(gamma).requires_grad_(), t(beta).requires_grad_()
    y = tf.layer_norm(src, norm_shape, weight if use_affine else None, bias if use_affine else None, eps=1e-3)
    wanted = (src, weight, bias) if use_affine else (src,)
    want = torch.autograd.grad(y, wanted, t(dy))
    # the saved statistics: LayerNorm's own outputs (this domain's forward kernel)
    _, mean, variance = kernel("LayerNorm")(x, begin_norm_axis=begin_norm_axis, use_affine=False, epsilon=1e-3)
    got = kernel("LayerNormBackward")(x, dy, mean, variance, gamma, beta, begin_norm_axis=begin_norm_axis,
                                      use_affine=use_affine, epsilon=1e-3)
    assert len(got) == len(want)
    close(got[0], want[0], dtype, 1e-4)
    for g, w in zip(got[1:], want[1:]):
        close(g, w, np.dtype(np.float32), 1e-4)


@pytest.mark.parametrize("mode,transform,data_format", [("nearest", "half_pixel", "NCX"),
                                                        ("linear", "half_pixel", "NXC"),
                                                        ("bilinear", "align_corners", "NCX")])
def test_interpolate_backward_matches_torch(mode: str, transform: str, data_format: str) -> None:
    """torch's interpolate: nearest-exact is the library's half_pixel nearest (round half up)."""
    spatial = (5,) if mode == "linear" else (3, 4)
    out = (8,) if mode == "linear" else (7, 6)
    x = RNG.standard_normal((2, 3, *spatial)).astype(np.float32)
    dy = RNG.standard_normal((2, 3, *out)).astype(np.float32)
    src = t(x).requires_grad_()
    torch_mode = "nearest-exact" if mode == "nearest" else mode
    y = tf.interpolate(src, size=out, mode=torch_mode, **({} if mode == "nearest" else
                                                          {"align_corners": transform == "align_corners"}))
    (want,) = torch.autograd.grad(y, src, t(dy))
    forward = kernel("Interpolate")(layout(x, data_format), mode=mode, sizes=list(out),
                                    coordinate_transformation_mode=transform, data_format=data_format)[0]
    close(forward, layout(y.detach().numpy(), data_format), np.dtype(np.float32))  # the same interpolation
    (got,) = kernel("InterpolateBackward")(layout(x, data_format), layout(dy, data_format), mode=mode,
                                           sizes=list(out), coordinate_transformation_mode=transform,
                                           data_format=data_format)
    close(got, layout(want.numpy(), data_format), np.dtype(np.float32), 1e-5)
