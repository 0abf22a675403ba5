"""ONNX indexing and ordering kernels (Gather*, Scatter*, TensorScatter, OneHot, NonZero, Unique, TopK,
ReverseSequence, Trilu, EyeLike, Range, ArgMax, ArgMin) against onnx.reference and onnxruntime.

Every version is run through its generated kernel (`opgen_ops.get_kernel("onnx", op, version)`) and
compared with onnx.reference's evaluator on a one-node model of that opset, and with onnxruntime where it
has a kernel for that opset and type (None from `_onnxruntime` otherwise). Values are compared exactly
(these ops move or select values; Range and reductions of floats with a tolerance). Where a reference
is wrong or the spec follows the document against a reference, the test says so and checks the spec:
- onnx.reference's Unique with sorted = 0 takes Y along axis 0 of X, wrong for another axis or none (rank > 1);
- onnx.reference's OneHot computes hot * (on - off) + off, which bool values cannot (it runs on uint8 here);
- onnx.reference's Trilu fills a string tensor with the integer 0 instead of "";
- onnx.reference's GatherElements refuses indices smaller than data in a non-axis dimension (ONNX
  allows it; onnxruntime computes it);
- onnxruntime orders NaN like no number in TopK/ArgMax/ArgMin and drops NaN from Unique; onnx.reference
  (NumPy's order: NaN largest, all NaNs equal) is the reference there;
- OneHot: the document casts non-integer indices to int64; both references compare them unconverted;
- NonZero of a scalar: the document and onnx.reference give shape (0, n), onnxruntime (1, n);
- onnxruntime's Gather of strings copies the first string of each slice only (the rest are ""), and its
  ArgMax/ArgMin of an empty tensor return the input's shape unreduced; its OneHot refuses scalar indices.
Scatter (deprecated, no onnx.reference kernel) is compared with onnx.reference's ScatterElements-11,
which ONNX says it is.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen_ops
from opgen.runtime.validation import ValidationError

RNG_SEED = 20240611
ORT_MAX_OPSET = 26  # onnxruntime 1.31 refuses models of later opsets (probed with Identity: 27 fails)

DTYPES = {"float": np.float32, "double": np.float64, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16,
          "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
          "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64, "bool": np.bool_, "string": object,
          "complex64": np.complex64, "float8e4m3fn": ml_dtypes.float8_e4m3fn, "int4": ml_dtypes.int4}
MOVED = ["float", "double", "float16", "int8", "uint64", "int64", "bool", "string", "complex64"]  # sample of T
LEGACY = ["float", "float16", "int64", "bool", "string"]  # a smaller sample for versions a later one repeats


def moved_types(version: int, newest: int, bfloat16_from: int) -> list[str]:
    """The element types to move around in a version's test: the full sample for the newest version,
    a smaller one for earlier versions (the same kernel), bfloat16 where the version allows it."""
    return (MOVED if version == newest else LEGACY) + (["bfloat16"] if version >= bfloat16_from else [])
NUMERIC = ["float", "double", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


# ---- harness -------------------------------------------------------------------------------------


def _elem(array: np.ndarray) -> int:
    return TensorProto.STRING if array.dtype == object else helper.np_dtype_to_tensor_dtype(array.dtype)


# The references run in batches: `compare` computes our outputs at once and queues the references' runs,
# which the autouse fixture below makes at the end of each test, one model per op and version (and, for
# onnxruntime, per type signature, so that a type it lacks drops only that group): a session per case
# would cost most of the test time.


@dataclass
class _Pending:
    op: str
    version: int
    inputs: list
    attrs: dict
    out_types: list[int]
    got: tuple
    label: str
    reference: bool
    onnxruntime: bool
    tolerance: float
    ref_op: str
    ref_version: int
    ref_attrs: dict


_PENDING: list[_Pending] = []


@pytest.fixture(autouse=True)
def _references_checked():
    _PENDING.clear()
    yield
    pending, _PENDING[:] = list(_PENDING), []
    by_reference: dict = {}
    by_onnxruntime: dict = {}
    for item in pending:
        if item.reference:
            by_reference.setdefault((item.ref_op, item.ref_version), []).append(item)
        if item.onnxruntime and item.version <= ORT_MAX_OPSET:
            signature = tuple(None if x is None else _elem(np.asarray(x)) for x in item.inputs) + tuple(item.out_types)
            by_onnxruntime.setdefault((item.op, item.version, signature), []).append(item)
    for (op, version), items in by_reference.items():
        model, feeds = _model(op, version, [(i.inputs, i.ref_attrs, i.out_types) for i in items])
        with np.errstate(over="ignore"):  # onnx.reference's OneHot computes on - off, which may wrap around
            outputs = ReferenceEvaluator(model).run(None, feeds)
        _check(items, outputs, "onnx.reference")
    for (op, version, _), items in by_onnxruntime.items():
        model, feeds = _model(op, version, [(i.inputs, i.attrs, i.out_types) for i in items])
        outputs = _onnxruntime(model, feeds)
        if outputs is not None:
            _check(items, outputs, "onnxruntime")


def _check(items: list[_Pending], outputs: list, reference: str) -> None:
    position = 0
    for item in items:
        for k in range(len(item.out_types)):
            want = np.asarray(outputs[position])
            want = want.astype(object) if want.dtype.kind == "U" else want  # onnx.reference: a 0-d str
            same(item.got[k], want, f"{item.label} output {k} ({reference})", item.tolerance)
            position += 1


def _model(op: str, opset: int, nodes: list[tuple[list, dict, list[int]]]) -> tuple[onnx.ModelProto, dict]:
    """One model with a node per (inputs, attributes, output types), the inputs and outputs of node c
    named c<c>_x<k> and c<c>_y<k>."""
    graph_nodes, graph_inputs, graph_outputs, feeds = [], [], [], {}
    for c, (inputs, attrs, out_types) in enumerate(nodes):
        names = ["" if x is None else f"c{c}_x{k}" for k, x in enumerate(inputs)]
        while names and names[-1] == "":
            names.pop()
        outputs = [f"c{c}_y{k}" for k in range(len(out_types))]
        graph_nodes.append(helper.make_node(op, names, outputs, **attrs))
        for name, x in zip(names, inputs):
            if name:
                graph_inputs.append(helper.make_tensor_value_info(name, _elem(np.asarray(x)), None))
                feeds[name] = x
        graph_outputs += [helper.make_tensor_value_info(n, t, None) for n, t in zip(outputs, out_types)]
    graph = helper.make_graph(graph_nodes, "g", graph_inputs, graph_outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10), feeds


def _reference(op, opset, inputs, attrs, out_types) -> list[np.ndarray]:
    """onnx.reference's outputs for one node, at once (for the tests that look at them themselves)."""
    model, feeds = _model(op, opset, [(inputs, attrs, out_types)])
    with np.errstate(over="ignore"):
        return [np.asarray(y) for y in ReferenceEvaluator(model).run(None, feeds)]


