"""Recipes for the differential runs against onnxruntime (tests/ort_dtypes.py) of the ops whose inputs
are graphs (If, Loop, Scan) and of Dropout: a small generator of bodies typed with the element type
under test (If: Constant branches; Loop: an Identity body that passes its state on and stacks it and
the iteration number; Scan: a body whose state takes the current slice and whose output is the
previous state), so every element type goes through the op, whatever maths its type allows.

Dropout draws its mask in training mode from each runtime's own stream (not comparable value for
value): there both runtimes must give every element either 0 or x / (1 - ratio), and the mask's shape;
in inference mode (no training_mode, or false; versions before 12 always) it is the identity and is
compared value for value.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
from onnx import helper, numpy_helper
from ort_dtypes import Signature, cast_for_ort, differs, onnx_code, type_proto
from ort_recipes import _grid, _sig, _values

from opgen.dtypes import ELEM_TYPES


def _vi(name: str, type_name: str, shape: list[int] | None = None) -> Any:
    if shape is None:
        return helper.make_value_info(name, type_proto(type_name))
    return helper.make_tensor_value_info(name, onnx_code(type_name), shape)


def if_op(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """cond (the only input, bool) chooses between two branches of Constants (a float and an int64
    tensor of other shapes in each branch)."""
    def branch(name: str, scale: float) -> Any:
        values = [numpy_helper.from_array((_grid((2, 3)) * scale).astype(np.float32), f"{name}_f"),
                  numpy_helper.from_array(np.arange(4, dtype=np.int64).reshape(2, 2) * int(scale), f"{name}_i")]
        nodes = [helper.make_node("Constant", [], [v.name], value=v) for v in values]
        return helper.make_graph(nodes, name, [], [_vi(values[0].name, "float"), _vi(values[1].name, "int64")])
    runs = [[np.array(True)], [np.array(False)]]
    branches = {"then_branch": branch("then", 1.0), "else_branch": branch("else", 3.0)}
    return _sig(version, [(dtype, runs[0][0])], branches, outputs=2, runs=runs)


def loop(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """M iterations (3 and 1) while cond: the body passes its loop-carried value on unchanged and stacks
    it and the iteration number as scan outputs."""
    value_type = dtype if type_var == "V" else "float"
    body = helper.make_graph(
        [helper.make_node("Identity", ["b_cond"], ["b_cond_out"]), helper.make_node("Identity", ["b_v"], ["b_v_out"]),
         helper.make_node("Identity", ["b_v"], ["b_scan"]), helper.make_node("Identity", ["b_iter"], ["b_iter_out"])],
        "body", [_vi("b_iter", "int64", []), _vi("b_cond", "bool", []), _vi("b_v", value_type)],
        [_vi("b_cond_out", "bool", []), _vi("b_v_out", value_type), _vi("b_scan", value_type),
         _vi("b_iter_out", "int64", [])])
    value = _values(_grid((2, 3)), value_type)
    runs = [[np.array(m, np.int64), np.array(True), value] for m in (3, 1)]
    return _sig(version, [("int64", runs[0][0]), ("bool", runs[0][1]), (value_type, value)], {"body": body},
                outputs=3, runs=runs)


def scan(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """One state and one scan input of the type under test (version 8: with a batch axis and, for its
    index type, sequence_lens); forwards and, from version 9, backwards."""
    value_type = dtype if type_var == "V" else "float"
    body = helper.make_graph(
        [helper.make_node("Identity", ["b_x"], ["b_state_out"]), helper.make_node("Identity", ["b_state"], ["b_y"])],
        "body", [_vi("b_state", value_type, [2]), _vi("b_x", value_type, [2])],
        [_vi("b_state_out", value_type, [2]), _vi("b_y", value_type, [2])])  # onnxruntime wants the shapes
    batch = (1,) if version.since_version == 8 else ()
    state = (value_type, _values(np.zeros((*batch, 2)) + 9, value_type))
    xs = (value_type, _values(_grid((*batch, 3, 2)), value_type))
    attrs = {"body": body, "num_scan_inputs": 1}
    if version.since_version == 8:
        lens = ("int64", np.array([3], np.int64)) if type_var == "I" else None
        return _sig(version, [lens, state, xs], attrs, outputs=2)
    return _sig(version, [state, xs], attrs, outputs=2) + \
        _sig(version, [state, xs], {**attrs, "scan_input_directions": [1], "scan_output_directions": [1]}, outputs=2)


def dropout_old(version: Any, type_var: str, dtype: str) -> list[Signature]:
    """Dropout before version 7 in test mode (is_test), with its mask."""
    x = (dtype, _values(_grid((3, 4)) / 2, dtype))
    return _sig(version, [x], {"is_test": 1, "ratio": 0.25}, outputs=1) + \
        _sig(version, [x], {"is_test": 1}, outputs=2)


def dropout_agree(sig: Signature) -> Signature:
    """The signature compared as Dropout's outputs are: in training mode each element 0 or x / (1 - ratio)
    in both runtimes (output 0) and masks of one shape (output 1); else value for value."""
    present = [name for name in sig.node.input if name]

    def feed(feeds: list[Any], k: int) -> Any:
        name = sig.node.input[k] if k < len(sig.node.input) else ""
        return feeds[present.index(name)] if name else None

    def agree(got: Any, want: Any, out_type: str, feeds: list[Any]) -> str | None:
        training = feed(feeds, 2)
        if sig.opset < 12 or training is None or not bool(np.asarray(training)):
            return differs(got, want, out_type)
        got, want = np.asarray(got), np.asarray(want)
        if cast_for_ort(out_type):  # fetched from onnxruntime as float32
            got = got.astype(np.float32)
        if got.shape != want.shape or got.dtype != want.dtype:
            return f"shape/dtype {got.shape} {got.dtype} != onnxruntime's {want.shape} {want.dtype}"
        if out_type == "bool":
            return None  # the masks: each runtime's own draw
        x = np.asarray(feed(feeds, 0), dtype=np.float64)
        ratio = feed(feeds, 1)
        scale = 1.0 / (1.0 - (0.5 if ratio is None else float(np.asarray(ratio, dtype=np.float64))))
        # the product rounded to the element type: two of its steps apart at most (bfloat16, float8)
        rtol = max(1e-3, 2 * float(ml_dtypes.finfo(ELEM_TYPES[out_type].numpy).eps))
        for who, values in (("opgen", got), ("onnxruntime", want)):
            v = values.astype(np.float64)
            if not (np.isclose(v, x * scale, rtol=rtol) | (v == 0)).all():
                return f"{who}: values that are neither 0 nor x / (1 - ratio)"
        return None

    sig.agree = agree
    return sig


RECIPES = {"If": if_op, "Loop": loop, "Scan": scan, "Dropout": dropout_old}
