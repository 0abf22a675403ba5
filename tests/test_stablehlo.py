"""StableHLO programs (jax.jit(f).lower(...).as_text(), jax.export artifacts) read into opgen's graph
model, validated against the hlir specs and run on the reference kernels, compared with jax on CPU."""
from __future__ import annotations

import re
import sys
from typing import Any
from pathlib import Path

import numpy as np
import pytest
from conftest import write
from jax_programs import TOLERANCES, programs
from test_spec_errors import DOMAIN, GOOD_OP

from opgen.parse import load_specs
from opgen.run import ModelError, run_model
from opgen.validate import ModelReadError, read_model, validate_model

# ---- the `stablehlo` field of the specs ----------------------------------------------------------------

def test_a_stablehlo_name_stands_for_one_op_of_a_domain(spec_tree):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    field = "category: activation\nstablehlo: [stablehlo.exponential]\n"
    write(spec_tree / "demo" / "Scale.yaml", GOOD_OP.replace("category: activation\n", field))
    write(spec_tree / "demo" / "Other.yaml", GOOD_OP.replace("name: Scale", "name: Other")
          .replace("category: activation\n", field))
    specs, errors = load_specs(spec_tree)
    shown = [str(e) for e in errors if e.severity == "error"]
    assert len(shown) == 1, shown
    assert "Scale.yaml" in shown[0] and "demo.Scale" in shown[0] and "stablehlo[0]" in shown[0]
    assert "stablehlo.exponential is already listed by demo.Other" in shown[0]
    assert specs.find("demo", "Other").stablehlo == ("stablehlo.exponential",)


def test_a_stablehlo_name_must_name_a_stablehlo_or_chlo_op(spec_tree):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Scale.yaml",
          GOOD_OP.replace("category: activation\n", "category: activation\nstablehlo: [mhlo.exp]\n"))
    _, errors = load_specs(spec_tree)
    shown = [str(e) for e in errors if e.severity == "error"]
    assert len(shown) == 1 and "stablehlo" in shown[0] and "mhlo.exp" in shown[0], shown


# ---- real jax programs ---------------------------------------------------------------------------------

KNOWN = Path(__file__).with_name("known_failures.txt")
PROGRAMS = programs()
# Problems other than unknown ops that a program has today, by (op, where). None: hlir.Sort types each
# tensor on its own (note operand_types), so argsort's float64 keys with int64 indices validate.
OTHER_PROBLEMS: dict[str, set[tuple[str, str]]] = {}


def known_needs() -> dict[str, set[str]]:
    """`stablehlo <program>: needs op, op[; why]` lines of tests/known_failures.txt."""
    needs = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line.startswith("stablehlo "):
            program, reason = line[len("stablehlo "):].split(": ", 1)
            assert reason.startswith("needs "), line
            needs[program] = {op.strip() for op in reason[len("needs "):].split(";")[0].split(",")}
    return needs


def lowered(name: str, tmp_path: Path) -> Path:
    import jax

    function, args = PROGRAMS[name]
    path = tmp_path / f"{name}.mlir"
    path.write_text(jax.jit(function).lower(*args).as_text(), encoding="utf-8")
    return path


def test_the_known_failures_name_real_programs():
    assert set(known_needs()) <= set(PROGRAMS)
    assert len(PROGRAMS) >= 15


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_jax_program_validates_and_runs_as_jax_computes_it(name, tmp_path):
    import jax

    path = lowered(name, tmp_path)
    report = validate_model(path)
    needs = known_needs().get(name, set())
    assert set(report.unchecked) == needs, (f"the ops without an hlir op changed: update the line of {name} in "
                                            f"{KNOWN.name}\n{report.to_text()}")
    others = {(r.op, r.where) for r in report.problems if r.where != "op"}
    assert others == OTHER_PROBLEMS.get(name, set()), report.to_text()
    for record in report.records:  # every node problem is located at the program's FILE:line:column
        if record.index is not None:
            assert re.fullmatch(re.escape(str(path)) + r":\d+:\d+", record.node), record
    if needs or others:
        assert not report.valid
        return
    assert report.valid, report.to_text()
    function, args = PROGRAMS[name]
    results = run_model(path, list(args))
    expected = jax.tree_util.tree_leaves(jax.jit(function)(*args))
    assert len(results) == len(expected)
    for got, want in zip(results.values(), expected):
        want = np.asarray(want)
        assert got.dtype == want.dtype and got.shape == want.shape
        tolerance = TOLERANCES.get(name, 1e-12)
        if isinstance(tolerance, dict):
            tolerance = tolerance.get(str(want.dtype), 1e-12)
        np.testing.assert_allclose(got.astype(np.float64) if want.dtype.kind == "V" else got,
                                   want.astype(np.float64) if want.dtype.kind == "V" else want,
                                   rtol=tolerance, atol=1e-12)