def _onnxruntime(model: onnx.ModelProto, feeds: dict) -> list[np.ndarray] | None:
    """onnxruntime's outputs, or None where it has no kernel for this opset and these types."""
    try:
        return ort_session(model).run(None, feeds)
    except Exception as exc:  # no kernel (or no tensor type at all) for these types; for float16 in an opset
        # before 6 onnxruntime inserts a Cast it then rejects ("InsertedPrecisionFreeCast")
        if any(why in str(exc) for why in ("NOT_IMPLEMENTED", "Type Error", "not supported", "not currently registered",
                                            "can't be converted", "InsertedPrecisionFreeCast")):
            return None
        raise


def ours(op: str, version: int, inputs: list, attrs: dict, **extra) -> tuple[np.ndarray, ...]:
    return opgen_ops.get_kernel("onnx", op, version)(*inputs, **attrs, **extra)


def same(got: np.ndarray, want: np.ndarray, label: str, tolerance: float = 0.0) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if got.dtype == object or got.dtype.kind in "biuU" or not tolerance:
        if got.dtype.kind in "fV" or got.dtype == ml_dtypes.bfloat16:
            got, want = got.astype(np.float64), want.astype(np.float64)
        np.testing.assert_array_equal(got, want, err_msg=label)
    else:
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tolerance,
                                   atol=tolerance, err_msg=label)


def compare(op: str, version: int, inputs: list, attrs: dict, out_types: list[int] | None = None, *,
            reference: bool = True, onnxruntime: bool = True, tolerance: float = 0.0, ref_op: str | None = None,
            ref_version: int | None = None, ref_attrs: dict | None = None, **extra) -> tuple[np.ndarray, ...]:
    """Our outputs, returned now and compared with onnx.reference's (its op, version and attributes may
    be given apart: an equivalent node where its own has a bug) and onnxruntime's, where each applies,
    at the end of the test."""
    got = ours(op, version, inputs, attrs, **extra)
    out_types = out_types or [_elem(np.asarray(inputs[0]))]
    label = f"{op}@{version} {attrs} {[getattr(x, 'shape', None) for x in inputs]}"
    _PENDING.append(_Pending(op, version, inputs, attrs, out_types, got, label, reference, onnxruntime, tolerance,
                             ref_op or op, ref_version or version, attrs if ref_attrs is None else ref_attrs))
    return got


