"""Constraints, attribute value lists and output shapes of more ONNX ops: the Reduce family (L1, L2,
LogSum, LogSumExp, Min, Prod, SumSquare), GlobalLpPool, LpPool, MaxRoiPool, RoiAlign,
NonMaxSuppression, GridSample, AffineGrid, Col2Im, DeformConv, ConvInteger, QLinearConv,
MatMulInteger, QLinearMatMul, QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, Upsample,
Compress, ReverseSequence, Unique and Slice-1 (every version).

For every numbered constraint and attribute value list a small model breaks it and opgen must report
it at that constraint / attribute (and nothing else); the valid base model of each op version must
pass opgen and onnx.checker. As an independent reference, onnx (full checker or strict shape
inference with type checks) or onnxruntime (session creation or a run) must refuse each broken model,
except where a case says that no reference checks it (ref None, with the reason in a comment). Every
stated output shape is compared with the shape onnx's shape inference gives, and a wrong declared
shape must be reported at that output.
"""
from __future__ import annotations


import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


from onnx_cases import arr, onnx_rejects, onnx_shapes, ort_rejects, where  # noqa: F401
from onnx_refs import ort_session  # noqa: F401

F, U8, I32, I64, B = TensorProto.FLOAT, TensorProto.UINT8, TensorProto.INT32, TensorProto.INT64, TensorProto.BOOL
NP = {F: np.float32, U8: np.uint8, I32: np.int32, I64: np.int64, B: np.bool_}


def f32(values):
    return np.array(values, dtype=np.float32)


def u8(values):
    return np.array(values, dtype=np.uint8)


