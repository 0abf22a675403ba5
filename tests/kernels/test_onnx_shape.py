"""ONNX shape and data-movement kernels (Concat, Split, Squeeze, Unsqueeze, Reshape, Flatten, Expand, Tile,
Transpose, Slice, Pad, DepthToSpace, SpaceToDepth, CenterCropPad, Compress, Size, Shape) against
onnx.reference and onnxruntime, version by version, on seeded random data.

Each case runs the generated kernel (`opgen_ops.get_kernel`, validator included) and a one-node model of
the same version through onnx.reference's ReferenceEvaluator and onnxruntime (CPU; it loads opsets up to
26). Data movement computes nothing, so the comparison is exact: same dtype, same shape, same bytes (NaN
payloads, -0.0 and the ml_dtypes types included; strings compared as strings). Where a reference has no
implementation of a version or does not take a form, the case says so and compares what agrees (e.g.
Tile-1 with Tile-6, Reshape-1 with Reshape-5); measured disagreements are pinned with the evidence.
onnxruntime must run every case whose element type is in ORT_CORE and whose version it loads, unless
the case says why not (ort=False): coverage cannot shrink silently.
"""
from __future__ import annotations

import itertools
import warnings

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen_ops
from opgen.dtypes import ELEM_TYPES

ORT_MAX_OPSET = 26  # onnxruntime 1.31 refuses a model importing a later ai.onnx opset
ORT_CORE = ("float", "double", "int64", "int32", "uint8", "bool", "string")
# The element types every version is tried with, when it allows them (a sample of the 26: each kind,
# each width class, the ml_dtypes types).
SAMPLE = ("float", "int64", "bool", "string", "float16", "bfloat16", "uint8", "int8", "double", "complex64",
          "float8e4m3fn", "float8e5m2", "int4", "uint4", "float4e2m1", "int2")
MINE = ("Concat", "Split", "Squeeze", "Unsqueeze", "Reshape", "Flatten", "Expand", "Tile", "Transpose", "Slice", "Pad",
        "DepthToSpace", "SpaceToDepth", "CenterCropPad", "Compress", "Size", "Shape")
I64 = np.int64
INT_MAX, INT_MIN = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def versions(op: str) -> tuple[int, ...]:
    return opgen_ops.OPS[("onnx", op)][1]


def allowed(op: str, version: int) -> tuple[str, ...]:
    return opgen_ops.get_signature("onnx", op, version).type_constraints["T"]


def types_of(op: str, version: int) -> list[str]:
    """The element types to try a version with. Versions of these ops mostly differ by their type list:
    the newest version takes every SAMPLE type it allows; an older one the base types (float, int64, and
    bool and string where allowed: the kinds that take different paths) plus the SAMPLE types it added
    over the version before it."""
    own = allowed(op, version)
    older = [v for v in versions(op) if v < version]
    if version == versions(op)[0]:
        chosen = set(SAMPLE)
    else:
        chosen = {"float", "int64", "bool", "string"} | (set(own) - set(allowed(op, older[0])) if older else set())
    return [t for t in SAMPLE if t in own and t in chosen]


def data(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    """Random values of a dtype; floats start with NaN, -0.0, inf, -inf (where the type has them)."""
    shape = tuple(shape)
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == "string":
        return np.array([f"s{v}" for v in rng.integers(0, 1000, n)], dtype=object).reshape(shape)
    elem = ELEM_TYPES[dtype]
    if elem.kind == "bool":
        return np.asarray(rng.random(shape) < 0.5)
    if elem.kind in ("int", "uint"):
        info = ml_dtypes.iinfo(elem.numpy)  # knows int4/int2 as well as the NumPy integers
        low, high = max(int(info.min), -1000), min(int(info.max), 1000)
        return rng.integers(low, high + 1, size=shape).astype(elem.numpy)
    values = rng.standard_normal(n) * 3
    if elem.kind == "complex":
        values = values + 1j * rng.standard_normal(n)
    else:
        values[:4] = [np.nan, -0.0, np.inf, -np.inf][:min(n, 4)]
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return rng.permutation(values).astype(elem.numpy).reshape(shape)


def ints(*values) -> np.ndarray:
    return np.array(values, dtype=I64)


def assert_same(got, want, label: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    if want.dtype == object:
        assert got.tolist() == want.tolist(), label
    else:
        assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes(), \
            f"{label}: values differ\n{got}\n{want}"


def graph_of(op: str, opset: int, cases: list[tuple[list, dict, int]]) -> tuple[onnx.ModelProto, dict]:
    """A model with one node per case (inputs, attributes, output count) and its feeds; case c's inputs
    are c<c>x<k> and its outputs c<c>y<k>, in order."""
    nodes, infos, outputs, feeds = [], [], [], {}
    for c, (inputs, attrs, n_out) in enumerate(cases):
        names = [f"c{c}x{k}" if x is not None else "" for k, x in enumerate(inputs)]
        while names and names[-1] == "":
            names.pop()
        for name, x in zip(names, inputs):
            if name:
                infos.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape))
                feeds[name] = x
        outs = [f"c{c}y{k}" for k in range(n_out)]
        nodes.append(helper.make_node(op, names, outs, **{k: v for k, v in attrs.items() if v is not None}))
        outputs += [helper.make_value_info(o, onnx.TypeProto()) for o in outs]
    graph = helper.make_graph(nodes, "g", infos, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=11), feeds


