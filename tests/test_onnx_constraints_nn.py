"""Constraints and attribute value lists of the ONNX neural-network ops without earlier numbered
constraints: Attention (23/24/25), LinearAttention, RotaryEmbedding, CausalConvWithState, SwiGLU, RNN
(every version), NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, MaxUnpool,
MeanVarianceNormalization, CenterCropPad, Scatter, TensorScatter and STFT.

For every numbered constraint and attribute value list a small model breaks it and opgen must report
it at that constraint / attribute (and nothing else); the valid base use of each op version must pass
opgen and every reference (strict shape inference, the full checker with the shapes onnx infers, and
onnxruntime where it has a kernel). As an independent reference, onnx or onnxruntime must refuse each
broken model, except where a case says that no reference checks it (ref None, with the reason).
"""
from __future__ import annotations

import functools

import numpy as np
import onnx
import pytest
from onnx import TensorProto

from onnx_cases import arr, build, reference_shapes, rejection, where

F, I32, I64 = TensorProto.FLOAT, TensorProto.INT32, TensorProto.INT64
i32 = functools.partial(arr, dtype=np.int32)

# ---- valid base uses: op -> (inputs, attributes, outputs, constant inputs) ----
# inputs: name -> shape or (element type, shape), "" for an omitted optional input; a constant input
# is named in inputs and given in the last entry.
ATT = ({"Q": [2, 4, 3, 8], "K": [2, 2, 5, 8], "V": [2, 2, 5, 6], "attn_mask": [3, 5]}, {}, ["Y"], {})
RNN = ({"X": [5, 2, 3], "W": [1, 4, 3], "R": [1, 4, 4], "B": [1, 8], "sequence_lens": (I32, [2]),
        "initial_h": [1, 2, 4]}, {"hidden_size": 4}, ["Y", "Y_h"], {"sequence_lens": i32([5, 3])})
BASE = {
    "Attention": ATT,
    "LinearAttention": ({"query": [1, 2, 8], "key": [1, 2, 8], "value": [1, 2, 6], "past_state": [1, 2, 4, 3],
                         "decay": [1, 2, 2], "beta": [1, 2, 2]}, {"q_num_heads": 2, "kv_num_heads": 2},
                        ["output", "present_state"], {}),
    "RotaryEmbedding": ({"X": [1, 2, 3, 8], "cos_cache": [1, 3, 4], "sin_cache": [1, 3, 4]}, {}, ["Y"], {}),
    "CausalConvWithState": ({"input": [1, 3, 5], "weight": [3, 1, 2], "bias": [3], "past_state": [1, 3, 1]}, {},
                            ["output", "present_state"], {}),
    "SwiGLU": ({"A": [2, 4], "B": [2, 4]}, {}, ["Y"], {}),
    "RNN": RNN,
    "NegativeLogLikelihoodLoss": ({"input": [2, 3, 4], "target": (I64, [2, 4]), "weight": [3]}, {}, ["loss"], {}),
    "SoftmaxCrossEntropyLoss": ({"scores": [2, 3, 4], "labels": (I64, [2, 4]), "weights": [3]}, {},
                                ["output", "log_prob"], {}),
    "MaxUnpool": ({"X": [1, 1, 2, 2], "I": (I64, [1, 1, 2, 2]), "output_shape": (I64, [4])},
                  {"kernel_shape": [2, 2], "strides": [2, 2]}, ["output"], {"output_shape": arr([1, 1, 4, 5])}),
    "MeanVarianceNormalization": ({"X": [2, 3, 4, 5]}, {"axes": [0, 2, 3]}, ["Y"], {}),
    "CenterCropPad": ({"input_data": [4, 5], "shape": (I64, [2])}, {}, ["output_data"], {"shape": arr([3, 6])}),
    "Scatter": ({"data": [3, 3], "indices": (I64, [2, 3]), "updates": [2, 3]}, {}, ["output"], {}),
    "TensorScatter": ({"past_cache": [2, 3, 8, 4], "update": [2, 3, 2, 4], "write_indices": (I64, [2])}, {},
                      ["present_cache"], {}),
    # STFT with onesided = 0: onnx's inference (1.23.2) ignores onesided and gives n bins, which opgen's
    # reader would take as the declared shape (onnxruntime gives n // 2 + 1, as opgen states)
    "STFT": ({"signal": [1, 16, 1], "frame_step": (I64, []), "window": [8], "frame_length": (I64, [])},
             {"onesided": 0},
             ["output"], {"frame_step": arr(4), "frame_length": arr(8)}),
}
OPSETS = {"Attention": (23, 24, 25), "LinearAttention": (27,), "RotaryEmbedding": (23,),
          "CausalConvWithState": (27,), "SwiGLU": (28,), "RNN": (1, 7, 14, 22),
          "NegativeLogLikelihoodLoss": (12, 13, 22), "SoftmaxCrossEntropyLoss": (12, 13), "MaxUnpool": (9, 11, 22),
          "MeanVarianceNormalization": (9, 13), "CenterCropPad": (18,), "Scatter": (9,), "TensorScatter": (24,),
          "STFT": (17,)}
