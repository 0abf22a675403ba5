"""The ONNX reduction, normalisation, linear-algebra and softmax kernels against onnx.reference and
onnxruntime (CPU), version by version: Reduce*, CumSum/CumProd, Softmax/LogSoftmax/Hardmax, Dropout,
MatMul/Gemm/Einsum/Det, and the normalisations.

Each check runs the generated kernel (`opgen_ops.get_kernel("onnx", op, version)`) and the same node as a
one-node model through both references on the same inputs; a reference without that op, version or
dtype is skipped (onnxruntime) or replaced: where a reference does not implement an old version, the
kernel is compared with the newer version on inputs where ONNX's changelog says they agree (named at
each place). Where a reference is wrong, the test says so with the evidence and compares with the
other one. One model serves every input of the same types and attributes (sessions are cached), to
keep the file fast.
"""
from __future__ import annotations

import functools
import re
import warnings

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen_ops
from opgen.dtypes import ELEM_TYPES, elem_of_numpy
from opgen.testing import TOLERANCES

NP = {name: ELEM_TYPES[name].numpy for name in ELEM_TYPES}


def spec_note(op: str, note_id: str) -> None:
    """The behaviour under test is decided by this note of the spec (fails if the note disappears). The
    spec file's text is searched for the note's id (parsing the YAML, or the whole spec set, takes seconds)."""
    from conftest import SPECS

    text = (SPECS / "onnx" / f"{op}.yaml").read_text(encoding="utf-8")
    assert re.search(rf"^\s*(- )?id: {note_id}$", text, re.MULTILINE), f"onnx.{op} has no note {note_id!r}"


@functools.lru_cache(maxsize=None)
def versions(op: str) -> list[int]:
    return sorted({since for d, o, sinces in opgen_ops.list_ops() if (d, o) == ("onnx", op) for since in sinces})


def allowed(op: str, version: int, var: str = "T") -> list[str]:
    return list(opgen_ops.get_signature("onnx", op, version).type_constraints[var])


# ---- one node through the kernel and the references ---------------------------------------------


def _elem(a: np.ndarray) -> int:
    return helper.np_dtype_to_tensor_dtype(np.asarray(a).dtype)


@functools.lru_cache(maxsize=None)
def _model(op: str, version: int, in_types: tuple, out_types: tuple, attrs: tuple) -> onnx.ModelProto:
    names = [f"i{k}" if t is not None else "" for k, t in enumerate(in_types)]
    outs = [f"o{k}" for k in range(len(out_types))]
    node = helper.make_node(op, names, outs, **dict(attrs))
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, t, None) for n, t in zip(names, in_types) if t is not None],
        [helper.make_tensor_value_info(n, t, None) for n, t in zip(outs, out_types)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)], ir_version=10)


@functools.lru_cache(maxsize=None)
def _reference(model_key: tuple) -> ReferenceEvaluator:
    return ReferenceEvaluator(_model(*model_key))


@functools.lru_cache(maxsize=None)
def _session(model_key: tuple):
    try:
        return ort_session(_model(*model_key))
    except Exception as exc:
        # no kernel for this opset or type; with opset 1, onnxruntime's float16 fallback inserts a Cast of
        # the opset-11 form (`to` an int) that Cast-1 (`to` a string) rejects
        if any(m in str(exc) for m in ("NOT_IMPLEMENTED", "Type Error", "InsertedPrecisionFreeCast")):
            return None
        raise


def _key(op, version, inputs, attrs, out_types):
    in_types = tuple(None if x is None else _elem(x) for x in inputs)
    hashable = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in attrs.items()))
    return (op, version, in_types, tuple(out_types), hashable)


def run_kernel(op: str, version: int, inputs: list, attrs: dict, **dtypes) -> tuple:
    """The generated kernel's outputs. A model stores float attributes as float32: the kernel gets the same
    values the references read (epsilon 1e-5 is 9.99999974e-06 for both)."""
    while inputs and inputs[-1] is None:
        inputs = inputs[:-1]
    as_stored = {k: float(np.float32(v)) if isinstance(v, float) else v for k, v in attrs.items()}
    return opgen_ops.get_kernel("onnx", op, version)(*inputs, **as_stored, **dtypes)


def run_reference(op, version, inputs, attrs, out_types) -> list:
    key = _key(op, version, inputs, attrs, out_types)
    feeds = {f"i{k}": x for k, x in enumerate(inputs) if x is not None}
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return [np.asarray(r) for r in _reference(key).run(None, feeds)]


ORT_NEWEST_OPSET = 26  # onnxruntime 1.31 refuses models of newer opsets ("under development")


def run_onnxruntime(op, version, inputs, attrs, out_types) -> list | None:
    if version > ORT_NEWEST_OPSET:
        return None
    if any(x is not None and (x.dtype.name == "bfloat16" or x.dtype.name.startswith("float8")) for x in inputs):
        return None  # onnxruntime's Python binding takes no ml_dtypes arrays ("Numpy_type 256 can't be converted")
    session = _session(_key(op, version, inputs, attrs, out_types))
    if session is None:
        return None
    return session.run(None, {f"i{k}": x for k, x in enumerate(inputs) if x is not None})