def reference(op: str, opset: int, inputs: list, attrs: dict, n_out: int) -> list[np.ndarray]:
    model, feeds = graph_of(op, opset, [(inputs, attrs, n_out)])
    return ReferenceEvaluator(model).run(None, feeds)


# onnxruntime has no kernel for the opset or element type, or no numpy type for it; or (float16 in an
# opset-1/2 model) the Cast it inserts to run a float16 node in float32 is the opset's Cast-1, whose `to`
# is a string: "InsertedPrecisionFreeCast ... Mismatched attribute type" (DepthToSpace-1, SpaceToDepth-1,
# Size-1, Pad-2 with float16).
ORT_REFUSALS = ("NOT_IMPLEMENTED", "Type Error", "not currently registered or supported",
                "can't be converted to MLDataType", "InsertedPrecisionFreeCast")
# Element types of ORT_CORE that onnxruntime (1.31, CPU) has no kernel for, measured: the test fails if it
# runs one of them (then remove it here) or stops running another.
ORT_TYPE_GAPS = {"DepthToSpace": {"bool", "int64", "string"}, ("DepthToSpace", 1): {"uint8"},
                 "SpaceToDepth": {"bool", "int64", "string"}, "Pad": {"string"}}


def onnxruntime(op: str, opset: int, cases: list[tuple[list, dict, int]]) -> list[list[np.ndarray]] | None:
    """onnxruntime's outputs of each case, run as one model (a session per case would take most of this
    file's time); None when it has no kernel for this opset and element type."""
    if opset > ORT_MAX_OPSET:
        return None
    model, feeds = graph_of(op, opset, cases)
    try:
        flat = ort_session(model).run(None, feeds)
    except Exception as exc:
        if any(s in str(exc) for s in ORT_REFUSALS):
            return None
        raise
    out = []
    for _, _, n_out in cases:
        out.append(flat[:n_out])
        flat = flat[n_out:]
    return out


# The onnxruntime comparisons a test has queued, grouped by (op, version, dtype); run when the test ends.
PENDING: dict[tuple[str, int, str], list[tuple]] = {}


def check(op: str, version: int, inputs: list, attrs: dict | None = None, *, n_out: int = 1, ref: bool = True,
          ort: bool | None = None, dtype: str = "", as_op: tuple | None = None) -> None:
    """The kernel of op@version against onnx.reference (now) and onnxruntime (queued: run_onnxruntime).
    `as_op` = (op, version) runs the references on that op and version instead (for a version they lack);
    ort=None requires onnxruntime to run when the dtype is in ORT_CORE and it loads the version (unless
    ORT_TYPE_GAPS lists it), False skips it."""
    attrs = dict(attrs or {})
    got = opgen_ops.get_kernel("onnx", op, version)(*inputs, **{k: v for k, v in attrs.items() if v is not None})
    label = f"{op}-{version} {dtype} {attrs}"
    ref_op, ref_version = as_op or (op, version)
    if ref:
        for g, w in zip(got, reference(ref_op, ref_version, inputs, attrs, len(got)), strict=True):
            assert_same(g, w, "onnx.reference " + label)
    if ort is not False:
        PENDING.setdefault((ref_op, ref_version, dtype), []).append((inputs, attrs, got, label, ort is None))