def test_inputs_by_name_and_unknown_ops_as_warnings(tmp_path):
    path = lowered("mlp", tmp_path)
    x = PROGRAMS["mlp"][1][0]
    by_position, by_name = run_model(path, [x]), run_model(path, {"arg0": x})
    np.testing.assert_array_equal(list(by_position.values())[0], list(by_name.values())[0])
    with pytest.raises(ModelError, match="2 inputs given by position; the model has 1: 'arg0'"):
        run_model(path, [x, x])
    # a user's own custom call: no spec will ever name its target
    custom = "func.func public @main(%arg0: tensor<3xf64>) -> tensor<3xf64> {\n" \
             "  %0 = stablehlo.custom_call @my_kernel(%arg0) : (tensor<3xf64>) -> tensor<3xf64>\n" \
             "  %1 = stablehlo.add %0, %arg0 : tensor<3xf64>\n  return %1 : tensor<3xf64>\n}\n"
    report = validate_model(write(tmp_path / "custom.mlir", custom), allow_unknown_ops=True)
    assert report.valid and set(report.unchecked) == {"stablehlo.custom_call@my_kernel"}, report.to_text()
    assert {r.message.split(";")[0] for r in report.warnings} == {"no spec for stablehlo.custom_call@my_kernel"}


# ---- declared result types, artifacts, the command line, jaxlib missing --------------------------------

MATMUL = """\
module @jit_matmul {
  func.func public @main(%arg0: tensor<2x3xf64>, %arg1: tensor<3x4xf64>) -> (tensor<2x4xf64>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT]
        : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
    return %0 : tensor<2x4xf64>
  }
}
"""


def test_a_wrong_declared_result_type_is_reported_at_its_line_and_column(tmp_path):
    import jax

    text = jax.jit(lambda a, b: a @ b).lower(np.ones((2, 3)), np.ones((3, 4))).as_text()
    line = next(k for k, t in enumerate(text.splitlines(), 1) if "stablehlo.dot_general" in t)
    column = text.splitlines()[line - 1].index("stablehlo.dot_general") + 1
    path = write(tmp_path / "matmul.mlir", text.replace("tensor<2x4xf64>", "tensor<2x4xf32>"))
    report = validate_model(path)
    assert [(r.node, r.op, r.where) for r in report.problems] == [(f"{path}:{line}:{column}", "hlir.DotGeneral@1",
                                                                   "output 'output'")]
    assert "dtype float differs from double" in report.problems[0].message
    # A shape the op cannot produce is refused by StableHLO's own verifier, at the same place.
    write(path, text.replace("tensor<2x4xf64>", "tensor<2x5xf64>"))
    with pytest.raises(ModelReadError, match=re.escape(f"{path}:{line}:{column}: inferred shape '[2, 4]'")):
        validate_model(path)


def test_a_portable_artifact_from_jax_export_reads_and_runs(tmp_path):
    import jax
    from jax import export

    function, args = PROGRAMS["mlp"]
    exported = export.export(jax.jit(function))(*args)
    path = tmp_path / "mlp.mlirbc"
    path.write_bytes(exported.mlir_module_serialized)
    report = validate_model(path)
    assert report.valid and report.nodes == validate_model(lowered("mlp", tmp_path)).nodes
    np.testing.assert_allclose(list(run_model(path, list(args)).values())[0], np.asarray(function(*args)),
                               rtol=1e-12)
    graph, _ = read_model(exported.mlir_module_serialized)  # bytes: recognised by their content
    assert graph.inputs == ["arg0"] and all(re.search(r":\d+:\d+$", n.name) for n in graph.nodes)


def test_cli_validates_and_runs_a_program(tmp_path):
    from click.testing import CliRunner

    from opgen.cli import main

    path = write(tmp_path / "matmul.mlir", MATMUL)
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    runner = CliRunner()
    checked = runner.invoke(main, ["validate", str(path)])
    assert checked.exit_code == 0 and "0 problems in 0 of 1 node" in checked.output
    ran = runner.invoke(main, ["run", str(path), "--input", f"arg0={tmp_path / 'a.npy'}", "--input",
                               f"arg1={tmp_path / 'b.npy'}", "--output-dir", str(tmp_path / "out")])
    assert ran.exit_code == 0, ran.output
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "v1.npy"), a @ b)
    write(path, MATMUL.replace("dot_general", "dot_generol"))
    broken = runner.invoke(main, ["validate", str(path)])
    assert broken.exit_code == 2 and f"{path}:3:10" in broken.output


def test_without_jaxlib_reading_a_program_says_what_to_install(tmp_path, monkeypatch):
    path = write(tmp_path / "matmul.mlir", MATMUL)
    monkeypatch.setitem(sys.modules, "jaxlib.mlir", None)  # import jaxlib.mlir now fails
    with pytest.raises(ModelReadError, match=re.escape("pip install 'opgen[xla]'")):
        validate_model(path)
    with pytest.raises(ModelError, match=re.escape("pip install 'opgen[xla]'")) as failed:
        run_model(path, [np.ones((2, 3)), np.ones((3, 4))])
    assert failed.value.exit_code == 2