def data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Random values of a dtype (small integers, so that repeats and ties occur)."""
    shape = tuple(shape)
    if dtype == "string":
        return np.array([f"s{v}" for v in rng.integers(0, 6, size=math.prod(shape))], dtype=object).reshape(shape)
    if dtype == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if dtype == "complex64":
        return (rng.integers(-3, 4, shape) + 1j * rng.integers(-3, 4, shape)).astype(np.complex64)
    low = 0 if dtype.startswith("uint") else -4
    return rng.integers(low, 6, size=shape).astype(DTYPES[dtype])


def indices_in(rng, size: int, shape, dtype=np.int64) -> np.ndarray:
    """Valid indices on a dimension of `size`, about half of them negative (counted from the end)."""
    values = rng.integers(0, size, size=shape) if size else np.zeros(shape, np.int64)
    flip = rng.random(shape) < 0.5
    return np.where(flip, values - size, values).astype(dtype)


# ---- Gather, GatherElements, GatherND ------------------------------------------------------------


@pytest.mark.parametrize("version", [1, 11, 13])
def test_gather(version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in moved_types(version, 13, 13):
        for data_shape, index_shape in [((5,), ()), ((3, 4), (2, 3)), ((2, 3, 4), (0,)), ((0, 3), (4,)),
                                        ((4, 2, 3), (3,))]:
            for axis in range(-len(data_shape), len(data_shape)):
                x = data(rng, data_shape, dtype)
                index_dtype = np.int32 if rng.random() < 0.5 else np.int64
                size = data_shape[axis]
                idx = indices_in(rng, size, index_shape if size else (0,), index_dtype)
                # onnxruntime 1.31 copies only the first string of each gathered block (the others are "")
                compare("Gather", version, [x, idx], {"axis": axis}, onnxruntime=dtype != "string")


def test_gather_rejects_out_of_range_indices_instead_of_clamping():
    """ONNX: an index outside [-s, s-1] is an error (XLA Gather, hlir.Gather, would clamp it)."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for bad in (3, -4):
        with pytest.raises(IndexError, match="outside"):
            ours("Gather", 13, [x, np.array([0, bad], np.int64)], {"axis": 1})


def test_gather_keeps_signed_zeros_and_nan_bits():
    x = np.array([-0.0, np.nan, 0.0, -np.inf], np.float32)
    (got,) = ours("Gather", 13, [x, np.array([[0, 1], [2, 3]], np.int64)], {})
    np.testing.assert_array_equal(got.view(np.uint32), x.view(np.uint32).reshape(2, 2))