def run_onnxruntime() -> None:
    """The queued onnxruntime comparisons, one model per (op, version, dtype)."""
    groups = list(PENDING.items())
    PENDING.clear()
    for (op, version, dtype), cases in groups:
        ran = onnxruntime(op, version, [(inputs, attrs, len(got)) for inputs, attrs, got, _, _ in cases])
        for k, (_, _, got, label, required) in enumerate(cases):
            if ran is not None:
                for g, w in zip(got, ran[k], strict=True):
                    assert_same(g, w, "onnxruntime " + label)
            if required and dtype in ORT_CORE and version <= ORT_MAX_OPSET:
                gap = dtype in ORT_TYPE_GAPS.get(op, set()) | ORT_TYPE_GAPS.get((op, version), set())
                assert (ran is None) == gap, f"onnxruntime {'did not run' if ran is None else 'ran'}: {label}"


@pytest.fixture(autouse=True)
def onnxruntime_comparisons():
    """Every test's queued onnxruntime comparisons run when it ends (a failure shows as an error at
    teardown, naming the case)."""
    PENDING.clear()
    yield
    run_onnxruntime()


def test_every_version_of_these_ops_has_a_kernel():
    missing = [(op, v) for op in MINE for v in versions(op) if v not in opgen_ops.OPS[("onnx", op)][2]]
    # Split-1 too: its attribute split, named like its input, is the keyword split_attr (tests/test_runtime_gaps.py)
    assert missing == []


