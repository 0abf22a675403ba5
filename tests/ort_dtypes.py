"""Differential runs of opgen's ONNX kernels against onnxruntime, one (op version, type variable, element
type) at a time (tests/kernels/test_onnx_ort_dtypes.py): the one-node models both runtimes run, the
comparison of their outputs, and what onnxruntime's refusals mean.

Inputs come from the onnx package's node tests, retyped (tests/ort_cases.py), or, for the op versions
those do not cover, from small per-op recipes (tests/ort_recipes.py). The runs of one node signature
(attributes, input and output types) share one onnxruntime session. Types onnxruntime's Python
binding cannot feed or fetch come in and go out as float32 with a Cast next to the node (exact:
float32 holds every value of those types); complex types are given as they are.

A value's type is spelt as its element type for a tensor ("float"), seq(float) for a sequence of
tensors, optional(float) / optional(seq(float)) for an optional; sequences are fed as lists of arrays
and optionals as None or their value, as onnxruntime's Python binding takes them.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

import ml_dtypes
import numpy as np
import onnx
from conftest import project_specs
from onnx import TensorProto, helper
from onnx_refs import ort_session

import opgen
from opgen.dtypes import ELEM_TYPES, elem_of_numpy
from opgen.runtime.values import OptionalValue
from opgen.testing import TOLERANCES

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
    # a version that only marks the op deprecated (Scatter-11: ScatterElements replaces it)
    ("deprecated at this opset", ("is deprecated in domain_version of",)),
    # a float16 node at opset 1: onnxruntime computes it in float through a Cast it inserts, which
    # opset 1's Cast (a string `to`) refuses
    ("float16 at opset 1", ("InsertedPrecisionFreeCast", "Expected: 'STRING'")),
    ("no Cast to or from the type", ("Could not find an implementation for Cast", "name 'cast_")),
    # no kernel of its own: onnxruntime expands the op's function body, whose nodes lack a kernel or a
    # typing for these element types
    ("function body", ("Could not find an implementation for", "node with name ''")),
    ("function body", ("Failed to find kernel for", "(node:''")),
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


def is_tensor(type_name: str) -> bool:
    return not type_name.endswith(")")


def elem_of(type_name: str) -> str:
    """The element type inside a value type: float of float, seq(float), optional(seq(float))."""
    while type_name.endswith(")"):
        type_name = type_name[type_name.index("(") + 1:-1]
    return type_name


def type_proto(type_name: str) -> onnx.TypeProto:
    if type_name.startswith("seq("):
        return helper.make_sequence_type_proto(type_proto(type_name[4:-1]))
    if type_name.startswith("optional("):
        return helper.make_optional_type_proto(type_proto(type_name[9:-1]))
    return helper.make_tensor_type_proto(onnx_code(type_name), None)


def type_name_of(proto: onnx.TypeProto) -> str | None:
    """The spelling of a TypeProto (None where an element type is unknown)."""
    if proto.HasField("sequence_type"):
        inner = type_name_of(proto.sequence_type.elem_type)
        return None if inner is None else f"seq({inner})"
    if proto.HasField("optional_type"):
        inner = type_name_of(proto.optional_type.elem_type)
        return None if inner is None else f"optional({inner})"
    code = proto.tensor_type.elem_type
    if not code:
        return None
    return "string" if code == TensorProto.STRING else elem_of_numpy(helper.tensor_dtype_to_np_dtype(code))


def cast_for_ort(dtype: str) -> bool:
    """Fed and fetched as float32 through a Cast (complex types are given as they are: no Cast takes
    them, and onnxruntime registers no complex type at all; sequences and optionals too)."""
    return is_tensor(dtype) and dtype not in ORT_IO and not dtype.startswith("complex")


@dataclass
class Signature:
    """One node as both runtimes see it: op, opset, attributes, types of its inputs and outputs
    (graph inputs in0, in1, ...; an absent optional input is ""; outputs out0, ...). `agree` compares
    one output of both (None: value for value within the tolerance table; random ops: properties)."""
    op: str
    opset: int
    node: onnx.NodeProto
    inputs: list[str | None]   # type per node input (None: absent)
    outputs: list[str]
    feeds: list[list[Any]] = field(default_factory=list)  # one list of present inputs per run
    agree: Callable[[Any, Any, str, list[Any]], str | None] | None = None

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
            graph_in.append(helper.make_value_info(name, type_proto(dtype)))
        node_in.append(name)
    for k, dtype in enumerate(sig.outputs):
        name = f"out{k}"
        if for_ort and cast_for_ort(dtype):
            node_out.append(name + "_raw")
            after.append(helper.make_node("Cast", [name + "_raw"], [name], name=f"cast_{name}", to=TensorProto.FLOAT))
            graph_out.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
        else:
            node_out.append(name)
            graph_out.append(helper.make_value_info(name, type_proto(dtype)))
    node = helper.make_node(sig.op, node_in, node_out, name=UNDER_TEST)
    node.attribute.extend(sig.node.attribute)
    graph = helper.make_graph([*nodes, node, *after], "g", graph_in, graph_out)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", sig.opset)],
                             ir_version=10 if sig.opset <= 23 else 11)


def elem_name(value_info: onnx.ValueInfoProto) -> str:
    code = value_info.type.tensor_type.elem_type
    return elem_of_numpy(helper.tensor_dtype_to_np_dtype(code)) if code != TensorProto.STRING else "string"


def inferred_outputs(op: str, opset: int, node: onnx.NodeProto, inputs: list[str | None]) -> list[str] | None:
    """The types of the node's outputs by onnx's type inference (strict), None where it refuses the
    input types or leaves an output's type unknown."""
    sig = Signature(op, opset, node, inputs, [])
    model = _model(sig, for_ort=False)
    del model.graph.node[-1].output[:]
    model.graph.node[-1].output.extend(f"out{k}" for k in range(len(node.output)))
    model.graph.output.extend(onnx.ValueInfoProto(name=f"out{k}") for k in range(len(node.output)))
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except Exception:  # noqa: BLE001
        return None
    names = [type_name_of(o.type) for o in inferred.graph.output]
    return None if None in names else [str(n) for n in names]