POWER_REDUCE = """\
func.func public @main(%arg0: tensor<3x4xf64>, %arg1: tensor<f64>) -> tensor<3xf64> {
  %0 = stablehlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<3x4xf64>, tensor<f64>) -> tensor<3xf64>
    reducer(%a: tensor<f64>, %b: tensor<f64>) {
      %p = stablehlo.power %a, %b : tensor<f64>
      stablehlo.return %p : tensor<f64>
    }
  return %0 : tensor<3xf64>
}
"""


def test_what_hlir_cannot_state_is_said_at_the_operation(tmp_path):
    path = write(tmp_path / "power.mlir", POWER_REDUCE)
    report = validate_model(path)
    [warning] = report.warnings
    assert warning.op == "stablehlo.reduce" and warning.node == f"{path}:2:24"
    assert "its region (stablehlo.power, stablehlo.return) is not one of the computations hlir states" in \
        warning.message
    assert report.unchecked == {"stablehlo.reduce": 1}
    # A precision the hlir op has no place for is dropped, with a warning; DEFAULT is no loss.
    path = write(tmp_path / "matmul.mlir", MATMUL.replace("[DEFAULT, DEFAULT]", "[HIGHEST, HIGHEST]"))
    report = validate_model(path)
    assert report.valid and [(r.node, r.where) for r in report.warnings] == [(f"{path}:3:10", "attributes")]
    assert report.warnings[0].message.startswith("dropped precision_config = [#stablehlo<precision HIGHEST>")
    # A total-order comparison is read for floats of a static shape (test_total_order_comparisons_...);
    # one of a dynamic shape stays an unknown op, said at the operation.
    compare = """\
func.func public @main(%arg0: tensor<?xf64>, %arg1: tensor<?xf64>) -> tensor<?xi1> {
  %0 = stablehlo.compare LT, %arg0, %arg1, TOTALORDER : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xi1>
  return %0 : tensor<?xi1>
}
"""
    path = write(tmp_path / "compare.mlir", compare)
    report = validate_model(path)
    assert report.unchecked == {"stablehlo.compare": 1} and report.warnings[0].node == f"{path}:2:8"
    assert "compare_type TOTALORDER on double of no static shape" in report.warnings[0].message


TOTAL_ORDER = """\
func.func public @main(%x: tensor<10xf64>, %y: tensor<10xf64>, %a: tensor<10xf32>, %b: tensor<10xf32>)
    -> (tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>) {
  %0 = stablehlo.compare LT, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %1 = stablehlo.compare LE, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %2 = stablehlo.compare GT, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %3 = stablehlo.compare GE, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %4 = stablehlo.compare EQ, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %5 = stablehlo.compare NE, %x, %y, TOTALORDER : (tensor<10xf64>, tensor<10xf64>) -> tensor<10xi1>
  %6 = stablehlo.compare LT, %a, %b, TOTALORDER : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>, tensor<10xi1>,
    tensor<10xi1>, tensor<10xi1>
}
"""


def test_total_order_comparisons_run_as_xla_computes_them(tmp_path):
    """TOTALORDER: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN, which hlir.Compare (IEEE 754's
    comparisons) does not state; read as a signed comparison of integers made from the bits
    (opgen.validate.stablehlo_total_order). The reference is XLA on CPU, through jax's total-order
    comparisons (the primitives jnp.searchsorted binds; jax exports no other name for them). StableHLO's
    reference interpreter is none here: it ignores compare_type (its LT gives false for -0.0 < +0.0)."""
    import jax
    from jax._src.lax.lax import eq_to_p, le_to_p, lt_to_p

    path = write(tmp_path / "total_order.mlir", TOTAL_ORDER)
    negative_nan = -np.float64("nan")
    x = np.array([-0.0, 0.0, np.nan, negative_nan, np.inf, -np.inf, 1.5, -2.0, np.nan, 3.0])
    y = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, negative_nan, 1.5, -1.0, np.nan, -0.0])
    a, b = x.astype(np.float32), y[::-1].astype(np.float32)
    assert np.signbit(x[3]) and np.signbit(a[3])  # the sign of the NaN survives the conversion
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    got = list(run_model(path, [x, y, a, b]).values())

    def xla(x: Any, y: Any, a: Any, b: Any) -> Any:  # LT LE GT GE EQ NE of x and y, LT of a and b
        return (lt_to_p.bind(x, y), le_to_p.bind(x, y), lt_to_p.bind(y, x), le_to_p.bind(y, x), eq_to_p.bind(x, y),
                ~eq_to_p.bind(x, y), lt_to_p.bind(a, b))

    expected = [np.asarray(out) for out in jax.jit(xla)(x, y, a, b)]
    assert len(got) == len(expected) == 7
    for mine, theirs in zip(got, expected):
        np.testing.assert_array_equal(mine, theirs)
    assert got[0].tolist()[:6] == [True, False, False, True, True, False]  # -0<+0, not NaN<inf, -NaN<-inf


