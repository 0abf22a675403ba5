"""Constraints and attribute value lists of the ONNX generator, cast, window and text ops: Bernoulli,
Multinomial, RandomNormal(Like), RandomUniform(Like), EyeLike, BitCast, Cast, CastLike, the Blackman /
Hamming / Hann windows, MelWeightMatrix, ImageDecoder, StringNormalizer, RegexFullMatch and
TfIdfVectorizer (every version).

For every numbered constraint and attribute value list a small model breaks it and opgen must report
it at that constraint / attribute (and nothing else); the valid base model of each op version must
pass opgen and onnx's checker, and onnxruntime where it has a kernel. As an independent reference, onnx
(full checker or strict shape inference with type checks) or onnxruntime (session creation or a run)
must refuse each broken model, except where a case says that no reference checks it (ref None, with the
reason in a comment).
"""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_cases import onnx_rejects, where
from onnx_refs import ort_session

F, D, I32, I64, U8 = TensorProto.FLOAT, TensorProto.DOUBLE, TensorProto.INT32, TensorProto.INT64, TensorProto.UINT8
S, B = TensorProto.STRING, TensorProto.BOOL
NP = {F: np.float32, D: np.float64, I32: np.int32, I64: np.int64, U8: np.uint8, B: np.bool_,
      TensorProto.FLOAT16: np.float16, TensorProto.INT8: np.int8, TensorProto.INT16: np.int16}


def arr(values, dtype=np.int64):
    return np.asarray(values, dtype)


def f32(values):
    return np.asarray(values, np.float32)


def model(op, opset, ins, attrs, outs):
    """One-node model and its feeds. ins: name -> (elem type, shape) graph input or ndarray (initializer);
    outs: name -> (elem type, declared shape; None entries are unknown dimensions)."""
    names, inputs, inits, feeds = [], [], [], {}
    for name, v in ins.items():
        names.append(name)
        if isinstance(v, (np.ndarray, onnx.TensorProto)):
            inits.append(numpy_helper.from_array(v, name) if isinstance(v, np.ndarray) else v)
            continue
        elem, shape = v
        inputs.append(helper.make_tensor_value_info(name, elem, shape))
        if elem == S:
            feeds[name] = np.full(shape, "ab cd", dtype=object)
        elif elem in NP:
            feeds[name] = np.full(shape, 0.5 if elem in (F, D) else 1, NP[elem])
    given = {k: v for k, v in (attrs or {}).items() if v is not None}
    node = helper.make_node(op, names, list(outs), **{k: v for k, v in given.items() if v != []})
    # an empty list has no type helper.make_node can infer: these are integer lists here
    node.attribute.extend(helper.make_attribute(k, v, attr_type=onnx.AttributeProto.INTS)
                          for k, v in given.items() if v == [])
    out_infos = [helper.make_tensor_value_info(o, t, [d if d is not None else f"{o}{k}" for k, d in enumerate(s)])
                 for o, (t, s) in outs.items()]
    graph = helper.make_graph([node], "g", inputs, out_infos, initializer=inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10), feeds



def ort_error(m, feeds):
    """onnxruntime's refusal (session creation or run), or None when it runs the model."""
    try:
        ort_session(m).run(None, feeds)
    except Exception as exc:  # noqa: BLE001
        return str(exc)
    return None


