"""oneDNN Graph specs against the facts read from oneDNN (specs/sources/onednn-ops.md), and hand-made
oneDNN Graph JSON graphs (tests/data/onednn/, benchdnn's format) that use every operation.

The facts table was written from oneDNN's operation pages and operation schemas (op_def.hpp); this test
parses it independently of the specs and compares names, attribute types, defaults, required-ness and
allowed values, inputs and outputs with their option, and the data types of every type variable.
"""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
import yaml

from opgen import validate_model

ROOT = Path(__file__).resolve().parent.parent
FACTS = ROOT / "specs" / "sources" / "onednn-ops.md"
SPECS = ROOT / "specs" / "onednn"
GRAPHS = ROOT / "tests" / "data" / "onednn"
TRANSCRIBED_FROM_002 = {"PReLU"}  # transcribed from the seed document, not from the facts table


def _rows(lines: list[str], header: str) -> list[list[str]]:
    """The rows of the pipe table whose header line starts with `header`."""
    for k, line in enumerate(lines):
        if line.startswith(header):
            rows = []
            for row in lines[k + 2:]:
                if not row.startswith("|"):
                    break
                rows.append([cell.strip() for cell in row.strip().strip("|").split("|")])
            return rows
    return []


def parse_facts(text: str) -> dict[str, dict[str, Any]]:
    ops: dict[str, dict[str, Any]] = {}
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        name, _, body = block.partition("\n")
        lines = body.splitlines()
        ops[name.strip()] = {
            "attributes": _rows(lines, "| attribute |"),
            "parameters": _rows(lines, "| parameter |"),
            "types": {tv: types for tv, types in _rows(lines, "| type variable |")},
        }
    return ops


FACT_OPS = parse_facts(FACTS.read_text(encoding="utf-8"))
DOMAIN = yaml.safe_load((SPECS / "domain.yaml").read_text(encoding="utf-8"))


def load_spec(op: str) -> dict[str, Any]:
    spec: dict[str, Any] = yaml.safe_load((SPECS / f"{op}.yaml").read_text(encoding="utf-8"))
    return spec


def test_every_documented_operation_has_a_spec_and_facts() -> None:
    specs = {p.stem for p in SPECS.glob("*.yaml")} - {"domain"}
    assert len(FACT_OPS) == 87
    assert specs == set(FACT_OPS) | TRANSCRIBED_FROM_002


def _default(text: str) -> tuple[str, Any]:
    if text == "-":
        return "default", None
    if text.startswith("each "):
        return "default_each", int(text[5:])
    return "default", json.loads(text)


@pytest.mark.parametrize("op", sorted(FACT_OPS))
def test_spec_matches_the_facts(op: str) -> None:
    facts = FACT_OPS[op]
    spec = load_spec(op)
    assert spec["name"] == op and spec["domain"] == "onednn"
    assert [s["document"] for s in spec["sources"]] == ["onednn-ops.md"]
    (version,) = spec["versions"]
    assert version["since_version"] == 1
    attributes = {a["name"]: a for a in version.get("attributes", [])}
    assert list(attributes) == [row[0] for row in facts["attributes"]]
    for name, kind, required, default, values in facts["attributes"]:
        attribute = attributes[name]
        assert attribute["type"] == kind, name
        assert attribute.get("required", False) == (required == "yes"), name
        key, value = _default(default)
        assert attribute.get(key) == value and (key == "default" or "default" not in attribute), name
        assert attribute.get("values") == (None if values == "-" else values.split(", ")), name
    parameters = [(p["name"], "input", p.get("option", "single"), p["type"]) for p in version["inputs"]]
    parameters += [(p["name"], "output", p.get("option", "single"), p["type"]) for p in version["outputs"]]
    assert parameters == [tuple(row) for row in facts["parameters"]]
    names = DOMAIN["dtype_names"]
    any_types = DOMAIN["type_groups"]["any"]["types"]
    for constraint in version["type_constraints"]:
        listed = facts["types"][constraint["name"]]
        expected = any_types if listed == "any" else [f"tensor({names[t]})" for t in listed.split(", ")]
        actual = any_types if constraint["types"] == ["@any"] else constraint["types"]
        assert actual == expected, constraint["name"]


