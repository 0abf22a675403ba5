"""Differential runs of opgen's ONNX kernels against onnxruntime, one (op version, type variable, element
type) at a time, on the onnx package's node tests retyped (tests/kernels/test_onnx_ort_dtypes.py).

A node test case of an op applies to a version of it when onnx's full checker and opgen's validator
accept the case's node at that version's opset (attributes and inputs changed between versions); a
case whose constant inputs were attributes in an older version is rewritten for it (as_version). For a
type variable of the version's inputs and each element type it allows, every input of that variable
is cast to the type (values that do not survive the cast are brought into the type first: the
expected values come from onnxruntime on the same inputs), and the outputs take the types onnx's type
inference gives. For the ops that only move values (MOVES_VALUES) a run with the type's edge values
is added (NaN, infinities, -0.0, the largest and smallest values). The runs of one node signature
(attributes, input and output types) share one onnxruntime session. Types onnxruntime's Python
binding cannot feed or fetch come in and go out as float32 with a Cast next to the node (exact:
float32 holds every value of those types); complex types are given as they are.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import ml_dtypes
import numpy as np
import onnx
from conftest import project_specs
from onnx import TensorProto, helper, numpy_helper
from onnx_refs import node_test_cases, ort_session

import opgen
from opgen.dtypes import ELEM_TYPES, elem_of_numpy
from opgen.testing import TOLERANCES
from opgen.validate import validate_model

ORT_IO = {"bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float",
          "double", "string"}  # what onnxruntime's Python binding feeds and fetches
UNDER_TEST = "under_test"  # the name of the node under test (onnxruntime's errors name it)
# What onnxruntime's refusals to create a session mean: measured facts about onnxruntime, recorded
# with the pair (tests/data/ort_not_implemented.txt). (category, every text the message must contain)
REFUSALS = (
    ("no kernel", ("Could not find an implementation for", f"name '{UNDER_TEST}'")),
    ("no kernel", ("Failed to find kernel for", f"node:'{UNDER_TEST}'")),
    ("no complex type", ("is not currently registered or supported", "complex")),
    ("opset not loaded", ("ValidateOpsetForDomain",)),
    # a float16 node at opset 1: onnxruntime computes it in float through a Cast it inserts, which
    # opset 1's Cast (a string `to`) refuses
    ("float16 at opset 1", ("InsertedPrecisionFreeCast", "Expected: 'STRING'")),
    ("no Cast to or from the type", ("Could not find an implementation for Cast", "name 'cast_")),
    # no kernel of its own: onnxruntime expands the op's function body, whose nodes lack a kernel or a
    # typing for these element types
    ("function body", ("Could not find an implementation for", "node with name ''")),
    ("function body", ("bound to different types",)),
    ("function body", ("of input parameter (_inlfunc_",)),
    # onnxruntime's copy of the ONNX schemas is older than the onnx package's: an attribute added to
    # the version since (the node test was written for the newer schema)
    ("attribute unknown to onnxruntime", ("Unrecognized attribute",)),
    # the kernel refuses an attribute value when it is created
    ("batchwise recurrent layout", ("Batchwise recurrent operations (layout == 1) are not supported",)),
)


def onnx_code(dtype: str) -> int | None:
    """The TensorProto element type of an opgen element type (None where this onnx has none)."""
    return getattr(TensorProto, {"float": "FLOAT", "double": "DOUBLE"}.get(dtype, dtype.upper()), None)


def cast_for_ort(dtype: str) -> bool:
    """Fed and fetched as float32 through a Cast (complex types are given as they are: no Cast takes
    them, and onnxruntime registers no complex type at all)."""
    return dtype not in ORT_IO and not dtype.startswith("complex")


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


@dataclass
class Signature:
    """One node as both runtimes see it: op, opset, attributes, element types of its inputs and outputs
    (graph inputs in0, in1, ...; an absent optional input is ""; outputs out0, ...)."""
    op: str
    opset: int
    node: onnx.NodeProto
    inputs: list[str | None]   # element type per node input (None: absent)
    outputs: list[str]
    feeds: list[list[np.ndarray]] = field(default_factory=list)  # one list of present inputs per run

    def key(self) -> bytes:
        return self.node.SerializeToString() + repr((self.opset, self.inputs, self.outputs)).encode()


def _model(sig: Signature, for_ort: bool) -> onnx.ModelProto:
    nodes, graph_in, graph_out, node_in, node_out, after = [], [], [], [], [], []
    for k, dtype in enumerate(sig.inputs):
        if dtype is None:
            node_in.append("")
            continue
        name = f"in{k}"
        if for_ort and cast_for_ort(dtype):
            graph_in.append(helper.make_tensor_value_info(name + "_f", TensorProto.FLOAT, None))
            exact = {"saturate": 0} if dtype.startswith("float8") else {}  # infinities stay infinite
            nodes.append(helper.make_node("Cast", [name + "_f"], [name], name=f"cast_{name}", to=onnx_code(dtype),
                                          **exact))
        else:
            graph_in.append(helper.make_tensor_value_info(name, onnx_code(dtype), None))
        node_in.append(name)
    for k, dtype in enumerate(sig.outputs):
        name = f"out{k}"
        if for_ort and cast_for_ort(dtype):
            node_out.append(name + "_raw")
            after.append(helper.make_node("Cast", [name + "_raw"], [name], name=f"cast_{name}", to=TensorProto.FLOAT))
            graph_out.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        else:
            node_out.append(name)
            graph_out.append(helper.make_tensor_value_info(name, onnx_code(dtype), None))
    node = helper.make_node(sig.op, node_in, node_out, name=UNDER_TEST)
    node.attribute.extend(sig.node.attribute)
    graph = helper.make_graph([*nodes, node, *after], "g", graph_in, graph_out)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", sig.opset)],
                             ir_version=10 if sig.opset <= 23 else 11)


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


def elem_name(value_info: onnx.ValueInfoProto) -> str:
    code = value_info.type.tensor_type.elem_type
    return elem_of_numpy(helper.tensor_dtype_to_np_dtype(code)) if code != TensorProto.STRING else "string"


def inferred_outputs(op: str, opset: int, node: onnx.NodeProto, inputs: list[str | None]) -> list[str] | None:
    """The element types of the node's outputs by onnx's type inference (strict), None where it refuses
    the input types or leaves an output's type unknown."""
    sig = Signature(op, opset, node, inputs, [])
    model = _model(sig, for_ort=False)
    del model.graph.node[-1].output[:]
    model.graph.node[-1].output.extend(f"out{k}" for k in range(len(node.output)))
    model.graph.output.extend(onnx.ValueInfoProto(name=f"out{k}") for k in range(len(node.output)))
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception:  # noqa: BLE001
        return None
    codes = [o.type.tensor_type.elem_type for o in inferred.graph.output]
    if not all(codes):
        return None
    return [elem_name(o) for o in inferred.graph.output]


