"""Sorts by several keys and sorts of complex values, read as chains of hlir.Sort (opgen.validate.stablehlo_sort).
jax's own comparators run in tests/test_stablehlo.py (the program sort_keys, against jax); here, comparators written
by hand against StableHLO's reference interpreter, and the comparators that are not read."""
from __future__ import annotations

import numpy as np
from conftest import write
from test_stablehlo import stablehlo_interpreter

from opgen.run import run_model
from opgen.validate import read_model, validate_model

# Descending by the first key, ascending by the second among its ties, the third tensor carried along: a
# comparator jax does not write (it sorts descending by reversing), in the form it writes for several keys.
TWO_KEYS = """
func.func @main(%a: tensor<2x6xi32>, %b: tensor<2x6xf64>, %c: tensor<2x6xi1>) -> (tensor<2x6xi32>, tensor<2x6xf64>,
    tensor<2x6xi1>) {
  %0:3 = "stablehlo.sort"(%a, %b, %c) <{dimension = 1 : i64, is_stable = true}> ({
  ^bb0(%a0: tensor<i32>, %a1: tensor<i32>, %b0: tensor<f64>, %b1: tensor<f64>, %c0: tensor<i1>, %c1: tensor<i1>):
    %gt = stablehlo.compare GT, %a0, %a1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %a0, %a1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %lt = stablehlo.compare LT, %b0, %b1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %tie = stablehlo.and %lt, %eq : tensor<i1>
    %r = stablehlo.or %tie, %gt : tensor<i1>
    stablehlo.return %r : tensor<i1>
  }) : (tensor<2x6xi32>, tensor<2x6xf64>, tensor<2x6xi1>) -> (tensor<2x6xi32>, tensor<2x6xf64>, tensor<2x6xi1>)
  return %0#0, %0#1, %0#2 : tensor<2x6xi32>, tensor<2x6xf64>, tensor<2x6xi1>
}
"""


def test_keys_in_either_direction_and_any_operand_order_sort_as_the_interpreter_does(tmp_path):
    """`or(and(LT(b), EQ(a)), GT(a))`: the operands of `or` and `and` in the other order, a descending key. Read
    as two stable hlir.Sort ops (the second key first) and a bool tensor sorted as uint8."""
    path = write(tmp_path / "two_keys.mlir", TWO_KEYS)
    a = np.array([[2, 1, 2, 3, 1, 2], [0, 0, 0, -1, 5, 0]], np.int32)
    b = np.array([[0.5, 3.0, -1.0, 2.0, 0.0, 0.25], [4.0, -3.0, 1.0, 0.0, 2.0, 3.0]])
    c = np.array([[True, False, False, True, True, False], [False, True, True, False, False, True]])
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    got = list(run_model(path, [a, b, c]).values())
    expected = stablehlo_interpreter(TWO_KEYS, [a, b, c])
    assert got[0].tolist() == [[3, 2, 2, 2, 1, 1], [5, 0, 0, 0, 0, -1]]
    for mine, theirs in zip(got, expected):
        assert mine.dtype == theirs.dtype
        np.testing.assert_array_equal(mine, theirs)
    graph, _ = read_model(path)
    sorts = [node for node in graph.nodes if node.op == "Sort"]
    assert [s.attributes["descending"] for s in sorts] == [False, True]  # the last key first
    assert [graph.values[s.inputs[0]].dtype for s in sorts] == ["double", "int32"]  # each key's tensor first
    assert [node.op for node in graph.nodes] == ["Convert", "Sort", "Sort", "Convert"]


