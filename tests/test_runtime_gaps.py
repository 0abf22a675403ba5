"""Gaps of the ONNX reference runtime closed (issue 13): Split-1's attribute named like its input,
outputs whose element type an attribute names, optional outputs a node requests, float32 attributes.

References: numpy.split for Split-1 (neither onnx.reference nor onnxruntime runs version 1), and
onnx.reference / onnxruntime for the others."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

import opgen
import opgen_ops
from opgen.runtime.validation import ValidationError

# ---- Split-1: the attribute split is the keyword split_attr --------------------------------------


def _cut(x: np.ndarray, lengths: list[int], axis: int) -> list[np.ndarray]:
    """The independent reference: numpy.split at the cumulative lengths."""
    return np.split(x, np.cumsum(lengths)[:-1], axis=axis)


@pytest.mark.parametrize("given", ["input", "attribute", "both", "neither"])
def test_split1_kernel_takes_the_input_before_the_attribute(given):
    split1 = opgen_ops.get_kernel("onnx", "Split", 1)
    x = np.arange(24, dtype=np.float32).reshape(2, 6, 2)
    keywords = {"axis": 1, "outputs_count": 3}
    args = [x]
    if given in ("input", "both"):
        args.append(np.array([1, 2, 3], np.float32))  # Split-1's input split has the data's type
    if given in ("attribute", "both"):
        keywords["split_attr"] = [3, 2, 1]
    want = {"input": [1, 2, 3], "both": [1, 2, 3], "attribute": [3, 2, 1], "neither": [2, 2, 2]}[given]
    got = split1(*args, **keywords)
    expected = _cut(x, want, 1)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)


def test_split1_validator_states_the_output_shapes():
    validate = opgen_ops.get_validator("onnx", "Split", 1)
    x, lengths = np.zeros((5, 2), np.float32), np.array([2, 3], np.float32)
    right = [("float", (2, 2)), ("float", (3, 2))]
    assert validate([x, lengths], {"split": [4, 1]}, right) == []  # the input wins
    assert validate([x], {"split": [4, 1]}, [("float", (4, 2)), ("float", (1, 2))]) == []
    assert validate([x, lengths], {"split": [4, 1]}, [("float", (4, 2)), ("float", (1, 2))])  # attribute's shapes
    problems = validate([x], {"split": [4, 2]}, right)
    assert [p.where for p in problems] == ["constraint C3"], [str(p) for p in problems]


def test_split1_refuses_what_onnx_forbids():
    split1 = opgen_ops.get_kernel("onnx", "Split", 1)
    with pytest.raises(ValidationError, match="C2"):
        split1(np.zeros(4, np.float32), np.array([1, 2], np.float32), outputs_count=2)
    with pytest.raises(ValueError, match="whole lengths"):
        split1(np.zeros(4, np.float32), np.array([1.5, 2.5], np.float32), outputs_count=2)


def test_split1_model_runs_with_both_the_input_and_the_attribute():
    node = helper.make_node("Split", ["x", "lengths"], ["a", "b", "c"], axis=0, split=[2, 2, 2])
    graph = helper.make_graph(
        [node], "split1", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [6, 3])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "abc"],
        initializer=[helper.make_tensor("lengths", TensorProto.FLOAT, [3], [1.0, 4.0, 1.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 1)], ir_version=3)
    x = np.arange(18, dtype=np.float32).reshape(6, 3)
    got = opgen.run_model(model, {"x": x})
    for name, expected in zip("abc", _cut(x, [1, 4, 1], 0)):
        np.testing.assert_array_equal(got[name], expected)


_DOMAIN = """\
name: demo
description: {en: Demo domain., zh: 演示域。}
opset_versions: [1]
type_groups: {}
"""
_OP = """\
name: Cut
domain: demo
category: data_movement_indexing
sources: [{document: demo.txt}]
versions:
  - since_version: 1
    summary: {en: Cuts input., zh: 切分 input。}
    attributes:
      - {name: split, type: ints, description: {en: Lengths., zh: 长度。}}
