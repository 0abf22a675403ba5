"""A second reference for the hlir kernels: the StableHLO interpreter.

For each hlir op with a StableHLO counterpart a tiny StableHLO module is written as text, run with
jaxlib.mlir.dialects.stablehlo.eval_module (the reference interpreter of the StableHLO spec, which
computes with IEEE semantics: no flushing of subnormals, unlike XLA on CPU) on random inputs, and
compared with the generated hlir kernel. Element-wise ops at least, plus Transpose, Slice, Pad,
Concatenate, DotGeneral and Reduce.

ErfInv (chlo.erf_inv) and ChloTopK (chlo.top_k) are CHLO operations, which the interpreter does not
run; tests/test_hlir_extensions.py compares them with jax. bfloat16 is left out: the interpreter's
Python binding cannot build bfloat16 inputs from NumPy arrays. Where document 004 is explicit and
StableHLO differs, the seed wins and the comparison adapts (PopulationCount's result is int64 in
hlir, the operand's type in StableHLO), or an extension op states StableHLO's meaning (StablehloSign,
StablehloRsqrt, StablehloShiftLeft, Case).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from kernel_refs import assert_matches, kernel, np_dtype, random_array

from jax._src.interpreters import mlir as jax_mlir  # noqa: E402  (after kernel_refs sets up jax)
from jaxlib.mlir import ir  # noqa: E402
from jaxlib.mlir.dialects import stablehlo  # noqa: E402

_MLIR_ELEMENT = {"bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "ui8",
                 "uint16": "ui16", "uint32": "ui32", "uint64": "ui64", "float16": "f16", "float": "f32",
                 "double": "f64"}
_CONTEXT = jax_mlir.make_ir_context()


def tensor_type(dtype: str, shape: tuple[int, ...]) -> str:
    return "tensor<" + "".join(f"{n}x" for n in shape) + _MLIR_ELEMENT[dtype] + ">"


def run_stablehlo(body: str, args: list[tuple[np.ndarray, str]], results: list[tuple[str, tuple[int, ...]]]
                  ) -> list[np.ndarray]:
    """Run `body` (StableHLO ops over %a0, %a1, ... ending in `return`) as the module's main function."""
    params = ", ".join(f"%a{k}: {tensor_type(d, a.shape)}" for k, (a, d) in enumerate(args))
    result_types = ", ".join(tensor_type(d, s) for d, s in results)
    text = f"func.func @main({params}) -> ({result_types}) {{\n{body}\n}}"
    with _CONTEXT, ir.Location.unknown():
        module = ir.Module.parse(text)
        inputs = [ir.DenseElementsAttr.get(np.ascontiguousarray(a), signless=not d.startswith("uint"),
                                           shape=list(a.shape)) for a, d in args]
        outputs = stablehlo.eval_module(module, inputs)
        return [np.array(o).astype(np_dtype(d)).reshape(s) for o, (d, s) in zip(outputs, results)]


SHAPE = (3, 4)
UNARY_FLOATS = ("float16", "float", "double")
INTS = ("int8", "int32", "int64", "uint8", "uint32", "uint64")