def close(got: np.ndarray, want: np.ndarray, label: str, scale: float = 1.0) -> None:
    """Same dtype and shape; values within the dtype's tolerance (times scale); NaN where NaN."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    rtol, atol = TOLERANCES.get(elem_of_numpy(got.dtype), (0, 0))
    g, w = got.astype(np.float64), want.astype(np.float64)
    if not np.allclose(g, w, rtol=rtol * scale, atol=atol * scale, equal_nan=True):  # the same test, faster
        np.testing.assert_allclose(g, w, rtol=rtol * scale, atol=atol * scale, err_msg=label)


def check(op: str, version: int, inputs: list, attrs: dict | None = None, *, ref: bool = True, ort: bool = True,
          out_types: list | None = None, scale: float = 1.0, n_outputs: int | None = None,
          ref_wraps: bool = False, needs_reference: bool = True, dtypes: dict | None = None) -> tuple:
    """The kernel's outputs against each reference that has this node; returns the kernel's outputs.
    ref_wraps: onnx.reference's integer result is of a wider type (NumPy's promotion), compared wrapped to
    the kernel's type. dtypes: the `<output>_dtype` keywords a node's declared outputs give."""
    attrs = attrs or {}
    got = run_kernel(op, version, list(inputs), attrs, **(dtypes or {}))
    types = out_types or [_elem(inputs[0])]
    label = f"{op}-{version} {[None if x is None else (x.dtype.name, x.shape) for x in inputs]} {attrs}"
    compared = 0
    for name, runner, wanted in (("onnx.reference", run_reference, ref), ("onnxruntime", run_onnxruntime, ort)):
        if not wanted:
            continue
        want = runner(op, version, list(inputs), attrs, types)
        if want is None:
            continue
        for k, (g, w) in enumerate(list(zip(got, want))[:n_outputs]):
            if ref_wraps and name == "onnx.reference" and w.dtype.kind in "iu":
                w = w.astype(g.dtype)
            close(g, w, f"{name} output {k}: {label}", scale)
        compared += 1
    assert compared or not needs_reference, f"no reference ran {label}"
    return got


def rand(rng: np.random.Generator, shape, dtype: str, low: float = -3.0, high: float = 3.0) -> np.ndarray:
    kind = ELEM_TYPES[dtype].kind
    if kind == "bool":
        return rng.random(shape) < 0.5
    if kind in ("int", "uint"):
        return rng.integers(0 if kind == "uint" else int(low) * 4, int(high) * 4 + 1, size=shape).astype(NP[dtype])
    values = rng.uniform(low, high, size=shape)
    if values.size >= 3:
        values.flat[:3] = [0.0, -0.0, 1e-3]
    return values.astype(NP[dtype])


def sample(types: list[str], version: int, newest: bool = True) -> list[str]:
    """float, one integer type (if any) and one other floating type, rotating with the version; for an
    older version (newest false) one type, rotating through every allowed type with the version."""
    if not newest:
        return [types[version % len(types)]]
    floats = [t for t in types if t in ("float16", "bfloat16", "double")]
    ints = [t for t in types if ELEM_TYPES[t].kind in ("int", "uint")]
    picked = ["float"] if "float" in types else types[:1]
    picked += [ints[version % len(ints)]] if ints else []
    picked += [floats[version % len(floats)]] if floats else []
    return picked


# ---- Reduce* -----------------------------------------------------------------------------------

REDUCE = ("ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean", "ReduceL1", "ReduceL2",
          "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp")
LOGARITHMIC = ("ReduceLogSum", "ReduceLogSumExp")


def _axes_as_input(op: str, version: int) -> bool:
    return version >= (13 if op == "ReduceSum" else 18)


def _reduce_data(rng, op: str, shape, dtype: str) -> np.ndarray:
    low = 0.0 if op == "ReduceLogSum" else -3.0  # a positive sum has a logarithm
    return rand(rng, shape, dtype, low, 3.0)


def _check_reduce(op: str, version: int, inputs: list, attrs: dict) -> None:
    """One reduction against the references that can check it (their gaps and errors named here)."""
    x = inputs[0]
    newest = version == versions(op)[-1]
    integer = x.dtype.kind in "iu"
    # onnx.reference refuses integer data for the logarithms (its message: "Integer types were removed from
    # the schema in opset 28"), though versions 1-18 allow them: checked through double below. Its
    # ReduceLogSumExp fails on rank-0 data (np.exp(..., out=) of a NumPy scalar: "return arrays must be of
    # ArrayType").
    ref = not (op in LOGARITHMIC and integer) and not (op == "ReduceLogSumExp" and x.ndim == 0)
    # The mean of no elements (undefined by ONNX; note empty_and_integer_mean): onnxruntime gives 0, the kernel
    # and onnx.reference NaN for floating types; for integers onnx.reference converts that NaN (INT_MIN, a
    # platform artefact) where the kernel gives 0: not compared.
    empty_mean = op == "ReduceMean" and 0 in x.shape and run_kernel(op, version, inputs, attrs)[0].size > 0
    ref = ref and not (empty_mean and integer)
    # onnxruntime sessions are the slow part of this file: for the newest version (three types) onnxruntime
    # checks float data, onnx.reference every type; older versions have one type each, checked by both with
    # axes given (by onnx.reference alone without). onnxruntime's path for empty data drops negative axes:
    # (2, 0, 3) reduced over axes [1, -1] gives shape (2, 3) there, (2,) in onnx.reference and in onnx's
    # shape inference.
    ort = (x.dtype == np.float32 if newest else "axes" in attrs) and not empty_mean
    ort = ort and not (0 in x.shape and any(a < 0 for a in attrs.get("axes", [])))
    # onnx.reference squares (u)int32 data into (u)int64 (np.square then np.sum promote): compared wrapped.
    check(op, version, inputs, attrs, ref=ref, ort=ort, ref_wraps=op == "ReduceSumSquare", needs_reference=False)
    # onnxruntime 1.31 refuses opset 28; ReduceLogSum/LogSumExp-28 only drop the integer types (changelog),
    # so on floating data version 18 is the same node (rank 0, where onnx.reference fails).
    if version == 28 and x.ndim == 0:
        (got,) = run_kernel(op, version, inputs, attrs)
        close(got, run_onnxruntime(op, 18, inputs, attrs, [_elem(x)])[0], f"{op}-28 as onnxruntime's {op}-18")
    if op in LOGARITHMIC and integer and not (op == "ReduceLogSumExp" and x.ndim == 0):
        # onnxruntime has integer logarithms for int32/int64 only, and its ReduceLogSumExp adds the integer
        # maximum to the truncated log term (-3 + trunc(0.007) = -3 where log(sum(exp(x))) = -2.993 truncates
        # to -2; note integer_logarithm). The same values as double through onnx.reference, converted as the
        # kernel converts (toward zero, saturating: log(0) = -inf gives the type's lowest value), are the
        # reference for every integer type.
        (got,) = run_kernel(op, version, inputs, attrs)
        as_double = [x.astype(np.float64)] + list(inputs[1:])
        (want,) = run_reference(op, version, as_double, attrs, [onnx.TensorProto.DOUBLE])
        info = np.iinfo(x.dtype)
        want = np.nan_to_num(np.clip(np.trunc(want), float(info.min), float(info.max)), nan=0.0)
        np.testing.assert_array_equal(got, want.astype(x.dtype), err_msg=f"{op}-{version} {x.dtype}")


@pytest.mark.parametrize("op,version", [(op, v) for op in REDUCE for v in versions(op)])
def test_reduce(op: str, version: int) -> None:
    """Axes as attribute or input (absent, empty, negative, all), keepdims, noop_with_empty_axes, rank 0, and
    empty reductions (ONNX's identities), for a sample of each version's types."""
    if op == "ReduceMean":
        spec_note(op, "empty_and_integer_mean")
    if op in LOGARITHMIC:
        spec_note(op, "integer_logarithm")
    rng = np.random.default_rng(version + len(op))
    for dtype in sample(allowed(op, version), version, version == versions(op)[-1]):
        x = _reduce_data(rng, op, (2, 3, 4), dtype)
        scalar, empty = _reduce_data(rng, op, (), dtype), _reduce_data(rng, op, (2, 0, 3), dtype)
        if _axes_as_input(op, version):
            def axes(*values):
                return np.array(values, np.int64)
            for a in (axes(1), axes(0, -1), axes(), axes(-1, -2, -3)):
                _check_reduce(op, version, [x, a], {"keepdims": 0})
            _check_reduce(op, version, [empty, axes(1)], {"keepdims": 0})  # no elements: the identity
            _check_reduce(op, version, [empty, axes(0)], {"keepdims": 0})  # an empty result
            for data in (x, scalar, empty):  # axes absent: every axis
                _check_reduce(op, version, [data], {"keepdims": 1})
            # noop_with_empty_axes: f of each element when axes is empty; an ordinary reduction (kept
            # dimensions) when it is not
            for a in (axes(), axes(1), axes(-1)):
                _check_reduce(op, version, [x, a], {"noop_with_empty_axes": 1})
        else:
            negative = [1, -1] if version >= 11 else [1, 2]  # negative axes from version 11
            for attrs in ({"axes": negative, "keepdims": 0}, {}):
                _check_reduce(op, version, [x], attrs)
                _check_reduce(op, version, [empty], attrs)  # axis 1 is empty: the identity
            _check_reduce(op, version, [scalar], {})


@pytest.mark.parametrize("op", REDUCE)
def test_reduce_ieee_values(op: str) -> None:
    """NaN propagates, infinities give what the arithmetic gives: against onnx.reference (onnxruntime's
    max/min skip NaN, note nan_and_signed_zero). Max/min order -0.0 below +0.0 (the note): asserted."""
    version = versions(op)[-1]
    inf, nan = np.inf, np.nan
    x = np.array([[1.0, nan, 2.0, -0.0], [inf, 1.0, -inf, 2.0], [-0.0, -0.0, 0.0, 1e-30], [inf, 3.0, 1.0, -2.0]],
                 np.float32)
    if op == "ReduceLogSum":
        x = np.abs(x)
    for a in ([1], [0]):
        check(op, version, [x, np.array(a, np.int64)], {"keepdims": 0}, ort=False)
    if op in ("ReduceMax", "ReduceMin"):
        # bool (version 20): max is OR, min is AND; no elements give false (max) and true (min)
        flags = np.array([[True, False, False], [False, False, False], [True, True, True]])
        for data, a in ((flags, [1]), (flags, [0]), (flags[:, :0], [1]), (flags[:0], [])):
            check(op, version, [data, np.array(a, np.int64)], {"keepdims": 0}, ort=False)
        spec_note(op, "nan_and_signed_zero")
        zeros = np.array([[-0.0, 0.0, -0.0], [0.0, -0.0, 0.0], [-0.0, -0.0, -0.0]], np.float32)
        (got,) = run_kernel(op, version, [zeros, np.array([1], np.int64)], {"keepdims": 0})
        assert np.signbit(got).tolist() == ([False, False, True] if op == "ReduceMax" else [True, True, True])


# ---- CumSum / CumProd --------------------------------------------------------------------------


@pytest.mark.parametrize("op,version", [("CumSum", 11), ("CumSum", 14), ("CumProd", 26)])
def test_cumulative(op: str, version: int) -> None:
    """Every exclusive/reverse combination, axis as int32 and int64, negative axes, an empty axis.
    onnxruntime 1.31 has no CumProd: onnx.reference there."""
    rng = np.random.default_rng(version)
    for dtype in sample(allowed(op, version), version):
        x = rand(rng, (3, 4), dtype, -2.0, 2.0)
        for exclusive in (0, 1):
            for reverse in (0, 1):
                attrs = {"exclusive": exclusive, "reverse": reverse}
                ort = dtype == "float" and op == "CumSum"
                check(op, version, [x, np.array(0, np.int64)], attrs, ort=ort)
                check(op, version, [x, np.array(-1, np.int32)], attrs, ort=False)  # axis of type int32
                check(op, version, [rand(rng, (2, 0), dtype), np.array(1, np.int64)], attrs, ort=ort)


# ---- Softmax / LogSoftmax / Hardmax --------------------------------------------------------------


def _as_matrix(x: np.ndarray, axis: int) -> np.ndarray:
    a = axis % x.ndim
    return x.reshape(int(np.prod(x.shape[:a])), -1)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_softmax_family(op: str) -> None:
    """From 13 along one axis: both references. Versions 1 and 11 normalise the 2-D view (dimensions from
    axis on together): onnxruntime implements them; onnx.reference runs the opset-13 semantics for every
    version, so it is compared on the 2-D view itself (axis 1 of the matrix), where the two agree."""
    rng = np.random.default_rng(len(op))
    x = rand(rng, (2, 3, 4), "float")
    ties = np.array([[1.0, 3.0, 3.0, 0.0], [np.nan, 1.0, np.nan, 2.0], [-np.inf, -np.inf, -1.0, -2.0]], np.float32)
    for version in versions(op):
        for dtype in allowed(op, version) if version >= 13 else sample(allowed(op, version), version):
            data = x.astype(NP[dtype])
            for axis in (0, 1, -1):
                if version >= 13:
                    check(op, version, [data], {"axis": axis}, ort=dtype == "float")
                    continue
                (got,) = check(op, version, [data], {"axis": axis}, ref=False, ort=dtype == "float",
                               needs_reference=False)
                (want,) = run_reference(op, 13, [_as_matrix(data, axis)], {"axis": 1}, [_elem(data)])
                close(got, want.reshape(data.shape), f"{op}-{version} as the 2-D view, axis {axis}")
            check(op, version, [data[:0]], {"axis": 1}, ort=False)  # empty
        # Hardmax: the first of equal maxima; NaN counts as the largest (NumPy's argmax, as onnx.reference);
        # softmax of a row holding NaN is NaN
        check(op, version, [ties], {"axis": 1}, ref=version >= 13, ort=False, needs_reference=False)
        if op == "Hardmax":
            spec_note(op, "nan_counts_largest")
            (got,) = run_kernel(op, version, [ties], {"axis": 1})
            assert got.tolist() == [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 1, 0]], got


# ---- Dropout -----------------------------------------------------------------------------------


def test_dropout() -> None:
    """Inference (every version): output = data, mask all kept, against both references. Training from
    version 12: onnx.reference draws numpy.random.RandomState(seed).uniform as the kernel does, so output
    and mask are compared exactly; onnxruntime's generator differs (not compared)."""
    rng = np.random.default_rng(5)
    x = rand(rng, (3, 4, 5), "float")
    b = onnx.TensorProto.BOOL
    for version in (12, 13, 22):
        for dtype in sample(allowed(op="Dropout", version=version), version):
            data = x.astype(NP[dtype])
            et = _elem(data)
            check("Dropout", version, [data], {}, out_types=[et, b])
            check("Dropout", version, [data, np.array(0.3, data.dtype)], {"seed": 3}, out_types=[et, b])
            # ratio absent: 0.5. onnx.reference takes an empty ratio input as None (`ratio >= 0.5` fails):
            # compared with its run with ratio 0.5 given
            got = run_kernel("Dropout", version, [data, None, np.array(True)], {"seed": 3})
            want = run_reference("Dropout", version, [data, np.array(0.5, data.dtype), np.array(True)], {"seed": 3},
                                 [et, b])
            close(got[0], want[0], f"Dropout-{version} ratio absent")
            close(got[1], want[1], f"Dropout-{version} ratio absent, mask")
            for ratio in (0.0, 0.25, 0.75):
                inputs = [data, np.array(ratio, data.dtype), np.array(True)]
                check("Dropout", version, inputs, {"seed": 7}, ort=False, out_types=[et, b])
        # float8 (version 22) through float32: every kept element is x / (1 - ratio) rounded once
        if version == 22:
            f8 = x.astype(ml_dtypes.float8_e4m3fn)
            out, mask = run_kernel("Dropout", 22, [f8, np.array(0.5, f8.dtype), np.array(True)], {"seed": 1})
            want = np.where(mask, f8.astype(np.float32) * 2, 0).astype(f8.dtype)
            assert out.dtype == f8.dtype and np.array_equal(out.astype(np.float32), want.astype(np.float32))
    spec_note("Dropout", "inference_mode")
    spec_note("Dropout", "test_mode_mask")
    for version, mask_type in ((10, b), (7, onnx.TensorProto.FLOAT)):
        # no mode selector: run for inference. Masks: onnx.reference returns a bool mask for Dropout-7 too
        # (the spec types it T); onnxruntime's Dropout-10 returns an all-false mask, where output = scale *
        # data * mask (Dropout-12's definition) and onnxruntime's own Dropout-12/13 give all true: the mask is
        # compared, as values, with onnx.reference only
        out, mask = check("Dropout", version, [x], {"ratio": 0.2}, ref=False, n_outputs=1,
                          out_types=[onnx.TensorProto.FLOAT, mask_type])
        ref_out, ref_mask = run_reference("Dropout", version, [x], {"ratio": 0.2}, [onnx.TensorProto.FLOAT, b])
        close(out, ref_out, f"Dropout-{version}")
        assert mask.dtype == (bool if version == 10 else np.float32) and np.all(mask.astype(bool) == ref_mask)
    for version in (1, 6):
        extra = {"consumed_inputs": [0]} if version == 1 else {}
        out, mask = run_kernel("Dropout", version, [x], {"is_test": 1, **extra})
        (want,) = run_reference("Dropout", 10, [x], {}, [onnx.TensorProto.FLOAT])  # test mode: the same copy
        close(out, want, f"Dropout-{version} is_test")
        assert mask.dtype == x.dtype and np.all(mask == 1)
        # is_test = 0 (default): training, unseeded. Each element is dropped (0, mask 0) or scaled by
        # 1 / (1 - ratio) (mask 1); over 5 000 elements about ratio of them are dropped.
        big = rand(rng, (100, 50), "float", 1.0, 2.0)
        out, mask = run_kernel("Dropout", version, [big], {"ratio": 0.25, **extra})
        kept = mask == 1
        assert mask.dtype == big.dtype and np.all((mask == 0) | kept)
        close(out, np.where(kept, big * np.float32(1 / 0.75), 0).astype(np.float32), f"Dropout-{version} training")
        assert abs(1 - kept.mean() - 0.25) < 0.03  # five standard deviations of the dropped fraction


# ---- MatMul, Gemm, Einsum, Det -------------------------------------------------------------------

MATMUL_SHAPES = [((2, 3), (3, 4)), ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 1, 2, 3), (5, 3, 4)),
                 ((4, 2, 3), (3,)), ((0, 3), (3, 2)), ((2, 0), (0, 3))]