EXTRA
    inputs:
      - {name: input, type: T, description: {en: Input., zh: 输入。}}
      - {name: split, type: T, option: optional, description: {en: Lengths., zh: 长度。}}
    outputs:
      - {name: outputs, type: T, option: variadic, min_arity: 1, description: {en: Pieces., zh: 各段。}}
    type_constraints:
      - {name: T, types: [tensor(float)], description: {en: Floats., zh: 浮点。}}
KERNEL
"""
_SPLIT1 = "    kernel: {function: onnx_shape.onnx_split_v1, count_from_node: [outputs]}"


@pytest.mark.parametrize("extra, kernel, expected", [
    # a runtime function: the attribute is the keyword split_attr (accepted; Split-1's kernel takes it) ...
    ("", _SPLIT1, None),
    # ... and the suffix is reserved: an attribute split_attr beside it would meet that keyword
    ("      - {name: split_attr, type: int, description: {en: Other., zh: 其他。}}", _SPLIT1,
     "attributes.split_attr: 'split_attr' clashes with the name generated code derives from 'split' (split_attr)"),
    # a formula reads inputs and attributes by name: there the names must differ
    ("", "    elementwise: {formula: split}", "attributes.split: attribute 'split' has the name of an input"),
])
def test_checker_spells_an_attribute_named_like_an_input(spec_tree, extra, kernel, expected):
    from conftest import write

    from opgen.parse import load_specs

    write(spec_tree / "demo" / "domain.yaml", _DOMAIN)
    write(spec_tree / "demo" / "Cut.yaml", _OP.replace("EXTRA\n", extra + "\n" if extra else "")
          .replace("KERNEL", kernel))
    _, errors = load_specs(spec_tree)
    texts = [str(e) for e in errors if e.severity == "error"]
    if expected is None:
        assert texts == []
    else:
        assert any(expected in t for t in texts), texts


# ---- outputs whose type an attribute names: a direct call needs no <output>_dtype --------------------


def _reference(op: str, opset: int, inputs: list[np.ndarray], attributes: dict,
               runtime: str = "onnx.reference") -> list[np.ndarray]:
    """onnx.reference's (or onnxruntime's) outputs of one node, output types left for it to infer."""
    from onnx.helper import np_dtype_to_tensor_dtype
    from onnx.reference import ReferenceEvaluator
    from onnx_refs import ort_session

    names = [f"x{k}" for k in range(len(inputs))]
    node = helper.make_node(op, names, ["y"], **attributes)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, np_dtype_to_tensor_dtype(x.dtype), x.shape)
                                            for n, x in zip(names, inputs)],
                              [helper.make_empty_tensor_value_info("y")])  # no type: the runtime infers it
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)
    if runtime == "onnxruntime":
        return ort_session(model).run(None, dict(zip(names, inputs)))
    return ReferenceEvaluator(model).run(None, dict(zip(names, inputs)))


DETERMINISTIC = [
    ("Cast", 21, [np.array([1.7, -2.5, 300.0], np.float32)], {"to": TensorProto.INT32}),
    ("Cast", 13, [np.array([1.5, 2.0], np.float32)], {"to": TensorProto.DOUBLE}),
    ("EyeLike", 22, [np.zeros((3, 4), np.float32)], {"dtype": TensorProto.INT64, "k": 1}),
    ("EyeLike", 22, [np.zeros((2, 3), np.int32)], {}),
    ("HannWindow", 17, [np.array(5, np.int64)], {"output_datatype": TensorProto.DOUBLE}),
    ("BlackmanWindow", 17, [np.array(6, np.int64)], {}),  # output_datatype's default 1: float
    ("MelWeightMatrix", 17, [np.array(8, np.int64), np.array(16, np.int64), np.array(8000, np.int64),
                             np.array(0.0, np.float32), np.array(4000.0, np.float32)], {}),
    ("DequantizeLinear", 23, [np.array([3, -4], np.int8), np.array(0.5, np.float16)], {}),  # y: x_scale's type
    ("DequantizeLinear", 23, [np.array([3, -4], np.int8), np.array(0.5, np.float16)],
     {"output_dtype": TensorProto.FLOAT}),
]


@pytest.mark.parametrize("op, opset, inputs, attributes", DETERMINISTIC,
                         ids=[f"{c[0]}{c[1]}-{'-'.join(c[3]) or 'default'}" for c in DETERMINISTIC])
def test_output_type_named_by_an_attribute(op, opset, inputs, attributes):
    got = opgen_ops.get_kernel("onnx", op, opset)(*inputs, **attributes)[0]
    want = _reference(op, opset, inputs, attributes)[0]
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-6, atol=1e-7)


RANDOM = [
    ("RandomNormal", 22, [], {"shape": [2, 3]}),  # dtype's default 1: float
    ("RandomUniform", 22, [], {"shape": [4], "dtype": TensorProto.DOUBLE}),
    ("RandomUniformLike", 22, [np.zeros((2, 2), np.float16)], {}),  # the input's type
    # dtype's default 6, int32 (onnx.reference has no Multinomial: onnxruntime, which runs opset 7's)
    ("Multinomial", 7, [np.array([[0.2, 0.8]], np.float32)], {"sample_size": 3}),
    ("Bernoulli", 22, [np.array([0.0, 1.0], np.float32)], {"dtype": TensorProto.DOUBLE}),
]


@pytest.mark.parametrize("op, opset, inputs, attributes", RANDOM, ids=[c[0] for c in RANDOM])
def test_random_output_type_named_by_an_attribute(op, opset, inputs, attributes):
    """Random values differ between implementations: the type and shape are compared."""
    got = opgen_ops.get_kernel("onnx", op, opset)(*inputs, **attributes)[0]
    want = _reference(op, opset, inputs, attributes, "onnxruntime" if op == "Multinomial" else "onnx.reference")[0]
    assert (got.dtype, got.shape) == (want.dtype, want.shape)


def test_a_given_output_dtype_still_wins_and_is_checked():
    cast = opgen_ops.get_kernel("onnx", "Cast", 21)
    x = np.array([1.5], np.float32)
    assert cast(x, to=TensorProto.INT32, output_dtype="int32")[0].dtype == np.int32
    with pytest.raises(ValueError, match="names int32"):
        cast(x, to=TensorProto.INT32, output_dtype="int64")
    with pytest.raises(ValidationError, match="C2"):  # EyeLike's constraint: dtype names the output's type
        opgen_ops.get_kernel("onnx", "EyeLike", 22)(np.zeros((2, 2), np.float32), dtype=7, output_dtype="int32")


# ---- optional outputs a node requests: BatchNormalization's training mode ----------------------------

_BN_FEEDS = {name: value for name, value in zip("xsbmv", (
    np.random.default_rng(13).standard_normal((2, 3, 4)).astype(np.float32),
    np.array([0.5, 1.0, 2.0], np.float32), np.array([0.1, -0.2, 0.3], np.float32),
    np.array([0.0, 1.0, -1.0], np.float32), np.array([1.0, 0.5, 2.0], np.float32)))}


def _bn_model(opset: int, outputs: list[str], **attributes):
    node = helper.make_node("BatchNormalization", list("xsbmv"), outputs, **attributes)
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])] + \
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in "sbmv"]
    declared = [helper.make_tensor_value_info(outputs[0], TensorProto.FLOAT, [2, 3, 4])] + \
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in outputs[1:]]
    graph = helper.make_graph([node], "bn", inputs, declared)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7)


@pytest.mark.parametrize("opset", [14, 15])
def test_batch_norm_training_outputs_match_onnx_reference(opset):
    from onnx.reference import ReferenceEvaluator
    from onnx_refs import ort_session

    model = _bn_model(opset, ["y", "running_mean", "running_var"], training_mode=1, momentum=0.8)
    got = list(opgen.run_model(model, _BN_FEEDS).values())
    for want in (ReferenceEvaluator(model).run(None, _BN_FEEDS), ort_session(model).run(None, _BN_FEEDS)):
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("opset", [7, 9])
def test_batch_norm_7_9_trains_when_the_node_asks_for_the_statistics(opset):
    """onnxruntime runs the five-output node in training mode (onnx.reference cannot: its version 9
    returns Y alone, normalised with the running statistics); saved_var is the population variance of
    onnx.reference's training function, where onnxruntime returns 1 / sqrt(variance + epsilon)."""
    from onnx.reference.ops.op_batch_normalization import _batchnorm_training_mode
    from onnx_refs import ort_session

    model = _bn_model(opset, ["y", "running_mean", "running_var", "saved_mean", "saved_var"], momentum=0.8)
    y, running_mean, running_var, saved_mean, saved_var = opgen.run_model(model, _BN_FEEDS).values()
    ort = ort_session(model).run(None, _BN_FEEDS)
    for g, w in zip((y, running_mean, running_var, saved_mean), ort):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(1 / np.sqrt(saved_var + 1e-5), ort[4], rtol=1e-5)
    ref_y, ref_saved_mean, ref_saved_var, ref_mean, ref_var = _batchnorm_training_mode(
        *(_BN_FEEDS[n] for n in "xsbmv"), momentum=0.8, epsilon=1e-5)
    for g, w in ((y, ref_y), (running_mean, ref_mean), (running_var, ref_var), (saved_mean, ref_saved_mean),
                 (saved_var, ref_saved_var)):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_batch_norm_9_test_mode_with_y_alone():
    """Against onnxruntime: onnx.reference's version 9 normalises with the running statistics updated by
    the batch's whenever momentum has a value (its default 0.9 included), even for Y alone."""
    from onnx_refs import ort_session

    model = _bn_model(9, ["y"])
    got = opgen.run_model(model, _BN_FEEDS)["y"]
    np.testing.assert_allclose(got, ort_session(model).run(None, _BN_FEEDS)[0], rtol=1e-5, atol=1e-6)
    kernel = opgen_ops.get_kernel("onnx", "BatchNormalization", 9)  # a direct call: test mode unless told
    args = [_BN_FEEDS[n] for n in "xsbmv"]
    assert len(kernel(*args)) == 1
    assert len(kernel(*args, requested_outputs=("Y", "mean", "var", "saved_mean", "saved_var"))) == 5