BATCH_NORM = """\
func.func @main(%x: tensor<2x3x4xf64>, %s: tensor<3xf64>, %o: tensor<3xf64>, %m: tensor<3xf64>, %v: tensor<3xf64>)
    -> (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>) {
  %0 = "stablehlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 0.5 : f32, feature_index = 1 : i64}
    : (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> tensor<2x3x4xf64>
  %1:3 = "stablehlo.batch_norm_training"(%x, %s, %o) {epsilon = 0.5 : f32, feature_index = 1 : i64}
    : (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>)
  return %0, %1#0, %1#1, %1#2 : tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>
}
"""


def test_batch_norms_run_as_torch_computes_them(tmp_path):
    """jax emits no batch_norm_* (and StableHLO's interpreter runs none): torch is the reference."""
    import torch

    rng = np.random.default_rng(3)
    args = [rng.normal(size=(2, 3, 4)), rng.normal(size=3), rng.normal(size=3), rng.normal(size=3), rng.random(3) + 0.5]
    results = list(run_model(write(tmp_path / "bn.mlir", BATCH_NORM), args).values())
    x, scale, offset, mean, variance = (torch.tensor(a) for a in args)
    batch_variance, batch_mean = torch.var_mean(x, dim=(0, 2), unbiased=False)
    expected = [torch.nn.functional.batch_norm(x, mean, variance, scale, offset, training=False, eps=0.5),
                torch.nn.functional.batch_norm(x, None, None, scale, offset, training=True, eps=0.5),
                batch_mean, batch_variance]
    for got, want in zip(results, expected):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-12, atol=1e-12)


def test_argmax_and_argmin_read_as_reduce_and_other_pair_reductions_stay_unknown(tmp_path):
    """jax's argmax/argmin reduce (values and an iota) is hlir.Reduce ARGMAX/ARGMIN; ties and NaNs
    give jax's indices (the first); a body in which the higher index wins is not read as one."""
    import jax
    import jax.numpy as jnp

    x = np.random.default_rng(15).normal(size=(4, 6))
    x[0, 2] = x[0, 4] = x[1, 1] = x[1, 5] = 9.0  # ties of the maximum along rows and columns
    x[2, 3] = x[3, 0] = np.nan

    def arg(v):
        return jnp.argmin(v, axis=0), jnp.argmax(v, axis=1), jnp.argmax(v[:2], axis=0)

    text = jax.jit(arg).lower(x).as_text()
    path = write(tmp_path / "arg.mlir", text)
    report = validate_model(path)
    assert report.valid, report.to_text()
    for got, want in zip(run_model(path, [x]).values(), jax.jit(arg)(x)):
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want)
    last_wins = re.sub(r"compare LT, (%\w+), (%\w+), SIGNED", r"compare GT, \1, \2, SIGNED", text)
    assert last_wins != text
    report = validate_model(write(tmp_path / "last.mlir", last_wins))
    assert report.unchecked == {"stablehlo.reduce": 3}
    assert "jax's argmax/argmin of values and an iota" in report.warnings[0].message


def test_bfloat16_constants_are_read_in_either_of_mlirs_spellings(tmp_path):
    """A bfloat16 constant that is not a splat could not be read (the MLIR bindings give no buffer for
    ml_dtypes' types): every bfloat16 program with a weight failed. Its elements are now read from the
    text, as decimal literals with 0x bit patterns for infinities and NaN, or as the raw bytes MLIR prints
    for large constants; both give jax's result."""
    import jax
    import jax.numpy as jnp
    import ml_dtypes

    # products exact in bfloat16: XLA on CPU keeps a bfloat16 product in float32 when a convert to float32
    # follows (it rounded 1.2890625 * 0.10009765625 to 0.129032..., not to bfloat16), opgen rounds each op
    weights = np.array([1.5, -2.0, np.inf, -np.inf, np.nan, 0.25, -0.0, 3e38], ml_dtypes.bfloat16)

    def scaled(x):
        return (x.astype(jnp.bfloat16) * jnp.asarray(weights)).astype(jnp.float32)

    x = np.arange(-3.0, 5.0)
    text = jax.jit(scaled).lower(x).as_text()
    literal = re.search(r"dense<\[[^\]]*\]> : tensor<8xbf16>", text)
    assert literal is not None and "0x" in literal.group(), text  # decimals, and bit patterns for inf and NaN
    raw = text.replace(literal.group(), f'dense<"0x{weights.tobytes().hex().upper()}"> : tensor<8xbf16>')
    want = np.asarray(jax.jit(scaled)(x))
    for name, program in (("literal", text), ("raw", raw)):
        (got,) = run_model(write(tmp_path / f"{name}.mlir", program), [x]).values()
        np.testing.assert_array_equal(got, want, err_msg=name)