# more valid uses: (op, opsets, input changes, attribute changes, constant changes)
MORE_VALID = [
    ("Attention", (23, 24, 25), {"Q": [2, 3, 32], "K": [2, 5, 16], "V": [2, 5, 12]},
     {"q_num_heads": 4, "kv_num_heads": 2}, {}),
    ("Attention", (24, 25), {"attn_mask": "", "past_key": "", "past_value": "", "nonpad_kv_seqlen": (I64, [2])}, {}, {}),
    ("LinearAttention", (27,), {"query": [1, 2, 16], "past_state": "", "decay": [1, 2, 8], "beta": [1, 2, 1]},
     {"q_num_heads": 4}, {}),
    ("LinearAttention", (27,), {"decay": "", "beta": ""}, {"update_rule": "linear"}, {}),
    # masks that broadcast (the text: "broadcastable to (batch, q_num_heads, q_seq, total_seq)"); onnxruntime
    # refuses both in versions 23 and 24 (a query axis of 1, a 1-D mask), onnx's node tests use a 1-D one in 25
    ("Attention", (25,), {"attn_mask": [1, 5]}, {}, {}),
    ("Attention", (25,), {"attn_mask": [5]}, {}, {}),
    ("RotaryEmbedding", (23,), {"X": [1, 3, 16], "cos_cache": [10, 2], "sin_cache": [10, 2],
                                "position_ids": (I64, [1, 3])}, {"num_heads": 2, "rotary_embedding_dim": 4}, {}),
    ("RNN", (7, 14, 22), {"W": [2, 4, 3], "R": [2, 4, 4], "B": [2, 8], "initial_h": [2, 2, 4]},
     {"direction": "bidirectional", "activations": ["Relu", "Tanh"]}, {}),
    ("RNN", (14, 22), {"X": [2, 5, 3], "initial_h": [2, 1, 4]}, {"layout": 1}, {}),
    ("MeanVarianceNormalization", (9, 13), {}, {"axes": [1, -1]}, {}),
    ("CenterCropPad", (18,), {"shape": (I64, [1])}, {"axes": [-1]}, {"shape": arr([3])}),
    ("Scatter", (9,), {}, {"axis": -1}, {}),
    ("TensorScatter", (24,), {"update": [2, 3, 8, 2]}, {"axis": -1, "mode": "circular"}, {}),
    ("STFT", (17,), {"signal": [1, 16, 2], "window": "", "frame_length": (I64, [])}, {"onesided": 0}, {}),
]
# opsets onnxruntime (1.31) has no CPU kernel for: no run is asked of it there
NO_ORT = {("RNN", 1), ("LinearAttention", 27), ("CausalConvWithState", 27), ("SwiGLU", 28), ("CenterCropPad", 18),
          ("TensorScatter", 24), ("Attention", 25), ("MeanVarianceNormalization", 9)}


