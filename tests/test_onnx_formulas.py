"""The element-wise formulas of the ONNX specs agree with onnx.reference and onnxruntime.

For every onnx op version with an `elementwise` formula (PRelu and Elu are compared in
test_onnx_kernels.py) and every element type its type constraint allows that NumPy holds, the
generated NumPy kernel runs on seeded random inputs with edge values (signed zeros, infinities, NaN,
halves for rounding) and, for binary ops, on shape pairs that broadcast both ways. Each model is built
and loaded once per (op, version, element type, attributes) and run for every input set.

Where the references differ from each other or from the formula, the difference is pinned below
(measured, not guessed: a test fails when one appears or disappears)."""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import onnx
import pytest
from conftest import project_specs
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen_ops
from opgen.dtypes import ELEM_TYPES
from opgen.testing import TOLERANCES

ONNX = project_specs().domain("onnx")
SEPARATELY_TESTED = ("PRelu", "Elu")  # tests/test_onnx_kernels.py

UNARY_SHAPES = [(2, 3, 4), (), (0, 3)]
# Pairs broadcasting in both directions, a scalar against a tensor, and an empty result.
BINARY_SHAPES = [((2, 3, 4), (2, 3, 4)), ((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 1, 3), (0, 1)),
                 ((5,), ())]
# Ops whose inputs take other shapes: Clip's min and max are scalars, and optional (None: not given).
OP_SHAPES = {
    "Clip": [((2, 3, 4), (), ())] * 4 + [((), (), ()), ((0, 3), (), ()), ((2, 3, 4), None, ()), ((2, 3, 4), (), None),
                                         ((2, 3, 4), None, None)],
}
# Folds over a variadic input (Max, Min, Sum, Mean): the tensors of each node, broadcasting in several ways,
# a scalar, an empty result and more tensors than a binary op takes; versions 1 and 6 do not broadcast.
FOLD_SHAPES = [((2, 3, 4),), ((2, 3, 4),) * 3, ((2, 1, 4), (3, 1), (4,)), ((), (2, 3), (1, 3)), ((0, 3), (3,), ()),
               ((3, 4),) * 9]
FOLD_SAME_SHAPES = [((2, 3, 4),), ((2, 3, 4),) * 3, ((),) * 2, ((0, 3),) * 2, ((3, 4),) * 9]
# Versions no reference implements (tested on their own below).
NO_REFERENCE = {("Clip", 1): "test_clip_1_missing_bounds"}

# Attribute sets besides the defaults (explicit zeros are in test_explicit_zero_attributes).
ATTRIBUTES = {
    "Celu": [{"alpha": 0.7}, {"alpha": 2.0}],
    "HardSigmoid": [{"alpha": 0.5, "beta": 0.3}],
    "LeakyRelu": [{"alpha": 0.3}],
    "Selu": [{"alpha": 1.2, "gamma": 0.8}],
    "ThresholdedRelu": [{"alpha": 0.5}, {"alpha": -1.0}],
    "Swish": [{"alpha": 0.5}],
    "Shrink": [{"bias": 0.25, "lambd": 1.0}, {"bias": 2.0, "lambd": 0.0}],
    "Gelu": [{"approximate": "tanh"}],
    "IsInf": [{"detect_positive": 0}, {"detect_negative": 0}, {"detect_positive": 0, "detect_negative": 0}],
    "BitShift": [{"direction": "LEFT"}, {"direction": "RIGHT"}],
    "Mod": [{"fmod": 1}],
    "Clip": [{"min": -1.5, "max": 2.0}, {"min": 0.5, "max": 0.5}, {"max": 1.0}],  # versions 1 and 6
}

