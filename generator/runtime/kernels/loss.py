"""Losses: BCELoss and CTCLoss as PyTorch defines them (torch.nn.BCELoss, torch.nn.CTCLoss,
torch._ctc_loss); ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (torch.nn.NLLLoss and
torch.nn.CrossEntropyLoss, which the ONNX texts cite).

float16 and bfloat16 are computed in float32 and every output rounded once; float and double in their
own precision.
"""
from __future__ import annotations

import numpy as np

from ..elementwise import compute_dtype, ieee_results
from .activation import softmax


@ieee_results
def bce_loss(input: np.ndarray, target: np.ndarray, weight: np.ndarray | None, *, reduction: str) -> np.ndarray:
    """loss = (target - 1) * max(log1p(-input), -100) - target * max(log(input), -100), times weight,
    then none / sum / mean (mean divides by the number of elements; none of them gives NaN).

    As PyTorch, input and target values outside [0, 1] (NaN included) are rejected (note value_range)."""
    x, y = np.asarray(input), np.asarray(target)
    dtype, compute = x.dtype, compute_dtype(x.dtype)
    for name, values in (("input", x), ("target", y)):
        if not np.all((values >= 0) & (values <= 1)):
            raise ValueError(f"all elements of {name} should be between 0 and 1")
    x, y = x.astype(compute), y.astype(compute)
    floor = compute.type(-100)
    with np.errstate(all="ignore"):
        loss = (y - 1) * np.maximum(np.log1p(-x), floor) - y * np.maximum(np.log(x), floor)
        if weight is not None:
            loss = loss * np.asarray(weight).astype(compute)
        if reduction == "none":
            result = loss
        elif reduction == "sum":
            result = np.sum(loss)
        elif reduction == "mean":
            result = np.sum(loss) / compute.type(loss.size)
        else:
            raise ValueError(f"reduction must be none, mean or sum, got {reduction!r}")
    return np.asarray(result).astype(dtype)


def _logsumexp(*terms: np.ndarray) -> np.ndarray:
    """log(sum(exp(terms))) shifted by the largest term as PyTorch's CTC does (a shift of -inf becomes 0)."""
    shift = terms[0]
    for t in terms[1:]:
        shift = np.maximum(shift, t)
    shift = np.where(shift == -np.inf, np.zeros((), shift.dtype), shift)
    return np.log(sum(np.exp(t - shift) for t in terms)) + shift


@ieee_results
def ctc_loss(input: np.ndarray, targets: np.ndarray, input_lengths: np.ndarray, target_lengths: np.ndarray, *,
             blank: int) -> tuple[np.ndarray, ...]:
    """Negative log-likelihood of each target under CTC (reduction "none") and the forward variables.

    input: log-probabilities (T, N, C) or (T, C). Returns (loss, alpha): loss (N,) or (); alpha
    (N, T, 2 * max(target_lengths) + 1), or (T, 2 * target_length + 1) for an unbatched input, holding
    log_alpha[t, s] for t < input_length and s < 2 * target_length + 1 and -inf elsewhere (note
    alpha_output_values). An empty input with an empty target has loss 0 (note empty_input)."""
    lp = np.asarray(input)
    dtype, compute = lp.dtype, compute_dtype(lp.dtype)
    lp = lp.astype(compute)
    targets = np.asarray(targets).astype(np.int64)
    in_len = np.asarray(input_lengths).astype(np.int64).reshape(-1)
    tg_len = np.asarray(target_lengths).astype(np.int64).reshape(-1)
    batched = lp.ndim == 3
    if not batched:
        lp = lp[:, None, :]
        if targets.ndim == 2:
            targets = targets.reshape(-1)
    steps, batch, _ = lp.shape
    max_len = int(tg_len.max()) if tg_len.size else 0
    alpha = np.full((batch, steps, 2 * max_len + 1), -np.inf, compute)
    loss = np.zeros(batch, compute)
    offsets = np.concatenate([[0], np.cumsum(tg_len)]) if targets.ndim == 1 else None
    neg_inf = np.array([-np.inf], compute)
    with np.errstate(all="ignore"):
        for b in range(batch):
            length, t_len = int(in_len[b]), int(tg_len[b])
            target = targets[offsets[b]:offsets[b] + t_len] if offsets is not None else targets[b, :t_len]
            extended = np.full(2 * t_len + 1, blank, np.int64)  # blank, l1, blank, l2, ..., blank
            extended[1::2] = target
            if length == 0:
                continue  # only an empty target fits (C7): its probability is 1, the loss 0
            la = alpha[b]
            la[0, 0] = lp[0, b, blank]
            if t_len > 0:
                la[0, 1] = lp[0, b, extended[1]]
            # s may come from s - 2 only when it is a label differing from the label at s - 2
            skip = np.zeros(extended.size, bool)
            skip[2:] = extended[2:] != extended[:-2]
            for t in range(1, length):
                prev = la[t - 1, :extended.size]
                stay = prev
                step = np.concatenate([neg_inf, prev[:-1]])
                jump = np.where(skip, np.concatenate([neg_inf, neg_inf, prev[:-2]])[:extended.size], -np.inf)
                la[t, :extended.size] = _logsumexp(stay, step, jump) + lp[t, b, extended]
            last = la[length - 1]
            if t_len == 0:
                loss[b] = -last[0]
            else:
                loss[b] = -_logsumexp(np.asarray(last[2 * t_len]), np.asarray(last[2 * t_len - 1]))
    if not batched:
        return loss[0].astype(dtype), alpha[0, :, :2 * int(tg_len[0]) + 1].astype(dtype)
    return loss.astype(dtype), alpha.astype(dtype)


