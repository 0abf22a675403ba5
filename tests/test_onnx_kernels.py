"""The generated ONNX kernels agree with onnx.reference and onnxruntime, version by version."""
from __future__ import annotations

import numpy as np
import pytest

import opgen_ops
from onnx_refs import assert_close, node_model, random_input, run_onnxruntime, run_reference

from conftest import project_specs

ONNX = project_specs().domain("onnx")

# Slope shapes against X of shape (2, 3, 4): unidirectional broadcasting (PRelu-7+).
BROADCAST_SLOPES = [(), (1,), (4,), (3, 1), (3, 4), (1, 3, 4), (2, 3, 4), (1, 1, 1)]
# PRelu-1/6: shared (size 1), per channel (1-D, axis 1: 3 channels) or broadcastable ((4,)).
LEGACY_SLOPES = [(1,), (3,), (1, 1, 1), (4,)]

# onnxruntime (1.31, CPU) has no kernel for these (op, since_version, dtype); they are compared with
# onnx.reference only. Measured, not guessed: the test fails if onnxruntime gains or loses one.
ORT_GAPS = {("PRelu", 16, "bfloat16"), ("PRelu", 16, "uint64"), ("PRelu", 9, "double"), ("PRelu", 9, "int32"),
            ("PRelu", 9, "int64"), ("PRelu", 9, "uint32"), ("PRelu", 9, "uint64"), ("PRelu", 7, "double"),
            ("Elu", 22, "bfloat16"), ("Elu", 22, "double"), ("Elu", 6, "double")}


def cases():
    for op in ONNX.ops:
        for v in op.versions:
            if op.name not in ("PRelu", "Elu"):  # the kernels this module compares (the seed ops')
                continue
            for t in v.type_constraints[0].types:
                yield pytest.param(op.name, v.since_version, t[7:-1], id=f"{op.name}-{v.since_version}-{t[7:-1]}")


def compare(op, version, dtype, inputs, attrs, names, ort_results):
    kernel = opgen_ops.get_kernel("onnx", op, version)
    (got,) = kernel(*inputs, **attrs)
    model = node_model(op, version, dtype, names, attrs)
    feeds = dict(zip(names, inputs))
    assert_close(got, run_reference(model, feeds), dtype, f"onnx.reference {op}-{version} {dtype}")
    if version >= 7:
        ort = run_onnxruntime(model, feeds)
        ort_results.append(ort is not None)
        if ort is not None:
            assert_close(got, ort, dtype, f"onnxruntime {op}-{version} {dtype}")


@pytest.mark.parametrize("op,version,dtype", list(cases()))
def test_kernel_matches_references(op, version, dtype):
    rng = np.random.default_rng(version * 31 + len(dtype))
    x = random_input(rng, (2, 3, 4), dtype)
    ran_ort: list[bool] = []
    if op == "PRelu":
        for shape in BROADCAST_SLOPES if version >= 7 else LEGACY_SLOPES:
            slope = random_input(rng, shape, dtype)
            compare(op, version, dtype, [x, slope], {}, ["X", "slope"], ran_ort)
    else:
        for alpha in (1.0, 0.0, 0.5, 2.5):
            compare(op, version, dtype, [x], {"alpha": alpha}, ["X"], ran_ort)
        compare(op, version, dtype, [x], {}, ["X"], ran_ort)  # the default alpha
    if version >= 7:
        # onnxruntime must run every case except the pinned gaps, so coverage cannot silently shrink.
        assert all(ran_ort) == ((op, version, dtype) not in ORT_GAPS), ran_ort


@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 0, 3)])
def test_prelu_rank0_and_empty(shape):
    x = np.linspace(-2, 2, int(np.prod(shape))).reshape(shape).astype(np.float32)
    slope = np.array(0.25, np.float32)
    compare("PRelu", 16, "float", [x, slope], {}, ["X", "slope"], [])


def test_prelu_legacy_rejects_channel_mismatch():
    kernel = opgen_ops.get_kernel("onnx", "PRelu", 6)
    with pytest.raises(ValueError, match="channel count"):
        kernel(np.ones((2, 3, 4), np.float32), np.ones(5, np.float32))


@pytest.mark.parametrize("version", [1, 6])
def test_prelu_legacy_channel_slope_where_onnx_reference_differs(version):
    """Note legacy_slope: for X (2, 3, 3) and slope (3,) opgen applies slope[c] along axis 1 (the
    channels), while onnx.reference's NumPy broadcasting applies it along the last axis. The test runs
    onnx.reference, so it fails if either behaviour changes, and checks that the note says so."""
    x = -np.ones((2, 3, 3), np.float32)
    slope = np.array([1.0, 2.0, 3.0], np.float32)
    (got,) = opgen_ops.get_kernel("onnx", "PRelu", version)(x, slope)
    per_channel = [[-1.0, -1.0, -1.0], [-2.0, -2.0, -2.0], [-3.0, -3.0, -3.0]]
    np.testing.assert_array_equal(got, [per_channel, per_channel])
    reference = run_reference(node_model("PRelu", version, "float", ["X", "slope"], {}), {"X": x, "slope": slope})
    last_axis = [[-1.0, -2.0, -3.0]] * 3
    np.testing.assert_array_equal(reference, [last_axis, last_axis])
    note = next(n for n in ONNX.op("PRelu").all_notes() if n.id == "legacy_slope")
    for text in (note.text.en, note.text.zh):
        assert "(2, 3, 3)" in text and "(3,)" in text
    assert "onnx.reference applies it along the last axis" in note.text.en
    assert "agree whenever that dimension is axis 1" not in note.text.en


def test_prelu7_rejects_non_unidirectional_slope():
    kernel = opgen_ops.get_kernel("onnx", "PRelu", 7)
    with pytest.raises(ValueError, match="does not broadcast"):
        kernel(np.ones((3,), np.float32), np.ones((2, 3), np.float32))


def test_explicit_zero_alpha_is_kept():
    (y,) = opgen_ops.get_kernel("onnx", "Elu", 22)(np.array([-1.0, 1.0], np.float32), alpha=0.0)
    assert y[0] == 0.0 and y[1] == 1.0


def test_float16_computed_in_float32_and_rounded_once():
    x = np.array([-0.1, -3.0, -7.5, 0.3], np.float16)
    (y,) = opgen_ops.get_kernel("onnx", "Elu", 6)(x, alpha=1.3)
    want = (1.3 * np.expm1(x.astype(np.float64))).astype(np.float16)
    want[3] = x[3]
    np.testing.assert_array_equal(y, want)


@pytest.mark.parametrize("requested,resolved", [(1, 1), (5, 1), (6, 6), (8, 7), (9, 9), (15, 9), (16, 16), (99, 16)])
def test_version_resolution_is_opset_like(requested, resolved):
    assert opgen_ops.resolve_version("onnx", "PRelu", requested) == resolved


def test_unknown_op_and_version_are_clear():
    with pytest.raises(LookupError, match=r"no spec for onnx.Prelu \(did you mean PRelu"):
        opgen_ops.get_kernel("onnx", "Prelu")
    with pytest.raises(LookupError, match="no version <= 0"):
        opgen_ops.get_kernel("onnx", "PRelu", 0)
