"""One violation, one problem number (issue 11, item 6): a constraint does not re-check what an
earlier one checks (DotGeneral's size rule, Compare's direction), and a constraint that cannot be
evaluated because an earlier one failed adds no "could not be evaluated" problem."""
from __future__ import annotations

import pytest

import opgen_ops

F = "float"
CONV = dict(input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=[2, 3],
            kernel_input_feature_dimension=1, kernel_output_feature_dimension=0, kernel_spatial_dimensions=[2, 3],
            output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=[2, 3],
            window_strides=[1, 1], padding=[0, 0, 0, 0], lhs_dilation=[1, 1], rhs_dilation=[1, 1],
            feature_group_count=1, batch_group_count=1)
DOT = dict(lhs_batching_dimensions=[0], rhs_batching_dimensions=[0], lhs_contracting_dimensions=[2],
           rhs_contracting_dimensions=[1])
PAD = dict(mode="PAD_VALUE", edge_padding_low=[1, 0], edge_padding_high=[0, 2], interior_padding=[0, 1])
SLICE = dict(start_indices=[0, 1], limit_indices=[2, 3], strides=[1, 1])

# op -> (inputs, valid attributes, [(attribute changes, the one constraint expected[, other inputs])])
CASES = {
    "DotGeneral": ([(F, (2, 3, 4)), (F, (2, 4, 5))], DOT, [
        (dict(rhs_batching_dimensions=[]), "C2"),
        (dict(lhs_contracting_dimensions=[2, 1]), "C1"),
        (dict(rhs_batching_dimensions=[1], rhs_contracting_dimensions=[0]), "C3", [(F, (2, 3, 4)), (F, (4, 2, 5))]),
        (dict(lhs_contracting_dimensions=[7]), "C4"),
        (dict(rhs_contracting_dimensions=[0]), "C5"),
        (dict(rhs_contracting_dimensions=[2]), "C6"),
    ]),
    "Slice": ([(F, (4, 5))], SLICE, [
        (dict(start_indices=[0]), "C1"),
        (dict(limit_indices=[2]), "C2"),
        (dict(strides=[1]), "C3"),
        (dict(strides=[1, 0]), "C4"),
        (dict(limit_indices=[9, 3]), "C5"),
    ]),
    "Pad": ([(F, (3, 4)), (F, ())], PAD, [
        (dict(edge_padding_low=[1]), "C1"),
        (dict(edge_padding_high=[0]), "C2"),
        (dict(interior_padding=[0]), "C3"),
        (dict(interior_padding=[0, -1]), "C4"),
    ]),
    "DynamicSlice": ([(F, (4, 5)), ("int64", (2,))], dict(slice_sizes=[2, 2]), [
        (dict(slice_sizes=[2]), "C1"),
        (dict(slice_sizes=[2, 9]), "C3"),
    ]),
    "BatchNormTraining": ([(F, (2, 3, 4)), (F, (3,)), (F, (3,))], dict(epsilon=1e-5, feature_index=1), [
        (dict(feature_index=5), "C1"),
        (dict(), "C2", [(F, (2, 3, 4)), (F, (4,)), (F, (3,))]),
    ]),
    "Conv": ([(F, (1, 2, 5, 5)), (F, (3, 2, 3, 3))], CONV, [
        (dict(), "C1", [(F, (1, 2, 5)), (F, (3, 2, 3, 3))]),
        (dict(kernel_input_feature_dimension=7), "C5"),
        (dict(input_feature_dimension=9), "C4"),
        (dict(window_strides=[1]), "C7"),
        (dict(padding=[0, 0]), "C8"),
        (dict(feature_group_count=3), "C12"),
    ]),
    "Compare": ([(F, (2, 3)), (F, (2, 3))], dict(comparison_direction="LT"), [
        (dict(comparison_direction="XX"), "attribute 'comparison_direction'"),
    ]),
}


@pytest.mark.parametrize("op", sorted(CASES))
def test_valid_use_has_no_problem(op):
    inputs, attrs, _ = CASES[op]
    assert opgen_ops.get_validator("hlir", op)(inputs, attrs) == []


@pytest.mark.parametrize("op,case", [(op, case) for op, (_, _, cases) in sorted(CASES.items()) for case in cases])
def test_each_violation_yields_exactly_one_problem(op, case):
    inputs, attrs, _ = CASES[op]
    change, expected, inputs = case if len(case) == 3 else (*case, inputs)
    problems = opgen_ops.get_validator("hlir", op)(inputs, {**attrs, **change})
    where = [p.where for p in problems]
    assert where == [expected if expected.startswith("attribute") else f"constraint {expected}"], \
        [str(p) for p in problems]
    assert not any("could not be evaluated" in str(p) for p in problems)