BATCHED = """\
func.func @main(%x: tensor<4x5xf64>, %i: tensor<4x2xi32>, %u: tensor<4x2xf64>) -> (tensor<4x2xf64>, tensor<4x5xf64>) {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1],
      operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>,
      indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<4x5xf64>, tensor<4x2xi32>) -> tensor<4x2xf64>
  %1 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers =
      #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0],
      scatter_dims_to_operand_dims = [1], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%a: tensor<f64>, %b: tensor<f64>):
      %2 = stablehlo.add %a, %b : tensor<f64>
      stablehlo.return %2 : tensor<f64>
    }) : (tensor<4x5xf64>, tensor<4x2xi32>, tensor<4x2xf64>) -> tensor<4x5xf64>
  return %0, %1 : tensor<4x2xf64>, tensor<4x5xf64>
}
"""


def stablehlo_interpreter(text: str, args: list[np.ndarray]) -> list[np.ndarray]:
    """The StableHLO reference interpreter that jaxlib ships, on a program's text."""
    from jax.interpreters import mlir as jax_mlir
    from jaxlib.mlir import ir
    from jaxlib.mlir.dialects import stablehlo

    with jax_mlir.make_ir_context(), ir.Location.unknown():
        module = ir.Module.parse(text)
        return [np.array(out) for out in stablehlo.eval_module(module, [ir.DenseElementsAttr.get(a) for a in args])]


DOT_BATCHING = """
func.func @main(%a: tensor<2x5x3x4xf64>, %b: tensor<4x2x6x3xf64>) -> tensor<2x3x5x6xf64> {
  %0 = stablehlo.dot_general %a, %b, batching_dims = [0, 2] x [1, 3], contracting_dims = [3] x [0]
      : (tensor<2x5x3x4xf64>, tensor<4x2x6x3xf64>) -> tensor<2x3x5x6xf64>
  return %0 : tensor<2x3x5x6xf64>
}
"""


INT8_PRODUCT = """
func.func @main(%a: tensor<3x6xi8>, %b: tensor<6x2xi8>) -> tensor<3x2xi32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<3x6xi8>, tensor<6x2xi8>) -> tensor<3x2xi32>
  return %0 : tensor<3x2xi32>
}
"""


def test_int8_products_into_int32_are_computed_in_int32(tmp_path):
    """A dot_general whose result type is wider than its operands' (preferred_element_type, as quantized
    models multiply int8 into int32): each operand converted to int32 first (hlir's DotGeneral has one type
    variable), so sums beyond int8 and int16 come out whole. The reference: StableHLO's own interpreter."""
    path = write(tmp_path / "int8.mlir", INT8_PRODUCT)
    a = np.full((3, 6), 127, np.int8)
    a[1] = -128
    b = np.array([[127, -128]] * 6, np.int8)
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    (expected,) = stablehlo_interpreter(INT8_PRODUCT, [a, b])
    (got,) = run_model(path, [a, b]).values()
    assert got.dtype == np.int32 and expected[0, 0] == 6 * 127 * 127
    np.testing.assert_array_equal(got, expected)
    graph, _ = read_model(path)
    assert [node.op for node in graph.nodes] == ["Convert", "Convert", "DotGeneral"]


def test_an_element_type_opgen_does_not_read_refuses_the_program_at_its_value(tmp_path):
    """Every 8-bit float type jax writes is read (the fnuz ones were values of no type once, which the run then
    computed in another type); a type opgen has no name for (f8E3M4) refuses the program, naming the value,
    rather than leave it unchecked and compute it wrongly."""
    program = """\
func.func public @main(%x: tensor<3xf32>) -> tensor<3xTYPE> {
  %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xTYPE>
  return %0 : tensor<3xTYPE>
}
"""
    path = write(tmp_path / "fnuz.mlir", program.replace("TYPE", "f8E4M3FNUZ"))
    report = validate_model(path)
    assert report.valid, report.to_text()
    from jax import lax

    x = np.array([51.27, 300.0, -0.0], np.float32)  # 300 is beyond e4m3fnuz's 240; it has no -0
    (got,) = run_model(path, [x]).values()
    want = np.asarray(lax.convert_element_type(x, got.dtype))
    assert str(got.dtype) == "float8_e4m3fnuz" and got.tobytes() == want.tobytes()
    path = write(tmp_path / "e3m4.mlir", program.replace("TYPE", "f8E3M4"))
    with pytest.raises(ModelReadError, match=re.escape(f"{path}:2:8 result 0: element type f8E3M4 is none of")):
        read_model(path)


