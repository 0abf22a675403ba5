"""hlir.Conv and hlir.ConvBias against jax.lax.conv_general_dilated (XLA, x64, CPU, precision HIGHEST) over
randomised dimension numbers, strides, paddings (negative included), dilations and group counts, and
against the onnx package's Conv node test cases mapped to this op set's attributes.

Precision: the kernels compute float16 in float32 and round once; the jax reference for float16 runs in
float32 on the same inputs and is rounded the same way. Integer convolutions are compared exactly (both
wrap around). Behaviours the spec notes fix have their own tests naming the note.
"""
from __future__ import annotations

import importlib

import numpy as np
import onnx.backend.test.case.node as onnx_node_cases
import pytest

import opgen_ops
from kernel_refs import assert_matches, lax, np_dtype, random_array
from opgen.dtypes import ELEM_TYPES
from opgen.runtime.validation import ValidationError

NUMERIC = ("uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64", "float16", "float", "double")
conv = opgen_ops.get_kernel("hlir", "Conv", 1)
conv_bias = opgen_ops.get_kernel("hlir", "ConvBias", 1)


def attrs_for(lhs_spec, rhs_spec, out_spec, strides, padding, lhs_dil, rhs_dil, fgc=1, bgc=1, auto_pad=""):
    """hlir attributes from jax-style specs (batch/out-feature first, then feature, then spatial) and
    (low, high) padding pairs (note padding_layout: all lows, then all highs)."""
    return dict(
        input_batch_dimension=lhs_spec[0], input_feature_dimension=lhs_spec[1], input_spatial_dimensions=list(lhs_spec[2:]),
        kernel_output_feature_dimension=rhs_spec[0], kernel_input_feature_dimension=rhs_spec[1],
        kernel_spatial_dimensions=list(rhs_spec[2:]),
        output_batch_dimension=out_spec[0], output_feature_dimension=out_spec[1], output_spatial_dimensions=list(out_spec[2:]),
        window_strides=list(strides), padding=[p[0] for p in padding] + [p[1] for p in padding],
        lhs_dilation=list(lhs_dil), rhs_dilation=list(rhs_dil), feature_group_count=fgc, batch_group_count=bgc,
        auto_pad=auto_pad)


def jax_conv(lhs, rhs, lhs_spec, rhs_spec, out_spec, strides, padding, lhs_dil, rhs_dil, fgc=1, bgc=1):
    dn = lax.ConvDimensionNumbers(tuple(lhs_spec), tuple(rhs_spec), tuple(out_spec))
    wide = np.float32 if lhs.dtype == np.float16 else lhs.dtype
    out = lax.conv_general_dilated(lhs.astype(wide), rhs.astype(wide), tuple(strides), list(padding),
                                   lhs_dilation=tuple(lhs_dil), rhs_dilation=tuple(rhs_dil), dimension_numbers=dn,
                                   feature_group_count=fgc, batch_group_count=bgc,
                                   precision=lax.Precision.HIGHEST)
    return np.asarray(out).astype(lhs.dtype)


def random_case(rng: np.random.Generator):
    """A random convolution: layouts, sizes, strides, paddings (negative too), dilations, group counts."""
    n = int(rng.choice([1, 2, 2, 3]))
    groups = int(rng.choice([1, 2, 3]))
    kind = rng.choice(["feature", "batch"])
    fgc, bgc = (groups, 1) if kind == "feature" else (1, groups)
    per_group_in, per_group_out = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    batch = int(rng.integers(1, 3)) * bgc
    in_features = per_group_in * fgc
    out_features = per_group_out * groups
    window = [int(rng.integers(1, 4)) for _ in range(n)]
    strides = [int(rng.integers(1, 3)) for _ in range(n)]
    lhs_dil = [int(rng.integers(1, 3)) for _ in range(n)]
    rhs_dil = [int(rng.integers(1, 3)) for _ in range(n)]
    spatial = [int(rng.integers(3, 7 if n < 3 else 5)) for _ in range(n)]
    padding = [(int(rng.integers(-1, 3)), int(rng.integers(-1, 3))) for _ in range(n)]
    lhs_spec = [int(d) for d in rng.permutation(n + 2)]
    rhs_spec = [int(d) for d in rng.permutation(n + 2)]
    out_spec = [int(d) for d in rng.permutation(n + 2)]
    lhs_shape = [0] * (n + 2)
    for d, size in zip(lhs_spec, [batch, in_features] + spatial):
        lhs_shape[d] = size
    rhs_shape = [0] * (n + 2)
    for d, size in zip(rhs_spec, [out_features, per_group_in] + window):
        rhs_shape[d] = size
    return dict(lhs_shape=lhs_shape, rhs_shape=rhs_shape, lhs_spec=lhs_spec, rhs_spec=rhs_spec, out_spec=out_spec,
                strides=strides, padding=padding, lhs_dil=lhs_dil, rhs_dil=rhs_dil, fgc=fgc, bgc=bgc)


