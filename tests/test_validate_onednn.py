"""`opgen validate` on oneDNN Graph JSON (the serialization benchdnn's --graph driver reads).

Valid graphs follow the three slope rules of the oneDNN PReLU documentation (per-channel for NCX
and NXC, rightmost dimension, full-shape nD slope) in f32, bf16 and f16; the rejected ones break a
rule or use a data type outside the documented f32/bf16/f16 table.
"""
from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from opgen.cli import main
from opgen.validate import ModelReadError, validate_model

from conftest import ROOT

DATA = ROOT / "tests" / "data"


def tensor(tid, dtype, shape, prop="undef"):
    strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
    return {"id": tid, "dtype": dtype, "shape": list(shape), "stride": strides, "layout_type": "strided",
            "property_type": prop}


def prelu_op(op_id, src, slope, dst, data_format="NXC", per_channel=True, name=None, dtype="f32"):
    """A PReLU op in benchdnn style; src/slope/dst are (tensor id, shape)."""
    return {"id": op_id, "name": name or f"prelu_{op_id}", "kind": "PReLU",
            "attrs": {"data_format": {"type": "string", "value": data_format},
                      "per_channel_broadcast": {"type": "bool", "value": int(per_channel)}},
            "inputs": [tensor(src[0], dtype, src[1]), tensor(slope[0], dtype, slope[1], "constant")],
            "outputs": [tensor(dst[0], dtype, dst[1])]}


def graph(*ops):
    return {"version": "3.5.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": list(ops)}


# (case, src shape, slope shape, data_format, per_channel_broadcast)
VALID = [
    ("per_channel_ncx", (2, 16, 5, 5), (16,), "NCX", True),
    ("per_channel_nxc", (2, 5, 5, 16), (16,), "NXC", True),
    ("per_channel_ncx_3d", (2, 8, 3, 4, 4), (8,), "NCX", True),
    ("rightmost_dimension", (2, 16, 5, 7), (7,), "NCX", False),
    ("rightmost_dimension_nxc", (2, 5, 7, 16), (16,), "NXC", False),
    ("full_shape", (4, 16, 3, 4), (4, 16, 3, 4), "NCX", True),
    ("full_shape_nxc", (4, 3, 4, 16), (4, 3, 4, 16), "NXC", False),
    ("nd_ones", (4, 16, 3, 4), (1, 16, 1, 1), "NCX", True),
]

INVALID = [
    ("per_channel_length", (2, 16, 5, 5), (15,), "NCX", True, "channel dimension (axis 1 for NCX)"),
    ("per_channel_nxc_reads_last_axis", (2, 16, 5, 5), (16,), "NXC", True, "channel dimension (axis 3 for NXC)"),
    ("rightmost_length", (2, 16, 5, 7), (16,), "NCX", False, "rightmost dimension"),
    ("nd_mismatch", (4, 16, 3, 4), (4, 8, 3, 4), "NCX", True, "rule 3"),
]


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("case,src,slope,fmt,per_channel", VALID, ids=[c[0] for c in VALID])
def test_benchdnn_style_prelu_graphs_validate(case, src, slope, fmt, per_channel, dtype):
    doc = graph(prelu_op(0, (0, src), (1, slope), (2, src), fmt, per_channel, dtype=dtype))
    report = validate_model(doc)
    assert report.valid and report.records == [], report.to_text()
    assert report.kind == "onednn" and report.nodes == 1


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16"])
@pytest.mark.parametrize("case,src,slope,fmt,per_channel,fragment", INVALID, ids=[c[0] for c in INVALID])
def test_mismatched_slopes_are_rejected(case, src, slope, fmt, per_channel, fragment, dtype):
    doc = graph(prelu_op(0, (0, src), (1, slope), (2, src), fmt, per_channel, name="bad", dtype=dtype))
    report = validate_model(doc)
    assert len(report.problems) == 1, report.to_text()
    (problem,) = report.problems
    assert problem.op == "onednn.PReLU@1" and problem.where == "constraint C1" and fragment in problem.message
    assert problem.node == "bad" and problem.index == 0


@pytest.mark.parametrize("dtype,elem", [("s8", "int8"), ("u8", "uint8"), ("s32", "int32"), ("f64", "double")])
def test_data_types_outside_the_table_are_rejected(dtype, elem):
    doc = graph(prelu_op(0, (0, (2, 16, 5, 5)), (1, (16,)), (2, (2, 16, 5, 5)), "NCX", dtype=dtype))
    report = validate_model(doc)
    wheres = sorted(r.where for r in report.problems)
    assert wheres == ["input 'slope'", "input 'src'", "output 'dst'"], report.to_text()
    assert all(f"dtype {elem} is not allowed; allowed (T): float, bfloat16, float16" in r.message
               for r in report.problems)