# hlir op -> (StableHLO op, dtypes compared, input range)
UNARY: dict[str, tuple[str, tuple[str, ...], tuple[float, float]]] = {
    "Abs": ("abs", UNARY_FLOATS + ("int8", "int32", "int64"), (-4, 4)),
    "Neg": ("negate", UNARY_FLOATS + INTS, (-4, 4)),
    "Exp": ("exponential", UNARY_FLOATS, (-4, 4)),
    "Expm1": ("exponential_minus_one", UNARY_FLOATS, (-4, 4)),
    "Log": ("log", UNARY_FLOATS, (0.01, 8)),
    "Log1p": ("log_plus_one", UNARY_FLOATS, (-0.9, 8)),
    "Sqrt": ("sqrt", UNARY_FLOATS, (0, 8)),
    "Rsqrt": ("rsqrt", UNARY_FLOATS, (0.01, 8)),
    "Cbrt": ("cbrt", UNARY_FLOATS, (-8, 8)),
    "Tanh": ("tanh", UNARY_FLOATS, (-4, 4)),
    "Sin": ("sine", UNARY_FLOATS, (-4, 4)),
    "Cos": ("cosine", UNARY_FLOATS, (-4, 4)),
    "Tan": ("tan", UNARY_FLOATS, (-1.5, 1.5)),
    "Sigmoid": ("logistic", UNARY_FLOATS, (-6, 6)),
    "Floor": ("floor", UNARY_FLOATS, (-4, 4)),
    "Ceil": ("ceil", UNARY_FLOATS, (-4, 4)),
    "Sign": ("sign", UNARY_FLOATS + ("int8", "int32"), (-4, 4)),
    "RoundNearestEven": ("round_nearest_even", UNARY_FLOATS, (-4, 4)),
    "Round": ("round_nearest_afz", UNARY_FLOATS, (-4, 4)),
    "Not": ("not", ("bool",) + INTS, (-100, 100)),
    "IsFinite": ("is_finite", UNARY_FLOATS, (-4, 4)),
    "CountLeadingZeros": ("count_leading_zeros", INTS, (-1000, 1000)),
    "StablehloSign": ("sign", UNARY_FLOATS + ("int8", "int32", "int64"), (-4, 4)),
    "StablehloRsqrt": ("rsqrt", UNARY_FLOATS, (0.01, 8)),
    "PopulationCount": ("popcnt", ("uint8", "uint16", "uint32", "uint64"), (0, 1000)),
}
BINARY: dict[str, tuple[str, tuple[str, ...], tuple[float, float]]] = {
    "Add": ("add", UNARY_FLOATS + INTS, (-100, 100)),
    "Sub": ("subtract", UNARY_FLOATS + INTS, (-100, 100)),
    "Multiply": ("multiply", UNARY_FLOATS + INTS, (-100, 100)),
    "Div": ("divide", UNARY_FLOATS + INTS, (-100, 100)),
    "Rem": ("remainder", UNARY_FLOATS + INTS, (-100, 100)),
    "Max": ("maximum", UNARY_FLOATS + INTS, (-100, 100)),
    "Min": ("minimum", UNARY_FLOATS + INTS, (-100, 100)),
    "Atan2": ("atan2", UNARY_FLOATS, (-4, 4)),
    "And": ("and", ("bool",) + INTS, (-100, 100)),
    "Or": ("or", ("bool",) + INTS, (-100, 100)),
    "Xor": ("xor", ("bool",) + INTS, (-100, 100)),
    "ShiftLeft": ("shift_left", INTS, (0, 70)),
    "StablehloShiftLeft": ("shift_left", INTS, (-70, 70)),
    "ShiftRightLogical": ("shift_right_logical", INTS, (0, 70)),
    "ShiftRightArithmetic": ("shift_right_arithmetic", INTS, (0, 70)),
}
_RESULT_TYPE = {"IsFinite": "bool"}  # a result type other than the operand's


def allowed(op: str, dtypes: tuple[str, ...]) -> list[str]:
    import opgen_ops

    constraint = opgen_ops.get_signature("hlir", op, 1).type_constraints
    first = opgen_ops.get_signature("hlir", op, 1).inputs[0].type
    return [d for d in dtypes if d in constraint.get(first, ())]


def cases(table: dict[str, tuple[str, tuple[str, ...], tuple[float, float]]]) -> list[tuple[str, str]]:
    return [(op, d) for op, (_, dtypes, _) in table.items() for d in allowed(op, dtypes)]