@pytest.mark.parametrize("seed", range(25))
def test_conv_random_dimension_numbers_against_jax(seed):
    rng = np.random.default_rng(seed)
    c = random_case(rng)
    lhs = rng.standard_normal(c["lhs_shape"])
    rhs = rng.standard_normal(c["rhs_shape"])
    spec = (c["lhs_spec"], c["rhs_spec"], c["out_spec"], c["strides"], c["padding"], c["lhs_dil"], c["rhs_dil"],
            c["fgc"], c["bgc"])
    want = jax_conv(lhs, rhs, *spec)
    (got,) = conv(lhs, rhs, **attrs_for(*spec))
    assert_matches(got, want, "double", label=str(c))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_conv_every_dtype_against_jax(dtype):
    """Integers exactly, wrap-around included (values up to the type's range); float16 through float32."""
    rng = np.random.default_rng(7)
    c = random_case(rng)
    kind = ELEM_TYPES[dtype].kind
    lo, hi = (0, 255) if kind == "uint" else (-128, 127) if kind == "int" else (-4, 4)
    lhs = random_array(rng, c["lhs_shape"], dtype, lo, hi)
    rhs = random_array(rng, c["rhs_shape"], dtype, lo, hi)
    spec = (c["lhs_spec"], c["rhs_spec"], c["out_spec"], c["strides"], c["padding"], c["lhs_dil"], c["rhs_dil"],
            c["fgc"], c["bgc"])
    (got,) = conv(lhs, rhs, **attrs_for(*spec))
    assert got.dtype == np_dtype(dtype)
    assert_matches(got, jax_conv(lhs, rhs, *spec), dtype, label=dtype)


def test_conv_integer_wraps_around():
    """note numerics: int8 sums wrap (two's complement), as XLA's do."""
    lhs = np.full((1, 1, 4), 100, np.int8)
    rhs = np.full((1, 1, 4), 2, np.int8)
    (got,) = conv(lhs, rhs, **attrs_for([0, 1, 2], [0, 1, 2], [0, 1, 2], [1], [(0, 0)], [1], [1]))
    assert got.tolist() == [[[800 % 256]]]  # 4 * 100 * 2 = 800 wraps to 32


@pytest.mark.parametrize("dtype", ("float16", "float", "double", "int32", "uint8"))
def test_conv_bias_against_jax(dtype):
    """note bias_feature_dimension: bias[o] is added along the output feature dimension."""
    rng = np.random.default_rng(11)
    for _ in range(5):
        c = random_case(rng)
        lhs = random_array(rng, c["lhs_shape"], dtype)
        rhs = random_array(rng, c["rhs_shape"], dtype)
        out_features = c["rhs_shape"][c["rhs_spec"][0]]
        bias = random_array(rng, (out_features,), dtype)
        spec = (c["lhs_spec"], c["rhs_spec"], c["out_spec"], c["strides"], c["padding"], c["lhs_dil"], c["rhs_dil"],
                c["fgc"], c["bgc"])
        wide = np.float32 if dtype == "float16" else np_dtype(dtype)
        plain = jax_conv(lhs.astype(wide), rhs.astype(wide), *spec)
        shape = [1] * plain.ndim
        shape[c["out_spec"][1]] = out_features
        want = (plain + bias.astype(wide).reshape(shape)).astype(np_dtype(dtype))
        (got,) = conv_bias(lhs, rhs, bias, **attrs_for(*spec))
        assert_matches(got, want, dtype, label=str(c))


