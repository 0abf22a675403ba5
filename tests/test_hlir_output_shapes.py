"""Output shapes of hlir ops stated in the specs (outputs[].shape), against jax.lax on CPU with x64
(jax.eval_shape of the matching lax / jax.numpy function), or where jax has no such operation, the
reference the kernel tests use (onnx's strict shape inference for the ONNX-defined ops, torch for
CTCLoss). The reference shape passes declared; each output declared wrong (a dimension added, or the
first dimension off by one) is reported at that output ("output 'name'", of a variadic output
"output 'name'[k]") or by the numbered constraint that already ties that output to the inputs."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import opgen_ops
from kernel_refs import jax, jax_padding, jnp, lax, xla_log2_reduction

F, D, I64 = "float", "double", "int64"


def shaped(shape, dtype=np.float64):
    return jax.ShapeDtypeStruct(tuple(shape), dtype)


def out_shapes(fn, *args):
    """The result shapes jax gives (one array, or a tuple/list of arrays), without running it."""
    res = jax.eval_shape(fn, *args)
    return [tuple(r.shape) for r in (res if isinstance(res, (tuple, list)) else [res])]


def check(op, inputs, attrs, want, labels, elems=None, tied=()):
    """want: the reference shape of each output value in order; labels: where opgen reports each
    (output 'x' or output 'x'[k]); tied: constraints that read the outputs (they may report first)."""
    validate = opgen_ops.get_validator("hlir", op, 1)
    elems = elems or [F] * len(want)
    right = [(e, tuple(s)) for e, s in zip(elems, want)]
    assert [str(p) for p in validate(inputs, attrs, right)] == [], (op, attrs, want)
    for k, shape in enumerate(want):
        for wrong in ((*shape, 1), (shape[0] + 1, *shape[1:]) if shape else (2,)):
            declared = list(right)
            declared[k] = (elems[k], tuple(wrong))
            where = [p.where for p in validate(inputs, attrs, declared)]
            assert where and all(w == labels[k] or w in {f"constraint {c}" for c in tied} for w in where), \
                (op, attrs, k, wrong, shape, where)


def pieces(name, n):
    return [f"output '{name}'[{k}]" for k in range(n)]


OUT = ["output 'output'"]


# ---- variadic inputs: shapes(x) ------------------------------------------------------------------

@pytest.mark.parametrize("shapes, dimension", [
    ([(2, 3), (2, 4), (2, 1)], 1), ([(1, 2, 3), (4, 2, 3)], -3), ([(5,)], 0), ([(5,), (0,)], -1),
    ([(2, 0, 3), (2, 0, 1)], 2), ([(3, 2), (3, 2)], -1)])
def test_concatenate_sums_the_dimension(shapes, dimension):
    want = out_shapes(lambda *xs: jnp.concatenate(xs, axis=dimension), *map(shaped, shapes))
    if dimension >= 0:
        assert want == out_shapes(lambda *xs: lax.concatenate(xs, dimension), *map(shaped, shapes))
    check("Concatenate", [(F, s) for s in shapes], {"dimension": dimension}, want, OUT)


@pytest.mark.parametrize("shape, n, dimension", [((3, 4), 2, 0), ((3, 4), 1, 1), ((0,), 1, 0), ((2, 1, 5), 3, 2)])
def test_sort_keeps_every_input_shape(shape, n, dimension):
    want = out_shapes(lambda *xs: lax.sort(xs, dimension=dimension, num_keys=1), *[shaped(shape)] * n)
    check("Sort", [(F, shape)] * n, {"dimension": dimension, "descending": False, "is_stable": True}, want,
          pieces("output", n))


@pytest.mark.parametrize("shapes", [[(2, 2), (1,)], [()], [(0, 3), (4,), ()]])
def test_tuple_holds_each_element(shapes):
    want = out_shapes(lambda *xs: tuple(xs), *map(shaped, shapes))  # jax's tuple of the operands
    check("Tuple", [(F, s) for s in shapes], {}, want, pieces("output", len(shapes)))


@pytest.mark.parametrize("shapes", [[(3,), (2, 2), ()], [(0, 4)]])
def test_get_tuple_element_has_that_element_shape(shapes):
    for index in range(len(shapes)):
        want = out_shapes(lambda *xs: xs[index], *map(shaped, shapes))
        check("GetTupleElement", [(F, s) for s in shapes], {"index": index}, want, OUT)
    validate = opgen_ops.get_validator("hlir", "GetTupleElement", 1)
    for index in (-1, len(shapes)):  # outside the tuple: C1, and no shape is inferred
        assert [p.where for p in validate([(F, s) for s in shapes], {"index": index}, [(F, (7,))])] == \
            ["constraint C1"]


@pytest.mark.parametrize("shape, dimensions, n", [
    ((2, 3, 4), [0, 2], 1), ((2, 3), [], 1), ((0, 5), [1], 1), ((2, 3), [1], 2), ((4,), [0], 2), ((2, 3, 4), [2, 1], 1)])
def test_reduce_drops_the_reduced_dimensions(shape, dimensions, n):
    def fn(*xs):
        if n == 1:
            return lax.reduce(xs, (0.0,), lambda a, b: (a[0] + b[0],), tuple(dimensions))
        return lax.reduce(xs, (0.0, 0.0), lambda a, b: (lax.max(a[0], b[0]), lax.max(a[1], b[1])), tuple(dimensions))
    want = out_shapes(fn, *[shaped(shape)] * n)
    computation = "ADD" if n == 1 else "ARGMAX"
    check("Reduce", [(F, shape)] * n + [(F, ())] * n, {"computation": computation, "dimensions": dimensions},
          want, pieces("outputs", n), tied=("C4",))




@pytest.mark.parametrize("seed", range(30))
def test_reduce_window_against_lax_reduce_window(seed):
    rng = np.random.default_rng(900 + seed)
    rank = int(rng.integers(1, 4))
    sizes = [int(rng.integers(0 if seed % 5 == 0 else 1, 7)) for _ in range(rank)]
    window = [int(rng.integers(1, 5)) for _ in range(rank)]
    strides, base, wdil = ([int(rng.integers(1, 4)) for _ in range(rank)] for _ in range(3))
    auto_pad = ["NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID"][seed % 4]
    ceil_mode = bool(seed % 3 == 0)
    n = 1 + seed % 2
    pads = jax_padding(auto_pad, ceil_mode, sizes, window, strides, base, wdil)

    def fn(*xs):
        def computation(a, b):
            return (a[0] + b[0],) if n == 1 else (lax.max(a[0], b[0]), lax.max(a[1], b[1]))
        return lax.reduce_window(xs, (0.0,) * n, computation, tuple(window), tuple(strides), pads,
                                 base_dilation=tuple(base), window_dilation=tuple(wdil))
    want = out_shapes(fn, *[shaped(sizes)] * n)
    attrs = {"computation": "ADD" if n == 1 else "ARGMAX", "window_dimensions": window, "auto_pad": auto_pad,
             "ceil_mode": ceil_mode}
    given = {"window_strides": strides, "base_dilations": base, "window_dilations": wdil}
    for keep in ([], ["window_strides"], list(given)):  # absent strides and dilations mean 1
        if any(any(v != 1 for v in given[k]) for k in given if k not in keep):
            continue
        check("ReduceWindow", [(F, tuple(sizes))] * n + [(F, ())] * n, {**attrs, **{k: given[k] for k in keep}},
              want, pieces("outputs", n))




@pytest.mark.parametrize("shape, axis, k, recall", [
    ((3, 1000), 1, 10, 0.9), ((700, 2), 0, 4, 0.8), ((5000,), 0, 20, 0.95), ((2, 300, 3), 1, 2, 0.5),
    ((3000,), 0, 2, 0.5), ((2, 1000), 1, 2, 0.5)])
def test_partial_reduce_output_size_is_xlas(shape, axis, k, recall):
    """XLA's ApproxTopKReductionOutputSize, through jax.lax.approx_max_k's CPU fallback (which keeps
    that many elements with aggregate_to_topk=False), for the log2_reduction it chooses (> 0)."""
    r = xla_log2_reduction(shape[axis], len(shape), k, recall)
    assert r > 0
    values, _ = jax.lax.approx_max_k(jnp.zeros(shape, jnp.float32), k, reduction_dimension=axis,
                                     recall_target=recall, aggregate_to_topk=False)
    want = [tuple(values.shape)] * 2
    check("PartialReduce", [(F, shape), ("int32", shape), (F, ()), ("int32", ())],
          {"comparator": lambda a, b, i, j: a > b, "top_k": k, "reduction_dim": axis, "recall_target": recall,
           "log2_reduction": r}, want, pieces("outputs", 2), elems=[F, "int32"])


def test_partial_reduce_without_reduction_keeps_whole_tiles():
    """log2_reduction 0: C6's size ceil(n / L) * L, as the kernel gives it (XLA itself keeps n elements
    then, choosing no PartialReduce at all: jax.lax.approx_max_k returns the input size)."""
    kernel = opgen_ops.get_kernel("hlir", "PartialReduce", 1)
    for shape, axis in (((2, 100), 1), ((300,), 0), ((130, 3), 0)):
        x = np.zeros(shape, np.float32)
        (got,) = kernel(x, np.float32(-np.inf), comparator=lambda a, b: a > b, top_k=1, reduction_dim=axis,
                        log2_reduction=0)
        check("PartialReduce", [(F, shape), (F, ())], {"comparator": lambda a, b: a > b, "top_k": 1,
                                                       "reduction_dim": axis, "log2_reduction": 0},
              [got.shape], pieces("outputs", 1))


@pytest.mark.parametrize("shape, dims", [((2, 3), [0, 1]), ((2, 3, 4), [1]), ((4, 0), [0]), ((3,), [0])])
def test_map_keeps_the_operand_shape(shape, dims):
    """jax.vmap over the mapped dimensions (as tests/kernels/test_control_flow.py's Map reference)."""
    fn = lambda a, b: a * b + 1.0  # noqa: E731
    for d in sorted(dims):  # the outermost vmap takes the last dimension: the others keep their place
        fn = jax.vmap(fn, in_axes=(d, d), out_axes=d)
    want = out_shapes(fn, shaped(shape), shaped(shape))
    check("Map", [(F, shape), (F, shape)], {"dimensions": dims, "computation": lambda a, b: a * b + 1.0}, want, OUT,
          tied=("C1",))


# ---- values of constant inputs: values(x) --------------------------------------------------------

def onnx_shapes(op, opset, inputs, attrs, outputs, inits):
    """Output shapes from onnx's strict shape inference, else onnxruntime (tests/onnx_cases)."""
    from onnx_cases import build, reference_shapes

    m, feeds = build(op, opset, inputs, attrs, {n: None for n in outputs}, inits)
    want, _ = reference_shapes(m, feeds)
    return [tuple(want[n]) for n in outputs]


@pytest.mark.parametrize("shape, axis, attrs, split", [
    ((6, 7, 4), 1, {"num_outputs": 3}, None), ((6, 7, 4), -2, {"num_outputs": 4}, None),
    ((5, 2), 0, {"num_outputs": 1}, None), ((6, 7, 4), 0, {}, [2, 1, 3]), ((6, 7, 4), -1, {}, [4, 0]),
    ((2, 5), 1, {"num_outputs": 3}, None)])
def test_general_split_as_onnx_split_18(shape, axis, attrs, split):
    """The op follows ONNX Split-18 (note uneven_split); with lengths, jnp.split at their sums agrees."""
    n = attrs.get("num_outputs") or len(split)
    inits = {} if split is None else {"split": np.array(split, np.int64)}
    want = onnx_shapes("Split", 18, {"input": shape, **{k: None for k in inits}}, {"axis": axis, **attrs},
                       [f"o{k}" for k in range(n)], inits)
    if split is not None:
        assert want == out_shapes(lambda x: jnp.split(x, np.cumsum(split)[:-1].tolist(), axis=axis), shaped(shape))
    inputs = [(F, shape)] + ([np.array(split, np.int64)] if split is not None else [])
    check("GeneralSplit", inputs, {"axis": axis, **attrs}, want, pieces("outputs", n))


@pytest.mark.parametrize("shape, axes", [
    ((1, 3, 1, 2), [0]), ((1, 3, 1, 2), [-2, 0]), ((1, 3, 1, 2), None), ((1, 3, 1, 2), []), ((1, 1), [1, -2]),
    ((0, 1), [-1]), ((2, 3), None)])
def test_squeeze_against_jnp_squeeze(shape, axes):
    want = out_shapes(lambda x: jnp.squeeze(x, axis=tuple(axes) if axes else None), shaped(shape))
    inputs = [(F, shape)] + ([np.array(axes, np.int64)] if axes is not None else [])
    check("Squeeze", inputs, {}, want, OUT)


@pytest.mark.parametrize("shape, axes", [((2, 3), [0, 3]), ((2, 3), [-2]), ((), [0]), ((), [-1, 0]),
                                         ((0, 4), [1, -1]), ((2,), [2, 0, 1])])
def test_unsqueeze_against_jnp_expand_dims(shape, axes):
    want = out_shapes(lambda x: jnp.expand_dims(x, tuple(axes)), shaped(shape))
    check("Unsqueeze", [(F, shape), np.array(axes, np.int64)], {}, want, OUT)


@pytest.mark.parametrize("shape, repeats", [((2, 2), [1, 3]), ((2, 2), [2, 0]), ((3,), [4]), ((), []),
                                            ((0, 2, 1), [3, 1, 5])])
def test_tile_against_jnp_tile(shape, repeats):
    want = out_shapes(lambda x: jnp.tile(x, repeats), shaped(shape))
    check("Tile", [(F, shape), np.array(repeats, np.int64)], {}, want, OUT)


@pytest.mark.parametrize("shape, axis, k", [((2, 4), 1, 2), ((2, 4), -1, 4), ((5, 3, 2), 0, 1), ((5, 3, 2), -2, 3),
                                            ((4,), 0, 4), ((0, 3), 1, 3)])
def test_topk_against_lax_top_k(shape, axis, k):
    fn = lambda x: tuple(jnp.moveaxis(r, -1, axis) for r in lax.top_k(jnp.moveaxis(x, axis, -1), k))  # noqa: E731
    want = out_shapes(fn, shaped(shape))
    check("Topk", [(F, shape), np.array([k], np.int64)], {"axis": axis}, want,
          ["output 'output'", "output 'indices'"], elems=[F, I64], tied=("C3",))


@pytest.mark.parametrize("target", [[4], [2, 3], [], [0, 5], [3, 0, 2]])
def test_rng_shapes_against_lax_rng_uniform_and_jax_random_normal(target):
    shape = np.array(target, np.int64)
    want = out_shapes(lambda a, b: lax.rng_uniform(a, b, tuple(target)), shaped(()), shaped(()))
    check("RngUniform", [(D, ()), (D, ()), shape], {"seed": 3}, want, OUT, elems=[D], tied=("C4",))
    want = out_shapes(lambda key: jax.random.normal(key, tuple(target)), jax.random.key(0))
    check("RngNormal", [(D, ()), (D, ()), shape.astype(np.int32)], {}, want, OUT, elems=[D], tied=("C4",))


@pytest.mark.parametrize("shape, target, dims", [((2, 1), [2, 3, 2], [0, 2]), ((2, 3), [3, 2, 2], [1, 0]),
                                                 ((), [4, 0], []), ((1,), [5], [0])])
def test_dynamic_broadcast_in_dim_against_lax(shape, target, dims):
    want = out_shapes(lambda x: lax.broadcast_in_dim(x, tuple(target), tuple(dims)), shaped(shape))
    check("DynamicBroadcastInDim", [(F, shape), np.array(target, np.int64)], {"broadcast_dimensions": dims}, want,
          OUT, tied=("C4",))


@pytest.mark.parametrize("target, dimension", [([2, 3], 1), ([3, 2], 0), ([5], 0), ([0, 4, 1], 2)])
def test_dynamic_iota_against_lax_broadcasted_iota(target, dimension):
    want = out_shapes(lambda: lax.broadcasted_iota(np.float64, tuple(target), dimension))
    check("DynamicIota", [np.array(target, np.int64)], {"iota_dimension": dimension}, want, OUT, elems=[D])


@pytest.mark.parametrize("shape, pads, mode", [((2, 3), [1, -1, 0, 2], "PAD_VALUE"), ((2, 3), [1, 2, 0, 1], "PAD_EDGE"),
                                               ((4,), [-4, 0], "PAD_VALUE"), ((0, 2), [2, 0, 1, 0], "PAD_VALUE"),
                                               ((), [], "PAD_VALUE"), ((3, 2), [2, 1, 0, 1], "PAD_REFLECT")])
def test_dynamic_pad_against_lax_pad(shape, pads, mode):
    r = len(shape)
    want = out_shapes(lambda x: lax.pad(x, 0.0, [(pads[i], pads[i + r], 0) for i in range(r)]), shaped(shape))
    check("DynamicPad", [(F, shape), np.array(pads, np.int64)], {"mode": mode}, want, OUT)


@pytest.mark.parametrize("shape, target, allowzero", [
    ((2, 3, 2), [0, -1], 0), ((2, 3, 2), [0, 2, -1], 0), ((2, 3, 2), [-1, 2, 2], 1), ((2, 0, 3), [0, 5, 0], 1),
    ((2, 0, 3), [3, 0], 0), ((4,), [2, 2], 0), ((1,), [], 0)])
def test_dynamic_reshape_as_onnx_reshape(shape, target, allowzero):
    """ONNX Reshape-14 (allowzero); jnp.reshape agrees once 0 is spelled out as the copied size."""
    want = onnx_shapes("Reshape", 14, {"data": shape, "shape": None}, {"allowzero": allowzero}, ["reshaped"],
                       {"shape": np.array(target, np.int64)})
    spelled = [shape[k] if v == 0 and not allowzero else v for k, v in enumerate(target)]
    assert want == out_shapes(lambda x: jnp.reshape(x, spelled), shaped(shape))
    check("DynamicReshape", [(F, shape), np.array(target, np.int64)], {"allowzero": allowzero}, want, OUT,
          tied=("C3",))


@pytest.mark.parametrize("shape, start, limit, strides, axes", [
    ((3, 4), [0, 1], [3, 4], [2, 2], None), ((3, 4), [1], [4], [2], [1]), ((3, 4), [1], [4], [3], [-1]),
    ((3, 4, 5), [2, 0], [2, 5], [1, 2], [0, -1]), ((3, 4), [0, 0], [3, 4], [1, 1], []), ((0, 2), [0], [0], [1], [0]),
    ((6,), [1], [6], [4], None)])
def test_real_dynamic_slice_against_lax_slice(shape, start, limit, strides, axes):
    listed = [a % len(shape) for a in axes] if axes else list(range(len(shape)))
    full = [(0, n, 1) for n in shape]
    for a, s, e, t in zip(listed, start, limit, strides):
        full[a] = (s, e, t)
    want = out_shapes(lambda x: lax.slice(x, *[tuple(f[j] for f in full) for j in range(3)]), shaped(shape))
    i64 = lambda v: np.array(v, np.int64)  # noqa: E731
    inputs = [(F, shape), i64(start), i64(limit), i64(strides)] + ([] if axes is None else [i64(axes)])
    check("RealDynamicSlice", inputs, {}, want, OUT)


@pytest.mark.parametrize("shape, sizes", [((1, 1, 2, 3), [1, 1, 3, 5]), ((4,), [6]), ((2, 3), [1, 0]), ((3, 2), [3, 2])])
def test_resize_sizes_against_jax_image_resize(shape, sizes):
    want = out_shapes(lambda x: jax.image.resize(x, tuple(sizes), "linear"), shaped(shape))
    check("Resize", [(F, shape), None, None, np.array(sizes, np.int64)], {"mode": "LINEAR"}, want, OUT)


@pytest.mark.parametrize("shape, scales", [((5, 5), [1.5, 0.5]), ((2, 3), [2.0, 0.6]), ((1, 1, 4, 4), [1, 1, 0.7, 1.3]),
                                           ((7,), [0.1])])
def test_resize_scales_as_onnx_resize(shape, scales):
    """Without a crop the length is floor(size * scale), as onnx's Resize-19 gives it."""
    scales = np.array(scales, np.float32)
    want = onnx_shapes("Resize", 19, {"X": shape, "roi": None, "scales": None}, {"mode": "linear"}, ["Y"],
                       {"roi": np.zeros(0, np.float32), "scales": scales})
    check("Resize", [(F, shape), None, scales], {"mode": "LINEAR"}, want, OUT)


def test_resize_scales_with_a_crop_as_the_kernel_gives_them():
    """TF_CROP_AND_RESIZE counts roi in the length (note output_length; the references ignore it there):
    the kernel's result, which tests/kernels/test_vision.py checks, gives the shape."""
    kernel = opgen_ops.get_kernel("hlir", "Resize", 1)
    rng = np.random.default_rng(7)
    for _ in range(10):
        shape = tuple(int(n) for n in rng.integers(1, 6, 2))
        start = rng.uniform(-0.4, 0.6, 2)
        roi = np.concatenate([start, start + rng.uniform(0.1, 1.0, 2)]).astype(np.float32)
        scales = rng.uniform(0.5, 3, 2).astype(np.float32)
        attrs = {"coordinate_transformation_mode": "TF_CROP_AND_RESIZE"}
        x = rng.standard_normal(shape).astype(np.float32)
        (got,) = kernel(x, roi, scales, None, **attrs)
        check("Resize", [(F, shape), roi, scales], attrs, [got.shape], OUT)


@pytest.mark.parametrize("batched, lengths", [(True, [2, 3]), (True, [0, 1]), (False, [2]), (True, [4])])
def test_ctc_loss_alpha_against_torch(batched, lengths):
    """alpha is torch._ctc_loss's log_alpha: (N, T, 2 * max(target_lengths) + 1), unbatched without N."""
    import torch

    steps, classes, n = 6, 5, len(lengths)
    log_probs = torch.zeros((steps, n, classes), dtype=torch.float64).log_softmax(-1)
    targets = torch.ones((n, max(max(lengths), 1)), dtype=torch.int64)
    _, alpha = torch._ctc_loss(log_probs, targets, [steps] * n, lengths, 0, False)
    want = [(n,) if batched else (), tuple(alpha.shape) if batched else tuple(alpha.shape[1:])]
    shape = (steps, n, classes) if batched else (steps, classes)
    tl = np.array(lengths if batched else lengths[0], np.int64)
    il = np.array([steps] * n if batched else steps, np.int64)
    inputs = [(D, shape), targets.numpy() if batched else targets.numpy()[0, :lengths[0]], il, tl]
    check("CTCLoss", inputs, {}, want, ["output 'loss'", "output 'alpha'"], elems=[D, D])


def test_value_shapes_are_unknown_without_the_values():
    """Without a constant's values the shape is unknown: nothing is checked, and nothing is reported."""
    cases = [("Tile", [(F, (2, 3)), (I64, (2,))], {}), ("Squeeze", [(F, (1, 3)), (I64, (1,))], {}),
             ("DynamicIota", [(I64, (2,))], {"iota_dimension": 0}), ("DynamicPad", [(F, (2,)), (I64, (2,))], {})]
    for op, inputs, attrs in cases:
        validate = opgen_ops.get_validator("hlir", op, 1)
        for shape in itertools.product([1, 7], repeat=2):
            assert validate(inputs, attrs, [(F if op != "DynamicIota" else D, shape)]) == [], (op, shape)


# ---- the shape of a tensor-valued attribute: shape(value) ---------------------------------------

@pytest.mark.parametrize("value", [[[1, -2, 3], [4, 5, -6]], 7, [], [[[0.5]], [[1.5]]], np.zeros((0, 4), np.int32)])
def test_constant_has_the_shape_of_its_value(value):
    want = out_shapes(lambda: jnp.asarray(value))
    check("Constant", [], {"value": value}, want, OUT, elems=["int32"])


def test_constant_of_a_ragged_value_has_no_shape():
    validate = opgen_ops.get_validator("hlir", "Constant", 1)
    assert all(validate([], {"value": [[1, 2], [3]]}, [("int32", s)]) == [] for s in [(2,), (1, 1)])


def test_shape_functions_read_tensor_attributes_only():
    from opgen import expr

    for text in ("shape(value)", "rank(value) == 2", "numel(value) > 0", "has(value)"):
        assert expr.check_names(text, {"value", "axis"}, {"x"}, {"value"}) == [], text
    for text in ("shape(axis)", "values(value)", "dtype(value)", "shapes(value)"):
        assert expr.check_names(text, {"value", "axis"}, {"x"}, {"value"}) != [], text
    assert expr.check_names("shape(value)", {"value"}, {"x"}) != []  # not known to be a tensor


# ---- constraints on the values that give a shape --------------------------------------------------

@pytest.mark.parametrize("size, attrs, split, bad", [
    (5, {"num_outputs": 4}, None, "C7"), (6, {"num_outputs": 4}, None, None), (7, {"num_outputs": 4}, None, None),
    (5, {}, [2, 2], "C6"), (5, {}, [6, -1], "C5"), (5, {}, [3, 2], None), (0, {"num_outputs": 2}, None, None)])
def test_general_split_lengths_must_fit_the_axis(size, attrs, split, bad):
    """The kernel refuses exactly the uses these constraints refuse."""
    n = attrs.get("num_outputs") or len(split)
    inputs = [(F, (size, 3))] + ([np.array(split, np.int64)] if split is not None else [])
    validate = opgen_ops.get_validator("hlir", "GeneralSplit", 1)
    assert [p.where for p in validate(inputs, {"axis": 0, **attrs}, [(F, None)] * n)] == \
        ([f"constraint {bad}"] if bad else [])
    kernel = opgen_ops.get_kernel("hlir", "GeneralSplit", 1)
    x = np.zeros((size, 3), np.float32)
    args = (x,) if split is None else (x, np.array(split, np.int64))
    if bad:
        with pytest.raises(ValueError):
            kernel(*args, axis=0, **attrs)
    else:
        assert len(kernel(*args, axis=0, **attrs)) == n


@pytest.mark.parametrize("shape, pads, ok", [((2,), [-2, 0], True), ((2,), [-2, -1], False), ((2, 3), [0, -4, 0, 1], True),
                                             ((2, 3), [0, -4, 0, 0], False), ((0,), [1, -1], True)])
def test_dynamic_pad_cannot_remove_more_than_a_dimension_holds(shape, pads, ok):
    r = len(shape)
    config = [(pads[i], pads[i + r], 0) for i in range(r)]
    try:
        out_shapes(lambda x: lax.pad(x, 0.0, config), shaped(shape))
        lax_ok = True
    except (ValueError, TypeError):
        lax_ok = False
    assert lax_ok == ok
    validate = opgen_ops.get_validator("hlir", "DynamicPad", 1)
    assert [p.where for p in validate([(F, shape), np.array(pads, np.int64)], {"mode": "PAD_VALUE"}, None)] == \
        ([] if ok else ["constraint C3"])


@pytest.mark.parametrize("shapes", [[(), (3,)], [(2, 0)], [(4, 2), (), (1,)]])
def test_while_keeps_the_loop_state_shapes(shapes):
    """jax.lax.while_loop: the result has the loop state's structure (note loop_checks)."""
    def loop(*state):
        return jax.lax.while_loop(lambda s: s[0].sum() < 3.0, lambda s: tuple(x + 1.0 for x in s), tuple(state))
    want = out_shapes(loop, *map(shaped, shapes))
    check("While", [(F, s) for s in shapes], {"condition": lambda *s: np.bool_(False), "body": lambda *s: s},
          want, pieces("output", len(shapes)))


@pytest.mark.parametrize("shape, source, target", [
    ((2, 3), "float", "int32"), ((2, 3), "double", "int32"), ((4, 2), "int8", "float16"),
    ((5, 4), "uint8", "float"), ((), "int64", "double"), ((3, 0), "int16", "uint8")])
def test_bitcast_convert_adds_or_drops_the_last_dimension(shape, source, target):
    """BitcastConvert's shape reads the output's element type (dtype(output)): jax.lax.bitcast_convert_type."""
    from opgen.dtypes import ELEM_TYPES

    want = out_shapes(lambda x: lax.bitcast_convert_type(x, ELEM_TYPES[target].numpy),
                      shaped(shape, ELEM_TYPES[source].numpy))
    check("BitcastConvert", [(source, shape)], {}, want, OUT, elems=[target], tied=("C1",))
    # the shape is stated (not only checked by C1): opgen show and the docs print it
    shapes = opgen_ops.get_signature("hlir", "BitcastConvert", 1).output_shapes
    assert [s.name for s in shapes] == ["output"]


def test_a_shape_may_read_an_output_dtype_but_not_its_shape(spec_tree):
    from test_spec_errors import GOOD_OP, errors_for

    reads_dtype = GOOD_OP.replace("      - name: Y\n        type: T\n",
                                  "      - name: Y\n        type: T\n        shape: 'shape(X) if bits(dtype(Y)) == 32 else shape(X)'\n")
    assert reads_dtype != GOOD_OP and errors_for(spec_tree, reads_dtype) == []
    reads_shape = GOOD_OP.replace("      - name: Y\n        type: T\n", "      - name: Y\n        type: T\n        shape: shape(Y)\n")
    assert any("shape(Y): a shape reads the inputs; of an output it may read only dtype()" in e
               for e in errors_for(spec_tree, reads_shape))
