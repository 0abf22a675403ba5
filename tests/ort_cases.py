"""The onnx package's node tests as inputs of the differential runs against onnxruntime
(tests/ort_dtypes.py): one op's cases, those that apply to a version, retyped per element type.

A node test case of an op applies to a version of it when onnx's full checker and opgen's validator
accept the case's node at that version's opset (attributes and inputs changed between versions); a
case whose constant inputs were attributes in an older version is rewritten for it (as_version). For a
type variable of the version's inputs and each element type it allows, every input of that variable
is cast to the type (values that do not survive the cast are brought into the type first: the
expected values come from onnxruntime on the same inputs), and the outputs take the types onnx's type
inference gives. For the ops that only move values (MOVES_VALUES) a run with the type's edge values
is added (NaN, infinities, -0.0, the largest and smallest values).
"""
from __future__ import annotations

import functools
import warnings
from types import SimpleNamespace
from typing import Any

import ml_dtypes
import numpy as np
import onnx
from conftest import project_specs
from onnx import helper, numpy_helper
from onnx_refs import node_test_cases
from ort_dtypes import Signature, elem_name, inferred_outputs, is_tensor

from opgen.dtypes import ELEM_TYPES
from opgen.validate import validate_model


@functools.lru_cache(maxsize=None)
def single_node_cases() -> dict[str, tuple[Any, ...]]:
    """The node test cases of one ai.onnx node on tensors, by op."""
    out: dict[str, list[Any]] = {}
    for case in node_test_cases():
        graph = case.model.graph
        if len(graph.node) != 1 or graph.node[0].domain not in ("", "ai.onnx"):
            continue
        if not all(v.type.HasField("tensor_type") for v in [*graph.input, *graph.output]):
            continue
        out.setdefault(graph.node[0].op_type, []).append(case)
    return {op: tuple(cases) for op, cases in out.items()}


def applies(case: Any, opset: int) -> bool:
    """onnx's full checker (strict shape inference included) accepts the case's node at this opset."""
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    del model.opset_import[:]
    model.opset_import.append(helper.make_opsetid("", opset))
    model.ir_version = 10 if opset <= 23 else 11
    try:
        onnx.checker.check_model(model, full_check=True)
    except Exception:  # noqa: BLE001  (any refusal: the case is not of this version)
        return False
    # opgen's validator knows what the checker does not check: attribute values renamed between
    # versions (GridSample's modes), a per-axis scale where a version takes one value
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return not validate_model(model).problems


def as_version(case: Any, version: Any) -> Any | None:
    """A node test case written for a newer version, rewritten for an older one that takes as attributes
    what the newer one takes as inputs (Squeeze's and the reductions' axes, Slice's starts and ends,
    Pad's pads, Reshape's shape, Upsample's scales): each such input, when every data set gives it the
    same value, becomes the attribute of that name. None where an input has no attribute to become."""
    node = case.model.graph.node[0]
    opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
    newest = project_specs().domain("onnx").op(node.op_type).resolve(opset)
    kinds = {a.name: a.type for a in version.attributes}
    params = input_params(newest, len(node.input))
    present = [name for name in node.input if name]
    moved: dict[str, Any] = {}
    for k, (name, param) in enumerate(zip(node.input, params)):
        if not name or (k < len(version.inputs) and version.inputs[k].name == param.name):
            continue
        if kinds.get(param.name) not in ("ints", "floats"):
            return None
        values = [_array(data[present.index(name)]) for data, _ in case.data_sets]
        if any(not np.array_equal(values[0], v) for v in values[1:]):
            return None
        ints = kinds[param.name] == "ints"
        moved[name] = helper.make_attribute(param.name, [int(v) if ints else float(v) for v in values[0].ravel()],
                                            attr_type=onnx.AttributeProto.INTS if ints else onnx.AttributeProto.FLOATS)
    if not moved:
        return None
    model = onnx.ModelProto()
    model.CopyFrom(case.model)
    new_node = model.graph.node[0]
    del new_node.input[:]
    new_node.input.extend(name for name in node.input if name not in moved)
    while new_node.input and not new_node.input[-1]:
        new_node.input.pop()
    new_node.attribute.extend(moved.values())
    kept = [v for v in model.graph.input if v.name not in moved]
    del model.graph.input[:]
    model.graph.input.extend(kept)
    data_sets = [([d for name, d in zip(present, data) if name not in moved], outs) for data, outs in case.data_sets]
    return SimpleNamespace(name=case.name, model=model, data_sets=data_sets)


def _array(value: Any) -> np.ndarray:
    return numpy_helper.to_array(value) if isinstance(value, onnx.TensorProto) else np.asarray(value)


def cases_of(version: Any) -> list[Any]:
    """The node test cases of the op that apply to this version, as they are or rewritten (as_version)."""
    cases = []
    for case in single_node_cases().get(version.op, ()):
        if applies(case, version.since_version):
            cases.append(case)
        elif (older := as_version(case, version)) is not None and applies(older, version.since_version):
            cases.append(older)
    return cases


def survives(values: np.ndarray, dtype: str) -> np.ndarray | None:
    """The values cast to dtype, when casting them back gives them again (NaN for NaN), else None."""
    target = ELEM_TYPES[dtype]
    if values.dtype == object or target.kind == "string":
        return values if values.dtype == object and target.kind == "string" else None
    if target.kind in ("int", "uint", "bool") and values.dtype.kind == "f" and not np.isfinite(values).all():
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            cast = values.astype(target.numpy)
            back = cast.astype(values.dtype)
        except TypeError:  # between two ml_dtypes types: through float64, which holds both exactly
            cast = values.astype(np.float64).astype(target.numpy)
            back = cast.astype(np.float64).astype(values.dtype)
    same = (back == values) | (np.isnan(back) & np.isnan(values) if values.dtype.kind == "f" else False)
    return cast if bool(np.all(same)) else None