@pytest.mark.parametrize("version", versions("MatMul"))
def test_matmul(version: int) -> None:
    """numpy.matmul's broadcasting and 1-D promotion; integers wrap around (both references agree)."""
    rng = np.random.default_rng(version)
    for dtype in sample(allowed("MatMul", version), version):
        for sa, sb in MATMUL_SHAPES:
            check("MatMul", version, [rand(rng, sa, dtype), rand(rng, sb, dtype)], ort=dtype == "float")
    big = np.full((2, 2), 2**20, np.int32)  # 2^41 wraps to 0 in int32
    check("MatMul", versions("MatMul")[-1], [big, big])


@pytest.mark.parametrize("version", versions("Gemm"))
def test_gemm(version: int) -> None:
    """alpha/beta, transposes, C broadcast (from 7; with broadcast = 1 before), C absent (from 11),
    beta = 0 ignoring C. References: onnx.reference from 6 on and onnxruntime from 7 on. Neither has
    Gemm-1, which has Gemm-6's attributes and text (6 changed no semantics): compared with
    onnx.reference's Gemm-6. That Gemm-6 drops beta when broadcast = 0 (it returns `res + c`): a C of
    Y's shape is compared with its Gemm-7 instead (the same computation once C has Y's shape)."""
    rng = np.random.default_rng(version)
    legacy = version < 7
    for dtype in sample(allowed("Gemm", version), version):
        a, b = rand(rng, (3, 5), dtype), rand(rng, (5, 4), dtype)
        for c_shape in [(3, 4), (4,), (1, 4), (3, 1), ()]:
            c = rand(rng, c_shape, dtype)
            for attrs in ({"alpha": 0.5, "beta": 2.0}, {"transA": 1, "transB": 1}, {"beta": 0.0}):
                inputs = [a.T.copy() if attrs.get("transA") else a, b.T.copy() if attrs.get("transB") else b, c]
                if legacy:
                    full = c_shape == (3, 4)
                    attrs = {**attrs, "broadcast": 0 if full else 1}
                    (got,) = run_kernel("Gemm", version, inputs, attrs)
                    ref_version = 7 if full else 6
                    ref_attrs = {k: v for k, v in attrs.items() if k != "broadcast" or ref_version == 6}
                    (want,) = run_reference("Gemm", ref_version, inputs, ref_attrs, [_elem(a)])
                    close(got, want, f"Gemm-{version} {c_shape} {attrs} as onnx.reference's Gemm-{ref_version}")
                else:
                    check("Gemm", version, inputs, attrs, ort=dtype == "float")
        if version >= 11:
            check("Gemm", version, [a, b], {"alpha": 2.0}, ort=dtype == "float")  # C absent
    if legacy:  # broadcast = 0 needs C of Y's shape
        with pytest.raises(ValueError, match="broadcast"):
            run_kernel("Gemm", version, [a, b, rand(rng, (4,), "float").astype(a.dtype)], {})


