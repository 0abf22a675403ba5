"""The ops of ONNX's other operator domains (ai.onnx.preview.training, ai.onnx.ml, ai.onnx.preview),
specified in the onnx spec domain with `onnx_domain`: how nodes of those domains resolve (the model's
opset import for that domain picks the version; a default-domain node never reaches them), and their
kernels against onnx.reference (which implements all of them but LabelEncoder-1, compared with
onnxruntime) on the onnx package's node tests and on random cases, whole models through
`opgen.run_model`. Where onnx.reference departs from the schema, onnxruntime is the reference."""
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
from onnx_refs import ort_session  # noqa: E402

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
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid(domain, opset)])
    model.ir_version = 10  # what onnxruntime reads
    return model


def _against_reference(model: onnx.ModelProto, feeds: dict[str, Any], rtol: float = 1e-6,
                       dtype: Any = None) -> None:
    """opgen's outputs equal onnx.reference's, of the reference's dtype or the one given."""
    want = ReferenceEvaluator(model).run(None, feeds)
    got = opgen.run_model(model, feeds)
    for w, (name, g) in zip(want, got.items()):
        if np.asarray(w).dtype.kind in "UO":  # strings: onnx.reference's str_ arrays, opgen's object arrays
            assert g.dtype == object and g.tolist() == np.asarray(w).tolist(), name
            continue
        assert g.dtype == (np.asarray(w).dtype if dtype is None else dtype), name
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12, err_msg=name)


# The node test cases of each module of onnx.backend.test.case.node, by the prefix of their names.
_CASE_PREFIXES = {"adagrad": ("test_adagrad",), "adam": ("test_adam",),
                  "momentum": ("test_momentum", "test_nesterov_momentum"), "flexattention": ("test_flexattention",)}


def node_cases(module: str) -> dict[str, Any]:
    """The node test cases one module of onnx.backend.test.case.node defines, by name, taken from the one
    collection of every case a test process makes (node_conformance.all_cases): collecting a module
    again, or by op, clashes with that collection (onnx refuses a case name given twice)."""
    from node_conformance import all_cases

    prefixes = _CASE_PREFIXES.get(module) or (f"test_{module.replace('.', '_')}",)
    return {c.name: c for c in all_cases() if c.name.startswith(prefixes)}


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


# ---- ai.onnx.ml ----------------------------------------------------------------------------------

def test_ml_node_tests():
    found = {**node_cases("ai_onnx_ml.array_feature_extractor"), **node_cases("ai_onnx_ml.binarizer"),
             **node_cases("ai_onnx_ml.label_encoder"), **node_cases("ai_onnx_ml.tree_ensemble")}
    assert len(found) == 8 and {name: run_case(case) for name, case in found.items()} == dict.fromkeys(found)


def test_the_ml_opset_import_picks_the_version():
    """A model importing ai.onnx.ml 3 runs LabelEncoder-2 (versions 1, 2, 4); with 1, version 1."""
    assert opgen_ops.resolve_version(ML, "LabelEncoder", 3) == 2
    x = np.array(["a", "b", "z"], dtype=object)
    model = _model("LabelEncoder", ML, 3, [("x", x)], 1, dict(keys_strings=["a", "b"], values_int64s=[4, 5]),
                   out_type=TP.INT64)
    _against_reference(model, {"x": x})
    # LabelEncoder-1 is onnxruntime's alone (onnx.reference implements 2 and 4)
    model = _model("LabelEncoder", ML, 1, [("x", x)], 1, dict(classes_strings=["z", "a"]), out_type=TP.INT64)
    np.testing.assert_array_equal(opgen.run_model(model, {"x": x})["y0"], ort_session(model).run(None, {"x": x})[0])
    k = np.array([1, 0, 7], np.int64)
    model = _model("LabelEncoder", ML, 1, [("k", k)], 1, dict(classes_strings=["z", "a"], default_string="?"),
                   out_type=TP.STRING)
    assert opgen.run_model(model, {"k": k})["y0"].tolist() == ort_session(model).run(None, {"k": k})[0].tolist()


@pytest.mark.parametrize("shape, positions", [((3, 5), [4, 0, 4]), ((2, 3, 4), [[1, 3]]), ((6,), [5, 2])])
def test_array_feature_extractor_against_onnx_reference(shape, positions):
    x = RNG.standard_normal(shape).astype(np.float32)
    y = np.array(positions, np.int64)
    _against_reference(_model("ArrayFeatureExtractor", ML, 1, [("x", x), ("y", y)], 1, {}, TP.FLOAT),
                       {"x": x, "y": y})


