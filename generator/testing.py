"""Assertions the generated test modules call; the tests stay data, the logic lives here."""
from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from .dtypes import ELEM_TYPES, parse_type, type_key
from .model import example_number
from .names import attribute_keyword
from .runtime.validation import ParamSig, Problem, Signature, TensorInfo

# Comparison tolerances per element type, stated once (rtol, atol).
TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-3), "bfloat16": (1e-2, 1e-2), "float": (1e-6, 1e-6), "double": (1e-12, 1e-12),
    "complex64": (1e-6, 1e-6), "complex128": (1e-12, 1e-12),
}

_PLACEHOLDER = {"int": 1, "float": 1.0, "string": "", "bool": False, "ints": [1], "floats": [1.0],
                "strings": [""], "tensor": np.zeros(1, np.float32), "graph": (lambda *a: a), "graphs": [(lambda *a: a)]}


def placeholder_attributes(sig: Signature) -> dict[str, Any]:
    """A value of the right kind for every required attribute (listed values preferred)."""
    return {a.name: (a.values[0] if a.values else _PLACEHOLDER[a.type]) for a in sig.attributes if a.required}


def _infos(sig: Signature, params: Sequence[ParamSig], binding: Mapping[str, str]) -> list[TensorInfo]:
    out = []
    for p in params:
        dtype = binding[p.type] if p.type in binding else type_key(p.type)
        count = max(p.min_arity, 1) if p.option == "variadic" else 1
        out += [TensorInfo(dtype, None)] * count
    return out


def type_problems(problems: list[Problem]) -> list[Problem]:
    return [p for p in problems if p.where.startswith(("input", "output"))]


def assert_accepts_dtypes(validate: Callable[..., Any], sig: Signature, binding: Mapping[str, str]) -> None:
    problems = validate(_infos(sig, sig.inputs, binding), placeholder_attributes(sig),
                        _infos(sig, sig.outputs, binding))
    assert type_problems(problems) == [], f"{binding} rejected: {[str(p) for p in problems]}"


def assert_rejects_dtype(validate: Callable[..., Any], sig: Signature, binding: Mapping[str, str], param: str,
                         dtype: str) -> None:
    inputs = _infos(sig, sig.inputs, binding)
    names = [p.name for p in sig.inputs]
    inputs[names.index(param)] = TensorInfo(dtype, None)
    problems = type_problems(validate(inputs, placeholder_attributes(sig)))
    assert any(param in p.where and dtype in p.message for p in problems), [str(p) for p in problems]


def assert_rejects_unknown_attribute(validate: Callable[..., Any], sig: Signature, binding: Mapping[str, str]) -> None:
    attrs = {**placeholder_attributes(sig), "opgen_no_such_attribute": 1}
    problems = validate(_infos(sig, sig.inputs, binding), attrs)
    assert any("opgen_no_such_attribute" in p.where for p in problems), [str(p) for p in problems]


def assert_rejects_missing_attribute(validate: Callable[..., Any], sig: Signature, binding: Mapping[str, str],
                                     name: str) -> None:
    attrs = placeholder_attributes(sig)
    del attrs[name]
    problems = validate(_infos(sig, sig.inputs, binding), attrs)
    assert any(name in p.where and "required" in p.message for p in problems), [str(p) for p in problems]


def assert_rejects_too_few_inputs(validate: Callable[..., Any], sig: Signature, binding: Mapping[str, str]) -> None:
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


def example_array(value: Any, elem: str) -> np.ndarray:
    """An example tensor as an array of `elem` (integers and booleans exactly, floats through float64;
    a complex element is written as its [real, imaginary] pair, the innermost list)."""
    target = ELEM_TYPES[elem]
    value = example_number(value)  # "inf", "-inf", "nan" as written in the spec
    if target.kind in ("int", "uint", "bool"):
        return np.asarray(value, dtype=target.numpy)
    if target.kind == "complex":
        pairs = np.asarray(value, dtype=np.float64)
        if pairs.ndim == 0 or pairs.shape[-1] != 2:
            raise ValueError(f"a {elem} example value is written as [real, imaginary] pairs, found shape "
                             f"{list(pairs.shape)}")
        return (pairs[..., 0] + 1j * pairs[..., 1]).astype(target.numpy)
    return np.asarray(value, dtype=np.float64).astype(target.numpy)


def _elem_of(param: Any, example: Mapping[str, Any]) -> str:
    """A parameter's element type in an example: its own fixed type, else `dtypes`, else `dtype`."""
    if parse_type(param.type) is not None:  # a fixed type, not a type variable
        return type_key(param.type)
    elem: str = example.get("dtypes", {}).get(param.name, example["dtype"])
    return elem