EINSUM = [("ij,jk->ik", [(2, 3), (3, 4)]), ("ii->i", [(3, 3)]), ("...ij,...jk", [(2, 2, 3), (2, 3, 4)]),
          ("i,i", [(3,), (3,)]), ("bij, bjk -> bik", [(2, 2, 3), (2, 3, 2)]), ("ij->", [(2, 3)]),
          ("ji", [(2, 3)]), ("i,j->ij", [(2,), (3,)]), ("Ab,bA->", [(2, 3), (3, 2)])]


@pytest.mark.parametrize("version", versions("Einsum"))
def test_einsum(version: int) -> None:
    """Explicit and implicit modes, ellipsis broadcasting, diagonals, spaces, upper-case labels. onnxruntime
    1.31 refuses opset 28: Einsum-28 (bfloat16 added, nothing else changed) with onnx.reference only."""
    rng = np.random.default_rng(version)
    for dtype in sample(allowed("Einsum", version), version):
        for equation, shapes in EINSUM:
            check("Einsum", version, [rand(rng, s, dtype) for s in shapes], {"equation": equation},
                  ort=dtype == "float")


@pytest.mark.parametrize("version", versions("Det"))
def test_det(version: int) -> None:
    """Batched determinants; a singular matrix gives 0. onnxruntime has float only, onnx.reference no
    float16/bfloat16 (numpy.linalg has none): those are compared with onnx.reference on the same values
    in float32, rounded once."""
    rng = np.random.default_rng(version)
    singular = np.array([[1.0, 2.0], [2.0, 4.0]], np.float32)
    for dtype in allowed("Det", version):
        for shape in ((3, 3), (2, 4, 4), (0, 2, 2), (1, 1), (2, 1, 2, 2)):
            x = rand(rng, shape, dtype, -2.0, 2.0)
            if dtype in ("float16", "bfloat16"):
                (got,) = run_kernel("Det", version, [x], {})
                (want,) = run_reference("Det", version, [x.astype(np.float32)], {}, [onnx.TensorProto.FLOAT])
                close(got, want.astype(x.dtype), f"Det-{version} {dtype} {shape}")
            else:
                check("Det", version, [x], ort=dtype == "float")
    check("Det", version, [singular])