def test_batching_dimensions_numbered_differently_are_transposed_to_the_front(tmp_path):
    """hlir.DotGeneral's C3 (document 004) wants both operands to number their batching dimensions alike;
    StableHLO does not (jax.nn.dot_product_attention pairs [0, 2] with [1, 2]). Each operand is transposed
    so that its batching dimensions lead, its other dimensions keeping their order, which leaves the
    result as it was. The reference: StableHLO's own interpreter."""
    path = write(tmp_path / "dot.mlir", DOT_BATCHING)
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=(2, 5, 3, 4)), rng.normal(size=(4, 2, 6, 3))
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    (expected,) = stablehlo_interpreter(DOT_BATCHING, [a, b])
    (got,) = run_model(path, [a, b]).values()
    assert got.shape == expected.shape == (2, 3, 5, 6)
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-13)
    graph, _ = read_model(path)
    transposes = [node for node in graph.nodes if node.op == "Transpose"]
    assert [node.attributes["permutation"] for node in transposes] == [[0, 2, 1, 3], [1, 3, 0, 2]]
    (dot,) = [node for node in graph.nodes if node.op == "DotGeneral"]
    assert (dot.attributes["lhs_batching_dimensions"], dot.attributes["rhs_batching_dimensions"],
            dot.attributes["lhs_contracting_dimensions"], dot.attributes["rhs_contracting_dimensions"]) == \
        ([0, 1], [0, 1], [3], [2])


def test_batching_dimensions_are_read_as_explicit_indices(tmp_path):
    """hlir's Gather and ScatterND have no batching dimensions: each pair becomes one more index component
    (the position along the indices dimension, an hlir.Iota), here with the implicit trailing index vector
    (index_vector_dim = rank) and an index out of range, which both sides clamp (gather) or drop (scatter).
    The reference: StableHLO's own interpreter."""
    path = write(tmp_path / "batched.mlir", BATCHED)
    x = np.arange(20.0).reshape(4, 5)
    i = np.array([[0, 4], [1, 1], [3, 9], [4, 0]], dtype=np.int32)
    u = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    expected = stablehlo_interpreter(BATCHED, [x, i, u])
    got = list(run_model(path, [x, i, u]).values())
    assert len(got) == 2 and got[0][2, 1] == 14.0  # row 2, index 9 clamped to the last column
    for mine, theirs in zip(got, expected):
        np.testing.assert_array_equal(mine, theirs)
    graph, _ = read_model(path)
    added = [node for node in graph.nodes if node.op in ("Reshape", "Iota", "Concatenate")]
    assert [node.op for node in added] == ["Reshape", "Iota", "Concatenate"] * 2
    assert {node.name for node in added} == {f"{path}:2:8", f"{path}:5:8"}  # located at their operations


def test_bfloat16_arithmetic_is_computed_in_float32_as_xla_does(tmp_path):
    """Document 004 gives Add and DotGeneral no bfloat16 (the specs keep that): a bfloat16 operation is read
    as the hlir op on float32 values converted from and back to bfloat16, at the operation's location;
    an op whose types take bfloat16 (Multiply, an extension op) is read as it is. Adding in float32 and
    rounding once is the correctly rounded bfloat16 sum: here 1 + 2**-8 rounds to even, 1 + 3 * 2**-8 up."""
    import ml_dtypes

    program = """\
func.func public @main(%x: tensor<2xbf16>, %y: tensor<2xbf16>) -> (tensor<2xbf16>, tensor<2xbf16>) {
  %0 = stablehlo.add %x, %y : tensor<2xbf16>
  %1 = stablehlo.multiply %x, %y : tensor<2xbf16>
  return %0, %1 : tensor<2xbf16>, tensor<2xbf16>
}
"""
    path = write(tmp_path / "bf16.mlir", program)
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    graph, _ = read_model(path)
    assert [(node.op, node.name) for node in graph.nodes] == [
        ("Convert", f"{path}:2:8"), ("Convert", f"{path}:2:8"), ("Add", f"{path}:2:8"), ("Convert", f"{path}:2:8"),
        ("Multiply", f"{path}:3:8")]
    assert [graph.values[name].dtype for name in graph.nodes[2].inputs + graph.nodes[2].outputs] == ["float"] * 3
    bf16 = ml_dtypes.bfloat16
    x, y = np.array([1.0, 1.0], bf16), np.array([2.0 ** -8, 3 * 2.0 ** -8], bf16)
    total, product = run_model(path, [x, y]).values()
    assert total.dtype == bf16 and total.tolist() == [1.0, 1.0 + 2.0 ** -6]
    assert product.tolist() == [2.0 ** -8, 3 * 2.0 ** -8]


BOOL_SCATTER = """\
func.func public @main(%x: tensor<6xi1>, %i: tensor<3x1xi32>, %u: tensor<3xi1>) -> tensor<6xi1> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{indices_are_sorted = false, scatter_dimension_numbers =
      #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>,
      unique_indices = false}> ({
    ^bb0(%a: tensor<i1>, %b: tensor<i1>):
      stablehlo.COMBINE
    }) : (tensor<6xi1>, tensor<3x1xi32>, tensor<3xi1>) -> tensor<6xi1>
  return %0 : tensor<6xi1>
}
"""