# onnxruntime (1.31, CPU) has no kernel for these (op, since_version, element type) or does not load
# the opset: they are compared with onnx.reference only. The test fails if onnxruntime gains or loses one.
_ORT_GAPS = {  # op: "since_version:element_type ..."
    "Abs": "1:double 1:float 1:float16 13:bfloat16",
    "Acos": "7:double 22:bfloat16 22:double",
    "Acosh": "9:double 22:bfloat16 22:double",
    "Add": "13:bfloat16 14:bfloat16",
    "Asin": "7:double 22:bfloat16 22:double",
    "Asinh": "9:double 22:bfloat16 22:double",
    "Atan": "7:double 22:bfloat16 22:double",
    "Atanh": "9:double 22:bfloat16 22:double",
    "BitShift": "11:uint16 28:int16 28:int32 28:int64 28:int8 28:uint16 28:uint32 28:uint64 28:uint8",
    "Ceil": "1:double 1:float 1:float16 13:bfloat16",
    "Celu": "28:bfloat16 28:double 28:float 28:float16",
    # Clip: for these onnxruntime runs the model without min and max, but has no kernel with them.
    "Clip": "6:double 11:double 12:int16 12:uint16 13:bfloat16 13:int16 13:uint16",
    "Cos": "22:bfloat16",
    "Cosh": "9:double 22:bfloat16 22:double",
    "Div": "13:bfloat16 14:bfloat16",
    "Equal": "13:bfloat16 19:bfloat16",
    "Erf": "9:double 9:int16 9:int32 9:int64 9:int8 9:uint16 9:uint32 9:uint64 9:uint8 13:bfloat16 13:double",
    "Exp": "1:double 1:float 1:float16 13:bfloat16",
    "Floor": "1:double 1:float 1:float16 13:bfloat16",
    "Gelu": "20:bfloat16 20:double",
    "Greater": "13:bfloat16",
    "GreaterOrEqual": "16:bfloat16",
    "HardSigmoid": "1:double 1:float 1:float16 6:double 22:bfloat16 22:double",
    "HardSwish": "14:double 22:bfloat16 22:double",
    "IsNaN": "13:bfloat16",
    "LeakyRelu": "1:double 1:float 1:float16 6:double 16:bfloat16",
    "Less": "13:bfloat16",
    "LessOrEqual": "16:bfloat16",
    "Log": "1:double 1:float 1:float16 13:bfloat16",
    # Max, Min, Mean, Sum (folds): versions 1 (consumed_inputs) are not loaded at all.
    "Max": "1:double 1:float 1:float16 6:double 12:int16 12:uint16 13:bfloat16 13:int16 13:uint16",
    "Mean": "1:double 1:float 1:float16 6:double 8:double 13:bfloat16 13:double",
    "Min": "1:double 1:float 1:float16 6:double 12:int16 12:uint16 13:bfloat16 13:int16 13:uint16",
    "Mish": "22:bfloat16 22:double",
    "Mod": "13:bfloat16 28:bfloat16 28:double 28:float 28:float16 28:int16 28:int32 28:int64 28:int8 28:uint16 "
           "28:uint32 28:uint64 28:uint8",
    "Mul": "13:bfloat16 14:bfloat16",
    "Neg": "1:double 1:float 1:float16 13:bfloat16",
    "Pow": "12:double-int16 12:double-int8 12:double-uint16 12:double-uint32 12:double-uint64 12:double-uint8 "
           "12:float-int16 12:float-int8 12:float-uint16 12:float-uint32 12:float-uint64 12:float-uint8 "
           "12:float16-int16 12:float16-int8 12:float16-uint16 12:float16-uint32 12:float16-uint64 "
           "12:float16-uint8 13:bfloat16-double 13:bfloat16-float 13:bfloat16-float16 13:bfloat16-int16 "
           "13:bfloat16-int32 13:bfloat16-int64 13:bfloat16-int8 13:bfloat16-uint16 13:bfloat16-uint32 "
           "13:bfloat16-uint64 13:bfloat16-uint8 13:double-int16 13:double-int8 13:double-uint16 13:double-uint32 "
           "13:double-uint64 13:double-uint8 13:float-int16 13:float-int8 13:float-uint16 13:float-uint32 "
           "13:float-uint64 13:float-uint8 13:float16-int16 13:float16-int8 13:float16-uint16 13:float16-uint32 "
           "13:float16-uint64 13:float16-uint8 15:bfloat16-bfloat16 15:bfloat16-double 15:bfloat16-float "
           "15:bfloat16-float16 15:bfloat16-int16 15:bfloat16-int32 15:bfloat16-int64 15:bfloat16-int8 "
           "15:bfloat16-uint16 15:bfloat16-uint32 15:bfloat16-uint64 15:bfloat16-uint8 15:double-bfloat16 "
           "15:double-int16 15:double-int8 15:double-uint16 15:double-uint32 15:double-uint64 15:double-uint8 "
           "15:float-bfloat16 15:float-int16 15:float-int8 15:float-uint16 15:float-uint32 15:float-uint64 "
           "15:float-uint8 15:float16-bfloat16 15:float16-int16 15:float16-int8 15:float16-uint16 "
           "15:float16-uint32 15:float16-uint64 15:float16-uint8",
    "Reciprocal": "1:double 1:float 1:float16 13:bfloat16",
    "Relu": "1:double 1:float 1:float16 13:bfloat16 14:bfloat16 14:int16 14:int64",
    "Round": "22:bfloat16",
    "Selu": "1:double 1:float 1:float16 6:double 22:bfloat16 22:double",
    "Sigmoid": "1:double 1:float 1:float16 13:bfloat16",
    "Sin": "22:bfloat16",
    "Sinh": "9:double 22:bfloat16 22:double",
    "Softplus": "1:double 1:float16 22:bfloat16 22:double",
    "Softsign": "1:double 1:float16 22:bfloat16 22:double",
    "Sqrt": "1:double 1:float 1:float16 13:bfloat16",
    "Sub": "13:bfloat16 14:bfloat16",
    "Sum": "1:double 1:float 1:float16 13:bfloat16",
    "Swish": "24:bfloat16",
    "Tan": "7:double 22:bfloat16 22:double",
    "Tanh": "1:double 1:float 1:float16 13:bfloat16",
    "ThresholdedRelu": "10:double 22:bfloat16 22:double",
    "Where": "9:bool 9:complex128 9:complex64 9:int16 9:uint16 9:uint64 16:bfloat16 16:bool 16:complex128 "
             "16:complex64 16:int16 16:uint16 16:uint64",
}
ORT_GAPS = {(op, int(v), t) for op, items in _ORT_GAPS.items() for v, t in (i.split(":") for i in items.split())}

# Where a reference differs from the formula: (op, since_version, element type, reference) ->
# (why, predicate). A mismatch passes only where the predicate, given (got, want, feeds, dtype),
# explains it; a pinned difference that no longer shows fails the test. Filled in below.
EXPLAINED: dict[tuple[str, int, str, str], tuple[str, object]] = {}


def _mismatched(got, want, dtype):
    rtol, atol = TOLERANCES.get(dtype, (0, 0))
    return ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)


def within_float32(got, want, feeds, dtype) -> bool:
    """The reference computed in float32 (or with a float32 constant): agreement to float32 precision."""
    return not isinstance(want, Exception) and bool(
        np.allclose(got, want, rtol=1e-6, atol=1e-7, equal_nan=True))


