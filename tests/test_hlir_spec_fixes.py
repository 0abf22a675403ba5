"""Issue 11, item 7: GridSample's mode is restricted to its two codes, AveragePool refuses a dimension
named twice in dims, and Map's allowed output types come from the spec, not a second copy."""
from __future__ import annotations

import numpy as np
import pytest
import yaml

import opgen_ops
from opgen.runtime.kernels.control_flow import map_output_types
from opgen.runtime.validation import ValidationError

from conftest import SPECS

GRID_ATTRS = {"align_corners": False, "padding_mode": "PAD_VALUE"}


@pytest.mark.parametrize("mode", [-1, 2, 7])
def test_grid_sample_refuses_unknown_mode_codes(mode):
    x, grid = np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 3, 3, 2), np.float32)
    problems = opgen_ops.get_validator("hlir", "GridSample")([x, grid], {"mode": mode, **GRID_ATTRS})
    assert [(p.where, p.found) for p in problems] == [("attribute 'mode'", mode)]
    # the kernel refuses it through its validator, before its own ValueError
    with pytest.raises(ValidationError, match="value .* is not allowed; allowed: 0, 1"):
        opgen_ops.get_kernel("hlir", "GridSample")(x, grid, mode=mode, **GRID_ATTRS)


@pytest.mark.parametrize("mode", [0, 1])
def test_grid_sample_accepts_nearest_and_linear(mode):
    x, grid = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4), np.zeros((1, 3, 3, 2), np.float32)
    assert opgen_ops.get_validator("hlir", "GridSample")([x, grid], {"mode": mode, **GRID_ATTRS}) == []
    (y,) = opgen_ops.get_kernel("hlir", "GridSample")(x, grid, mode=mode, **GRID_ATTRS)
    assert y.shape == (1, 1, 3, 3)


def test_grid_sample_notes_agree_with_the_attribute():
    spec = yaml.safe_load((SPECS / "hlir" / "GridSample.yaml").read_text(encoding="utf-8"))
    version = spec["versions"][0]
    mode = next(a for a in version["attributes"] if a["name"] == "mode")
    assert mode["values"] == [0, 1]
    notes = {n["id"]: n["text"]["en"] for n in version["notes"]}
    assert "does not restrict" not in notes["mode_int"] and "0 (NEAREST) and 1 (LINEAR)" in notes["mode_int"]


def test_average_pool_refuses_repeated_dims():
    validate = opgen_ops.get_validator("hlir", "AveragePool")
    x = ("float", (1, 2, 8, 8))
    assert validate([x], {"dims": [2, 3], "kernel_shape": [2, 2]}) == []
    problems = validate([x], {"dims": [2, 2], "kernel_shape": [2, 2]})
    assert [p.where for p in problems] == ["constraint C9"] and "distinct" in problems[0].message


def test_map_output_types_are_the_specs():
    spec = yaml.safe_load((SPECS / "hlir" / "Map.yaml").read_text(encoding="utf-8"))
    version = spec["versions"][0]
    var = version["outputs"][0]["type"]
    written = next(t["types"] for t in version["type_constraints"] if t["name"] == var)
    assert map_output_types() == tuple(t[len("tensor("):-1] for t in written)
    kernel = opgen_ops.get_kernel("hlir", "Map")
    with pytest.raises(ValueError, match="output type must be one of uint8, .*, double"):
        kernel([np.ones(3, np.float32)], dimensions=[0], computation=lambda a: a > 0)
