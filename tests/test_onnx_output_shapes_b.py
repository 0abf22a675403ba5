"""Output shapes of more ONNX ops stated in the specs (outputs[].shape): Squeeze/Unsqueeze and the
reductions with their axes input (values()), Pad, TopK, the legacy versions (broadcast, Gemm-6, Reshape-1,
LSTM-1, GRU-3), the random generators, windows, MelWeightMatrix, the string ops and TfIdfVectorizer -
against onnx's strict shape inference or, where it leaves a shape unknown, onnxruntime's result
(tests/onnx_cases.check_output_shapes), or onnx's reference evaluator where neither gives one."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto
import opgen_ops
import pytest

from opgen.runtime.validation import output_shapes_of
import onnx_cases
from onnx_cases import I64, arr, build, check_output_shapes, errors, onnx_shapes, rejection, run_shapes, where


# ---- Squeeze / Unsqueeze: axes as an attribute (1, 11) or a constant input (13 and later) ----
SQUEEZE_V = (1, 11, 13, 21, 23, 24, 25)


@pytest.mark.parametrize("opset", SQUEEZE_V)
@pytest.mark.parametrize("shape, axes", [((1, 3, 1, 4), [0]), ((1, 3, 1, 4), [2, 0]), ((1, 3, 1, 4), [-2]),
                                         ((1, 3, 1, 4), None), ((3, 4), None), ((1,), [0])])
def test_squeeze_drops_the_named_or_every_size_1_axis(opset, shape, axes):
    if axes is not None and opset == 1:  # non-negative axes before version 11; sorted: see below
        axes = sorted(a % len(shape) for a in axes)
    inputs, attrs, inits = {"data": shape}, {}, {}
    if axes is not None and opset >= 13:
        inputs["axes"], inits["axes"] = None, arr(axes)
    elif axes is not None:
        attrs["axes"] = axes
    check_output_shapes("Squeeze", opset, inputs, attrs, {"out": "output 'squeezed'"}, inits)


def test_squeeze_1_with_unsorted_axes_follows_onnxruntime():
    # onnx's Squeeze-1 inference walks the axes as if sorted: for axes [2, 0] of [1, 3, 1, 4] it gives
    # [1, 3, 4] (and its reference evaluator squeezes one axis after another, failing); onnxruntime, like
    # Squeeze-11's inference, removes both: [3, 4]. opgen gives [3, 4].
    m, feeds = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": None})
    assert onnx_shapes(m) == {"out": [1, 3, 4]} and run_shapes(m, feeds) == {"out": [3, 4]}
    right, _ = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": [3, 4]})
    assert where(right) == []
    wrong, _ = build("Squeeze", 1, {"data": (1, 3, 1, 4)}, {"axes": [2, 0]}, {"out": [1, 3, 4]})
    assert where(wrong) == ["output 'squeezed'"]


@pytest.mark.parametrize("opset", [v for v in SQUEEZE_V if v >= 13])  # axes is an input from version 13
def test_squeeze_with_empty_axes_input_keeps_every_dimension(opset):
    # onnx's inference (and its reference evaluator) squeeze nothing for an empty axes tensor; onnxruntime
    # squeezes every size-1 axis as if axes were absent. opgen follows onnx.
    check_output_shapes("Squeeze", opset, {"data": (1, 3, 1), "axes": None}, {}, {"out": "output 'squeezed'"},
                        {"axes": arr([], np.int64)})


@pytest.mark.parametrize("opset", SQUEEZE_V)
@pytest.mark.parametrize("shape, axes", [((3, 4), [0]), ((3, 4), [2, 0]), ((3, 4), [-1, 0]), ((), [0, 1]),
                                         ((3,), [1, -1]), ((2, 3, 4), [4, 1])])
def test_unsqueeze_inserts_size_1_axes_of_the_output(opset, shape, axes):
    if opset == 1:
        axes = [a + len(shape) + len(axes) if a < 0 else a for a in axes]  # negative axes come with version 11
    inputs, attrs, inits = {"data": shape}, {}, {}
    if opset >= 13:
        inputs["axes"], inits["axes"] = None, arr(axes)
    else:
        attrs["axes"] = axes
    check_output_shapes("Unsqueeze", opset, inputs, attrs, {"out": "output 'expanded'"}, inits)


# ---- ReduceSum / ReduceMean / ReduceMax: axes attribute, or axes input with noop_with_empty_axes ----
REDUCE_V = {"ReduceSum": (1, 11, 13), "ReduceMean": (1, 11, 13, 18), "ReduceMax": (1, 11, 12, 13, 18, 20)}
REDUCE_IN = {"ReduceSum": 13, "ReduceMean": 18, "ReduceMax": 18}  # first version with the axes input
REDUCE_CASES = [(op, v) for op, vs in REDUCE_V.items() for v in vs]


@pytest.mark.parametrize("op, opset", REDUCE_CASES)
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("axes", [[1], [0, 2], [-1], None])
def test_reduce_keeps_or_drops_the_reduced_axes(op, opset, keepdims, axes):
    if axes is not None and opset < 11:
        axes = [a % 3 for a in axes]  # negative axes come with version 11
    inputs, attrs, inits = {"data": (2, 3, 4)}, {"keepdims": keepdims}, {}
    if axes is not None and opset >= REDUCE_IN[op]:
        inputs["axes"], inits["axes"] = None, arr(axes)
    elif axes is not None:
        attrs["axes"] = axes
    check_output_shapes(op, opset, inputs, attrs, {"out": "output 'reduced'"}, inits)


@pytest.mark.parametrize("op, opset", [(op, v) for op, v in REDUCE_CASES if v >= REDUCE_IN[op]])
@pytest.mark.parametrize("keepdims", [0, 1])
@pytest.mark.parametrize("noop", [0, 1])
@pytest.mark.parametrize("empty", [True, False])
def test_reduce_without_axes_reduces_all_or_nothing(op, opset, keepdims, noop, empty):
    inputs, inits = {"data": (2, 3, 4)}, {}
    if empty:  # an empty axes input counts as no axes
        inputs["axes"], inits["axes"] = None, arr([], np.int64)
    check_output_shapes(op, opset, inputs, {"keepdims": keepdims, "noop_with_empty_axes": noop},
                        {"out": "output 'reduced'"}, inits)


# ---- Pad: pads (and axes from version 18) as constant inputs ----
PAD_IN_V = (11, 13, 18, 19, 21, 23, 24, 25)


def pad_inputs(opset: int, axes: bool) -> dict:
    inputs = {"data": (2, 3, 4), "pads": None}
    if axes:
        inputs.update(constant_value="", axes=None)
    return inputs


PAD_CASES = [([1, 0, 2, 0, 3, 1], None), ([0, -1, 0, 1, -2, 0], None), ([1, 2, 3, 4], [2, 0]), ([1, 2], [-2]),
             ([0, -1, 2, 1], [-1, 1]), ([], [])]


@pytest.mark.parametrize("opset, pads, axes", [(v, pads, axes) for v in PAD_IN_V for pads, axes in PAD_CASES
                                               if axes is None or v >= 18])  # the axes input from version 18
@pytest.mark.parametrize("mode", ["constant", "edge"])
def test_pad_grows_or_crops_each_padded_axis(opset, mode, pads, axes):
    inits = {"pads": arr(pads, np.int64)}
    if axes is not None:
        inits["axes"] = arr(axes, np.int64)
    check_output_shapes("Pad", opset, pad_inputs(opset, axes is not None), {"mode": mode},
                        {"out": "output 'output'"}, inits)


PAD_BAD = [  # (opsets, pads, axes, what opgen reports, which reference refuses it)
    (PAD_IN_V, [0, -3, 0, 0, -2, 0], None, "C2", "ort"),        # axis 1: 3 - 3 - 2 < 0
    (PAD_IN_V[2:], [0, -3, 0, -2], [0, 1], "C5", "ort"),
    (PAD_IN_V[2:], [1, 2], [3], "C3", "onnx"),
    (PAD_IN_V[2:], [1, 2, 3, 4], [1, -2], "C4", "onnx"),
    (PAD_IN_V[2:], [1, 2, 3, 4], [3, 0], "C3", "onnx"),         # out of range, not also reported twice
    (PAD_IN_V, [0, -3, 0, 0, 0, 0], None, None, None),          # cropping to 0 is fine
]


@pytest.mark.parametrize("opsets, pads, axes, bad, ref", PAD_BAD)
def test_pad_constraints_on_pads_and_axes(opsets, pads, axes, bad, ref):
    for opset in opsets:
        inits = {"pads": arr(pads)} if axes is None else {"pads": arr(pads), "axes": arr(axes)}
        c = {"C2": "C5", "C5": "C5"}.get(bad, bad) if opset >= 18 else bad  # the size check: C2 before 18
        m, feeds = build("Pad", opset, pad_inputs(opset, axes is not None), {}, {"out": None}, inits)
        # the validator itself: onnx's inference writes the negative sizes into the model, which opgen's
        # reader refuses (no real tensor has them) before any node is checked
        args = [("float", (2, 3, 4)), inits["pads"]] + ([None, inits["axes"]] if axes is not None else [])
        found = [p.where for p in opgen_ops.get_validator("onnx", "Pad", opset)(args, {}, [("float", None)])]
        assert found == ([f"constraint {c}"] if bad else []), opset
        reason = rejection(m, feeds)
        assert (reason is not None) == (bad is not None), (opset, reason)
        if ref is not None:
            assert reason.startswith("shape inference" if ref == "onnx" else "onnxruntime"), reason


def test_pad_2_refuses_a_negative_size():
    validate = opgen_ops.get_validator("onnx", "Pad", 2)
    assert [p.where for p in validate([("float", (2, 3))], {"pads": [0, -3, 0, -1]}, None)] == ["constraint C2"]
    m, feeds = build("Pad", 2, {"data": (2, 3)}, {"pads": [0, -3, 0, -1]}, {"out": None})
    assert rejection(m, feeds).startswith("onnxruntime")  # onnx's inference gives [2, -1]
    m, feeds = build("Pad", 2, {"data": (2, 3)}, {"pads": [0, -3, 1, 0]}, {"out": None})
    assert errors(m) == [] and rejection(m, feeds) is None
    check_output_shapes("Pad", 2, {"data": (2, 3)}, {"pads": [0, -3, 1, 2]}, {"out": "output 'output'"})


# ---- TopK: K as a constant input (10 and later) ----
@pytest.mark.parametrize("opset", [1, 10, 11, 24])
@pytest.mark.parametrize("axis, k", [(-1, 2), (0, 1), (1, 3), (-3, 2)])
def test_topk_keeps_k_along_the_axis(opset, axis, k):
    inputs, attrs, inits = {"X": (2, 3, 4)}, {"axis": axis}, {}
    if axis < 0 and opset < 11:
        attrs["axis"] = axis + 3  # negative axes come with version 11 (version 10 has them too in onnx)
    if opset >= 10:
        inputs["K"], inits["K"] = None, arr([k])
    else:
        attrs["k"] = k
    check_output_shapes("TopK", opset, inputs, attrs, {"Values": "output 'Values'", "Indices": "output 'Indices'"},
                        inits, {"Indices": I64})


def refeval_shapes(op: str, opset: int, inputs: dict, attrs: dict, outputs: dict[str, str]) -> dict[str, list[int]]:
    """Where onnx's inference leaves a shape unknown and onnxruntime lacks the version: run the model with
    onnx's reference evaluator, then check that opgen accepts those shapes declared and reports each
    output declared one dimension off at that output."""
    from onnx.reference import ReferenceEvaluator
    m, feeds = build(op, opset, inputs, attrs, {n: None for n in outputs})
    assert all(s is None for s in onnx_shapes(m).values())  # onnx's inference gives nothing here
    want = {n: list(r.shape) for n, r in zip(outputs, ReferenceEvaluator(m).run(None, feeds))}
    right, _ = build(op, opset, inputs, attrs, want)
    assert where(right) == []
    for name, at in outputs.items():
        shape = want[name]
        bad, _ = build(op, opset, inputs, attrs, {**want, name: [*shape[:-1], shape[-1] + 1] if shape else [1]})
        assert where(bad) == [at]
    return want


# ---- the legacy broadcast of Add/Sub/Mul/Div 1 and 6: B broadcast to A (attribute broadcast, axis) ----
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("b, attrs", [((2, 3, 4), {}), ((3, 4), {"broadcast": 1}), ((4,), {"broadcast": 1}),
                                      ((), {"broadcast": 1}), ((3,), {"broadcast": 1, "axis": 1}),
                                      ((2, 3), {"broadcast": 1, "axis": 0})])
def test_legacy_broadcast_gives_the_shape_of_a(op, b, attrs):
    inputs = {"A": (2, 3, 4), "B": b}
    check_output_shapes(op, 6, inputs, attrs, {"C": "output 'C'"})
    if "axis" not in attrs:  # version 1: no inference, no onnxruntime kernel; the reference evaluator
        refeval_shapes(op, 1, inputs, attrs, {"C": "output 'C'"})  # broadcasts as NumPy (no axis)


# ---- Gemm 6 (broadcast attribute for C) ----
@pytest.mark.parametrize("transA, transB", [(0, 0), (1, 0), (0, 1), (1, 1)])
@pytest.mark.parametrize("c, broadcast", [((2, 4), 0), ((4,), 1), ((), 1), ((2, 1), 1)])
def test_gemm_6_gives_m_by_n(transA, transB, c, broadcast):
    a = (3, 2) if transA else (2, 3)
    b = (4, 3) if transB else (3, 4)
    check_output_shapes("Gemm", 6, {"A": a, "B": b, "C": c}, {"transA": transA, "transB": transB,
                                                             "broadcast": broadcast}, {"Y": "output 'Y'"})


# ---- Reshape 1: the shape as an attribute (onnx infers nothing; onnxruntime runs it) ----
@pytest.mark.parametrize("shape", [[4, 0, -1], [-1, 6], [24], [2, 0, 2, 2], [0, 0, 4], [-1]])
def test_reshape_1_takes_the_shape_attribute(shape):
    want = check_output_shapes("Reshape", 1, {"data": (2, 3, 4)}, {"shape": shape}, {"out": "output 'reshaped'"})
    assert all(w == s for w, s in zip(want["out"], shape) if s > 0)


# ---- LSTM 1 / GRU 3: output_sequence ----
@pytest.mark.parametrize("op, opset", [("LSTM", 1), ("GRU", 3)])
@pytest.mark.parametrize("direction", ["forward", "reverse", "bidirectional"])
def test_rnn_with_output_sequence_gives_every_step(op, opset, direction):
    gates, dirs = (4 if op == "LSTM" else 3), (2 if direction == "bidirectional" else 1)
    inputs = {"X": (5, 2, 3), "W": (dirs, gates * 6, 3), "R": (dirs, gates * 6, 6)}
    outs = {"Y": "output 'Y'", "Y_h": "output 'Y_h'", **({"Y_c": "output 'Y_c'"} if op == "LSTM" else {})}
    check_output_shapes(op, opset, inputs, {"hidden_size": 6, "direction": direction, "output_sequence": 1}, outs)


@pytest.mark.parametrize("op, opset", [("LSTM", 1), ("GRU", 3)])
def test_rnn_without_output_sequence_states_no_shape(op, opset):
    # output_sequence 0 (the default): onnx's inference gives no output a shape, onnxruntime and onnx's
    # reference evaluator have no kernel for these versions; opgen states none either
    gates = 4 if op == "LSTM" else 3
    inputs = {"X": (5, 2, 3), "W": (1, gates * 6, 3), "R": (1, gates * 6, 6)}
    outs = ["Y", "Y_h"] + (["Y_c"] if op == "LSTM" else [])
    m, _ = build(op, opset, inputs, {"hidden_size": 6}, {n: None for n in outs})
    assert all(s is None for s in onnx_shapes(m).values())
    odd, _ = build(op, opset, inputs, {"hidden_size": 6}, {n: [7] for n in outs})
    assert where(odd) == []
    sig = opgen_ops.get_signature("onnx", op, opset)
    assert output_shapes_of(sig, [("float", s) for s in inputs.values()], {"hidden_size": 6}) == {}
    assert output_shapes_of(sig, [("float", s) for s in inputs.values()], {"hidden_size": 6, "output_sequence": 1})


# ---- random generators, windows, MelWeightMatrix ----
@pytest.mark.parametrize("opset", [15, 22])
def test_bernoulli_has_the_input_shape(opset):
    check_output_shapes("Bernoulli", opset, {"input": (2, 3)}, {}, {"out": "output 'output'"})


@pytest.mark.parametrize("opset", [7, 22])
@pytest.mark.parametrize("dtype, n", [(None, 1), (TensorProto.INT64, 5)])
def test_multinomial_draws_sample_size_per_batch(opset, dtype, n):
    attrs = {"sample_size": n, **({"dtype": dtype} if dtype else {})}
    check_output_shapes("Multinomial", opset, {"input": (2, 3)}, attrs, {"out": "output 'output'"},
                        elems={"out": dtype or TensorProto.INT32})


@pytest.mark.parametrize("op", ["RandomNormal", "RandomUniform"])
@pytest.mark.parametrize("opset", [1, 22])
@pytest.mark.parametrize("shape", [[2, 3], [4], [1, 2, 1]])
def test_random_takes_the_shape_attribute(op, opset, shape):
    check_output_shapes(op, opset, {}, {"shape": shape}, {"out": "output 'output'"})


@pytest.mark.parametrize("op", ["RandomNormalLike", "RandomUniformLike"])
@pytest.mark.parametrize("opset", [1, 22])
@pytest.mark.parametrize("shape", [(2, 3), (4,), ()])
def test_random_like_has_the_input_shape(op, opset, shape):
    check_output_shapes(op, opset, {"input": shape}, {}, {"out": "output 'output'"})


@pytest.mark.parametrize("op", ["BlackmanWindow", "HammingWindow", "HannWindow"])
@pytest.mark.parametrize("periodic", [0, 1])
@pytest.mark.parametrize("size", [np.int64(5), np.int32(8), np.int64(1)])
def test_window_has_size_values(op, periodic, size):
    check_output_shapes(op, 17, {"size": None}, {"periodic": periodic}, {"out": "output 'output'"}, {"size": size})


@pytest.mark.parametrize("bins, dft", [(8, 16), (3, 9), (10, 64)])
def test_mel_weight_matrix_is_frequency_bins_by_mel_bins(bins, dft):
    # (upper edge 3000 Hz: at 4000 Hz, the Nyquist frequency, the odd dft_length 9 puts the edge one bin past the
    # spectrum by onnxruntime's rule, MelWeightMatrix's C6)
    inits = {"num_mel_bins": np.int64(bins), "dft_length": np.int64(dft), "sample_rate": np.int64(8000),
             "lower_edge_hertz": np.float32(0), "upper_edge_hertz": np.float32(3000)}
    check_output_shapes("MelWeightMatrix", 17, {k: None for k in inits}, {}, {"out": "output 'output'"}, inits)


# ---- string ops and TfIdfVectorizer ----
S = TensorProto.STRING
onnx_cases.NP.setdefault(S, np.str_)  # build() feeds string inputs empty strings


def check_onnx_inferred(op, opset, inputs, attrs, outputs: dict[str, str], elems: dict[str, int],
                        order: tuple[str, ...] = ()):
    """Like check_output_shapes, for outputs whose shape onnx's inference states, where not every output of the
    node has one (order: all the node's outputs, in order; those not in outputs are left undeclared)."""
    order = order or tuple(outputs)
    m, _ = build(op, opset, inputs, attrs, {n: (elems[n], None) for n in order})
    want = onnx_shapes(m)
    declared = {n: (elems[n], want[n] if n in outputs else None) for n in order}
    right, _ = build(op, opset, inputs, attrs, declared)
    assert where(right) == []
    for name, at in outputs.items():
        shape = want[name]
        assert shape is not None and None not in shape
        bad, _ = build(op, opset, inputs, attrs,
                       {**declared, name: (elems[name], [*shape[:-1], shape[-1] + 1] if shape else [1])})
        assert where(bad) == [at]
    return want


@pytest.mark.parametrize("shape", [(2, 3), (4,), ()])
def test_regex_full_match_has_the_input_shape(shape):
    check_onnx_inferred("RegexFullMatch", 20, {"X": (S, shape)}, {"pattern": "a.*"}, {"Y": "output 'Y'"},
                        {"Y": TensorProto.BOOL})


@pytest.mark.parametrize("x, y", [((2, 3), (3,)), ((2, 1), (1, 4)), ((), (5,)), ((3,), (3,))])
def test_string_concat_broadcasts(x, y):
    check_onnx_inferred("StringConcat", 20, {"X": (S, x), "Y": (S, y)}, {}, {"Z": "output 'Z'"}, {"Z": S})


@pytest.mark.parametrize("shape", [(1, 3), (4,)])
@pytest.mark.parametrize("action", ["NONE", "LOWER"])
def test_string_normalizer_without_stopwords_keeps_the_shape(shape, action):
    # onnx's inference leaves the last dimension unknown even without stopwords: onnxruntime's result (in
    # the C locale: this machine has no en_US, its default)
    check_output_shapes("StringNormalizer", 10, {"X": (S, shape)}, {"case_change_action": action, "locale": "C"},
                        {"Y": "output 'Y'"}, elems={"Y": S})


def test_string_normalizer_with_stopwords_states_no_shape():
    # removing stopwords shortens the last dimension by a count that depends on the values of X
    m, _ = build("StringNormalizer", 10, {"X": (S, (1, 3))}, {"stopwords": ["a"]}, {"Y": (S, None)})
    assert onnx_shapes(m)["Y"] == [1, None]
    odd, _ = build("StringNormalizer", 10, {"X": (S, (1, 3))}, {"stopwords": ["a"]}, {"Y": (S, [1, 1])})
    assert where(odd) == []


@pytest.mark.parametrize("shape", [(2, 3), (4,), ()])
def test_string_split_gives_z_the_input_shape(shape):
    want = check_onnx_inferred("StringSplit", 20, {"X": (S, shape)}, {}, {"Z": "output 'Z'"},
                               {"Y": S, "Z": I64}, order=("Y", "Z"))
    # Y's last dimension, the largest number of pieces, depends on the values of X: onnx leaves it unknown
    m, _ = build("StringSplit", 20, {"X": (S, shape)}, {}, {"Y": (S, None), "Z": (I64, None)})
    assert onnx_shapes(m)["Y"] == [*shape, None] and want["Z"] == list(shape)


TFIDF = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 0, "ngram_counts": [0, 3],
         "pool_int64s": [1, 2, 3, 1, 2, 2, 3]}


@pytest.mark.parametrize("shape", [(2, 5), (6,)])
@pytest.mark.parametrize("indexes", [[0, 4, 2, 1, 3], [7, 0, 1, 2, 3], [0, 1, 2, 3, 4]])
def test_tfidf_vectorizer_counts_up_to_the_largest_index(shape, indexes):
    check_output_shapes("TfIdfVectorizer", 9, {"X": (I64, shape)}, {**TFIDF, "ngram_indexes": indexes},
                        {"out": "output 'Y'"})