# ---- BatchNormalization ------------------------------------------------------------------------


def _bn_inputs(rng, x_shape, dtype: str, stats_dtype: str | None = None) -> list[np.ndarray]:
    c = x_shape[1] if len(x_shape) > 1 else 1
    x = rand(rng, x_shape, dtype)
    scale, bias = rand(rng, (c,), dtype), rand(rng, (c,), dtype)
    mean = rand(rng, (c,), stats_dtype or dtype)
    var = (np.abs(rand(rng, (c,), stats_dtype or dtype)) + 0.5).astype(NP[stats_dtype or dtype])
    return [x, scale, bias, mean, var]


def test_batch_normalization_14_15() -> None:
    """Inference and training_mode (Y, running_mean, running_var), ranks 1 to 4 (1-D: one channel), stats of
    another type (14: mean/var; 15: scale/B too). Both references; onnxruntime for float."""
    rng = np.random.default_rng(15)
    attrs = {"epsilon": 2**-10, "momentum": 0.75}
    for version in (14, 15):
        for dtype in allowed("BatchNormalization", version):
            for shape in ((2, 3, 4, 5), (4, 3), (5,)):
                inputs = _bn_inputs(rng, shape, dtype)
                et = _elem(inputs[0])
                check("BatchNormalization", version, inputs, attrs, ort=dtype == "float")
                # onnx.reference's training mode takes axis 1 out of the statistics' axes (np.delete): no 1-D X
                check("BatchNormalization", version, inputs, {**attrs, "training_mode": 1}, ort=dtype == "float",
                      ref=len(shape) > 1, out_types=[et, et, et], needs_reference=len(shape) > 1)
        x, scale, bias, mean, var = _bn_inputs(rng, (2, 3, 4), "float16", "float")
        if version == 15:
            scale, bias = scale.astype(np.float32), bias.astype(np.float32)
        # onnx.reference returns the running statistics in X's type (float16), the spec in input_mean's
        # (float): Y against it, the statistics against its run on the same values all in float32
        inputs = [x, scale, bias, mean, var]
        for mode in (0, 1):
            got = check("BatchNormalization", version, inputs, {**attrs, "training_mode": mode}, ort=False,
                        n_outputs=1, out_types=[onnx.TensorProto.FLOAT16] + [onnx.TensorProto.FLOAT] * 2 * mode)
        want = run_reference("BatchNormalization", version, [a.astype(np.float32) for a in inputs],
                             {**attrs, "training_mode": 1}, [onnx.TensorProto.FLOAT] * 3)
        close(got[1], want[1], "running_mean (float) of float16 X")
        close(got[2], want[2], "running_var (float) of float16 X")