def inputs_for(op: str, dtype: str, count: int, span: tuple[float, float], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    arrays = [random_array(rng, SHAPE, dtype, *span) for _ in range(count)]
    if op in ("Div", "Rem") and dtype not in UNARY_FLOATS:
        arrays[1] = np.where(arrays[1] == 0, np.ones_like(arrays[1]), arrays[1])  # both define x / 0; kept apart
    return arrays


def compare(op: str, got: np.ndarray, want: np.ndarray, dtype: str) -> None:
    assert_matches(np.asarray(got), want, dtype if got.dtype.kind == "f" else "", label=f"{op} {dtype}")


@pytest.mark.parametrize("op,dtype", cases(UNARY), ids=[f"{o}-{d}" for o, d in cases(UNARY)])
def test_unary(op, dtype):
    name, _, span = UNARY[op]
    (x,) = inputs_for(op, dtype, 1, span, seed=len(op))
    (got,) = kernel(op)(x)
    result = "int64" if op == "PopulationCount" else _RESULT_TYPE.get(op, dtype)
    stablehlo_result = dtype if op == "PopulationCount" else result  # popcnt keeps the operand's type
    body = f"%r = stablehlo.{name} %a0 : ({tensor_type(dtype, SHAPE)}) -> {tensor_type(stablehlo_result, SHAPE)}\n" \
           f"return %r : {tensor_type(stablehlo_result, SHAPE)}"
    (want,) = run_stablehlo(body, [(x, dtype)], [(stablehlo_result, SHAPE)])
    compare(op, got, want.astype(np_dtype(result)), dtype)


@pytest.mark.parametrize("op,dtype", cases(BINARY), ids=[f"{o}-{d}" for o, d in cases(BINARY)])
def test_binary(op, dtype):
    name, _, span = BINARY[op]
    lhs, rhs = inputs_for(op, dtype, 2, span, seed=len(op))
    # hlir ShiftLeft types its amount int64 (the document), StableHLO the operand's type; same values
    (got,) = kernel(op)(lhs, rhs.astype(np.int64) if op == "ShiftLeft" else rhs)
    t = tensor_type(dtype, SHAPE)
    body = f"%r = stablehlo.{name} %a0, %a1 : {t}\nreturn %r : {t}"
    (want,) = run_stablehlo(body, [(lhs, dtype), (rhs, dtype)], [(dtype, SHAPE)])
    compare(op, got, want, dtype)


@pytest.mark.parametrize("direction", ["EQ", "NE", "LT", "LE", "GT", "GE"])
def test_compare_and_select(direction):
    rng = np.random.default_rng(7)
    lhs, rhs = (rng.integers(-3, 3, SHAPE).astype(np.float32) for _ in range(2))
    (pred,) = kernel("Compare")(lhs, rhs, comparison_direction=direction)
    (chosen,) = kernel("Select")(pred, lhs, rhs)
    t, b = tensor_type("float", SHAPE), tensor_type("bool", SHAPE)
    body = (f"%p = stablehlo.compare {direction}, %a0, %a1, FLOAT : ({t}, {t}) -> {b}\n"
            f"%s = stablehlo.select %p, %a0, %a1 : {b}, {t}\nreturn %p, %s : {b}, {t}")
    want_pred, want_chosen = run_stablehlo(body, [(lhs, "float"), (rhs, "float")], [("bool", SHAPE), ("float", SHAPE)])
    np.testing.assert_array_equal(pred, want_pred)
    np.testing.assert_array_equal(chosen, want_chosen)


def test_clamp_and_reduce_precision():
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(SHAPE) * 1000).astype(np.float32)
    low, high = np.float32(-500), np.float32(700)
    (clamped,) = kernel("Clamp")(np.full(SHAPE, low), x, np.full(SHAPE, high))
    (reduced,) = kernel("ReducePrecision")(x, exponent_bits=5, mantissa_bits=3)
    t = tensor_type("float", SHAPE)
    body = (f"%c = stablehlo.clamp %a1, %a0, %a2 : {t}\n"
            f"%r = stablehlo.reduce_precision %a0, format = e5m3 : {t}\nreturn %c, %r : {t}, {t}")
    bounds = [(np.full(SHAPE, low), "float"), (np.full(SHAPE, high), "float")]
    want_c, want_r = run_stablehlo(body, [(x, "float"), *bounds], [("float", SHAPE), ("float", SHAPE)])
    np.testing.assert_array_equal(clamped, want_c)
    np.testing.assert_array_equal(reduced, want_r)


StructuralCase = tuple[str, Callable[[list[np.ndarray]], tuple[np.ndarray, ...]], str,
                       list[tuple[tuple[int, ...], str]], list[tuple[str, tuple[int, ...]]]]