def check_example(kernel: Callable[..., Any], validate: Callable[..., Any], sig: Signature, example: Mapping[str, Any],
                  free_outputs: tuple[str, ...] = (), shape_from_node: tuple[str, ...] = (),
                  count_from_node: tuple[str, ...] = ()) -> None:
    """Run a spec example: the validator accepts it and the kernel reproduces every output it lists
    (and it lists every non-optional output, so no output goes unchecked)."""
    inputs: list[Any] = []
    for p in sig.inputs:
        value = example["inputs"].get(p.name)
        if p.option == "variadic":
            inputs += [example_array(t, _elem_of(p, example)) for t in (value or [])]
        else:
            inputs.append(None if value is None else example_array(value, _elem_of(p, example)))
    while inputs and inputs[-1] is None:
        inputs.pop()
    attributes = dict(example["attributes"])
    problems = validate(inputs, attributes)
    assert problems == [], [str(p) for p in problems]
    input_names = {p.name for p in sig.inputs}  # an attribute named like an input: keyword <name>_attr
    keywords = {attribute_keyword(name, input_names): value for name, value in attributes.items()}
    by_name = {p.name: p for p in sig.outputs}
    for name in free_outputs:
        keywords[f"{name}_dtype"] = _elem_of(by_name[name], example)
    for name in shape_from_node:
        keywords[f"{name}_shape"] = np.asarray(example["outputs"][name]).shape
    for name in count_from_node:  # as many pieces as the example lists
        keywords[f"{name}_count"] = len(example["outputs"][name])
    results = list(kernel(*inputs, **keywords))
    got: dict[str, Any] = {}
    for k, p in enumerate(sig.outputs):
        if p.option == "variadic":
            got[p.name] = results[k:]
            break
        if k < len(results):
            got[p.name] = results[k]
    missing = [p.name for p in sig.outputs if p.option != "optional" and p.name not in example["outputs"]]
    assert not missing, f"the example gives no expected value for {missing}"
    for name, expected in example["outputs"].items():
        assert name in got, f"the kernel returned no output {name!r} ({len(results)} outputs)"
        if by_name[name].option == "variadic":
            assert len(got[name]) == len(expected), f"{name}: {len(got[name])} tensors, expected {len(expected)}"
            pairs = [(f"{name}[{k}]", g, e) for k, (g, e) in enumerate(zip(got[name], expected))]
        else:
            pairs = [(name, got[name], expected)]
        for label, value, want_value in pairs:
            _compare(label, np.asarray(value), example_array(want_value, _elem_of(by_name[name], example)))


def _compare(label: str, got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape, f"{label}: shape {got.shape} != expected {want.shape}"
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != expected {want.dtype}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=f"output {label}")
        return
    from .dtypes import elem_of_numpy

    rtol, atol = TOLERANCES.get(elem_of_numpy(want.dtype), (0, 0))
    wide = np.complex128 if want.dtype.kind == "c" else np.float64  # compare complex values whole
    np.testing.assert_allclose(got.astype(wide), want.astype(wide), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=f"output {label}")


def check_kernel_dtype(kernel: Callable[..., Any], example: Mapping[str, Any], input_names: list[str], dtype: str,
                       expected_dtypes: list[str | None], sig: Signature | None = None,
                       free_outputs: tuple[str, ...] = ()) -> None:
    """Run the kernel on an example cast to `dtype`: outputs have the spec's dtype and the example's shape.
    A free output (its dtype is the caller's choice) is asked for `dtype` where its type allows it,
    else for its first allowed type (an integer input with a float result, as Cbrt's)."""
    inputs = [(_array(example["inputs"][n], dtype) if n in example["inputs"] else None) for n in input_names]
    while inputs and inputs[-1] is None:
        inputs.pop()
    keywords = {attribute_keyword(name, input_names): value for name, value in example["attributes"].items()}
    expected_dtypes = list(expected_dtypes)
    if sig is not None:
        for k, p in enumerate(sig.outputs):
            if p.name in free_outputs:
                allowed = sig.allowed(p)
                chosen = dtype if dtype in allowed else allowed[0]
                keywords[f"{p.name}_dtype"] = chosen
                expected_dtypes[k] = chosen
    results = kernel(*inputs, **keywords)
    for (name, expected), got, want_dtype in zip(example["outputs"].items(), results, expected_dtypes):
        assert got.shape == np.asarray(expected).shape, f"{name}: shape {got.shape}"
        assert got.dtype == ELEM_TYPES[want_dtype or dtype].numpy, f"{name}: dtype {got.dtype}, expected {want_dtype or dtype}"