def test_batch_normalization_legacy() -> None:
    """Versions 1-9 in test mode against onnxruntime (7 and 9) and onnx.reference's BatchNormalization-15
    (test mode did not change). onnx.reference's own BatchNormalization-9 normalises with the momentum-
    blended statistics whenever momentum is set (its default 0.9 always is), and its BatchNormalization-6/7
    class returns all training outputs as one tuple: not usable. Training (versions 1 and 6, is_test = 0):
    Y and the running statistics against onnx.reference's BatchNormalization-15 training mode; saved_mean
    and saved_var against NumPy's mean and (population) var in float64. spatial = 0 (1, 6, 7) is
    BatchNormalization-15 of X reshaped to (N, C * D1 * ... * Dn), as ONNX's changelog says."""
    rng = np.random.default_rng(9)
    attrs = {"epsilon": 2**-10, "momentum": 0.75}
    f = onnx.TensorProto.FLOAT
    for version in (1, 6, 7, 9):
        extra = {"consumed_inputs": [0, 0]} if version == 1 else {}
        test_mode = {"is_test": 1} if version < 7 else {}
        for dtype in allowed("BatchNormalization", version):
            inputs = _bn_inputs(rng, (2, 3, 4, 5), dtype)
            (got,) = check("BatchNormalization", version, inputs, {**attrs, **test_mode, **extra}, ref=False,
                           ort=version >= 7 and dtype != "float16", needs_reference=False)
            (want,) = run_reference("BatchNormalization", 15, inputs, attrs, [_elem(inputs[0])])
            close(got, want, f"BatchNormalization-{version} {dtype} as 15")
        x, scale, bias, mean, var = _bn_inputs(rng, (3, 2, 4), "float")
        if version < 9:  # spatial = 0: per activation, parameters of shape (C, D1)
            params = [rand(rng, (2, 4), "float") for _ in range(3)] + [np.full((2, 4), 0.75, np.float32)]
            flat = [x.reshape(3, 8)] + [p.reshape(8) for p in params]
            per_activation = {**attrs, **test_mode, **extra, "spatial": 0}
            (got,) = run_kernel("BatchNormalization", version, [x] + params, per_activation)
            (want,) = run_reference("BatchNormalization", 15, flat, attrs, [f])
            close(got, want.reshape(x.shape), f"BatchNormalization-{version} spatial=0")
        if version < 7:  # training: five outputs (note saved_statistics)
            spec_note("BatchNormalization", "saved_statistics")
            got = run_kernel("BatchNormalization", version, [x, scale, bias, mean, var], {**attrs, **extra})
            want = run_reference("BatchNormalization", 15, [x, scale, bias, mean, var],
                                 {**attrs, "training_mode": 1}, [f, f, f])
            for k in range(3):
                close(got[k], want[k], f"BatchNormalization-{version} training output {k}")
            x64 = x.astype(np.float64)
            close(got[3], x64.mean(axis=(0, 2)).astype(np.float32), "saved_mean")
            close(got[4], x64.var(axis=(0, 2)).astype(np.float32), "saved_var")
            flat_x = x.reshape(3, 8)
            got = run_kernel("BatchNormalization", version, [x] + params, {**attrs, **extra, "spatial": 0})
            want = run_reference("BatchNormalization", 15, [flat_x] + [p.reshape(8) for p in params],
                                 {**attrs, "training_mode": 1}, [f, f, f])
            for k in range(3):
                close(got[k].reshape(want[k].shape), want[k], f"BatchNormalization-{version} spatial=0 training {k}")


def test_batch_normalization_9_training_outputs_run() -> None:
    """BatchNormalization-7/9 select training mode by the node's outputs: the graph runner tells the
    kernel which outputs the node asks for (spec kernel.requested_outputs), so a node with the five
    training outputs trains (values against onnxruntime and onnx.reference's training function in
    tests/test_runtime_gaps.py); here the batch statistics against NumPy's."""
    node = helper.make_node("BatchNormalization", ["X", "s", "b", "m", "v"], ["Y", "m2", "v2", "sm", "sv"])
    f = onnx.TensorProto.FLOAT
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, f, [2, 3] if n == "X" else [3])
                                            for n in "X s b m v".split()],
                              [helper.make_tensor_value_info(n, f, None) for n in ["Y", "m2", "v2", "sm", "sv"]])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 9)], ir_version=8)
    feeds = dict(zip("X s b m v".split(), _bn_inputs(np.random.default_rng(0), (2, 3), "float")))
    import opgen

    spec_note("BatchNormalization", "training_by_output_count")
    got = opgen.run_model(model, feeds)
    assert list(got) == ["Y", "m2", "v2", "sm", "sv"]
    close(got["sm"], feeds["X"].mean(axis=0), "saved_mean")
    close(got["sv"], feeds["X"].var(axis=0), "saved_var")


# ---- instance, layer, group, RMS normalisation -------------------------------------------------

FLOAT = onnx.TensorProto.FLOAT
# stash_type 1 computes the statistics in float32 also for double data (ONNX's function casts X to the
# stash type); both references compute double data in double: compared at float32's tolerance.
STASHED = {"double": 1e6}


@pytest.mark.parametrize("version", versions("InstanceNormalization"))
def test_instance_normalization(version: int) -> None:
    """Both references from version 6; neither takes version 1's consumed_inputs (a legacy in-place hint,
    the only change at 6): version 1 is compared with their version 6."""
    rng = np.random.default_rng(version)
    for dtype in allowed("InstanceNormalization", version):
        for shape in ((2, 3, 4, 5), (1, 2, 3)):
            c = shape[1]
            inputs = [rand(rng, shape, dtype), rand(rng, (c,), dtype), rand(rng, (c,), dtype)]
            attrs = {"epsilon": 2**-8}
            if version == 1:
                (got,) = run_kernel("InstanceNormalization", 1, inputs, {**attrs, "consumed_inputs": [0]})
                (want,) = check("InstanceNormalization", 6, inputs, attrs, ort=dtype == "float")
                close(got, want, f"InstanceNormalization-1 {dtype} as 6")
            else:
                check("InstanceNormalization", version, inputs, attrs, ort=dtype == "float")