def input_params(version: Any, count: int) -> list[Any]:
    """The parameter of each of a node's `count` inputs (a trailing variadic one repeats)."""
    params = list(version.inputs)
    return [params[min(k, len(params) - 1)] for k in range(count)]


def signatures(op: str, version: Any, type_var: str, dtype: str, cases: list[Any]) -> list[Signature]:
    """The node signatures of the applicable cases retyped to dtype for type_var, each with its runs."""
    found: dict[bytes, Signature] = {}
    for case in cases:
        graph = case.model.graph
        node = graph.node[0]
        declared = {v.name: elem_name(v) for v in [*graph.input, *graph.output]}
        params_in = input_params(version, len(node.input))
        inputs = [None if not name else (dtype if p.type == type_var else declared[name])
                  for name, p in zip(node.input, params_in)]
        if not all(out for out in node.output):
            continue  # an output left out: onnxruntime fetches only named outputs
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


@dataclass
class Outcome:
    refused: str | None = None  # the REFUSALS category where onnxruntime did not create a session
    compared: int = 0  # runs compared with onnxruntime
    mismatches: list[str] = field(default_factory=list)


def run_ort(session: Any, sig: Signature, feeds: list[np.ndarray]) -> list[np.ndarray]:
    names = [f"in{k}" + ("_f" if cast_for_ort(d) else "") for k, d in enumerate(sig.inputs) if d is not None]
    present = [d for d in sig.inputs if d is not None]
    return session.run(None, {n: (v.astype(np.float32) if cast_for_ort(d) else v)
                              for n, v, d in zip(names, feeds, present)})