def erf_of_integers(got, want, feeds, dtype) -> bool:
    """Erf-9 on integers (note integer_erf): the kernel computes erf in double and converts toward
    zero, so +-1 from |x| = 6 on (where erf rounds to +-1 in double), else 0; onnx.reference computes
    erf in float32, where it rounds to +-1 from |x| = 4 on."""
    (x,) = feeds.values()
    wide = x.astype(np.float64)
    return not isinstance(want, Exception) and bool(
        np.array_equal(got, np.where(np.abs(wide) >= 6, np.sign(wide), 0).astype(got.dtype))
        and np.array_equal(want, np.where(np.abs(wide) >= 4, np.sign(wide), 0).astype(want.dtype)))


def nan_sign_is_zero(got, want, feeds, dtype) -> bool:
    """onnxruntime's float16/bfloat16 Sign gives 0 for NaN (its float and double Sign give NaN)."""
    (x,) = feeds.values()
    bad = _mismatched(got, want, dtype)
    return not isinstance(want, Exception) and bool(
        np.all(np.isnan(x.astype(np.float64)[bad])) and np.all(want.astype(np.float64)[bad] == 0))


def fails_on_rank_zero(got, want, feeds, dtype) -> bool:
    """onnx.reference's Softsign raises TypeError for a rank-0 input (np.abs of a 0-d array is a scalar,
    which its in-place update rejects)."""
    return isinstance(want, TypeError) and all(a.ndim == 0 for a in feeds.values())


def numpy_power_shortcut(got, want, feeds, dtype) -> bool:
    """onnx.reference's Pow is np.power, which takes an exponent of a single value 0.5 as sqrt: (-inf) ** 0.5
    gives NaN there (C's pow and the formula: inf) and (-0.0) ** 0.5 gives -0.0 (pow: +0.0)."""
    if isinstance(want, Exception):
        return False
    x, y = (np.broadcast_to(a.astype(np.float64), got.shape) for a in feeds.values())
    bad = _mismatched(got, want, dtype)
    w = want.astype(np.float64)
    return feeds["Y"].size == 1 and bool(np.all((y[bad] == 0.5) & (x[bad] == -np.inf) & np.isnan(w[bad])))


def _clip_parts(got, want, feeds, dtype):
    bad = _mismatched(got, want, dtype)
    x = np.broadcast_to(feeds["input"], got.shape).astype(np.float64)[bad]
    return bad, x, got.astype(np.float64)[bad], want.astype(np.float64)[bad]


def absent_bound_keeps_infinity(got, want, feeds, dtype) -> bool:
    """Clip without min (max): the reference leaves -inf (+inf) as it is, where ONNX's default bound, the most
    negative (largest) finite value of the type, clips it to that value (note absent_bounds)."""
    if isinstance(want, Exception):
        return False
    bad, x, g, w = _clip_parts(got, want, feeds, dtype)
    info = ml_dtypes.finfo(ELEM_TYPES[dtype].numpy)
    low, high = float(info.min), float(info.max)
    return bool(np.all((w == x) & (((x == np.inf) & (g == high) & ("max" not in feeds))
                                   | ((x == -np.inf) & (g == low) & ("min" not in feeds)))))


def nan_bound_ignored(got, want, feeds, dtype) -> bool:
    """Clip with a NaN min or max: the reference clips with the other bound only, where Min(max, Max(input,
    min)) gives NaN (note nan_bounds)."""
    if isinstance(want, Exception):
        return False
    bad, x, g, w = _clip_parts(got, want, feeds, dtype)
    nan_bound = any(np.isnan(feeds[n].astype(np.float64)).any() for n in ("min", "max") if n in feeds)
    return nan_bound and bool(np.all(np.isnan(g)))


def nan_bound_ignored_or_infinity_kept(got, want, feeds, dtype) -> bool:
    """Either of the two above, whichever the feeds have (onnxruntime's 16-bit float Clip)."""
    return nan_bound_ignored(got, want, feeds, dtype) or absent_bound_keeps_infinity(got, want, feeds, dtype)


for _v, _types in ((11, "double float float16"), (12, "double float float16"), (13, "bfloat16 double float float16")):
    for _t in _types.split():
        EXPLAINED[("Clip", _v, _t, "onnx.reference")] = ("a missing bound keeps infinities",
                                                         absent_bound_keeps_infinity)
for _v, _t in ((12, "double"), (12, "float"), (12, "float16"), (13, "float")):
    EXPLAINED[("Clip", _v, _t, "onnxruntime")] = ("a NaN bound is ignored", nan_bound_ignored)
for _v, _t in ((11, "float16"), (13, "float16"), (13, "bfloat16")):
    EXPLAINED[("Clip", _v, _t, "onnxruntime")] = ("16-bit floats: a NaN bound is ignored, a missing bound keeps "
                                                  "infinities", nan_bound_ignored_or_infinity_kept)
for _ref in ("onnx.reference", "onnxruntime"):  # erf in float32; the tanh form's constants as float32
    EXPLAINED[("Gelu", 20, "double", _ref)] = ("float32 erf or constants for double", within_float32)
EXPLAINED[("Shrink", 9, "double", "onnxruntime")] = ("computes double Shrink in float32", within_float32)
for _t in ("double-double", "float-float16", "float16-float"):
    EXPLAINED[("Pow", 15, _t, "onnx.reference")] = ("np.power's sqrt shortcut", numpy_power_shortcut)
for _t in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"):
    EXPLAINED[("Erf", 9, _t, "onnx.reference")] = ("erf computed in float32, then converted", erf_of_integers)
for _v in (9, 13):
    EXPLAINED[("Erf", _v, "double", "onnx.reference")] = ("erf computed in float32 for double", within_float32)
for _v in (14, 22):
    EXPLAINED[("HardSwish", _v, "double", "onnx.reference")] = ("alpha 1/6 rounded to float32", within_float32)