def test_mixed_data_types_are_rejected():
    op = prelu_op(0, (0, (2, 16)), (1, (16,)), (2, (2, 16)), "NXC")
    op["inputs"][1]["dtype"] = "bf16"
    report = validate_model(graph(op))
    assert [r.where for r in report.problems] == ["input 'slope'"]
    assert "type variable T must be one type" in report.problems[0].message


def test_attribute_types_follow_the_spec():
    op = prelu_op(0, (0, (2, 16)), (1, (16,)), (2, (2, 16)), "NXC")
    op["attrs"]["per_channel_broadcast"] = {"type": "s64", "value": 1}
    op["attrs"]["data_format"] = {"type": "string", "value": "NHWC"}
    op["attrs"]["alpha"] = {"type": "f32", "value": 0.5}
    report = validate_model(graph(op))
    messages = sorted(str(r) for r in report.problems)
    assert len(messages) == 3, messages
    assert "attribute 'alpha': is not an attribute of this op" in messages[0]
    assert "attribute 'data_format': value 'NHWC' is not allowed; allowed: NCX, NXC" in messages[1]
    assert "attribute 'per_channel_broadcast': expected a bool attribute, found s64 1" in messages[2]


def test_defaults_apply_when_attributes_are_absent():
    op = prelu_op(0, (0, (2, 5, 16)), (1, (16,)), (2, (2, 5, 16)))
    del op["attrs"]
    assert validate_model(graph(op)).valid  # NXC, per channel: the last axis
    op = prelu_op(0, (0, (2, 16, 5)), (1, (16,)), (2, (2, 16, 5)))
    del op["attrs"]
    assert not validate_model(graph(op)).valid


def test_chained_ops_in_any_file_order():
    second = prelu_op(1, (2, (2, 16, 5, 5)), (1, (16,)), (3, (2, 16, 5, 5)), "NCX")
    first = prelu_op(0, (0, (2, 16, 5, 5)), (1, (16,)), (2, (2, 16, 5, 5)), "NCX")
    report = validate_model(graph(second, first))  # the consumer is written first
    assert report.valid and report.nodes == 2, report.to_text()


def test_unknown_dimensions_keep_the_known_ones_checked():
    # -1 is an unknown dimension: the channel dimension is still known (16), and a slope of 15 can never fit.
    op = prelu_op(0, (0, (-1, 16, -1, -1)), (1, (15,)), (2, (-1, 16, -1, -1)), "NCX")
    assert [r.where for r in validate_model(graph(op)).problems] == ["constraint C1"]
    op = prelu_op(0, (0, (-1, -1, -1, -1)), (1, (15,)), (2, (-1, -1, -1, -1)), "NCX")
    assert validate_model(graph(op)).valid  # the channel count may be 15
    op = prelu_op(0, (0, (2, 16, 3, 3)), (1, (15,)), (2, (-1, 16, -1, -1)), "NCX")
    assert not validate_model(graph(op)).valid


INT64_MIN = -(2**63)  # DNNL_GRAPH_UNKNOWN_DIM in oneDNN 3.x (dnnl_graph_types.h)


def test_dnnl_graph_unknown_dim_is_an_unknown_dimension():
    # A file of this project's own, with the marker as benchdnn's dynamic-shape graphs hold it.
    result = CliRunner().invoke(main, ["validate", str(DATA / "onednn_prelu_unknown_batch.json")])
    assert result.exit_code == 0, result.output
    unknown = (INT64_MIN, 16, INT64_MIN, INT64_MIN)
    op = prelu_op(0, (0, unknown), (1, (16,)), (2, (INT64_MIN, 16, INT64_MIN, 3)), "NCX")
    assert validate_model(graph(op)).valid
    op = prelu_op(0, (0, unknown), (1, (15,)), (2, (INT64_MIN, 16, INT64_MIN, 3)), "NCX")
    assert [r.where for r in validate_model(graph(op)).problems] == ["constraint C1"]
    op = prelu_op(0, (0, unknown), (1, (16,)), (2, (INT64_MIN, 8, INT64_MIN, 3)), "NCX")
    assert [r.where for r in validate_model(graph(op)).problems] == ["constraint C2"]  # dst is not src's shape
    op = prelu_op(0, (0, (2, 16, 3, 3)), (1, (15,)), (2, (INT64_MIN, 16, INT64_MIN, INT64_MIN)), "NCX")
    assert [r.where for r in validate_model(graph(op)).problems] == ["constraint C1"]


