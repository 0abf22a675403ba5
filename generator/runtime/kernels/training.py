"""The optimizers of ONNX's ai.onnx.preview.training domain: one update step of Adagrad, Adam and
Momentum over n tensors at once.

Each op takes the learning rate R and the update count T (scalars), then its variadic tensors in
groups of n (the tensors, their gradients, then one or two accumulators), and returns the n new
tensors followed by the new accumulators. The update is element-wise and each tensor is updated on
its own (ONNX describes the several tensors as one concatenated tensor, which is the same thing).
The arithmetic is done in float64 and each result is rounded once to its tensor's type.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np


def _groups(inputs: Sequence[np.ndarray], count: int) -> list[list[np.ndarray]]:
    """The variadic inputs as `count` lists of n tensors (tensors, gradients, accumulators...)."""
    n, remainder = divmod(len(inputs), count)
    if remainder or n == 0:
        raise ValueError(f"expected {count}n inputs after R and T, found {len(inputs)}")
    return [list(inputs[k * n:(k + 1) * n]) for k in range(count)]


def _wide(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


def adagrad(R: np.ndarray, T: np.ndarray, inputs: Sequence[np.ndarray], *, decay_factor: float = 0.0,
            epsilon: float = 1e-6, norm_coefficient: float = 0.0) -> tuple[np.ndarray, ...]:
    """X_new = X - r * g / (sqrt(H_new) + epsilon), H_new = H + g^2, where g = norm_coefficient * X + G
    and the learning rate decays with the update count: r = R / (1 + T * decay_factor)."""
    xs, gs, hs = _groups(inputs, 3)
    rate = float(R) / (1.0 + float(T) * decay_factor)
    new_xs, new_hs = [], []
    for x, g, h in zip(xs, gs, hs):
        grad = norm_coefficient * _wide(x) + _wide(g)
        h_new = _wide(h) + grad * grad
        x_new = _wide(x) - rate * grad / (np.sqrt(h_new) + epsilon)
        new_xs.append(x_new.astype(x.dtype))
        new_hs.append(h_new.astype(h.dtype))
    return (*new_xs, *new_hs)


def adam(R: np.ndarray, T: np.ndarray, inputs: Sequence[np.ndarray], *, alpha: float = 0.9, beta: float = 0.999,
         epsilon: float = 1e-6, norm_coefficient: float = 0.0,
         norm_coefficient_post: float = 0.0) -> tuple[np.ndarray, ...]:
    """Running means V (of gradients, weight alpha) and H (of squared gradients, weight beta); the rate
    is bias-corrected from the second update on (T > 0); the post-update decay scales the result."""
    xs, gs, vs, hs = _groups(inputs, 4)
    steps = int(T)
    rate = float(R) * np.sqrt(1.0 - beta ** steps) / (1.0 - alpha ** steps) if steps > 0 else float(R)
    new_xs, new_vs, new_hs = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs):
        grad = norm_coefficient * _wide(x) + _wide(g)
        v_new = alpha * _wide(v) + (1.0 - alpha) * grad
        h_new = beta * _wide(h) + (1.0 - beta) * grad * grad
        x_new = _wide(x) - rate * v_new / (np.sqrt(h_new) + epsilon)
        new_xs.append(((1.0 - norm_coefficient_post) * x_new).astype(x.dtype))
        new_vs.append(v_new.astype(v.dtype))
        new_hs.append(h_new.astype(h.dtype))
    return (*new_xs, *new_vs, *new_hs)


def momentum(R: np.ndarray, T: np.ndarray, inputs: Sequence[np.ndarray], *, alpha: float, beta: float,
             mode: str, norm_coefficient: float) -> tuple[np.ndarray, ...]:
    """V_new = alpha * V + b * g (b = beta, or 1 at the first update T = 0); standard mode steps along
    V_new, Nesterov's along g + alpha * V_new."""
    if mode not in ("standard", "nesterov"):
        raise ValueError(f"mode must be 'standard' or 'nesterov', found {mode!r}")
    xs, gs, vs = _groups(inputs, 3)
    gradient_weight = beta if int(T) > 0 else 1.0
    rate = float(R)
    new_xs, new_vs = [], []
    for x, g, v in zip(xs, gs, vs):
        grad = norm_coefficient * _wide(x) + _wide(g)
        v_new = alpha * _wide(v) + gradient_weight * grad
        direction = v_new if mode == "standard" else grad + alpha * v_new
        new_xs.append((_wide(x) - rate * direction).astype(x.dtype))
        new_vs.append(v_new.astype(v.dtype))
    return (*new_xs, *new_vs)