def test_every_library_data_type_has_an_opgen_type() -> None:
    # oneDNN's serializable data types (src/graph/utils/debug.cpp's names) and opgen's element types
    assert DOMAIN["dtype_names"] == {
        "f32": "float", "bf16": "bfloat16", "f16": "float16", "f64": "double", "s8": "int8", "u8": "uint8",
        "s32": "int32", "boolean": "bool", "s64": "int64", "s4": "int4", "u4": "uint4",
        "f8_e4m3": "float8e4m3fn", "f8_e5m2": "float8e5m2"}


# --- hand-made graphs --------------------------------------------------------------------------------

# The graph with an inconsistent logical tensor (after benchdnn's int8_maxpool_add_mul_fusion) is invalid on
# purpose; tests/test_validate_onednn.py asserts its problem. So is the one naming its op BiasAddBackprop
# (after benchdnn's op/f32/biasadd_bwd.json), a kind the library does not have (tests/test_onednn_graphs.py).
INVALID_ON_PURPOSE = {"int8_maxpool_add_mul_inconsistent.json", "biasadd_backprop_kind.json"}
GRAPH_FILES = sorted(p for p in GRAPHS.glob("*.json") if p.name not in INVALID_ON_PURPOSE)


def _doc(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GRAPHS / name).read_text(encoding="utf-8"))
    return doc


@pytest.mark.parametrize("path", GRAPH_FILES, ids=lambda p: p.stem)
def test_hand_made_graph_is_valid_with_every_op_checked(path: Path) -> None:
    report = validate_model(path)
    assert report.valid, report.to_text()
    assert report.unchecked == {} and report.checked == report.nodes


def test_hand_made_graphs_use_every_operation() -> None:
    kinds = {op["kind"] for path in GRAPH_FILES for op in json.loads(path.read_text())["graph"]}
    assert kinds == set(FACT_OPS) | TRANSCRIBED_FROM_002


def _op(doc: dict[str, Any], name: str) -> dict[str, Any]:
    op: dict[str, Any] = next(o for o in doc["graph"] if o["name"] == name)
    return op


def _shape(port: str, index: int, shape: list[int]) -> Callable[[dict[str, Any]], None]:
    def mutate(op: dict[str, Any]) -> None:
        op[port][index]["shape"] = shape
        op[port][index]["stride"] = [1] * len(shape)
    return mutate


def _attr(name: str, kind: str | None, value: Any = None) -> Callable[[dict[str, Any]], None]:
    def mutate(op: dict[str, Any]) -> None:
        if kind is None:
            del op["attrs"][name]
        else:
            op["attrs"][name] = {"type": kind, "value": value}
    return mutate


def _dtype(port: str, index: int, dtype: str) -> Callable[[dict[str, Any]], None]:
    def mutate(op: dict[str, Any]) -> None:
        op[port][index]["dtype"] = dtype
    return mutate