def _structural() -> list[StructuralCase]:
    """(label, hlir call, StableHLO body, input shapes and types, result types and shapes)."""
    f32 = "float"
    t = tensor_type
    return [
        ("transpose", lambda a: kernel("Transpose")(a[0], permutation=[2, 0, 1]),
         f"%r = stablehlo.transpose %a0, dims = [2, 0, 1] : ({t(f32, (2, 3, 4))}) -> {t(f32, (4, 2, 3))}\n"
         f"return %r : {t(f32, (4, 2, 3))}", [((2, 3, 4), f32)], [(f32, (4, 2, 3))]),
        ("slice", lambda a: kernel("Slice")(a[0], start_indices=[1, 0], limit_indices=[5, 5], strides=[2, 3]),
         f"%r = stablehlo.slice %a0 [1:5:2, 0:5:3] : ({t('int32', (6, 5))}) -> {t('int32', (2, 2))}\n"
         f"return %r : {t('int32', (2, 2))}", [((6, 5), "int32")], [("int32", (2, 2))]),
        ("pad", lambda a: kernel("Pad")(a[0], a[1], mode="PAD_VALUE", edge_padding_low=[1, -1],
                                        edge_padding_high=[0, 2], interior_padding=[1, 0]),
         f"%r = stablehlo.pad %a0, %a1, low = [1, -1], high = [0, 2], interior = [1, 0] : "
         f"({t(f32, (3, 4))}, {t(f32, ())}) -> {t(f32, (6, 5))}\nreturn %r : {t(f32, (6, 5))}",
         [((3, 4), f32), ((), f32)], [(f32, (6, 5))]),
        ("concatenate", lambda a: kernel("Concatenate")(a[0], a[1], dimension=1),
         f"%r = stablehlo.concatenate %a0, %a1, dim = 1 : ({t('int64', (2, 3))}, {t('int64', (2, 1))}) -> "
         f"{t('int64', (2, 4))}\nreturn %r : {t('int64', (2, 4))}", [((2, 3), "int64"), ((2, 1), "int64")],
         [("int64", (2, 4))]),
        ("dot_general", lambda a: kernel("DotGeneral")(a[0], a[1], lhs_batching_dimensions=[0],
                                                       rhs_batching_dimensions=[0], lhs_contracting_dimensions=[2],
                                                       rhs_contracting_dimensions=[1]),
         f"%r = stablehlo.dot_general %a0, %a1, batching_dims = [0] x [0], contracting_dims = [2] x [1] : "
         f"({t('double', (2, 3, 4))}, {t('double', (2, 4, 5))}) -> {t('double', (2, 3, 5))}\n"
         f"return %r : {t('double', (2, 3, 5))}", [((2, 3, 4), "double"), ((2, 4, 5), "double")],
         [("double", (2, 3, 5))]),
        ("reduce_add", lambda a: kernel("Reduce")(a[0], a[1], computation="ADD", dimensions=[1]),
         f"%r = stablehlo.reduce(%a0 init: %a1) applies stablehlo.add across dimensions = [1] : "
         f"({t('int32', (3, 4))}, {t('int32', ())}) -> {t('int32', (3,))}\nreturn %r : {t('int32', (3,))}",
         [((3, 4), "int32"), ((), "int32")], [("int32", (3,))]),
        ("reduce_max", lambda a: kernel("Reduce")(a[0], a[1], computation="MAX", dimensions=[0, 1]),
         f"%r = stablehlo.reduce(%a0 init: %a1) applies stablehlo.maximum across dimensions = [0, 1] : "
         f"({t('double', (3, 4))}, {t('double', ())}) -> {t('double', ())}\nreturn %r : {t('double', ())}",
         [((3, 4), "double"), ((), "double")], [("double", ())]),
    ]


STRUCTURAL = _structural()


@pytest.mark.parametrize("case", STRUCTURAL, ids=[c[0] for c in STRUCTURAL])
def test_structural(case):
    label, call, body, inputs, results = case
    rng = np.random.default_rng(9)
    arrays = [random_array(rng, shape, dtype, -9, 9) for shape, dtype in inputs]
    got = call(arrays)
    want = run_stablehlo(body, list(zip(arrays, [d for _, d in inputs])), results)
    assert len(got) == len(want)
    for g, w, (dtype, _) in zip(got, want, results):
        assert_matches(np.asarray(g), w, dtype, label=label)


def test_reduce_window_with_explicit_padding():
    """ReduceWindow's padding (note explicit_padding) as jax's cumsum states it; the initial value is
    the identity (StableHLO pads with it, hlir skips padded positions: the same sums)."""
    rng = np.random.default_rng(10)
    x = random_array(rng, (3, 4), "double", -9, 9)
    zero = np.zeros((), np.float64)
    (got,) = kernel("ReduceWindow")(x, zero, computation="ADD", window_dimensions=[1, 4], padding=[0, 3, 0, 0])
    t, s = tensor_type("double", (3, 4)), tensor_type("double", ())
    body = (f'%r = "stablehlo.reduce_window"(%a0, %a1) <{{padding = dense<[[0, 0], [3, 0]]> : tensor<2x2xi64>, '
            f'window_dimensions = array<i64: 1, 4>}}> ({{\n^bb0(%x: {s}, %y: {s}):\n'
            f'  %z = stablehlo.add %x, %y : {s}\n  stablehlo.return %z : {s}\n}}) : ({t}, {s}) -> {t}\n'
            f'return %r : {t}')
    (want,) = run_stablehlo(body, [(x, "double"), (zero, "double")], [("double", (3, 4))])
    assert_matches(np.asarray(got), want, "double", label="reduce_window padding")


