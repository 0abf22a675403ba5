"""Every generated hlir C kernel agrees with its NumPy kernel on the same inputs, for every element
type it implements: random values, edge values (signed zeros, infinities, NaN, denormals, integer
limits), rank-0, empty and broadcast shapes. New formulas are covered as soon as they are written."""
from __future__ import annotations

import numpy as np
import pytest

import opgen_ops
from c_harness import OPGEN_OK, call_c
from conftest import project_specs
from kernel_refs import assert_matches, edge_values, random_array
from opgen.render.c_code import kernel_views

HLIR = project_specs().domain("hlir")
CASES = [pytest.param(v, view["elem"], view["out_elem"], id=f"{v.op}-{view['elem']}")
         for op in HLIR.ops for v in op.versions for view in kernel_views(v)]




def attribute_values(v) -> dict:
    """A valid value for every required attribute: the first listed value, else a plain number."""
    out = {}
    for a in v.attributes:
        if a.required:
            out[a.name] = a.values[0] if a.values else {"float": 0.5, "int": 1, "bool": True}.get(a.type)
    return out


def shape_cases(v) -> list[tuple[list[tuple], dict]]:
    n = len(v.inputs)
    cases = [([(2, 3, 4)] * n, {}), ([()] * n, {}), ([(0, 3)] * n, {})]
    if v.elementwise.broadcast == "xla" and n == 2:
        cases.append(([(2, 3, 4), (3,)], {"broadcast_dimensions": [1]}))
        cases.append(([(4,), (4, 5)], {"broadcast_dimensions": [0]}))
    return cases


def inputs_for(rng, shapes, elem, index):
    arrays = []
    for k, shape in enumerate(shapes):
        array = random_array(rng, shape, elem)
        edges = edge_values(elem)
        if array.size:  # put edge values (shifted per input, to pair them differently) into the array
            flat = array.reshape(-1)
            count = min(flat.size, edges.size)
            flat[:count] = np.roll(edges, k + index)[:count]
        arrays.append(array)
    return arrays


@pytest.mark.parametrize("v,elem,out_elem", CASES)
def test_c_matches_numpy(c_library, v, elem, out_elem):
    kernel = opgen_ops.get_kernel(v.domain, v.op, v.since_version)
    rng = np.random.default_rng(sum(map(ord, v.op + elem)))
    free = {f"{p.name}_dtype": out_elem for p in v.free_outputs()}
    for index, (shapes, extra) in enumerate(shape_cases(v)):
        attrs = {**attribute_values(v), **extra}
        inputs = inputs_for(rng, shapes, elem, index)
        (want,) = kernel(*inputs, **attrs, **free)
        status, got = call_c(c_library, v, elem, inputs, attrs, want.shape, out_elem)
        assert status == OPGEN_OK, f"{v.key} {elem} {shapes}: status {status}"
        assert_matches(got, want, out_elem, f"{v.key} {elem} {shapes}")