def _class_losses(log_prob: np.ndarray, target: np.ndarray, weight: np.ndarray | None, ignore_index: int | None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample loss -log_prob[n, c, d...] * weight[c] and the weight each sample counts with in a mean
    (weight[c], or 1 without weights; 0 where c == ignore_index, whose loss is 0 too)."""
    classes = log_prob.shape[1]
    target = np.asarray(target).astype(np.int64)
    ignored = target == ignore_index if ignore_index is not None else np.zeros(target.shape, bool)
    wrong = ~ignored & ((target < 0) | (target >= classes))
    if np.any(wrong):
        raise ValueError(f"target value {int(target[wrong][0])} is not a class in [0, {classes}) "
                         f"nor ignore_index ({ignore_index})")
    index = np.where(ignored, 0, target)
    picked = np.take_along_axis(log_prob, index[:, None], axis=1)[:, 0]
    counted = np.ones(target.shape, log_prob.dtype) if weight is None else \
        np.asarray(weight).astype(log_prob.dtype)[index]
    counted = np.where(ignored, log_prob.dtype.type(0), counted)
    return np.where(ignored, log_prob.dtype.type(0), -picked * counted), counted


def _reduce(loss: np.ndarray, counted: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "none":
        return loss
    if reduction == "sum":
        return np.sum(loss)
    if reduction == "mean":  # an all-ignored batch divides 0 by 0: NaN, as PyTorch
        return np.sum(loss) / np.sum(counted)
    raise ValueError(f"reduction must be none, sum or mean, got {reduction!r}")


@ieee_results
def nll_loss(input: np.ndarray, target: np.ndarray, weight: np.ndarray | None = None, *,
             ignore_index: int | None = None, reduction: str = "mean") -> np.ndarray:
    """ONNX NegativeLogLikelihoodLoss: loss = -input[n, target, d...] * weight[target] (0 at ignore_index), then
    none / sum / mean. The mean divides by the sum of the weights of the samples not ignored (the count of
    those samples without weights), as torch.nn.NLLLoss; the text's mean(loss) leaves the ignored samples open
    (note mean_ignored). A target outside [0, C) that is not ignore_index is rejected."""
    x = np.asarray(input)
    loss, counted = _class_losses(x.astype(compute_dtype(x.dtype)), target, weight, ignore_index)
    return np.asarray(_reduce(loss, counted, reduction)).astype(x.dtype)


@ieee_results
def softmax_cross_entropy_loss(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None, *,
                               ignore_index: int | None = None, reduction: str = "mean"
                               ) -> tuple[np.ndarray, np.ndarray]:
    """ONNX SoftmaxCrossEntropyLoss: log_prob = LogSoftmax(scores) along the class axis 1 (activation.softmax,
    max-shifted), then NegativeLogLikelihoodLoss of log_prob (nll_loss's rules). Returns (output, log_prob)."""
    x = np.asarray(scores)
    log_prob = softmax(x.astype(compute_dtype(x.dtype)), axis=1, accurate=True, logarithmic=True, epsilon=0.0)
    loss, counted = _class_losses(log_prob, labels, weights, ignore_index)
    return np.asarray(_reduce(loss, counted, reduction)).astype(x.dtype), log_prob.astype(x.dtype)
