"""Spec examples run through the kernels: every output compared (variadic outputs tensor by tensor),
per-input element types, shapes the node gives, and an example that omits an output is refused."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_ops
from opgen import testing

from conftest import project_specs

from test_hostile_specs import _errors
from test_spec_errors import GOOD_OP, errors_for

KNOWN = Path(__file__).with_name("known_failures.txt")


def run(op: str, example: dict, free=(), shape_from_node=()) -> None:
    example = {"dtype": "float", "dtypes": {}, "attributes": {}, **example}
    testing.check_example(opgen_ops.get_kernel("hlir", op), opgen_ops.get_validator("hlir", op),
                          opgen_ops.get_signature("hlir", op), example, free, shape_from_node)


def test_variadic_outputs_are_compared_tensor_by_tensor():
    x = np.arange(10.0).reshape(2, 5)
    expected = [part.tolist() for part in np.array_split(x, [2, 4], axis=1)]  # NumPy as the reference
    run("GeneralSplit", {"attributes": {"axis": 1}, "inputs": {"input": x.tolist(), "split": [2, 2, 1]},
                         "outputs": {"outputs": expected}})
    wrong = [expected[0], expected[1], [[0.0], [0.0]]]
    with pytest.raises(AssertionError, match=r"outputs\[2\]"):
        run("GeneralSplit", {"attributes": {"axis": 1}, "inputs": {"input": x.tolist(), "split": [2, 2, 1]},
                             "outputs": {"outputs": wrong}})
    with pytest.raises(AssertionError, match="3 tensors, expected 2"):
        run("GeneralSplit", {"attributes": {"axis": 1}, "inputs": {"input": x.tolist(), "split": [2, 2, 1]},
                             "outputs": {"outputs": expected[:2]}})


def test_integer_outputs_compare_exactly_and_dtypes_apply_per_name():
    run("ShiftLeft", {"dtype": "uint16", "inputs": {"lhs": [1, 2, 40000], "rhs": [1, 2, 1]},
                      "outputs": {"output": [2, 8, 14464]}})  # 80000 mod 2**16, as uint16 wraps
    with pytest.raises(AssertionError):
        run("ShiftLeft", {"dtype": "uint16", "inputs": {"lhs": [1, 2, 40000], "rhs": [1, 2, 1]},
                          "outputs": {"output": [2, 8, 14465]}})
    with pytest.raises(AssertionError, match="dtype"):
        run("ShiftLeft", {"dtype": "uint16", "dtypes": {"output": "uint8"},
                          "inputs": {"lhs": [1], "rhs": [1]}, "outputs": {"output": [2]}})


def test_an_example_that_omits_an_output_is_a_spec_error(tmp_path):
    text = GOOD_OP.replace("    elementwise: {formula: alpha * X}\n", """\
    elementwise: {formula: alpha * X}
    examples:
      - name: e
        inputs: {X: [1.0]}
        outputs: {}
""")
    assert "output 'Y' has no expected value" in _errors(tmp_path, text)


def test_an_example_element_type_its_type_variable_does_not_allow_is_a_spec_error(spec_tree):
    """The example's dtype is every tensor's unless `dtypes` names another; a type its variable does not allow
    is refused at the build, located at the field to change (LapackGeev's complex outputs first took its
    double dtype, and only the generated test and the site failed on it)."""
    example = """\
    elementwise: {formula: alpha * X}
    examples:
      - name: e
        dtype: THE_DTYPE
        dtypes: THE_DTYPES
        inputs: {X: [1.0]}
        outputs: {Y: [1.0]}