def opgen_where(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return where(m)


# ---- valid base uses: op -> (inputs, attributes, outputs) ----
MEL = {"num_mel_bins": arr(8), "dft_length": arr(16), "sample_rate": arr(8000), "lower_edge_hertz": f32(0),
       "upper_edge_hertz": f32(4000)}
TFIDF = {"mode": "TF", "min_gram_length": 1, "max_gram_length": 2, "max_skip_count": 0, "ngram_counts": [0, 2],
         "ngram_indexes": [0, 1, 2], "pool_int64s": [1, 2, 1, 2]}
BASE = {
    "RandomNormal": ({}, {"shape": [2, 3]}, {"output": (F, [2, 3])}),
    "RandomUniform": ({}, {"shape": [2, 3]}, {"output": (F, [2, 3])}),
    "RandomNormalLike": ({"input": (F, [2, 3])}, {}, {"output": (F, [2, 3])}),
    "RandomUniformLike": ({"input": (F, [2, 3])}, {}, {"output": (F, [2, 3])}),
    "Bernoulli": ({"input": (F, [2, 3])}, {}, {"output": (F, [2, 3])}),
    "Multinomial": ({"input": (F, [2, 3])}, {"sample_size": 4}, {"output": (I32, [2, 4])}),
    "EyeLike": ({"input": (F, [2, 3])}, {"k": 1}, {"output": (F, [2, 3])}),
    "BitCast": ({"input": (F, [2, 3])}, {"to": I32}, {"output": (I32, [2, 3])}),
    "Cast": ({"input": (F, [2])}, {"to": I64}, {"output": (I64, [2])}),
    "CastLike": ({"input": (F, [2]), "target_type": (I64, [1])}, {}, {"output": (I64, [2])}),
    **{w: ({"size": arr(5)}, {}, {"output": (F, [5])}) for w in ("BlackmanWindow", "HammingWindow", "HannWindow")},
    "MelWeightMatrix": (MEL, {}, {"output": (F, [9, 8])}),
    "ImageDecoder": ({"encoded_stream": (U8, [100])}, {}, {"image": (U8, [None, None, 3])}),
    "StringNormalizer": ({"X": (S, [1, 3])}, {"case_change_action": "NONE"}, {"Y": (S, [1, 3])}),
    "RegexFullMatch": ({"X": (S, [3])}, {"pattern": "a.*"}, {"Y": (B, [3])}),
    "TfIdfVectorizer": ({"X": (I64, [2, 5])}, TFIDF, {"Y": (F, [2, 3])}),
}
OPSETS = {
    "RandomNormal": (1, 22), "RandomUniform": (1, 22), "RandomNormalLike": (1, 22), "RandomUniformLike": (1, 22),
    "Bernoulli": (15, 22), "Multinomial": (7, 22), "EyeLike": (9, 22), "BitCast": (26,),
    "Cast": (1, 6, 9, 13, 19, 21, 23, 24, 25, 28), "CastLike": (15, 19, 21, 23, 24, 25),
    "BlackmanWindow": (17,), "HammingWindow": (17,), "HannWindow": (17,), "MelWeightMatrix": (17,),
    "ImageDecoder": (20,), "StringNormalizer": (10,), "RegexFullMatch": (20,), "TfIdfVectorizer": (9,),
}
# the model's opset for an op version (the version itself, except where onnxruntime lacks that version's
# kernel but has the previous one for a later opset: then the last opset the version covers)
RUN_OPSET = {("RandomNormal", 1): 21, ("RandomUniform", 1): 21, ("RandomNormalLike", 1): 21,
             ("RandomUniformLike", 1): 21, ("Bernoulli", 15): 21, ("Multinomial", 7): 21, ("EyeLike", 9): 21}
# onnxruntime (1.31) has no kernel for these versions (or these base uses)
NO_ORT = {("RandomNormal", 22), ("RandomUniform", 22), ("RandomNormalLike", 22), ("RandomUniformLike", 22),
          ("Bernoulli", 22), ("Multinomial", 22), ("ImageDecoder", 20), ("Cast", 1), ("Cast", 28)}
BASE_V = {("Cast", 1): ({"input": (F, [2])}, {"to": "INT64"}, {"output": (I64, [2])})}


def build(op, version, ins=None, attrs=None, outs=None):
    base_ins, base_attrs, base_outs = BASE_V.get((op, version), BASE[op])
    i = {k: v for k, v in {**base_ins, **(ins or {})}.items() if v is not None}
    a = {**base_attrs, **(attrs or {})}
    o = {**base_outs, **(outs or {})}
    return model(op, RUN_OPSET.get((op, version), version), i, a, o)


ALL = [(op, v) for op, vs in OPSETS.items() for v in vs]


@pytest.mark.parametrize("op, version", ALL)
def test_valid_base_use_passes_opgen_and_references(op, version):
    m, feeds = build(op, version)
    assert opgen_where(m) == []
    assert not onnx_rejects(m)
    if (op, version) not in NO_ORT:
        assert ort_error(m, feeds) is None


C = "constraint "
RND = ("RandomNormal", "RandomUniform")
LIKE = ("RandomNormalLike", "RandomUniformLike")
WIN = ("BlackmanWindow", "HammingWindow", "HannWindow")
OUT = "output"
CASES = [
    # ---- RandomNormal / RandomUniform ----
    *[(op, (1, 22), {}, {"shape": [2, -1]}, {OUT: (F, [2, None])}, C + "C1", "onnx") for op in RND],
    # int64 (7) is not a T type; the declared output type follows the attribute only for allowed codes
    *[(op, (1, 22), {}, {"dtype": 7}, {}, "attribute 'dtype'", "onnx") for op in RND],
    *[(op, (1,), {}, {"dtype": 16}, {}, "attribute 'dtype'", "onnx") for op in RND],  # bfloat16 comes in 22
    *[(op, (1, 22), {}, {"dtype": 11}, {}, C + "C2", "onnx") for op in RND],  # double, but a float output
    *[(op, (1, 22), {}, {}, {OUT: (D, [2, 3])}, C + "C2", "onnx") for op in RND],  # default float
    # ---- RandomNormalLike / RandomUniformLike / Bernoulli ----
    *[(op, (1, 22), {}, {"dtype": 7}, {}, "attribute 'dtype'", "onnx") for op in LIKE],
    ("Bernoulli", (15, 22), {}, {"dtype": 8}, {}, "attribute 'dtype'", "onnx"),  # string
    *[(op, vs, {}, {"dtype": 11}, {}, C + "C1", "onnx") for op, vs in
      (("RandomNormalLike", (1, 22)), ("RandomUniformLike", (1, 22)), ("Bernoulli", (15, 22)))],
    # without dtype the output takes the input's type
    *[(op, vs, {"input": (D, [2, 3])}, {}, {}, C + "C1", "onnx") for op, vs in
      (("RandomNormalLike", (1, 22)), ("RandomUniformLike", (1, 22)), ("Bernoulli", (15, 22)))],
    # ---- Multinomial ----
    ("Multinomial", (7, 22), {"input": (F, [2, 3, 2])}, {}, {OUT: (I32, [None, None])}, C + "C1", "onnx"),
    ("Multinomial", (7, 22), {}, {"sample_size": 0}, {OUT: (I32, [2, 0])}, C + "C2", "ort"),
    ("Multinomial", (7, 22), {}, {"dtype": 1}, {}, "attribute 'dtype'", "onnx"),
    ("Multinomial", (7, 22), {}, {"dtype": 7}, {}, C + "C3", "onnx"),  # int64, but an int32 output
    ("Multinomial", (7, 22), {}, {}, {OUT: (I64, [2, 4])}, C + "C3", "onnx"),  # default int32
    # ---- EyeLike ----
    ("EyeLike", (9, 22), {"input": (F, [2, 3, 4])}, {}, {OUT: (F, [2, 3, 4])}, C + "C1", "onnx"),
    ("EyeLike", (9, 22), {}, {"dtype": 8}, {}, "attribute 'dtype'", "onnx"),
    ("EyeLike", (9,), {}, {"dtype": 16}, {}, "attribute 'dtype'", "onnx"),  # bfloat16 comes in 22
    ("EyeLike", (9, 22), {}, {"dtype": 7}, {}, C + "C2", "onnx"),
    ("EyeLike", (9, 22), {"input": (D, [2, 3])}, {}, {}, C + "C2", "onnx"),
    # ---- BitCast ----
    ("BitCast", (26,), {}, {"to": I64}, {OUT: (I64, [2, 3])}, C + "C1", "onnx"),
    ("BitCast", (26,), {"input": (TensorProto.COMPLEX128, [2, 3])}, {"to": I64}, {OUT: (I64, [2, 3])}, C + "C1",
     "onnx"),
    ("BitCast", (26,), {}, {"to": S}, {}, "attribute 'to'", "onnx"),
    ("BitCast", (26,), {}, {"to": 99}, {}, "attribute 'to'", "onnx"),
    ("BitCast", (26,), {}, {"to": TensorProto.UINT32}, {}, C + "C2", "onnx"),
    # ---- Cast / CastLike: saturate and round_mode only with the types they apply to ----
    ("Cast", (19, 21, 23), {}, {"saturate": 0}, {}, C + "C1", "ort"),
    ("Cast", (24, 25, 28), {}, {"saturate": 0}, {}, C + "C1", "ort"),
    ("Cast", (24, 25, 28), {}, {"round_mode": "down"}, {}, C + "C2", "ort"),
    ("CastLike", (19, 21, 23, 24, 25), {}, {"saturate": 0}, {}, C + "C1", "ort"),
    # onnx leaves round_mode and saturate unchecked, and onnxruntime's CastLike does not pass round_mode on to its
    # Cast (Cast itself refuses other values): the operator lists the valid values
    ("CastLike", (24, 25), {}, {"round_mode": "even"}, {}, "attribute 'round_mode'", None),
    ("CastLike", (19, 21, 23, 24, 25), {}, {"saturate": 2}, {}, "attribute 'saturate'", None),
    # ---- windows ----
    *[(op, (17,), {"size": arr([5])}, {}, {OUT: (F, [None])}, C + "C1", "onnx") for op in WIN],
    *[(op, (17,), {"size": arr(0)}, {}, {OUT: (F, [0])}, C + "C2", "onnx") for op in WIN],
    *[(op, (17,), {}, {"output_datatype": 9}, {}, "attribute 'output_datatype'", "onnx") for op in WIN],
    *[(op, (17,), {}, {"output_datatype": 11}, {}, C + "C3", "onnx") for op in WIN],
    # periodic is a flag; onnx does not check it and onnxruntime reads any non-zero value as 1
    *[(op, (17,), {}, {"periodic": 2}, {}, "attribute 'periodic'", None) for op in WIN],
    # ---- MelWeightMatrix ----
    ("MelWeightMatrix", (17,), {"num_mel_bins": arr([8])}, {}, {OUT: (F, [None, None])}, C + "C1", "onnx"),
    ("MelWeightMatrix", (17,), {"dft_length": arr([16])}, {}, {OUT: (F, [None, None])}, C + "C2", "onnx"),
    ("MelWeightMatrix", (17,), {"num_mel_bins": arr(-1)}, {}, {OUT: (F, [None, None])}, C + "C3", "ort"),
    ("MelWeightMatrix", (17,), {"sample_rate": arr(0)}, {}, {}, C + "C4", "ort"),
    ("MelWeightMatrix", (17,), {"lower_edge_hertz": f32(-5)}, {}, {}, C + "C5", "ort"),
    ("MelWeightMatrix", (17,), {"lower_edge_hertz": f32(5000)}, {}, {}, C + "C5", "ort"),
    ("MelWeightMatrix", (17,), {"upper_edge_hertz": f32(6000)}, {}, {}, C + "C6", "ort"),
    ("MelWeightMatrix", (17,), {"dft_length": arr(1)}, {}, {OUT: (F, [1, 8])}, C + "C6", "ort"),
    ("MelWeightMatrix", (17,), {}, {"output_datatype": 9}, {}, "attribute 'output_datatype'", "onnx"),
    ("MelWeightMatrix", (17,), {}, {"output_datatype": 11}, {}, C + "C7", "onnx"),
    # ---- ImageDecoder ----
    ("ImageDecoder", (20,), {"encoded_stream": (U8, [1, 100])}, {}, {}, C + "C1", "onnx"),
    # onnx does not check pixel_format and onnxruntime has no ImageDecoder kernel: the operator lists the values
    ("ImageDecoder", (20,), {}, {"pixel_format": "RGBA"}, {}, "attribute 'pixel_format'", None),
    # ---- StringNormalizer ----
    ("StringNormalizer", (10,), {"X": (S, [1, 1, 3])}, {}, {"Y": (S, [1, 1, 3])}, C + "C1", "onnx"),
    ("StringNormalizer", (10,), {"X": (S, [2, 3])}, {}, {"Y": (S, [2, 3])}, C + "C2", "onnx"),
    ("StringNormalizer", (10,), {"X": (S, [1, 0])}, {}, {"Y": (S, [1, 1])}, C + "C3", "ort"),
    ("StringNormalizer", (10,), {}, {"case_change_action": "lower"}, {}, "attribute 'case_change_action'", "ort"),
    # a flag: onnx does not check it and onnxruntime reads any non-zero value as 1
    ("StringNormalizer", (10,), {}, {"is_case_sensitive": 2}, {}, "attribute 'is_case_sensitive'", None),
    # ---- RegexFullMatch (whether pattern is valid RE2 syntax is beyond a check) ----
    ("RegexFullMatch", (20,), {}, {"pattern": None}, {}, C + "C1", "ort"),
    # ---- TfIdfVectorizer ----
    ("TfIdfVectorizer", (9,), {"X": (I64, [1, 2, 5])}, {}, {"Y": (F, [None, None])}, C + "C1", "onnx"),
    ("TfIdfVectorizer", (9,), {"X": (I64, [0, 5])}, {}, {"Y": (F, [0, 3])}, C + "C2", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"min_gram_length": 0}, {}, C + "C3", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"min_gram_length": 2, "max_gram_length": 1}, {}, C + "C4", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"max_skip_count": -1}, {}, C + "C5", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"max_gram_length": 3}, {}, C + "C6", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"ngram_indexes": [0, -1, 2]}, {}, C + "C8", "onnx"),
    ("TfIdfVectorizer", (9,), {}, {"mode": "TFIDF", "weights": [1.0, 2.0]}, {}, C + "C9", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"pool_int64s": None}, {}, C + "C10", "ort"),
    # both pools: onnx does not check it and onnxruntime takes pool_strings; the operator forbids it
    ("TfIdfVectorizer", (9,), {}, {"pool_strings": ["a", "b", "a", "b"]}, {}, C + "C10", None),
    ("TfIdfVectorizer", (9,), {}, {"pool_int64s": []}, {}, C + "C11", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"ngram_counts": [0, 5]}, {}, C + "C12", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"ngram_counts": [0, 3, 2], "max_gram_length": 3}, {}, C + "C12", "ort"),
    ("TfIdfVectorizer", (9,), {}, {"pool_int64s": [1, 2, 1, 2, 3]}, {}, C + "C13", "ort"),
    # the input's type against the pool's: onnx does not check it and onnxruntime returns zeros (no n-gram
    # matches); the operator states the input must be a string tensor with pool_strings
    ("TfIdfVectorizer", (9,), {}, {"pool_int64s": None, "pool_strings": ["a", "b", "a", "b"]}, {}, C + "C14", None),
    ("TfIdfVectorizer", (9,), {}, {"mode": "tf"}, {}, "attribute 'mode'", "ort"),
]


