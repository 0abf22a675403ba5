"""Losses defined by PyTorch: BCELoss (torch.nn.BCELoss) and CTCLoss (torch.nn.CTCLoss, torch._ctc_loss).

float16 is computed in float32 and every output rounded once; float and double in their own precision.
"""
from __future__ import annotations

import numpy as np

from ..elementwise import compute_dtype, ieee_results


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
