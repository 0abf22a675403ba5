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

RNG = np.random.default_rng(20261126)
BF16 = np.dtype(ml_dtypes.bfloat16)
ATEN: Any = torch.ops.aten

Forward = Callable[[torch.Tensor], torch.Tensor]


def kernel(op: str) -> Callable[..., tuple[np.ndarray, ...]]:
    return opgen_ops.get_kernel("onednn", op, 1)


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