@pytest.mark.parametrize("dim", [-5, -2, INT64_MIN + 1, -(2**62)])
def test_impossible_dimensions_are_located_read_errors(dim, tmp_path):
    op = prelu_op(0, (0, (2, 16, 3, 3)), (1, (16,)), (2, (2, 16, 3, 3)), "NCX")
    op["outputs"][0]["shape"][2] = dim
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(graph(op)))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output == (f"opgen validate: {path}: graph[0].outputs[0].shape: dimension {dim} is outside "
                             "[0, 281474976710656] (axis 2)\n")


def test_graph_problems():
    cyclic = [prelu_op(0, (0, (2, 4)), (1, (4,)), (2, (2, 4)), name="a"),
              prelu_op(1, (2, (2, 4)), (3, (4,)), (3, (2, 4)), name="b")]  # b's output is its own slope
    report = validate_model(graph(*cyclic))
    assert any(r.where == "nodes" and "form a cycle: node 'b' (#1)" in r.message for r in report.problems)
    twice = [prelu_op(0, (0, (2, 4)), (1, (4,)), (2, (2, 4)), name="a"),
             prelu_op(1, (0, (2, 4)), (1, (4,)), (2, (2, 4)), name="b")]
    report = validate_model(graph(*twice))
    assert [str(r) for r in report.problems] == [
        "node 'b' (#1): onednn.PReLU: output '2': value '2' is produced twice (a graph is in single static "
        "assignment form)"]


def test_inconsistent_tensor_descriptions_are_reported():
    first = prelu_op(0, (0, (2, 16)), (1, (16,)), (2, (2, 16)), "NXC")
    second = prelu_op(1, (2, (2, 16)), (1, (16,)), (3, (2, 16)), "NXC", dtype="bf16")
    second["inputs"][1]["dtype"] = "f32"
    report = validate_model(graph(first, second))
    described = [r for r in report.problems if r.where == "logical tensor 2"]
    assert len(described) == 1
    assert "described as bfloat16 [2, 16] by op 'prelu_1' (#1) but as float [2, 16] by op 'prelu_0' (#0)" in \
        described[0].message


def test_ops_without_a_spec():
    # Erf is not a oneDNN Graph operation (the domain has a spec for every documented one)
    doc = graph({"id": 0, "name": "erf", "kind": "Erf", "inputs": [tensor(0, "f32", (2,))],
                 "outputs": [tensor(1, "f32", (2,))]})
    report = validate_model(doc)
    assert [r.message for r in report.problems] == ["no spec for onednn.Erf (88 ops in onednn) "
                                                    "(--allow-unknown-ops makes this a warning)"]
    relaxed = validate_model(doc, allow_unknown_ops=True)
    assert not relaxed.valid and relaxed.unchecked == {"onednn.Erf": 1}  # nothing was checked


@pytest.mark.parametrize("doc,fragment", [
    ({"graph": [{"kind": "PReLU", "inputs": [{"dtype": "f32"}]}]}, 'integer "id"'),
    ({"graph": [{"kind": "PReLU", "inputs": [{"id": 0, "shape": [2, "x"]}]}]}, "list of integers"),
    ({"graph": [{"kind": "PReLU", "inputs": [{"id": 0, "shape": [-7]}]}]}, "dimension -7 is outside"),
    ({"graph": [{"kind": "PReLU", "attrs": {"a": 1}}]}, '{"type": ..., "value": ...}'),
    ({"graph": [{"kind": 3}]}, "must be strings"),
])
def test_malformed_documents_are_read_errors(doc, fragment):
    with pytest.raises(ModelReadError, match=None) as info:
        validate_model(doc)
    assert fragment in str(info.value)


