"""Constraints, attribute values and output shapes of the ONNX tensor ops (MatMul, Gemm, Gather, Reshape,
Transpose, Squeeze/Unsqueeze, Split, Slice, reductions, LayerNormalization, Cast, broadcasting arithmetic and
Where, TopK, LSTM/GRU).

For each stated rule a small model violates it and `validate_model` must report it at the right
constraint / attribute / output, and a valid model must be accepted. As an independent reference,
onnx's own machinery (strict shape inference, the full checker, or onnxruntime at session creation
or run) must reject the violating model where it can tell (the cases marked False are ones ONNX
leaves unchecked: noted per case), and the full checker must accept the valid one.
"""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto



from onnx_cases import B, F, I64, NP, build, errors, rejection as onnx_rejects, typed as _typed  # noqa: F401


# (id, op, opset, inputs, attrs, outputs, inits, expected where, onnx detects it)
F32 = np.float32
CASES = [
    # MatMul
    ("matmul_inner", "MatMul", 13, {"A": [2, 3], "B": [4, 5]}, {}, None, None, "constraint C2", True),
    ("matmul_rank0", "MatMul", 13, {"A": [], "B": [3, 5]}, {}, None, None, "constraint C1", True),
    ("matmul_batch", "MatMul", 13, {"A": [2, 2, 3], "B": [3, 3, 4]}, {}, None, None, "constraint C3", True),
    ("matmul_shape", "MatMul", 13, {"A": [2, 3], "B": [3, 5]}, {}, {"Y": [2, 4]}, None, "output 'Y'", True),
    ("matmul_shape_1d", "MatMul", 9, {"A": [3], "B": [2, 3, 5]}, {}, {"Y": [2, 1, 5]}, None, "output 'Y'", True),
    # Gemm
    ("gemm_rank", "Gemm", 13, {"A": [2, 3, 1], "B": [3, 5]}, {}, None, None, "constraint C1", True),
    ("gemm_k", "Gemm", 13, {"A": [2, 3], "B": [4, 5]}, {}, None, None, "constraint C2", True),
    ("gemm_k_trans", "Gemm", 11, {"A": [3, 2], "B": [3, 5]}, {"transA": 0}, None, None, "constraint C2", True),
    ("gemm_c", "Gemm", 13, {"A": [2, 3], "B": [3, 5], "C": [3]}, {}, None, None, "constraint C3", True),
    ("gemm_shape", "Gemm", 13, {"A": [3, 2], "B": [5, 3]}, {"transA": 1, "transB": 1}, {"Y": [2, 3]}, None,
     "output 'Y'", True),
    # Gather
    ("gather_axis", "Gather", 13, {"data": [3, 4], "indices": (I64, [2])}, {"axis": 2}, None, None, "constraint C1", True),
    ("gather_shape", "Gather", 11, {"data": [3, 4, 5], "indices": (I64, [2, 6])}, {"axis": -2}, {"output": [3, 2, 5]},
     None, "output 'output'", True),
    # Transpose
    ("transpose_perm", "Transpose", 21, {"data": [3, 4]}, {"perm": [0, 0]}, None, None, "constraint C1", True),
    ("transpose_shape", "Transpose", 13, {"data": [2, 3, 4]}, {}, {"transposed": [2, 3, 4]}, None,
     "output 'transposed'", True),
    # Squeeze / Unsqueeze
    ("squeeze11_range", "Squeeze", 11, {"data": [1, 4]}, {"axes": [2]}, None, None, "constraint C1", True),
    # A dimension named twice: onnx's shape inference and onnxruntime both accept it (unchecked there).
    ("squeeze11_twice", "Squeeze", 11, {"data": [1, 4]}, {"axes": [0, -2]}, None, None, "constraint C2", False),
    ("squeeze11_not_one", "Squeeze", 11, {"data": [3, 4]}, {"axes": [1]}, None, None, "constraint C3", True),
    ("squeeze11_shape", "Squeeze", 11, {"data": [1, 4, 1]}, {}, {"squeezed": [4, 1]}, None, "output 'squeezed'", True),
    ("squeeze13_values", "Squeeze", 13, {"data": [3, 4], "axes": None}, {}, None, {"axes": np.array([1])},
     "constraint C1", True),
    ("unsqueeze11_range", "Unsqueeze", 11, {"data": [3, 4]}, {"axes": [3]}, None, None, "constraint C1", True),
    ("unsqueeze11_twice", "Unsqueeze", 11, {"data": [3, 4]}, {"axes": [0, -4]}, None, None, "constraint C2", True),
    ("unsqueeze11_shape", "Unsqueeze", 11, {"data": [3, 4]}, {"axes": [0, 3]}, {"expanded": [1, 3, 1, 4]}, None,
     "output 'expanded'", True),
    ("unsqueeze13_values", "Unsqueeze", 13, {"data": [3, 4], "axes": None}, {}, None, {"axes": np.array([5])},
     "constraint C1", True),
    # Split
    ("split11_axis", "Split", 11, {"input": [4]}, {"axis": 1}, {"o1": None, "o2": None}, None, "constraint C1", True),
    ("split11_sum", "Split", 11, {"input": [4]}, {"split": [1, 2]}, {"o1": None, "o2": None}, None, "constraint C2", True),
    ("split11_count", "Split", 11, {"input": [4]}, {"split": [1, 1, 2]}, {"o1": None, "o2": None}, None,
     "constraint C3", True),
    ("split13_axis", "Split", 13, {"input": [4]}, {"axis": -2}, {"o1": None, "o2": None}, None, "constraint C1", True),
    ("split18_axis", "Split", 18, {"input": [4]}, {"axis": 1, "num_outputs": 2}, {"o1": None, "o2": None}, None,
     "constraint C1", True),
    ("split18_both", "Split", 18, {"input": [4], "split": None}, {"num_outputs": 2}, {"o1": None, "o2": None},
     {"split": np.array([2, 2])}, "constraint C2", True),
    ("split18_neither", "Split", 18, {"input": [4]}, {}, {"o1": None, "o2": None}, None, "constraint C2", True),
    # num_outputs other than the number of outputs: onnx's shape inference and onnxruntime accept it (unchecked).
    ("split18_num", "Split", 18, {"input": [6]}, {"num_outputs": 3}, {"o1": None, "o2": None}, None,
     "constraint C3", False),
    # Slice
    ("slice13_axes", "Slice", 13, {"data": [3, 4], "starts": None, "ends": None, "axes": None}, {}, None,
     {"starts": np.array([0]), "ends": np.array([1]), "axes": np.array([2])}, "constraint C1", True),
    # Reductions
    ("reducemean13_axes", "ReduceMean", 13, {"data": [3, 4]}, {"axes": [2]}, {"reduced": None}, None,
     "constraint C1", True),
    # keepdims=2: ONNX reads keepdims as a boolean and accepts any integer (unchecked by onnx and onnxruntime).
    ("reducemean13_keepdims", "ReduceMean", 13, {"data": [3, 4]}, {"axes": [1], "keepdims": 2}, {"reduced": None},
     None, "attribute 'keepdims'", False),
    ("reducemean11_shape", "ReduceMean", 11, {"data": [3, 4]}, {"axes": [1], "keepdims": 0}, {"reduced": [3, 1]},
     None, "output 'reduced'", True),
    ("reducemax12_shape_all", "ReduceMax", 12, {"data": [3, 4]}, {}, {"reduced": [1, 4]}, None, "output 'reduced'", True),
    ("reducesum13_axes", "ReduceSum", 13, {"data": [3, 4], "axes": None}, {}, {"reduced": None},
     {"axes": np.array([-3])}, "constraint C1", True),
    ("reducemax18_axes", "ReduceMax", 18, {"data": [3, 4], "axes": None}, {}, {"reduced": None},
     {"axes": np.array([2])}, "constraint C1", True),
    ("reducemean18_noop", "ReduceMean", 18, {"data": [3, 4]}, {"noop_with_empty_axes": 3}, {"reduced": None}, None,
     "attribute 'noop_with_empty_axes'", False),  # read as a boolean by onnx and onnxruntime: unchecked there
    # LayerNormalization
    ("layernorm_axis", "LayerNormalization", 17, {"X": [3, 4], "Scale": [4]}, {"axis": 2}, {"Y": None}, None,
     "constraint C1", True),
    ("layernorm_scale", "LayerNormalization", 17, {"X": [3, 4], "Scale": [5]}, {}, {"Y": None}, None,
     "constraint C2", True),
    ("layernorm_bias", "LayerNormalization", 17, {"X": [3, 4], "Scale": [4], "B": [2, 3, 4]}, {"axis": 1}, {"Y": None},
     None, "constraint C3", True),
    ("layernorm_mean_shape", "LayerNormalization", 17, {"X": [2, 3, 4], "Scale": [4]}, {"axis": -1},
     {"Y": [2, 3, 4], "Mean": [2, 3, 4]}, None, "output 'Mean'", True),
    # Cast
    ("cast_to", "Cast", 21, {"input": [3]}, {"to": 99}, {"output": None}, None, "attribute 'to'", True),
    ("cast_to_v13_float8", "Cast", 13, {"input": [3]}, {"to": TensorProto.FLOAT8E4M3FN},
     {"output": (TensorProto.UNDEFINED, None)}, None,
     # the output's element type (float8, following `to`) is onnx's inference, not the file's: the one
     # fault is reported once, at `to`
     ["attribute 'to'"], True),
    ("cast_round_mode", "Cast", 24, {"input": [3]}, {"to": TensorProto.FLOAT8E8M0, "round_mode": "sideways"},
     {"output": (TensorProto.FLOAT8E8M0, None)}, None, "attribute 'round_mode'", True),
    # saturate=2: read as a boolean by onnx and onnxruntime (unchecked there).
    ("cast_saturate", "Cast", 19, {"input": [3]}, {"to": TensorProto.FLOAT8E4M3FN, "saturate": 2},
     {"output": (TensorProto.FLOAT8E4M3FN, None)}, None, "attribute 'saturate'", False),
    # Broadcasting element-wise ops
    ("add_broadcast", "Add", 14, {"A": [2, 3], "B": [4]}, {}, None, None, "constraint C1", True),
    ("sub_broadcast", "Sub", 13, {"A": [2, 3], "B": [2, 1, 4]}, {}, None, None, "constraint C1", True),
    ("mul_broadcast", "Mul", 7, {"A": [2, 3], "B": [3, 3]}, {}, None, None, "constraint C1", True),
    ("div_shape", "Div", 14, {"A": [2, 1], "B": [3]}, {}, {"C": [2, 1]}, None, "output 'C'", True),
    ("where_broadcast", "Where", 16, {"condition": (B, [2, 3]), "X": [3], "Y": [2]}, {}, {"output": None}, None,
     "constraint C1", True),
    ("where_shape", "Where", 9, {"condition": (B, [2, 1]), "X": [3], "Y": [1]}, {}, {"output": [2, 1]}, None,
     "output 'output'", True),
    # TopK
    ("topk1_axis", "TopK", 1, {"X": [3, 4]}, {"axis": 2, "k": 1}, {"Values": None, "Indices": None}, None,
     "constraint C1", True),
    ("topk1_k", "TopK", 1, {"X": [3, 4]}, {"k": 5}, {"Values": None, "Indices": None}, None, "constraint C2", True),
    ("topk1_shape", "TopK", 1, {"X": [3, 4]}, {"k": 2, "axis": 0}, {"Values": [3, 2], "Indices": None}, None,
     "output 'Values'", True),
    # Reshape (a constant shape only: the rule reads the value)
    ("reshape_two_minus_one", "Reshape", 14, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": np.array([3, -1, -1])}, "constraint C1", True),
    ("reshape_count", "Reshape", 21, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": np.array([4, 2])}, "constraint C1", True),
    ("reshape_zero_and_minus_one", "Reshape", 19, {"data": [2, 3], "shape": None}, {"allowzero": 1},
     {"reshaped": None}, {"shape": np.array([0, -1])}, "constraint C1", True),
    # allowzero=2: read as a boolean by onnx and onnxruntime (unchecked there).
    ("reshape_allowzero", "Reshape", 14, {"data": [2, 3], "shape": None}, {"allowzero": 2}, {"reshaped": None},
     {"shape": np.array([3, 2])}, "attribute 'allowzero'", False),
    ("topk_k", "TopK", 11, {"X": [3, 4], "K": None}, {}, {"Values": None, "Indices": None},
     {"K": np.array([5])}, "constraint C1", True),
    ("topk_axis", "TopK", 24, {"X": [3, 4], "K": None}, {"axis": 2}, {"Values": None, "Indices": None},
     {"K": np.array([1])}, "constraint C1", True),
]

H = 2
LSTM_OK = {"X": [1, 2, 3], "W": [1, 4 * H, 3], "R": [1, 4 * H, H]}
GRU_OK = {"X": [1, 2, 3], "W": [1, 3 * H, 3], "R": [1, 3 * H, H]}
RNN_OUT = {"Y": None}
CASES += [
    ("lstm_w", "LSTM", 14, {**LSTM_OK, "W": [1, 4 * H, 4]}, {"hidden_size": H}, RNN_OUT, None, "constraint C1", True),
    ("lstm_r", "LSTM", 22, {**LSTM_OK, "R": [1, 3 * H, H]}, {"hidden_size": H}, RNN_OUT, None, "constraint C2", True),
    ("lstm_b", "LSTM", 7, {**LSTM_OK, "B": [1, 4 * H]}, {"hidden_size": H}, RNN_OUT, None, "constraint C3", True),
    ("lstm_p", "LSTM", 14, {**LSTM_OK, "B": [1, 8 * H], "sequence_lens": "",
                           "initial_h": "", "initial_c": "", "P": [1, 2 * H]}, {"hidden_size": H}, RNN_OUT, None,
     "constraint C4", True),
    ("lstm_activations", "LSTM", 14, LSTM_OK, {"hidden_size": H, "activations": ["Sigmoid", "Tanh"]}, RNN_OUT, None,
     "constraint C5", True),
    ("lstm_direction", "LSTM", 14, LSTM_OK, {"hidden_size": H, "direction": "sideways"}, RNN_OUT, None,
     "attribute 'direction'", True),
    ("lstm_bidirectional_w", "LSTM", 14, {**LSTM_OK, "R": [2, 4 * H, H]}, {"hidden_size": H, "direction": "bidirectional"}, RNN_OUT,
     None, "constraint C1", True),
    ("gru_activation_name", "GRU", 14, GRU_OK, {"hidden_size": H, "activations": ["Sigmoid", "Tanhh"]}, RNN_OUT,
     None, "attribute 'activations'", True),
    ("gru_w", "GRU", 22, {**GRU_OK, "W": [1, 4 * H, 3]}, {"hidden_size": H}, RNN_OUT, None, "constraint C1", True),
    ("lstm_y_shape", "LSTM", 14, LSTM_OK, {"hidden_size": H}, {"Y": [1, 1, 2, 3]}, None, "output 'Y'", True),
    ("lstm_yc_shape_layout", "LSTM", 22, {"X": [2, 1, 3], "W": [1, 4 * H, 3], "R": [1, 4 * H, H]},
     {"hidden_size": H, "layout": 1}, {"Y": None, "Y_h": [2, 1, H], "Y_c": [1, 2, H]}, None, "output 'Y_c'", True),
    ("gru_yh_shape", "GRU", 7, GRU_OK, {"hidden_size": H}, {"Y": None, "Y_h": [1, 1, H]}, None, "output 'Y_h'", True),
    ("gru_r", "GRU", 14, {**GRU_OK, "R": [1, 3 * H, 3]}, {"hidden_size": H}, RNN_OUT, None, "constraint C2", True),
    ("gru_activations", "GRU", 22, GRU_OK, {"hidden_size": H, "activations": ["Sigmoid", "Tanh", "Tanh"]}, RNN_OUT,
     None, "constraint C4", True),
    ("gru_b", "GRU", 7, {**GRU_OK, "B": [1, 3 * H]}, {"hidden_size": H}, RNN_OUT, None, "constraint C3", True),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_violation_is_reported_at_its_number(case):
    _, op, opset, inputs, attrs, outputs, inits, where, detected = case
    model, feeds = build(op, opset, inputs, attrs, outputs, inits)
    found = errors(model)
    assert found == (where if isinstance(where, list) else [where]), found
    why = onnx_rejects(model, feeds)
    if detected:
        assert why, "onnx's shape inference, its checker and onnxruntime all accept the violating model"
    else:  # the ONNX references leave it unchecked: if one starts to catch it, mark the case detected
        assert why is None, why


# (id, op, opset, inputs, attrs, outputs, inits): valid uses, declared output shapes stated exactly.
VALID = [
    ("matmul", "MatMul", 13, {"A": [2, 3], "B": [3, 5]}, {}, {"Y": [2, 5]}, None),
    ("matmul_batch", "MatMul", 13, {"A": [2, 1, 2, 3], "B": [4, 3, 5]}, {}, {"Y": [2, 4, 2, 5]}, None),
    ("matmul_1d_left", "MatMul", 9, {"A": [3], "B": [2, 3, 5]}, {}, {"Y": [2, 5]}, None),
    ("matmul_1d_right", "MatMul", 1, {"A": [2, 4, 3], "B": [3]}, {}, {"Y": [2, 4]}, None),
    ("matmul_1d_both", "MatMul", 13, {"A": [3], "B": [3]}, {}, {"Y": []}, None),
    ("gemm", "Gemm", 13, {"A": [3, 2], "B": [5, 3], "C": [1, 5]}, {"transA": 1, "transB": 1}, {"Y": [2, 5]}, None),
    ("gemm_no_c", "Gemm", 11, {"A": [2, 3], "B": [3, 5]}, {}, {"Y": [2, 5]}, None),
    ("gemm7_c_scalar", "Gemm", 7, {"A": [2, 3], "B": [3, 5], "C": []}, {}, {"Y": [2, 5]}, None),
    ("gather", "Gather", 13, {"data": [3, 4, 5], "indices": (I64, [2, 6])}, {"axis": -2}, {"output": [3, 2, 6, 5]}, None),
    ("transpose", "Transpose", 21, {"data": [2, 3, 4]}, {"perm": [1, 2, 0]}, {"transposed": [3, 4, 2]}, None),
    ("transpose_default", "Transpose", 13, {"data": [2, 3, 4]}, {}, {"transposed": [4, 3, 2]}, None),
    ("squeeze11", "Squeeze", 11, {"data": [1, 4, 1]}, {"axes": [-1]}, {"squeezed": [1, 4]}, None),
    ("squeeze11_all", "Squeeze", 11, {"data": [1, 4, 1]}, {}, {"squeezed": [4]}, None),
    ("squeeze13", "Squeeze", 13, {"data": [1, 4], "axes": None}, {}, {"squeezed": [4]}, {"axes": np.array([0])}),
    ("unsqueeze11", "Unsqueeze", 11, {"data": [3, 4]}, {"axes": [0, -1]}, {"expanded": [1, 3, 4, 1]}, None),
    ("unsqueeze13", "Unsqueeze", 13, {"data": [3, 4], "axes": None}, {}, {"expanded": [3, 4, 1]},
     {"axes": np.array([-1])}),
    ("split11", "Split", 11, {"input": [4]}, {"split": [1, 3]}, {"o1": [1], "o2": [3]}, None),
    ("split18", "Split", 18, {"input": [4]}, {"num_outputs": 2}, {"o1": [2], "o2": [2]}, None),
    ("slice13", "Slice", 13, {"data": [3, 4], "starts": None, "ends": None, "axes": None}, {}, {"output": [3, 2]},
     {"starts": np.array([1]), "ends": np.array([3]), "axes": np.array([-1])}),
    ("reducemean13", "ReduceMean", 13, {"data": [3, 4]}, {"axes": [-1], "keepdims": 0}, {"reduced": [3]}, None),
    ("reducemax11_all", "ReduceMax", 11, {"data": [3, 4]}, {}, {"reduced": [1, 1]}, None),
    ("reducesum11_all_nokeep", "ReduceSum", 11, {"data": [3, 4]}, {"keepdims": 0}, {"reduced": []}, None),
    ("reducesum13", "ReduceSum", 13, {"data": [3, 4], "axes": None}, {"keepdims": 1}, {"reduced": [3, 1]},
     {"axes": np.array([1])}),
    ("layernorm_broadcast_scale", "LayerNormalization", 17, {"X": [2, 3, 4], "Scale": [1], "B": [3, 1]}, {},
     {"Y": [2, 3, 4], "Mean": [2, 3, 1], "InvStdDev": [2, 3, 1]}, None),
    ("layernorm", "LayerNormalization", 17, {"X": [2, 3, 4], "Scale": [3, 4]}, {"axis": 1},
     {"Y": [2, 3, 4], "Mean": [2, 1, 1], "InvStdDev": [2, 1, 1]}, None),
    ("cast_saturate", "Cast", 19, {"input": [3]}, {"to": TensorProto.FLOAT8E4M3FN, "saturate": 0},
     {"output": (TensorProto.FLOAT8E4M3FN, [3])}, None),
    ("cast_round_mode", "Cast", 24, {"input": [3]}, {"to": TensorProto.FLOAT8E8M0, "round_mode": "nearest"},
     {"output": (TensorProto.FLOAT8E8M0, [3])}, None),
    ("cast", "Cast", 21, {"input": [3]}, {"to": TensorProto.FLOAT}, {"output": [3]}, None),
    ("add", "Add", 14, {"A": [2, 3], "B": [3]}, {}, {"C": [2, 3]}, None),
    ("div", "Div", 7, {"A": [2, 1], "B": [3]}, {}, {"C": [2, 3]}, None),
    ("where", "Where", 16, {"condition": (B, [2, 1]), "X": [3], "Y": [1]}, {}, {"output": [2, 3]}, None),
    ("topk1", "TopK", 1, {"X": [3, 4]}, {"k": 3, "axis": 0}, {"Values": [3, 4], "Indices": [3, 4]}, None),
    ("reshape", "Reshape", 14, {"data": [2, 3], "shape": None}, {}, {"reshaped": [3, 2]}, {"shape": np.array([3, -1])}),
    ("reshape_copy_dim", "Reshape", 25, {"data": [2, 3], "shape": None}, {}, {"reshaped": [2, 3, 1]},
     {"shape": np.array([0, 0, -1])}),
    ("topk", "TopK", 11, {"X": [3, 4], "K": None}, {}, {"Values": [3, 2], "Indices": [3, 2]}, {"K": np.array([2])}),
    ("lstm", "LSTM", 14, {**LSTM_OK, "B": [1, 8 * H]}, {"hidden_size": H, "activations": ["Sigmoid", "Tanh", "Tanh"]},
     {"Y": [1, 1, 2, H]}, None),
    ("lstm_bidirectional", "LSTM", 22, {"X": [1, 2, 3], "W": [2, 4 * H, 3], "R": [2, 4 * H, H]},
     {"hidden_size": H, "direction": "bidirectional"}, {"Y": [1, 2, 2, H]}, None),
    ("lstm_layout", "LSTM", 14, {"X": [2, 1, 3], "W": [1, 4 * H, 3], "R": [1, 4 * H, H]},
     {"hidden_size": H, "layout": 1}, {"Y": [2, 1, 1, H], "Y_h": [2, 1, H], "Y_c": [2, 1, H]}, None),
    ("gru7", "GRU", 7, {**GRU_OK}, {"hidden_size": H}, {"Y": [1, 1, 2, H], "Y_h": [1, 2, H]}, None),
    ("gru", "GRU", 14, {**GRU_OK, "B": [1, 6 * H]}, {"hidden_size": H, "direction": "reverse"}, {"Y": [1, 1, 2, H]}, None),
]


# Valid uses onnxruntime has no kernel for (checked by onnx's shape inference and checker only).
NO_ORT = {"cast_round_mode": ("Cast",), "lstm_layout": ("LSTM",)}


@pytest.mark.parametrize("case", VALID, ids=[c[0] for c in VALID])
def test_valid_use_is_accepted(case):
    _, op, opset, inputs, attrs, outputs, inits = case
    model, feeds = build(op, opset, inputs, attrs, outputs, inits)
    assert errors(model) == []
    onnx.checker.check_model(model, full_check=True)
    # The references accept it too (so their rejections of the violating models are not spurious).
    assert onnx_rejects(model, feeds, ort=op not in NO_ORT.get(case[0], ())) is None