@pytest.mark.parametrize("op, version, ins, attrs, outs, expected, ref", [
    pytest.param(op, v, ins, attrs, outs, expected, ref, id=f"{op}-{v}-{expected.split()[-1]}-{k}")
    for k, (op, vs, ins, attrs, outs, expected, ref) in enumerate(CASES) for v in vs])
def test_violation_is_reported_once_at_its_place(op, version, ins, attrs, outs, expected, ref):
    m, feeds = build(op, version, ins, attrs, outs)
    assert opgen_where(m) == [expected]
    if ref == "onnx":
        assert onnx_rejects(m), "onnx accepts it"
    elif ref == "ort":
        if not onnx_rejects(m):
            if (op, version) in NO_ORT:
                return  # onnxruntime has no kernel for this version (its previous version's case checks it)
            assert ort_error(m, feeds) is not None, "neither onnx nor onnxruntime refuses it"


# valid uses near the edges: accepted by opgen and every reference
EDGES = [
    ("RandomNormal", 1, {}, {"shape": [2, 0]}, {OUT: (F, [2, 0])}),
    ("RandomUniform", 22, {}, {"dtype": 16}, {OUT: (TensorProto.BFLOAT16, [2, 3])}),
    ("RandomNormalLike", 1, {"input": (I64, [2, 3])}, {"dtype": 11}, {OUT: (D, [2, 3])}),
    ("Bernoulli", 15, {}, {"dtype": 9}, {OUT: (B, [2, 3])}),
    ("Multinomial", 7, {}, {"dtype": 7}, {OUT: (I64, [2, 4])}),
    ("EyeLike", 9, {"input": (I32, [3, 3])}, {"k": -5}, {OUT: (I32, [3, 3])}),
    # (onnxruntime's BitCast has no complex or bool kernel)
    ("BitCast", 26, {"input": (TensorProto.COMPLEX64, [2])}, {"to": I64}, {OUT: (I64, [2])}, False),
    ("BitCast", 26, {"input": (B, [2])}, {"to": U8}, {OUT: (U8, [2])}, False),
    ("Cast", 21, {}, {"to": TensorProto.FLOAT8E4M3FN, "saturate": 0}, {OUT: (TensorProto.FLOAT8E4M3FN, [2])}),
    ("Cast", 24, {}, {"saturate": 1, "round_mode": "up"}, {}),
    ("CastLike", 19, {"target_type": helper.make_tensor("target_type", TensorProto.FLOAT8E4M3FN, [1], [0.0])},
     {"saturate": 0},
     {OUT: (TensorProto.FLOAT8E4M3FN, [2])}),
    ("HannWindow", 17, {"size": (I64, [])}, {"output_datatype": 7, "periodic": 0}, {OUT: (I64, [None])}),
    ("MelWeightMatrix", 17, {"num_mel_bins": arr(0), "lower_edge_hertz": f32(4000)}, {}, {OUT: (F, [9, 0])}),
    ("MelWeightMatrix", 17, {"sample_rate": arr([8000]), "upper_edge_hertz": f32([4000])},
     {"output_datatype": 11}, {OUT: (D, [9, 8])}),
    ("ImageDecoder", 20, {}, {"pixel_format": "Grayscale"}, {"image": (U8, [None, None, 1])}),
    ("StringNormalizer", 10, {"X": (S, [3])}, {"stopwords": ["ab cd"], "is_case_sensitive": 1},
     {"Y": (S, [None])}),
    ("TfIdfVectorizer", 9, {"X": (S, [5])}, {"pool_int64s": None, "pool_strings": ["a", "b", "a", "b"],
                                             "mode": "IDF", "weights": [1.0, 2.0, 3.0]}, {"Y": (F, [3])}),
    ("TfIdfVectorizer", 9, {}, {"min_gram_length": 2, "ngram_counts": [0, 2, 4], "max_gram_length": 3,
                                "pool_int64s": [1, 2, 1, 2, 3, 4, 5], "max_skip_count": 1,
                                "ngram_indexes": [0, 1, 2, 3]}, {"Y": (F, [2, 4])}),
]


@pytest.mark.parametrize("edge", EDGES, ids=[f"{e[0]}-{k}" for k, e in enumerate(EDGES)])
def test_valid_edge_use_passes_opgen_and_references(edge):
    op, version, ins, attrs, outs, *ort = edge
    m, feeds = build(op, version, ins, attrs, outs)
    assert opgen_where(m) == []
    assert not onnx_rejects(m)
    if (op, version) not in NO_ORT and ort != [False]:
        assert ort_error(m, feeds) is None