def test_conv_padding_layout_lows_then_highs():
    """note padding_layout: [x1_low, x2_low, x1_high, x2_high]; asymmetric pads show the order."""
    rng = np.random.default_rng(3)
    lhs, rhs = rng.standard_normal((1, 1, 4, 5)), rng.standard_normal((1, 1, 2, 2))
    spec = ([0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3], [1, 1])
    attrs = attrs_for(*spec, [(2, 0), (-1, 1)], [1, 1], [1, 1])
    assert attrs["padding"] == [2, -1, 0, 1]
    (got,) = conv(lhs, rhs, **attrs)
    assert got.shape == (1, 1, 5, 4)
    assert_matches(got, jax_conv(lhs, rhs, *spec, [(2, 0), (-1, 1)], [1, 1], [1, 1]), "double")


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
def test_conv_auto_pad_against_jax_padding_strings(auto_pad):
    """note auto_pad_semantics: without lhs dilation the padding is jax's 'SAME'/'SAME_LOWER'/'VALID';
    the explicit padding is replaced."""
    rng = np.random.default_rng(5)
    for _ in range(6):
        size, window, stride, dil = int(rng.integers(3, 9)), int(rng.integers(1, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        lhs, rhs = rng.standard_normal((2, 3, size)), rng.standard_normal((4, 3, window))
        want = lax.conv_general_dilated(lhs, rhs, (stride,), "SAME" if auto_pad == "SAME_UPPER" else auto_pad,
                                        rhs_dilation=(dil,), precision=lax.Precision.HIGHEST)
        (got,) = conv(lhs, rhs, **attrs_for([0, 1, 2], [0, 1, 2], [0, 1, 2], [stride], [(5, -1)], [1], [dil],
                                            auto_pad=auto_pad))
        assert_matches(got, np.asarray(want), "double", label=f"{auto_pad} {size} {window} {stride} {dil}")
        if auto_pad != "VALID":
            assert got.shape[-1] == -(-size // stride)


def test_conv_same_padding_sees_the_lhs_dilated_input():
    """note auto_pad_semantics: SAME gives ceil(((n - 1) * lhs_dilation + 1) / stride) outputs."""
    rng = np.random.default_rng(6)
    lhs, rhs = rng.standard_normal((1, 1, 4)), rng.standard_normal((1, 1, 3))
    # dilated size 7, window 3, stride 2: 4 outputs, total padding (4 - 1) * 2 + 3 - 7 = 2, one each side
    (got,) = conv(lhs, rhs, **attrs_for([0, 1, 2], [0, 1, 2], [0, 1, 2], [2], [(0, 0)], [2], [1], auto_pad="SAME_LOWER"))
    assert got.shape == (1, 1, 4)
    assert_matches(got, jax_conv(lhs, rhs, [0, 1, 2], [0, 1, 2], [0, 1, 2], [2], [(1, 1)], [2], [1]), "double")


def test_conv_empty_dimensions():
    rng = np.random.default_rng(8)
    spec = ([0, 1, 2], [0, 1, 2], [0, 1, 2], [1])
    # an empty batch, a window larger than the padded input (no output position), an empty feature dimension
    for lhs_shape, rhs_shape, padding in [((0, 2, 5), (3, 2, 2), (0, 0)), ((2, 2, 3), (3, 2, 5), (0, 1)),
                                          ((2, 0, 4), (3, 0, 2), (1, 1))]:
        lhs, rhs = rng.standard_normal(lhs_shape), rng.standard_normal(rhs_shape)
        (got,) = conv(lhs, rhs, **attrs_for(*spec, [padding], [1], [1]))
        assert_matches(got, jax_conv(lhs, rhs, *spec, [padding], [1], [1]), "double", label=str(lhs_shape))


def test_conv_group_counts_cannot_both_exceed_one():
    """note group_semantics (constraint C16 / C18)."""
    lhs, rhs = np.zeros((2, 2, 3)), np.zeros((4, 1, 1))
    attrs = attrs_for([0, 1, 2], [0, 1, 2], [0, 1, 2], [1], [(0, 0)], [1], [1], fgc=2, bgc=2)
    with pytest.raises(ValidationError, match="C16"):
        conv(lhs, rhs, **attrs)
    with pytest.raises(ValidationError, match="C18"):
        conv_bias(lhs, rhs, np.zeros(4), **attrs)


def test_conv_batch_groups_are_consecutive_blocks():
    """note group_semantics: output feature block j comes from lhs batch block j (batch / B each)."""
    lhs = np.zeros((4, 1, 1))
    lhs[:, 0, 0] = [1, 2, 3, 4]
    rhs = np.ones((2, 1, 1))
    (got,) = conv(lhs, rhs, **attrs_for([0, 1, 2], [0, 1, 2], [0, 1, 2], [1], [(0, 0)], [1], [1], bgc=2))
    assert got[:, :, 0].tolist() == [[1, 3], [2, 4]]


def _onnx_cases(op: str):
    """The onnx package's node cases of one op. Importing the op's case module records its cases
    (onnx.backend.test.case.base runs every export at class creation); collect_testcases would build
    all ~1900 cases of every op, 7 s."""
    importlib.import_module(f"onnx.backend.test.case.node.{op.lower()}")
    return [c for c in onnx_node_cases._NodeTestCases if c.model.graph.node[0].op_type == op]


@pytest.mark.parametrize("case", _onnx_cases("Conv"), ids=lambda c: c.name)
def test_conv_onnx_node_cases(case):
    """ONNX Conv (NCHW, OIHW, pads [x1_begin, x2_begin, ..., x1_end, ...], group, dilations, auto_pad) mapped
    to hlir.Conv / hlir.ConvBias."""
    node = case.model.graph.node[0]
    a = {attr.name: (list(attr.ints) if attr.ints else attr.i if attr.type == 2 else attr.s.decode())
         for attr in node.attribute}
    inputs, outputs = case.data_sets[0]
    x, w = inputs[0], inputs[1]
    n = x.ndim - 2
    spatial = list(range(2, 2 + n))
    attrs = dict(input_batch_dimension=0, input_feature_dimension=1, input_spatial_dimensions=spatial,
                 kernel_output_feature_dimension=0, kernel_input_feature_dimension=1, kernel_spatial_dimensions=spatial,
                 output_batch_dimension=0, output_feature_dimension=1, output_spatial_dimensions=spatial,
                 window_strides=a.get("strides", [1] * n), padding=a.get("pads", [0] * (2 * n)),
                 lhs_dilation=[1] * n, rhs_dilation=a.get("dilations", [1] * n),
                 feature_group_count=a.get("group", 1), batch_group_count=1, auto_pad=a.get("auto_pad", "NOTSET"))
    if len(inputs) == 3:
        (got,) = conv_bias(x, w, inputs[2], **attrs)
    else:
        (got,) = conv(x, w, **attrs)
    assert_matches(got, outputs[0], "float", label=case.name)
