"""Shape rule arguments are declared once, by the rule function's annotations, and the spec checker
refuses an argument naming nothing the op has (issue 11, item 4)."""
from __future__ import annotations

import numpy as np
import pytest

import opgen_ops
from opgen.runtime import shape_rules
from opgen.runtime.shape_rules import RULES, Attr, Param

from test_spec_errors import GOOD_OP, errors_for

SQUEEZE_CONSTRAINT = """\
    constraints:
      - id: C1
        rule: %s
        args: {input: X, axes: %s}
        description: {en: Axes., zh: 轴。}
"""


def op_with_rule(rule: str, axes: str) -> str:
    # GOOD_OP with a second (optional) input to serve as axes, and one rule constraint
    text = GOOD_OP.replace("    outputs:\n", "      - name: axes\n        type: tensor(int64)\n        option: optional\n"
                           "        description: {en: Axes., zh: 轴。}\n    outputs:\n")
    return text.replace("    elementwise: {formula: alpha * X}\n", SQUEEZE_CONSTRAINT % (rule, axes))


@pytest.mark.parametrize("rule", ["squeeze_axes", "unsqueeze_axes"])
def test_rule_argument_naming_a_missing_input_is_refused(spec_tree, rule):
    assert [e for e in errors_for(spec_tree, op_with_rule(rule, "axes")) if "constraints" in e] == []
    errors = [e for e in errors_for(spec_tree, op_with_rule(rule, "no_such_input")) if "constraints" in e]
    text = op_with_rule(rule, "no_such_input")
    line = text.splitlines().index("      - id: C1") + 1
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"specs/demo/Scale.yaml:{line}:")
    assert "demo.Scale@2: constraints.C1.args.axes: no input or output named 'no_such_input'" in errors[0]


def test_attribute_argument_naming_an_input_is_refused(spec_tree):
    text = op_with_rule("squeeze_axes", "alpha")  # alpha is an attribute, axes must name an input
    errors = [e for e in errors_for(spec_tree, text) if "constraints" in e]
    assert len(errors) == 1 and "constraints.C1.args.axes: no input or output named 'alpha'" in errors[0]


def test_every_rule_argument_has_a_declared_kind():
    for rule in RULES.values():
        assert [n for n, _ in rule.kinds] == list(rule.params)
    assert RULES["squeeze_axes"].param_args == ("input", "axes")
    assert RULES["broadcast_in_dim"].param_args == ("operand", "output")
    assert RULES["broadcast_in_dim"].attr_args == ("attribute",)


def test_a_rule_with_an_undeclared_argument_cannot_be_registered():
    def bad_rule(c, input: Param, axes: str) -> str:
        return ""

    with pytest.raises(TypeError, match=r"\['axes'\] must be annotated"):
        shape_rules.rule(bad_rule)
    assert "bad_rule" not in RULES

    def good_rule(c, input: Param, attribute: Attr) -> str:
        return ""

    try:
        assert shape_rules.rule(good_rule) is good_rule
        assert RULES["good_rule"].param_args == ("input",) and RULES["good_rule"].attr_args == ("attribute",)
    finally:
        RULES.pop("good_rule", None)


def test_broadcast_in_dim_takes_the_output_by_argument():
    validate = opgen_ops.get_validator("hlir", "BroadcastInDim")
    x = ("float", (3, 1))
    ok = validate([x], {"broadcast_dimensions": [0, 2]}, outputs=[("float", (3, 4, 5))])
    assert ok == []
    bad = validate([x], {"broadcast_dimensions": [0, 2]}, outputs=[("float", (2, 4, 5))])
    assert [(p.where, p.found) for p in bad] == [
        ("constraint C3", "input dimension 0 (size 3) cannot broadcast to output dimension 0 (size 2)")]


def test_squeeze_axes_runs_with_its_axes_input():
    validate = opgen_ops.get_validator("hlir", "Squeeze")
    problems = validate([np.zeros((1, 3), np.float32), np.array([1], np.int64)], {})
    assert any("not of size 1" in str(p) for p in problems)
