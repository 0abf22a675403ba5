"""Output shapes of oneDNN ConvTranspose, ConvTransposeBackwardData and Interpolate, checked against torch
on CPU: the shape torch's own operation gives is accepted and a shape one off is reported at the output.

The layouts are oneDNN's: data NCX or NXC (channels last), weights IOX (input channels, output channels
per group, spatial: torch's conv_transpose layout) or XOI (spatial, output channels per group, input
channels).
"""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
import torch.nn.functional as tf

import opgen_ops


def _validate(op: str, inputs: list[tuple[int, ...]], attrs: dict[str, Any], out: tuple[int, ...]) -> list[Any]:
    validate = opgen_ops.get_validator("onednn", op, 1)
    problems: list[Any] = validate([("float", s) for s in inputs], attrs, [("float", tuple(out))])
    return problems


def _nxc(shape: tuple[int, ...]) -> tuple[int, ...]:
    return (shape[0], *shape[2:], shape[1])


def _xoi(iox: tuple[int, ...]) -> tuple[int, ...]:
    return (*iox[2:], iox[1], iox[0])


def _assert_shape(op: str, inputs: list[tuple[int, ...]], attrs: dict[str, Any], want: tuple[int, ...]) -> None:
    assert _validate(op, inputs, attrs, want) == []
    for wrong in ((want[0], want[1] + 1, *want[2:]), (*want[:-1], want[-1] + 1)):
        problems = _validate(op, inputs, attrs, wrong)
        assert [p.where for p in problems] == [f"output '{'diff_src' if 'Backward' in op else 'dst'}'"], problems


# (src NCX shape, torch weights shape (Cin, Cout/groups, k...), groups, strides, dilations, pads, output_padding)
TRANSPOSED = [
    ((2, 4, 5, 6), (4, 3, 3, 3), 1, (1, 1), (1, 1), (0, 0), (0, 0)),
    ((1, 6, 4, 5), (6, 2, 3, 2), 3, (2, 3), (1, 2), (1, 0), (1, 2)),
    ((2, 4, 7), (4, 5, 4), 2, (3,), (2,), (2,), (1,)),
    ((1, 2, 3, 4, 5), (2, 2, 2, 3, 2), 1, (2, 1, 2), (1, 1, 2), (1, 1, 0), (0, 0, 1)),
]


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
@pytest.mark.parametrize("weights_format", ["IOX", "XOI"])
@pytest.mark.parametrize("case", TRANSPOSED, ids=lambda c: "x".join(map(str, c[0])))
def test_conv_transpose_shapes_are_torchs(case: tuple[Any, ...], data_format: str, weights_format: str) -> None:
    src, weights, groups, strides, dilations, pads, output_padding = case
    conv = {1: tf.conv_transpose1d, 2: tf.conv_transpose2d, 3: tf.conv_transpose3d}[len(src) - 2]
    out = conv(torch.zeros(src), torch.zeros(weights), stride=strides, padding=pads, output_padding=output_padding,
               groups=groups, dilation=dilations).shape
    attrs = {"strides": list(strides), "dilations": list(dilations), "pads_begin": list(pads), "pads_end": list(pads),
             "groups": groups, "data_format": data_format, "weights_format": weights_format}
    layout = (lambda s: s) if data_format == "NCX" else _nxc
    w = weights if weights_format == "IOX" else _xoi(weights)
    _assert_shape("ConvTranspose", [layout(src), w], {**attrs, "output_padding": list(output_padding)},
                  layout(tuple(out)))
    # backward data: diff_src has the forward src's shape (output_padding, which it has no attribute for, aside)
    forward = conv(torch.zeros(src), torch.zeros(weights), stride=strides, padding=pads, groups=groups,
                   dilation=dilations).shape
    _assert_shape("ConvTransposeBackwardData", [layout(tuple(forward)), w], attrs, layout(src))


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER", "VALID"])
def test_conv_transpose_auto_pad(auto_pad: str) -> None:
    # SAME pads (dilated kernel - stride) in all, so that dst is src * stride; VALID is torch's padding 0.
    src, weights = (1, 2, 5, 4), (2, 3, 3, 5)
    attrs = {"strides": [2, 3], "dilations": [1, 1], "pads_begin": [7, 7], "pads_end": [7, 7], "groups": 1,
             "data_format": "NCX", "weights_format": "IOX", "auto_pad": auto_pad}
    valid = tuple(tf.conv_transpose2d(torch.zeros(src), torch.zeros(weights), stride=(2, 3)).shape)
    _assert_shape("ConvTranspose", [src, weights], attrs, valid if auto_pad == "VALID" else (1, 3, 10, 12))
    # the data gradient of a SAME convolution over diff_dst: torch's padding="same" keeps the size at stride 1
    attrs = {**attrs, "strides": [1, 1]}
    _assert_shape("ConvTransposeBackwardData", [(1, 3, 10, 12), weights], attrs,
                  (1, 2, 8, 8) if auto_pad == "VALID" else (1, 2, 10, 12))
    same = tf.conv2d(torch.zeros(1, 3, 10, 12), torch.zeros(2, 3, 3, 5), padding="same" if auto_pad != "VALID" else 0)
    assert tuple(same.shape) == ((1, 2, 8, 8) if auto_pad == "VALID" else (1, 2, 10, 12))


@pytest.mark.parametrize("data_format", ["NCX", "NXC"])
@pytest.mark.parametrize("given", [{"sizes": [7, 3]}, {"scales": [1.5, 0.5]}, {"scales": [2.0, 1.7]}])
def test_interpolate_shapes_are_torchs(data_format: str, given: dict[str, list[Any]]) -> None:
    src = (2, 3, 5, 7)
    if "sizes" in given:
        out = tf.interpolate(torch.zeros(src), size=given["sizes"], mode="nearest").shape
    else:
        out = tf.interpolate(torch.zeros(src), scale_factor=given["scales"], mode="nearest").shape
    layout = (lambda s: s) if data_format == "NCX" else _nxc
    _assert_shape("Interpolate", [layout(src)], {"mode": "nearest", "data_format": data_format, **given},
                  layout(tuple(out)))


def test_interpolate_sizes_from_the_input() -> None:
    sizes = np.array([4, 9], np.int32)
    out = tuple(tf.interpolate(torch.zeros(1, 2, 3, 3), size=[4, 9]).shape)
    validate = opgen_ops.get_validator("onednn", "Interpolate", 1)
    attrs = {"mode": "nearest", "data_format": "NCX"}
    assert validate([("float", (1, 2, 3, 3)), sizes], attrs, [("float", out)]) == []
    assert validate([("float", (1, 2, 3, 3)), sizes], attrs, [("float", (1, 2, 4, 8))])


def test_convolution_with_empty_pads_has_unpadded_sizes() -> None:
    # the library's shape inference reads empty pads as zeros
    attrs = {"strides": [2, 1], "dilations": [1, 1], "pads_begin": [], "pads_end": [], "data_format": "NCX",
             "weights_format": "OIX"}
    out = tuple(tf.conv2d(torch.zeros(1, 3, 7, 6), torch.zeros(4, 3, 3, 2), stride=(2, 1)).shape)
    _assert_shape("Convolution", [(1, 3, 7, 6), (4, 3, 3, 2)], attrs, out)