for _v, _t in ((9, "float16"), (13, "float16"), (13, "bfloat16")):
    EXPLAINED[("Sign", _v, _t, "onnxruntime")] = ("Sign(NaN) = 0 for 16-bit floats", nan_sign_is_zero)
for _v in (1, 22):
    for _t in ("float16", "float", "double") + (("bfloat16",) if _v == 22 else ()):
        EXPLAINED[("Softsign", _v, _t, "onnx.reference")] = ("raises on rank-0 input", fails_on_rank_zero)


def mean_adds_in_place(got, want, feeds, dtype) -> bool:
    """onnx.reference's Mean adds the tensors into a copy of the first one in place (res += x), which NumPy
    refuses where the first is smaller than the broadcast shape; opgen broadcasts them all (note
    reference_broadcasting of Mean)."""
    first = next(iter(feeds.values()))
    return isinstance(want, Exception) and "non-broadcastable output operand" in str(want) \
        and first.shape != got.shape


def float16_sum_rounded_per_step(got, want, feeds, dtype) -> bool:
    """onnx.reference adds float16 tensors in float16, rounding after each addition; opgen accumulates in float32
    and rounds once (note sum_accumulation). The mismatches are exactly the stepwise float16 sum."""
    if isinstance(want, Exception):
        return False
    tensors = list(feeds.values())
    steps = tensors[0]
    for x in tensors[1:]:
        steps = (steps + x).astype(tensors[0].dtype)
    bad = _mismatched(got, want, dtype)
    return bool(np.array_equal(want[bad], np.broadcast_to(steps, got.shape)[bad], equal_nan=True))


for _v, _types in ((8, "double float float16"), (13, "bfloat16 double float float16")):
    for _t in _types.split():
        EXPLAINED[("Mean", _v, _t, "onnx.reference")] = ("adds in place into the first tensor", mean_adds_in_place)
EXPLAINED[("Sum", 1, "float16", "onnx.reference")] = ("float16 sums rounded per addition",
                                                     float16_sum_rounded_per_step)


def onnx_elem(dtype: str) -> int:
    return helper.np_dtype_to_tensor_dtype(ELEM_TYPES[dtype].numpy) if dtype != "string" \
        else onnx.TensorProto.STRING


def varying_types(v) -> list[str]:
    """The type variables the cases run over: the one of the input the formula computes in (the output's,
    else the first input's), then any other input's with a choice of types (Pow's exponent type T1).
    A case names its element types joined by "-" in this order (e.g. "float-int32")."""
    main = v.formula_input().type if v.elementwise is not None else v.inputs[0].type
    others = [p.type for p in v.inputs if p.type != main and len(dtypes_of(v, p)) > 1]
    return [main] + list(dict.fromkeys(others))


def dtypes_of(v, param) -> list[str]:
    return [t[7:-1] for t in v.allowed_types(param) if t[7:-1] in ELEM_TYPES]


def elem_for(v, param, dtype: str) -> str:
    """The element type of a parameter in the case `dtype`."""
    names, parts = varying_types(v), dtype.split("-")
    if param.type in names:
        return parts[names.index(param.type)]
    allowed = dtypes_of(v, param)
    return allowed[0] if len(allowed) == 1 else parts[0]


def case_dtypes(v) -> list[str]:
    """The element types of the formula's input it covers, with every type of the other varying variables."""
    combos = [[t[7:-1] for t in v.formula_types() if t[7:-1] in ELEM_TYPES]]
    for var in varying_types(v)[1:]:
        param = next(p for p in v.inputs if p.type == var)
        combos.append(dtypes_of(v, param))
    return ["-".join(c) for c in itertools.product(*combos)]


def cases():
    for op in ONNX.ops:
        if op.name in SEPARATELY_TESTED:
            continue
        for v in op.versions:
            if v.elementwise is None or (op.name, v.since_version) in NO_REFERENCE:
                continue
            for dtype in case_dtypes(v):
                yield pytest.param(op.name, v.since_version, dtype, id=f"{op.name}-{v.since_version}-{dtype}")


# Element types onnxruntime's Python binding cannot feed or fetch (NumPy's ml_dtypes): its model takes
# and returns float, cast to and from the type under test next to the node (exact both ways, since
# the values are of that type; casts to float8 do not saturate, so infinities stay infinite).
CAST_FOR_ORT = ("bfloat16", "float8e4m3fn", "float8e4m3fnuz", "float8e5m2", "float8e5m2fnuz")


def feed_names(v, count: int = 1) -> list[tuple]:
    """(parameter, graph input name) of each input the node takes: a variadic input's `count` tensors are
    <name>_0, <name>_1, ..."""
    return [(p, f"{p.name}_{k}") for p in v.inputs for k in range(count)] if is_fold(v) \
        else [(p, p.name) for p in v.inputs]


def is_fold(v) -> bool:
    return v.elementwise is not None and v.elementwise.fold is not None