def make(op, opset, ins=None, attrs=None, consts=None):
    base_ins, base_attrs, outs, base_consts = BASE[op]
    i = {**base_ins, **(ins or {})}
    a = {k: v for k, v in {**base_attrs, **(attrs or {})}.items() if v is not None}
    c = {k: v for k, v in {**base_consts, **(consts or {})}.items() if k in i and i[k] != ""}
    while list(i.values())[-1] == "":
        i.popitem()
    return build(op, opset, i, a, {o: None for o in outs}, c)


@functools.lru_cache(maxsize=None)
def ort_runs(op, opset):
    """onnxruntime runs the valid base use of this version (otherwise it is no reference for it)."""
    if (op, opset) in NO_ORT:
        return False
    m, feeds = make(op, opset)
    return rejection(m, feeds) is None


def check_valid(op, opset, ins=None, attrs=None, consts=None):
    m, feeds = make(op, opset, ins, attrs, consts)
    assert where(m) == []
    # onnxruntime has no batch-major (layout 1) recurrent kernels
    assert rejection(m, feeds, ort=(op, opset) not in NO_ORT and (attrs or {}).get("layout") != 1) is None
    # with the output shapes the references give declared, opgen agrees and the full checker passes
    try:
        shapes = reference_shapes(m, feeds)[0]
    except Exception:  # noqa: BLE001  (no onnxruntime kernel and onnx leaves a shape unknown)
        return
    for o in m.graph.output:
        if o.name in shapes:
            o.type.tensor_type.shape.Clear()
            for d in shapes[o.name]:
                o.type.tensor_type.shape.dim.add().dim_value = d
    assert where(m) == []
    onnx.checker.check_model(m, full_check=True)


@pytest.mark.parametrize("op, opset", [(op, v) for op, vs in OPSETS.items() for v in vs])
def test_valid_base_use_passes_opgen_and_references(op, opset):
    check_valid(op, opset)


@pytest.mark.parametrize("op, opset, ins, attrs, consts", [
    pytest.param(op, v, ins, attrs, consts, id=f"{op}-{v}-{k}")
    for k, (op, vs, ins, attrs, consts) in enumerate(MORE_VALID) for v in vs])
def test_more_valid_uses_pass(op, opset, ins, attrs, consts):
    check_valid(op, opset, ins, attrs, consts)


