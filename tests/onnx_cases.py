"""Builders and reference verdicts shared by the ONNX constraint tests (tests/test_onnx_constraints_*.py):
one-node models, what opgen reports about them, and whether onnx's own machinery (strict shape
inference, the full checker, onnxruntime) refuses them."""
from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from opgen.validate import validate_model

from onnx_refs import ort_session

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
NP = {F: np.float32, I64: np.int64, B: np.bool_, TensorProto.INT32: np.int32, TensorProto.UINT8: np.uint8,
      TensorProto.INT8: np.int8, TensorProto.DOUBLE: np.float64, TensorProto.FLOAT16: np.float16}


def arr(values: Any, dtype: Any = np.int64) -> np.ndarray:
    return np.asarray(values, dtype)


def typed(spec: Any, elem: int = F) -> tuple[int, Any]:
    """A shape, or (element type, shape)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], int) and not isinstance(spec[1], int):
        return spec
    return elem, spec


def _default_out_elem(op: str, name: str) -> int:
    return I64 if name == "Indices" else F


def build(op: str, opset: int, inputs: dict[str, Any], attrs: dict[str, Any] | None = None,
          outputs: dict[str, Any] | None = None, inits: dict[str, Any] | None = None,
          out_elem: Callable[[str, str], int] = _default_out_elem) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node model and feeds for it. inputs: name -> shape or (elem, shape), in order ("" skips an
    optional input); inits: name -> array (constant inputs); outputs: name -> shape or (elem, shape)
    (None: undeclared shape); out_elem gives an output's element type where the spec is not a pair."""
    inits = inits or {}
    names, graph_inputs, feeds = [], [], {}
    for name, spec in inputs.items():
        if spec == "":
            names.append("")
            continue
        names.append(name)
        if name in inits:
            continue
        elem, shape = typed(spec)
        graph_inputs.append(helper.make_tensor_value_info(name, elem, shape))
        feeds[name] = np.zeros(shape, NP[elem])
    outs = outputs or {"out": None}
    declared = {name: typed(spec, out_elem(op, name)) for name, spec in outs.items()}
    node = helper.make_node(op, names, list(outs), **(attrs or {}))
    graph = helper.make_graph(
        [node], "g", graph_inputs,
        [helper.make_tensor_value_info(n, elem, shape) for n, (elem, shape) in declared.items()],
        initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in inits.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    return model, feeds


def errors(model: onnx.ModelProto) -> list[str]:
    return [r.where for r in validate_model(model).records if r.severity == "error"]


def where(m: onnx.ModelProto) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [r.where for r in validate_model(m).problems]


def rejection(model: onnx.ModelProto, feeds: dict[str, np.ndarray], ort: bool = True,
              ort_max_opset: int | None = None) -> str | None:
    """Why onnx's own machinery refuses the model (None when it accepts it): strict shape inference with
    type checks, the full checker (only when every graph output declares a shape: it requires one), or
    onnxruntime creating a session and running it (ort=False where onnxruntime lacks the kernel; not
    for opsets above ort_max_opset)."""
    try:
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception as exc:
        return f"shape inference: {exc}"
    if all(o.type.tensor_type.HasField("shape") for o in model.graph.output):
        try:
            onnx.checker.check_model(model, full_check=True)
        except Exception as exc:
            return f"checker: {exc}"
    if ort and (ort_max_opset is None or model.opset_import[0].version <= ort_max_opset):
        try:
            ort_session(model).run(None, feeds)
        except Exception as exc:
            return f"onnxruntime: {exc}"
    return None


def onnx_rejects(m: onnx.ModelProto) -> bool:
    """The full checker or strict shape inference refuses the model."""
    try:
        onnx.checker.check_model(m, full_check=True)
        onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    except Exception:  # noqa: BLE001  (any refusal counts)
        return True
    return False


def ort_rejects(m: onnx.ModelProto) -> bool:
    """onnxruntime refuses to build or run the model (integer inputs fed zeros, others ones)."""
    feeds = {}
    for i in m.graph.input:
        t = i.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = NP[t.elem_type]
        feeds[i.name] = np.zeros(shape, dtype) if np.issubdtype(dtype, np.integer) else np.ones(shape, dtype)
    try:
        ort_session(m).run(None, feeds)
    except Exception:  # noqa: BLE001
        return True
    return False


def onnx_shapes(m: onnx.ModelProto) -> dict[str, list[int | None] | None]:
    """Output shapes by onnx's strict shape inference (None for an output it gives no shape)."""
    inferred = onnx.shape_inference.infer_shapes(m, check_type=True, strict_mode=True)
    res: dict[str, list[int | None] | None] = {}
    for o in inferred.graph.output:
        t = o.type.tensor_type
        res[o.name] = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim] \
            if t.HasField("shape") else None
    return res


def run_shapes(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, list[int]]:
    """Output shapes onnxruntime gives when it runs the model (the reference where onnx's shape
    inference leaves a shape unknown)."""
    results = ort_session(m).run(None, feeds)
    return {o.name: list(r.shape) for o, r in zip(m.graph.output, results)}


def reference_shapes(m: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> tuple[dict[str, list[int]], bool]:
    """Each output's shape by onnx's strict shape inference, or (where it leaves any unknown) by
    running onnxruntime; and whether the shapes came from onnx."""
    inferred = onnx_shapes(m)
    if all(s is not None and None not in s for s in inferred.values()):
        return {k: list(v) for k, v in inferred.items() if v is not None}, True
    return run_shapes(m, feeds), False


def check_output_shapes(op: str, opset: int, inputs: dict[str, Any], attrs: dict[str, Any] | None,
                        outputs: dict[str, str], inits: dict[str, Any] | None = None,
                        elems: dict[str, int] | None = None) -> dict[str, list[int]]:
    """The shapes opgen states for a node's outputs are the references' (onnx.shape_inference, else
    onnxruntime): declared right they pass, and each declared wrong (last dimension off by one, or
    a dimension added to a scalar) is reported at that output alone. outputs: node output name ->
    where opgen reports it ("output 'Y'", "output 'outputs'[1]"); elems: output element types."""
    elems = elems or {}
    m, feeds = build(op, opset, inputs, attrs, {n: (elems.get(n, F), None) for n in outputs}, inits)
    want, from_onnx = reference_shapes(m, feeds)
    assert set(want) == set(outputs)
    declared = {n: (elems.get(n, F), want[n]) for n in outputs}
    right, _ = build(op, opset, inputs, attrs, declared, inits)
    assert where(right) == []
    for name, at in outputs.items():
        shape = want[name]
        wrong = [*shape[:-1], shape[-1] + 1] if shape else [1]
        bad, _ = build(op, opset, inputs, attrs, {**declared, name: (elems.get(name, F), wrong)}, inits)
        assert where(bad) == [at], f"{op}-{opset} {name}: declared {wrong}, the op gives {shape}"
        if from_onnx:
            assert onnx_rejects(bad)  # strict shape inference refuses a declared shape it contradicts
    return want
