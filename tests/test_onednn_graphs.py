"""oneDNN Graph JSON read whole: logical tensors of unknown shape, and (below) graphs run end to end.

The graphs are this project's own files in tests/data/onednn/, written in the format oneDNN Graph
serializes (what benchdnn's --graph driver reads).
"""
from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from opgen.validate import read_model, validate_model

GRAPHS = Path(__file__).resolve().parent / "data" / "onednn"
INT64_MIN = -(2**63)  # DNNL_GRAPH_UNKNOWN_DIM (dnnl_graph_types.h)


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
