"""ONNX sequence mixers that carry a state from one call to the next: LinearAttention (the recurrent
form of linear attention, DeltaNet and their gated variants) and CausalConvWithState (the causal
depthwise convolution in front of them in Gated DeltaNet and Mamba layers).

Numerics (spec notes): float16/bfloat16 are computed in float32, float in its own precision, and each
output is rounded once at the end.
"""
from __future__ import annotations

import numpy as np

from ..elementwise import compute_dtype
from .convolution import conv_bias

_UPDATE_RULES = ("linear", "gated", "delta", "gated_delta")


def _unpack(x: np.ndarray, heads: int, what: str) -> np.ndarray:
    """[batch, seq, heads * size] -> [batch, heads, seq, size]."""
    if x.ndim != 3 or x.shape[2] % heads:
        raise ValueError(f"{what} of shape {x.shape} is not [batch, seq, {heads} * size]")
    b, t, packed = x.shape
    return x.reshape(b, t, heads, packed // heads).transpose(0, 2, 1, 3)


def onnx_linear_attention(query: np.ndarray, key: np.ndarray, value: np.ndarray,
                          past_state: np.ndarray | None = None, decay: np.ndarray | None = None,
                          beta: np.ndarray | None = None, *, chunk_size: int = 64, kv_num_heads: int,
                          q_num_heads: int, scale: float = 0.0, update_rule: str = "gated_delta"
                          ) -> tuple[np.ndarray, np.ndarray]:
    """ONNX LinearAttention, run token by token (chunk_size only tunes chunked implementations). Per
    key/value head the state S [d_k, d_v] (past_state, zeros when absent) is updated at each step t:
    linear S = S + k v^T; gated S = exp(g) S + k v^T; delta S = S + beta k (v - S^T k)^T; gated_delta
    S = exp(g) S + beta k (v - (exp(g) S)^T k)^T, with g = decay[t] in log space (one value per head or
    per key feature, scaling S's rows) and beta one value per head (or one for all). Query head h reads
    the state of key/value head h // (q_num_heads / kv_num_heads): o = scale q^T S (scale 0 means
    1 / sqrt(d_k)). Returns (output [batch, seq, q_num_heads * d_v], present_state)."""
    if update_rule not in _UPDATE_RULES:
        raise ValueError(f"update_rule must be one of {', '.join(_UPDATE_RULES)}, got {update_rule!r}")
    if q_num_heads <= 0 or kv_num_heads <= 0 or q_num_heads % kv_num_heads:
        raise ValueError(f"q_num_heads ({q_num_heads}) must be a positive multiple of kv_num_heads ({kv_num_heads})")
    gated, delta = update_rule in ("gated", "gated_delta"), update_rule in ("delta", "gated_delta")
    if gated != (decay is not None) or delta != (beta is not None):
        raise ValueError(f"update_rule {update_rule!r} takes {'decay' if gated else 'no decay'} and "
                         f"{'beta' if delta else 'no beta'}")
    query, key, value = np.asarray(query), np.asarray(key), np.asarray(value)
    work = compute_dtype(query.dtype)
    q = _unpack(query, q_num_heads, "query").astype(work)
    k = _unpack(key, kv_num_heads, "key").astype(work)
    v = _unpack(value, kv_num_heads, "value").astype(work)
    batch, _, steps, d_k = q.shape
    d_v = v.shape[-1]
    if k.shape[-1] != d_k:
        raise ValueError(f"key heads have {k.shape[-1]} features, query heads {d_k}")
    if decay is not None:  # [batch, seq, heads] or [batch, seq, heads * d_k] -> [batch, heads, seq, 1 or d_k]
        decay = np.asarray(decay)
        per_head = decay.ndim == 3 and decay.shape[2] == kv_num_heads
        if not per_head and decay.shape[-1] != kv_num_heads * d_k:
            raise ValueError(f"decay of shape {decay.shape} has neither {kv_num_heads} nor {kv_num_heads * d_k} "
                             "values per step")
        decay = _unpack(decay, kv_num_heads, "decay").astype(work)
    if beta is not None:  # [batch, seq, heads or 1] -> [batch, heads or 1, seq, 1]
        beta = np.asarray(beta)
        if beta.ndim != 3 or beta.shape[2] not in (kv_num_heads, 1):
            raise ValueError(f"beta of shape {beta.shape} is not [batch, seq, {kv_num_heads} or 1]")
        beta = _unpack(beta, beta.shape[2], "beta").astype(work)
    state_shape = (batch, kv_num_heads, d_k, d_v)
    if past_state is not None and np.asarray(past_state).shape != state_shape:
        raise ValueError(f"past_state has shape {np.asarray(past_state).shape}; {state_shape} expected")
    state = np.zeros(state_shape, work) if past_state is None else np.asarray(past_state).astype(work)
    factor = work.type(1 / np.sqrt(d_k) if scale == 0.0 else scale)
    group = q_num_heads // kv_num_heads
    out = np.empty((batch, q_num_heads, steps, d_v), work)
    with np.errstate(all="ignore"):
        for t in range(steps):
            k_t, v_t = k[:, :, t], v[:, :, t]                                  # [b, heads, d_k / d_v]
            if decay is not None:
                state = state * np.exp(decay[:, :, t])[..., None]              # rows scaled per key feature
            if beta is not None:
                recalled = np.einsum("bhkv,bhk->bhv", state, k_t)
                v_t = beta[:, :, t] * (v_t - recalled)
            state = state + k_t[..., :, None] * v_t[..., None, :]
            shared = np.repeat(state, group, axis=1)                           # query head h reads h // group
            out[:, :, t] = factor * np.einsum("bhk,bhkv->bhv", q[:, :, t], shared)
    output = out.transpose(0, 2, 1, 3).reshape(batch, steps, q_num_heads * d_v).astype(query.dtype)
    # present_state has past_state's type (S); without a past_state nothing names S: the query's type,
    # as onnx.reference does
    state_type = query.dtype if past_state is None else np.asarray(past_state).dtype
    return output, state.astype(state_type)


def onnx_causal_conv_with_state(input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None,
                                past_state: np.ndarray | None = None, *, activation: str = "none"
                                ) -> tuple[np.ndarray, np.ndarray]:
    """ONNX CausalConvWithState on input [batch, channels, length] with a depthwise kernel weight
    [channels, 1, k]: the sequence past_state (zeros when absent; [batch, channels, k - 1]) followed by the
    input is convolved without padding (hlir Conv with one group per channel), bias [channels] added,
    then x * sigmoid(x) when activation is "silu" or "swish". Returns (output, present_state = the last
    k - 1 positions of that sequence)."""
    if activation not in ("none", "silu", "swish"):
        raise ValueError(f"activation must be 'none', 'silu' or 'swish', got {activation!r}")
    x, w = np.asarray(input), np.asarray(weight)
    if x.ndim != 3 or w.ndim != 3 or w.shape[0] != x.shape[1] or w.shape[1] != 1:
        raise ValueError(f"input {x.shape} and weight {w.shape} are not [batch, C, length] and [C, 1, k]")
    batch, channels, _ = x.shape
    taps = w.shape[2]
    past = np.zeros((batch, channels, taps - 1), x.dtype) if past_state is None else np.asarray(past_state)
    if past.shape != (batch, channels, taps - 1):
        raise ValueError(f"past_state has shape {past.shape}; {(batch, channels, taps - 1)} expected")
    sequence = np.concatenate([past, x], axis=2)
    work = compute_dtype(x.dtype)  # conv_bias rounds to its operands' type: give it the compute type
    y = conv_bias(sequence.astype(work), w.astype(work), None if bias is None else np.asarray(bias).astype(work),
                  input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2],
                  kernel_output_feature_dimension=0, kernel_input_feature_dimension=1,
                  kernel_spatial_dimensions=[2], output_batch_dimension=0, output_feature_dimension=1,
                  output_spatial_dimensions=[2], window_strides=[1], padding=[0, 0], lhs_dilation=[1],
                  rhs_dilation=[1], feature_group_count=channels, batch_group_count=1)
    if activation != "none":
        with np.errstate(all="ignore"):
            e = np.exp(-np.abs(y))
            y = y * np.where(y >= 0, 1 / (1 + e), e / (1 + e))
    present = sequence[:, :, sequence.shape[2] - (taps - 1):]
    return y.astype(x.dtype), present.copy()