def test_cli_on_a_file(tmp_path):
    result = CliRunner().invoke(main, ["validate", str(DATA / "onednn_prelu_f32_nxc.json")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("0 problems in 0 of 1 node (onednn graph (oneDNN 3.5.0, engine cpu, "
                                          "fpmath strict))")
    bad = json.loads((DATA / "onednn_prelu_f32_nxc.json").read_text())
    bad["graph"][0]["inputs"][1]["shape"] = [7]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    result = CliRunner().invoke(main, ["validate", str(path), "--format", "json"])
    assert result.exit_code == 1
    assert json.loads(result.output)["records"][0]["where"] == "constraint C1"
    path.write_text('{"graph": [')
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 2 and "not valid JSON" in result.output and "Traceback" not in result.output


# Graphs of the project's own, rebuilt by hand after benchdnn's patterns (tests/data/onednn/): file ->
# (ops, the problems opgen reports besides "no spec" for ops whose spec has not landed yet). Every
# PReLU in them is checked whatever other specs exist.
GRAPHS = {
    "mha_sdpa_f32.json": ({"MatMul", "Divide", "Add", "SoftMax"}, []),
    "mlp_gated_int4_f16.json": ({"DynamicDequantize", "MatMul", "Sigmoid", "Multiply", "TypeCast"}, []),
    "int8_conv_prelu.json": ({"Dequantize", "Convolution", "PReLU", "Quantize"}, []),
    "f8_matmul_prelu.json": ({"Dequantize", "MatMul", "PReLU", "Quantize"}, []),
    "int8_maxpool_add_mul_inconsistent.json": ({"Dequantize", "MaxPool", "Add", "Multiply", "Quantize"}, [
        ("logical tensor 4257", "is described as float [1, 64, 1, 1] by op 'mul' (#4) but as float "
                                "[1, 64, 300, 300] by op 'add' (#3)")]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_benchdnn_style_graphs(name):
    kinds, expected = GRAPHS[name]
    report = validate_model(str(DATA / "onednn" / name), allow_unknown_ops=True)
    assert report.kind == "onednn" and {n.split(".")[1] for n in report.unchecked} <= kinds
    assert "onednn.PReLU" not in report.unchecked
    found = [(r.where, r.message) for r in report.problems if "no spec for" not in r.message]
    assert found == expected, report.to_text()


def test_dtype_names_of_every_onednn_graph_type():
    # data_type2str in oneDNN's graph utilities names these; each maps to an opgen element type.
    op = prelu_op(0, (0, (2, 4)), (1, (4,)), (2, (2, 4)))
    for dtype, elem in [("f8_e4m3", "float8e4m3fn"), ("f8_e5m2", "float8e5m2"), ("s4", "int4"), ("u4", "uint4"),
                        ("s64", "int64"), ("boolean", "bool")]:
        op["inputs"][0]["dtype"] = dtype
        (problem,) = validate_model(graph(op)).problems
        assert problem.where == "input 'src'" and f"dtype {elem} is not allowed" in problem.message


def test_unknown_dtype_names_are_reported_once():
    op = prelu_op(0, (0, (2, 4)), (1, (4,)), (2, (2, 4)))
    op["inputs"][0]["dtype"] = "f4_e9m9"
    (problem,) = validate_model(graph(op)).problems  # the validator sees an unknown dtype: no second problem
    assert problem.where == "logical tensor 0" and problem.message.startswith(
        "data type 'f4_e9m9' (graph[0].inputs[0].dtype) is not a oneDNN Graph data type (known: undef, bf16,")


def test_unknown_dimensions_agree_with_any_description():
    first = prelu_op(0, (0, (INT64_MIN, 16)), (1, (16,)), (2, (INT64_MIN, 16)), "NXC")
    second = prelu_op(1, (2, (4, 16)), (1, (16,)), (3, (4, 16)), "NXC")
    second["inputs"][0]["dtype"] = "undef"
    assert validate_model(graph(first, second)).valid
    second["inputs"][0]["shape"] = [4, 8]
    second["inputs"][0]["dtype"] = "f32"
    (problem,) = validate_model(graph(first, second)).problems
    assert problem.where == "logical tensor 2" and "as float [4, 8] by op 'prelu_1' (#1) but as float [?, 16]" \
        in problem.message


def test_grouped_weights_quantized_per_output_channel_are_valid_but_do_not_run_alone():
    """Spec note per_channel_count: oneDNN's int8 ConvTranspose test graph dequantizes grouped weights
    [16, 1, 3, 3] per output channel (16 scales on axis 1, of size 1). The library does not check the count,
    so the graph is valid; run node by node, its Dequantize alone cannot apply 16 scales to one index, and
    the run names the node and both counts (it broadcast into [16, 16, 3, 3] and failed on that shape)."""
    import numpy as np

    from opgen.run import run_model
    from opgen.runtime.graph_runner import GraphError

    def dequantize(scales):
        return {"id": 1, "name": "dequant_weights", "kind": "Dequantize",
                "attrs": {"qtype": {"type": "string", "value": "per_channel"}, "axis": {"type": "s64", "value": 1},
                          "scales": {"type": "f32[]", "value": scales}, "zps": {"type": "s64[]", "value": [0] * len(scales)}},
                "inputs": [tensor(0, "s8", (16, 1, 3, 3))], "outputs": [tensor(1, "f32", (16, 1, 3, 3))]}

    weights = np.arange(-72, 72, dtype=np.int8).reshape(16, 1, 3, 3)
    grouped = graph(dequantize([float(k + 1) for k in range(16)]))
    assert validate_model(grouped).valid
    with pytest.raises(GraphError, match="dequant_weights.*per_channel zps has 16 values but src has 1 along axis 1"):
        run_model(grouped, {"0": weights})
    (out,) = run_model(graph(dequantize([0.5])), {"0": weights}).values()
    assert out.shape == (16, 1, 3, 3) and np.array_equal(out, weights.astype(np.float32) * 0.5)