def make_model(v, dtype: str, attrs: dict, for_ort: bool = False, present=None, count: int = 1) -> onnx.ModelProto:
    """A model of one node; optional inputs not in `present` (all by default) are not given (""); a fold's
    variadic input takes `count` tensors."""
    nodes, ins, outs = [], [], []
    node_ins, node_outs = [], []
    for p, name in feed_names(v, count):
        elem = elem_for(v, p, dtype)
        if present is not None and name not in present:
            node_ins.append("")
        elif for_ort and elem in CAST_FOR_ORT:
            ins.append(helper.make_tensor_value_info(name, onnx.TensorProto.FLOAT, None))
            # saturate=0: an infinity stays infinite where the float8 type has one (Cast saturates by default)
            saturate = {"saturate": 0} if elem.startswith("float8") else {}
            nodes.append(helper.make_node("Cast", [name], [name + "_cast"], to=onnx_elem(elem), **saturate))
            node_ins.append(name + "_cast")
        else:
            ins.append(helper.make_tensor_value_info(name, onnx_elem(elem), None))
            node_ins.append(name)
    casts_back = []
    for p in v.outputs:
        elem = elem_for(v, p, dtype)
        if for_ort and elem in CAST_FOR_ORT:
            outs.append(helper.make_tensor_value_info(p.name, onnx.TensorProto.FLOAT, None))
            casts_back.append(helper.make_node("Cast", [p.name + "_raw"], [p.name], to=onnx.TensorProto.FLOAT))
            node_outs.append(p.name + "_raw")
        else:
            outs.append(helper.make_tensor_value_info(p.name, onnx_elem(elem), None))
            node_outs.append(p.name)
    nodes.append(helper.make_node(v.op, node_ins, node_outs, **attrs))
    graph = helper.make_graph(nodes + casts_back, "g", ins, outs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", v.since_version)], ir_version=10)


def explicit_attributes(v, attrs: dict) -> dict:
    """The attributes as a model carries them: float attributes are float32 in an ONNX model (and the
    references compute with that value), so every float attribute, defaults included, is given
    explicitly, rounded to float32 (as the kernel rounds them too: test_float_attribute_defaults_are_float32)."""
    out = dict(attrs)
    for a in v.attributes:
        if a.type == "float" and (a.name in attrs or a.has_default):
            value = attrs.get(a.name, a.default)
            out[a.name] = float(np.float32(value))
    return out


EDGE_FLOATS = [0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, -0.5, 1.5, 2.5, -2.5, 1.0, -1.0, 1e-3, -7.25]


def random_values(rng: np.random.Generator, shape, dtype: str, op: str, role: str) -> np.ndarray:
    """Seeded values with edges placed at random positions: for floats signed zeros, infinities, NaN and
    halves; for integers small values around 0 (no extremes: onnxruntime's integer overflow is undefined)."""
    elem = ELEM_TYPES[dtype]
    if elem.kind == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if elem.kind == "string":
        return np.array(rng.choice(["a", "b", "", "ab"], size=shape), dtype=object)
    if elem.kind in ("int", "uint"):
        low = 0 if elem.kind == "uint" else -50
        values = np.asarray(rng.integers(low, 50, size=shape), dtype=elem.numpy)
        edges = [0, 1, 4, 5, 7] + ([-1, -4, -5] if elem.kind == "int" else [])
        k = min(values.size, len(edges))
        values.flat[rng.permutation(values.size)[:k]] = edges[:k]
        if op in ("Div", "Mod") and role == "divisor":
            values[values == 0] = 3  # integer division (remainder) by zero is undefined in ONNX (onnxruntime traps)
        return values
    values = np.asarray(rng.standard_normal(size=shape) * 3)
    if values.size:
        edges = np.array(EDGE_FLOATS)[rng.permutation(len(EDGE_FLOATS))]
        k = min(values.size, len(edges))
        values.flat[rng.permutation(values.size)[:k]] = edges[:k]
    return values.astype(elem.numpy)


def input_sets(v, dtype: str, rng: np.random.Generator) -> list[dict[str, np.ndarray]]:
    """Feeds by input name; an optional input not given is left out; a fold's tensors are <name>_0, ..."""
    names = [p.name for p in v.inputs]
    if is_fold(v):
        return [{name: random_values(rng, shape, elem_for(v, p, dtype), v.op, "operand")
                 for (p, name), shape in zip(feed_names(v, len(shape_set)), shape_set)}
                for shape_set in (FOLD_SAME_SHAPES if v.elementwise.broadcast == "none" else FOLD_SHAPES)]
    if v.op in OP_SHAPES:
        shapes = OP_SHAPES[v.op]
    elif len(names) == 1:
        shapes = [(s,) for s in UNARY_SHAPES]
    elif len(names) == 2:
        shapes = BINARY_SHAPES
    else:
        shapes = [((2, 3, 4),) * 3, ((2, 1, 4), (3, 1), (4,)), ((), (2, 3), (1, 3)), ((0, 3), (3,), ())]
    out = []
    for shape_set in shapes:
        feeds = {}
        for k, (p, shape) in enumerate(zip(v.inputs, shape_set)):
            if shape is None:
                continue
            role = "divisor" if k == 1 else "operand"
            feeds[p.name] = random_values(rng, shape, elem_for(v, p, dtype), v.op, role)
        out.append(feeds)
    return out


def run_ort(session, feeds, dtype):
    feeds = {n: (a.astype(np.float32) if ELEM_TYPES[elem_of(a)].name in CAST_FOR_ORT else a) for n, a in feeds.items()}
    out = session.run(None, feeds)[0]
    return out.astype(ELEM_TYPES[dtype].numpy) if dtype in CAST_FOR_ORT and out.dtype == np.float32 else out


def elem_of(array: np.ndarray) -> str:
    from opgen.dtypes import elem_of_numpy

    return elem_of_numpy(array.dtype)


def load_ort(model):
    """An onnxruntime session, or None where onnxruntime cannot load the model: no kernel for the type
    or opset, an element type it does not support at all (complex), an opset newer than it knows, or
    (opset 1 float16 models) the Cast it inserts itself is invalid in that opset."""
    try:
        return ort_session(model)
    except Exception as exc:
        text = str(exc)
        if any(s in text for s in ("NOT_IMPLEMENTED", "Type Error", "InsertedPrecisionFreeCast",
                                    "ValidateOpsetForDomain", "is not currently registered or supported")):
            return None
        raise


def close(got: np.ndarray, want: np.ndarray, dtype: str) -> bool:
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if got.dtype.kind in "biuO":
        return bool(np.array_equal(got, want))
    rtol, atol = TOLERANCES.get(dtype, (0, 0))
    g, w = got.astype(np.float64), want.astype(np.float64)
    return bool(np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True))


