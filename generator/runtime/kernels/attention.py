"""ONNX transformer blocks: Attention (versions 23, 24 and 25), FlexAttention (ai.onnx.preview),
RotaryEmbedding and SwiGLU.

Numerics (spec notes of each op): float16/bfloat16 are computed in float32, float and double in their
own precision (the wider of Q's and V's when they differ), and every output is rounded once at the end.
Attention's softmax_precision rounds the biased scores to that type, evaluates the softmax in its
compute precision and rounds the probabilities to it before they are used.
"""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np

from ..elementwise import compute_dtype

# TensorProto codes softmax_precision may name
_SOFTMAX_TYPES = {1: np.dtype(np.float32), 10: np.dtype(np.float16), 11: np.dtype(np.float64),
                  16: np.dtype(ml_dtypes.bfloat16)}
_NEG_INF = -np.inf


def _work_dtype(*dtypes: np.dtype) -> np.dtype:
    """float64 when any operand is double, else float32."""
    return np.dtype(np.float64) if any(compute_dtype(d) == np.float64 for d in dtypes) else np.dtype(np.float32)


def _heads(x: np.ndarray, num_heads: int | None, what: str) -> np.ndarray:
    """[batch, seq, heads * size] -> [batch, heads, seq, size]; a 4-D tensor is returned as it is."""
    if x.ndim == 4:
        return x
    if num_heads is None or num_heads <= 0 or x.shape[2] % num_heads:
        raise ValueError(f"{what} of shape {x.shape} cannot be split into {num_heads} heads")
    b, s, hidden = x.shape
    return x.reshape(b, s, num_heads, hidden // num_heads).transpose(0, 2, 1, 3)


def _softmax_rows(scores: np.ndarray, masked_rows: np.ndarray) -> np.ndarray:
    """Softmax over the last axis; a row the bias masks entirely gives zeros (not NaN)."""
    top = np.max(scores, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0)
    e = np.exp(scores - top)
    total = np.sum(e, axis=-1, keepdims=True)
    probabilities = e / np.where(total == 0, 1, total)
    return np.where(masked_rows, 0, probabilities)


def _visible(q_len: int, kv_len: int, offset: np.ndarray, is_causal: int, left: int, right: int) -> np.ndarray:
    """Which keys each query may see under the causal rule and the sliding window: [batch or 1, 1, q, kv].
    offset [batch or 1] is the absolute position of the first query of the block."""
    position = np.arange(q_len)[None, :, None] + offset[:, None, None]      # [b, q, 1]
    key = np.arange(kv_len)[None, None, :]
    allowed = np.ones((offset.shape[0], q_len, kv_len), bool)
    if is_causal:
        allowed &= key <= position
    if left >= 0:
        allowed &= key >= position - left
    if right >= 0:
        allowed &= key <= position + right
    return allowed[:, None]


def onnx_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, attn_mask: np.ndarray | None = None,
                   past_key: np.ndarray | None = None, past_value: np.ndarray | None = None,
                   nonpad_kv_seqlen: np.ndarray | None = None, *, is_causal: int = 0,
                   kv_num_heads: int | None = None, q_num_heads: int | None = None,
                   qk_matmul_output_mode: int = 0, scale: float | None = None, softcap: float = 0.0,
                   softmax_precision: int | None = None, left_window_size: int = -1,
                   right_window_size: int = -1) -> tuple[np.ndarray, ...]:
    """ONNX Attention: Y = softmax(softcap(Q' K'^T) + bias) V per head, Q' = Q sqrt(scale), K' = K sqrt(scale)
    (scale = 1 / sqrt(head_size) by default). Each K/V head serves a contiguous group of query heads.
    bias = attn_mask (bool: 0 where true, -inf where false; numeric: added; a mask shorter than the keys
    is padded with -inf) + -inf wherever the causal rule, the sliding window (version 25) or
    nonpad_kv_seqlen (version 24) hides a key. Queries sit at absolute positions offset + i, offset = the
    past length with past_key, nonpad_kv_seqlen[b] - q_sequence_length with nonpad_kv_seqlen, else 0. A
    query row whose bias is -inf everywhere gives zeros. Returns (Y, present_key, present_value,
    qk_matmul_output); qk_matmul_output by mode: 0 the scaled product, 1 after softcap, 2 after the bias,
    3 the probabilities."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if not Q.ndim == K.ndim == V.ndim and Q.ndim in (3, 4):
        raise ValueError(f"Q, K and V must all be 3-D or all 4-D, got ranks {Q.ndim}, {K.ndim}, {V.ndim}")
    if (past_key is None) != (past_value is None):
        raise ValueError("past_key and past_value are given together or not at all")
    if nonpad_kv_seqlen is not None and past_key is not None:
        raise ValueError("nonpad_kv_seqlen (an external cache) cannot be combined with past_key/past_value")
    q, k, v = _heads(Q, q_num_heads, "Q"), _heads(K, kv_num_heads, "K"), _heads(V, kv_num_heads, "V")
    present_key = k if past_key is None else np.concatenate([np.asarray(past_key), k], axis=2)
    present_value = v if past_value is None else np.concatenate([np.asarray(past_value), v], axis=2)
    work = _work_dtype(Q.dtype, V.dtype)
    batch, heads, q_len, head_size = q.shape
    kv_heads, kv_len = present_key.shape[1], present_key.shape[2]
    if heads % kv_heads:
        raise ValueError(f"{heads} query heads cannot be shared among {kv_heads} key/value heads")
    group = heads // kv_heads
    keys = np.repeat(present_key.astype(work), group, axis=1)
    values = np.repeat(present_value.astype(work), group, axis=1)
    root = np.sqrt(work.type(1 / np.sqrt(head_size) if scale is None else scale))

    with np.errstate(all="ignore"):
        product = (q.astype(work) * root) @ np.swapaxes(keys * root, -1, -2)       # [b, h, q, kv]
        capped = softcap * np.tanh(product / softcap) if softcap > 0 else product
        # the bias: the mask (padded with -inf to the keys), then -inf where a rule hides a key
        bias = np.zeros((1, 1, q_len, kv_len), work)
        if attn_mask is not None:
            mask = np.asarray(attn_mask)
            mask = np.where(mask, 0, _NEG_INF).astype(work) if mask.dtype == bool else mask.astype(work)
            missing = kv_len - mask.shape[-1]
            if missing < 0:
                raise ValueError(f"attn_mask covers {mask.shape[-1]} keys, more than the {kv_len} there are")
            mask = np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, missing)], constant_values=_NEG_INF)
            bias = bias + mask
        if past_key is not None:
            offset = np.array([np.asarray(past_key).shape[2]])
        elif nonpad_kv_seqlen is not None:
            offset = np.asarray(nonpad_kv_seqlen).astype(np.int64).reshape(-1) - q_len
        else:
            offset = np.zeros(1, np.int64)
        allowed = _visible(q_len, kv_len, offset, is_causal, left_window_size, right_window_size)
        if nonpad_kv_seqlen is not None:
            lengths = np.asarray(nonpad_kv_seqlen).astype(np.int64).reshape(-1, 1, 1, 1)
            allowed = allowed & (np.arange(kv_len) < lengths)
        bias = np.where(allowed, bias, _NEG_INF)
        biased = capped + bias
        masked_rows = np.all(np.isneginf(bias), axis=-1, keepdims=True)
        if softmax_precision is not None:
            precision = _SOFTMAX_TYPES[int(softmax_precision)]
            scores = biased.astype(precision).astype(compute_dtype(precision))
            probabilities = _softmax_rows(scores, masked_rows).astype(precision).astype(work)
        else:
            probabilities = _softmax_rows(biased, masked_rows)
        y = probabilities @ values                                                  # [b, h, q, v_size]
    qk = {0: product, 1: capped, 2: biased, 3: probabilities}[int(qk_matmul_output_mode)]
    if Q.ndim == 3:
        y = y.transpose(0, 2, 1, 3).reshape(batch, q_len, -1)
    qk = np.broadcast_to(qk, (batch, heads, q_len, kv_len))
    return y.astype(Q.dtype), present_key, present_value, qk.astype(Q.dtype)


def flex_attention(Q: np.ndarray, K: np.ndarray, V: np.ndarray, *, scale: float | None = None,
                   score_mod: Callable[..., Any] | None = None, prob_mod: Callable[..., Any] | None = None,
                   softmax_precision: int | None = None) -> np.ndarray:
    """ai.onnx.preview FlexAttention: Attention's product and softmax on 4-D inputs (grouped query
    heads as there), with the graphs score_mod and prob_mod run on the scores and on the probabilities.
    The hooks see, and the softmax is rounded to, the softmax precision (float32 for float16, bfloat16
    and float inputs, double for double, or softmax_precision); a row score_mod masks entirely gives
    zeros, as in Attention."""
    Q, K, V = np.asarray(Q), np.asarray(K), np.asarray(V)
    if not Q.ndim == K.ndim == V.ndim == 4:
        raise ValueError(f"Q, K and V must be 4-D, got ranks {Q.ndim}, {K.ndim}, {V.ndim}")
    work = _work_dtype(Q.dtype)
    precision = work if softmax_precision is None else _SOFTMAX_TYPES[int(softmax_precision)]
    heads, kv_heads = Q.shape[1], K.shape[1]
    if kv_heads == 0 or heads % kv_heads:
        raise ValueError(f"{heads} query heads cannot be shared among {kv_heads} key/value heads")
    keys = np.repeat(K.astype(work), heads // kv_heads, axis=1)
    values = np.repeat(V.astype(work), heads // kv_heads, axis=1)
    root = np.sqrt(work.type(1 / np.sqrt(Q.shape[3]) if scale is None else scale))
    with np.errstate(all="ignore"):
        scores = ((Q.astype(work) * root) @ np.swapaxes(keys * root, -1, -2)).astype(precision)
        if score_mod is not None:
            scores = _hook(score_mod, scores, "score_mod")
        wide = scores.astype(compute_dtype(precision))
        probabilities = _softmax_rows(wide, np.zeros(wide.shape[:-1] + (1,), bool)).astype(precision)
        if prob_mod is not None:
            probabilities = _hook(prob_mod, probabilities, "prob_mod")
        y = probabilities.astype(work) @ values
    return y.astype(Q.dtype)


def _hook(graph: Callable[..., Any], value: np.ndarray, name: str) -> np.ndarray:
    """Run a FlexAttention modifier graph: one tensor in, one tensor of the same shape out."""
    outputs = graph(value)
    if len(outputs) != 1 or np.shape(outputs[0]) != value.shape:
        shapes = [np.shape(o) for o in outputs]
        raise ValueError(f"{name} must give one tensor of shape {value.shape}, gave {shapes}")
    return np.asarray(outputs[0]).astype(value.dtype)


def onnx_rotary_embedding(X: np.ndarray, cos_cache: np.ndarray, sin_cache: np.ndarray,
                          position_ids: np.ndarray | None = None, *, interleaved: int = 0,
                          num_heads: int | None = None, rotary_embedding_dim: int = 0) -> np.ndarray:
    """ONNX RotaryEmbedding. X is [batch, heads, seq, head_size] or [batch, seq, heads * head_size]
    (num_heads then splits it). The first rotary_embedding_dim (default: all) features of each head are
    rotated: pairs (x1, x2) = (first half, second half), or (even, odd) features when interleaved, become
    (x1 cos - x2 sin, x1 sin + x2 cos) with cos, sin = cos_cache, sin_cache [batch, seq, dim / 2], or
    those caches [positions, dim / 2] indexed by position_ids [batch, seq]. The other features are kept."""
    x = np.asarray(X)
    work = compute_dtype(x.dtype)
    if x.ndim == 4:
        heads = x.transpose(0, 2, 1, 3)                                  # [batch, seq, heads, size]
    else:
        if num_heads is None or num_heads <= 0 or x.shape[2] % num_heads:
            raise ValueError(f"X of shape {x.shape} cannot be split into num_heads = {num_heads} heads")
        heads = x.reshape(x.shape[0], x.shape[1], num_heads, x.shape[2] // num_heads)
    size = heads.shape[-1]
    dim = rotary_embedding_dim or size
    if dim % 2 or dim > size:
        raise ValueError(f"rotary_embedding_dim {dim} must be even and at most the head size {size}")
    cos, sin = np.asarray(cos_cache).astype(work), np.asarray(sin_cache).astype(work)
    if position_ids is not None:
        ids = np.asarray(position_ids).astype(np.int64)
        cos, sin = cos[ids], sin[ids]
    if cos.shape[-1] != dim // 2 or sin.shape[-1] != dim // 2:
        raise ValueError(f"the caches hold {cos.shape[-1]} and {sin.shape[-1]} values per position; "
                         f"rotary_embedding_dim / 2 = {dim // 2} needed")
    cos, sin = cos[:, :, None, :], sin[:, :, None, :]                      # over the heads
    h = heads.astype(work)
    rotated = h[..., :dim]
    x1, x2 = (rotated[..., 0::2], rotated[..., 1::2]) if interleaved else (rotated[..., :dim // 2],
                                                                         rotated[..., dim // 2:])
    real, imag = x1 * cos - x2 * sin, x1 * sin + x2 * cos
    out = h.copy()
    if interleaved:
        out[..., 0:dim:2], out[..., 1:dim:2] = real, imag
    else:
        out[..., :dim // 2], out[..., dim // 2:dim] = real, imag
    out = out.transpose(0, 2, 1, 3) if x.ndim == 4 else out.reshape(x.shape)
    return out.astype(x.dtype)


def onnx_swiglu(A: np.ndarray, B: np.ndarray, *, alpha: float = 1.0) -> np.ndarray:
    """ONNX SwiGLU: Y = Swish_alpha(A) * B = A * sigmoid(alpha * A) * B, A and B of one shape (no
    broadcasting)."""
    a, b = np.asarray(A), np.asarray(B)
    if a.shape != b.shape:
        raise ValueError(f"A {a.shape} and B {b.shape} must have one shape (SwiGLU does not broadcast)")
    work = compute_dtype(a.dtype)
    x = a.astype(work)
    with np.errstate(all="ignore"):
        # sigmoid(z) = 1 / (1 + e^-z), written with e^-|z| so that it never overflows
        z = work.type(alpha) * x
        e = np.exp(-np.abs(z))
        gate = np.where(z >= 0, 1 / (1 + e), e / (1 + e))
        return (x * gate * b.astype(work)).astype(a.dtype)