@pytest.mark.parametrize("dtype, threshold", [(np.float64, 0.25), (np.int32, 1.0)])
def test_binarizer_against_onnx_reference(dtype, threshold):
    x = (RNG.standard_normal((4, 5)) * 3).astype(dtype)
    _against_reference(_model("Binarizer", ML, 1, [("x", x)], 1, dict(threshold=threshold)), {"x": x})


@pytest.mark.parametrize("x, attributes, out_type", [
    (np.array([1.5, 2.0, 7.0], np.float32), dict(keys_floats=[1.5, 2.0], values_strings=["a", "b"],
                                                default_string="?"), TP.STRING),
    (np.array([[3, 9], [3, 1]], np.int64), dict(keys_int64s=[3, 1, 3], values_floats=[0.5, 1.5, 2.5]), TP.FLOAT),
    (np.array([2, 5, 8], np.int32), dict(keys_tensor=helper.make_tensor("k", TP.INT32, [2], [2, 8]),
                                         values_tensor=helper.make_tensor("v", TP.INT16, [2], [-4, 4]),
                                         default_tensor=helper.make_tensor("d", TP.INT16, [1], [9])), TP.INT16),
])
def test_label_encoder_against_onnx_reference(x, attributes, out_type):
    _against_reference(_model("LabelEncoder", ML, 4, [("x", x)], 1, attributes, out_type), {"x": x})


def test_label_encoder_nan_keys_match_nan_elements():
    """The schema: a NaN key matches any NaN element. onnx.reference's dict lookup never finds NaN
    (NaN != NaN); onnxruntime follows the schema, and so does opgen."""
    x = np.array([1.5, np.nan, 2.0, 7.0], np.float32)
    model = _model("LabelEncoder", ML, 4, [("x", x)], 1, dict(keys_floats=[1.5, np.nan], values_int64s=[3, 4],
                                                              default_int64=-9), TP.INT64)
    got = opgen.run_model(model, {"x": x})["y0"]
    np.testing.assert_array_equal(got, ort_session(model).run(None, {"x": x})[0])
    assert got.tolist() == [3, 4, -9, -9]


def _forest(rng: np.random.Generator, features: int, targets: int, dtype: Any) -> dict[str, Any]:
    """Two random trees over `features` columns: tree 0 a root with two interior children (4 leaves),
    tree 1 a root with a leaf and a membership node (3 leaves); every mode appears."""
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    modes = [0, 1, 3, 2, 6]
    splits = rng.standard_normal(5).round(1)
    return dict(
        tree_roots=[0, 3],
        nodes_featureids=rng.integers(0, features, 5).tolist(),
        nodes_modes=helper.make_tensor("m", TP.UINT8, [5], modes),
        nodes_splits=helper.make_tensor("s", elem, [5], splits.tolist()),
        nodes_truenodeids=[1, 0, 2, 4, 4], nodes_trueleafs=[0, 1, 1, 1, 1],
        nodes_falsenodeids=[2, 1, 3, 4, 5], nodes_falseleafs=[0, 1, 1, 0, 1],
        nodes_missing_value_tracks_true=[1, 0, 0, 0, 1],
        membership_values=helper.make_tensor("v", elem, [3], [0.0, 1.0, np.nan]),
        leaf_targetids=rng.integers(0, targets, 7).tolist(),
        leaf_weights=helper.make_tensor("w", elem, [7], rng.standard_normal(7).round(2).tolist()),
        n_targets=targets)


def _rows(dtype: Any) -> np.ndarray:
    x = RNG.standard_normal((6, 3)).round(1).astype(dtype)
    x[0, :] = [0.0, 1.0, 2.0]  # members of the set
    x[1, 0] = np.nan
    return x


@pytest.mark.parametrize("dtype, aggregate", [(np.float32, 1), (np.float64, 0)])
def test_tree_ensemble_against_onnx_reference(dtype, aggregate):
    x = _rows(dtype)
    attributes = _forest(RNG, 3, 2, dtype) | dict(aggregate_function=aggregate)
    _against_reference(_model("TreeEnsemble", ML, 5, [("x", x)], 1, attributes), {"x": x})


# onnxruntime reads post_transform as its own enumeration, where 1 is logistic and 2 softmax; the
# schema (and opgen) have 1 softmax and 2 logistic. Its probit is an approximation (rtol 1e-3).
_ORT_POST_TRANSFORM = {0: 0, 1: 2, 2: 1, 3: 3, 4: 4}


