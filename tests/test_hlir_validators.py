"""Generated hlir validators enforce the machine-checked constraints and shape rules of the specs.

Each case is a use of an op that the text (or the XLA/ONNX definition it follows) allows or
forbids; the expected verdicts come from those rules, not from the validator."""
from __future__ import annotations

import numpy as np
import pytest

import opgen_ops


def problems(op, inputs, attrs=None, outputs=None):
    return [str(p) for p in opgen_ops.get_validator("hlir", op)(inputs, attrs or {}, outputs)]


f32 = lambda *shape: ("float", shape)  # noqa: E731
i64 = lambda *shape: ("int64", shape)  # noqa: E731

VALID = [
    ("Trilu", [f32(3, 4)], {"upper": True, "k": 0}, None),
    ("Glu", [f32(2, 6)], {"dim": 1}, None),
    ("Glu", [f32(4, 3)], {"dim": -2}, None),
    ("GeGlu", [f32(4, 2)], {"dim": -1, "approximate": False}, None),
    ("Gtu", [f32(8)], {"dim": 0}, None),
    ("Dot", [f32(3), f32(3)], {}, None),
    ("Dot", [f32(2, 3), f32(3, 5)], {}, None),
    ("DotGeneral", [f32(7, 2, 3), f32(7, 3, 5)], {"lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0],
                                                  "lhs_contracting_dimensions": [2],
                                                  "rhs_contracting_dimensions": [1]}, None),
    ("Concatenate", [f32(2, 3), f32(4, 3), f32(1, 3)], {"dimension": 0}, None),
    ("Concatenate", [f32(2, 3), f32(2, 5)], {"dimension": -1}, None),
    ("Select", [("bool", (2, 3)), f32(2, 3), f32(2, 3)], {}, None),
    ("Select", [("bool", ()), f32(2, 3), f32(2, 3)], {}, None),
    ("BroadcastInDim", [f32(3, 1)], {"broadcast_dimensions": [1, 2]}, [f32(2, 3, 4)]),
    ("Slice", [f32(5, 6)], {"start_indices": [1, 0], "limit_indices": [5, 6], "strides": [2, 1]}, None),
    ("Add", [f32(2, 3), f32(2, 3)], {}, None),
    ("Add", [f32(2, 3, 4), f32(3)], {"broadcast_dimensions": [1]}, None),
    ("Add", [f32(2, 3), f32()], {}, None),
    ("Compare", [f32(2), f32(2)], {"comparison_direction": "GE"}, None),
]

INVALID = [
    ("Trilu", [f32(4)], {"upper": True, "k": 0}, None, "constraint C1"),
    ("Glu", [f32(2, 5)], {"dim": 1}, None, "must be a multiple of 2"),
    ("Glu", [f32(2, 4)], {"dim": 2}, None, "constraint C1"),
    ("GeGlu", [f32(3)], {"dim": 0, "approximate": True}, None, "C2"),
    ("Dot", [f32(2, 3, 4), f32(4)], {}, None, "constraint C1"),
    ("Dot", [f32(2, 3), f32(4, 5)], {}, None, "contracting sizes differ"),
    ("DotGeneral", [f32(7, 2, 3), f32(6, 3, 5)], {"lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0],
                                                  "lhs_contracting_dimensions": [2],
                                                  "rhs_contracting_dimensions": [1]}, None, "batching sizes differ"),
    ("DotGeneral", [f32(2, 3), f32(3, 5)], {"lhs_batching_dimensions": [], "rhs_batching_dimensions": [],
                                            "lhs_contracting_dimensions": [1, 0],
                                            "rhs_contracting_dimensions": [0]}, None, "constraint C1"),
    ("Concatenate", [f32(2, 3), f32(2, 4)], {"dimension": 0}, None, "differs from inputs[0] shape"),
    ("Concatenate", [f32(2, 3), f32(2, 3)], {"dimension": 2}, None, "outside [-2, 1]"),
    ("DynamicUpdateSlice", [f32(4, 4), f32(5, 1), i64(2)], {}, None, "does not fit"),
    ("Select", [("bool", (3,)), f32(2, 3), f32(2, 3)], {}, None, "must equal [2, 3] or be a scalar"),
    ("Select", [("bool", ()), f32(2, 3), f32(3, 2)], {}, None, "differs from on_false"),
    ("BroadcastInDim", [f32(3, 2)], {"broadcast_dimensions": [1, 2]}, [f32(2, 3, 4)], "cannot broadcast"),
    ("BroadcastInDim", [f32(3)], {"broadcast_dimensions": [1, 2]}, [f32(2, 3, 4)], "constraint C1"),
    ("Slice", [f32(5, 6)], {"start_indices": [3, 0], "limit_indices": [2, 6], "strides": [1, 1]}, None, "C5"),
    ("Slice", [f32(5, 6)], {"start_indices": [0, 0], "limit_indices": [5, 7], "strides": [1, 1]}, None, "C5"),
    ("Slice", [f32(5, 6)], {"start_indices": [0, 0], "limit_indices": [5, 6], "strides": [0, 1]}, None, "C4"),
    ("Add", [f32(2, 3), f32(3, 2)], {}, None, "no broadcast_dimensions is given"),
    ("Add", [f32(2, 3, 4), f32(3)], {"broadcast_dimensions": [2]}, None, "does not match"),
    ("Add", [f32(2, 3, 4), f32(3)], {"broadcast_dimensions": [3]}, None, "must be distinct dimensions"),
    ("Compare", [f32(2), f32(2)], {"comparison_direction": "GREATER"}, None, "value 'GREATER' is not allowed"),
    ("Add", [("bool", (2,)), ("bool", (2,))], {}, None, "dtype bool is not allowed"),
    ("Add", [f32(2), ("double", (2,))], {}, None, "type variable T must be one type"),
]