def describe(got, want, feeds, dtype) -> str:
    """The first element that differs, with the inputs there."""
    if got.shape != want.shape or got.dtype != want.dtype:
        return f"got {got.dtype}{got.shape}, want {want.dtype}{want.shape}"
    if got.dtype.kind in "biuO":
        bad = got != want
    else:
        rtol, atol = TOLERANCES.get(dtype, (0, 0))
        bad = ~np.isclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True)
    first = tuple(int(i) for i in np.argwhere(bad)[0]) if bad.ndim else ()
    inputs = {n: np.broadcast_to(a, got.shape)[first] for n, a in feeds.items()}
    return f"at {first}: got {got[first]!r}, want {want[first]!r}, inputs {inputs}"


def attribute_sets(v, dtype: str) -> list[dict]:
    """The defaults (unless an attribute is required: BitShift's direction) and the op's ATTRIBUTES, less the
    sets the op refuses for this element type: Mod before version 28 takes floats with fmod=1 only (C2)."""
    names = {a.name for a in v.attributes}
    sets = ([] if any(a.required for a in v.attributes) else [{}]) + [
        s for s in ATTRIBUTES.get(v.op, []) if set(s) <= names]  # Clip's attribute sets: versions 1 and 6 only
    if v.op == "Mod" and v.since_version < 28 and ELEM_TYPES[dtype].kind == "float":
        sets = [s for s in sets if s.get("fmod") == 1]
    return sets


def measure(op: str, version: int, dtype: str) -> tuple[dict[str, list[str]], bool]:
    """Run the kernel and both references on every input set. Returns, per reference, a description of
    every mismatch that no pinned explanation (EXPLAINED) covers, and whether onnxruntime loaded every
    model. A pinned explanation that covered nothing is reported as a mismatch too (it must go)."""
    v = ONNX.op(op).resolve(version)
    kernel = opgen_ops.get_kernel("onnx", op, version)
    rng = np.random.default_rng(version * 131 + len(op) * 7 + len(dtype))
    mismatches: dict[str, list[str]] = {}
    out_dtype = elem_for(v, v.outputs[0], dtype)
    explained = {ref: EXPLAINED[key] for ref in ("onnx.reference", "onnxruntime")
                 if (key := (op, version, dtype, ref)) in EXPLAINED}
    used = set()
    ran_ort = []
    for given in attribute_sets(v, dtype):
        attrs = explicit_attributes(v, given)
        models = {}  # per set of inputs given (Clip's optional min and max)
        for feeds in input_sets(v, dtype, rng):
            if tuple(feeds) not in models:
                n = len(feeds)
                models[tuple(feeds)] = (ReferenceEvaluator(make_model(v, dtype, attrs, present=set(feeds), count=n)),
                                        load_ort(make_model(v, dtype, attrs, for_ort=True, present=set(feeds),
                                                            count=n)))
                ran_ort.append(models[tuple(feeds)][1] is not None)
            reference, session = models[tuple(feeds)]
            args = list(feeds.values()) if is_fold(v) else [feeds.get(p.name) for p in v.inputs]
            (got,) = kernel(*args, **attrs)
            for name, run in (("onnx.reference", lambda: reference.run(None, feeds)[0]),
                              ("onnxruntime", lambda: None if session is None else run_ort(session, feeds, out_dtype))):
                try:
                    want = run()
                except Exception as exc:
                    want, problem = exc, f"{given} raises {exc!r}"
                else:
                    if want is None or close(got, want, out_dtype):
                        continue
                    problem = f"{given} {describe(got, want, feeds, out_dtype)}"
                if name in explained and explained[name][1](got, want, feeds, out_dtype):
                    used.add(name)
                else:
                    mismatches.setdefault(name, []).append(problem)
    for name in set(explained) - used:
        mismatches.setdefault(name, []).append(f"pinned difference not seen: {explained[name][0]}")
    return mismatches, all(ran_ort)


@pytest.mark.parametrize("op,version,dtype", list(cases()))
def test_formula_matches_references(op, version, dtype):
    mismatches, ran_ort = measure(op, version, dtype)
    assert mismatches == {}
    # onnxruntime must run every case except the pinned gaps, so coverage cannot silently shrink.
    assert ran_ort == ((op, version, dtype) not in ORT_GAPS)


def uncovered():
    for op in ONNX.ops:
        for v in op.versions:
            if v.elementwise is not None and v.elementwise.types:
                for t in dtypes_of(v, v.formula_input()):
                    if f"tensor({t})" not in v.elementwise.types:
                        others = [dtypes_of(v, next(p for p in v.inputs if p.type == var))
                                  for var in varying_types(v)[1:]]  # the same type where allowed
                        case = "-".join([t] + [t if t in allowed else allowed[0] for allowed in others])
                        yield pytest.param(v, case, id=f"{v.key}-{case}")


@pytest.mark.parametrize("v,dtype", list(uncovered()))
def test_types_the_formula_leaves_out_have_no_kernel(v, dtype):
    """Shrink's integer inputs, Pow's integer bases: the NumPy kernel refuses them (and a version note says
    why), and no C kernel is generated for them."""
    from opgen.render.c_code import kernel_views

    inputs = [random_values(np.random.default_rng(0), (3,), elem_for(v, p, dtype), v.op, "operand")
              for p in v.inputs]
    with pytest.raises(NotImplementedError, match=f"{v.key} has no formula for {dtype.split('-')[0]}"):
        opgen_ops.get_kernel("onnx", v.op, v.since_version)(*inputs)
    assert dtype.split("-")[0] not in {view["elem"] for view in kernel_views(v)}
    assert any(n.field == "elementwise.types" and n.kind == "decision" for n in v.notes)


