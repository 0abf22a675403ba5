"""Inputs of the differential runs against onnxruntime (tests/ort_dtypes.py) for the op versions the
onnx package's node tests leave without a case: older layouts (attributes where newer versions take
inputs), sequences and optionals (every sequence and optional type of the ops of ort_dtypes.VALUE_OPS),
and random ops; If, Loop, Scan and Dropout are in tests/ort_control_flow.py.

A recipe gives, for an op version, a type variable and an element type, the signatures (node, input
and output types, runs) to run; values come from small arrays brought into the element type
(ort_cases.into). Random ops are compared on the properties both runtimes must share (shape, element
type, range, the values a draw cannot change): a seeded draw is each runtime's own stream, so it is
not comparable value for value.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np
from onnx import TensorProto, helper
from ort_cases import into
from ort_dtypes import Signature, cast_for_ort, elem_of, inferred_outputs, type_proto

Value = tuple[str, Any]  # (type, value) of one node input
Recipe = Callable[[Any, str, str], list[Signature]]


def _values(values: Any, dtype: str) -> Any:
    cast = into(np.asarray(values, dtype=np.float64), dtype)
    assert cast is not None, f"no values of {dtype}"
    return cast


def _sig(version: Any, inputs: list[Value | None], attrs: dict[str, Any] | None = None, outputs: int = 1,
         runs: list[list[Any]] | None = None, agree: Any = None, out_types: list[str] | None = None) -> list[Signature]:
    """One node of the version (inputs in0, in1, ...; None: absent), its output types inferred by onnx
    (or out_types, where onnx's inference of a function body fails on types the op allows); the runs
    default to the values given with the inputs. No signature where onnx's inference refuses."""
    names = ["" if x is None else f"in{k}" for k, x in enumerate(inputs)]
    node = helper.make_node(version.op, names, [f"out{k}" for k in range(outputs)], **(attrs or {}))
    types = [None if x is None else x[0] for x in inputs]
    out_types = inferred_outputs(version.op, version.since_version, node, types) or out_types
    if out_types is None:
        return []
    feeds = runs if runs is not None else [[x[1] for x in inputs if x is not None]]
    return [Signature(version.op, version.since_version, node, types, out_types, feeds, agree)]


def _float_var(version: Any, type_var: str, dtype: str, var: str) -> str:
    """The element type of a type variable: the one under test, or the first float type it allows."""
    if var == type_var:
        return dtype
    param = next(p for p in version.inputs if p.type == var)
    allowed = [t[7:-1] for t in version.allowed_types(param) if t.startswith("tensor(")]
    return "float" if "float" in allowed else allowed[0]


def _grid(shape: tuple[int, ...]) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 7 - 2


# ---- older layouts and ops without node tests: tensors only ----

def batch_norm_1(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((2, 3, 2)) / 2, dtype)
    stats = [_values(v, dtype) for v in ([1, 1.5, 2], [0, 0.5, -1], [0.5, 0, -0.5], [1, 2, 0.5])]
    return _sig(version, [(dtype, x), *[(dtype, s) for s in stats]], {"consumed_inputs": [0, 0, 0, 1, 1],
                                                                        "is_test": 1})


def depth_to_space_1(version: Any, type_var: str, dtype: str) -> list[Signature]:
    return _sig(version, [(dtype, _values(_grid((1, 8, 2, 3)), dtype))], {"blocksize": 2})


def dequantize_e8m0_scale(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """DequantizeLinear with a float8e8m0 scale (powers of two), the output type given."""
    x = (_values([[-3, 0, 5, 7]], "int8"))
    scale = _values([0.5], dtype).reshape(())
    return _sig(version, [("int8", x), (dtype, scale)], {"output_dtype": TensorProto.FLOAT})


def global_lp_pool(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((1, 2, 3, 3)) / 2, dtype)
    p = {"p": 3} if version.since_version >= 2 else {"p": 3.0}
    return _sig(version, [(dtype, x)], p) + _sig(version, [(dtype, x)])


def group_norm_18(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((2, 4, 3)) / 2, dtype)
    scale, bias = _values([1.5, 0.5], dtype), _values([0, 1], dtype)  # one per group in version 18
    return _sig(version, [(dtype, x), (dtype, scale), (dtype, bias)], {"num_groups": 2})


def lp_pool_1(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((1, 2, 4, 4)) / 2, dtype)
    return _sig(version, [(dtype, x)], {"kernel_shape": [2, 2], "p": 2.0, "strides": [2, 2]})


def max_roi_pool(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((1, 2, 4, 5)), dtype)
    rois = _values([[0, 0, 0, 3, 3], [0, 1, 1, 4, 3]], dtype)
    return _sig(version, [(dtype, x), (dtype, rois)], {"pooled_shape": [2, 2], "spatial_scale": 1.0})


def mvn(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((2, 3, 2, 2)) / 2, dtype)
    # onnx's inference of the function body refuses double and float16 (its Pow exponent is a float
    # Constant), which the op allows
    return _sig(version, [(dtype, x)], out_types=[dtype]) + _sig(version, [(dtype, x)], {"axes": [1, 2, 3]},
                                                                 out_types=[dtype])


def rms_norm(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x_type, scale_type = _float_var(version, type_var, dtype, "T"), _float_var(version, type_var, dtype, "V")
    x = _values(_grid((2, 3, 4)) / 2, x_type)
    # onnx's inference of the function body fails for X and scale of other types than float
    return _sig(version, [(x_type, x), (scale_type, _values([1, 0.5, 2, 1.5], scale_type))], {"axis": -1},
                out_types=[scale_type])


def pad_old(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((2, 3)), dtype)
    name = "paddings" if version.since_version == 1 else "pads"
    return [s for mode in ("constant", "reflect", "edge")
            for s in _sig(version, [(dtype, x)], {name: [0, 1, 1, 2], "mode": mode, "value": 1.5})]


def recurrent_old(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """RNN and LSTM at versions 1 and 7 (version 1: output_sequence), with sequence lengths."""
    x_type, len_type = _float_var(version, type_var, dtype, "T"), _float_var(version, type_var, dtype, "T1")
    gates = 4 if version.op == "LSTM" else 1
    hidden, size = 2, 3
    x = _values(_grid((3, 2, size)) / 4, x_type)
    w = _values(_grid((1, gates * hidden, size)) / 8, x_type)
    r = _values(_grid((1, gates * hidden, hidden)) / 8, x_type)
    b = _values(_grid((1, 2 * gates * hidden)) / 16, x_type)
    lens = _values([3, 2], len_type)
    extra = {"output_sequence": 1} if version.since_version == 1 else {}
    return _sig(version, [(x_type, x), (x_type, w), (x_type, r), (x_type, b), (len_type, lens)],
                {"hidden_size": hidden, **extra}, outputs=2 if version.op == "RNN" else 3)


def resize_old(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """Resize-10 and Upsample-10 (X, scales), Resize-11 (X, roi, scales[, sizes]), Upsample-1 (height and
    width scales as attributes): nearest for every element type, linear for the float ones."""
    x_type = _float_var(version, type_var, dtype, "T1" if version.since_version == 11 else "T")
    x = _values(_grid((1, 1, 2, 3)), x_type)
    scales = ("float", np.array([1, 1, 2, 1.5], np.float32))
    modes = ["nearest"] + (["linear"] if x_type in ("float", "double", "float16") else [])
    sigs = []
    for mode in modes:
        if version.op == "Upsample" and version.since_version == 1:
            sigs += _sig(version, [(x_type, x)], {"height_scale": 2.0, "width_scale": 2.0,
                                                  "mode": "bilinear" if mode == "linear" else mode})
        elif version.since_version == 11:
            roi_type = _float_var(version, type_var, dtype, "T2")
            roi = _values([0, 0, 0, 0, 1, 1, 1, 1], roi_type)
            sigs += _sig(version, [(x_type, x), (roi_type, roi), scales], {"mode": mode})
            sigs += _sig(version, [(x_type, x), (roi_type, roi), ("float", np.zeros(0, np.float32)),
                                   ("int64", np.array([1, 1, 3, 4], np.int64))],
                         {"mode": mode, "coordinate_transformation_mode": "asymmetric"})
        else:
            sigs += _sig(version, [(x_type, x), scales], {"mode": mode})
    return sigs


def roi_align_10(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x_type = _float_var(version, type_var, dtype, "T1")
    x = _values(_grid((2, 1, 5, 5)) / 2, x_type)
    rois = _values([[0, 0, 3, 3], [1, 0.5, 4, 2.5]], x_type)
    return [s for mode in ("avg", "max")
            for s in _sig(version, [(x_type, x), (x_type, rois), ("int64", np.array([0, 1], np.int64))],
                          {"output_height": 2, "output_width": 2, "sampling_ratio": 1, "mode": mode})]


def scatter_11(version: Any, type_var: str, dtype: str) -> list[Signature]:
    data_type, index_type = _float_var(version, type_var, dtype, "T"), _float_var(version, type_var, dtype, "Tind")
    data = _values(_grid((3, 3)), data_type)
    updates = _values([[1, 2, 3], [4, 5, 6]], data_type)
    indices = _values([[1, 0, 2], [0, 2, 1]], index_type)
    return _sig(version, [(data_type, data), (index_type, indices), (data_type, updates)], {"axis": 0}) + \
        _sig(version, [(data_type, data), (index_type, _values([[-1, 0], [2, 1]], index_type)),
                       (data_type, _values([[1, 2], [3, 4]], data_type))], {"axis": 1})


def tile_1(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values(_grid((2, 3)), dtype)
    return _sig(version, [(dtype, x), (dtype, _values([2], dtype)), (dtype, _values([1], dtype))])


def top_k_1(version: Any, type_var: str, dtype: str) -> list[Signature]:
    x = _values([[3, 1, 4, 1.5], [5, 9, 2, 6]], dtype)
    return _sig(version, [(dtype, x)], {"k": 2}, outputs=2) + _sig(version, [(dtype, x)], {"k": 1, "axis": 0},
                                                                     outputs=2)


# ---- sequences and optionals ----

def _seq_pieces(dtype: str) -> list[np.ndarray]:
    return [_values(_grid((2, 3)), dtype), _values(_grid((2, 3))[::-1] + 1, dtype), _values(np.zeros((2, 3)), dtype)]


def sequence_ops(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """SequenceAt, SequenceErase, SequenceInsert: positions of each index type (negative ones too)."""
    elem = elem_of(dtype) if type_var in ("T", "S") else "float"
    index = dtype if type_var == "I" else "int64"
    seq = (f"seq({elem})", _seq_pieces(elem))
    positions = [_values(p, index).reshape(()) for p in (0, -1, 1)]
    if version.op == "SequenceAt":
        return _sig(version, [seq, (index, positions[0])], runs=[[seq[1], p] for p in positions])
    if version.op == "SequenceErase":
        return _sig(version, [seq, (index, positions[0])], runs=[[seq[1], p] for p in positions]) + _sig(version, [seq])
    tensor = (elem, _values(_grid((2, 3)) * 2, elem))
    return _sig(version, [seq, tensor, (index, positions[0])], runs=[[seq[1], tensor[1], p] for p in positions]) + \
        _sig(version, [seq, tensor])


def sequence_construct(version: Any, type_var: str, dtype: str) -> list[Signature]:
    pieces = _seq_pieces(dtype)
    return _sig(version, [(dtype, p) for p in pieces]) + _sig(version, [(dtype, pieces[0])])


def split_to_sequence(version: Any, type_var: str, dtype: str) -> list[Signature]:
    elem = _float_var(version, type_var, dtype, "T")
    index = _float_var(version, type_var, dtype, "I") if type_var == "I" else "int64"
    x = (elem, _values(_grid((4, 3)), elem))
    return _sig(version, [x]) + _sig(version, [x], {"axis": 1, "keepdims": 0}) + \
        _sig(version, [x, (index, _values([1, 3], index))]) + \
        _sig(version, [x, (index, _values(2, index).reshape(()))], {"axis": 0})


def sequence_map(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """SequenceMap whose body gives the additional input (V, a tensor) and the element (S) back."""
    elem, extra = (elem_of(dtype), "float") if type_var == "S" else ("float", dtype)
    extra_in_body = elem_of(extra)  # a sequence given as an additional input: the body sees its elements
    body = helper.make_graph(
        [helper.make_node("Identity", ["b_extra"], ["b_out"]), helper.make_node("Identity", ["b_elem"], ["b_same"])],
        "body", [helper.make_value_info(n, type_proto(t)) for n, t in (("b_elem", elem), ("b_extra", extra_in_body))],
        [helper.make_value_info(n, type_proto(t)) for n, t in (("b_out", extra_in_body), ("b_same", elem))])
    seq = (f"seq({elem})", _seq_pieces(elem)[:2])
    extra_value = _seq_pieces(extra_in_body)[1:] if extra.startswith("seq(") else _values(_grid((3,)), extra)
    return _sig(version, [seq, (extra, extra_value)], {"body": body}, outputs=2)


def sequence_length_concat(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """SequenceLength; ConcatFromSequence along an axis and along a new one."""
    seq = (dtype, _seq_pieces(elem_of(dtype)))
    if version.op == "SequenceLength":
        return _sig(version, [seq]) + _sig(version, [(dtype, seq[1][:1])])
    return _sig(version, [seq], {"axis": 1}) + _sig(version, [seq], {"axis": -1, "new_axis": 1})


def optional_elements(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """OptionalHasElement (a value and, for an optional, None) and OptionalGetElement (a value)."""
    inner = dtype[9:-1] if dtype.startswith("optional(") else dtype
    value = _seq_pieces(elem_of(inner)) if inner.startswith("seq(") else _values(_grid((2, 3)), inner)
    runs = [[value]] + ([[None]] if version.op == "OptionalHasElement" and inner != dtype else [])
    return _sig(version, [(dtype, value)], runs=runs)


def optional_op(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """Optional of a tensor or a sequence, and an empty optional of that type (its `type` attribute)."""
    empty = helper.make_node("Optional", [], ["out0"], type=type_proto(dtype))
    out = [Signature(version.op, version.since_version, empty, [], [f"optional({dtype})"], [[]])]
    value = _seq_pieces(elem_of(dtype)) if dtype.startswith("seq(") else _values(_grid((2, 2)), dtype)
    return _sig(version, [(dtype, value)]) + out


# ---- random ops: properties both runtimes must share ----

def _property(check: Callable[[np.ndarray, list[Any]], str | None]) -> Any:
    """A comparison of one output of a random op: equal shape and element type, and `check` (the range
    and the values no draw can change) true of both runtimes' values."""
    def agree(got: Any, want: Any, out_type: str, feeds: list[Any]) -> str | None:
        got, want = np.asarray(got), np.asarray(want)
        if cast_for_ort(out_type):  # fetched from onnxruntime as float32
            got = got.astype(np.float32)
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"shape/dtype {got.shape} {got.dtype} != onnxruntime's {want.shape} {want.dtype}"
        return next((f"{who}: {why}" for who, values in (("opgen", got), ("onnxruntime", want))
                     if (why := check(values, feeds)) is not None), None)
    return agree


def _bernoulli_check(values: np.ndarray, feeds: list[Any]) -> str | None:
    p = np.asarray(feeds[0], dtype=np.float64)
    v = values.astype(np.float64)
    if not np.isin(v, (0, 1)).all():
        return "values other than 0 and 1"
    sure = (p == 0) | (p == 1)
    return None if np.array_equal(v[sure], p[sure]) else "a draw with probability 0 or 1 came out otherwise"


def bernoulli(version: Any, type_var: str, dtype: str) -> list[Signature]:
    p = _values(np.tile([0, 1, 0.5, 0.25], (3, 2)), dtype)
    return _sig(version, [(dtype, p)], agree=_property(_bernoulli_check)) + \
        _sig(version, [(dtype, p)], {"dtype": TensorProto.INT32, "seed": 3.0}, agree=_property(_bernoulli_check))


def _multinomial_check(values: np.ndarray, feeds: list[Any]) -> str | None:
    logits = np.asarray(feeds[0], dtype=np.float64)
    if ((values < 0) | (values >= logits.shape[1])).any():
        return "a class outside [0, class_size)"
    single = np.isfinite(logits).sum(axis=1) == 1  # one class possible: every draw takes it
    return None if (values[single] == np.argmax(logits[single], axis=1)[:, None]).all() else \
        "a class of probability 0 drawn"


def multinomial(version: Any, type_var: str, dtype: str) -> list[Signature]:
    logits = _values([[0, -np.inf, -np.inf], [0, 0.5, 1], [-np.inf, -np.inf, 2]], dtype)
    return _sig(version, [(dtype, logits)], {"sample_size": 5}, agree=_property(_multinomial_check)) + \
        _sig(version, [(dtype, logits)], {"sample_size": 2, "dtype": TensorProto.INT64, "seed": 1.0},
             agree=_property(_multinomial_check))


def _uniform_check(low: float, high: float) -> Callable[[np.ndarray, list[Any]], str | None]:
    def check(values: np.ndarray, feeds: list[Any]) -> str | None:
        v = values.astype(np.float64)
        return None if ((v >= low) & (v <= high)).all() else f"values outside [{low}, {high}]"
    return check


def _finite(values: np.ndarray, feeds: list[Any]) -> str | None:
    return None if np.isfinite(values.astype(np.float64)).all() else "values not finite"


def random_like(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """RandomUniformLike / RandomNormalLike: the input gives the shape (any element type), dtype the
    output's type (float here; the input's own type when it is a float type and dtype is not given)."""
    x = (dtype, into(_grid((3, 4)), dtype))
    uniform = version.op == "RandomUniformLike"
    attrs = {"low": -2.0, "high": 3.0} if uniform else {"mean": 5.0, "scale": 0.5}
    check = _property(_uniform_check(-2.0, 3.0) if uniform else _finite)
    sigs = _sig(version, [x], {**attrs, "dtype": TensorProto.FLOAT, "seed": 2.0}, agree=check)
    if dtype in ("float", "double", "float16"):
        sigs += _sig(version, [x], attrs, agree=check)
    return sigs


RECIPES: dict[str, Recipe] = {
    "BatchNormalization": batch_norm_1, "DepthToSpace": depth_to_space_1, "DequantizeLinear": dequantize_e8m0_scale,
    "GlobalLpPool": global_lp_pool, "GroupNormalization": group_norm_18, "LpPool": lp_pool_1,
    "MaxRoiPool": max_roi_pool, "MeanVarianceNormalization": mvn, "RMSNormalization": rms_norm,
    "Pad": pad_old, "LSTM": recurrent_old, "RNN": recurrent_old, "Resize": resize_old, "Upsample": resize_old,
    "RoiAlign": roi_align_10, "Scatter": scatter_11, "Tile": tile_1, "TopK": top_k_1,
    "SequenceAt": sequence_ops, "SequenceErase": sequence_ops, "SequenceInsert": sequence_ops,
    "SequenceConstruct": sequence_construct, "SplitToSequence": split_to_sequence, "SequenceMap": sequence_map,
    "Optional": optional_op, "SequenceLength": sequence_length_concat, "ConcatFromSequence": sequence_length_concat,
    "OptionalHasElement": optional_elements, "OptionalGetElement": optional_elements,
    "Bernoulli": bernoulli, "Multinomial": multinomial,
    "RandomUniformLike": random_like, "RandomNormalLike": random_like,
}
RANDOM = {"Bernoulli", "Multinomial", "RandomUniformLike", "RandomNormalLike"}