@pytest.mark.parametrize("op,inputs,attrs,outputs", VALID, ids=[c[0] for c in VALID])
def test_valid_uses_pass(op, inputs, attrs, outputs):
    assert problems(op, inputs, attrs, outputs) == []


@pytest.mark.parametrize("op,inputs,attrs,outputs,fragment", INVALID, ids=[f"{c[0]}-{c[4][:20]}" for c in INVALID])
def test_invalid_uses_are_named(op, inputs, attrs, outputs, fragment):
    found = problems(op, inputs, attrs, outputs)
    assert any(fragment in p for p in found), found
    assert all(p.startswith(f"hlir.{op}@1: ") for p in found)


def test_dynamic_update_slice_accepts_out_of_range_start_indices():
    """They are clamped (spec note start_clamping), so a constant start past the end is valid."""
    operand, update = np.zeros((4, 4), np.float32), np.zeros((2, 2), np.float32)
    assert problems("DynamicUpdateSlice", [operand, update, np.array([2, 2])]) == []
    assert problems("DynamicUpdateSlice", [operand, update, np.array([3, -1])]) == []


def test_unknown_shapes_skip_shape_rules_but_not_dtypes():
    assert problems("Dot", [("float", None), ("float", None)]) == []
    assert problems("Dot", [("float", (2, None)), ("float", (None, 3))]) == []
    assert any("dtype" in p for p in problems("Dot", [("bool", None), ("bool", None)]))


@pytest.mark.parametrize("op,attrs,inputs", [
    ("Map", {"dimensions": [0]}, [f32(3), f32(3)]),
    ("While", {}, [f32(3)]),
    ("If", {}, [("bool", ()), f32(2), f32(2)]),
])
def test_graph_attributes_checked_for_presence_and_kind(op, attrs, inputs):
    sig = opgen_ops.get_signature("hlir", op)
    graphs = [a.name for a in sig.attributes if a.type == "graph"]
    assert graphs
    missing = problems(op, inputs, attrs)
    assert all(any(f"attribute {g!r}: is required" in p for p in missing) for g in graphs), missing
    wrong = problems(op, inputs, {**attrs, **{g: 3 for g in graphs}})
    assert any("expected a graph" in p for p in wrong), wrong
    given = problems(op, inputs, {**attrs, **{g: (lambda *xs: xs) for g in graphs}}, None)
    assert not any("graph" in p for p in given), given


def test_output_counts_are_checked_only_when_outputs_are_given():
    """count(outputs) is unknown when a kernel call gives no outputs: GeneralSplit's C3 and Reduce's C2
    hold for the call and are enforced on a node that lists its outputs."""
    split = (np.array([1, 2], np.int64))
    assert problems("GeneralSplit", [f32(3), split], {"axis": 0}) == []
    assert problems("GeneralSplit", [f32(3), split], {"axis": 0}, [f32(1), f32(2)]) == []
    assert any("C3" in p for p in problems("GeneralSplit", [f32(3), split], {"axis": 0}, [f32(3)]))
    reduce_attrs = {"dimensions": [0], "computation": "MAX"}
    assert problems("Reduce", [f32(3), f32(3), f32(), f32()], reduce_attrs) == []
    assert any("C2" in p for p in problems("Reduce", [f32(3), f32(3), f32(), f32()], reduce_attrs, [f32()]))