@pytest.mark.parametrize("aggregate, post_transform", [(2, 0), (3, 0), (1, 1), (0, 2), (1, 3), (0, 4)])
def test_tree_ensemble_min_max_and_post_transforms_against_onnxruntime(aggregate, post_transform):
    """onnx.reference ignores post_transform and gives a target no leaf reaches min's or max's start
    (the largest finite float); onnxruntime gives it 0, as opgen does."""
    x = _rows(np.float32)
    forest = _forest(RNG, 3, 2, np.float32) | dict(aggregate_function=aggregate)
    got = opgen.run_model(_model("TreeEnsemble", ML, 5, [("x", x)], 1, forest | dict(post_transform=post_transform)),
                          {"x": x})["y0"]
    theirs = _model("TreeEnsemble", ML, 5, [("x", x)], 1,
                    forest | dict(post_transform=_ORT_POST_TRANSFORM[post_transform]))
    np.testing.assert_allclose(got, ort_session(theirs).run(None, {"x": x})[0], rtol=1e-3, atol=1e-6)


# ---- ai.onnx.preview -----------------------------------------------------------------------------

PREVIEW = "ai.onnx.preview"


def test_flex_attention_node_tests():
    found = node_cases("flexattention")
    # with the 11 cases of their function bodies ("_expanded", default-domain ops only)
    assert len(found) == 22 and {name: run_case(case) for name, case in found.items()} == dict.fromkeys(found)


def _modifier(op_nodes: list[onnx.NodeProto], elem: int, initializers: list[onnx.TensorProto]) -> onnx.GraphProto:
    """A FlexAttention hook graph: s (rank 4) -> out, through `op_nodes`."""
    return helper.make_graph(op_nodes, "mod", [helper.make_tensor_value_info("s", elem, None)],
                             [helper.make_tensor_value_info("out", elem, None)], initializers)


@pytest.mark.parametrize("dtype, heads, attributes", [
    (np.float32, (4, 2), dict(scale=0.3)),
    (np.float16, (2, 2), {}),
    (np.float64, (6, 3), dict(softmax_precision=TP.FLOAT)),
    (np.float32, (2, 1), "softcap_and_halved_probabilities"),
])
def test_flex_attention_against_onnx_reference(dtype, heads, attributes):
    q = RNG.standard_normal((2, heads[0], 3, 8)).astype(dtype)
    k = RNG.standard_normal((2, heads[1], 5, 8)).astype(dtype)
    v = RNG.standard_normal((2, heads[1], 5, 4)).astype(dtype)
    if attributes == "softcap_and_halved_probabilities":
        cap = [helper.make_tensor("c", TP.FLOAT, [], [2.0])]
        attributes = dict(
            score_mod=_modifier([helper.make_node("Div", ["s", "c"], ["d"]), helper.make_node("Tanh", ["d"], ["t"]),
                                 helper.make_node("Mul", ["t", "c"], ["out"])], TP.FLOAT, cap),
            prob_mod=_modifier([helper.make_node("Div", ["s", "c"], ["out"])], TP.FLOAT, cap))
    model = _model("FlexAttention", PREVIEW, 1, [("q", q), ("k", k), ("v", v)], 1, attributes)
    if dtype == np.float16:
        # opgen computes float16 in float32 and rounds once (as Attention); onnx.reference rounds Q K^T
        # to float16 first. The expectation: the reference on the float32 inputs, rounded to float16.
        wide = {"q": q.astype(np.float32), "k": k.astype(np.float32), "v": v.astype(np.float32)}
        wide_model = _model("FlexAttention", PREVIEW, 1, list(wide.items()), 1, attributes)
        want = ReferenceEvaluator(wide_model).run(None, wide)
        got = opgen.run_model(model, {"q": q, "k": k, "v": v})["y0"]
        assert got.dtype == np.float16
        np.testing.assert_allclose(got.astype(np.float32), want[0].astype(np.float16).astype(np.float32),
                                   rtol=1e-3, atol=1e-4)
        return
    # the double case's probabilities are rounded to float32 (softmax_precision), as exact as float32
    _against_reference(model, {"q": q, "k": k, "v": v}, rtol=1e-5)


def test_flex_attention_shapes_are_checked():
    q, k = np.zeros((1, 3, 2, 4), np.float32), np.zeros((1, 2, 5, 4), np.float32)
    model = _model("FlexAttention", PREVIEW, 1, [("q", q), ("k", k), ("v", k)], 1, {})
    with pytest.raises(ModelError, match="C5"):
        opgen.run_model(model, {"q": q, "k": k, "v": k})
