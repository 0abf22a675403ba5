"""Every ONNX op version whose spec states multidirectional broadcasting (a `multidirectional_broadcast`
rule) rejects inputs that do not broadcast, at that constraint, and accepts ones that do; onnx's strict
shape inference is the independent reference for both verdicts."""
from __future__ import annotations

import onnx
import onnx.shape_inference
import pytest
from onnx import helper

from opgen.validate import validate_model

from conftest import project_specs

ONNX = project_specs().domain("onnx")
PREFERRED = ["float", "int64", "int32", "bool", "uint8", "double", "string"]
CODES = {name.lower(): code for name, code in onnx.TensorProto.DataType.items()}
EXTRA = {"BitShift": {"direction": "LEFT"}, "Mod": {"fmod": 1}}  # required, or needed for float inputs


def cases():
    for op in ONNX.ops:
        for v in op.versions:
            for c in v.constraints:
                if c.rule == "multidirectional_broadcast":
                    yield pytest.param(v, c, id=f"{v.key}-{c.id}")


def elem(v, p) -> str:
    allowed = [t[7:-1] for t in v.allowed_types(p) if t.startswith("tensor(")]
    return next(t for t in PREFERRED + allowed if t in allowed)


def model(v, params, shapes):
    """One node of the version: the broadcast parameters get `shapes` in turn, other inputs [2, 3]."""
    inputs, names = [], []
    variadic = [p for p in v.inputs if p.option == "variadic"]
    k = 0
    for p in v.inputs:
        if p.option == "optional":
            continue
        count = len(shapes) if p.option == "variadic" else 1
        for j in range(count):
            name = f"{p.name}_{j}" if p.option == "variadic" else p.name
            shape = shapes[k] if p.name in params else [2, 3]
            k += p.name in params
            inputs.append(helper.make_tensor_value_info(name, CODES[elem(v, p)], shape))
            names.append(name)
    assert variadic or k == len(shapes)
    node = helper.make_node(v.op, names, [v.outputs[0].name], **EXTRA.get(v.op, {}))
    out = helper.make_value_info(v.outputs[0].name, onnx.TypeProto())
    graph = helper.make_graph([node], "g", inputs, [out])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", v.since_version)])


def infers(m) -> bool:
    try:
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
        return True
    except onnx.shape_inference.InferenceError:
        return False


@pytest.mark.parametrize("v,c", list(cases()))
def test_non_broadcastable_inputs_are_rejected_at_the_constraint(v, c):
    params = dict(c.args)["params"]
    count = 2 if len(params) == 1 else len(params)  # a variadic parameter: two tensors
    good = model(v, params, [[2, 3]] + [[3]] * (count - 1))
    bad = model(v, params, [[2, 3]] + [[4]] * (count - 1))
    assert validate_model(good).problems == [] and infers(good)
    report = validate_model(bad)
    assert [(r.op, r.where) for r in report.problems] == [(v.key, f"constraint {c.id}")], report.to_text()
    assert not infers(bad)  # onnx's own inference refuses it too
