"""oneDNN PReLU: the kernel and validator on cases derived from each broadcasting rule and both formats.

Expected values are computed element by element from the rule text (which slope element
applies at each src index), independently of opgen's reshape-based alignment.
"""
from __future__ import annotations

import itertools

import ml_dtypes
import numpy as np
import pytest

import opgen_ops

KERNEL = opgen_ops.get_kernel("onednn", "PReLU")
VALIDATE = opgen_ops.get_validator("onednn", "PReLU")
DTYPES = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}


def expected(src: np.ndarray, slope: np.ndarray, data_format: str, per_channel: bool) -> np.ndarray:
    out = np.empty(src.shape, np.float64)
    for idx in itertools.product(*(range(n) for n in src.shape)):
        if slope.ndim == 1:  # rules 1 and 2
            axis = (1 if data_format == "NCX" else src.ndim - 1) if per_channel else src.ndim - 1
            alpha = float(slope[idx[axis]])
        else:  # rule 3: align from the right, size-1 slope dimensions repeat
            tail = idx[src.ndim - slope.ndim:]
            alpha = float(slope[tuple(0 if n == 1 else i for i, n in zip(tail, slope.shape))])
        x = float(src[idx])
        out[idx] = x if x >= 0 else alpha * x
    return out


CASES = [
    # (rule, src shape, slope shape, data_format, per_channel_broadcast)
    ("rule1-NCX", (2, 3, 4, 5), (3,), "NCX", True),
    ("rule1-NXC", (2, 4, 5, 3), (3,), "NXC", True),
    ("rule1-NCX-2d", (4, 6), (6,), "NCX", True),
    ("rule2-NCX", (2, 3, 4, 5), (5,), "NCX", False),
    ("rule2-NXC", (2, 3, 4, 5), (5,), "NXC", False),
    ("rule3-full", (2, 3, 4), (2, 3, 4), "NXC", True),
    ("rule3-ones", (2, 3, 4), (3, 1), "NCX", True),
    ("rule3-shorter", (2, 3, 4), (3, 4), "NXC", False),
    ("rule3-scalar-like", (2, 3, 4), (1, 1), "NCX", True),
]


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("rule,src_shape,slope_shape,fmt,per_channel", CASES, ids=[c[0] for c in CASES])
def test_kernel_follows_rule(rule, src_shape, slope_shape, fmt, per_channel, dtype):
    rng = np.random.default_rng(len(rule))
    np_dtype = DTYPES[dtype]
    src = rng.standard_normal(src_shape).astype(np_dtype)
    slope = rng.uniform(-2, 2, slope_shape).astype(np_dtype)
    assert VALIDATE([src, slope], {"data_format": fmt, "per_channel_broadcast": per_channel}) == []
    (dst,) = KERNEL(src, slope, data_format=fmt, per_channel_broadcast=per_channel)
    assert dst.dtype == np_dtype and dst.shape == src_shape
    want = expected(src, slope, fmt, per_channel).astype(np_dtype)  # computed wide, rounded once
    np.testing.assert_array_equal(dst, want)


@pytest.mark.parametrize("src_shape,slope_shape,fmt,per_channel,fragment", [
    ((2, 3, 4), (4,), "NCX", True, "channel dimension (axis 1 for NCX)"),   # rule 1: channels are 3
    ((2, 3, 4), (3,), "NXC", True, "channel dimension (axis 2 for NXC)"),   # NXC channels are last (4)
    ((2, 3, 4), (3,), "NCX", False, "rightmost dimension"),                 # rule 2 wants 4
    ((2, 3, 4), (2, 4), "NCX", True, "rule 3"),                             # 2 != 3
])
def test_validator_rejects_each_rule_violation(src_shape, slope_shape, fmt, per_channel, fragment):
    problems = VALIDATE([("float", src_shape), ("float", slope_shape)],
                        {"data_format": fmt, "per_channel_broadcast": per_channel})
    assert len(problems) == 1 and fragment in str(problems[0]), [str(p) for p in problems]


def test_defaults_are_nxc_and_per_channel():
    src = np.array([[[-1.0, -1.0], [-1.0, -1.0]]], np.float32)
    (dst,) = KERNEL(src, np.array([2.0, 3.0], np.float32))
    np.testing.assert_array_equal(dst, [[[-2.0, -3.0], [-2.0, -3.0]]])


def test_rejects_s8_and_bad_format():
    problems = VALIDATE([("int8", (2, 3)), ("int8", (3,))], {"data_format": "NHWC"})
    text = " ".join(map(str, problems))
    assert "dtype int8 is not allowed" in text and "value 'NHWC' is not allowed; allowed: NCX, NXC" in text