_COMBINED = "%c = stablehlo.{} %a, %b : tensor<i1>\n      stablehlo.return %c : tensor<i1>"


@pytest.mark.parametrize("combine, widened", [("stablehlo.return %b : tensor<i1>", True),
                                              (_COMBINED.format("or"), True), (_COMBINED.format("add"), False)])
def test_a_scatter_of_bools_is_read_in_uint8_when_it_selects(tmp_path, combine, widened):
    """jnp.unique(size=...) scatters bools, replacing (UPDATE): read in uint8 like Select, as OR is (bits that
    stay 0 or 1); a scatter that adds bools is not (its repeated indices would count in uint8) and keeps its
    type errors. The reference: StableHLO's own interpreter, repeated indices included."""
    program = BOOL_SCATTER.replace("stablehlo.COMBINE", combine)
    path = write(tmp_path / "scatter.mlir", program)
    report = validate_model(path)
    if not widened:
        assert not report.valid and {r.op for r in report.problems} == {"hlir.ScatterND@1"}
        return
    assert report.valid and not report.unchecked, report.to_text()
    x = np.array([True, False, False, True, False, True])
    i = np.array([[1], [4], [1]], np.int32)
    u = np.array([True, True, False])
    (expected,) = stablehlo_interpreter(program, [x, i, u])
    (got,) = run_model(path, [x, i, u]).values()
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, expected)


COMPLEX_REDUCE = """\
func.func public @main(%z: tensor<4xcomplex<f64>>) -> tensor<complex<f64>> {
  %init = stablehlo.constant dense<(INIT, 0.0)> : tensor<complex<f64>>
  %0 = stablehlo.reduce(%z init: %init) applies stablehlo.COMBINE across dimensions = [0]
      : (tensor<4xcomplex<f64>>, tensor<complex<f64>>) -> tensor<complex<f64>>
  return %0 : tensor<complex<f64>>
}
"""


def test_a_complex_sum_is_computed_on_the_parts_and_a_product_is_not(tmp_path):
    """A reduction that adds complex numbers adds the real parts and the imaginary parts apart (jnp.sum):
    read on the parts, as Pad and Add are. One that multiplies mixes them, is not split, and keeps the type
    errors of hlir's reduction (no complex type)."""
    path = write(tmp_path / "sum.mlir", COMPLEX_REDUCE.replace("INIT", "0.0").replace("COMBINE", "add"))
    report = validate_model(path)
    assert report.valid, report.to_text()
    z = np.array([1 + 2j, -3.5 + 0.25j, 2e-3 - 1j, 4 + 0j])
    (total,) = run_model(path, [z]).values()
    assert total.dtype == np.complex128 and total == z.sum()
    assert [node.op for node in read_model(path)[0].nodes].count("StablehloReduce") == 2
    path = write(tmp_path / "product.mlir", COMPLEX_REDUCE.replace("INIT", "1.0").replace("COMBINE", "multiply"))
    report = validate_model(path)
    assert not report.valid and {r.op for r in report.problems} == {"hlir.StablehloReduce@1"}


def test_bool_values_are_selected_in_uint8_but_never_summed_there(tmp_path):
    """Document 004 gives Select no bool: its bool operands are read as uint8 (false 0, true 1) and its
    result converted back, while the predicate stays bool. An op that sums bools (dot_general: a count
    of 256 trues would wrap to 0 in uint8) is not widened, and keeps its type errors at its location."""
    select = """\
func.func public @main(%p: tensor<300xi1>, %a: tensor<300xi1>, %b: tensor<300xi1>) -> tensor<300xi1> {
  %0 = stablehlo.select %p, %a, %b : tensor<300xi1>, tensor<300xi1>
  return %0 : tensor<300xi1>
}
"""
    path = write(tmp_path / "select.mlir", select)
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    graph, _ = read_model(path)
    assert [(node.op, node.name) for node in graph.nodes] == [
        ("Convert", f"{path}:2:8"), ("Convert", f"{path}:2:8"), ("Select", f"{path}:2:8"), ("Convert", f"{path}:2:8")]
    node = graph.nodes[2]
    assert [graph.values[name].dtype for name in node.inputs + node.outputs] == ["bool", "uint8", "uint8", "uint8"]
    rng = np.random.default_rng(3)
    p, a, b = (rng.random(300) > 0.5 for _ in range(3))
    (result,) = run_model(path, [p, a, b]).values()
    assert result.dtype == np.bool_ and np.array_equal(result, np.where(p, a, b))

    dot = """\
func.func public @main(%a: tensor<300xi1>, %b: tensor<300xi1>) -> tensor<i1> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [0] x [0] : (tensor<300xi1>, tensor<300xi1>) -> tensor<i1>
  return %0 : tensor<i1>
}
"""
    path = write(tmp_path / "dot.mlir", dot)
    report = validate_model(path)
    assert [(r.node, r.op, r.where) for r in report.problems] == [
        (f"{path}:2:8", "hlir.DotGeneral@1", where) for where in ("input 'lhs'", "input 'rhs'", "output 'output'")]
    assert [node.op for node in read_model(path)[0].nodes] == ["DotGeneral"]