"""

    def errors(dtype: str, dtypes: str) -> str:
        text = example.replace("THE_DTYPES", dtypes).replace("THE_DTYPE", dtype)
        return "\n".join(errors_for(spec_tree, GOOD_OP.replace("    elementwise: {formula: alpha * X}\n", text)))

    problems = errors("int32", "{}")
    assert "examples.e.dtype: 'X' is of type T (" in problems and "which int32 is not" in problems
    problems = errors("float", "{Y: int8}")
    assert "examples.e.dtypes.Y: 'Y' is of type T" in problems and "which int8 is not" in problems
    assert "examples.e.dtype:" not in problems
    assert errors("double", "{}") == ""


def test_every_hlir_op_has_an_example_or_a_listed_reason():
    """Every hlir op version runs at least one example through its kernel (the generated tests);
    the exceptions are `example` lines of tests/known_failures.txt, with their reasons."""
    listed = {line.split(":")[0].split(" ", 1)[1] for line in KNOWN.read_text(encoding="utf-8").splitlines()
              if line.startswith("example ")}
    without = {v.key for op in project_specs().ops() if op.domain == "hlir" for v in op.versions if not v.examples}
    assert sorted(without - listed) == [], "give these an example (or list them with the reason)"
    assert sorted(listed - without) == [], f"these have an example now: remove them from {KNOWN.name}"


@pytest.mark.parametrize("value, ok", [
    ("{inputs: [{name: p}], outputs: [{name: p}], nodes: []}", True),
    ("{inputz: [{name: p}], outputs: [{name: p}], nodes: []}", False),
    ("[1, 2]", False),
    ("{inputs: [], outputs: [], nodes: 3}", False),
])
def test_a_graph_attribute_of_an_example_must_be_a_graph(tmp_path, spec_tree, value, ok):
    text = GOOD_OP.replace("        description: {en: Factor., zh: 系数。}\n", """\
        description: {en: Factor., zh: 系数。}
      - name: g
        type: graph
        description: {en: A graph., zh: 子图。}
""", 1).replace("    elementwise: {formula: alpha * X}\n", f"""\
    elementwise: {{formula: alpha * X}}
    examples:
      - name: e
        attributes: {{g: {value}}}
        inputs: {{X: [1.0]}}
        outputs: {{Y: [1.0]}}
""")
    message = "examples.e.attributes.g: a graph attribute is an hlir graph"
    if ok:
        assert errors_for(spec_tree, text) == []
    else:
        assert message in _errors(tmp_path / "bad", text)


@pytest.mark.parametrize("values, dtype, message", [
    ('{X: ["-inf", "nan", 1.0]}\n        outputs: {Y: ["-inf", "nan", 2.0]}', "float", None),
    ('{X: [.inf]}\n        outputs: {Y: [.inf]}', "float", 'spell them "inf", "-inf" or "nan", quoted'),
    ('{X: ["Infinity"]}\n        outputs: {Y: [1.0]}', "float", "'Infinity' is not a finite number"),
    ('{X: ["inf"]}\n        outputs: {Y: ["inf"]}', "int32", "are float values; this tensor's element type is int32"),
])
def test_infinities_and_nan_are_spelled_out_in_float_examples(tmp_path, spec_tree, values, dtype, message):
    """A quoted "inf"/"-inf"/"nan" is a float example value (CTCLoss's alpha holds -inf); YAML's .inf, other
    spellings and non-float tensors are refused."""
    text = GOOD_OP.replace("    elementwise: {formula: alpha * X}\n", f"""\
    elementwise: {{formula: alpha * X}}
    examples:
      - name: e
        dtype: {dtype}
        attributes: {{alpha: 2.0}}
        inputs: {values}
""")
    if message is None:
        assert errors_for(spec_tree, text) == []
    else:
        assert message in _errors(tmp_path / "bad", text)


def test_spelled_infinities_reach_the_kernel_and_the_comparison():
    """The example's "-inf" becomes a float -inf on the way in and is compared as one on the way out:
    Exp(-inf) = 0 and Log(0) = -inf (NumPy as the reference)."""
    run("Exp", {"inputs": {"input": ["-inf", 0.0]}, "outputs": {"output": [float(np.exp(-np.inf)), 1.0]}})
    run("Log", {"inputs": {"input": [0.0, 1.0]}, "outputs": {"output": ["-inf", 0.0]}})
    with pytest.raises(AssertionError):
        run("Log", {"inputs": {"input": [0.0, 1.0]}, "outputs": {"output": ["inf", 0.0]}})


def test_the_site_writes_spelled_infinities_as_python_floats():
    from opgen.site.examples import _value_code

    code = _value_code([["-inf", 1.5], ["nan", "inf"]], "double")
    assert code == '[[float("-inf"), 1.5], [float("nan"), float("inf")]]'
    assert eval(code)[0][0] == -np.inf