def test_layer_normalization() -> None:
    """Y, Mean and InvStdDev for every axis, Scale/B of the normalised shape or broadcast, B absent. Mean and
    InvStdDev have the type U the node declares (the kernel is given it): bfloat16 for bfloat16 X, else
    float. onnx.reference gives them X's type, not allowed for float16 and double X (U is float or
    bfloat16): Y alone is compared there. stash_type 11 computes double in double, compared with onnx.reference
    (which computes double data in double whatever stash_type says, and refuses every stash type but 1)."""
    spec_note("LayerNormalization", "stash_precision")
    rng = np.random.default_rng(17)
    for dtype in allowed("LayerNormalization", 17):
        x = rand(rng, (2, 3, 4), dtype)
        u = NP["bfloat16"] if dtype == "bfloat16" else np.dtype(np.float32)
        outs = [_elem(x)] + [helper.np_dtype_to_tensor_dtype(u)] * 2
        f32 = {"Mean_dtype": u, "InvStdDev_dtype": u}
        for axis in (-1, 1, 0, -3):
            scale = rand(rng, x.shape[axis % 3:], dtype)
            for inputs in ([x, scale, rand(rng, x.shape[axis % 3:], dtype)], [x, scale], [x, scale[..., :1], scale]):
                got = check("LayerNormalization", 17, inputs, {"axis": axis, "epsilon": 2**-8}, out_types=outs,
                            ort=dtype == "float", n_outputs=1 if dtype in ("double", "float16") else None,
                            scale=STASHED.get(dtype, 1.0), dtypes=f32)
                assert got[1].dtype == got[2].dtype == u
        if dtype == "double":
            (y,) = run_kernel("LayerNormalization", 17, [x, scale], {"axis": 0, "stash_type": 11}, **f32)[:1]
            close(y, run_reference("LayerNormalization", 17, [x, scale], {"axis": 0}, outs)[0], "stash_type 11")


def test_rms_normalization() -> None:
    """Every axis; Y has scale's type V (onnx.reference returns X's type: compared as values there). double
    X with the default stash_type is computed in float32 (see STASHED)."""
    spec_note("RMSNormalization", "stash_precision")
    rng = np.random.default_rng(23)
    for dtype in allowed("RMSNormalization", 23):
        x = rand(rng, (2, 3, 4), dtype)
        for axis in (-1, 1, 0):
            scale = rand(rng, x.shape[axis % 3:], dtype)
            check("RMSNormalization", 23, [x, scale], {"axis": axis, "epsilon": 2**-8}, ort=dtype == "float",
                  scale=STASHED.get(dtype, 1.0))
    x, scale = rand(rng, (2, 3, 4), "float16"), rand(rng, (4,), "float")
    (got,) = run_kernel("RMSNormalization", 23, [x, scale], {})
    (want,) = run_reference("RMSNormalization", 23, [x.astype(np.float32), scale], {}, [FLOAT])
    assert got.dtype == np.float32
    close(got, want, "float16 X, float scale", scale=1e3)  # X's normalised value is rounded to float16 first


