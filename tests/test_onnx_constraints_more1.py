"""Constraints, attribute values and output shapes of ArgMax/ArgMin, Hardmax, LpNormalization, LRN,
DepthToSpace/SpaceToDepth, GatherElements/GatherND, ScatterND/ScatterElements, OneHot, CumSum/CumProd,
Trilu, Expand, Range, ConstantOfShape, Shape, Size, Clip, Dropout, Mod, GroupNormalization,
RMSNormalization, Reshape (versions 5 and 13) and Einsum.

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



import functools

from onnx_cases import B, F, I64, NP, errors, typed as _typed  # noqa: F401
from onnx_cases import build as _build, rejection as _rejection
# Element type of an output by (op, output name), float otherwise.
OUT_ELEM = {"ArgMax": I64, "ArgMin": I64, "Shape": I64, "Size": I64, ("Dropout", "mask"): B}
# Outputs take their element type from OUT_ELEM (by (op, output) or op), float otherwise.
build = functools.partial(_build, out_elem=lambda op, name: OUT_ELEM.get((op, name), OUT_ELEM.get(op, F)))
ORT_MAX_OPSET = 25  # newer opsets (CumProd 26, Range 27, the 28 versions): checked by onnx alone
onnx_rejects = functools.partial(_rejection, ort_max_opset=ORT_MAX_OPSET)


A = np.array
X34 = {"data": [3, 4]}
I = lambda *shape: (I64, list(shape))  # noqa: E731  an int64 input of that shape

# (id, op, opset, inputs, attrs, outputs, inits, expected where, onnx detects it)
CASES = [
    # ArgMax / ArgMin
    ("argmax13_axis", "ArgMax", 13, X34, {"axis": 2}, None, None, "constraint C1", True),
    ("argmin11_axis", "ArgMin", 11, X34, {"axis": -3}, None, None, "constraint C1", True),
    ("argmax1_axis", "ArgMax", 1, X34, {"axis": -3}, None, None, "constraint C1", True),
    # keepdims / select_last_index = 2: read as booleans by onnx and onnxruntime (unchecked there).
    ("argmax13_keepdims", "ArgMax", 13, X34, {"keepdims": 2}, None, None, "attribute 'keepdims'", False),
    ("argmin12_select_last_index", "ArgMin", 12, X34, {"select_last_index": 2}, None, None,
     "attribute 'select_last_index'", False),
    ("argmax13_shape", "ArgMax", 13, X34, {"axis": 1}, {"reduced": (I64, [3, 4])}, None, "output 'reduced'", True),
    ("argmin11_shape_nokeep", "ArgMin", 11, X34, {"axis": -2, "keepdims": 0}, {"reduced": (I64, [4, 1])}, None,
     "output 'reduced'", True),
    ("argmax1_shape", "ArgMax", 1, X34, {}, {"reduced": (I64, [3, 1])}, None, "output 'reduced'", True),
    # Hardmax
    ("hardmax13_axis", "Hardmax", 13, {"input": [3, 4]}, {"axis": 2}, None, None, "constraint C1", True),
    ("hardmax1_axis", "Hardmax", 1, {"input": [3, 4]}, {"axis": -3}, None, None, "constraint C1", True),
    ("hardmax11_shape", "Hardmax", 11, {"input": [3, 4]}, {}, {"output": [4, 3]}, None, "output 'output'", True),
    # LpNormalization
    ("lpnorm22_axis", "LpNormalization", 22, {"input": [3, 4]}, {"axis": 2}, None, None, "constraint C1", True),
    ("lpnorm1_p", "LpNormalization", 1, {"input": [3, 4]}, {"p": 3}, None, None, "attribute 'p'", True),
    ("lpnorm1_shape", "LpNormalization", 1, {"input": [3, 4]}, {}, {"output": [3, 1]}, None, "output 'output'", True),
    # LRN
    ("lrn13_size", "LRN", 13, {"X": [1, 3, 4, 4]}, {"size": 0}, {"Y": None}, None, "constraint C1", True),
    ("lrn1_shape", "LRN", 1, {"X": [1, 3, 4, 4]}, {"size": 3}, {"Y": [1, 3, 4, 5]}, None, "output 'Y'", True),
    # DepthToSpace / SpaceToDepth
    ("d2s13_rank", "DepthToSpace", 13, {"input": [1, 8, 2]}, {"blocksize": 2}, None, None, "constraint C1", True),
    ("d2s11_blocksize", "DepthToSpace", 11, {"input": [1, 8, 2, 2]}, {"blocksize": 0}, None, None,
     "constraint C2", True),
    ("d2s13_channels", "DepthToSpace", 13, {"input": [1, 6, 2, 2]}, {"blocksize": 2}, None, None,
     "constraint C3", True),
    ("d2s1_channels", "DepthToSpace", 1, {"input": [1, 2, 2, 2]}, {"blocksize": 2}, None, None, "constraint C3", True),
    ("d2s13_mode", "DepthToSpace", 13, {"input": [1, 8, 2, 2]}, {"blocksize": 2, "mode": "RCD"}, None, None,
     "attribute 'mode'", True),
    # onnx's shape inference leaves mode unchecked, and onnxruntime has no opset 28: undetected there.
    ("d2s28_mode", "DepthToSpace", 28, {"input": [1, 8, 2, 2]}, {"blocksize": 2, "mode": "dcr"}, None, None,
     "attribute 'mode'", False),
    ("d2s11_shape", "DepthToSpace", 11, {"input": [1, 8, 2, 3]}, {"blocksize": 2, "mode": "CRD"},
     {"output": [1, 2, 4, 3]}, None, "output 'output'", True),
    ("s2d13_rank", "SpaceToDepth", 13, {"input": [1, 4, 4]}, {"blocksize": 2}, None, None, "constraint C1", True),
    ("s2d1_blocksize", "SpaceToDepth", 1, {"input": [1, 1, 4, 4]}, {"blocksize": 0}, None, None,
     "constraint C2", True),
    ("s2d13_divides", "SpaceToDepth", 13, {"input": [1, 1, 4, 3]}, {"blocksize": 2}, None, None,
     "constraint C3", True),
    # onnx's shape inference leaves mode unchecked, and onnxruntime has no opset 28: undetected there.
    ("s2d28_mode", "SpaceToDepth", 28, {"input": [1, 1, 4, 4]}, {"blocksize": 2, "mode": "XYZ"}, None, None,
     "attribute 'mode'", False),
    ("s2d13_shape", "SpaceToDepth", 13, {"input": [1, 2, 4, 6]}, {"blocksize": 2}, {"output": [1, 2, 8, 3]}, None,
     "output 'output'", True),
    # GatherElements
    ("gatherelements13_ranks", "GatherElements", 13, {"data": [3, 4], "indices": I(2)}, {}, None, None,
     "constraint C1", True),
    ("gatherelements11_axis", "GatherElements", 11, {"data": [3, 4], "indices": I(2, 4)}, {"axis": 2}, None, None,
     "constraint C2", True),
    ("gatherelements13_rank0", "GatherElements", 13, {"data": [], "indices": I()}, {}, None, None,
     "constraint C2", True),
    ("gatherelements13_shape", "GatherElements", 13, {"data": [3, 4], "indices": I(2, 4)}, {},
     {"output": [3, 4]}, None, "output 'output'", True),
    # GatherND
    ("gathernd13_batch_dims", "GatherND", 13, {"data": [3, 4], "indices": I(3, 1)}, {"batch_dims": 2}, None, None,
     "constraint C1", True),
    ("gathernd12_batch_shape", "GatherND", 12, {"data": [3, 4], "indices": I(2, 1)}, {"batch_dims": 1}, None, None,
     "constraint C2", True),
    ("gathernd13_tuple_length", "GatherND", 13, {"data": [3, 4], "indices": I(2, 3)}, {}, None, None,
     "constraint C3", True),
    ("gathernd11_rank", "GatherND", 11, {"data": [3, 4], "indices": I()}, {}, None, None, "constraint C1", True),
    ("gathernd11_tuple_length", "GatherND", 11, {"data": [3, 4], "indices": I(2, 3)}, {}, None, None,
     "constraint C2", True),
    ("gathernd13_shape", "GatherND", 13, {"data": [3, 4, 5], "indices": I(2, 2)}, {}, {"output": [2, 4, 5]}, None,
     "output 'output'", True),
    ("gathernd12_shape_batch", "GatherND", 12, {"data": [2, 3, 4], "indices": I(2, 1)}, {"batch_dims": 1},
     {"output": [2, 3, 4]}, None, "output 'output'", True),
    # ScatterND
    ("scatternd13_rank", "ScatterND", 13, {"data": [], "indices": I(1), "updates": []}, {}, None, None,
     "constraint C1", True),
    ("scatternd11_tuple_length", "ScatterND", 11, {"data": [3, 4], "indices": I(2, 3), "updates": [2]}, {}, None,
     None, "constraint C2", True),
    ("scatternd16_updates", "ScatterND", 16, {"data": [3, 4], "indices": I(2, 1), "updates": [2, 3]}, {}, None,
     None, "constraint C3", True),
    # reduction outside the version's list: onnx's shape inference does not check it and onnxruntime runs the
    # model (undetected there).
    ("scatternd16_reduction", "ScatterND", 16, {"data": [3, 4], "indices": I(2, 1), "updates": [2, 4]},
     {"reduction": "max"}, None, None, "attribute 'reduction'", False),
    ("scatternd18_reduction", "ScatterND", 18, {"data": [3, 4], "indices": I(2, 1), "updates": [2, 4]},
     {"reduction": "mean"}, None, None, "attribute 'reduction'", False),
    ("scatternd18_shape", "ScatterND", 18, {"data": [3, 4], "indices": I(2, 1), "updates": [2, 4]}, {},
     {"output": [2, 4]}, None, "output 'output'", True),
    # ScatterElements
    ("scatterelements11_ranks", "ScatterElements", 11, {"data": [3, 4], "indices": I(2), "updates": [2]}, {},
     None, None, "constraint C1", True),
    ("scatterelements16_updates", "ScatterElements", 16, {"data": [3, 4], "indices": I(2, 4), "updates": [2, 3]},
     {}, None, None, "constraint C2", True),
    ("scatterelements18_axis", "ScatterElements", 18, {"data": [3, 4], "indices": I(2, 4), "updates": [2, 4]},
     {"axis": -3}, None, None, "constraint C3", True),
    ("scatterelements13_rank0", "ScatterElements", 13, {"data": [], "indices": I(), "updates": []}, {}, None,
     None, "constraint C3", True),
    # "min" only from version 18: onnx's shape inference does not check it, onnxruntime runs it (undetected).
    ("scatterelements16_reduction", "ScatterElements", 16, {"data": [3, 4], "indices": I(2, 4), "updates": [2, 4]},
     {"reduction": "min"}, None, None, "attribute 'reduction'", False),
    ("scatterelements13_shape", "ScatterElements", 13, {"data": [3, 4], "indices": I(2, 4), "updates": [2, 4]},
     {}, {"output": [2, 4]}, None, "output 'output'", True),
    # OneHot
    ("onehot11_axis", "OneHot", 11, {"indices": I(3), "depth": None, "values": None}, {"axis": 2}, None,
     {"depth": A(4), "values": A([0.0, 1.0], np.float32)}, "constraint C1", True),
    ("onehot11_depth", "OneHot", 11, {"indices": I(3), "depth": None, "values": None}, {}, None,
     {"depth": A([4, 4]), "values": A([0.0, 1.0], np.float32)}, "constraint C2", True),
    ("onehot9_values", "OneHot", 9, {"indices": I(3), "depth": None, "values": None}, {}, None,
     {"depth": A(4), "values": A([0.0, 1.0, 2.0], np.float32)}, "constraint C3", True),
    ("onehot11_shape", "OneHot", 11, {"indices": I(2, 3), "depth": None, "values": None}, {"axis": 1},
     {"output": [2, 3, 4]}, {"depth": A(4), "values": A([0.0, 1.0], np.float32)}, "output 'output'", True),
    # CumSum / CumProd
    # ONNX's text asks for a 0-D axis; onnx's shape inference and onnxruntime accept a one-element 1-D one.
    ("cumsum14_axis_rank", "CumSum", 14, {"x": [3, 4], "axis": None}, {}, {"y": None}, {"axis": A([1])},
     "constraint C1", False),
    ("cumsum11_axis_value", "CumSum", 11, {"x": [3, 4], "axis": None}, {}, {"y": None}, {"axis": A(2)},
     "constraint C2", True),
    ("cumsum14_exclusive", "CumSum", 14, {"x": [3, 4], "axis": None}, {"exclusive": 2}, {"y": None},
     {"axis": A(0)}, "attribute 'exclusive'", True),
    ("cumsum14_shape", "CumSum", 14, {"x": [3, 4], "axis": None}, {}, {"y": [4, 3]}, {"axis": A(0)}, "output 'y'",
     True),
    # CumProd (opset 26): onnx's shape inference checks neither the axis value nor reverse, and onnxruntime has
    # no opset 26 (undetected there).
    ("cumprod26_axis_value", "CumProd", 26, {"x": [3, 4], "axis": None}, {}, {"y": None}, {"axis": A(-3)},
     "constraint C2", False),
    ("cumprod26_reverse", "CumProd", 26, {"x": [3, 4], "axis": None}, {"reverse": 2}, {"y": None}, {"axis": A(0)},
     "attribute 'reverse'", False),
    ("cumprod26_shape", "CumProd", 26, {"x": [3, 4], "axis": None}, {}, {"y": [3, 1]}, {"axis": A(0)}, "output 'y'",
     True),
    # Trilu
    ("trilu14_rank", "Trilu", 14, {"input": [3]}, {}, None, None, "constraint C1", True),
    # ONNX's text asks for a 0-D k; onnx's shape inference and onnxruntime accept a one-element 1-D one.
    ("trilu14_k", "Trilu", 14, {"input": [3, 4], "k": None}, {}, None, {"k": A([1])}, "constraint C2", False),
    # upper = 2: read as a boolean by onnx and onnxruntime (unchecked there).
    ("trilu14_upper", "Trilu", 14, {"input": [3, 4]}, {"upper": 2}, None, None, "attribute 'upper'", False),
    ("trilu14_shape", "Trilu", 14, {"input": [3, 4]}, {}, {"output": [4, 3]}, None, "output 'output'", True),
    # Expand
    ("expand13_rank", "Expand", 13, {"input": [3, 1], "shape": None}, {}, None, {"shape": A([[2, 3]])},
     "constraint C1", True),
    ("expand8_broadcast", "Expand", 8, {"input": [3, 4], "shape": None}, {}, None, {"shape": A([2, 3])},
     "constraint C2", True),
    ("expand13_shape", "Expand", 13, {"input": [3, 1], "shape": None}, {}, {"output": [2, 1, 4]},
     {"shape": A([2, 1, 4])}, "output 'output'", True),
    # Range
    ("range11_start", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, None,
     {"start": A([0.0, 1.0], np.float32), "limit": A(4.0, np.float32), "delta": A(1.0, np.float32)},
     "constraint C1", True),
    ("range11_limit", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, None,
     {"start": A(0.0, np.float32), "limit": A([[4.0]], np.float32), "delta": A(1.0, np.float32)},
     "constraint C2", True),
    ("range11_delta", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, None,
     {"start": A(0.0, np.float32), "limit": A(4.0, np.float32), "delta": A([1.0, 2.0], np.float32)},
     "constraint C3", True),
    ("range11_delta_zero", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, None,
     {"start": A(0.0, np.float32), "limit": A(4.0, np.float32), "delta": A(0.0, np.float32)},
     "constraint C4", True),
    ("range11_shape", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, {"output": [3]},
     {"start": A(0.0, np.float32), "limit": A(1.0, np.float32), "delta": A(0.3, np.float32)}, "output 'output'",
     True),
    ("range27_shape", "Range", 27, {"start": None, "limit": None, "delta": None}, {}, {"output": [3]},
     {"start": A(10.0, np.float32), "limit": A(0.0, np.float32), "delta": A(-2.5, np.float32)}, "output 'output'",
     True),
    # ConstantOfShape
    # ONNX's text asks for a 1-D input; onnx's shape inference and onnxruntime accept a 2-D one (undetected).
    ("constantofshape21_rank", "ConstantOfShape", 21, {"input": None}, {}, None, {"input": A([[2, 3]])},
     "constraint C1", False),
    ("constantofshape9_negative", "ConstantOfShape", 9, {"input": None}, {}, None, {"input": A([2, -1])},
     "constraint C2", True),
    ("constantofshape25_shape", "ConstantOfShape", 25, {"input": None}, {}, {"output": [3, 2]}, {"input": A([2, 3])},
     "output 'output'", True),
    # Shape / Size
    ("shape15_shape", "Shape", 15, {"data": [2, 3, 4]}, {"start": 1, "end": -1}, {"shape": (I64, [2])}, None,
     "output 'shape'", True),
    ("shape21_shape_clamped", "Shape", 21, {"data": [2, 3, 4]}, {"start": -10}, {"shape": (I64, [2])}, None,
     "output 'shape'", True),
    ("shape13_shape", "Shape", 13, {"data": [2, 3, 4]}, {}, {"shape": (I64, [2])}, None, "output 'shape'", True),
    ("size13_shape", "Size", 13, {"data": [2, 3]}, {}, {"size": (I64, [1])}, None, "output 'size'", True),
    # Clip
    ("clip13_min", "Clip", 13, {"input": [3, 4], "min": [2]}, {}, None, None, "constraint C1", True),
    ("clip11_max", "Clip", 11, {"input": [3, 4], "min": "", "max": [2]}, {}, None, None, "constraint C2", True),
    ("clip12_shape", "Clip", 12, {"input": [3, 4]}, {}, {"output": [3]}, None, "output 'output'", True),
    ("clip6_shape", "Clip", 6, {"input": [3, 4]}, {"min": 0.0}, {"output": [4, 3]}, None, "output 'output'", True),
    # Dropout
    ("dropout13_ratio_rank", "Dropout", 13, {"data": [3, 4], "ratio": None}, {}, {"output": None},
     {"ratio": A([0.5, 0.5], np.float32)}, "constraint C1", True),
    ("dropout22_training_mode_rank", "Dropout", 22, {"data": [3, 4], "ratio": "", "training_mode": None}, {},
     {"output": None}, {"training_mode": A([True, False])}, "constraint C2", True),
    ("dropout12_ratio_value", "Dropout", 12, {"data": [3, 4], "ratio": None, "training_mode": None}, {},
     {"output": None}, {"ratio": A(1.0, np.float32), "training_mode": A(True)}, "constraint C3", True),
    # ratio attribute out of [0, 1): onnx's shape inference does not check it, and onnxruntime (inference, where
    # Dropout passes data through) runs the model (undetected there).
    ("dropout10_ratio", "Dropout", 10, {"data": [3, 4]}, {"ratio": 1.5}, {"output": None}, None, "constraint C1",
     False),
    # is_test = 2: onnx's shape inference leaves it unchecked; onnxruntime has no Dropout-6 kernel at all.
    ("dropout6_is_test", "Dropout", 6, {"data": [3, 4]}, {"is_test": 2}, {"output": None}, None,
     "attribute 'is_test'", False),
    ("dropout13_mask_shape", "Dropout", 13, {"data": [3, 4]}, {}, {"output": [3, 4], "mask": (B, [4, 3])}, None,
     "output 'mask'", True),
    ("dropout7_shape", "Dropout", 7, {"data": [3, 4]}, {}, {"output": [3, 1]}, None, "output 'output'", True),
    # Mod
    ("mod13_broadcast", "Mod", 13, {"A": I(2, 3), "B": I(4)}, {}, {"C": (I64, None)}, None, "constraint C1", True),
    ("mod10_fmod_float", "Mod", 10, {"A": [2, 3], "B": [3]}, {}, None, None, "constraint C2", True),
    ("mod13_fmod", "Mod", 13, {"A": I(2, 3), "B": I(3)}, {"fmod": 2}, {"C": (I64, None)}, None, "attribute 'fmod'",
     True),
    ("mod13_shape", "Mod", 13, {"A": I(2, 1), "B": I(3)}, {}, {"C": (I64, [2, 1])}, None, "output 'C'", True),
    # GroupNormalization
    ("groupnorm21_rank", "GroupNormalization", 21, {"X": [4], "scale": [4], "bias": [4]}, {"num_groups": 2},
     {"Y": None}, None, "constraint C1", True),
    ("groupnorm21_groups", "GroupNormalization", 21, {"X": [1, 4, 2], "scale": [4], "bias": [4]}, {"num_groups": 3},
     {"Y": None}, None, "constraint C2", True),
    ("groupnorm21_scale", "GroupNormalization", 21, {"X": [1, 4, 2], "scale": [2], "bias": [4]}, {"num_groups": 2},
     {"Y": None}, None, "constraint C3", True),
    ("groupnorm21_bias", "GroupNormalization", 21, {"X": [1, 4, 2], "scale": [4], "bias": [2]}, {"num_groups": 2},
     {"Y": None}, None, "constraint C4", True),
    # GroupNormalization-18 is deprecated: a model using it is reported at 'op' as well.
    ("groupnorm18_scale", "GroupNormalization", 18, {"X": [1, 4, 2], "scale": [4], "bias": [2]}, {"num_groups": 2},
     {"Y": None}, None, ["op", "constraint C3"], True),
    ("groupnorm18_bias", "GroupNormalization", 18, {"X": [1, 4, 2], "scale": [2], "bias": [4]}, {"num_groups": 2},
     {"Y": None}, None, ["op", "constraint C4"], True),
    # A wrong declared Y: onnx's shape inference does not infer through the function body in strict mode, and
    # onnxruntime only warns about a declared shape it does not produce (undetected there).
    ("groupnorm21_shape", "GroupNormalization", 21, {"X": [1, 4, 2], "scale": [4], "bias": [4]}, {"num_groups": 2},
     {"Y": [1, 4, 1]}, None, "output 'Y'", False),
    # RMSNormalization
    ("rmsnorm23_axis", "RMSNormalization", 23, {"X": [3, 4], "scale": [4]}, {"axis": 2}, {"Y": None}, None,
     "constraint C1", True),
    ("rmsnorm23_scale", "RMSNormalization", 23, {"X": [3, 4], "scale": [5]}, {}, {"Y": None}, None,
     "constraint C2", True),
    ("rmsnorm23_shape", "RMSNormalization", 23, {"X": [3, 4], "scale": [4]}, {}, {"Y": [3, 1]}, None, "output 'Y'",
     True),
    # Reshape 5 / 13 (constant shape)
    ("reshape13_rank", "Reshape", 13, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([[3, 2]])}, "constraint C1", True),
    ("reshape13_below_minus_one", "Reshape", 13, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([-2, -3])}, "constraint C2", True),
    ("reshape5_two_minus_one", "Reshape", 5, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([-1, -1])}, "constraint C3", True),
    ("reshape13_zero_past_rank", "Reshape", 13, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([6, 1, 0])}, "constraint C4", True),
    ("reshape13_count", "Reshape", 13, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([4, 2])}, "constraint C5", True),
    ("reshape5_count_inferred", "Reshape", 5, {"data": [2, 3], "shape": None}, {}, {"reshaped": None},
     {"shape": A([4, -1])}, "constraint C5", True),
    ("reshape13_shape", "Reshape", 13, {"data": [2, 3, 4], "shape": None}, {}, {"reshaped": [2, 3, 4]},
     {"shape": A([0, -1])}, "output 'reshaped'", True),
    ("reshape21_shape", "Reshape", 21, {"data": [2, 3, 4], "shape": None}, {}, {"reshaped": [6, 4, 1]},
     {"shape": A([-1, 0])}, "output 'reshaped'", True),
    # Einsum
    ("einsum12_operands", "Einsum", 12, {"Inputs": [2, 3]}, {"equation": "ij,jk->ik"}, {"Output": None}, None,
     "constraint C1", True),
]


# Cases onnxruntime has no kernel for (checked by onnx's shape inference and checker only).
NO_ORT = {"dropout6_is_test"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_violation_is_reported_at_its_number(case):
    _, op, opset, inputs, attrs, outputs, inits, where, detected = case
    model, feeds = build(op, opset, inputs, attrs, outputs, inits)
    found = errors(model)
    assert found == (where if isinstance(where, list) else [where]), found
    why = onnx_rejects(model, feeds, ort=case[0] not in NO_ORT)
    if detected:
        assert why, "onnx's shape inference, its checker and onnxruntime all accept the violating model"
    else:  # the ONNX references leave it unchecked: if one starts to catch it, mark the case detected
        assert why is None, why


# (id, op, opset, inputs, attrs, outputs, inits): valid uses, declared output shapes stated exactly.
VALID = [
    ("argmax13", "ArgMax", 13, X34, {"axis": -1, "keepdims": 0}, {"reduced": (I64, [3])}, None),
    ("argmin12_last", "ArgMin", 12, X34, {"select_last_index": 1}, {"reduced": (I64, [1, 4])}, None),
    ("argmax1", "ArgMax", 1, X34, {"axis": 1}, {"reduced": (I64, [3, 1])}, None),
    ("hardmax13", "Hardmax", 13, {"input": [3, 4]}, {"axis": 0}, {"output": [3, 4]}, None),
    ("hardmax1", "Hardmax", 1, {"input": [3, 4]}, {}, {"output": [3, 4]}, None),
    ("lpnorm22", "LpNormalization", 22, {"input": [3, 4]}, {"p": 1, "axis": 0}, {"output": [3, 4]}, None),
    ("lrn13", "LRN", 13, {"X": [1, 3, 4, 4]}, {"size": 3}, {"Y": [1, 3, 4, 4]}, None),
    ("d2s13_crd", "DepthToSpace", 13, {"input": [1, 8, 2, 3]}, {"blocksize": 2, "mode": "CRD"},
     {"output": [1, 2, 4, 6]}, None),
    ("d2s1", "DepthToSpace", 1, {"input": [1, 9, 1, 2]}, {"blocksize": 3}, {"output": [1, 1, 3, 6]}, None),
    ("d2s28", "DepthToSpace", 28, {"input": [1, 8, 2, 3]}, {"blocksize": 2}, {"output": [1, 2, 4, 6]}, None),
    ("s2d13", "SpaceToDepth", 13, {"input": [1, 2, 4, 6]}, {"blocksize": 2}, {"output": [1, 8, 2, 3]}, None),
    ("s2d28_crd", "SpaceToDepth", 28, {"input": [1, 2, 4, 6]}, {"blocksize": 2, "mode": "CRD"},
     {"output": [1, 8, 2, 3]}, None),
    ("gatherelements13", "GatherElements", 13, {"data": [3, 4], "indices": I(3, 2)}, {"axis": -1},
     {"output": [3, 2]}, None),
    ("gathernd13_batch", "GatherND", 13, {"data": [2, 3, 4], "indices": I(2, 1)}, {"batch_dims": 1},
     {"output": [2, 4]}, None),
    ("gathernd11", "GatherND", 11, {"data": [3, 4, 5], "indices": I(2, 2)}, {}, {"output": [2, 5]}, None),
    ("scatternd18_max", "ScatterND", 18, {"data": [3, 4], "indices": I(2, 1), "updates": [2, 4]},
     {"reduction": "max"}, {"output": [3, 4]}, None),
    ("scatternd11", "ScatterND", 11, {"data": [3, 4], "indices": I(1, 2), "updates": [1]}, {}, {"output": [3, 4]},
     None),
    ("scatterelements16_add", "ScatterElements", 16, {"data": [3, 4], "indices": I(2, 4), "updates": [2, 4]},
     {"reduction": "add", "axis": -2}, {"output": [3, 4]}, None),
    ("onehot11", "OneHot", 11, {"indices": I(2, 3), "depth": None, "values": None}, {"axis": 1},
     {"output": [2, 4, 3]}, {"depth": A([4]), "values": A([0.0, 1.0], np.float32)}),
    ("onehot9", "OneHot", 9, {"indices": I(2, 3), "depth": None, "values": None}, {},
     {"output": [2, 3, 5]}, {"depth": A(5.0, np.float32), "values": A([0.0, 1.0], np.float32)}),
    ("cumsum14", "CumSum", 14, {"x": [3, 4], "axis": None}, {"exclusive": 1, "reverse": 1}, {"y": [3, 4]},
     {"axis": A(-1)}),
    ("cumprod26", "CumProd", 26, {"x": [3, 4], "axis": None}, {}, {"y": [3, 4]}, {"axis": A(1)}),
    ("trilu14", "Trilu", 14, {"input": [2, 3, 4], "k": None}, {"upper": 0}, {"output": [2, 3, 4]}, {"k": A(1)}),
    ("expand13", "Expand", 13, {"input": [3, 1], "shape": None}, {}, {"output": [2, 3, 4]}, {"shape": A([2, 1, 4])}),
    ("expand8_shorter_shape", "Expand", 8, {"input": [2, 1, 4], "shape": None}, {}, {"output": [2, 3, 4]},
     {"shape": A([3, 1])}),
    ("range11", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, {"output": [4]},
     {"start": A(0.0, np.float32), "limit": A(1.0, np.float32), "delta": A(0.3, np.float32)}),
    ("range11_empty", "Range", 11, {"start": None, "limit": None, "delta": None}, {}, {"output": [0]},
     {"start": A(5.0, np.float32), "limit": A(1.0, np.float32), "delta": A(1.0, np.float32)}),
    ("range27_negative", "Range", 27, {"start": None, "limit": None, "delta": None}, {}, {"output": [4]},
     {"start": A(10.0, np.float32), "limit": A(0.0, np.float32), "delta": A(-2.5, np.float32)}),
    ("constantofshape21", "ConstantOfShape", 21, {"input": None}, {}, {"output": [2, 3]}, {"input": A([2, 3])}),
    ("shape15", "Shape", 15, {"data": [2, 3, 4]}, {"start": -2}, {"shape": (I64, [2])}, None),
    ("shape19_end", "Shape", 19, {"data": [2, 3, 4]}, {"start": 1, "end": 10}, {"shape": (I64, [2])}, None),
    ("shape19_empty", "Shape", 19, {"data": [2, 3, 4]}, {"start": 2, "end": 1}, {"shape": (I64, [0])}, None),
    ("shape1", "Shape", 1, {"data": [2, 3, 4]}, {}, {"shape": (I64, [3])}, None),
    ("size21", "Size", 21, {"data": [2, 3]}, {}, {"size": (I64, [])}, None),
    ("clip13", "Clip", 13, {"input": [3, 4], "min": [], "max": []}, {}, {"output": [3, 4]}, None),
    ("clip6", "Clip", 6, {"input": [3, 4]}, {"min": 0.0, "max": 1.0}, {"output": [3, 4]}, None),
    ("dropout13", "Dropout", 13, {"data": [3, 4], "ratio": None, "training_mode": None}, {},
     {"output": [3, 4], "mask": (B, [3, 4])}, {"ratio": A(0.25, np.float32), "training_mode": A(False)}),
    ("dropout10", "Dropout", 10, {"data": [3, 4]}, {"ratio": 0.1}, {"output": [3, 4], "mask": (B, [3, 4])}, None),
    ("mod13_int", "Mod", 13, {"A": I(2, 1), "B": None}, {}, {"C": (I64, [2, 3])}, {"B": A([1, 2, 3])}),
    ("mod10_float", "Mod", 10, {"A": [2, 3], "B": [3]}, {"fmod": 1}, {"C": [2, 3]}, None),
    # version 28 defines the floored remainder for floating-point inputs too
    ("mod28_float_floor", "Mod", 28, {"A": [2, 3], "B": [3]}, {}, {"C": [2, 3]}, None),
    ("groupnorm21", "GroupNormalization", 21, {"X": [2, 4, 3], "scale": [4], "bias": [4]}, {"num_groups": 2},
     {"Y": [2, 4, 3]}, None),
    ("rmsnorm23", "RMSNormalization", 23, {"X": [2, 3, 4], "scale": [3, 1]}, {"axis": 1}, {"Y": [2, 3, 4]}, None),
    ("reshape13", "Reshape", 13, {"data": [2, 3, 4], "shape": None}, {}, {"reshaped": [2, 12]},
     {"shape": A([0, -1])}),
    ("reshape5", "Reshape", 5, {"data": [2, 3], "shape": None}, {}, {"reshaped": [3, 2, 1]},
     {"shape": A([3, -1, 1])}),
    ("reshape19_allowzero", "Reshape", 19, {"data": [2, 3], "shape": None}, {"allowzero": 1},
     {"reshaped": [6]}, {"shape": A([6])}),
    ("reshape21_copy", "Reshape", 21, {"data": [2, 3, 4], "shape": None}, {}, {"reshaped": [8, 3]},
     {"shape": A([-1, 0])}),
    ("einsum12", "Einsum", 12, {"A": [2, 3], "B": [3, 4]}, {"equation": "ij,jk->ik"}, {"Output": [2, 4]}, None),
]


@pytest.mark.parametrize("case", VALID, ids=[c[0] for c in VALID])
def test_valid_use_is_accepted(case):
    _, op, opset, inputs, attrs, outputs, inits = case
    model, feeds = build(op, opset, inputs, attrs, outputs, inits)
    assert errors(model) == []
    onnx.checker.check_model(model, full_check=True)
    # The references accept it too (so their rejections of the violating models are not spurious).
    assert onnx_rejects(model, feeds) is None