@pytest.mark.parametrize("version", [11, 13])
def test_gather_elements(version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in moved_types(version, 13, 13):
        for data_shape in [(5,), (3, 4), (2, 3, 4), (2, 0, 3)]:
            for axis in range(-len(data_shape), len(data_shape)):
                x = data(rng, data_shape, dtype)
                a = axis % len(data_shape)
                # same non-axis dimensions (both references), any size along the axis
                shape = [n if d != a else int(rng.integers(1, 4)) for d, n in enumerate(data_shape)]
                if data_shape[a] == 0:
                    shape[a] = 0
                # onnx.reference compares the wrong dimensions for a negative axis: it gets the axis as a
                # non-negative one, the same node
                compare("GatherElements", version, [x, indices_in(rng, data_shape[a], shape)], {"axis": axis},
                        ref_attrs={"axis": a})
                # smaller non-axis dimensions: ONNX allows them; onnx.reference refuses, onnxruntime computes
                small = [int(rng.integers(0, n + 1)) if d != a else s
                         for d, (n, s) in enumerate(zip(data_shape, shape))]
                compare("GatherElements", version, [x, indices_in(rng, data_shape[a], small)], {"axis": axis},
                        reference=False)


def test_gather_elements_checks_positions_outside_data():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(IndexError):
        ours("GatherElements", 13, [x, np.zeros((3, 1), np.int64)], {"axis": 1})  # 3 rows > 2
    with pytest.raises(IndexError):
        ours("GatherElements", 13, [x, np.full((2, 1), 3, np.int64)], {"axis": 1})


@pytest.mark.parametrize("version", [11, 12, 13])
def test_gather_nd(version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in moved_types(version, 13, 13):
        for data_shape in [(4,), (3, 4), (2, 3, 4), (2, 3, 2, 2)]:
            r = len(data_shape)
            for batch_dims in range(0, min(r, 3) if version >= 12 else 1):
                for k in range(1, r - batch_dims + 1):
                    middle = [tuple(rng.integers(0, 3, size=int(rng.integers(0, 3))))]
                    shape = data_shape[:batch_dims] + middle[0] + (k,)
                    if batch_dims + len(middle[0]) == 0:
                        shape = (k,) if rng.random() < 0.5 else (1, k)
                    idx = np.stack([indices_in(rng, data_shape[batch_dims + j], shape[:-1]) for j in range(k)], -1)
                    attrs = {"batch_dims": batch_dims} if version >= 12 else {}
                    compare("GatherND", version, [data(rng, data_shape, dtype), idx.astype(np.int64)], attrs)


# ---- Scatter, ScatterElements, ScatterND ----------------------------------------------------------


def _distinct_along(rng, size: int, shape, axis: int) -> np.ndarray:
    """Indices without repeats along `axis` (each line a part of a permutation), half negative."""
    lines = np.moveaxis(np.zeros(shape, np.int64), axis, -1)
    out = np.empty_like(lines)
    for pos in np.ndindex(lines.shape[:-1]):
        out[pos] = rng.permutation(size)[:lines.shape[-1]]
    out = np.where(rng.random(out.shape) < 0.5, out - size, out)
    return np.moveaxis(out, -1, axis)


def _scatter_cases(rng, dtype: str, reductions: list[str]):
    for data_shape in [(5,), (3, 4), (2, 3, 4)]:
        for axis in range(-len(data_shape), len(data_shape)):
            a = axis % len(data_shape)
            for reduction in reductions:
                shape = [int(rng.integers(0, n + 1)) if d != a else int(rng.integers(1, data_shape[a] + 1))
                         for d, n in enumerate(data_shape)]
                idx = _distinct_along(rng, data_shape[a], shape, a) if reduction == "none" else \
                    indices_in(rng, data_shape[a], shape)  # duplicates: applied in order
                yield data(rng, data_shape, dtype), idx, data(rng, shape, dtype), axis, reduction


def _reductions_of(dtype: str, reductions: list[str]) -> list[str]:
    """The reductions that mean something for a type: none for strings; no max/min for complex numbers;
    bool adds as "or" and multiplies as "and" (NumPy's bool arithmetic, onnx.reference's)."""
    if dtype == "string":
        return ["none"]
    return [r for r in reductions if r not in ("max", "min")] if dtype == "complex64" else reductions


@pytest.mark.parametrize("version", [11, 13, 16, 18])
def test_scatter_elements(version):
    rng = np.random.default_rng(RNG_SEED + version)
    reductions = ["none"] + (["add", "mul"] if version >= 16 else []) + (["max", "min"] if version >= 18 else [])
    for dtype in moved_types(version, 18, 13):
        allowed = _reductions_of(dtype, reductions)
        for x, idx, upd, axis, reduction in _scatter_cases(rng, dtype, allowed):
            attrs = {"axis": axis} | ({"reduction": reduction} if version >= 16 else {})
            idx = idx.astype(np.int32) if rng.random() < 0.3 else idx
            compare("ScatterElements", version, [x, idx, upd], attrs,
                    onnxruntime=not (dtype == "float16" and reduction != "none"))  # onnxruntime: float16 in float


@pytest.mark.parametrize("version", [9, 11])
def test_scatter_legacy(version):
    """Scatter is ScatterElements under its old name; version 11 only marks it deprecated (a model of
    opset 11 may not use it), which the validator enforces."""
    rng = np.random.default_rng(RNG_SEED)
    for dtype in LEGACY:
        for x, idx, upd, axis, _ in _scatter_cases(rng, dtype, ["none"]):
            if version == 9:
                compare("Scatter", 9, [x, idx, upd], {"axis": axis}, ref_op="ScatterElements", ref_version=11)
            else:
                with pytest.raises(ValidationError, match="deprecated"):
                    ours("Scatter", 11, [x, idx, upd], {"axis": axis})


def test_scatter_elements_max_min_propagate_nan():
    """Spec note nan_max_min: NaN propagates through max and min whatever the order of the updates,
    as np.maximum/np.minimum do (onnx.reference's ScatterND); onnx.reference's ScatterElements uses
    Python's max, whose result with NaN depends on the order, and onnxruntime's std::max likewise."""
    x = np.array([1.0, np.nan, 3.0], np.float32)
    idx = np.array([0, 1, 0, 2], np.int64)
    upd = np.array([np.nan, 5.0, 2.0, np.nan], np.float32)
    for reduction in ("max", "min"):
        (got,) = ours("ScatterElements", 18, [x, idx, upd], {"reduction": reduction})
        assert np.isnan(got).all()
        (nd,) = _reference("ScatterND", 18, [x, idx[:, None], upd], {"reduction": reduction}, [TensorProto.FLOAT])
        np.testing.assert_array_equal(got, nd)


@pytest.mark.parametrize("version", [11, 13, 16, 18])
def test_scatter_nd(version):
    rng = np.random.default_rng(RNG_SEED + version)
    reductions = ["none"] + (["add", "mul"] if version >= 16 else []) + (["max", "min"] if version >= 18 else [])
    for dtype in moved_types(version, 18, 13):
        for data_shape in [(5,), (3, 4), (2, 3, 4)]:
            r = len(data_shape)
            for k in range(1, r + 1):
                for reduction in _reductions_of(dtype, reductions):
                    batch = tuple(rng.integers(0, 3, size=int(rng.integers(0, 3))))
                    n = math.prod(batch)
                    positions = math.prod(data_shape[:k])
                    if reduction == "none" and n > positions:
                        batch, n = (positions,), positions
                    flat = rng.permutation(positions)[:n] if reduction == "none" else rng.integers(0, positions, n)
                    coords = np.stack(np.unravel_index(flat, data_shape[:k]), -1).reshape(batch + (k,))
                    coords = np.where(rng.random(coords.shape) < 0.5, coords - np.array(data_shape[:k]), coords)
                    upd = data(rng, batch + data_shape[k:], dtype)
                    attrs = {"reduction": reduction} if version >= 16 else {}
                    compare("ScatterND", version, [data(rng, data_shape, dtype), coords.astype(np.int64), upd], attrs,
                            onnxruntime=not (dtype == "float16" and reduction != "none"))


def test_scatter_nd_rejects_out_of_range_indices_instead_of_skipping():
    """ONNX: an index outside [-s, s-1] is an error (XLA Scatter, hlir.ScatterND, skips the window)."""
    with pytest.raises(IndexError, match="outside"):
        ours("ScatterND", 18, [np.zeros((3, 2), np.float32), np.array([[3]], np.int64),
                               np.ones((1, 2), np.float32)], {})


def test_scatter_float16_reductions_round_each_step():
    """float16 sums and products are rounded after every update, as onnx.reference computes them (onnxruntime
    accumulates float16 in float32 and is left out of those cases above)."""
    x = np.array([2048.0], np.float16)
    idx = np.zeros((4, 1), np.int64)
    upd = np.array([1.0, 1.0, 1.0, 1.0], np.float16)  # 2048 + 1 rounds back to 2048 every time
    (got,) = ours("ScatterND", 18, [x, idx, upd], {"reduction": "add"})
    assert got[0] == 2048.0
    (want,) = _reference("ScatterND", 18, [x, idx, upd], {"reduction": "add"}, [TensorProto.FLOAT16])
    same(got, want, "float16 add")


# ---- TensorScatter -------------------------------------------------------------------------------


def test_tensor_scatter():
    rng = np.random.default_rng(RNG_SEED)
    for dtype in MOVED + ["bfloat16", "float8e4m3fn", "int4"]:
        for shape, axis in [((2, 5, 3), 1), ((2, 3, 6, 2), -2), ((3, 4), -1), ((1, 2, 4, 3), 2)]:
            a = axis % len(shape)
            for mode in ("linear", "circular"):
                length = int(rng.integers(0, shape[a] + 1))
                update_shape = tuple(length if d == a else n for d, n in enumerate(shape))
                high = shape[a] - length + 1 if mode == "linear" else 2 * shape[a]
                writes = rng.integers(0, high, size=shape[0]).astype(np.int64)
                cache = data(rng, shape, dtype) if dtype not in ("float8e4m3fn", "int4") else \
                    data(rng, shape, "int8").astype(DTYPES[dtype])
                new = data(rng, update_shape, dtype) if dtype not in ("float8e4m3fn", "int4") else \
                    data(rng, update_shape, "int8").astype(DTYPES[dtype])
                compare("TensorScatter", 24, [cache, new, writes], {"axis": axis, "mode": mode})
                if mode == "linear":
                    compare("TensorScatter", 24, [cache, new], {"axis": axis, "mode": mode})


def test_tensor_scatter_linear_writes_must_fit():
    with pytest.raises(IndexError, match="linear"):
        ours("TensorScatter", 24, [np.zeros((2, 4, 1), np.float32), np.ones((2, 2, 1), np.float32),
                                   np.array([1, 3], np.int64)], {"axis": 1})


# ---- OneHot, NonZero -----------------------------------------------------------------------------


@pytest.mark.parametrize("version", [9, 11, 28])
def test_one_hot(version):
    rng = np.random.default_rng(RNG_SEED + version)
    value_types = ["float", "int64", "int32", "bool", "float16", "double", "uint8"] + \
        (["bfloat16"] if version >= 28 else [])
    for index_type in ["int64", "int32", "float", "uint8", "double"]:
        for value_type in value_types:
            for index_shape in [(), (4,), (2, 3), (0, 2)]:
                depth = int(rng.integers(1, 6))
                low = 0 if index_type.startswith("uint") else -depth - 2  # some outside [-depth, depth - 1]
                idx = rng.integers(low, depth + 2, size=index_shape).astype(DTYPES[index_type])
                one = rng.random() < 0.3  # depth as a one-element 1-D tensor: onnx.reference cannot take it
                depth_type = DTYPES["int64" if rng.random() < 0.5 else "float"]
                depth_array = np.array([depth] if one else depth).astype(depth_type)
                on_off = data(rng, (2,), value_type)
                axis = int(rng.integers(-len(index_shape) - 1, len(index_shape) + 1))
                got = compare("OneHot", version, [idx, depth_array, on_off], {"axis": axis},
                              reference=not one and value_type != "bool", onnxruntime=idx.ndim > 0)
                if value_type == "bool" and not one:  # onnx.reference subtracts the values: run it on uint8
                    (want,) = _reference("OneHot", version, [idx, depth_array, on_off.astype(np.uint8)],
                                         {"axis": axis}, [TensorProto.UINT8])
                    same(got[0], want.astype(bool), "OneHot bool")


def test_one_hot_strings_and_out_of_range():
    """Strings are chosen, not computed (onnx.reference's hot * (on - off) + off cannot run on strings)."""
    (got,) = ours("OneHot", 11, [np.array([1, -1, 3, -4], np.int64), np.array(3, np.int64),
                                 np.array(["off", "on"], object)], {})
    want = np.array([["off", "on", "off"], ["off", "off", "on"], ["off"] * 3, ["off"] * 3], object)
    np.testing.assert_array_equal(got, want)


def test_one_hot_casts_fractional_indices():
    """Spec note fractional_indices: the document casts non-integer indices to int64 (toward zero), so 2.9
    selects class 2 and -0.5 class 0; onnx.reference and onnxruntime compare the values unconverted
    and select nothing for them."""
    idx = np.array([0.7, 2.9, -0.5, -1.2], np.float32)
    (got,) = ours("OneHot", 11, [idx, np.array(3, np.int64), np.array([0, 1], np.int64)], {})
    np.testing.assert_array_equal(got, [[1, 0, 0], [0, 0, 1], [1, 0, 0], [0, 0, 1]])
    (want,) = _reference("OneHot", 11, [idx, np.array(3, np.int64), np.array([0, 1], np.int64)], {},
                         [TensorProto.INT64])
    assert not want.any()
    # a fractional depth is truncated as well: 3.7 gives 3 classes (numpy.arange(3.7) in onnx.reference, 4)
    (got,) = ours("OneHot", 11, [np.array([2, 3], np.int64), np.array(3.7, np.float32), np.array([0, 1], np.int64)], {})
    np.testing.assert_array_equal(got, [[0, 0, 1], [0, 0, 0]])


@pytest.mark.parametrize("version", [9, 13])
def test_nonzero(version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in moved_types(version, 13, 13):
        for shape in [(7,), (2, 3), (2, 3, 4), (0, 3)]:
            x = data(rng, shape, dtype)
            if dtype == "string":
                x[rng.random(shape) < 0.4] = ""
            compare("NonZero", version, [x], {}, [TensorProto.INT64])
    edges = np.array([0.0, -0.0, np.nan, np.inf, 1e-45], np.float32)  # NaN is not zero, -0.0 is
    compare("NonZero", version, [edges], {}, [TensorProto.INT64])
    for scalar in (np.array(3.0, np.float32), np.array(0, np.int64)):  # (0, n): onnxruntime gives (1, n)
        got = compare("NonZero", version, [scalar], {}, [TensorProto.INT64], onnxruntime=False)
        assert got[0].shape == (0, int(scalar != 0))


# ---- Unique, TopK, ArgMax, ArgMin ----------------------------------------------------------------


@pytest.mark.parametrize("version", [11, 28])
def test_unique(version):
    rng = np.random.default_rng(RNG_SEED + version)
    i64 = TensorProto.INT64
    newest = ["float", "double", "int64", "int8", "uint16", "string", "bool", "float16", "complex64", "bfloat16"]
    for dtype in newest if version == 28 else ["float", "int64", "string"]:
        for shape in [(), (0,), (9,), (3, 4), (4, 2, 3)]:
            x = data(rng, shape, dtype)
            if len(shape) > 1:  # repeat some slices along every axis
                x = np.concatenate([x, x[:1]], axis=0)
            for axis in [None] + list(range(-x.ndim, x.ndim)):
                for sort in (1, 0):
                    attrs = {"sorted": sort} | ({} if axis is None else {"axis": axis})
                    # onnx.reference's sorted = 0 takes Y along axis 0 of X whatever the axis (wrong for
                    # another axis, or for no axis and X of rank > 1)
                    ref_ok = sort == 1 or (x.ndim == 1 if axis is None else axis % x.ndim == 0)
                    ref_ok &= dtype != "string" or axis is None  # numpy.unique has no axis for object arrays
                    compare("Unique", version, [x], attrs, [_elem(x), i64, i64, i64], reference=ref_ok)


def test_unique_nan_and_signed_zero():
    """All NaNs are one value (numpy.unique, onnx.reference; onnxruntime drops them), -0.0 equals +0.0 and
    Y holds the first occurrence."""
    x = np.array([2, np.nan, 1, np.nan, -0.0, 0.0, 1], np.float32)
    i64 = TensorProto.INT64
    for sort in (1, 0):
        y, *_ = compare("Unique", 11, [x], {"sorted": sort}, [TensorProto.FLOAT, i64, i64, i64], onnxruntime=False)
        zero = y[y == 0]
        assert np.signbit(zero).all()


@pytest.mark.parametrize("version", [1, 10, 11, 24])
def test_topk(version):
    rng = np.random.default_rng(RNG_SEED + version)
    dtypes = {1: ["float", "double", "float16"], 10: ["float", "double", "float16"],
              11: ["float", "float16", "int8", "uint64"], 24: NUMERIC + ["bfloat16"]}[version]
    for dtype in dtypes:
        for shape in [(6,), (3, 5), (2, 4, 3), (0, 4)]:
            for axis in range(-len(shape), len(shape)):
                n = shape[axis]
                if n == 0:
                    continue
                k = int(rng.integers(1, n + 1))
                x = data(rng, shape, dtype)  # small integers: ties
                attrs = {"axis": axis}
                inputs = [x, np.array([k], np.int64)]
                if version == 1:
                    attrs["k"], inputs = k, [x]
                if version >= 11:
                    attrs |= {"largest": int(rng.integers(0, 2)), "sorted": 1}
                compare("TopK", version, inputs, attrs, [_elem(x), TensorProto.INT64])


def test_topk_nan_is_largest():
    x = np.array([[1, np.nan, 3, np.nan], [2, 2, -0.0, 0.0]], np.float32)
    for largest in (1, 0):
        compare("TopK", 11, [x, np.array([3], np.int64)], {"largest": largest},
                [TensorProto.FLOAT, TensorProto.INT64], onnxruntime=False)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
@pytest.mark.parametrize("version", [1, 11, 12, 13])
def test_argmax_argmin(op, version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in NUMERIC + ["bfloat16"] if version == 13 else ["float", "float16", "int64", "uint8"]:
        for shape in [(7,), (3, 4), (2, 3, 4), (0, 3)]:
            for axis in range(-len(shape), len(shape)):
                if shape[axis] == 0:
                    continue
                attrs = {"axis": axis, "keepdims": int(rng.integers(0, 2))}
                if version >= 12:
                    attrs["select_last_index"] = int(rng.integers(0, 2))
                # onnxruntime returns an empty input's shape unreduced
                compare(op, version, [data(rng, shape, dtype)], attrs, [TensorProto.INT64], onnxruntime=0 not in shape)


@pytest.mark.parametrize("op", ["ArgMax", "ArgMin"])
def test_argmax_argmin_nan(op):
    """A NaN is the extreme for both (NumPy's rule, onnx.reference; onnxruntime skips NaN)."""
    for dtype in (np.float32, np.float16, ml_dtypes.bfloat16):
        x = np.array([[1, np.nan, 3, np.nan], [2, 2, -0.0, 0.0]], dtype)
        for last in (0, 1):
            compare(op, 13, [x], {"axis": 1, "select_last_index": last}, [TensorProto.INT64], onnxruntime=False)


def test_argmax_empty_axis_is_an_error():
    with pytest.raises(ValueError, match="empty"):
        ours("ArgMax", 13, [np.zeros((2, 0), np.float32)], {"axis": 1})


# ---- ReverseSequence, Trilu, EyeLike, Range ------------------------------------------------------


@pytest.mark.parametrize("version", [10, 28])
def test_reverse_sequence(version):
    rng = np.random.default_rng(RNG_SEED + version)
    for dtype in moved_types(version, 28, 28):
        for shape in [(4, 3), (3, 2, 2), (5, 4, 2, 1), (0, 3)]:
            for batch_axis, time_axis in ((0, 1), (1, 0)):
                lens = rng.integers(0, shape[time_axis] + 1, size=shape[batch_axis]).astype(np.int64)
                compare("ReverseSequence", version, [data(rng, shape, dtype), lens],
                        {"batch_axis": batch_axis, "time_axis": time_axis})


def test_trilu():
    rng = np.random.default_rng(RNG_SEED)
    for dtype in MOVED + ["bfloat16"]:
        for shape in [(3, 4), (2, 3, 3), (0, 3), (2, 1, 5)]:
            x = data(rng, shape, dtype)
            for k in [None, 1, -1, -9]:
                for upper in (0, 1):
                    inputs = [x] + ([] if k is None else [np.array(k, np.int64)])
                    if dtype == "string":  # onnx.reference fills strings with the integer 0
                        (got,) = compare("Trilu", 14, inputs, {"upper": upper}, reference=False)
                        rows, cols = np.indices(shape[-2:])
                        keep = (cols - rows >= (k or 0)) if upper else (cols - rows <= (k or 0))
                        np.testing.assert_array_equal(got, np.where(keep, x, ""))
                    else:
                        compare("Trilu", 14, inputs, {"upper": upper})


@pytest.mark.parametrize("version", [9, 22])
def test_eye_like(version):
    rng = np.random.default_rng(RNG_SEED + version)
    codes = {"float": 1, "uint8": 2, "int8": 3, "int32": 6, "int64": 7, "bool": 9, "float16": 10, "double": 11,
             "uint64": 13} | ({"bfloat16": 16} if version >= 22 else {})
    for in_type in ["float", "int32", "bool", "double"] + (["bfloat16"] if version >= 22 else []):
        for shape in [(3, 4), (4, 2), (0, 3), (1, 1)]:
            for k in [0, 1, -1, -6]:
                x = data(rng, shape, in_type)
                compare("EyeLike", version, [x], {"k": k})
                out = str(rng.choice(list(codes)))
                # the output type comes from dtype; the generated kernel needs it as output_dtype as well
                # (its default is the input's type), as the graph runner passes it
                compare("EyeLike", version, [x], {"k": k, "dtype": codes[out]}, [codes[out]],
                        output_dtype=np.dtype(DTYPES[out]))


@pytest.mark.parametrize("version", [11, 27])
def test_range(version):
    rng = np.random.default_rng(RNG_SEED + version)
    types = ["int16", "int32", "int64", "float", "double"] + (["float16", "bfloat16"] if version >= 27 else [])
    for dtype in types:
        for _ in range(12):
            start, limit = rng.integers(-20, 20, size=2)
            delta = rng.choice([-3, -1, 1, 2, 5]) if dtype.startswith("int") else rng.choice([-2.5, -0.3, 0.7, 1, 3.25])
            as_type = DTYPES[dtype]
            one = rng.random() < 0.3  # one-element 1-D inputs are allowed too
            inputs = [np.array([v] if one else v).astype(as_type) for v in (start, limit, delta)]
            # onnxruntime adds delta in T step by step; onnx.reference's numpy.arange differs in the last bit
            tolerance = {"float16": 2e-3, "bfloat16": 1.6e-2, "float": 1e-6, "double": 1e-12}.get(dtype, 0.0)
            if version == 27 and dtype in ("float16", "bfloat16"):
                for stash in (1, 11):
                    compare("Range", 27, inputs, {"stash_type": stash}, tolerance=tolerance)
            else:
                compare("Range", version, [np.asarray(v).reshape(()) for v in inputs], {}, tolerance=tolerance,
                        reference=not one)


def test_range_integers_are_exact_at_the_limits():
    lo, hi = np.iinfo(np.int64).min, np.iinfo(np.int64).max
    (got,) = ours("Range", 11, [np.array(lo), np.array(hi), np.array(hi)], {})
    np.testing.assert_array_equal(got, [lo, -1, hi - 1])
    (got,) = ours("Range", 11, [np.array(5, np.int32), np.array(5, np.int32), np.array(-1, np.int32)], {})
    assert got.shape == (0,) and got.dtype == np.int32


# ---- empty tensors and scalars -------------------------------------------------------------------


def test_empty_and_scalar_edges():
    f32, i64 = np.float32, np.int64
    empty = np.zeros((0, 3), f32)
    compare("GatherND", 13, [empty, np.zeros((0, 1), i64)], {"batch_dims": 1}, reference=False)  # it cannot reshape
    compare("GatherND", 13, [np.ones((2, 3, 4), f32), np.zeros((2, 0, 1), i64)], {"batch_dims": 1})
    compare("ScatterND", 18, [empty, np.zeros((0, 1), i64), empty], {"reduction": "add"})
    compare("ScatterElements", 18, [empty, np.zeros((0, 3), i64), empty], {"reduction": "mul"})
    compare("GatherElements", 13, [empty, np.zeros((0, 3), i64)], {"axis": 1})
    compare("NonZero", 13, [empty], {}, [TensorProto.INT64])
    compare("Unique", 11, [np.array(3.0, f32)], {}, [TensorProto.FLOAT] + [TensorProto.INT64] * 3)
    compare("Unique", 11, [np.zeros((0,), f32)], {}, [TensorProto.FLOAT] + [TensorProto.INT64] * 3)
    compare("TopK", 11, [np.zeros((0, 4), f32), np.array([2], i64)], {}, [TensorProto.FLOAT, TensorProto.INT64])
    compare("OneHot", 11, [np.zeros((0,), i64), np.array(0, i64), np.array([0, 1], f32)], {}, onnxruntime=False)
    compare("Trilu", 14, [np.zeros((2, 0, 3), f32)], {})
    compare("Range", 11, [np.array(2.0, f32), np.array(2.0, f32), np.array(1.0, f32)], {})
    (got,) = compare("EyeLike", 22, [np.zeros((0, 0), i64)], {})
    assert got.shape == (0, 0) and got.dtype == i64


def test_range_stash_type_of_the_input_type_and_invalid_ones():
    """stash_type may name float (1), double (11) or the input's own type (10 for float16: every step rounded
    to float16, as the text's "accumulating in half precision" describes); onnx.reference knows 1 and 11
    only, so the own-type result is checked against float32's within float16's rounding."""
    start, limit, delta = (np.array(v, np.float16) for v in (0.1, 30.0, 0.7))
    (own,) = ours("Range", 27, [start, limit, delta], {"stash_type": 10})
    (wide,) = ours("Range", 27, [start, limit, delta], {"stash_type": 1})
    assert own.dtype == np.float16 and own.shape == wide.shape
    np.testing.assert_allclose(own.astype(np.float64), wide.astype(np.float64), rtol=2e-3, atol=2e-3)
    with pytest.raises(ValueError, match="stash_type"):
        ours("Range", 27, [start, limit, delta], {"stash_type": 6})
