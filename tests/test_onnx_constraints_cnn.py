"""Constraints, attribute value lists and output shapes of the CNN ops of the ONNX specs.

Conv, ConvTranspose, MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool, BatchNormalization,
InstanceNormalization, Resize, Pad, Flatten, Softmax, LogSoftmax and Concat (opset 11 on). For
every numbered constraint, attribute value list and stated output shape a small model breaks it
and opgen must report it at that constraint / attribute / output (and nothing else); a valid model
of the same op must pass opgen and onnx.checker. As an independent reference, onnx (strict shape
inference with type checks, or the full checker) or onnxruntime (session creation or a run) must
refuse each broken model, except where a case says that no reference checks it.
"""
from __future__ import annotations


import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper


from onnx_cases import arr, onnx_rejects, onnx_shapes, ort_rejects, where  # noqa: F401
from onnx_refs import ort_session  # noqa: F401

F = TensorProto.FLOAT


def model(op, opset, ins, attrs=None, outs=("Y",), declared=None):
    """One-node model. ins: name -> shape (a graph input, float) or ndarray (an initializer);
    "" for an omitted optional input. declared: output name -> declared shape (None: unknown)."""
    names, inputs, inits = [], [], []
    for name, v in ins.items():
        if isinstance(v, str):
            names.append("")
            continue
        names.append(name)
        if isinstance(v, np.ndarray):
            inits.append(numpy_helper.from_array(v, name))
        else:
            inputs.append(helper.make_tensor_value_info(name, F, v))
    node = helper.make_node(op, names, list(outs), **{k: v for k, v in (attrs or {}).items() if v is not None})
    declared = declared or {}
    # onnx.checker wants a shape on graph outputs: an undeclared one gets named (unknown) dimensions,
    # as many as the op's output has (the first input's rank; 2 for Flatten)
    rank = 2 if op == "Flatten" else len(next(v for v in ins.values() if isinstance(v, list)))
    out_infos = [helper.make_tensor_value_info(o, F, declared.get(o, [f"{o}{k}" for k in range(rank)]))
                 for o in outs]
    graph = helper.make_graph([node], "g", inputs, out_infos, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


# ---- valid base uses, per op: (inputs, attributes, outputs) ----
BASE = {
    "Conv": ({"X": [1, 4, 5, 5], "W": [6, 2, 3, 3], "B": [6]},
             {"group": 2, "pads": [1, 0, 1, 0], "strides": [2, 1], "dilations": [1, 2]}, ("Y",)),
    "ConvTranspose": ({"X": [1, 4, 3, 3], "W": [4, 3, 2, 2], "B": [6]},
                      {"group": 2, "pads": [1, 0, 0, 1], "strides": [2, 1], "output_padding": [1, 0]}, ("Y",)),
    "MaxPool": ({"X": [1, 2, 6, 5]}, {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "strides": [2, 2]}, ("Y",)),
    "AveragePool": ({"X": [1, 2, 6, 5]}, {"kernel_shape": [3, 2], "pads": [1, 0, 1, 1], "strides": [2, 2]}, ("Y",)),
    "GlobalAveragePool": ({"X": [2, 3, 4, 5]}, {}, ("Y",)),
    "GlobalMaxPool": ({"X": [2, 3, 4]}, {}, ("Y",)),
    "BatchNormalization": ({"X": [2, 3, 4, 4], "scale": [3], "B": [3], "mean": [3], "var": [3]}, {}, ("Y",)),
    "InstanceNormalization": ({"X": [2, 3, 4], "scale": [3], "B": [3]}, {}, ("Y",)),
    "Resize": ({"X": [1, 1, 2, 2], "roi": arr([], np.float32), "scales": arr([1, 1, 2, 2], np.float32)}, {}, ("Y",)),
    "Pad": ({"X": [2, 3], "pads": arr([0, 1, 1, 0])}, {}, ("Y",)),
    "Flatten": ({"X": [2, 3, 4]}, {"axis": 2}, ("Y",)),
    "Softmax": ({"X": [2, 3, 4]}, {"axis": 1}, ("Y",)),
    "LogSoftmax": ({"X": [2, 3, 4]}, {"axis": -1}, ("Y",)),
    "Concat": ({"A": [2, 3], "B": [2, 4]}, {"axis": 1}, ("Y",)),
}
# versions whose inputs differ from the newest ones
BASE_V = {
    ("Resize", 10): ({"X": [1, 1, 2, 2], "scales": arr([1, 1, 2, 2], np.float32)}, {}, ("Y",)),
    ("Pad", 2): ({"X": [2, 3]}, {"pads": [0, 1, 1, 0]}, ("Y",)),
    ("Pad", 1): ({"X": [2, 3]}, {"paddings": [0, 1, 1, 0]}, ("Y",)),
    ("BatchNormalization", 1): ({"X": [2, 3, 4, 4], "scale": [3], "B": [3], "mean": [3], "var": [3]},
                                {"consumed_inputs": [0, 0, 0, 1, 1]}, ("Y",)),
}
OPSETS = {
    "Conv": (1, 11, 22), "ConvTranspose": (1, 11, 22), "MaxPool": (1, 8, 10, 11, 12, 22),
    "AveragePool": (1, 7, 10, 11, 19, 22), "GlobalAveragePool": (1, 22), "GlobalMaxPool": (1, 22),
    "BatchNormalization": (1, 6, 7, 9, 14, 15), "InstanceNormalization": (1, 6, 22), "Resize": (10, 11, 13, 18, 19),
    "Pad": (1, 2, 11, 13, 18, 19, 21, 23, 24, 25), "Flatten": (1, 9, 11, 13, 21, 23, 24, 25),
    "Softmax": (1, 11, 13), "LogSoftmax": (1, 11, 13), "Concat": (1, 4, 11, 13),
}


OUT = {"InstanceNormalization": "output", "Softmax": "output", "LogSoftmax": "output", "Pad": "output"}  # the spec's output names


def build(op, opset, ins=None, attrs=None, declared=None):
    base_ins, base_attrs, outs = BASE_V.get((op, opset), BASE[op])
    i = {**base_ins, **(ins or {})}
    i = {k: v for k, v in i.items() if v is not None}
    a = {**base_attrs, **(attrs or {})}
    return model(op, opset, i, a, outs, declared)


@pytest.mark.parametrize("op, opset", [(op, v) for op, vs in OPSETS.items() for v in vs])
def test_valid_base_use_passes_opgen_and_onnx(op, opset):
    m = build(op, opset)
    assert where(m) == []
    assert not onnx_rejects(m)
    declared = {k: v for k, v in onnx_shapes(m).items() if None not in v}  # none: no shape inference in onnx
    m2 = build(op, opset, declared=declared)  # the shape onnx infers is the shape opgen states (or accepts)
    assert where(m2) == []
    onnx.checker.check_model(m2, full_check=True)


# (op, opsets, input changes, attribute changes, where opgen reports it, reference)
# reference: "onnx" (checker / strict shape inference), "ort" (onnxruntime refuses or fails at run),
# None: no reference detects it (the comment says why).
C = "constraint "
CASES = [
    # ---- Conv ----
    ("Conv", (1, 11, 22), {"X": [1, 4], "W": [6, 2], "B": [6]}, {"pads": None, "strides": None, "dilations": None}, C + "C1", "onnx"),
    ("Conv", (1, 11, 22), {"W": [6, 2, 3]}, {}, C + "C2", "onnx"),
    ("Conv", (1, 11, 22), {}, {"kernel_shape": [3]}, C + "C3", "onnx"),
    ("Conv", (1, 11, 22), {}, {"kernel_shape": [3, 2]}, C + "C4", "ort"),
    ("Conv", (1, 11, 22), {}, {"strides": [1]}, C + "C5", "onnx"),
    ("Conv", (1, 11, 22), {}, {"strides": [0, 1]}, C + "C6", "onnx"),
    ("Conv", (1, 11, 22), {}, {"dilations": [1]}, C + "C7", "onnx"),
    ("Conv", (1, 11, 22), {}, {"dilations": [1, 0]}, C + "C8", "onnx"),
    ("Conv", (1, 11, 22), {}, {"pads": [1, 1]}, C + "C9", "onnx"),
    ("Conv", (1, 11, 22), {}, {"pads": [1, 0, -1, 0]}, C + "C10", "onnx"),
    ("Conv", (1, 11, 22), {}, {"auto_pad": "VALID"}, C + "C11", "ort"),
    ("Conv", (1, 11, 22), {}, {"group": 0}, C + "C12", "ort"),
    ("Conv", (1, 11, 22), {"X": [1, 5, 5, 5]}, {}, C + "C13", "ort"),
    ("Conv", (1, 11, 22), {"W": [5, 2, 3, 3], "B": [5]}, {}, C + "C14", "ort"),
    ("Conv", (1, 11, 22), {"B": [5]}, {}, C + "C15", "ort"),
    ("Conv", (1, 11, 22), {}, {"pads": None, "auto_pad": "SAME"}, "attribute 'auto_pad'", "ort"),
    # ---- ConvTranspose ----
    ("ConvTranspose", (1, 11, 22), {"X": [1, 4], "W": [4, 3], "B": [6]},
     {"pads": None, "strides": None, "output_padding": None}, C + "C1", "onnx"),
    ("ConvTranspose", (1, 11, 22), {"W": [4, 3, 2]}, {}, C + "C2", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"kernel_shape": [2]}, C + "C3", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"kernel_shape": [2, 3]}, C + "C4", "ort"),
    ("ConvTranspose", (1, 11, 22), {}, {"strides": [2]}, C + "C5", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"strides": [0, 1], "output_padding": None}, C + "C6", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"dilations": [1]}, C + "C7", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"dilations": [1, 0]}, C + "C8", "ort"),
    ("ConvTranspose", (1, 11, 22), {}, {"pads": [1, 1]}, C + "C9", "onnx"),
    # ConvTranspose: negative pads (C10) are refused by neither onnx's shape inference nor onnxruntime
    # (which crops); ONNX's text asks for non-negative padding.
    ("ConvTranspose", (1, 11, 22), {}, {"pads": [1, 0, -1, 0]}, C + "C10", None),
    ("ConvTranspose", (1, 11, 22), {}, {"auto_pad": "SAME_UPPER"}, C + "C11", "ort"),
    ("ConvTranspose", (1, 11, 22), {}, {"output_padding": [1]}, C + "C12", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"output_shape": [6]}, C + "C13", "onnx"),
    ("ConvTranspose", (1, 11, 22), {}, {"group": 0}, C + "C14", "ort"),
    ("ConvTranspose", (1, 11, 22), {"W": [3, 3, 2, 2]}, {}, C + "C15", "ort"),
    ("ConvTranspose", (1, 11, 22), {"X": [1, 3, 3, 3], "W": [3, 3, 2, 2]}, {}, C + "C16", "ort"),
    ("ConvTranspose", (1, 11, 22), {"B": [3]}, {}, C + "C17", "ort"),
    ("ConvTranspose", (1, 11, 22), {}, {"pads": None, "auto_pad": "same"}, "attribute 'auto_pad'", "ort"),
    # ---- MaxPool / AveragePool (no dilations before AveragePool 19: numbers shift by two) ----
    *[(op, vs, {"X": [1, 2]}, {"kernel_shape": [2], "pads": None, "strides": None}, C + "C1", "onnx")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    *[(op, vs, {}, {"kernel_shape": [3]}, C + "C2", "onnx")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    *[(op, vs, {}, {"kernel_shape": [3, 0]}, C + "C3", "ort")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    *[(op, vs, {}, {"strides": [2]}, C + "C4", "onnx")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    *[(op, vs, {}, {"strides": [2, 0]}, C + "C5", "onnx")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    *[(op, vs, {}, {"dilations": [1]}, C + "C6", "onnx")
      for op, vs in (("MaxPool", (10, 11, 12, 22)), ("AveragePool", (19, 22)))],
    *[(op, vs, {}, {"dilations": [1, 0]}, C + "C7", "onnx")
      for op, vs in (("MaxPool", (10, 11, 12, 22)), ("AveragePool", (19, 22)))],
    *[(op, vs, {}, {"pads": [1, 1]}, C + c, "onnx")
      for op, vs, c in (("MaxPool", (10, 11, 12, 22), "C8"), ("AveragePool", (19, 22), "C8"),
                        ("MaxPool", (1, 8), "C6"), ("AveragePool", (1, 7, 10, 11), "C6"))],
    *[(op, vs, {}, {"pads": [1, 0, -1, 0]}, C + c, "onnx")
      for op, vs, c in (("MaxPool", (10, 11, 12, 22), "C9"), ("AveragePool", (19, 22), "C9"),
                        ("MaxPool", (1, 8), "C7"), ("AveragePool", (1, 7, 10, 11), "C7"))],
    # pads beside auto_pad (ONNX: "cannot be used simultaneously"): onnx and onnxruntime's pools ignore pads then
    *[(op, vs, {}, {"auto_pad": "VALID"}, C + c, None)
      for op, vs, c in (("MaxPool", (10, 11, 12, 22), "C10"), ("AveragePool", (19, 22), "C10"),
                        ("MaxPool", (1, 8), "C8"), ("AveragePool", (1, 7, 10, 11), "C8"))],
    ("MaxPool", (10, 11, 12, 22), {}, {"storage_order": 2}, C + "C11", "ort"),
    ("MaxPool", (8,), {}, {"storage_order": 2}, C + "C9", "ort"),
    *[(op, vs, {}, {"pads": None, "auto_pad": "FULL"}, "attribute 'auto_pad'", "ort")
      for op, vs in (("MaxPool", (1, 8, 10, 11, 12, 22)), ("AveragePool", (1, 7, 10, 11, 19, 22)))],
    # ---- global pools ----
    *[(op, (1, 22), {"X": [2, 3]}, {}, C + "C1", "ort") for op in ("GlobalAveragePool", "GlobalMaxPool")],
    # ---- normalization ----
    *[("BatchNormalization", (1, 6, 7, 9, 14, 15), {name: [4]}, {}, C + c, "ort")
      for name, c in (("scale", "C1"), ("B", "C2"), ("mean", "C3"), ("var", "C4"))],
    ("InstanceNormalization", (1, 6, 22), {"X": [2, 3], "scale": [3], "B": [3]}, {}, C + "C1", "ort"),
    ("InstanceNormalization", (1, 6, 22), {"scale": [2]}, {}, C + "C2", "ort"),
    ("InstanceNormalization", (1, 6, 22), {"B": [2]}, {}, C + "C3", "ort"),
    # ---- Resize ----
    ("Resize", (11, 13, 18, 19), {}, {"mode": "bilinear"}, "attribute 'mode'", "ort"),
    ("Resize", (11, 13, 18, 19), {}, {"coordinate_transformation_mode": "corners"},
     "attribute 'coordinate_transformation_mode'", "ort"),
    # A mode of another version: onnxruntime implements every mode in every version and onnx does not
    # check the value; the list follows each version's own text.
    ("Resize", (11,), {}, {"coordinate_transformation_mode": "half_pixel_symmetric"},
     "attribute 'coordinate_transformation_mode'", None),
    ("Resize", (13, 18), {}, {"coordinate_transformation_mode": "tf_half_pixel_for_nn"},
     "attribute 'coordinate_transformation_mode'", None),
    ("Resize", (11, 13, 18, 19), {}, {"nearest_mode": "round"}, "attribute 'nearest_mode'", "ort"),
    ("Resize", (18, 19), {}, {"keep_aspect_ratio_policy": "fit"}, "attribute 'keep_aspect_ratio_policy'", "onnx"),
    ("Resize", (18, 19), {"scales": arr([2, 2], np.float32)}, {"axes": [2, 4]}, C + "C1", "onnx"),
    ("Resize", (18, 19), {"scales": arr([2, 2], np.float32)}, {"axes": [2, -2]}, C + "C2", "onnx"),
    *[("Resize", vs, {"sizes": arr([1, 1, 4, 4])}, {}, C + c, "ort")
      for vs, c in (((11, 13), "C1"), ((18, 19), "C3"))],  # onnx 11 does not check it; onnxruntime does
    *[("Resize", vs, {"scales": arr([2, 2], np.float32)}, {}, C + c, "onnx")
      for vs, c in (((11, 13), "C2"), ((18, 19), "C4"))],
    *[("Resize", vs, {"scales": "", "sizes": arr([4, 4])}, {}, C + c, "onnx")
      for vs, c in (((13,), "C3"), ((18, 19), "C5"))],
    ("Resize", (11,), {"scales": arr([], np.float32), "sizes": arr([4, 4])}, {}, C + "C3", "onnx"),
    # cubic in version 10 (its text lists nearest and linear): onnxruntime runs it, onnx does not check the value
    ("Resize", (10,), {}, {"mode": "cubic"}, "attribute 'mode'", None),
    ("Resize", (10,), {"scales": arr([2, 2], np.float32)}, {}, C + "C1", "onnx"),
    # ---- Pad ----
    ("Pad", (2,), {}, {"pads": [0, 1, 1]}, C + "C1", "onnx"),
    # Pad 1: onnx has no shape inference for it and onnxruntime no kernel; wrap in Pad 2: onnxruntime runs it
    ("Pad", (1,), {}, {"paddings": [0, 1, 1]}, C + "C1", None),
    ("Pad", (1, 2), {}, {"mode": "wrap"}, "attribute 'mode'", None),
    # wrap before version 19: onnxruntime implements it in every version and onnx does not check the value
    ("Pad", (11, 13, 18), {}, {"mode": "wrap"}, "attribute 'mode'", None),
    ("Pad", (11, 13, 18, 19, 21, 23, 24, 25), {}, {"mode": "symmetric"}, "attribute 'mode'", "ort"),
    ("Pad", (11, 13, 18, 19, 21, 23, 24, 25), {"pads": arr([0, 1, 1])}, {}, C + "C1", "onnx"),
    ("Pad", (18, 19, 21, 23, 24, 25), {"pads": arr([1, 1]), "constant_value": "", "axes": arr([[1]])}, {},
     C + "C2", "ort"),
    # ---- Flatten, Softmax, LogSoftmax, Concat ----
    ("Flatten", (1, 9, 11, 13, 21, 23, 24, 25), {}, {"axis": 4}, C + "C1", "onnx"),
    ("Flatten", (1, 9), {}, {"axis": -1}, C + "C1", "onnx"),
    ("Flatten", (11, 13, 21, 23, 24, 25), {}, {"axis": -4}, C + "C1", "onnx"),
    *[(op, (1, 11, 13), {}, {"axis": a}, C + "C1", "ort") for op in ("Softmax", "LogSoftmax") for a in (3, -4)],
    ("Concat", (1, 4, 11, 13), {}, {"axis": 2}, C + "C1", "ort"),
    ("Concat", (1, 4, 11, 13), {"B": [3, 4]}, {}, C + "C1", "ort"),
    ("Concat", (1, 4, 11, 13), {"B": [2, 4, 1]}, {}, C + "C1", "ort"),
]


@pytest.mark.parametrize("op, opset, ins, attrs, expected, ref", [
    pytest.param(op, v, ins, attrs, expected, ref, id=f"{op}-{v}-{expected.split()[-1]}-{k}")
    for k, (op, vs, ins, attrs, expected, ref) in enumerate(CASES) for v in vs])
def test_violation_is_reported_once_at_its_place(op, opset, ins, attrs, expected, ref):
    m = build(op, opset, ins, attrs)
    assert where(m) == [expected]
    if ref == "onnx":
        assert onnx_rejects(m), "onnx accepts it"
    elif ref == "ort":
        if not onnx_rejects(m):
            if ort_rejects(build(op, opset)):
                return  # onnxruntime has no kernel for this version (AveragePool 1, InstanceNormalization 1, Pad 1): no reference
            # onnxruntime must run the valid base use of this version, so that its refusal is about the fault
            assert not ort_rejects(build(op, opset)), "onnxruntime refuses the valid use as well"
            assert ort_rejects(m), "neither onnx nor onnxruntime refuses it"


# ---- output shapes: opgen's stated shape equals onnx's inferred one, and a wrong one is reported ----
SHAPE_CASES = [
    ("Conv", (1, 11, 22), {}, {}),
    ("Conv", (1, 11, 22), {}, {"pads": None, "auto_pad": "SAME_UPPER", "strides": [2, 2]}),
    ("Conv", (1, 11, 22), {}, {"pads": None, "auto_pad": "SAME_LOWER", "strides": [2, 3], "dilations": None}),
    ("Conv", (1, 11, 22), {}, {"pads": None, "auto_pad": "VALID"}),
    ("Conv", (1, 11, 22), {"X": [2, 2, 9], "W": [3, 2, 4], "B": [3]}, {"group": 1, "pads": [2, 1], "strides": [3], "dilations": [2]}),
    ("ConvTranspose", (1, 11, 22), {}, {}),
    ("ConvTranspose", (1, 11, 22), {}, {"pads": None, "auto_pad": "VALID", "dilations": [2, 1]}),
    ("ConvTranspose", (1, 11, 22), {}, {"pads": None, "output_padding": None, "auto_pad": "SAME_UPPER", "strides": [2, 3]}),
    ("ConvTranspose", (1, 11, 22), {}, {"output_shape": [7, 4]}),
    *[(op, vs, {}, {"pads": None, "auto_pad": a}) for op, vs in (("MaxPool", (1, 8)), ("AveragePool", (1, 7)))
      for a in ("NOTSET", "SAME_UPPER", "VALID")],
    *[(op, vs, {}, {}) for op, vs in (("MaxPool", (1, 8)), ("AveragePool", (1, 7)))],
    *[(op, vs, {}, a) for op, vs in (("MaxPool", (10, 11, 12, 22)), ("AveragePool", (10, 11, 19, 22))) for a in (
        {}, {"ceil_mode": 1}, {"pads": None, "auto_pad": "SAME_UPPER"}, {"pads": None, "auto_pad": "VALID", "strides": [1, 2]},
        {"pads": [0, 0, 1, 1], "strides": [2, 2], "kernel_shape": [1, 1], "ceil_mode": 1})],
    *[(op, vs, {}, {"dilations": [2, 1], "ceil_mode": 1}) for op, vs in (("MaxPool", (10, 11, 12, 22)), ("AveragePool", (19, 22)))],
    ("MaxPool", (10, 11, 12, 22), {"X": [1, 1, 4]}, {"kernel_shape": [1], "strides": [2], "pads": [0, 1], "ceil_mode": 1}),
    ("GlobalAveragePool", (1, 22), {}, {}),
    ("GlobalMaxPool", (1, 22), {"X": [1, 2, 3, 4, 5]}, {}),
    ("BatchNormalization", (7, 9, 14, 15), {}, {}),
    ("BatchNormalization", (7,), {"scale": [3, 4, 4], "B": [3, 4, 4], "mean": [3, 4, 4], "var": [3, 4, 4]}, {"spatial": 0}),
    ("BatchNormalization", (9, 14, 15), {"X": [5], "scale": [1], "B": [1], "mean": [1], "var": [1]}, {}),
    ("InstanceNormalization", (1, 6, 22), {}, {}),
    ("Pad", (1, 2), {"X": [2, 3, 4]}, {"paddings": [0, 1, 2, 1, -1, 0]}),
    ("Softmax", (1, 11, 13), {}, {}),
    ("LogSoftmax", (1, 11, 13), {}, {}),
]


# The shape by hand where onnx's version 1 has no shape inference.
NO_INFERENCE = {"InstanceNormalization": [2, 3, 4], "Pad": [3, 3, 6]}


@pytest.mark.parametrize("op, opset, ins, attrs", [
    pytest.param(op, v, ins, attrs, id=f"{op}-{v}-{k}") for k, (op, vs, ins, attrs) in enumerate(SHAPE_CASES) for v in vs])
def test_output_shape_matches_onnx_and_a_wrong_one_is_reported(op, opset, ins, attrs):
    if op == "Pad" and opset == 2:
        attrs = {"pads": attrs["paddings"]}
    m = build(op, opset, ins, attrs)
    assert where(m) == []
    want = onnx_shapes(m)["Y"]
    if opset == 1 and op in NO_INFERENCE:  # onnx has no shape inference for these versions
        want = NO_INFERENCE[op]
    assert want and all(d > 0 for d in want)
    assert where(build(op, opset, ins, attrs, declared={"Y": want})) == []
    wrong = [*want[:-1], want[-1] + 1]
    bad = build(op, opset, ins, attrs, declared={"Y": wrong})
    assert where(bad) == [f"output '{OUT.get(op, 'Y')}'"]
    if not (opset == 1 and op in NO_INFERENCE):
        assert onnx_rejects(bad)  # strict shape inference refuses a declared shape it contradicts


def test_maxpool_indices_and_batchnorm_statistics_have_their_shapes():
    m = model("MaxPool", 22, {"X": [1, 2, 6, 5]}, {"kernel_shape": [3, 2], "strides": [2, 2]}, ("Y", "I"),
              {"Y": [1, 2, 2, 2], "I": [1, 2, 2, 3]})
    assert where(m) == ["output 'Indices'"]
    assert onnx_rejects(m)
    ins = {"X": [2, 3, 4], "scale": [3], "B": [3], "mean": [3], "var": [3]}
    m = model("BatchNormalization", 15, ins, {"training_mode": 1}, ("Y", "rm", "rv"), {"Y": [2, 3, 4], "rm": [3], "rv": [4]})
    assert where(m) == ["output 'running_var'"]
    assert onnx_rejects(m)
    ok = model("BatchNormalization", 15, ins, {"training_mode": 1}, ("Y", "rm", "rv"), {"Y": [2, 3, 4], "rm": [3], "rv": [3]})
    assert where(ok) == [] and not onnx_rejects(ok)


@pytest.mark.parametrize("op, opset, attr, values", [
    ("Conv", 22, "auto_pad", ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"]),
    ("Resize", 19, "coordinate_transformation_mode", ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel",
                                                       "align_corners", "asymmetric", "tf_crop_and_resize"]),
    ("Resize", 19, "mode", ["nearest", "linear", "cubic"]),
    ("Resize", 19, "nearest_mode", ["round_prefer_floor", "round_prefer_ceil", "floor", "ceil"]),
    ("Resize", 19, "keep_aspect_ratio_policy", ["stretch", "not_larger", "not_smaller"]),
    ("Pad", 19, "mode", ["constant", "reflect", "edge", "wrap"]),
    ("Pad", 11, "mode", ["constant", "reflect", "edge"]),
])
def test_every_listed_value_is_accepted(op, opset, attr, values):
    for value in values:
        attrs = {attr: value}
        if attr == "auto_pad":
            attrs["pads"] = None
        if op == "Resize" and value == "tf_crop_and_resize":
            continue  # needs a roi of 2 * rank values
        ins = {"scales": "", "sizes": arr([1, 1, 3, 3])} if attr == "keep_aspect_ratio_policy" else {}
        m = build(op, opset, ins, attrs)
        assert where(m) == [], value
        assert not onnx_rejects(m), value