def into(values: np.ndarray, dtype: str) -> np.ndarray | None:
    """The values as dtype: cast where they survive the cast, else brought into the type first (integers:
    rounded and clipped to its range, NaN as 0; bool: non-zero; floats: clipped to the finite range;
    strings: the numbers' decimal texts). The expected values come from onnxruntime on the same inputs,
    so any values of the type will do. None for strings into numbers."""
    cast = survives(values, dtype)
    if cast is not None:
        return cast
    target = ELEM_TYPES[dtype]
    if target.kind == "string" and values.dtype.kind in "biuf":  # numbers as their decimal texts
        return np.asarray(values.astype(str), dtype=object)
    if values.dtype == object or target.kind in ("string", "complex") or values.dtype.kind not in "biuf":
        return None
    if target.kind == "bool":
        return np.asarray(values != 0)
    wide = values.astype(np.float64) if values.dtype.kind != "b" else values.astype(np.int8).astype(np.float64)
    with np.errstate(all="ignore"):
        if target.kind in ("int", "uint"):
            info = ml_dtypes.iinfo(target.numpy)
            high = min(float(info.max), 2.0 ** 53)  # (the node tests' values are small)
            rounded = np.clip(np.nan_to_num(np.round(wide)), float(info.min), high)
            return np.asarray(rounded.astype(np.int64)).astype(target.numpy)
        info = ml_dtypes.finfo(target.numpy)
        return np.asarray(np.clip(wide, float(info.min), float(info.max))).astype(target.numpy)


def input_params(version: Any, count: int) -> list[Any]:
    """The parameter of each of a node's `count` inputs (a trailing variadic one repeats)."""
    params = list(version.inputs)
    return [params[min(k, len(params) - 1)] for k in range(count)]


def signatures(op: str, version: Any, type_var: str, dtype: str, cases: list[Any]) -> list[Signature]:
    """The node signatures of the applicable cases retyped to dtype for type_var, each with its runs."""
    found: dict[bytes, Signature] = {}
    if not is_tensor(dtype):
        return []  # the node tests on sequences and optionals are not single-node tensor cases
    for case in cases:
        graph = case.model.graph
        node = graph.node[0]
        declared = {v.name: elem_name(v) for v in [*graph.input, *graph.output]}
        params_in = input_params(version, len(node.input))
        inputs = [None if not name else (dtype if p.type == type_var else declared[name])
                  for name, p in zip(node.input, params_in)]
        outputs = inferred_outputs(op, version.since_version, node, inputs)
        if outputs is None:
            continue  # onnx's type inference refuses this mix of element types
        sig = Signature(op, version.since_version, node, inputs, outputs)
        sig = found.setdefault(sig.key(), sig)
        for data_in, _ in case.data_sets:
            present = [name for name in node.input if name]
            feeds = []
            for name, value in zip(present, data_in):
                k = list(node.input).index(name)
                value = _array(value)
                cast = into(value, dtype) if params_in[k].type == type_var else value
                if cast is None:
                    break
                feeds.append(cast)
            else:
                sig.feeds.append(feeds)
    if op in MOVES_VALUES and version.inputs[0].type == type_var:  # the data, not indices or shapes
        for sig in found.values():
            params = input_params(version, len(sig.inputs))
            varies = [params[k].type == type_var for k, d in enumerate(sig.inputs) if d is not None]
            if sig.feeds:
                sig.feeds.append(with_edges(sig.feeds[0], varies, dtype))
    return [s for s in found.values() if s.feeds]


# Ops that only move, select or copy values of their data input: there every value of the type is
# defined, so a run with the type's edge values (NaN, infinities, -0.0; the integer extremes) is added.
MOVES_VALUES = {"Concat", "Compress", "CenterCropPad", "DepthToSpace", "Expand", "Flatten", "Gather",
                "GatherElements", "GatherND", "Identity", "Pad", "Reshape", "ReverseSequence", "Slice",
                "SpaceToDepth", "Split", "Squeeze", "Tile", "Transpose", "Trilu", "Unsqueeze"}


def edge_values(dtype: str) -> list[Any]:
    elem = ELEM_TYPES[dtype]
    if elem.kind in ("int", "uint"):
        info = ml_dtypes.iinfo(elem.numpy)
        return [info.min, info.max, 0, 1]
    if elem.kind == "float":
        info = ml_dtypes.finfo(elem.numpy)
        specials = [v for v in (np.nan, np.inf, -np.inf) if survives(np.array([v]), dtype) is not None]
        return [*specials, -0.0, float(info.max), float(info.min), float(info.smallest_subnormal)]
    return []


def with_edges(feeds: list[np.ndarray], varies: list[bool], dtype: str) -> list[np.ndarray]:
    """A copy of a run's inputs where those of the varied type start with the type's edge values."""
    edges = edge_values(dtype)
    out = []
    for value, vary in zip(feeds, varies):
        value = value.copy()
        if vary and value.size and edges:
            k = min(value.size, len(edges))
            wide = np.float64 if ELEM_TYPES[dtype].kind == "float" else \
                (np.int64 if ELEM_TYPES[dtype].kind == "int" else np.uint64)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the float types without infinities have none to lose
                value.reshape(-1)[:k] = np.asarray([wide(e) for e in edges[:k]]).astype(value.dtype)
        out.append(value)
    return out