C = "constraint "
A = "attribute "
P4 = {"past_key": [2, 2, 4, 8], "past_value": [2, 2, 4, 6]}
# (op, opsets, input changes, attribute changes, constant changes, where opgen reports it, reference)
# reference: "onnx" (strict shape inference / full checker), "ort" (onnxruntime refuses or fails at
# run), None: no reference detects it (the comment says why).
CASES = [
    # ---- Attention ----
    ("Attention", (23, 24, 25), {"Q": [2, 4, 3, 8, 1]}, {}, {}, C + "C1", "onnx"),
    # Q, K and V of different ranks: onnx infers shapes for it, onnxruntime refuses (the text does not say)
    ("Attention", (23, 24), {"Q": [2, 3, 32]}, {"q_num_heads": 4, "kv_num_heads": 2}, {}, C + "C2", "ort"),
    ("Attention", (23, 24, 25), {"Q": [2, 3, 32], "K": [2, 5, 16], "V": [2, 5, 12], "attn_mask": ""}, {}, {},
     C + "C3", "onnx"),
    ("Attention", (23, 24), {"Q": [2, 3, 30], "K": [2, 5, 16], "V": [2, 5, 12], "attn_mask": ""},
     {"q_num_heads": 4, "kv_num_heads": 2}, {}, C + "C4", "ort"),
    ("Attention", (23, 24), {"Q": [2, 3, 3, 8]}, {}, {}, C + "C5", "ort"),
    ("Attention", (23, 24), {"K": [3, 2, 5, 8]}, {}, {}, C + "C6", "ort"),
    ("Attention", (23, 24), {"V": [3, 2, 5, 6]}, {}, {}, C + "C6", "ort"),
    ("Attention", (23, 24), {"K": [2, 2, 5, 6]}, {}, {}, C + "C7", "ort"),
    ("Attention", (23, 24), {"Q": [2, 3, 32], "K": [2, 5, 12], "V": [2, 5, 12], "attn_mask": ""},
     {"q_num_heads": 4, "kv_num_heads": 2}, {}, C + "C7", "ort"),
    ("Attention", (23, 24), {"V": [2, 3, 5, 6]}, {}, {}, C + "C8", "ort"),
    ("Attention", (23, 24), {"V": [2, 2, 4, 6]}, {}, {}, C + "C9", "ort"),
    # qk_matmul_output_mode 4: onnx does not check the value and onnxruntime ignores it while the
    # qk_matmul_output output is not asked for; the text lists modes 0 to 3
    ("Attention", (23, 24, 25), {}, {"qk_matmul_output_mode": 4}, {}, C + "C10", None),
    ("Attention", (23, 24), {"attn_mask": "", "past_key": [2, 2, 4, 8]}, {}, {}, C + "C11", "ort"),
    ("Attention", (23, 24), {"attn_mask": "", "past_key": [2, 2, 4, 7], "past_value": [2, 2, 4, 6]}, {}, {},
     C + "C12", "ort"),
    ("Attention", (23, 24), {"attn_mask": "", "past_key": [2, 2, 4, 8], "past_value": [2, 2, 3, 6]}, {}, {},
     C + "C13", "ort"),
    ("Attention", (23, 24), {"attn_mask": [4, 5]}, {}, {}, C + "C14", "ort"),
    # a 1-D mask [total_seq] is valid (it broadcasts; onnx's node tests use one in version 25), though
    # onnxruntime refuses one in versions 23 and 24
    ("Attention", (23, 24), {"attn_mask": [1, 7]}, {}, {}, C + "C15", "ort"),
    ("Attention", (23, 24), {"attn_mask": [3, 7]}, {}, {}, C + "C15", "ort"),
    ("Attention", (24, 25), {"attn_mask": "", "past_key": "", "past_value": "", "nonpad_kv_seqlen": (I64, [3])}, {},
     {}, C + "C16", "ort"),
    # softmax_precision outside the listed types: onnx does not check it and onnxruntime ignores it for float
    # inputs; version 25's text lists the allowed values (23 and 24 list none)
    ("Attention", (25,), {}, {"softmax_precision": 7}, {}, C + "C17", None),
    # ---- LinearAttention (no onnxruntime kernel; onnx's inference checks only the ranks) ----
    ("LinearAttention", (27,), {"query": [1, 2]}, {}, {}, C + "C1", "onnx"),
    # q_num_heads not a multiple of kv_num_heads: onnx infers the output from q_num_heads alone
    ("LinearAttention", (27,), {}, {"q_num_heads": 3}, {}, C + "C2", None),
    ("LinearAttention", (27,), {}, {"kv_num_heads": 0}, {}, C + "C2", "onnx"),
    ("LinearAttention", (27,), {"key": [2, 2, 8]}, {}, {}, C + "C3", "onnx"),
    # C4 to C10: onnx's inference reads neither the head sizes nor the optional inputs; the text states them
    ("LinearAttention", (27,), {"query": [1, 2, 12]}, {}, {}, C + "C4", None),
    ("LinearAttention", (27,), {"value": [1, 2, 5]}, {}, {}, C + "C5", None),
    ("LinearAttention", (27,), {"past_state": [1, 2, 4, 4]}, {}, {}, C + "C6", None),
    ("LinearAttention", (27,), {"decay": ""}, {}, {}, C + "C7", None),
    ("LinearAttention", (27,), {"beta": ""}, {}, {}, C + "C8", None),
    ("LinearAttention", (27,), {"decay": [1, 2, 3]}, {}, {}, C + "C9", None),
    ("LinearAttention", (27,), {"beta": [1, 2, 4]}, {}, {}, C + "C10", None),
    ("LinearAttention", (27,), {}, {"update_rule": "gated_linear"}, {}, A + "'update_rule'", None),
    # ---- RotaryEmbedding ----
    ("RotaryEmbedding", (23,), {"X": [1, 2, 3, 8, 1]}, {}, {}, C + "C1", "onnx"),
    ("RotaryEmbedding", (23,), {"X": [1, 3, 16]}, {}, {}, C + "C2", "ort"),
    # an odd head size: onnxruntime rotates the first 6 of 7 values; the text asks for an even head size
    ("RotaryEmbedding", (23,), {"X": [1, 2, 3, 7], "cos_cache": [1, 3, 3], "sin_cache": [1, 3, 3]}, {}, {},
     C + "C3", None),
    ("RotaryEmbedding", (23,), {"cos_cache": [1, 3, 5], "sin_cache": [1, 3, 5]}, {"rotary_embedding_dim": 10}, {},
     C + "C4", "ort"),
    ("RotaryEmbedding", (23,), {"cos_cache": [10, 4], "sin_cache": [10, 4]}, {}, {}, C + "C5", "ort"),
    ("RotaryEmbedding", (23,), {"sin_cache": [1, 3, 5]}, {}, {}, C + "C6", "ort"),
    ("RotaryEmbedding", (23,), {"cos_cache": [1, 3, 3], "sin_cache": [1, 3, 3]}, {}, {}, C + "C7", "ort"),
    ("RotaryEmbedding", (23,), {"cos_cache": [10, 4], "sin_cache": [10, 4], "position_ids": (I64, [1, 4])}, {}, {},
     C + "C8", "ort"),
    ("RotaryEmbedding", (23,), {"cos_cache": [2, 3, 4], "sin_cache": [2, 3, 4]}, {}, {}, C + "C9", "ort"),
    # ---- CausalConvWithState (no onnxruntime kernel) ----
    ("CausalConvWithState", (27,), {"input": [1, 3]}, {}, {}, C + "C1", "onnx"),
    ("CausalConvWithState", (27,), {"weight": [2, 1, 2]}, {}, {}, C + "C2", None),
    ("CausalConvWithState", (27,), {"weight": [3, 2, 2]}, {}, {}, C + "C2", None),
    ("CausalConvWithState", (27,), {"bias": [2]}, {}, {}, C + "C3", None),
    ("CausalConvWithState", (27,), {"past_state": [1, 3, 2]}, {}, {}, C + "C4", None),
    ("CausalConvWithState", (27,), {}, {"activation": "relu"}, {}, A + "'activation'", None),
    # ---- SwiGLU (no onnxruntime kernel) ----
    ("SwiGLU", (28,), {"B": [2, 1]}, {}, {}, C + "C1", "onnx"),
    # ---- RNN ----
    ("RNN", (1, 7, 14, 22), {"X": [5, 2]}, {}, {}, C + "C1", "ort"),
    ("RNN", (1, 7, 14, 22), {"W": [1, 5, 3]}, {}, {}, C + "C2", "ort"),
    ("RNN", (1, 7, 14, 22), {"W": [1, 4, 2]}, {}, {}, C + "C2", "ort"),
    ("RNN", (1, 7, 14, 22), {"R": [1, 4, 5]}, {}, {}, C + "C3", "ort"),
    ("RNN", (1, 7, 14, 22), {"B": [1, 4]}, {}, {}, C + "C4", "ort"),
    ("RNN", (1, 7, 14, 22), {"sequence_lens": (I32, [3])}, {}, {"sequence_lens": i32([5, 3, 1])}, C + "C5", "ort"),
    ("RNN", (1, 7, 14, 22), {"initial_h": [1, 3, 4]}, {}, {}, C + "C6", "ort"),
    ("RNN", (14, 22), {"X": [2, 5, 3]}, {"layout": 1}, {}, C + "C6", "ort"),
    # two activations for one direction: onnxruntime uses the first, onnx does not check; the text asks for
    # one function per direction (only ONNX's own default, [Tanh, Tanh], is accepted for one direction)
    ("RNN", (1, 7, 14, 22), {}, {"activations": ["Relu", "Tanh"]}, {}, C + "C7", None),
    # layout 2: onnx does not check it; onnxruntime refuses every layout but 0, so it tells nothing here
    ("RNN", (14, 22), {}, {"layout": 2}, {}, C + "C8", None),
    ("RNN", (7, 14, 22), {}, {"direction": "backward"}, {}, A + "'direction'", "ort"),
    # RNN 1: onnx has no shape inference for it and onnxruntime no kernel
    ("RNN", (1,), {}, {"direction": "backward"}, {}, A + "'direction'", None),
    ("RNN", (1, 7, 14, 22), {}, {"activations": ["Tanhh"]}, {}, A + "'activations'", "ort"),
    # ---- losses ----
    # onnx checks NegativeLogLikelihoodLoss's shapes; SoftmaxCrossEntropyLoss's only onnxruntime (its
    # function body's NegativeLogLikelihoodLoss and Reshape refuse them)
    *[(op, vs, {x: [3], t: (I64, [])}, {}, {}, C + "C1", ref) for op, vs, x, t, ref in (
        ("NegativeLogLikelihoodLoss", (12, 13, 22), "input", "target", "onnx"),
        ("SoftmaxCrossEntropyLoss", (12, 13), "scores", "labels", "ort"))],
    *[(op, vs, ins, {}, {}, C + c, ref) for op, vs, t, ref in (
        ("NegativeLogLikelihoodLoss", (12, 13, 22), "target", "onnx"),
        ("SoftmaxCrossEntropyLoss", (12, 13), "labels", "ort"))
      for ins, c in (({t: (I64, [2, 4, 1])}, "C2"), ({t: (I64, [2, 5])}, "C3"), ({t: (I64, [3, 4])}, "C3"))],
    ("NegativeLogLikelihoodLoss", (22,), {"weight": [4]}, {}, {}, C + "C4", "onnx"),
    # a weight of the wrong length: onnx's inference checks it only from version 22, onnxruntime reads
    # the first C weights; the text asks for shape [C]
    ("NegativeLogLikelihoodLoss", (12, 13), {"weight": [4]}, {}, {}, C + "C4", None),
    ("SoftmaxCrossEntropyLoss", (12, 13), {"weights": [4]}, {}, {}, C + "C4", None),
    # an unknown reduction: onnx does not check the value and onnxruntime (1.31) computes a mean; the
    # text lists none, sum and mean
    ("NegativeLogLikelihoodLoss", (12, 13, 22), {}, {"reduction": "avg"}, {}, A + "'reduction'", None),
    ("SoftmaxCrossEntropyLoss", (12, 13), {}, {"reduction": "avg"}, {}, A + "'reduction'", None),
    # ---- MaxUnpool ----
    ("MaxUnpool", (9, 11, 22), {}, {"kernel_shape": [2]}, {}, C + "C1", "onnx"),
    ("MaxUnpool", (9, 11, 22), {}, {"strides": [2]}, {}, C + "C2", "onnx"),
    ("MaxUnpool", (9, 11, 22), {}, {"pads": [0, 0]}, {}, C + "C3", "onnx"),
    ("MaxUnpool", (9, 11, 22), {"I": (I64, [1, 1, 2, 3])}, {}, {}, C + "C4", "ort"),
    ("MaxUnpool", (9, 11, 22), {"output_shape": (I64, [2])}, {}, {"output_shape": arr([4, 5])}, C + "C5", "onnx"),
    # ---- MeanVarianceNormalization ----
    # an axis out of range: onnx's inference of the function body refuses it in version 13; version 9
    # has no inference in onnx and no kernel in onnxruntime
    ("MeanVarianceNormalization", (13,), {}, {"axes": [0, 4]}, {}, C + "C1", "onnx"),
    ("MeanVarianceNormalization", (13,), {"X": [2, 3]}, {"axes": None}, {}, C + "C1", "onnx"),
    ("MeanVarianceNormalization", (9,), {}, {"axes": [0, 4]}, {}, C + "C1", None),
    # ---- CenterCropPad ----
    ("CenterCropPad", (18,), {}, {"axes": [0, 2]}, {}, C + "C1", "onnx"),
    ("CenterCropPad", (18,), {}, {"axes": [1, -1]}, {}, C + "C2", "onnx"),
    ("CenterCropPad", (18,), {"shape": (I64, [1])}, {}, {"shape": arr([3])}, C + "C3", "onnx"),
    ("CenterCropPad", (18,), {}, {"axes": [1]}, {}, C + "C3", "onnx"),
    # ---- Scatter ----
    ("Scatter", (9,), {"indices": (I64, [2, 3, 1]), "updates": [2, 3, 1]}, {}, {}, C + "C1", "ort"),
    ("Scatter", (9,), {"updates": [2, 2]}, {}, {}, C + "C2", "ort"),
    ("Scatter", (9,), {}, {"axis": 2}, {}, C + "C3", "ort"),
    ("Scatter", (9,), {}, {"axis": -3}, {}, C + "C3", "ort"),
    # ---- TensorScatter ----
    ("TensorScatter", (24,), {"update": [2, 3, 2]}, {}, {}, C + "C1", "onnx"),
    ("TensorScatter", (24,), {}, {"axis": 4}, {}, C + "C2", "onnx"),
    ("TensorScatter", (24,), {"update": [2, 3, 8, 4]}, {"axis": 0}, {}, C + "C3", "onnx"),
    ("TensorScatter", (24,), {"update": [2, 2, 2, 4]}, {}, {}, C + "C4", "onnx"),
    # an update longer than the cache: onnx does not compare the lengths (no onnxruntime kernel); the text
    # states sequence_length <= max_sequence_length
    ("TensorScatter", (24,), {"update": [2, 3, 9, 4]}, {}, {}, C + "C5", None),
    ("TensorScatter", (24,), {"write_indices": (I64, [3])}, {}, {}, C + "C6", "onnx"),
    # onnx does not check mode's value; the text names linear and circular
    ("TensorScatter", (24,), {}, {"mode": "wrap"}, {}, A + "'mode'", None),
    # ---- STFT ----
    # a 2-D signal and a 1-D frame_step: onnx and onnxruntime take them (as a real signal, as its one value);
    # the text asks for rank 3 and a scalar
    ("STFT", (17,), {"signal": [1, 16]}, {}, {}, C + "C1", None),
    ("STFT", (17,), {"signal": [1, 16, 3]}, {}, {}, C + "C2", "ort"),
    ("STFT", (17,), {"frame_step": (I64, [1])}, {}, {"frame_step": arr([4])}, C + "C3", None),
    ("STFT", (17,), {}, {}, {"frame_step": arr(-4)}, C + "C4", "ort"),
    ("STFT", (17,), {"window": [8, 1]}, {}, {}, C + "C5", "onnx"),
    ("STFT", (17,), {"frame_length": (I64, [1])}, {}, {"frame_length": arr([8])}, C + "C6", "onnx"),
    ("STFT", (17,), {"window": [6]}, {}, {}, C + "C7", "onnx"),
]