ARGMAX_BODY = """\
%r:2 = stablehlo.reduce(%a0 init: %a2), (%a1 init: %a3) across dimensions = [1]
    : ({v}, {i}, tensor<f64>, tensor<i64>) -> (tensor<3xf64>, tensor<3xi64>)
  reducer(%va: tensor<f64>, %vb: tensor<f64>) (%ia: tensor<i64>, %ib: tensor<i64>) {{
    %gt = stablehlo.compare GT, %va, %vb, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %nan = stablehlo.compare NE, %va, %va, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %pick = stablehlo.or %gt, %nan : tensor<i1>
    %eq = stablehlo.compare EQ, %va, %vb, FLOAT : (tensor<f64>, tensor<f64>) -> tensor<i1>
    %lt = stablehlo.compare LT, %ia, %ib, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    %tie = stablehlo.and %eq, %lt : tensor<i1>
    %pick_index = stablehlo.or %pick, %tie : tensor<i1>
    %v = stablehlo.select %pick, %va, %vb : tensor<i1>, tensor<f64>
    %i = stablehlo.select %pick_index, %ia, %ib : tensor<i1>, tensor<i64>
    stablehlo.return %v, %i : tensor<f64>, tensor<i64>
  }}
return %r#0, %r#1 : tensor<3xf64>, tensor<3xi64>"""


def test_reduce_argmax_of_values_and_iota():
    """jax's argmax body (the reader reads it as Reduce ARGMAX, stablehlo_argminmax) on ties and NaN."""
    rng = np.random.default_rng(11)
    x = np.round(rng.normal(size=(3, 5)), 0)  # small integers: ties
    x[2, 3] = np.nan
    iota = np.broadcast_to(np.arange(5, dtype=np.int64), (3, 5)).copy()
    inits = [np.array(-np.inf), np.array(0, np.int64)]
    got = kernel("Reduce")(x, iota, *inits, computation="ARGMAX", dimensions=[1])
    body = ARGMAX_BODY.format(v=tensor_type("double", (3, 5)), i=tensor_type("int64", (3, 5)))
    want = run_stablehlo(body, [(x, "double"), (iota, "int64"), (inits[0], "double"), (inits[1], "int64")],
                         [("double", (3,)), ("int64", (3,))])
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_array_equal(got[1], want[1])


CASE_BODY = """\
%r = "stablehlo.case"(%a0) ({{
  stablehlo.return %a1 : {t}
}}, {{
  %n = stablehlo.negate %a1 : {t}
  stablehlo.return %n : {t}
}}, {{
  %e = stablehlo.exponential %a1 : {t}
  stablehlo.return %e : {t}
}}) : (tensor<i32>) -> {t}
return %r : {t}"""


@pytest.mark.parametrize("index", [-1, 0, 1, 2, 3])
def test_case_with_captured_operands(index, tmp_path):
    """StableHLO's case read as hlir.Case (branches capturing %a1) and run, against the interpreter;
    an index outside [0, 3) runs the last branch."""
    from opgen.run import run_model

    x = np.array([1.5, -2.0, 0.5])
    t = tensor_type("double", (3,))
    body = CASE_BODY.format(t=t)
    (want,) = run_stablehlo(body, [(np.array(index, np.int32), "int32"), (x, "double")], [("double", (3,))])
    program = tmp_path / "case.mlir"
    program.write_text(f"func.func @main(%a0: tensor<i32>, %a1: {t}) -> ({t}) {{\n{body}\n}}\n", encoding="utf-8")
    (got,) = run_model(program, [np.array(index, np.int32), x]).values()
    np.testing.assert_array_equal(got, want)


IF_BODY = """\
%r:2 = "stablehlo.if"(%a0) ({{
  %n = stablehlo.negate %a1 : {t}
  stablehlo.return %n, %a1 : {t}, {t}
}}, {{
  %e = stablehlo.exponential %a1 : {t}
  stablehlo.return %a1, %e : {t}, {t}
}}) : (tensor<i1>) -> ({t}, {t})
return %r#0, %r#1 : {t}, {t}"""


@pytest.mark.parametrize("pred", [True, False])
def test_if_with_captured_operands(pred, tmp_path):
    """StableHLO's if read as hlir.Case over [false_branch, true_branch] (the predicate converted to an
    int32 index) and run, against the interpreter; opgen validate finds nothing to report."""
    from opgen.run import run_model
    from opgen.validate import validate_model

    x = np.array([1.5, -2.0, 0.5])
    t = tensor_type("double", (3,))
    body = IF_BODY.format(t=t)
    want = run_stablehlo(body, [(np.array(pred), "bool"), (x, "double")], [("double", (3,)), ("double", (3,))])
    program = tmp_path / "if.mlir"
    program.write_text(f"func.func @main(%a0: tensor<i1>, %a1: {t}) -> ({t}, {t}) {{\n{body}\n}}\n",
                       encoding="utf-8")
    assert validate_model(program).problems == []
    got = list(run_model(program, [np.array(pred), x]).values())
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)
