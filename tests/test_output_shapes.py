"""Every op states its results: from each valid use the specs hold (every example of every op
version), a wrong declared output shape (a dimension changed, a dimension added) must be reported
at that output, and the right one accepted. An output whose shape no spec states yet is listed,
with its reason, in tests/known_failures.txt; that list can only shrink."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import opgen_ops
from opgen.model import plain_value
from opgen.testing import example_array

from conftest import project_specs

KNOWN = Path(__file__).with_name("known_failures.txt")
SPEC_SET = project_specs()


def known_gaps(kind: str = "output-shape") -> dict[str, str]:
    """`<kind> <key>: reason` lines of the known-failures file."""
    gaps = {}
    for line in KNOWN.read_text(encoding="utf-8").splitlines():
        if line.startswith(kind + " "):
            key, reason = line[len(kind) + 1:].split(": ", 1)
            gaps[key] = reason
    return gaps


def uses():
    for op in SPEC_SET.ops():
        for v in op.versions:
            for e in v.examples:
                yield pytest.param(v, e, id=f"{v.key}-{e.name}")


def _elem(p, e) -> str:
    return p.type[7:-1] if p.is_fixed else dict(e.dtypes).get(p.name, e.dtype)


def _infos(params, values: dict, e, constant: bool = False) -> list:
    """(dtype, shape) of each value, or with `constant` the arrays themselves (the inputs, as a model
    gives small constants: shapes that read an input's values, values(x), are then known)."""
    out = []
    for p in params:
        if p.name not in values:
            out.append(None)
            continue
        arrays = [example_array(t, _elem(p, e)) for t in values[p.name]] if p.option == "variadic" else \
            [example_array(values[p.name], _elem(p, e))]
        out += arrays if constant else [(_elem(p, e), a.shape) for a in arrays]
    while out and out[-1] is None:
        out.pop()
    return out


_plain = plain_value  # lists for tuples, dicts for mappings (graph attributes)


@pytest.mark.parametrize("v, e", list(uses()))
def test_a_wrong_output_shape_is_reported_at_its_output(v, e):
    validate = opgen_ops.get_validator(v.domain, v.op, v.since_version)
    inputs = _infos(v.inputs, {k: _plain(x) for k, x in e.inputs}, e, constant=True)
    outputs_given = {k: _plain(x) for k, x in e.outputs}
    attributes = {k: _plain(x) for k, x in e.attributes}
    right = _infos(v.outputs, outputs_given, e)
    problems = validate(inputs, attributes, right)
    if f"{v.key} {e.name}" in known_gaps("example-shape"):  # listed: must still fail, or leave the list
        assert problems, f"{v.key} {e.name} passes now: remove it from {KNOWN.name}"
        return
    assert problems == [], f"the example's output shapes must be valid: {[str(p) for p in problems]}"
    gaps = known_gaps()
    start = 0  # position in `right` of the output's first value (a variadic output holds several)
    for p in v.outputs:
        n = len(outputs_given[p.name]) if p.option == "variadic" and p.name in outputs_given else 1
        positions, start = list(range(start, start + n)), start + n
        if p.name not in outputs_given or positions[-1] >= len(right) or right[positions[0]] is None:
            continue
        key = f"{v.key} {p.name}"
        if v.output_shape(p) is None:
            assert key in gaps, f"{key}: the spec states no shape for this output; state it (outputs[].shape) " \
                                f"or list it in {KNOWN.name} with the reason"
            continue
        assert key not in gaps, f"{key} states its shape now: remove it from {KNOWN.name}"
        k = positions[-1]  # of a variadic output, its last element
        dtype, shape = right[k]
        for wrong in ((*shape, 1), (shape[0] + 1, *shape[1:]) if shape else (2,)):
            declared = list(right)
            declared[k] = (dtype, tuple(wrong))
            problems = validate(inputs, attributes, declared)
            # The right shape passed, so any problem now is this output's: reported at the output by
            # its shape function, or by a numbered constraint that ties the output to the inputs.
            assert problems, f"{key}: declared shape {wrong} (the op gives {shape}) was not reported"


def test_every_version_without_an_example_is_listed():
    """Ops with no example have no valid use to derive from: listed, so that the list shows them
    (one line per output, or one `output-shape-op` line for an op none of whose shapes is stated yet)."""
    gaps, whole_ops = known_gaps(), known_gaps("output-shape-op")
    missing = [f"{v.key} {p.name}" for op in SPEC_SET.ops() for v in op.versions if not v.examples
               for p in v.outputs if v.output_shape(p) is None and f"{v.key} {p.name}" not in gaps
               and f"{v.domain}.{v.op}" not in whole_ops]
    assert missing == [], f"list these in {KNOWN.name} (no example, no stated shape): {missing}"


def test_the_known_failures_name_real_outputs():
    names = {f"{v.key} {p.name}" for op in SPEC_SET.ops() for v in op.versions for p in v.outputs}
    assert sorted(set(known_gaps()) - names) == []


def test_ops_listed_whole_still_state_no_shape():
    """An `output-shape-op` line goes once the op states any output shape (then list outputs one by one)."""
    stated = {f"{v.domain}.{v.op}" for op in SPEC_SET.ops() for v in op.versions
              if any(v.output_shape(p) is not None for p in v.outputs) or v.examples}
    assert sorted(set(known_gaps("output-shape-op")) & stated) == []
    ops = {f"{op.domain}.{op.name}" for op in SPEC_SET.ops()}
    assert sorted(set(known_gaps("output-shape-op")) - ops) == []


def test_inferred_shape_is_used_and_matches_numpy_on_a_plain_case():
    """The element-wise shapes come from the broadcasting mode (independent check: NumPy's rule)."""
    validate = opgen_ops.get_validator("onnx", "PRelu", 16)
    x, slope = np.zeros((2, 3, 4), np.float32), np.zeros((4,), np.float32)
    want = np.broadcast_shapes(x.shape, slope.shape)
    assert validate([x, slope], {}, [("float", want)]) == []
    problems = validate([("float", x.shape), ("float", slope.shape)], {}, [("float", (5, 5))])
    assert [p.where for p in problems] == ["output 'Y'"] and "[2, 3, 4]" in problems[0].message