@dataclass
class Outcome:
    refused: str | None = None  # the REFUSALS category where onnxruntime did not create a session
    compared: int = 0  # runs compared with onnxruntime
    mismatches: list[str] = field(default_factory=list)


def run_ort(session: Any, sig: Signature, feeds: list[Any]) -> list[Any]:
    names = [f"in{k}" + ("_f" if cast_for_ort(d) else "") for k, d in enumerate(sig.inputs) if d is not None]
    present = [d for d in sig.inputs if d is not None]
    return session.run(None, {n: (v.astype(np.float32) if cast_for_ort(d) else v)
                              for n, v, d in zip(names, feeds, present)})


def differs(got: Any, want: Any, dtype: str) -> str | None:
    """Why got is not want (shape, dtype, values beyond the tolerance table; NaN equals NaN; a sequence
    element by element, an optional by presence and value), or None."""
    if dtype.startswith("seq("):
        got, want = list(got), list(want)
        if len(got) != len(want):
            return f"sequence of {len(got)} tensors != {len(want)}"
        return next((f"tensor {k}: {why}" for k, (g, w) in enumerate(zip(got, want))
                     if (why := differs(g, w, dtype[4:-1])) is not None), None)
    if dtype.startswith("optional("):
        got = got.value if isinstance(got, OptionalValue) else got
        if (got is None) != (want is None):
            return f"optional {'empty' if got is None else 'holds a value'}; onnxruntime's " \
                   f"{'empty' if want is None else 'holds a value'}"
        return None if got is None else differs(got, want, dtype[9:-1])
    got = np.asarray(got)
    want = np.asarray(want)
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
            why = differs(g, w, sig.outputs[k]) if sig.agree is None else sig.agree(g, w, sig.outputs[k], feeds)
            if why is not None:
                verdict = "not asked (a random op)" if sig.agree is not None else \
                    reference_verdict(opgen_model, names, feeds, k, g)
                outcome.mismatches.append(f"output {k} ({sig.outputs[k]}): {why}; onnx.reference {verdict}")
    return outcome


def reference_verdict(model: onnx.ModelProto, names: list[str], feeds: list[Any], k: int, got: Any) -> str:
    """What onnx.reference says of opgen's output k (evidence for a disagreement's message)."""
    from onnx.reference import ReferenceEvaluator

    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = ReferenceEvaluator(model).run(None, dict(zip(names, feeds)))[k]
    except Exception as exc:  # noqa: BLE001
        return f"raises {type(exc).__name__}"
    declared = type_name_of(model.graph.output[k].type) or "float"
    if is_tensor(declared):
        want = np.asarray(want)
        declared = elem_of_numpy(want.dtype) if want.dtype != object else "string"
        if cast_for_ort(declared):
            want = want.astype(np.float32)
    why = differs(got, want, declared)
    return "agrees with opgen" if why is None else f"differs from opgen too ({why})"


def type_variables(version: Any) -> list[str]:
    """The type variables of a version's inputs, in order."""
    return list(dict.fromkeys(p.type for p in version.inputs if p.type and not p.type.startswith("tensor(")))


# The ops of sequences and optionals: their type variables' sequence and optional types are pairs too
# (SequenceAt S=seq(float), OptionalHasElement O=optional(seq(int8))). Elsewhere (Identity, Loop: V
# also allows them) only the tensor types are: those ops move a sequence or an optional as a whole,
# which the ops here already compare element type by element type.
VALUE_OPS = {"ConcatFromSequence", "SequenceAt", "SequenceErase", "SequenceInsert", "SequenceLength",
             "SequenceMap", "OptionalHasElement", "OptionalGetElement", "Optional"}


def spelt(spec_type: str) -> str | None:
    """tensor(float) -> float, seq(tensor(float)) -> seq(float), optional(...) likewise (None: a type
    this onnx cannot spell)."""
    for wrapper in ("seq(", "optional("):
        if spec_type.startswith(wrapper):
            inner = spelt(spec_type[len(wrapper):-1])
            return None if inner is None else f"{wrapper}{inner})"
    elem = spec_type[7:-1] if spec_type.startswith("tensor(") else ""
    return elem if elem in ELEM_TYPES and onnx_code(elem) is not None else None


def dtypes_of(version: Any, type_var: str) -> list[str]:
    param = next(p for p in version.inputs if p.type == type_var)
    names = [spelt(t) for t in version.allowed_types(param)]
    return [n for n in names if n is not None and (is_tensor(n) or version.op in VALUE_OPS)]


def ai_onnx_versions() -> list[Any]:
    """Every ai.onnx op version with a kernel and no element-wise formula (those are compared with
    onnxruntime for every element type by tests/test_onnx_formulas.py)."""
    onnx_specs = project_specs().domain("onnx")
    return [v for op in onnx_specs.ops if not op.onnx_domain for v in op.versions
            if v.has_kernel and v.elementwise is None]


_ = ml_dtypes  # registers the ml_dtypes element types NumPy casts to