def test_group_normalization() -> None:
    """GroupNormalization-21 against onnx.reference (its function, computing in the stash type) and
    onnxruntime. GroupNormalization-18 is deprecated (ONNX, onnxruntime and opgen's validator refuse a model
    using it), so its function is called directly: with scale and bias equal within each group it is
    version 21 with the per-group values repeated per channel."""
    from opgen.runtime.kernels.onnx_normalization import onnx_group_norm_18

    spec_note("GroupNormalization", "stash_precision")
    rng = np.random.default_rng(21)
    for dtype in allowed("GroupNormalization", 21):
        for shape, groups in (((2, 4, 3), 2), ((1, 6, 2, 2), 3), ((2, 4, 3), 4), ((2, 4), 1)):
            c = shape[1]
            inputs = [rand(rng, shape, dtype), rand(rng, (c,), dtype), rand(rng, (c,), dtype)]
            attrs = {"num_groups": groups, "epsilon": 2**-8}
            check("GroupNormalization", 21, inputs, attrs, ort=dtype == "float", scale=STASHED.get(dtype, 1.0))
            per_group = [rand(rng, (groups,), dtype) for _ in range(2)]
            got = onnx_group_norm_18(inputs[0], *per_group, num_groups=groups, epsilon=float(np.float32(2**-8)))
            per_channel = [np.repeat(p, c // groups) for p in per_group]
            (want,) = run_reference("GroupNormalization", 21, [inputs[0]] + per_channel, attrs, [_elem(inputs[0])])
            close(got, want, f"GroupNormalization-18 {dtype} {shape} as 21", scale=STASHED.get(dtype, 1.0))


# ---- Lp, mean-variance and local response normalisation -----------------------------------------


@pytest.mark.parametrize("version", versions("LpNormalization"))
def test_lp_normalization(version: int) -> None:
    """p = 2 against both references; a slice of zeros gives 0 (the text; onnx.reference agrees). p = 1 against
    onnxruntime only: onnx.reference takes np.power(x, p) without the absolute value, so its L1 norm of
    [1, -1] is 0. onnx.reference computes float16/bfloat16 in their own precision (each square and the
    sum rounded: its norm of (v, 0) is not |v|), the kernel in float32: compared at 10 times the tolerance."""
    rng = np.random.default_rng(version)
    for dtype in allowed("LpNormalization", version):
        x = rand(rng, (2, 3, 4), dtype)
        x[1, :, 2] = 0
        for axis in (0, -1):
            check("LpNormalization", version, [x], {"axis": axis, "p": 2}, ort=dtype == "float",
                  scale=10.0 if dtype in ("float16", "bfloat16") else 1.0)
            check("LpNormalization", version, [x], {"axis": axis, "p": 1}, ref=False, ort=dtype == "float",
                  needs_reference=False)
    (got,) = run_kernel("LpNormalization", version, [np.array([[1.0, -1.0], [3.0, 4.0]], np.float32)], {"p": 1})
    np.testing.assert_array_equal(got, np.array([[0.5, -0.5], [3 / 7, 4 / 7]], np.float32))


@pytest.mark.parametrize("version", versions("MeanVarianceNormalization"))
def test_mean_variance_normalization(version: int) -> None:
    """Against onnx.reference (ONNX's function) and onnxruntime, float. The function is not valid for other
    types (its epsilon is a float constant added to T): float16/bfloat16 are compared with it on the same
    values in float32, rounded once; double with onnx.reference's LayerNormalization in double (epsilon 0,
    the reduced axes moved last), at 1e-8: MVN adds 1e-9 to the standard deviation."""
    rng = np.random.default_rng(version)
    for dtype in allowed("MeanVarianceNormalization", version):
        x = rand(rng, (2, 3, 4, 2), dtype)
        for attrs in ({}, {"axes": [1, -1]}, {"axes": [0, 1, 2, 3]}):
            if dtype == "float":
                check("MeanVarianceNormalization", version, [x], attrs)
                continue
            (got,) = run_kernel("MeanVarianceNormalization", version, [x], attrs)
            if dtype != "double":
                (want,) = run_reference("MeanVarianceNormalization", version, [x.astype(np.float32)], attrs, [FLOAT])
                close(got, want.astype(x.dtype), f"MeanVarianceNormalization-{version} {dtype} {attrs}")
                continue
            reduced = sorted(a % 4 for a in attrs.get("axes", [0, 2, 3]))
            order = [a for a in range(4) if a not in reduced] + reduced
            moved = np.transpose(x, order)
            ones = np.ones(moved.shape[4 - len(reduced):])
            (want,) = run_reference("LayerNormalization", 17, [moved, ones], {"axis": 4 - len(reduced), "epsilon": 0.0},
                                    [onnx.TensorProto.DOUBLE] * 3)[:1]
            close(got, np.transpose(want, np.argsort(order)), f"MeanVarianceNormalization-{version} double", 1e4)


@pytest.mark.parametrize("version", versions("LRN"))
def test_lrn(version: int) -> None:
    """Odd sizes against onnxruntime (float; it refuses even sizes). onnx.reference loops its channel index
    over range(N) instead of range(C) (op_lrn.py), so it is right only when N = C: compared on such
    shapes, even sizes included. alpha, beta and bias are given (the kernel rounds them, and its defaults,
    to float32 as a model stores them: tests/test_runtime_gaps.py). onnx.reference evaluates alpha / size
    with its float32 attribute scalars (a float32 quotient, relative error up to 6e-8): double results
    within 1e-7 of it."""
    rng = np.random.default_rng(version)
    for dtype in allowed("LRN", version):
        for size, attrs in ((3, {"alpha": 2**-10}), (5, {"alpha": 0.5, "beta": 0.5, "bias": 2.0}),
                            (2, {"alpha": 0.25})):
            attrs = {"size": size, "beta": 0.75, "bias": 1.0, **attrs}
            check("LRN", version, [rand(rng, (4, 4, 2, 3), dtype)], attrs, ort=dtype == "float" and size % 2 == 1,
                  scale=1e5 if dtype == "double" else 1.0)
            if dtype == "float":  # both references take 4-D only: (N, C, D1) as (N, C, D1, 1), position by position
                x3 = rand(rng, (3, 3, 5), dtype)
                (got,) = run_kernel("LRN", version, [x3], attrs)
                (want,) = check("LRN", version, [x3[..., None]], attrs, ort=size % 2 == 1)
                close(got, want[..., 0], f"LRN-{version} rank 3")


@pytest.mark.parametrize("op,version", [("ReduceSum", 13), ("ReduceMean", 18), ("ReduceL1", 18),
                                        ("ReduceSumSquare", 18), ("ReduceLogSum", 18), ("ReduceLogSumExp", 18)])
def test_floating_sums_add_in_onnx_reference_order(op, version):
    """Spec note summation_order: a float32 sum has onnx.reference's bits exactly, along a long contiguous
    axis (where a left fold differs in the last bits of most rows), an outer axis and two axes at once."""
    spec_note(op, "summation_order")
    rng = np.random.default_rng(7)
    kernel = opgen_ops.get_kernel("onnx", op, version)
    for shape, axes in [((64, 4096), [1]), ((300, 40), [0]), ((6, 200, 5), [1, 2])]:
        x = rng.standard_normal(shape).astype(np.float32)
        x = np.abs(x) if op == "ReduceLogSum" else x
        node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=0)
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, None),
                                                helper.make_tensor_value_info("axes", onnx.TensorProto.INT64, None)],
                                  [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])
        axes_value = np.array(axes, np.int64)
        (want,) = ReferenceEvaluator(model).run(None, {"x": x, "axes": axes_value})
        (got,) = kernel(x, axes_value, keepdims=0)
        assert got.dtype == want.dtype and np.array_equal(got, want), (op, shape, axes)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reduce_l2_is_the_square_root_of_the_sum_of_squares(dtype):
    """Spec note square_root_of_the_sum: floating ReduceL2 has onnx.reference's bits (the sum in its order),
    and squares beyond the type's range overflow to infinity there as in onnxruntime, where a hypot-style
    fold would give a finite norm; integers keep the exact fold."""
    spec_note("ReduceL2", "square_root_of_the_sum")
    rng = np.random.default_rng(8)
    kernel = opgen_ops.get_kernel("onnx", "ReduceL2", 18)
    huge = np.sqrt(np.finfo(dtype).max) * 4
    for shape, axes in [((64, 4096), [1]), ((300, 40), [0]), ((6, 200, 5), [1, 2])]:
        x = rng.standard_normal(shape).astype(dtype)
        x.reshape(-1)[0] = huge  # the norms holding the first element overflow
        axes_value = np.array(axes, np.int64)
        (got,) = kernel(x, axes_value, keepdims=0)
        (want,) = run_reference("ReduceL2", 18, [x, axes_value], {"keepdims": 0}, [_elem(x)])
        assert got.dtype == want.dtype and np.array_equal(got, want), shape
        assert np.isinf(got).any() and np.isfinite(got).any()
        found = run_onnxruntime("ReduceL2", 18, [x, axes_value], {"keepdims": 0}, [_elem(x)])
        assert found is not None and np.array_equal(np.isinf(found[0]), np.isinf(got)), shape
    (exact,) = kernel(np.array([3, 4, 2 ** 31 - 1], np.int64), keepdims=0)
    assert exact == np.int64(np.floor(np.sqrt(float(9 + 16 + (2 ** 31 - 1) ** 2))))
