"""The ops of ONNX's other operator domains (ai.onnx.preview.training, ai.onnx.ml, ai.onnx.preview),
specified in the onnx spec domain with `onnx_domain`: how nodes of those domains resolve (the model's
opset import for that domain picks the version; a default-domain node never reaches them), and their
kernels against onnx.reference's (ReferenceEvaluator implements every one) on the onnx package's node
tests and on random cases, whole models through `opgen.run_model`."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper
from onnx.reference import ReferenceEvaluator

import opgen
import opgen_ops
from opgen.run import ModelError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from node_conformance import run_case  # noqa: E402

RNG = np.random.default_rng(13)
TRAINING = "ai.onnx.preview.training"
ML = "ai.onnx.ml"


def _model(op: str, domain: str, opset: int, inputs: list[tuple[str, Any]], n_out: int,
           attributes: dict[str, Any], out_type: int | None = None) -> onnx.ModelProto:
    """A one-node model of `domain`'s op, importing that domain at `opset` (and the default domain)."""
    in_infos = [helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
                for name, v in inputs]
    elem = out_type if out_type is not None else in_infos[-1].type.tensor_type.elem_type
    outs = [f"y{k}" for k in range(n_out)]
    node = helper.make_node(op, [n for n, _ in inputs], outs, domain=domain, **attributes)
    graph = helper.make_graph([node], "g", in_infos, [helper.make_tensor_value_info(o, elem, None) for o in outs])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(domain, opset)])


def _against_reference(model: onnx.ModelProto, feeds: dict[str, Any], rtol: float = 1e-6,
                       dtype: Any = None) -> None:
    """opgen's outputs equal onnx.reference's, of the reference's dtype or the one given."""
    want = ReferenceEvaluator(model).run(None, feeds)
    got = opgen.run_model(model, feeds)
    for w, (name, g) in zip(want, got.items()):
        assert g.dtype == (np.asarray(w).dtype if dtype is None else dtype), name
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, err_msg=name)


def node_cases(module: str) -> dict[str, Any]:
    """The node test cases one module of onnx.backend.test.case.node defines, by name: its export
    functions run when the module is (re)loaded. Collecting every case takes ~30 s; one module, none."""
    import importlib

    import onnx.backend.test.case.node as cases

    name = f"onnx.backend.test.case.node.{module}"
    cases._TargetOpType = None  # an earlier collect_testcases(op) may have left a filter
    start = len(cases._NodeTestCases)
    importlib.reload(sys.modules[name]) if name in sys.modules else importlib.import_module(name)
    return {c.name: c for c in cases._NodeTestCases[start:]}


# ---- resolution ----------------------------------------------------------------------------------

def test_ops_of_other_domains_resolve_by_their_own_domain_and_only_there():
    assert opgen_ops.get_signature(TRAINING, "Adam", 1) is opgen_ops.get_signature("onnx", "Adam", 1)
    with pytest.raises(opgen_ops.UnknownOpError, match=r"no spec for ai\.onnx\.preview\.training\.Relu"):
        opgen_ops.get_kernel(TRAINING, "Relu")
    # a node of the default domain that names a training op is refused, saying which domain has it
    x = np.zeros(2, np.float32)
    model = _model("Adam", "", 21, [("R", np.float32(0.1)), ("T", np.int64(0)), ("x", x), ("g", x), ("v", x),
                                    ("h", x)], 3, {})
    model.opset_import.pop()
    with pytest.raises(ModelError, match=r"Adam is an op of ONNX domain ai\.onnx\.preview\.training"):
        opgen.run_model(model, {})


def test_unknown_domains_keep_their_message():
    model = _model("Foo", "com.example", 1, [("x", np.zeros(2, np.float32))], 1, {})
    with pytest.raises(ModelError, match=r"no spec for com\.example\.Foo; domains: hlir, onednn, onnx"):
        opgen.run_model(model, {"x": np.zeros(2, np.float32)})


def test_a_spec_naming_an_unlisted_onnx_domain_is_an_error(spec_tree):
    from opgen.parse import load_specs

    specs = Path(__file__).resolve().parents[2] / "specs" / "onnx"
    (spec_tree / "onnx").mkdir()
    (spec_tree / "onnx" / "domain.yaml").write_text((specs / "domain.yaml").read_text(encoding="utf-8"),
                                                    encoding="utf-8")
    (spec_tree / "onnx" / "Adam.yaml").write_text((specs / "Adam.yaml").read_text(encoding="utf-8").replace(
        "onnx_domain: ai.onnx.preview.training", "onnx_domain: ai.onnx.nowhere"), encoding="utf-8")
    _, errors = load_specs(spec_tree)
    assert any(e.field == "onnx_domain" and "not listed in the onnx_domains" in str(e) for e in errors), errors


# ---- ai.onnx.preview.training ----------------------------------------------------------------------

@pytest.mark.parametrize("module, count", [("adagrad", 2), ("adam", 2), ("momentum", 3)])
def test_training_node_tests(module, count):
    found = node_cases(module)
    assert len(found) == count and {name: run_case(case) for name, case in found.items()} == dict.fromkeys(found)


def _optimizer_feeds(groups: int, n: int, dtype: Any, step: int) -> list[tuple[str, Any]]:
    shapes = [(3,), (2, 4), ()][:n]
    feeds: list[tuple[str, Any]] = [("R", np.asarray(0.05, dtype)), ("T", np.asarray(step, np.int64))]
    for k in range(groups):
        for j, shape in enumerate(shapes):
            value = RNG.standard_normal(shape).astype(dtype)
            feeds.append((f"in{k}_{j}", np.abs(value) if k == groups - 1 else value))  # accumulators >= 0
    return feeds


@pytest.mark.parametrize("op, groups, attributes", [
    ("Adagrad", 3, dict(decay_factor=0.1, epsilon=1e-4, norm_coefficient=0.01)),
    ("Adam", 4, dict(alpha=0.8, beta=0.95, epsilon=1e-5, norm_coefficient=0.02, norm_coefficient_post=0.1)),
    ("Momentum", 3, dict(alpha=0.9, beta=0.5, mode="standard", norm_coefficient=0.01)),
    ("Momentum", 3, dict(alpha=0.7, beta=0.3, mode="nesterov", norm_coefficient=0.0)),
])
@pytest.mark.parametrize("dtype, n, step", [(np.float32, 1, 0), (np.float64, 3, 5)])
def test_optimizers_against_onnx_reference(op, groups, attributes, dtype, n, step):
    feeds = _optimizer_feeds(groups, n, dtype, step)
    n_out = (groups - 1) * n
    model = _model(op, TRAINING, 1, feeds, n_out, attributes)
    # The outputs have the inputs' type (T3). onnx.reference computes Adam with float32 attributes and
    # returns float32 for double tensors (numpy's promotion), so it is as exact as float32.
    _against_reference(model, dict(feeds), rtol=1e-5 if dtype == np.float32 or op == "Adam" else 1e-12, dtype=dtype)


def test_optimizer_input_count_is_checked():
    x = np.zeros(2, np.float32)
    model = _model("Adagrad", TRAINING, 1, [("R", np.float32(0.1)), ("T", np.int64(0)), ("x", x), ("g", x)], 2, {})
    with pytest.raises(ModelError, match="C1"):
        opgen.run_model(model, {"R": np.float32(0.1), "T": np.int64(0), "x": x, "g": x})