# ---- float attributes are float32 in ONNX: given values and spec defaults alike ----------------------


def test_lrn_default_alpha_is_the_float32_a_model_stores():
    """LRN's alpha default 0.0001 is 9.99999975e-05 in a model. onnx.reference (whose channel loop is
    right only when N = C: a 3 x 3 input; it divides alpha by size in float32, exact for size 1) and
    opgen agree to the last bits on a double input without attributes; with the decimal 0.0001 the
    results differ from the ninth digit on."""
    from onnx.reference import ReferenceEvaluator

    x = np.random.default_rng(4).standard_normal((3, 3, 2, 2)) * 40
    node = helper.make_node("LRN", ["x"], ["y"], size=1)
    graph = helper.make_graph([node], "lrn", [helper.make_tensor_value_info("x", TensorProto.DOUBLE, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.DOUBLE, x.shape)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=10)
    want = ReferenceEvaluator(model).run(None, {"x": x})[0]
    lrn = opgen_ops.get_kernel("onnx", "LRN", 13)
    np.testing.assert_allclose(lrn(x, size=1)[0], want, rtol=1e-14)
    np.testing.assert_allclose(lrn(x, size=1, alpha=0.0001)[0], want, rtol=1e-14)
    np.testing.assert_allclose(opgen.run_model(model, {"x": x})["y"], want, rtol=1e-14)
    decimal = x / (1.0 + 0.0001 * x**2) ** 0.75  # what the decimal default gave (size 1: x's own square)
    assert not np.allclose(decimal, want, rtol=1e-10, atol=0)