def test_a_custom_call_is_read_by_its_target(tmp_path):
    """A custom call stands for the op whose spec names its target (stablehlo.custom_call@lapack_dtrsm_ffi is
    LapackTrsm, with its flags from mhlo.backend_config); another target is an unknown op named by its target."""
    trsm = """\
  %0 = stablehlo.custom_call @lapack_dtrsm_ffi(%a, %b) {mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8,
      trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}}
      : (tensor<2x2xf64>, tensor<2x1xf64>) -> tensor<2x1xf64>
"""
    path = write(tmp_path / "calls.mlir", f"""\
func.func public @main(%a: tensor<2x2xf64>, %b: tensor<2x1xf64>) -> (tensor<2x1xf64>, tensor<2x1xf64>) {{
{trsm}  %1 = stablehlo.custom_call @my_kernel(%b) : (tensor<2x1xf64>) -> tensor<2x1xf64>
  return %0, %1 : tensor<2x1xf64>, tensor<2x1xf64>
}}
""")
    report = validate_model(path)
    assert report.unchecked == {"stablehlo.custom_call@my_kernel": 1}
    graph, _ = read_model(path)
    assert [(node.domain, node.op) for node in graph.nodes] == [("hlir", "LapackTrsm"),
                                                                ("stablehlo", "custom_call@my_kernel")]
    assert graph.nodes[0].attributes == {"side": "L", "uplo": "L", "trans_x": "T", "diag": "N"}
    path = write(tmp_path / "trsm.mlir", f"""\
func.func public @main(%a: tensor<2x2xf64>, %b: tensor<2x1xf64>) -> tensor<2x1xf64> {{
{trsm}  return %0 : tensor<2x1xf64>
}}
""")
    a, b = np.array([[2.0, 99.0], [1.0, 4.0]]), np.array([[4.0], [8.0]])
    (x,) = run_model(path, [a, b]).values()
    np.testing.assert_allclose(x, np.linalg.solve(np.tril(a).T, b), rtol=1e-15)  # L^T x = b, the 99 unread


def test_complex_values_are_moved_as_their_parts(tmp_path):
    """004's Pad and Select take no complex type: a complex operand is taken apart (Real, StablehloImag), the op
    runs on the real and on the imaginary parts, and StablehloComplex joins them; Select's predicate is shared.
    Complex constants are read from the program's text, splats and lists, infinities and NaNs written as bits."""
    program = """\
func.func public @main(%z: tensor<3xcomplex<f64>>, %p: tensor<3xi1>)
    -> (tensor<5xcomplex<f64>>, tensor<3xcomplex<f64>>) {
  %c = stablehlo.constant dense<(1.5,-2.0)> : tensor<complex<f64>>
  %0 = stablehlo.pad %z, %c, low = [1], high = [1], interior = [0]
      : (tensor<3xcomplex<f64>>, tensor<complex<f64>>) -> tensor<5xcomplex<f64>>
  %k = stablehlo.constant dense<[(1.0,2.0), (0x7FF0000000000000,-0.0), (3.0,0x7FF8000000000000)]>
      : tensor<3xcomplex<f64>>
  %1 = stablehlo.select %p, %z, %k : tensor<3xi1>, tensor<3xcomplex<f64>>
  return %0, %1 : tensor<5xcomplex<f64>>, tensor<3xcomplex<f64>>
}
"""
    path = write(tmp_path / "parts.mlir", program)
    report = validate_model(path)
    assert report.valid and not report.unchecked, report.to_text()
    graph, _ = read_model(path)
    assert [node.op for node in graph.nodes] == [
        "Constant", "Real", "Real", "Pad", "StablehloImag", "StablehloImag", "Pad", "StablehloComplex",
        "Constant", "Real", "Real", "Select", "StablehloImag", "StablehloImag", "Select", "StablehloComplex"]
    select = graph.nodes[11]
    assert graph.values[select.inputs[0]].dtype == "bool" and graph.values[select.outputs[0]].dtype == "double"
    z, p = np.array([1 + 1j, 2 - 2j, 3j]), np.array([True, False, False])
    padded, selected = run_model(path, [z, p]).values()
    np.testing.assert_array_equal(padded, np.pad(z, 1, constant_values=1.5 - 2j))
    np.testing.assert_array_equal(selected, np.where(p, z, [1 + 2j, complex(np.inf, -0.0), complex(3, np.nan)]))
    assert np.signbit(selected[1].imag)