# One invalid use per family: (file, op name, change, where the problem is reported, a message fragment)
INVALID = [
    ("elementwise.json", "add_none", _shape("inputs", 1, [5]), "constraint C1", "same shape"),
    ("elementwise.json", "multiply", _shape("inputs", 1, [4]), "constraint C2", "broadcast"),
    ("elementwise.json", "relu", _dtype("inputs", 0, "s8"), "input 'src'", "int8 is not allowed"),
    ("elementwise.json", "elu", _attr("alpha", "s64", 1), "attribute 'alpha'", "float"),
    ("elementwise.json", "clamp", _attr("max", None), "attribute 'max'", "required"),
    ("elementwise.json", "gelu", _attr("mode", "string", "gelu_fast"), "attribute 'mode'", "gelu_erf"),
    ("elementwise.json", "typecast", _dtype("outputs", 0, "f32"), "constraint C1", "different data types"),
    ("elementwise.json", "softmax", _attr("axis", "s64", 4), "constraint C1", "[-r, r-1]"),
    ("elementwise.json", "select", _shape("inputs", 0, [3, 5]), "constraint C2", "broadcast"),
    ("elementwise.json", "biasadd", _shape("inputs", 1, [5]), "constraint C1", "channel"),
    ("backward.json", "relubackward", _shape("inputs", 1, [2, 3, 4, 6]), "constraint C1", "same shape"),
    ("linear_conv_pool.json", "matmul", _shape("inputs", 1, [5, 6, 3]), "constraint C2", "second-to-last"),
    ("linear_conv_pool.json", "matmul_vec", _dtype("outputs", 0, "f16"), "constraint C4", "f32"),
    ("linear_conv_pool.json", "convolution", _shape("inputs", 1, [8, 4, 3, 3]), "constraint C4", "groups"),
    ("linear_conv_pool.json", "convolution", _shape("outputs", 0, [2, 8, 5, 5]), "output 'dst'", "the op gives"),
    ("linear_conv_pool.json", "conv_nxc_same", _attr("auto_pad", "string", "same_upper"), "attribute 'auto_pad'",
     "SAME_UPPER"),
    ("linear_conv_pool.json", "convolutionbackwarddata", _shape("outputs", 0, [2, 3, 4, 4]), "output 'diff_src'",
     "the op gives"),
    ("linear_conv_pool.json", "maxpool", _attr("kernel", "s64[]", [2, 2, 2]), "constraint C1", "kernel"),
    ("linear_conv_pool.json", "avgpool", _shape("outputs", 0, [2, 3, 2, 2]), "output 'dst'", "the op gives"),
    ("norms_reductions.json", "groupnorm", _attr("groups", "s64", 2), "constraint C1", "groups"),
    ("norms_reductions.json", "layernorm", _shape("outputs", 1, [2, 3]), "output 'mean'", "the op gives"),
    ("norms_reductions.json", "reducemean", _attr("axes", "s64[]", [1, 4]), "constraint C2", "[-r, r-1]"),
    ("norms_reductions.json", "batchnorminference", _shape("inputs", 1, [4]), "constraint C2", "per channel"),
    ("data_movement_quant.json", "staticreshape", _attr("shape", "s64[]", [7, -1]), "constraint C2",
     "element count"),
    ("data_movement_quant.json", "statictranspose", _attr("order", "s64[]", [0, 0, 1, 2]), "constraint C1",
     "permutation"),
    ("data_movement_quant.json", "concat", _shape("inputs", 1, [2, 1, 3, 5]), "constraint C2", "except along axis"),
    ("data_movement_quant.json", "dequantize", _attr("zps", "s64[]", [0, 0]), "constraint C3", "as many values"),
    ("data_movement_quant.json", "dequantize_f8", _attr("zps", "s64[]", [1]), "constraint C4", "8-bit"),
    ("data_movement_quant.json", "quantize", _attr("scales", "f32[]", [0.1, 0.2]), "constraint C1", "per_tensor"),
]


@pytest.mark.parametrize("name,node,change,where,fragment", INVALID,
                         ids=[f"{n}-{w.split()[-1]}" for _, n, _, w, _ in INVALID])
def test_invalid_use_is_reported_at_its_op(name: str, node: str, change: Callable[[dict[str, Any]], None],
                                           where: str, fragment: str) -> None:
    doc = copy.deepcopy(_doc(name))
    change(_op(doc, node))
    report = validate_model(doc)
    assert not report.valid
    located = [p for p in report.problems if p.node == node]
    assert located and all(p.node == node for p in report.problems), report.to_text()
    assert any(p.where == where and fragment in p.message for p in located), report.to_text()
