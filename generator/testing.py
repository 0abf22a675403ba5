"""Assertions the generated test modules call; the tests stay data, the logic lives here."""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from .dtypes import ELEM_TYPES
from .runtime.validation import Problem, Signature, TensorInfo

# Comparison tolerances per element type, stated once (rtol, atol).
TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float": (1e-6, 1e-6), "double": (1e-12, 1e-12),
}

_PLACEHOLDER = {"int": 1, "float": 1.0, "string": "", "bool": False, "ints": [1], "floats": [1.0],
                "strings": [""], "tensor": np.zeros(1, np.float32), "graph": (lambda *a: a)}


def placeholder_attributes(sig: Signature) -> dict[str, Any]:
    """A value of the right kind for every required attribute (listed values preferred)."""
    return {a.name: (a.values[0] if a.values else _PLACEHOLDER[a.type]) for a in sig.attributes if a.required}


def _infos(sig: Signature, params, binding: Mapping[str, str]) -> list[TensorInfo]:
    out = []
    for p in params:
        dtype = p.type[7:-1] if p.type.startswith("tensor(") else binding[p.type]
        count = max(p.min_arity, 1) if p.option == "variadic" else 1
        out += [TensorInfo(dtype, None)] * count
    return out


def type_problems(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.where.startswith(("input", "output"))]


def assert_accepts_dtypes(validate: Callable, sig: Signature, binding: Mapping[str, str]) -> None:
    problems = validate(_infos(sig, sig.inputs, binding), placeholder_attributes(sig),
                        _infos(sig, sig.outputs, binding))
    assert type_problems(problems) == [], f"{binding} rejected: {[str(p) for p in problems]}"


def assert_rejects_dtype(validate: Callable, sig: Signature, binding: Mapping[str, str], param: str,
                         dtype: str) -> None:
    inputs = _infos(sig, sig.inputs, binding)
    names = [p.name for p in sig.inputs]
    inputs[names.index(param)] = TensorInfo(dtype, None)
    problems = type_problems(validate(inputs, placeholder_attributes(sig)))
    assert any(param in p.where and dtype in p.message for p in problems), [str(p) for p in problems]


def assert_rejects_unknown_attribute(validate: Callable, sig: Signature, binding: Mapping[str, str]) -> None:
    attrs = {**placeholder_attributes(sig), "opgen_no_such_attribute": 1}
    problems = validate(_infos(sig, sig.inputs, binding), attrs)
    assert any("opgen_no_such_attribute" in p.where for p in problems), [str(p) for p in problems]


def assert_rejects_missing_attribute(validate: Callable, sig: Signature, binding: Mapping[str, str],
                                     name: str) -> None:
    attrs = placeholder_attributes(sig)
    del attrs[name]
    problems = validate(_infos(sig, sig.inputs, binding), attrs)
    assert any(name in p.where and "required" in p.message for p in problems), [str(p) for p in problems]


def assert_rejects_too_few_inputs(validate: Callable, sig: Signature, binding: Mapping[str, str]) -> None:
    required = sum(1 for p in sig.inputs if p.option == "single")
    inputs = _infos(sig, sig.inputs, binding)[:required - 1]
    problems = validate(inputs, placeholder_attributes(sig))
    assert any(p.where == "inputs" for p in problems), [str(p) for p in problems]


def _array(value: Any, dtype: str) -> np.ndarray:
    arr = np.asarray(value, dtype=np.float64)
    elem = ELEM_TYPES[dtype]
    if elem.kind == "uint":
        arr = np.abs(arr)
    return arr.astype(elem.numpy)


def check_example(kernel: Callable, validate: Callable, example: Mapping[str, Any], input_names: list[str]) -> None:
    """Run a spec example: the validator accepts it and the kernel reproduces its outputs."""
    dtype = example["dtype"]
    inputs = [(_array(example["inputs"][n], dtype) if n in example["inputs"] else None) for n in input_names]
    while inputs and inputs[-1] is None:
        inputs.pop()
    problems = validate(inputs, example["attributes"])
    assert problems == [], [str(p) for p in problems]
    results = kernel(*inputs, **example["attributes"])
    rtol, atol = TOLERANCES.get(dtype, (0, 0))
    for (name, expected), got in zip(example["outputs"].items(), results):
        want = _array(expected, dtype)
        assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                                   err_msg=f"output {name}")


def check_kernel_dtype(kernel: Callable, example: Mapping[str, Any], input_names: list[str], dtype: str,
                       expected_dtypes: list[str | None]) -> None:
    """Run the kernel on an example cast to `dtype`: outputs have the spec's dtype and the example's shape."""
    inputs = [(_array(example["inputs"][n], dtype) if n in example["inputs"] else None) for n in input_names]
    while inputs and inputs[-1] is None:
        inputs.pop()
    results = kernel(*inputs, **example["attributes"])
    for (name, expected), got, want_dtype in zip(example["outputs"].items(), results, expected_dtypes):
        assert got.shape == np.asarray(expected).shape, f"{name}: shape {got.shape}"
        assert got.dtype == ELEM_TYPES[want_dtype or dtype].numpy, f"{name}: dtype {got.dtype}, expected {want_dtype or dtype}"