def test_formulas_compare_string_attributes_with_words_only():
    """Gelu's formula reads its string attribute approximate as approximate == 'tanh'; the checker refuses
    other uses of strings (the C kernel compares with strcmp, the NumPy kernel with ==)."""
    from opgen import formula

    names, strings = {"X", "alpha", "approximate"}, {"approximate"}
    assert formula.check_formula("where(approximate == 'tanh', X, 0)", names, strings) == []
    assert formula.check_formula("where('tanh' != approximate, X, 0)", names, strings) == []
    assert any("can only be compared" in p for p in formula.check_formula("where(approximate, X, 0)", names, strings))
    assert any("not a string attribute" in p for p in formula.check_formula("where(alpha == 'a', X, 0)", names, strings))
    assert any("plain words" in p for p in formula.check_formula("where(approximate == 'a b', X, 0)", names, strings))
    assert any("not a number" in p for p in formula.check_formula("X + 'a'", names, strings))
    c = formula.formula_to_c("where(approximate == 'tanh', X, 0)", {"X": "x", "approximate": "approximate"},
                          "float", "float")
    assert 'strcmp(approximate, "tanh") == 0' in c and "approximate != NULL" in c


def test_gelu_approximate_takes_two_values():
    validate = opgen_ops.get_validator("onnx", "Gelu", 20)
    x = np.zeros((2, 3), np.float32)
    assert validate([x], {"approximate": "tanh"}) == []
    problems = validate([x], {"approximate": "erf"})
    assert [p.where for p in problems] == ["attribute 'approximate'"], problems
    # onnxruntime refuses the value at run time (independent check of the enumeration); onnx.reference
    # does not check it (any value but "tanh" gives the exact form) and neither does onnx.checker.
    model = make_model(ONNX.op("Gelu").resolve(20), "float", {"approximate": "erf"})
    with pytest.raises(Exception, match="Unsupported approximation_algorithm"):
        ort_session(model).run(None, {"X": x})


def test_bitshift_direction_takes_two_values():
    """direction is LEFT or RIGHT: the validator reports another word, as onnx.reference and onnxruntime refuse
    it (the formula would otherwise shift right for any word but LEFT)."""
    validate = opgen_ops.get_validator("onnx", "BitShift", 11)
    x = np.arange(4, dtype=np.uint8)
    assert validate([x, x], {"direction": "RIGHT"}) == []
    problems = validate([x, x], {"direction": "right"})
    assert [p.where for p in problems] == ["attribute 'direction'"], problems
    model = make_model(ONNX.op("BitShift").resolve(11), "uint8", {"direction": "right"})
    with pytest.raises(Exception, match="right"):
        ReferenceEvaluator(model).run(None, {"X": x, "Y": x})
    with pytest.raises(Exception):
        ort_session(model).run(None, {"X": x, "Y": x})


@pytest.mark.parametrize("dtype", ["float", "double", "float16"])
def test_clip_1_missing_bounds(dtype):
    """Neither reference implements Clip-1 (the test fails when one does). Given bounds clip as Clip-6 does
    (onnx.reference's Clip-6 as reference); a missing one is the type's extreme finite value (note
    missing_attributes), as onnxruntime's Clip-12 computes without min and max."""
    v1, v6, v12 = (ONNX.op("Clip").resolve(n) for n in (1, 6, 12))
    with pytest.raises(RuntimeError, match="No implementation for operator 'Clip'"):
        ReferenceEvaluator(make_model(v1, dtype, {}))
    assert load_ort(make_model(v1, dtype, {}, for_ort=True)) is None
    kernel = opgen_ops.get_kernel("onnx", "Clip", 1)
    x = np.array(EDGE_FLOATS + [1e30, -1e30, 7e4, -7e4], ELEM_TYPES[dtype].numpy)
    for attrs in ({"min": -1.5, "max": 2.0}, {"min": 0.5, "max": 0.5}, {"min": 2.0, "max": -1.0}):
        (got,) = kernel(x, **attrs)
        want = ReferenceEvaluator(make_model(v6, dtype, attrs)).run(None, {"input": x})[0]
        np.testing.assert_array_equal(got, want)
    (got,) = kernel(x)
    want = ort_session(make_model(v12, dtype, {}, present={"input"})).run(None, {"input": x})[0]
    if dtype == "float16":  # onnxruntime's float16 Clip keeps infinities (pinned above for Clip-11 and 13)
        want = np.where(np.isinf(x), np.sign(x) * np.finfo(np.float16).max, want).astype(np.float16)
    np.testing.assert_array_equal(got, want)
    (low,) = kernel(x, max=1.0)
    np.testing.assert_array_equal(low, np.minimum(got, np.float16(1.0) if dtype == "float16" else 1.0))


def test_clip_6_inverted_bounds():
    """min > max: every element becomes max (NaN stays NaN), as onnx.reference computes and Clip-11 on states;
    onnxruntime refuses such a Clip-6 node when it loads the model (note inverted_bounds)."""
    v = ONNX.op("Clip").resolve(6)
    x = np.array([np.nan, -np.inf, -3.0, 0.0, 0.7, 3.0, np.inf], np.float32)
    attrs = {"min": 1.0, "max": -1.0}
    (got,) = opgen_ops.get_kernel("onnx", "Clip", 6)(x, **attrs)
    np.testing.assert_array_equal(got, np.where(np.isnan(x), np.nan, -1.0).astype(np.float32))
    np.testing.assert_array_equal(got, ReferenceEvaluator(make_model(v, "float", attrs)).run(None, {"input": x})[0])
    with pytest.raises(Exception, match="min_ <= max_"):
        ort_session(make_model(v, "float", attrs))