# ---- Concat, Split ------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", versions("Concat"))
def test_concat(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Concat", version):
        parts = [data(rng, (2, n, 3), dtype) for n in (1, 0, 4)]
        for axis in (1, -2) if version >= 11 else (1,):
            # onnxruntime's Concat kernels start at version 4
            check("Concat", version, parts, {"axis": axis}, dtype=dtype, ort=None if version >= 4 else False)
    x = data(rng, (2, 3), "float")
    check("Concat", version, [x], {"axis": 0}, dtype="float", ort=None if version >= 4 else False)  # a copy
    if version == 1:  # no default declared (onnx.reference refuses the node): 1, as Concat-1's text says
        (got,) = opgen_ops.get_kernel("onnx", "Concat", 1)(x, x)
        assert_same(got, reference("Concat", 1, [x, x], {"axis": 1}, 1)[0], "Concat-1 without axis")


@pytest.mark.parametrize("version", [v for v in versions("Split") if v != 1])
def test_split(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Split", version):
        x = data(rng, (4, 6), dtype)
        for axis, lengths in ((1, [1, 0, 5]), (-2, [2, 2]), (0, [4])):
            if version >= 13:
                check("Split", version, [x, ints(*lengths)], {"axis": axis}, n_out=len(lengths), dtype=dtype)
            else:
                check("Split", version, [x], {"axis": axis if version >= 11 else axis % 2, "split": lengths},
                      n_out=len(lengths), dtype=dtype)
    if version >= 18:  # num_outputs: ceil-sized pieces, a smaller (or empty, onnxruntime refuses it) last one
        x = data(rng, (7, 2), "float")
        for n in (1, 2, 3, 7):
            check("Split", version, [x], {"axis": 0, "num_outputs": n}, n_out=n, dtype="float")
        check("Split", version, [data(rng, (6,), "float")], {"num_outputs": 4}, n_out=4, ort=False)


def test_split_without_lengths_is_refused():
    """Split-2/11/13 without split divide the axis among the node's outputs: a kernel does not know how
    many there are (tests/known_failures.txt, test_split_equal_parts_*_opset13)."""
    for version in (2, 11, 13):
        with pytest.raises(ValueError, match="number of outputs"):
            opgen_ops.get_kernel("onnx", "Split", version)(np.zeros(6, np.float32))


# ---- Squeeze, Unsqueeze, Reshape, Flatten ------------------------------------------------------------


def _axes(version: int, values, attr_until: int = 11) -> tuple[list, dict]:
    """axes as an attribute (before version 13) or as an input."""
    if values is None:
        return [], {}
    return ([], {"axes": list(values)}) if version <= attr_until else ([ints(*values)], {})


def _legacy_order(version: int, axes) -> bool:
    """onnx.reference's Squeeze-1/11 and Unsqueeze-1/11 squeeze or insert one axis at a time (in reverse
    listed order / in listed order, onnx/reference/ops/op_squeeze.py and op_unsqueeze.py), which is right
    only for non-negative axes listed in ascending order; other lists are checked with onnxruntime alone."""
    return version >= 13 or axes is None or (all(a >= 0 for a in axes) and list(axes) == sorted(axes))


@pytest.mark.parametrize("version", versions("Squeeze"))
def test_squeeze(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Squeeze", version):
        x = data(rng, (1, 3, 1, 2), dtype)
        for axes in (None, [0], [0, 2], [2, 0]) + (([-2], [-4, -2]) if version >= 11 else ()):
            extra, attrs = _axes(version, axes)
            check("Squeeze", version, [x, *extra], attrs, dtype=dtype, ref=_legacy_order(version, axes))
    check("Squeeze", version, [data(rng, (1, 1), "float")], {}, dtype="float")  # down to rank 0
    check("Squeeze", version, [data(rng, (0, 1), "float")], {}, dtype="float")  # empty


@pytest.mark.parametrize("version", versions("Unsqueeze"))
def test_unsqueeze(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Unsqueeze", version):
        x = data(rng, (3, 2), dtype)
        for axes in ([0], [1, 3], [3, 1], [0, 1, 4]) + (([-1], [-1, 0], [3, -4]) if version >= 11 else ()):
            extra, attrs = _axes(version, axes)
            check("Unsqueeze", version, [x, *extra], attrs, dtype=dtype, ref=_legacy_order(version, axes))
    extra, attrs = _axes(version, [0, 1])
    check("Unsqueeze", version, [np.array(2.5, np.float32), *extra], attrs, dtype="float")  # from rank 0


# (input shape, target): valid with allowzero 0 (a 0 copies the input's dimension) and, the second list,
# with allowzero 1 (a 0 is a size).
RESHAPES = [((2, 3, 4), (4, 6)), ((2, 3, 4), (0, -1)), ((2, 3, 4), (-1,)), ((2, 3, 4), (2, 0, 2, 2)),
            ((6,), (1, 6, 1)), ((1,), ()), ((0, 3), (-1, 3)), ((2, 0, 4), (0, 0, 5)), ((0, 3), (0, 3))]
RESHAPES_ALLOWZERO = [((2, 3, 4), (4, 6)), ((2, 3, 4), (-1, 2)), ((0, 3), (3, 0)), ((2, 0, 4), (0, 0, 5)),
                      ((0,), (0, 7))]


@pytest.mark.parametrize("version", [v for v in versions("Reshape") if v != 1])
def test_reshape(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Reshape", version):
        for allowzero in (0, 1) if version >= 14 else (None,):
            for shape, target in RESHAPES_ALLOWZERO if allowzero else RESHAPES:
                check("Reshape", version, [data(rng, shape, dtype), ints(*target)], {"allowzero": allowzero},
                      dtype=dtype)


def test_reshape_1_matches_reshape_5():
    """Reshape-1 (shape as an attribute) is in neither reference (onnx.reference starts at 5, onnxruntime
    at 5): it means what Reshape-5 means with that shape as its input."""
    rng = np.random.default_rng(1)
    for dtype in types_of("Reshape", 1):
        for shape, target in RESHAPES:
            x = data(rng, shape, dtype)
            (got,) = opgen_ops.get_kernel("onnx", "Reshape", 1)(x, shape=list(target), consumed_inputs=[0])
            (want,) = reference("Reshape", 5, [x, ints(*target)], {}, 1)
            assert_same(got, want, f"Reshape-1 {shape} -> {target}")


def test_reshape_allowzero_keeps_a_literal_zero():
    x = np.zeros((2, 0), np.float32)
    check("Reshape", 14, [x, ints(0, 7)], {"allowzero": 1})  # 0 is a size: [0, 7]
    with pytest.raises(ValueError):  # without allowzero the 0 copies 2: 14 elements, the input has 0
        opgen_ops.get_kernel("onnx", "Reshape", 14)(x, ints(0, 7))


@pytest.mark.parametrize("version", versions("Flatten"))
def test_flatten(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Flatten", version):
        x = data(rng, (2, 3, 1, 4), dtype)
        for axis in range(-4 if version >= 11 else 0, 5):
            check("Flatten", version, [x], {"axis": axis}, dtype=dtype)
    check("Flatten", version, [data(rng, (2, 3), "float")], {}, dtype="float")  # default axis 1
    # Empty input: onnx.reference reshapes to (prod(shape[:axis]), -1), which numpy cannot infer next to a 0
    empty = data(rng, (2, 0, 3), "float")
    for axis in (0, 1, 2, 3):
        check("Flatten", version, [empty], {"axis": axis}, dtype="float", ref=False, ort=version > 1)


# ---- Expand, Tile, Transpose ----------------------------------------------------------------------------


EXPANDS = [((3, 1), (2, 1, 4)), ((3, 1), (1,)), ((1,), (0,)), ((), (2, 2)), ((2, 3), (2, 1)), ((1, 4), (3, 1, 1)),
           ((2, 1, 3), (2, 5, 3))]


@pytest.mark.parametrize("version", versions("Expand"))
def test_expand(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Expand", version):
        for shape, target in EXPANDS:
            check("Expand", version, [data(rng, shape, dtype), ints(*target)], dtype=dtype)
    with pytest.raises(ValueError, match="broadcast"):
        opgen_ops.get_kernel("onnx", "Expand", version)(np.zeros((2, 3), np.float32), ints(4, 3, 2))


@pytest.mark.parametrize("version", versions("Tile"))
def test_tile(version):
    rng = np.random.default_rng(version)
    if version == 1:
        # Tile-1 (tiles copies along axis; both float tensors of input's type) is in neither reference:
        # onnx.reference runs only Tile-6 (repeats) and onnxruntime has no Tile-1 kernel. It must equal
        # Tile-6 with repeats 1 except at axis.
        for dtype in types_of("Tile", 1):
            x = data(rng, (2, 3), dtype)
            for tiles, axis in ((3, 0), (2, 1), (0, 1), (1, 0)):
                reps = [1, 1]
                reps[axis] = tiles
                tile = opgen_ops.get_kernel("onnx", "Tile", 1)
                (got,) = tile(x, np.array([tiles], x.dtype), np.array([axis], x.dtype))
                (want,) = reference("Tile", 6, [x, ints(*reps)], {}, 1)
                assert_same(got, want, f"Tile-1 {dtype} tiles {tiles} axis {axis}")
        return
    for dtype in types_of("Tile", version):
        for shape, reps in (((2, 3), (2, 3)), ((2, 3), (1, 0)), ((4,), (3,)), ((0, 2), (2, 2)), ((1, 2, 1), (2, 1, 3))):
            check("Tile", version, [data(rng, shape, dtype), ints(*reps)], dtype=dtype)


@pytest.mark.parametrize("version", versions("Transpose"))
def test_transpose(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Transpose", version):
        x = data(rng, (2, 3, 4), dtype)
        for perm in (None, [0, 1, 2], [2, 0, 1], [1, 2, 0]):
            check("Transpose", version, [x], {"perm": perm}, dtype=dtype)
    check("Transpose", version, [np.array(1.5, np.float32)], {}, dtype="float")  # rank 0
    check("Transpose", version, [data(rng, (0, 3), "float")], {"perm": [1, 0]}, dtype="float")


# ---- Slice --------------------------------------------------------------------------------------------------

# (starts, ends, axes, steps) on a (5, 6, 4) tensor: negative indices, clamping, INT64 limits, negative
# steps, absent axes/steps, empty results.
SLICES = [([1, 0], [3, 10], None, None), ([-3], [-1], [1], None), ([0, -1], [INT_MAX, INT_MIN], [0, 2], [2, -1]),
          ([10], [-10], [0], [-2]), ([4, 5], [0, 0], [-3, 1], [-1, -2]), ([2], [2], [2], [1]),
          ([-100], [100], [-1], [3]), ([3], [1], [0], [1]), ([INT_MIN], [INT_MAX], [1], [1]), ([5], [-7], [1], [-1])]


@pytest.mark.parametrize("version", versions("Slice"))
def test_slice(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Slice", version):
        x = data(rng, (5, 6, 4), dtype)
        for starts, ends, axes, steps in SLICES:
            if version == 1:
                if steps is not None and any(s != 1 for s in steps):
                    continue  # Slice-1 has no steps
                check("Slice", 1, [x], {"starts": starts, "ends": ends, "axes": axes}, dtype=dtype)
                continue
            if steps is not None and version < 10:
                continue
            if axes is None and steps is not None:
                inputs = [x, ints(*starts), ints(*ends), None, ints(*steps)]
            else:
                inputs = [x, ints(*starts), ints(*ends)] + ([] if axes is None else [ints(*axes)]) + \
                    ([] if steps is None else [ints(*steps)])
            check("Slice", version, inputs, dtype=dtype)
            small = all(v is None or np.all(np.abs(v) < 2**31) for v in inputs[1:])
            if dtype == "float" and small:  # int32 indices (Tind)
                check("Slice", version, [x] + [None if v is None else v.astype(np.int32) for v in inputs[1:]],
                      dtype=dtype)
    empty = data(rng, (0, 3), "float")
    if version >= 10:
        check("Slice", version, [empty, ints(0, -1), ints(5, 0), ints(0, 1), ints(-1, -1)], dtype="float")


# ---- Pad ------------------------------------------------------------------------------------------------------

# (shape, pads) with pads = [begins..., ends...] for every axis; reflect needs amounts below the axis size
# in onnxruntime.
PADS = [((3, 4), [1, 2, 0, 1]), ((3, 4), [0, 0, 2, 3]), ((5,), [4, 4]), ((2, 3, 4), [1, 0, 1, 1, 1, 0]),
        ((3, 4), [0, 0, 0, 0]), ((0, 3), [1, 1, 2, 0])]
NEGATIVE_PADS = [((5, 4), [-1, 1, 2, -2]), ((5,), [-2, 2]), ((5,), [1, -3]), ((4, 3), [-1, -1, -2, 0]),
                 ((3,), [-3, 0])]


def _pad_inputs(version, x, pads, value=None, axes=None):
    """Pad's arguments: attributes pads/paddings and value before version 11, inputs from 11."""
    if version <= 2:
        return [x], {"pads" if version == 2 else "paddings": list(pads), "value": value}
    inputs = [x, ints(*pads), None if value is None else np.array(value, x.dtype), axes]
    while inputs[-1] is None:
        inputs.pop()
    return inputs, {}


def _reflect_ok(shape, pads) -> bool:
    """numpy.pad (onnx.reference) refuses to reflect or repeat an empty axis (so do the kernel and
    onnxruntime): those cases are in test_pad_refusals."""
    return all(n > 0 or (pads[k] == 0 and pads[k + len(shape)] == 0) for k, n in enumerate(shape))


@pytest.mark.parametrize("version", versions("Pad"))
def test_pad(version):
    rng = np.random.default_rng(version)
    modes = ("constant", "reflect", "edge") + (("wrap",) if version >= 19 else ())
    no_ort = version == 1  # onnxruntime's Pad kernels start at version 2
    for dtype in types_of("Pad", version):
        for (shape, pads), mode in itertools.product(PADS, modes):
            if mode != "constant" and (dtype not in ("float", "int64", "string") or not _reflect_ok(shape, pads)):
                continue
            inputs, attrs = _pad_inputs(version, data(rng, shape, dtype), pads)
            # strings: onnx.reference's np.pad fills the integer 0 (test_pad_string_default_fill)
            check("Pad", version, inputs, {"mode": mode, **attrs}, dtype=dtype, ort=False if no_ort else None,
                  ref=not (dtype == "string" and mode == "constant"))
        x = data(rng, (2, 3), dtype)
        fill = -1.5 if version <= 2 else {"string": "pad", "bool": True}.get(dtype, 7)
        inputs, attrs = _pad_inputs(version, x, [1, 0, 0, 2], fill)
        check("Pad", version, inputs, {"mode": "constant", **attrs}, dtype=dtype, ort=False if no_ort else None)


@pytest.mark.parametrize("version", [v for v in versions("Pad") if v >= 18])
def test_pad_axes(version):
    rng = np.random.default_rng(version)
    x = data(rng, (2, 3, 4), "float")
    for axes, pads in (([1], [2, 1]), ([-1, 0], [1, 0, 2, 1]), ([2, 1], [0, 1, 1, 0])):
        for axes_type in (np.int64, np.int32):
            for mode in ("constant", "edge", "reflect") + (("wrap",) if version >= 19 else ()):
                check("Pad", version, [x, ints(*pads), None, np.array(axes, axes_type)], {"mode": mode}, dtype="float")


@pytest.mark.parametrize("version", [2, 11, 13, 19, 25])
def test_pad_negative_amounts_crop_first(version):
    """A negative amount removes elements before the mode adds any (onnxruntime's order). onnx.reference
    cannot check it: numpy.pad refuses negative widths ("index can't contain negative values")."""
    rng = np.random.default_rng(version)
    x = data(rng, (5, 4), "float")
    inputs, attrs = _pad_inputs(version, x, [-1, 0, 0, 0])
    with pytest.raises(ValueError, match="negative"):
        reference("Pad", version, inputs, attrs, 1)
    modes = ("constant", "edge", "reflect") + (("wrap",) if version >= 19 else ())
    for (shape, pads), mode in itertools.product(NEGATIVE_PADS, modes):
        if mode != "constant" and 0 in [n + min(b, 0) + min(e, 0) for n, b, e in
                                        zip(shape, pads[:len(shape)], pads[len(shape):])]:
            continue  # onnxruntime refuses every non-constant mode on an axis cropped to nothing
        inputs, attrs = _pad_inputs(version, data(rng, shape, "float"), pads)
        check("Pad", version, inputs, {"mode": mode, **attrs}, ref=False, dtype="float")


@pytest.mark.parametrize("version", [2, 11, 19])
def test_pad_reflect_beyond_the_data_mirrors_again(version):
    """reflect by more than size - 1 elements keeps mirroring (period 2 (size - 1)) as onnx.reference
    (numpy.pad) does; onnxruntime refuses ("Pad reflect: pre-pad (5) exceeds maximum allowed (4)")."""
    x = np.arange(1, 6, dtype=np.float32)
    for pads in ([5, 0], [9, 11], [0, 4]):
        inputs, attrs = _pad_inputs(version, x, pads)
        check("Pad", version, inputs, {"mode": "reflect", **attrs}, ort=False)
    one = np.array([2.5], np.float32)  # a single element: every mirror image is that element
    inputs, attrs = _pad_inputs(version, one, [2, 3])
    check("Pad", version, inputs, {"mode": "reflect", **attrs}, ort=False)
    if version >= 19:  # wrap past the data wraps again, in both references
        check("Pad", version, [x, ints(7, 12)], {"mode": "wrap"})


@pytest.mark.parametrize("version", [v for v in versions("Pad") if v >= 13])
def test_pad_string_default_fill(version):
    """Without constant_value a string tensor is padded with "" (the text from version 13). Neither reference
    can say it: onnxruntime has no string Pad, and onnx.reference's numpy.pad fills the integer 0."""
    x = np.array([["a", "b"]], dtype=object)
    (got,) = opgen_ops.get_kernel("onnx", "Pad", version)(x, ints(0, 1, 1, 0))
    assert got.tolist() == [["", "a", "b"], ["", "", ""]]
    assert reference("Pad", version, [x, ints(0, 1, 1, 0)], {}, 1)[0].tolist() == [[0, "a", "b"], [0, 0, 0]]


def test_pad_refusals():
    pad = opgen_ops.get_kernel("onnx", "Pad", 19)
    for mode in ("edge", "reflect", "wrap"):
        with pytest.raises(ValueError, match="no elements left"):
            pad(np.zeros((2, 0), np.float32), ints(0, 1, 0, 0), mode=mode)
        assert pad(np.zeros((2, 0), np.float32), ints(1, 0, 0, 0), mode=mode)[0].shape == (3, 0)
    assert pad(np.zeros(0, np.float32), ints(1, 2), mode="constant")[0].shape == (3,)


# ---- DepthToSpace, SpaceToDepth, CenterCropPad, Compress ---------------------------------------------------


@pytest.mark.parametrize("version", versions("DepthToSpace"))
def test_depth_to_space(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("DepthToSpace", version):
        for shape, block in (((2, 8, 2, 3), 2), ((1, 9, 1, 2), 3), ((1, 4, 0, 2), 2), ((1, 3, 2, 2), 1)):
            x = data(rng, shape, dtype)
            for mode in ("DCR", "CRD") if version >= 11 else (None,):
                check("DepthToSpace", version, [x], {"blocksize": block, "mode": mode}, dtype=dtype)
                if version == 28 and dtype in allowed("DepthToSpace", 13):  # 28 only adds types: as 13 in onnxruntime
                    check("DepthToSpace", version, [x], {"blocksize": block, "mode": mode}, dtype=dtype, ref=False,
                          as_op=("DepthToSpace", 13))


@pytest.mark.parametrize("version", versions("SpaceToDepth"))
def test_space_to_depth(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("SpaceToDepth", version):
        for shape, block in (((2, 2, 4, 6), 2), ((1, 1, 3, 6), 3), ((1, 2, 0, 2), 2)):
            x = data(rng, shape, dtype)
            for mode in ("DCR", "CRD") if version >= 28 else (None,):
                check("SpaceToDepth", version, [x], {"blocksize": block, "mode": mode}, dtype=dtype)
            if version == 28 and dtype in allowed("SpaceToDepth", 13):  # DCR was the only order before 28
                check("SpaceToDepth", version, [x], {"blocksize": block}, dtype=dtype, ref=False,
                      as_op=("SpaceToDepth", 13))
    if version >= 28:  # CRD is DepthToSpace CRD's inverse
        x = data(rng, (1, 3, 4, 2), "float")
        (y,) = opgen_ops.get_kernel("onnx", "SpaceToDepth", version)(x, blocksize=2, mode="CRD")
        (back,) = opgen_ops.get_kernel("onnx", "DepthToSpace", 13)(y, blocksize=2, mode="CRD")
        assert_same(back, x, "DepthToSpace(SpaceToDepth(x)) CRD")


def test_center_crop_pad():
    """onnxruntime runs CenterCropPad through its function body, which fails for an int32 shape ("Type
    parameter (T) of Optype (Max) bound to different types (tensor(int64) and tensor(int32)"): int32 shapes
    are checked with onnx.reference alone."""
    rng = np.random.default_rng(18)
    for dtype in types_of("CenterCropPad", 18):
        x = data(rng, (5, 4, 3), dtype)
        for target, axes in (([3, 6, 3], None), ([2, 7], [0, 1]), ([1, 2], [-1, 0]), ([5], [1]), ([0, 9], [2, -2])):
            for tind in (np.int64, np.int32):
                check("CenterCropPad", 18, [x, np.array(target, tind)], {"axes": axes}, dtype=dtype,
                      ref=dtype != "string", ort=False if dtype == "string" or tind == np.int32 else None)
    # strings: the fill is "" (onnx.reference's np.zeros gives the integer 0 in an object array)
    s = data(rng, (1, 2), "string")
    (got,) = opgen_ops.get_kernel("onnx", "CenterCropPad", 18)(s, ints(1, 4))
    assert got.tolist() == [["", s[0, 0], s[0, 1], ""]]
    assert reference("CenterCropPad", 18, [s, ints(1, 4)], {}, 1)[0].tolist() == [[0, s[0, 0], s[0, 1], 0]]


@pytest.mark.parametrize("version", versions("Compress"))
def test_compress(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Compress", version):
        x = data(rng, (3, 4), dtype)
        cases = [([1, 0, 1], 0), ([0, 1, 1, 0], 1), ([1, 0], -1), ([1, 0, 0, 1, 1], None), ([0, 0, 0], 0), ([], 1)]
        for condition, axis in cases + ([([0, 1, 1], -2)] if version >= 11 else []):
            check("Compress", version, [x, np.array(condition, bool)], {"axis": axis}, dtype=dtype)
            if version == 28 and dtype in allowed("Compress", 11):  # 28 only adds bfloat16: as 11 in onnxruntime
                check("Compress", version, [x, np.array(condition, bool)], {"axis": axis}, dtype=dtype, ref=False,
                      as_op=("Compress", 11))


def test_compress_condition_longer_than_the_axis():
    """Entries past the end of the axis are ignored (the spec's output shape; onnxruntime does the same),
    where numpy.compress, and so onnx.reference, refuses a True there."""
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    condition = np.array([0, 1, 0, 1], bool)
    check("Compress", 11, [x, condition], {"axis": 1}, ref=False)
    with pytest.raises(IndexError):
        reference("Compress", 11, [x, condition], {"axis": 1}, 1)


# ---- Size, Shape ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", versions("Size"))
def test_size(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Size", version):
        for shape in ((), (0,), (2, 3, 4), (1, 0, 5)):
            check("Size", version, [data(rng, shape, dtype)], dtype=dtype)


@pytest.mark.parametrize("version", versions("Shape"))
def test_shape(version):
    rng = np.random.default_rng(version)
    for dtype in types_of("Shape", version):
        check("Shape", version, [data(rng, (2, 3, 4, 5), dtype)], dtype=dtype)
    if version >= 15:  # start and end count from the back when negative, then are clamped to [0, rank]
        for shape in ((), (0,), (2, 3, 4, 5)):
            x = data(rng, shape, "float")
            for start, end in ((1, None), (-1, None), (0, 2), (1, -1), (-10, 10), (3, 1), (None, -2)):
                check("Shape", version, [x], {"start": start, "end": end}, dtype="float")
    else:
        check("Shape", version, [np.zeros((0, 3), np.float32)], dtype="float")
        check("Shape", version, [np.array(1.5, np.float32)], dtype="float")
