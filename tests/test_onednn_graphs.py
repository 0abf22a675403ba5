"""oneDNN Graph JSON read whole: logical tensors of unknown shape, and (below) graphs run end to end.

The graphs are this project's own files in tests/data/onednn/, written in the format oneDNN Graph
serializes (what benchdnn's --graph driver reads).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as tf
from click.testing import CliRunner

import opgen
from opgen.cli import main
from opgen.run import GraphError, ModelError
from opgen.validate import read_model, validate_model

GRAPHS = Path(__file__).resolve().parent / "data" / "onednn"
INT64_MIN = -(2**63)  # DNNL_GRAPH_UNKNOWN_DIM (dnnl_graph_types.h)
RNG = np.random.default_rng(20261128)


def rand(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


def t(x: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(x))


def close(got: np.ndarray, want: torch.Tensor) -> None:
    expected = want.detach().numpy()
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def _doc(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GRAPHS / name).read_text(encoding="utf-8"))
    return doc


def test_a_shape_of_one_unknown_dimension_is_an_unknown_shape() -> None:
    # The library serializes any shape it does not know, rank included, as [DNNL_GRAPH_UNKNOWN_DIM]
    # (after benchdnn's complex_fusion/mha/codegemma-bf16-f32.json: Select's and SoftMax's results).
    graph, records = read_model(GRAPHS / "mha_unknown_rank.json")
    assert records == []
    assert graph.values["7"].shape is None and graph.values["8"].shape is None
    assert graph.values["7"].dtype == "float" and graph.values["8"].dtype == "bfloat16"
    report = validate_model(GRAPHS / "mha_unknown_rank.json")
    assert report.valid and report.checked == report.nodes == 5, report.to_text()


def test_unknown_dimensions_in_a_longer_shape_keep_the_rank() -> None:
    doc = _doc("mha_unknown_rank.json")
    softmax = next(op for op in doc["graph"] if op["name"] == "softmax")
    softmax["outputs"][0]["shape"] = [INT64_MIN, 2, INT64_MIN, 4]
    graph, _ = read_model(copy.deepcopy(doc))
    assert graph.values["8"].shape == (None, 2, None, 4)
    assert validate_model(doc).valid
    # a known rank is checked: SoftMax keeps its rank-4 input's shape, a rank-3 result cannot be it
    softmax["outputs"][0]["shape"] = [INT64_MIN, INT64_MIN, INT64_MIN]
    problems = validate_model(doc).problems
    assert [(p.node, p.where) for p in problems] == [("softmax", "output 'dst'")], [str(p) for p in problems]


# --- opgen run: inputs by logical tensor id (3 or "3") or by position in the graph's input order ----------

def test_mlp_runs_as_torch_computes_it() -> None:
    x, w1, b1, w2, b2 = rand(4, 8), rand(8, 16), rand(16), rand(3, 16), rand(3)
    want = torch.sigmoid(tf.linear(torch.relu(t(x) @ t(w1) + t(b1)), t(w2), t(b2)))
    path = GRAPHS / "run_mlp.json"
    by_id = opgen.run_model(path, {0: x, 1: w1, 3: b1, 6: w2, 7: b2})
    assert list(by_id) == ["9"]
    close(by_id["9"], want)
    by_position = opgen.run_model(path, [x, w1, b1, w2, b2])  # the order of "input_ports"
    np.testing.assert_array_equal(by_position["9"], by_id["9"])


def test_mha_runs_as_torch_computes_it() -> None:
    q, k, v, mask = rand(1, 2, 4, 8), rand(1, 2, 4, 8), rand(1, 2, 4, 8), rand(1, 1, 4, 4)
    scale = np.array(np.sqrt(8.0), np.float32)
    want = torch.softmax(t(q) @ t(k).transpose(-1, -2) / t(scale) + t(mask), dim=-1) @ t(v)
    got = opgen.run_model(GRAPHS / "mha_sdpa_f32.json", {"0": q, "1": k, "3": scale, "5": mask, "8": v})
    close(got["9"], want)


def test_conv_pool_block_runs_as_torch_computes_it() -> None:
    x, w, b = rand(2, 9, 8, 4), rand(3, 2, 2, 6), rand(6)  # NXC data, XIO weights, 2 groups
    conv = tf.conv2d(tf.pad(t(x).permute(0, 3, 1, 2), [0, 1, 1, 1]), t(w).permute(3, 2, 0, 1), t(b), groups=2)
    pooled = tf.max_pool2d(torch.relu(conv), 2, 2, ceil_mode=True)
    smooth = tf.avg_pool2d(pooled, 3, 1, 1, count_include_pad=False)
    want = tf.interpolate(smooth, size=[10, 8], mode="bilinear").permute(0, 2, 3, 1)
    got = opgen.run_model(GRAPHS / "run_conv_pool.json", [x, w, b])
    close(got["7"], want)


def test_cli_runs_a_onednn_graph(tmp_path: Path) -> None:
    arrays = {"0": rand(4, 8), "1": rand(8, 16), "3": rand(16), "6": rand(3, 16), "7": rand(3)}
    flags = []
    for tid, array in arrays.items():
        np.save(tmp_path / f"in{tid}.npy", array)
        flags += ["--input", f"{tid}={tmp_path / f'in{tid}.npy'}"]
    result = CliRunner().invoke(main, ["run", str(GRAPHS / "run_mlp.json"), *flags, "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    want = opgen.run_model(GRAPHS / "run_mlp.json", {int(k): v for k, v in arrays.items()})["9"]
    np.testing.assert_array_equal(np.load(tmp_path / "9.npy"), want)


def test_run_errors_name_the_inputs_and_the_node() -> None:
    with pytest.raises(ModelError, match=r"no value given for input\(s\) 7 \(float\[3\]\)"):
        opgen.run_model(GRAPHS / "run_mlp.json", {0: rand(4, 8), 1: rand(8, 16), 3: rand(16), 6: rand(3, 16)})
    with pytest.raises(ModelError, match=r"no input\(s\) '12'; its inputs: '0', '1', '3', '6', '7'"):
        opgen.run_model(GRAPHS / "run_mlp.json", {12: rand(4, 8)})
    # Wildcard stands for an operation the library does not know: it cannot run, and the error names it
    doc = _doc("run_mlp.json")
    doc["graph"].append({"id": 5, "name": "opaque", "kind": "Wildcard", "attrs": {},
                         "inputs": [doc["graph"][4]["outputs"][0]], "outputs": [{**doc["graph"][4]["outputs"][0],
                                                                                   "id": 10}]})
    feeds = [rand(4, 8), rand(8, 16), rand(16), rand(3, 16), rand(3)]
    with pytest.raises(GraphError, match="node opaque \\(onednn.Wildcard\\): .*has no reference kernel"):
        opgen.run_model(doc, feeds)


def test_a_graph_whose_outputs_end_in_end_ops_runs() -> None:
    """oneDNN's training graphs (benchdnn's MHA backward) hand each result to an End op, which has no output:
    it computes nothing, and the run gives the same results as the graph without the End ops (End had no
    kernel, so such graphs stopped with a GraphError)."""
    doc = _doc("run_mlp.json")
    feeds = [rand(4, 8), rand(8, 16), rand(16), rand(3, 16), rand(3)]
    plain = opgen.run_model(doc, feeds)
    for k, name in enumerate(plain):
        tensor = next(t for op in doc["graph"] for t in op["outputs"] if str(t["id"]) == name)
        doc["graph"].append({"id": 100 + k, "name": f"end_{k}", "kind": "End", "attrs": {}, "inputs": [tensor],
                             "outputs": []})
    ended = opgen.run_model(doc, feeds)
    assert list(ended) == list(plain)
    for name in plain:
        np.testing.assert_array_equal(ended[name], plain[name])


def test_biasadd_backprop_is_an_unknown_kind_and_the_error_names_the_library_kind() -> None:
    """benchdnn's op/f32/biasadd_bwd.json names its op BiasAddBackprop: no oneDNN Graph op kind has that name
    (the library's kinds are an enumeration; benchdnn's own reader maps names to it and stops on this one
    as an unsupported kind, and no harness line runs the file). opgen refuses it too and names the kind
    meant, BiasAddBackward; the same graph under that name validates."""
    path = GRAPHS / "biasadd_backprop_kind.json"
    report = validate_model(path)
    assert not report.valid and [str(p) for p in report.problems] == [
        "node 'BIASADD_0' (#0): onednn.BiasAddBackprop: op: no spec for onednn.BiasAddBackprop "
        "(did you mean BiasAddBackward, BiasAdd?) (--allow-unknown-ops makes this a warning)"]
    doc = _doc("biasadd_backprop_kind.json")
    doc["graph"][0]["kind"] = "BiasAddBackward"
    assert validate_model(doc).valid
