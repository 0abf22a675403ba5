"""opgen's PReLU verdicts against oneDNN's own acceptance rules (tests/onednn_prelu_rules.py).

A grid of src shapes of rank 0 to 5 (with unknown dimensions), slopes of every rank, both data
formats, both per_channel_broadcast values and several stated dst shapes: the validator must give
the library's verdict, and on every concrete case the kernel must compute what the library computes
(or refuse with a ValidationError where the library refuses). Then the 60 PReLU configurations of
benchdnn's graph harness files, each of which oneDNN runs.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from onednn_prelu_rules import accepts, library_dst, library_slope_view, rule3_view

import opgen_ops
from opgen.runtime.validation import ValidationError

VALIDATE = opgen_ops.get_validator("onednn", "PReLU")
KERNEL = opgen_ops.get_kernel("onednn", "PReLU")
ATTRIBUTES = [(fmt, per_channel) for fmt in ("NCX", "NXC") for per_channel in (True, False)]
# Distinct dimensions, so that a slope read along the wrong axis cannot pass by accident.
BASES = [(), (3,), (2, 3), (2, 3, 4), (2, 3, 4, 5), (2, 3, 4, 5, 6), (4, 3, 3)]


def with_unknown(shape: tuple, axes: tuple) -> tuple:
    return tuple(None if k in axes else d for k, d in enumerate(shape))


def src_variants(base: tuple) -> list[tuple]:
    """The base, and the base with its first, second (NCX's channel), last, or first and last
    dimensions unknown."""
    rank = len(base)
    axes = {(0,), (1,), (rank - 1,), (0, rank - 1)} if rank else set()
    return [base] + [with_unknown(base, a) for a in sorted(axes) if all(0 <= k < rank for k in a)]


def slope_variants(base: tuple) -> list[tuple]:
    """Slopes of every rank: scalar, 1-D of each interesting length (one, NCX's channel, the last, a
    mismatch, unknown), then for each rank 2 to rank+1 the matching suffix, the suffix with its first
    dimension 1, with a mismatch, and with an unknown first dimension."""
    rank = len(base)
    out = [(), (1,), (7,), (None,)]
    if rank:
        out += [(base[-1],)] + ([(base[1],)] if rank >= 2 else [])
    for k in range(2, rank + 2):
        suffix = ((1,) + base)[-k:] if k > rank else base[-k:]
        out += [suffix, (1,) + suffix[1:], (7,) + suffix[1:], (None,) + suffix[1:]]
    return list(dict.fromkeys(out))


def dst_variants(base: tuple) -> list[tuple | None]:
    """No stated dst; src's shape; all dimensions unknown; a different last dimension; another rank."""
    out: list[tuple | None] = [None, base, tuple(None for _ in base), base + (1,)]
    if base:
        out.append(base[:-1] + (base[-1] + 1,))
    return out


def grid():
    for base in BASES:
        for src in src_variants(base):
            for slope in slope_variants(base):
                for fmt, per_channel in ATTRIBUTES:
                    for dst in dst_variants(base) if slope in ((), (7,), base[-1:]) else [None, base]:
                        yield base, src, slope, dst, fmt, per_channel


def pair(shape):
    return None if shape is None else ("float", shape)


def opgen_accepts(src, slope, dst, fmt, per_channel) -> bool:
    outputs = None if dst is None else [pair(dst)]
    problems = VALIDATE([pair(src), pair(slope)], {"data_format": fmt, "per_channel_broadcast": per_channel},
                        outputs)
    assert all("could not be" not in str(p) for p in problems), problems
    return not problems


def placement_differs(src_rank: int, slope: tuple, fmt: str, per_channel: bool) -> bool:
    """Where document 002 decides against the library: rule 3 aligns an nD slope from the rightmost
    dimension, while oneDNN's unsqueeze pass (meant for rule 1) puts the second missing axis of an NCX
    per-channel PReLU at the end, moving the slope off that alignment. Only slopes of rank >= 2 that
    are at least two dimensions short of src, not all ones, are affected (spec note
    nd_slope_placement)."""
    return library_slope_view(src_rank, slope, fmt, per_channel) != rule3_view(src_rank, slope, fmt, per_channel)


def test_validator_gives_the_library_verdict_on_the_grid():
    cases = list(grid())
    disagreements = [c[1:] for c in cases if opgen_accepts(*c[1:]) != accepts(*c[1:])]
    assert disagreements == []
    verdicts = [accepts(*c[1:]) for c in cases]
    assert len(cases) > 2000 and 0.25 < sum(verdicts) / len(cases) < 0.75  # both verdicts well represented


def test_kernel_computes_what_the_library_computes():
    rng = np.random.default_rng(0)
    differs = []
    for base, src, slope, dst, fmt, per_channel in grid():
        if dst is not None or src != base or None in slope:
            continue  # concrete shapes only
        x = rng.uniform(-2, 2, base).astype(np.float32)
        alpha = rng.uniform(-2, 2, slope).astype(np.float32)
        attrs = {"data_format": fmt, "per_channel_broadcast": per_channel}
        if not accepts(base, slope, None, fmt, per_channel):
            with pytest.raises(ValidationError):
                KERNEL(x, alpha, **attrs)
            continue
        (got,) = KERNEL(x, alpha, **attrs)
        assert got.shape == base and got.dtype == np.float32
        if placement_differs(len(base), slope, fmt, per_channel):
            differs.append((base, slope, fmt, per_channel))
            view = alpha.reshape(rule3_view(len(base), slope, fmt, per_channel))  # the document's placement
            want = np.where(x >= 0, x, view * x)
        else:
            want = library_dst(x, alpha, fmt, per_channel).astype(np.float32)
        np.testing.assert_array_equal(got, want, err_msg=f"{base} {slope} {fmt} {per_channel}")
    # The listed disagreements, and nothing else: NCX per-channel slopes of rank >= 2, two or more short.
    assert differs and all(fmt == "NCX" and per_channel and len(s) >= 2 and len(b) - len(s) >= 2
                           and set(s) != {1} for b, s, fmt, per_channel in differs)


@pytest.mark.parametrize("src,slope,per_channel,fragment", [
    ((3,), (1,), False, None),                       # benchdnn's --in-shapes=0:3+1:1
    ((3,), (3,), True, None),                        # a 1-D src: NCX has no axis 1, rule 2 applies
    ((3,), (1,), True, None),
    ((2, 3, 4), (1,), True, "channel dimension (axis 1 for NCX)"),  # per channel: exactly the channel count
    ((2, 3, 4), (1,), False, None),                  # one slope for everything
    ((), (), True, "src is a scalar"),
    ((2, 3), (), True, "slope is a scalar"),
    ((2, 3), (1, 2, 3), True, "more dimensions than src"),
    ((None, 3, None), (4,), True, "channel dimension (axis 1 for NCX) of src shape [?, 3, ?]"),
    ((None, None, None), (4,), True, None),          # the channel count may still be 4
])
def test_rule_messages(src, slope, per_channel, fragment):
    problems = VALIDATE([pair(src), pair(slope)], {"data_format": "NCX", "per_channel_broadcast": per_channel})
    assert accepts(src, slope, None, "NCX", per_channel) == (fragment is None)
    if fragment is None:
        assert problems == []
    else:
        assert len(problems) == 1 and fragment in str(problems[0]), problems


def test_dst_is_tied_to_src():
    attrs = {"data_format": "NCX", "per_channel_broadcast": True}
    for dst in [(2, 3), (None, 3, 4, 1), (2, 3, 5)]:
        (problem,) = VALIDATE([pair((None, 3, 4)), pair((3,))], attrs, [pair(dst)])
        assert problem.where == "constraint C2" and "is not src shape [?, 3, 4]" in problem.message
    assert VALIDATE([pair((None, 3, 4)), pair((3,))], attrs, [pair((7, 3, None))]) == []
    # dst states the dimension src leaves unknown: the slope is checked against it
    (problem,) = VALIDATE([pair((2, 3, None)), pair((5,))], {**attrs, "per_channel_broadcast": False},
                          [pair((2, 3, 4))])
    assert problem.where == "constraint C1" and "src shape [2, 3, ?] (dst gives [2, 3, 4])" in problem.message


# benchdnn's PReLU runs: tests/benchdnn/inputs/graph/op/<harness file>:<line>, data type, --op-attrs and
# --in-shapes (input 0 is src, 1 the slope; the memory tag after * is a layout). Every one starts from
# op/f32/prelu.json: src and slope 4x16x3x4, data_format NCX, per_channel_broadcast false.
BENCHDNN = """
    harness_f32_all:138 f32 - -
    harness_f32_all:139 f32 per_channel_broadcast:1 -
    harness_f32_all:140 f32 data_format:NXC -
    harness_f32_all:232 f32 - 0:4x16x3x4+1:1x16x1x1
    harness_f32_all:233 f32 - 0:4x16x3x4+1:1x1x1x1
    harness_f32_all:234 f32 - 0:4x16x3x4+1:4x16x3x4
    harness_f32_all:235 f32 - 0:4x16x3x4+1:4x1x1x4
    harness_f32_all:652 f32 - 0:4x16x3x4*acdb+1:1x16x1x1*acdb
    harness_f32_all:653 f32 - 0:4x16x3x4*acdb+1:1x1x1x1*acdb
    harness_f32_all:654 f32 - 0:4x16x3x4*acdb+1:4x16x3x4*acdb
    harness_f32_all:655 f32 - 0:4x16x3x4*acdb+1:4x1x1x4*acdb
    harness_f32_all:656 f32 - 0:3+1:1
    harness_f32_all:657 f32 - 0:3+1:3
    harness_f32_all:658 f32 - 0:3x64x8*acb+1:1x1x1*acb
    harness_f32_all:659 f32 - 0:3x64x8*acb+1:1x64x1*acb
    harness_f32_all:660 f32 - 0:3x64x8*acb+1:3x1x8*acb
    harness_f32_all:661 f32 - 0:3x64x8*acb+1:3x64x8*acb
    harness_f32_all:662 f32 - 0:2x7x5x3x2+1:1x1x1x1x1
    harness_f32_all:663 f32 - 0:2x7x5x3x2+1:1x7x1x1x1
    harness_f32_all:664 f32 - 0:2x7x5x3x2+1:2x1x5x1x2
    harness_f32_all:665 f32 - 0:2x7x5x3x2+1:2x7x5x3x2
    harness_f32_all:666 f32 - 0:2x7x5x3x2*acdeb+1:1x1x1x1x1*acdeb
    harness_f32_all:667 f32 - 0:2x7x5x3x2*acdeb+1:1x7x1x1x1*acdeb
    harness_f32_all:668 f32 - 0:2x7x5x3x2*acdeb+1:2x1x5x1x2*acdeb
    harness_f32_all:669 f32 - 0:2x7x5x3x2*acdeb+1:2x7x5x3x2*acdeb
    harness_f32_all:670 f32 - 0:3x64*ab+1:1x1*ab
    harness_f32_all:671 f32 - 0:3x64*ab+1:1x64*ab
    harness_f32_all:672 f32 - 0:3x64*ab+1:3x1*ab
    harness_f32_all:673 f32 - 0:3x64*ab+1:3x64*ab
    harness_f32_all:674 f32 - 0:3x64+1:1x1
    harness_f32_all:675 f32 - 0:3x64+1:1x64
    harness_f32_all:676 f32 - 0:3x64+1:3x1
    harness_f32_all:677 f32 - 0:3x64+1:3x64
    harness_f32_all:678 f32 - 0:2x7x5x3x2*abcde+1:1x1x1x1x1*abcde
    harness_f32_all:679 f32 - 0:2x7x5x3x2*abcde+1:1x7x1x1x1*abcde
    harness_f32_all:680 f32 - 0:2x7x5x3x2*abcde+1:2x1x5x1x2*abcde
    harness_f32_all:681 f32 - 0:2x7x5x3x2*abcde+1:2x7x5x3x2*abcde
    harness_f32_all:682 f32 - 0:3x64x8*abc+1:1x1x1*abc
    harness_f32_all:683 f32 - 0:3x64x8*abc+1:1x64x1*abc
    harness_f32_all:684 f32 - 0:3x64x8*abc+1:3x1x8*abc
    harness_f32_all:685 f32 - 0:3x64x8*abc+1:3x64x8*abc
    harness_f32_all:686 f32 - 0:3x64x8+1:1x1x1
    harness_f32_all:687 f32 - 0:3x64x8+1:1x64x1
    harness_f32_all:688 f32 - 0:3x64x8+1:3x1x8
    harness_f32_all:689 f32 - 0:3x64x8+1:3x64x8
    harness_f32_all:690 f32 - 0:4x16x3x4*abcd+1:1x16x1x1*abcd
    harness_f32_all:691 f32 - 0:4x16x3x4*abcd+1:1x1x1x1*abcd
    harness_f32_all:692 f32 - 0:4x16x3x4*abcd+1:4x16x3x4*abcd
    harness_f32_all:693 f32 - 0:4x16x3x4*abcd+1:4x1x1x4*abcd
    harness_f32_all:694 f32 - 0:4x16x3x4+1:1x16x1x1
    harness_f32_all:695 f32 - 0:4x16x3x4+1:1x1x1x1
    harness_f32_all:696 f32 - 0:4x16x3x4+1:4x16x3x4
    harness_f32_all:697 f32 - 0:4x16x3x4+1:4x1x1x4
    harness_f32_ci:31 f32 per_channel_broadcast:1 -
    harness_bf16_all:97 bf16 - -
    harness_bf16_all:98 bf16 per_channel_broadcast:1 -
    harness_bf16_all:99 bf16 data_format:NXC -
    harness_f16_all:96 f16 - -
    harness_f16_all:97 f16 per_channel_broadcast:1 -
    harness_f16_all:98 f16 data_format:NXC -
"""


def benchdnn_cases():
    for line in BENCHDNN.strip().splitlines():
        where, dtype, attrs, shapes = line.split()
        src, slope, fmt, per_channel = (4, 16, 3, 4), (4, 16, 3, 4), "NCX", False
        if attrs != "-":
            name, value = attrs.split(":")
            fmt, per_channel = (value, per_channel) if name == "data_format" else (fmt, value == "1")
        for part in shapes.split("+") if shapes != "-" else []:
            index, dims = part.split(":")
            shape = tuple(int(d) for d in dims.split("*")[0].split("x"))
            src, slope = (shape, slope) if index == "0" else (src, shape)
        yield where, dtype, src, slope, fmt, per_channel


def test_benchdnn_configurations():
    cases = list(benchdnn_cases())
    assert len(cases) == 60
    numpy_types = {"f32": np.float32, "bf16": ml_dtypes.bfloat16, "f16": np.float16}
    rng = np.random.default_rng(1)
    for where, dtype, src, slope, fmt, per_channel in cases:
        assert accepts(src, slope, src, fmt, per_channel), where  # oneDNN runs every one of them
        elem = {"f32": "float", "bf16": "bfloat16", "f16": "float16"}[dtype]
        assert VALIDATE([(elem, src), (elem, slope)], {"data_format": fmt, "per_channel_broadcast": per_channel},
                        [(elem, src)]) == [], where
        x = rng.uniform(-2, 2, src).astype(numpy_types[dtype])
        alpha = rng.uniform(-2, 2, slope).astype(numpy_types[dtype])
        (got,) = KERNEL(x, alpha, data_format=fmt, per_channel_broadcast=per_channel)
        np.testing.assert_array_equal(got, library_dst(x, alpha, fmt, per_channel).astype(x.dtype), err_msg=where)