COMPLEX_SORT = """
func.func @main(%z: tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>> {
  %0 = "stablehlo.sort"(%z) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%z0: tensor<complex<f64>>, %z1: tensor<complex<f64>>):
    %r0 = stablehlo.real %z0 : (tensor<complex<f64>>) -> tensor<f64>
    %r1 = stablehlo.real %z1 : (tensor<complex<f64>>) -> tensor<f64>
    %i0 = stablehlo.imag %z0 : (tensor<complex<f64>>) -> tensor<f64>
    %i1 = stablehlo.imag %z1 : (tensor<complex<f64>>) -> tensor<f64>
    %lt = stablehlo.compare LT, %r0, %r1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %eq = stablehlo.compare EQ, %r0, %r1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %gt = stablehlo.compare GT, %i0, %i1, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %tie = stablehlo.and %eq, %gt : tensor<i1>
    %r = stablehlo.or %lt, %tie : tensor<i1>
    stablehlo.return %r : tensor<i1>
  }) : (tensor<6xcomplex<f64>>) -> tensor<6xcomplex<f64>>
  return %0 : tensor<6xcomplex<f64>>
}
"""


def test_complex_values_sort_by_their_parts_and_are_joined_again(tmp_path):
    """Real parts ascending, imaginary parts descending among equal real parts: hlir.Real and StablehloImag take
    the parts, two hlir.Sort order them, StablehloComplex joins them. Against the interpreter, by parts (complex
    values do not cross its Python binding: the parts are returned instead)."""
    path = write(tmp_path / "complex_sort.mlir", COMPLEX_SORT)
    z = np.array([1 + 2j, -1 + 0j, 1 + 5j, 0 - 1j, 1 - 3j, -1 + 4j])
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    (got,) = run_model(path, [z]).values()
    parts = COMPLEX_SORT.replace("-> tensor<6xcomplex<f64>> {", "-> (tensor<6xf64>, tensor<6xf64>) {", 1).replace(
        "  return %0 : tensor<6xcomplex<f64>>",
        "  %re = stablehlo.real %0 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>\n"
        "  %im = stablehlo.imag %0 : (tensor<6xcomplex<f64>>) -> tensor<6xf64>\n"
        "  return %re, %im : tensor<6xf64>, tensor<6xf64>")
    constant = "[" + ", ".join(f"({v.real}, {v.imag})" for v in z.tolist()) + "]"
    text = parts.replace("func.func @main(%z: tensor<6xcomplex<f64>>)", "func.func @main()").replace(
        '  %0 = "stablehlo.sort"(%z)',
        f"  %z = stablehlo.constant dense<{constant}> : tensor<6xcomplex<f64>>\n  %0 = \"stablehlo.sort\"(%z)")
    real, imag = stablehlo_interpreter(text, [])
    np.testing.assert_array_equal(got, real + 1j * imag)
    assert got.tolist() == [-1 + 4j, -1 + 0j, 0 - 1j, 1 + 5j, 1 + 2j, 1 - 3j]
    graph, _ = read_model(path)
    assert [node.op for node in graph.nodes] == ["Real", "StablehloImag", "Sort", "Sort", "StablehloComplex"]


def test_a_comparator_that_changes_a_key_is_not_read(tmp_path):
    """A key negated inside the comparator orders otherwise than the key: the sort stays an unknown op, and the
    warning names what the comparator computes."""
    text = TWO_KEYS.replace("%lt = stablehlo.compare LT, %b0, %b1, FLOAT",
                            "%nb0 = stablehlo.negate %b0 : tensor<f64>\n"
                            "    %lt = stablehlo.compare LT, %nb0, %b1, FLOAT")
    path = write(tmp_path / "negated.mlir", text)
    report = validate_model(path)
    assert report.unchecked == {"stablehlo.sort": 1}
    [warning] = report.warnings
    assert warning.node == f"{path}:4:10"
    assert "computes stablehlo.negate of a key" in warning.message
    # the error says the op has a spec that cannot state this use, not that it has none
    [problem] = report.problems
    assert problem.message.startswith("stablehlo.sort stands for hlir.Sort, but this use of it is one hlir.Sort "
                                      "cannot state"), problem.message
    # keys of different operands compared with each other are not keys either
    crossed = TWO_KEYS.replace("compare EQ, %a0, %a1", "compare EQ, %a0, %a0")
    report = validate_model(write(tmp_path / "crossed.mlir", crossed))
    assert report.unchecked == {"stablehlo.sort": 1}
    assert "does not compare one operand's two elements" in report.warnings[0].message