@pytest.mark.parametrize("op, opset, ins, attrs, consts, expected, ref", [
    pytest.param(op, v, ins, attrs, consts, expected, ref, id=f"{op}-{v}-{expected.split()[-1]}-{k}")
    for k, (op, vs, ins, attrs, consts, expected, ref) in enumerate(CASES) for v in vs])
def test_violation_is_reported_once_at_its_place(op, opset, ins, attrs, consts, expected, ref):
    m, feeds = make(op, opset, ins, attrs, consts)
    assert where(m) == [expected]
    if ref == "onnx":
        reason = rejection(m, feeds, ort=False)
        assert reason is not None, "onnx accepts it"
    elif ref == "ort":
        if not ort_runs(op, opset):
            assert rejection(m, feeds, ort=False) is None or True  # no kernel for this version: no run to ask
            return
        assert rejection(m, feeds) is not None, "neither onnx nor onnxruntime refuses it"


def test_scatter_11_is_deprecated_and_its_constraints_still_apply():
    """Scatter is deprecated from version 11: opgen reports the op, and a broken use also at its constraint."""
    m, _ = make("Scatter", 11)
    assert where(m) == ["op"]
    m, _ = make("Scatter", 11, {"updates": [2, 2]})
    assert where(m) == ["op", C + "C2"]