def model(op, opset, ins, attrs, outs):
    """One-node model. ins: name -> shape (float graph input), (shape, elem type) (graph input),
    ndarray (initializer) or "" (an omitted optional input). outs: name -> (elem type, declared shape or None)."""
    names, inputs, inits = [], [], []
    for name, v in ins.items():
        if isinstance(v, str):
            names.append("")
            continue
        names.append(name)
        if isinstance(v, np.ndarray):
            inits.append(numpy_helper.from_array(v, name))
        elif isinstance(v, tuple):
            inputs.append(helper.make_tensor_value_info(name, v[1], v[0]))
        else:
            inputs.append(helper.make_tensor_value_info(name, F, v))
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, list(outs), **{k: v for k, v in (attrs or {}).items() if v is not None})
    out_infos = [helper.make_tensor_value_info(o, t, s) for o, (t, s) in outs.items()]
    graph = helper.make_graph([node], "g", inputs, out_infos, initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    # onnx.checker wants a shape on graph outputs: an undeclared one gets named (unknown) dimensions, as many
    # as onnx's (lenient) shape inference gives it, else the op's known rank
    undeclared = [o for o, (_, s) in outs.items() if s is None]
    if undeclared:
        try:
            inferred = {v.name: v for v in onnx.shape_inference.infer_shapes(m).graph.output}
        except Exception:  # noqa: BLE001
            inferred = {}
        for info in m.graph.output:
            if info.name not in undeclared:
                continue
            t = inferred.get(info.name)
            rank = len(t.type.tensor_type.shape.dim) if t is not None and t.type.tensor_type.HasField("shape") \
                else RANKS.get((op, info.name), 0)
            info.CopyFrom(helper.make_tensor_value_info(info.name, outs[info.name][0],
                                                        [f"{info.name}{k}" for k in range(rank)]))
    return m


# output ranks where onnx infers no shape (version 1 of some ops)
RANKS = {("Upsample", "Y"): 4, ("GlobalLpPool", "Y"): 4, ("LpPool", "Y"): 4, ("Unique", "Y"): 1,
         ("NonMaxSuppression", "selected_indices"): 2, ("Compress", "output"): 2}  # Compress-9: the base use's axis=1


# ---- valid base uses: op -> (inputs, attributes, outputs {name: elem type}) ----
REDUCE = ("ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMin", "ReduceProd", "ReduceSumSquare")
REDUCE_V = {"ReduceL1": (1, 11, 13, 18), "ReduceL2": (1, 11, 13, 18), "ReduceLogSum": (1, 11, 13, 18, 28),
            "ReduceLogSumExp": (1, 11, 13, 18, 28), "ReduceMin": (1, 11, 12, 13, 18, 20),
            "ReduceProd": (1, 11, 13, 18), "ReduceSumSquare": (1, 11, 13, 18)}
REDUCE_IN = {"ReduceL1": 18, "ReduceL2": 18, "ReduceLogSum": 18, "ReduceLogSumExp": 18, "ReduceMin": 18,
             "ReduceProd": 18, "ReduceSumSquare": 18}  # first version with the axes input

QX = ([2, 3, 4], F)
BASE = {
    "GlobalLpPool": ({"X": [2, 3, 4, 5]}, {}, {"Y": F}),
    "LpPool": ({"X": [1, 2, 6, 5]}, {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "strides": [2, 2]}, {"Y": F}),
    "MaxRoiPool": ({"X": [1, 2, 8, 8], "rois": f32([[0, 0, 0, 4, 4], [0, 1, 1, 6, 6]])}, {"pooled_shape": [2, 3]},
                   {"Y": F}),
    "RoiAlign": ({"X": [1, 2, 8, 8], "rois": f32([[0, 0, 4, 4], [1, 1, 6, 6], [0, 2, 3, 5]]),
                  "batch_indices": arr([0, 0, 0])}, {"output_height": 2, "output_width": 3}, {"Y": F}),
    "NonMaxSuppression": ({"boxes": [1, 6, 4], "scores": [1, 2, 6]}, {}, {"selected_indices": I64}),
    "GridSample": ({"X": [1, 2, 4, 4], "grid": [1, 3, 5, 2]}, {}, {"Y": F}),
    "AffineGrid": ({"theta": [2, 2, 3], "size": arr([2, 3, 5, 6])}, {}, {"grid": F}),
    "Col2Im": ({"input": [1, 8, 16], "image_shape": arr([5, 5]), "block_shape": arr([2, 2])}, {}, {"output": F}),
    "DeformConv": ({"X": [1, 4, 5, 5], "W": [6, 2, 3, 3], "offset": [1, 18, 3, 3], "B": [6], "mask": [1, 9, 3, 3]},
                   {"group": 2}, {"Y": F}),
    "ConvInteger": ({"x": ([1, 4, 5, 5], U8), "w": ([6, 2, 3, 3], U8), "x_zero_point": u8(1), "w_zero_point": u8(2)},
                    {"group": 2, "pads": [1, 0, 1, 0], "strides": [2, 1]}, {"y": I32}),
    "QLinearConv": ({"x": ([1, 4, 5, 5], U8), "x_scale": f32(0.5), "x_zero_point": u8(1), "w": ([6, 2, 3, 3], U8),
                     "w_scale": f32(0.25), "w_zero_point": u8(2), "y_scale": f32(2), "y_zero_point": u8(3),
                     "B": arr([1, 2, 3, 4, 5, 6], np.int32)},
                    {"group": 2, "pads": [1, 0, 1, 0], "strides": [2, 1]}, {"y": U8}),
    "MatMulInteger": ({"A": ([2, 3], U8), "B": ([3, 4], U8), "a_zero_point": u8(1), "b_zero_point": u8(2)}, {},
                      {"Y": I32}),
    "QLinearMatMul": ({"a": ([2, 3], U8), "a_scale": f32(0.5), "a_zero_point": u8(1), "b": ([3, 4], U8),
                       "b_scale": f32(0.25), "b_zero_point": u8(2), "y_scale": f32(2), "y_zero_point": u8(3)}, {},
                      {"y": U8}),
    "QuantizeLinear": ({"x": [2, 3, 4], "y_scale": f32([1, 2, 3]), "y_zero_point": u8([1, 2, 3])}, {}, {"y": U8}),
    "DequantizeLinear": ({"x": ([2, 3, 4], U8), "x_scale": f32([1, 2, 3]), "x_zero_point": u8([1, 2, 3])}, {},
                         {"y": F}),
    "DynamicQuantizeLinear": ({"x": [2, 3]}, {}, {"y": U8, "y_scale": F, "y_zero_point": U8}),
    "Upsample": ({"X": [1, 1, 2, 3], "scales": f32([1, 1, 2, 3])}, {}, {"Y": F}),
    "Compress": ({"input": [2, 3], "condition": np.array([True, False, True])}, {"axis": 1}, {"output": F}),
    "ReverseSequence": ({"input": [4, 2, 3], "sequence_lens": arr([1, 3])}, {}, {"Y": F}),
    "Unique": ({"X": [2, 3]}, {}, {"Y": F, "indices": I64, "inverse_indices": I64, "counts": I64}),
    "Slice": ({"data": [3, 4]}, {"starts": [0, 1], "ends": [2, 10], "axes": [0, 1]}, {"output": F}),
    **{op: ({"data": [2, 3, 4], "axes": arr([1, -1])}, {}, {"reduced": F}) for op in REDUCE},
}
BASE_V = {
    ("QuantizeLinear", 10): ({"x": [2, 3, 4], "y_scale": f32(0.5), "y_zero_point": u8(1)}, {}, {"y": U8}),
    ("DequantizeLinear", 10): ({"x": ([2, 3, 4], U8), "x_scale": f32(0.5), "x_zero_point": u8(1)}, {}, {"y": F}),
    **{("Slice", v): ({"data": [5, 6], "starts": arr([1, -1]), "ends": arr([4, -7]), "axes": arr([0, 1]),
                       "steps": arr([2, -2])}, {}, {"output": F}) for v in (10, 11, 13)},
    ("Upsample", 7): ({"X": [1, 1, 2, 3]}, {"scales": [1.0, 1.0, 2.0, 3.0]}, {"Y": F}),
    ("Upsample", 1): ({"X": [1, 1, 2, 3]}, {"height_scale": 2.0, "width_scale": 3.0}, {"Y": F}),
    **{(op, v): ({"data": [2, 3, 4]}, {"axes": [1, -1]}, {"reduced": F})
       for op in REDUCE for v in REDUCE_V[op] if v < REDUCE_IN[op]},
}
OPSETS = {
    **REDUCE_V,
    "GlobalLpPool": (1, 2, 22), "LpPool": (1, 2, 11, 18, 22), "MaxRoiPool": (1, 22), "RoiAlign": (10, 16, 22),
    "NonMaxSuppression": (10, 11), "GridSample": (16, 20, 22), "AffineGrid": (20,), "Col2Im": (18,),
    "DeformConv": (19, 22), "ConvInteger": (10,), "QLinearConv": (10,), "MatMulInteger": (10,),
    "QLinearMatMul": (10, 21), "QuantizeLinear": (10, 13, 19, 21, 23, 24, 25, 28),
    "DequantizeLinear": (10, 13, 19, 21, 23, 24, 25, 28),
    "DynamicQuantizeLinear": (11,), "Upsample": (1, 7, 9), "Compress": (9, 11, 28), "ReverseSequence": (10, 28),
    "Unique": (11, 28), "Slice": (1, 10, 11, 13),
}
# Upsample 10 is left out: the op is deprecated there and onnx's checker refuses it.


def build(op, opset, ins=None, attrs=None, declared=None):
    base_ins, base_attrs, outs = BASE_V.get((op, opset), BASE[op])
    i = {**base_ins, **(ins or {})}
    i = {k: v for k, v in i.items() if v is not None}
    a = {**base_attrs, **(attrs or {})}
    o = {name: (t, (declared or {}).get(name)) for name, t in outs.items()}
    return model(op, opset, i, a, o)


ALL = [(op, v) for op, vs in OPSETS.items() for v in vs]


@pytest.mark.parametrize("op, opset", ALL)
def test_valid_base_use_passes_opgen_and_onnx(op, opset):
    m = build(op, opset)
    assert where(m) == []
    assert not onnx_rejects(m)
    if not ort_rejects(build(op, opset)):
        return
    assert (op, opset) in NO_ORT, "onnxruntime refuses the valid use"


# onnxruntime (1.31) has no kernel for these versions
NO_ORT = {("Upsample", 1), ("GlobalLpPool", 1), ("LpPool", 1), ("GlobalLpPool", 22), ("MaxRoiPool", 22),
          ("RoiAlign", 22), ("ReduceLogSum", 28), ("ReduceLogSumExp", 28), ("QuantizeLinear", 28),
          ("DequantizeLinear", 28), ("Compress", 28), ("ReverseSequence", 28), ("Unique", 28)}

# onnx has no shape inference for these versions
NO_INFERENCE = {("LpPool", 1), ("GlobalLpPool", 1), ("Upsample", 1)}
C = "constraint "
QV = (13, 19, 21, 23, 24, 25, 28)
BLK = (21, 23, 24, 25, 28)
CASES = [
    # ---- Reduce* ----
    *[(op, tuple(v for v in REDUCE_V[op] if v < REDUCE_IN[op]), {}, {"axes": [1, 3]}, C + "C1", "ort") for op in REDUCE],
    *[(op, tuple(v for v in REDUCE_V[op] if v >= REDUCE_IN[op]), {"axes": arr([3])}, {}, C + "C1", "onnx")
      for op in REDUCE],
    *[(op, REDUCE_V[op], {}, {"keepdims": 2}, "attribute 'keepdims'", None) for op in REDUCE],
    *[(op, tuple(v for v in REDUCE_V[op] if v >= REDUCE_IN[op]), {}, {"noop_with_empty_axes": 2},
       "attribute 'noop_with_empty_axes'", None) for op in REDUCE],
    # ---- pools ----
    ("GlobalLpPool", (1, 2, 22), {"X": [2, 3]}, {}, C + "C1", "ort"),
    ("LpPool", (1, 2, 11, 18, 22), {"X": [1, 2]}, {"kernel_shape": [2], "pads": None, "strides": None}, C + "C1", "ort"),
    ("LpPool", (1, 2, 11, 18, 22), {}, {"kernel_shape": [3]}, C + "C2", "onnx"),
    ("LpPool", (1, 2, 11, 18, 22), {}, {"kernel_shape": [3, 0]}, C + "C3", "ort"),
    ("LpPool", (1, 2, 11, 18, 22), {}, {"strides": [2]}, C + "C4", "onnx"),
    ("LpPool", (1, 2, 11, 18, 22), {}, {"strides": [2, 0]}, C + "C5", "onnx"),
    ("LpPool", (18, 22), {}, {"dilations": [1]}, C + "C6", "onnx"),
    ("LpPool", (18, 22), {}, {"dilations": [1, 0]}, C + "C7", "onnx"),
    *[("LpPool", vs, {}, {"pads": [1, 1]}, C + c, "onnx") for vs, c in (((18, 22), "C8"), ((1, 2, 11), "C6"))],
    *[("LpPool", vs, {}, {"pads": [1, 0, -1, 0]}, C + c, "onnx") for vs, c in (((18, 22), "C9"), ((1, 2, 11), "C7"))],
    *[("LpPool", vs, {}, {"auto_pad": "VALID"}, C + c, None) for vs, c in (((18, 22), "C10"), ((1, 2, 11), "C8"))],
    ("LpPool", (1, 2, 11, 18, 22), {}, {"pads": None, "auto_pad": "FULL"}, "attribute 'auto_pad'", "ort"),
    ("LpPool", (18, 22), {}, {"ceil_mode": 2}, "attribute 'ceil_mode'", None),
    ("MaxRoiPool", (1, 22), {"X": [1, 2, 8]}, {}, C + "C1", "ort"),
    ("MaxRoiPool", (1, 22), {"rois": f32([[0, 0, 0, 4], [0, 1, 1, 6]])}, {}, C + "C2", "ort"),
    ("MaxRoiPool", (1, 22), {}, {"pooled_shape": [2]}, C + "C3", "ort"),
    ("MaxRoiPool", (1, 22), {}, {"pooled_shape": [2, 0]}, C + "C4", "ort"),
    # ---- RoiAlign ----
    ("RoiAlign", (10, 16, 22), {"X": [1, 2, 8]}, {}, C + "C1", "onnx"),
    ("RoiAlign", (10, 16, 22), {"rois": f32([[0, 0, 4, 4, 1], [1, 1, 6, 6, 1], [0, 2, 3, 5, 1]])}, {}, C + "C2", "ort"),
    ("RoiAlign", (10, 16, 22), {"batch_indices": arr([0, 0])}, {}, C + "C3", "onnx"),
    # output_height 0: onnx does not check the value and onnxruntime returns an empty result
    ("RoiAlign", (10, 16, 22), {}, {"output_height": 0}, C + "C4", None),
    ("RoiAlign", (10, 16, 22), {}, {"sampling_ratio": -1}, C + "C5", "ort"),
    ("RoiAlign", (10, 16, 22), {}, {"mode": "min"}, "attribute 'mode'", "ort"),
    # an unknown coordinate_transformation_mode: onnx does not check it and onnxruntime takes any value other than
    # half_pixel as output_half_pixel
    ("RoiAlign", (16, 22), {}, {"coordinate_transformation_mode": "corners"},
     "attribute 'coordinate_transformation_mode'", None),
    # ---- NonMaxSuppression ----
    ("NonMaxSuppression", (10, 11), {"boxes": [1, 6, 3]}, {}, C + "C1", "ort"),
    ("NonMaxSuppression", (10, 11), {"scores": [1, 6]}, {}, C + "C2", "ort"),
    ("NonMaxSuppression", (10, 11), {"scores": [1, 2, 5]}, {}, C + "C3", "ort"),
    ("NonMaxSuppression", (10, 11), {}, {"center_point_box": 2}, "attribute 'center_point_box'", "ort"),
    # ---- GridSample ----
    ("GridSample", (16,), {"X": [1, 2, 4, 4, 4], "grid": [1, 3, 5, 2]}, {}, C + "C1", "onnx"),
    ("GridSample", (20, 22), {"X": [1, 2], "grid": [1, 2]}, {}, C + "C1", "onnx"),
    ("GridSample", (16, 20, 22), {"grid": [1, 3, 5, 3]}, {}, C + "C2", "onnx"),
    ("GridSample", (16, 20, 22), {"grid": [2, 3, 5, 2]}, {}, C + "C3", "onnx"),
    ("GridSample", (16,), {}, {"mode": "linear"}, "attribute 'mode'", "ort"),
    ("GridSample", (20, 22), {}, {"mode": "bilinear"}, "attribute 'mode'", "ort"),
    ("GridSample", (16, 20, 22), {}, {"padding_mode": "edge"}, "attribute 'padding_mode'", "ort"),
    ("GridSample", (16, 20, 22), {}, {"align_corners": 2}, "attribute 'align_corners'", None),
    # ---- AffineGrid ----
    ("AffineGrid", (20,), {"size": arr([2, 3, 5])}, {}, C + "C1", "onnx"),
    ("AffineGrid", (20,), {"theta": [2, 3, 4]}, {}, C + "C2", "ort"),
    ("AffineGrid", (20,), {"size": arr([3, 3, 5, 6])}, {}, C + "C3", "ort"),
    ("AffineGrid", (20,), {}, {"align_corners": 2}, "attribute 'align_corners'", None),
    # ---- Col2Im ----
    ("Col2Im", (18,), {"input": [1, 8]}, {}, C + "C1", "onnx"),
    ("Col2Im", (18,), {"block_shape": arr([2, 2, 1])}, {}, C + "C2", "onnx"),
    ("Col2Im", (18,), {}, {"strides": [1]}, C + "C3", "onnx"),
    ("Col2Im", (18,), {}, {"dilations": [1]}, C + "C4", "onnx"),
    ("Col2Im", (18,), {}, {"pads": [0, 0]}, C + "C5", "onnx"),
    ("Col2Im", (18,), {"block_shape": arr([2, 0])}, {}, C + "C6", "onnx"),
    ("Col2Im", (18,), {"input": [1, 6, 16]}, {}, C + "C7", "ort"),
    # ---- DeformConv ----
    ("DeformConv", (19, 22), {"X": [1, 4], "W": [6, 2], "offset": [1, 18], "mask": [1, 9]}, {}, C + "C1", "ort"),
    ("DeformConv", (19, 22), {"W": [6, 2, 3]}, {}, C + "C2", "onnx"),
    ("DeformConv", (19, 22), {}, {"kernel_shape": [3]}, C + "C3", "onnx"),
    ("DeformConv", (19, 22), {}, {"kernel_shape": [3, 2]}, C + "C4", "ort"),
    ("DeformConv", (19, 22), {}, {"strides": [1]}, C + "C5", "onnx"),
    ("DeformConv", (19, 22), {}, {"strides": [0, 1]}, C + "C6", "onnx"),
    ("DeformConv", (19, 22), {}, {"dilations": [1]}, C + "C7", "onnx"),
    ("DeformConv", (19, 22), {}, {"dilations": [1, 0]}, C + "C8", "onnx"),
    ("DeformConv", (19, 22), {}, {"pads": [1, 1]}, C + "C9", "onnx"),
    ("DeformConv", (19, 22), {}, {"pads": [0, 0, -1, 0]}, C + "C10", "onnx"),
    ("DeformConv", (19, 22), {}, {"group": 0}, C + "C11", "ort"),
    ("DeformConv", (19, 22), {"X": [1, 6, 5, 5]}, {}, C + "C12", "ort"),
    ("DeformConv", (19, 22), {"W": [5, 2, 3, 3], "B": [5]}, {}, C + "C13", "ort"),
    ("DeformConv", (19, 22), {"B": [5]}, {}, C + "C14", "ort"),
    ("DeformConv", (19, 22), {}, {"offset_group": 0}, C + "C15", "ort"),
    ("DeformConv", (19, 22), {"offset": [1, 54, 3, 3], "mask": [1, 27, 3, 3]}, {"offset_group": 3}, C + "C16", "ort"),
    ("DeformConv", (19, 22), {"offset": [1, 17, 3, 3]}, {}, C + "C17", "ort"),
    ("DeformConv", (19, 22), {"mask": [1, 8, 3, 3]}, {}, C + "C18", "ort"),
    # ---- ConvInteger / QLinearConv ----
    ("ConvInteger", (10,), {"x": ([1, 4], U8), "w": ([6, 2], U8)}, {"pads": None, "strides": None}, C + "C1", "onnx"),
    ("ConvInteger", (10,), {"w": ([6, 2, 3], U8)}, {}, C + "C2", "onnx"),
    ("ConvInteger", (10,), {}, {"kernel_shape": [3]}, C + "C3", "onnx"),
    ("ConvInteger", (10,), {}, {"kernel_shape": [3, 2]}, C + "C4", "ort"),
    ("ConvInteger", (10,), {}, {"strides": [1]}, C + "C5", "onnx"),
    ("ConvInteger", (10,), {}, {"strides": [0, 1]}, C + "C6", "onnx"),
    ("ConvInteger", (10,), {}, {"dilations": [1]}, C + "C7", "onnx"),
    ("ConvInteger", (10,), {}, {"dilations": [1, 0]}, C + "C8", "onnx"),
    ("ConvInteger", (10,), {}, {"pads": [1, 1]}, C + "C9", "onnx"),
    ("ConvInteger", (10,), {}, {"pads": [1, 0, -1, 0]}, C + "C10", "onnx"),
    ("ConvInteger", (10,), {}, {"auto_pad": "VALID"}, C + "C11", "ort"),
    ("ConvInteger", (10,), {}, {"group": 0}, C + "C12", "ort"),
    ("ConvInteger", (10,), {"x": ([1, 6, 5, 5], U8)}, {}, C + "C13", "ort"),
    ("ConvInteger", (10,), {"w": ([5, 2, 3, 3], U8)}, {}, C + "C14", "ort"),
    ("ConvInteger", (10,), {"x_zero_point": u8([1, 2])}, {}, C + "C15", "ort"),
    ("ConvInteger", (10,), {"w_zero_point": u8([1, 2, 3, 4, 5])}, {}, C + "C16", "ort"),
    ("ConvInteger", (10,), {}, {"pads": None, "auto_pad": "SAME"}, "attribute 'auto_pad'", "ort"),
    ("QLinearConv", (10,), {"x": ([1, 4], U8), "w": ([6, 2], U8)}, {"pads": None, "strides": None}, C + "C1", "ort"),
    ("QLinearConv", (10,), {"w": ([6, 2, 3], U8)}, {}, C + "C2", "onnx"),
    ("QLinearConv", (10,), {}, {"kernel_shape": [3]}, C + "C3", "ort"),
    ("QLinearConv", (10,), {}, {"kernel_shape": [3, 2]}, C + "C4", "ort"),
    ("QLinearConv", (10,), {}, {"strides": [1]}, C + "C5", "ort"),
    ("QLinearConv", (10,), {}, {"strides": [0, 1]}, C + "C6", "onnx"),
    ("QLinearConv", (10,), {}, {"dilations": [1]}, C + "C7", "ort"),
    ("QLinearConv", (10,), {}, {"dilations": [1, 0]}, C + "C8", "ort"),
    ("QLinearConv", (10,), {}, {"pads": [1, 1]}, C + "C9", "ort"),
    ("QLinearConv", (10,), {}, {"pads": [1, 0, -1, 0]}, C + "C10", "ort"),
    ("QLinearConv", (10,), {}, {"auto_pad": "VALID"}, C + "C11", "ort"),
    ("QLinearConv", (10,), {}, {"group": 0}, C + "C12", "ort"),
    ("QLinearConv", (10,), {"w": ([5, 2, 3, 3], U8), "B": arr([1, 2, 3, 4, 5], np.int32)}, {}, C + "C14", "ort"),
    ("QLinearConv", (10,), {"x": ([1, 6, 5, 5], U8)}, {}, C + "C13", "ort"),
    ("QLinearConv", (10,), {"B": arr([1, 2, 3, 4, 5], np.int32)}, {}, C + "C15", "ort"),
    ("QLinearConv", (10,), {"x_scale": f32([1, 2])}, {}, C + "C16", "ort"),
    ("QLinearConv", (10,), {"w_scale": f32([1, 2, 3, 4, 5]), "w_zero_point": u8([1, 2, 3, 4, 5])}, {}, C + "C17", "ort"),
    ("QLinearConv", (10,), {"w_zero_point": u8([1, 2])}, {}, C + "C18", "ort"),
    ("QLinearConv", (10,), {"y_zero_point": u8([1, 2])}, {}, C + "C19", "ort"),
    ("QLinearConv", (10,), {}, {"pads": None, "auto_pad": "SAME"}, "attribute 'auto_pad'", "ort"),
    # ---- MatMulInteger / QLinearMatMul ----
    ("MatMulInteger", (10,), {"B": ([4, 4], U8)}, {}, C + "C1", "onnx"),
    ("MatMulInteger", (10,), {"a_zero_point": u8([1, 2, 3])}, {}, C + "C2", "ort"),
    ("MatMulInteger", (10,), {"b_zero_point": u8([1, 2, 3])}, {}, C + "C3", "ort"),
    ("QLinearMatMul", (10, 21), {"b": ([4, 4], U8)}, {}, C + "C1", "onnx"),
    ("QLinearMatMul", (10, 21), {"a_scale": f32([1, 2])}, {}, C + "C2", "ort"),
    ("QLinearMatMul", (10, 21), {"b_scale": f32([1, 2, 3]), "b_zero_point": u8([1, 2, 3])}, {}, C + "C3", "ort"),
    # a per-column b_zero_point beside a per-tensor b_scale: onnx does not check it and onnxruntime runs it
    ("QLinearMatMul", (10, 21), {"b_zero_point": u8([1, 2, 3, 4])}, {}, C + "C4", None),
    ("QLinearMatMul", (10, 21), {"y_scale": f32([1, 2])}, {}, C + "C5", "ort"),
    # ---- QuantizeLinear / DequantizeLinear ----
    # a 1-D scale in version 10 (a scalar there): onnx does not check it and onnxruntime runs it per axis as in 13
    *[(op, (10,), {s: f32([1, 2, 3]), z: u8([1, 2, 3])}, {}, C + "C1", None)
      for op, s, z in (("QuantizeLinear", "y_scale", "y_zero_point"), ("DequantizeLinear", "x_scale", "x_zero_point"))],
    # (a [1] zero point beside a scalar scale is valid: ONNX's own node tests write it, e.g.
    # test_quantizelinear_e4m3fn; tests/test_onnx_node_tests.py runs them)
    *[(op, QV, {}, {"axis": 3}, C + "C1", "ort") for op in ("QuantizeLinear", "DequantizeLinear")],
    *[(op, vs, {s: f32([[1, 2, 3]]), z: u8([[1, 2, 3]])}, {}, C + c, "ort")
      for op, s, z in (("QuantizeLinear", "y_scale", "y_zero_point"), ("DequantizeLinear", "x_scale", "x_zero_point"))
      for vs, c in (((13, 19), "C2"), (BLK, "C3"))],
    *[(op, vs, {s: f32([1, 2, 3, 4]), z: u8([1, 2, 3, 4])}, {}, C + c, "ort")
      for op, s, z in (("QuantizeLinear", "y_scale", "y_zero_point"), ("DequantizeLinear", "x_scale", "x_zero_point"))
      for vs, c in (((13, 19), "C3"), (BLK, "C4"))],
    *[(op, vs, {z: u8([1, 2])}, {}, C + c, "ort")
      for op, z in (("QuantizeLinear", "y_zero_point"), ("DequantizeLinear", "x_zero_point"))
      for vs, c in (((13, 19), "C4"), (BLK, "C6"))],
    *[(op, BLK, {}, {"block_size": -1}, C + "C2", "ort") for op in ("QuantizeLinear", "DequantizeLinear")],
    *[(op, BLK, {s: f32(np.ones([2, 3, 4])), z: u8(np.ones([2, 3, 4]))}, {"block_size": 2}, C + "C5", "ort")
      for op, s, z in (("QuantizeLinear", "y_scale", "y_zero_point"), ("DequantizeLinear", "x_scale", "x_zero_point"))],
    ("QuantizeLinear", (19, 21, 23, 24, 25, 28), {}, {"saturate": 2}, "attribute 'saturate'", None),
    # ---- Upsample ----
    ("Upsample", (1,), {"X": [1, 1, 2]}, {}, C + "C1", None),  # no shape inference and no onnxruntime kernel for version 1
    ("Upsample", (1,), {}, {"height_scale": 0.5}, C + "C2", None),
    ("Upsample", (1,), {}, {"mode": "linear"}, "attribute 'mode'", None),
    ("Upsample", (7,), {}, {"scales": [1.0, 2.0]}, C + "C1", "onnx"),
    ("Upsample", (7,), {}, {"scales": [1.0, 1.0, 0.5, 3.0]}, C + "C2", "ort"),
    ("Upsample", (9,), {"scales": f32([2, 3])}, {}, C + "C1", "onnx"),
    ("Upsample", (9,), {"scales": f32([1, 1, 0.5, 3])}, {}, C + "C2", "ort"),
    # cubic: onnx does not check the value and onnxruntime's Upsample kernel accepts it
    ("Upsample", (7, 9), {}, {"mode": "cubic"}, "attribute 'mode'", None),
    # ---- Compress, ReverseSequence, Unique, Slice-1 ----
    # a 2-D condition: onnx does not check its rank and onnxruntime reads it flattened
    ("Compress", (9, 11, 28), {"condition": np.array([[True, False, True]])}, {}, C + "C1", None),
    ("Compress", (9, 11, 28), {}, {"axis": 2}, C + "C2", "ort"),
    ("ReverseSequence", (10, 28), {}, {"batch_axis": 1, "time_axis": 1}, C + "C1", "ort"),
    ("ReverseSequence", (10, 28), {"input": [4]}, {}, C + "C2", "onnx"),
    ("ReverseSequence", (10, 28), {"sequence_lens": arr([1, 2, 3])}, {}, C + "C3", "ort"),
    ("ReverseSequence", (10, 28), {}, {"batch_axis": 2}, "attribute 'batch_axis'", "ort"),
    ("ReverseSequence", (10, 28), {}, {"time_axis": 2}, "attribute 'time_axis'", "ort"),
    ("Unique", (11, 28), {}, {"axis": 2}, C + "C1", "onnx"),
    ("Unique", (11, 28), {}, {"sorted": 2}, "attribute 'sorted'", None),
    ("Slice", (10, 11, 13), {"axes": arr([0, 2])}, {}, C + "C1", "onnx"),
    ("Slice", (1,), {}, {"ends": [2]}, C + "C1", "onnx"),
    ("Slice", (1,), {}, {"axes": [0]}, C + "C2", "onnx"),
    ("Slice", (1,), {}, {"axes": [0, 2]}, C + "C3", "ort"),
    ("Slice", (1,), {}, {"axes": [1, 1]}, C + "C4", "ort"),
]


@pytest.mark.parametrize("op, opset, ins, attrs, expected, ref", [
    pytest.param(op, v, ins, attrs, expected, ref, id=f"{op}-{v}-{expected.split()[-1]}-{k}")
    for k, (op, vs, ins, attrs, expected, ref) in enumerate(CASES) for v in vs])
def test_violation_is_reported_once_at_its_place(op, opset, ins, attrs, expected, ref):
    m = build(op, opset, ins, attrs)
    assert where(m) == [expected]
    if ref == "onnx":
        if (op, opset) in NO_INFERENCE:
            return  # onnx has no shape inference for this version and onnxruntime no kernel: no reference
        assert onnx_rejects(m), "onnx accepts it"
    elif ref == "ort":
        if not onnx_rejects(m):
            if (op, opset) in NO_ORT:
                return  # onnxruntime has no kernel for this version: no reference
            assert not ort_rejects(build(op, opset)), "onnxruntime refuses the valid use as well"
            assert ort_rejects(m), "neither onnx nor onnxruntime refuses it"


# ---- output shapes: opgen's stated shape equals onnx's inferred one, and a wrong one is reported ----
SHAPE_CASES = [
    *[(op, tuple(v for v in REDUCE_V[op] if v < REDUCE_IN[op]), {}, a)
      for op in REDUCE for a in ({}, {"keepdims": 0}, {"axes": None}, {"axes": None, "keepdims": 0})],
    # versions with the axes input: the shape from the constant axes
    *[(op, tuple(v for v in REDUCE_V[op] if v >= REDUCE_IN[op]), ins, a) for op in REDUCE for ins, a in (
        ({}, {}), ({}, {"keepdims": 0}), ({"axes": arr([0])}, {"keepdims": 0}), ({"axes": ""}, {}),
        ({"axes": ""}, {"keepdims": 0}), ({"axes": arr([], np.int64)}, {"noop_with_empty_axes": 1}),
        ({"axes": ""}, {"noop_with_empty_axes": 1, "keepdims": 0}))],
    ("GlobalLpPool", (2, 22), {}, {}),
    ("LpPool", (2, 11), {}, {}),
    ("LpPool", (2, 11, 18, 22), {}, {"pads": None, "auto_pad": "SAME_UPPER"}),
    ("LpPool", (18, 22), {}, {"dilations": [2, 1], "ceil_mode": 1}),
    ("MaxRoiPool", (1, 22), {}, {}),
    ("RoiAlign", (10, 16, 22), {}, {}),
    ("GridSample", (16, 20, 22), {}, {}),
    ("GridSample", (20, 22), {"X": [1, 2, 4, 4, 4], "grid": [1, 2, 3, 5, 3]}, {}),
    ("AffineGrid", (20,), {}, {}),
    ("AffineGrid", (20,), {"theta": [2, 3, 4], "size": arr([2, 3, 4, 5, 6])}, {}),
    ("Col2Im", (18,), {}, {}),
    ("Col2Im", (18,), {"input": [1, 8, 9]}, {"strides": [2, 2], "pads": [1, 1, 1, 1]}),
    ("DeformConv", (19, 22), {}, {}),
    ("ConvInteger", (10,), {}, {}),
    ("ConvInteger", (10,), {}, {"pads": None, "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ("QLinearConv", (10,), {}, {}),
    ("MatMulInteger", (10,), {}, {}),
    ("MatMulInteger", (10,), {"A": ([5, 2, 3], U8), "a_zero_point": ""}, {}),
    ("QLinearMatMul", (10, 21), {}, {}),
    ("QuantizeLinear", (10, 13, 19, 21, 23, 24, 25, 28), {}, {}),
    ("DequantizeLinear", (10, 13, 19, 21, 23, 24, 25, 28), {}, {}),
    ("DynamicQuantizeLinear", (11,), {}, {}),
    ("Upsample", (7, 9), {}, {}),
    ("ReverseSequence", (10, 28), {}, {}),
    # Unique: onnx leaves the sizes unknown, onnxruntime (which runs up to opset 26) gives them; 28 shares 11's shape
    ("Unique", (11,), {}, {}),
    ("Unique", (11,), {}, {"axis": 1}),
    ("Slice", (1,), {}, {}),
    ("Slice", (1,), {"data": [5, 6, 7]}, {"starts": [-3, 1], "ends": [-1, 100], "axes": [-1, 0]}),
    ("Slice", (1,), {}, {"axes": None, "starts": [1], "ends": [-5]}),
    ("Slice", (10, 11, 13), {}, {}),
    ("Slice", (10, 11, 13), {"data": [4, 5, 6], "starts": arr([-100, 2]), "ends": arr([100, 3]), "axes": arr([-1, 0]),
                             "steps": ""}, {}),
    ("Slice", (10, 11, 13), {"data": [4, 5, 6], "starts": arr([10]), "ends": arr([-100]), "axes": "", "steps": arr([-3])},
     {}),
    ("Slice", (10, 11, 13), {"starts": arr([3]), "ends": arr([1]), "axes": arr([1]), "steps": ""}, {}),
]
# version 1 of GlobalLpPool / LpPool and Upsample have no shape inference in onnx: by hand
BY_HAND = {("GlobalLpPool", 1): {"Y": [2, 3, 1, 1]}, ("LpPool", 1): {"Y": [1, 2, 3, 3]},
           ("Upsample", 1): {"Y": [1, 1, 4, 9]}}


@pytest.mark.parametrize("op, opset, ins, attrs", [
    pytest.param(op, v, ins, attrs, id=f"{op}-{v}-{k}") for k, (op, vs, ins, attrs) in enumerate(SHAPE_CASES) for v in vs])
def test_output_shape_matches_onnx_and_a_wrong_one_is_reported(op, opset, ins, attrs):
    m = build(op, opset, ins, attrs)
    assert where(m) == []
    shapes = {k: v for k, v in onnx_shapes(m).items() if v is not None and None not in v}
    from_onnx = bool(shapes)
    if not shapes:  # onnx leaves it unknown (Unique, Slice-1 with negative axes): onnxruntime's result is the reference
        shapes = ort_shapes(m)
    if op == "Unique":
        shapes = {"inverse_indices": shapes["inverse_indices"]}
    assert shapes
    check_shapes(op, opset, ins, attrs, shapes, onnx_checks=from_onnx)


def ort_shapes(m) -> dict:
    feeds = {}
    for i in m.graph.input:
        t = i.type.tensor_type
        feeds[i.name] = np.arange(np.prod([d.dim_value for d in t.shape.dim]), dtype=NP[t.elem_type]).reshape(
            [d.dim_value for d in t.shape.dim])
    results = ort_session(m).run(None, feeds)
    return {o.name: list(r.shape) for o, r in zip(m.graph.output, results)}


@pytest.mark.parametrize("op, opset", list(BY_HAND))
def test_output_shape_of_versions_without_onnx_inference(op, opset):
    check_shapes(op, opset, {}, {}, BY_HAND[(op, opset)], onnx_checks=False)


def check_shapes(op, opset, ins, attrs, shapes, onnx_checks):
    assert where(build(op, opset, ins, attrs, declared=shapes)) == []
    for name, want in shapes.items():
        wrong = [*want[:-1], want[-1] + 1] if want else [1]
        bad = build(op, opset, ins, attrs, declared={**shapes, name: wrong})
        assert where(bad) == [f"output '{name}'"]
        if onnx_checks:
            assert onnx_rejects(bad)  # strict shape inference refuses a declared shape it contradicts


@pytest.mark.parametrize("op, opset, attr, values", [
    ("RoiAlign", 22, "mode", ["avg", "max"]),
    ("RoiAlign", 22, "coordinate_transformation_mode", ["half_pixel", "output_half_pixel"]),
    ("GridSample", 22, "mode", ["linear", "nearest", "cubic"]),
    ("GridSample", 16, "mode", ["bilinear", "nearest", "bicubic"]),
    ("GridSample", 22, "padding_mode", ["zeros", "border", "reflection"]),
    ("Upsample", 9, "mode", ["nearest", "linear"]),
    ("ConvInteger", 10, "auto_pad", ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]),
    ("LpPool", 22, "auto_pad", ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]),
])
def test_every_listed_value_is_accepted(op, opset, attr, values):
    for value in values:
        attrs = {attr: value}
        if attr == "auto_pad":
            attrs["pads"] = None
        m = build(op, opset, {}, attrs)
        assert where(m) == [], value
        assert not onnx_rejects(m), value
        if (op, opset) not in NO_ORT:
            assert not ort_rejects(m), value