def differs(got: np.ndarray, want: np.ndarray, dtype: str) -> str | None:
    """Why got is not want (shape, dtype, values beyond the tolerance table; NaN equals NaN), or None."""
    got = np.asarray(got)
    if cast_for_ort(dtype):
        got = got.astype(np.float32)
    if got.shape != want.shape:
        return f"shape {got.shape} != {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} != {want.dtype}"
    if want.dtype.kind in "biuO":
        bad = got != want
    else:
        rtol, atol = TOLERANCES.get(dtype, (0, 0))
        bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    if not np.any(bad):
        return None
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    return f"{int(np.sum(bad))} of {bad.size} differ, first at {first}: got {got[first]!r}, onnxruntime {want[first]!r}"


def compare(sig: Signature) -> Outcome:
    """Run one signature's feeds through opgen and onnxruntime (one session for all of them)."""
    outcome = Outcome()
    try:
        session = ort_session(_model(sig, for_ort=True))
    except Exception as exc:  # noqa: BLE001
        text = str(exc)
        outcome.refused = next((category for category, needs in REFUSALS if all(n in text for n in needs)), None)
        if outcome.refused is None:  # any other refusal is a finding to explain
            outcome.mismatches.append(f"onnxruntime refuses the model: {text[-400:]}")
        return outcome
    opgen_model = _model(sig, for_ort=False)
    names = [f"in{k}" for k, d in enumerate(sig.inputs) if d is not None]
    for feeds in sig.feeds:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                want = run_ort(session, sig, feeds)
            except Exception as exc:  # noqa: BLE001
                outcome.mismatches.append(f"onnxruntime raises: {str(exc)[-400:]}")
                continue
            try:
                got = opgen.run_model(opgen_model, dict(zip(names, feeds)), check=False)
            except Exception as exc:  # noqa: BLE001  (a kernel failing is a mismatch to report)
                outcome.mismatches.append(f"opgen raises {type(exc).__name__}: {str(exc)[:200]}")
                continue
        outcome.compared += 1
        for k, (g, w) in enumerate(zip(got.values(), want)):
            why = differs(g, w, sig.outputs[k])
            if why is not None:
                outcome.mismatches.append(f"output {k} ({sig.outputs[k]}): {why}; "
                                          f"onnx.reference {reference_verdict(opgen_model, names, feeds, k, g)}")
    return outcome


def reference_verdict(model: onnx.ModelProto, names: list[str], feeds: list[np.ndarray], k: int,
                      got: np.ndarray) -> str:
    """What onnx.reference says of opgen's output k (evidence for a disagreement's message)."""
    from onnx.reference import ReferenceEvaluator

    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = np.asarray(ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))[k])
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}"
    dtype = elem_of_numpy(want.dtype) if want.dtype != object else "string"
    if cast_for_ort(dtype):
        want = want.astype(np.float32)
    why = differs(got, want, dtype)
    return "agrees with opgen" if why is None else f"differs from opgen too ({why})"


def type_variables(version: Any) -> list[str]:
    """The type variables of a version's inputs, in order."""
    return list(dict.fromkeys(p.type for p in version.inputs if p.type and not p.type.startswith("tensor(")))


def dtypes_of(version: Any, type_var: str) -> list[str]:
    param = next(p for p in version.inputs if p.type == type_var)
    return [t[7:-1] for t in version.allowed_types(param)
            if t.startswith("tensor(") and t[7:-1] in ELEM_TYPES and onnx_code(t[7:-1]) is not None]


def ai_onnx_versions() -> list[Any]:
    """Every ai.onnx op version with a kernel and no element-wise formula (those are compared with
    onnxruntime for every element type by tests/test_onnx_formulas.py)."""
    onnx_specs = project_specs().domain("onnx")
    return [v for op in onnx_specs.ops if not op.onnx_domain for v in op.versions
            if v.has_kernel and v.elementwise is None]


_ = ml_dtypes  # registers the ml_dtypes element types NumPy casts to