@pytest.mark.parametrize("op,version,attrs", [
    ("LeakyRelu", 16, {"alpha": 0.0}), ("ThresholdedRelu", 22, {"alpha": 0.0}), ("Celu", 12, {"alpha": 1e-3}),
    ("HardSigmoid", 22, {"alpha": 0.0, "beta": 0.25}), ("HardSigmoid", 22, {"alpha": 0.5, "beta": 0.0}),
    ("Selu", 22, {"alpha": 0.0, "gamma": 2.0}), ("Shrink", 9, {"bias": 0.0, "lambd": 0.0}),
])
def test_explicit_zero_attributes(op, version, attrs):
    """An explicit 0.0 (or a tiny alpha) is the value, not replaced by the default: the kernel, onnxruntime
    and onnx.reference agree."""
    v = ONNX.op(op).resolve(version)
    x = np.array([-3.0, -0.5, -0.0, 0.0, 0.25, 0.5, 2.0, 7.0], np.float32)
    (got,) = opgen_ops.get_kernel("onnx", op, version)(x, **attrs)
    model = make_model(v, "float", attrs)
    feeds = {v.inputs[0].name: x}
    np.testing.assert_allclose(got, ort_session(model).run(None, feeds)[0], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got, ReferenceEvaluator(model).run(None, feeds)[0], rtol=1e-6, atol=1e-7)
    (default,) = opgen_ops.get_kernel("onnx", op, version)(x)
    assert not np.allclose(got, default)


def test_selu_1_defaults_are_its_own():
    """Selu-1's defaults are alpha 1.6732 and gamma 1.0507 (onnx.defs); onnx.reference applies the later
    versions' 1.6732632 and 1.050701 to a Selu-1 node without attributes."""
    v = ONNX.op("Selu").resolve(1)
    assert {a.name: a.default for a in v.attributes if a.type == "float"} == {"alpha": 1.6732, "gamma": 1.0507}
    x = np.array([-2.0, -0.5, 1.0, 3.0], np.float64)
    (got,) = opgen_ops.get_kernel("onnx", "Selu", 1)(x)
    reference = ReferenceEvaluator(make_model(v, "double", {})).run(None, {"X": x})[0]
    (later,) = opgen_ops.get_kernel("onnx", "Selu", 6)(x)
    np.testing.assert_allclose(reference, later, rtol=1e-6)
    assert not np.allclose(got, reference, rtol=1e-6)


def test_float_attribute_defaults_are_float32():
    """A model's float attributes are float32, so onnxruntime computes a double LeakyRelu with
    float32(0.01) when alpha is not given; the ONNX domain declares float32 attributes
    (float_attributes), so the kernel rounds its default 0.01, and a given alpha, the same way."""
    x = np.array([-3.0, -1.0, 2.0])
    v = ONNX.op("LeakyRelu").resolve(16)
    kernel = opgen_ops.get_kernel("onnx", "LeakyRelu", 16)
    (default,) = kernel(x)
    ort = ort_session(make_model(v, "double", {})).run(None, {"X": x})[0]
    np.testing.assert_array_equal(default, ort)
    assert not np.array_equal(default, np.where(x < 0, 0.01 * x, x))  # the decimal 0.01 gives other doubles
    np.testing.assert_array_equal(kernel(x, alpha=0.01)[0], ort)
    single = x.astype(np.float32)
    (got,) = kernel(single)
    np.testing.assert_array_equal(got, ort_session(make_model(v, "float", {})).run(None, {"X": single})[0])


def legacy_versions():
    for op in ONNX.ops:
        for v in op.versions:
            if any(a.name == "broadcast" for a in v.attributes) and v.elementwise is None and v.outputs[0].shape \
                    and len(v.inputs) == 2:  # the binary ops (Gemm-6 has a broadcast attribute too)
                yield pytest.param(v, id=v.key)


@pytest.mark.parametrize("v", list(legacy_versions()))
def test_legacy_broadcast_versions_state_the_first_inputs_shape(v):
    """Versions with the legacy broadcast/axis attributes have no formula; their output has A's shape
    (B is broadcast to A), which onnx's shape inference agrees with where it has one (versions 6 and 7)."""
    a_name, b_name = (p.name for p in v.inputs)
    dtype = dtypes_of(v, v.inputs[0])[0]
    attrs = {"broadcast": 1}
    a, b = np.zeros((2, 3, 4), ELEM_TYPES[dtype].numpy), np.zeros((3, 4), ELEM_TYPES[dtype].numpy)
    out_elem = dtypes_of(v, v.outputs[0])[0]
    validate = opgen_ops.get_validator("onnx", v.op, v.since_version)
    assert validate([a, b], attrs, [(out_elem, (2, 3, 4))]) == []
    problems = validate([a, b], attrs, [(out_elem, (3, 4))])
    assert [p.where for p in problems] == [f"output '{v.outputs[0].name}'"], problems
    if v.shape_inference:
        model = make_model(v, dtype, attrs)
        graph = model.graph
        for value, shape in zip(graph.input, (a.shape, b.shape)):
            value.CopyFrom(helper.make_tensor_value_info(value.name, value.type.tensor_type.elem_type, shape))
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True).graph.output[0]
        assert [d.dim_value for d in inferred.type.tensor_type.shape.dim] == [2, 3, 4]
