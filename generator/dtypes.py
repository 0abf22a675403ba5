"""Element types: the one table that maps spec type names to NumPy and C."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    import numpy as np

# NumPy (and ml_dtypes) load on first use: the build and the spec checks need only the names.

ElemKind = Literal["bool", "int", "uint", "float", "complex", "string"]


@dataclass(frozen=True)
class ElemType:
    name: str  # spec spelling inside tensor(...)
    kind: ElemKind
    bits: int
    c_type: str  # storage type in C
    c_compute: str  # type C arithmetic is done in

    @property
    def numpy(self) -> np.dtype[Any]:
        import numpy as np

        return np.dtype(_numpy_types()[self.name])

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def c_suffix(self) -> str:
        return self.name


@lru_cache(maxsize=None)
def _numpy_types() -> dict[str, type[Any]]:
    import ml_dtypes
    import numpy as np

    return {
        "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
        "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
        "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64,
        "complex64": np.complex64, "complex128": np.complex128, "string": np.object_,
        # ONNX's narrow types, through ml_dtypes (ONNX's "fn"/"fnuz" names follow the same formats).
        "float8e4m3fn": ml_dtypes.float8_e4m3fn, "float8e4m3fnuz": ml_dtypes.float8_e4m3fnuz,
        "float8e5m2": ml_dtypes.float8_e5m2, "float8e5m2fnuz": ml_dtypes.float8_e5m2fnuz,
        "float8e8m0": ml_dtypes.float8_e8m0fnu, "float4e2m1": ml_dtypes.float4_e2m1fn,
        "float6e2m3": ml_dtypes.float6_e2m3fn, "float6e3m2": ml_dtypes.float6_e3m2fn,
        "int4": ml_dtypes.int4, "uint4": ml_dtypes.uint4, "int2": ml_dtypes.int2, "uint2": ml_dtypes.uint2,
    }

ELEM_TYPES: dict[str, ElemType] = {
    t.name: t
    for t in [
        ElemType("bool", "bool", 8, "bool", "bool"),
        ElemType("int8", "int", 8, "int8_t", "int8_t"),
        ElemType("int16", "int", 16, "int16_t", "int16_t"),
        ElemType("int32", "int", 32, "int32_t", "int32_t"),
        ElemType("int64", "int", 64, "int64_t", "int64_t"),
        ElemType("uint8", "uint", 8, "uint8_t", "uint8_t"),
        ElemType("uint16", "uint", 16, "uint16_t", "uint16_t"),
        ElemType("uint32", "uint", 32, "uint32_t", "uint32_t"),
        ElemType("uint64", "uint", 64, "uint64_t", "uint64_t"),
        ElemType("float16", "float", 16, "uint16_t", "float"),
        ElemType("bfloat16", "float", 16, "uint16_t", "float"),
        ElemType("float", "float", 32, "float", "float"),
        ElemType("double", "float", 64, "double", "double"),
        ElemType("complex64", "complex", 64, "", ""),
        ElemType("complex128", "complex", 128, "", ""),
        # No C kernels for these (empty C types): strings, and the narrow float and integer formats
        # whose arithmetic C has no type for. NumPy computes them through ml_dtypes.
        ElemType("string", "string", 0, "", ""),
        ElemType("float8e4m3fn", "float", 8, "", ""),
        ElemType("float8e4m3fnuz", "float", 8, "", ""),
        ElemType("float8e5m2", "float", 8, "", ""),
        ElemType("float8e5m2fnuz", "float", 8, "", ""),
        ElemType("float8e8m0", "float", 8, "", ""),
        ElemType("float6e2m3", "float", 6, "", ""),
        ElemType("float6e3m2", "float", 6, "", ""),
        ElemType("float4e2m1", "float", 4, "", ""),
        ElemType("int4", "int", 4, "", ""),
        ElemType("uint4", "uint", 4, "", ""),
        ElemType("int2", "int", 2, "", ""),
        ElemType("uint2", "uint", 2, "", ""),
    ]
}

_TENSOR = re.compile(r"^tensor\(([a-z0-9]+)\)$")


def tensor_elem(type_str: str) -> str | None:
    """'tensor(float)' -> 'float'; None when not a tensor type."""
    m = _TENSOR.match(type_str)
    return m.group(1) if m else None


@dataclass(frozen=True)
class ValueType:
    """A parsed type string: tensor(<elem>), seq(<type>) or optional(<type>) (ONNX's value types).

    Parsed once (`parse_type`); everything else asks it. A value's `dtype` in the validator is the
    element name for a tensor and the whole type string for a sequence or an optional (`key`)."""

    kind: str  # tensor | seq | optional
    elem: str  # the innermost element type
    inner: ValueType | None = None

    def __str__(self) -> str:
        return f"tensor({self.elem})" if self.inner is None else f"{self.kind}({self.inner})"

    @property
    def is_tensor(self) -> bool:
        return self.kind == "tensor"

    @property
    def key(self) -> str:
        """How the validator names a value of this type: 'float' for tensor(float), else the string."""
        return self.elem if self.kind == "tensor" else str(self)


_MAX_TYPE_NESTING = 4


@lru_cache(maxsize=None)
def parse_type(text: str) -> ValueType | None:
    """The type a string names, or None when it is not a type opgen knows (unknown element, syntax)."""
    if len(text) > 200:
        return None
    elem = tensor_elem(text)
    if elem is not None:
        return ValueType("tensor", elem) if elem in ELEM_TYPES else None
    for kind in ("seq", "optional"):
        if text.startswith(kind + "(") and text.endswith(")") and text.count("(") <= _MAX_TYPE_NESTING:
            inner = parse_type(text[len(kind) + 1:-1])
            if inner is None or (kind == "optional" and inner.kind == "optional"):
                return None
            return ValueType(kind, inner.elem, inner)
    return None


def type_key(text: str) -> str:
    """The validator's name for values of a spec type string (see ValueType.key)."""
    t = parse_type(text)
    return text if t is None else t.key


@lru_cache(maxsize=None)
def _by_dtype() -> dict[Any, str]:
    import numpy as np

    return {np.dtype(np_type): name for name, np_type in _numpy_types().items()}


def spec_dtype(dtype: Any) -> str | None:
    """A dtype as validators take it, in any of the spellings people use, as the spec's element name:
    a spec name ("float"), a NumPy dtype or type (np.float32, np.dtype("float32"), ml_dtypes.bfloat16)
    or a NumPy name ("float32", "int64"). A whole value type (seq(...), optional(...)) and a string
    that names nothing are returned unchanged: the validator reports the latter with a suggestion."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        if dtype in ELEM_TYPES or "(" in dtype:
            return dtype
        import numpy as np

        try:
            return _by_dtype().get(np.dtype(dtype), dtype)
        except TypeError:
            return dtype
    import numpy as np

    try:
        return elem_of_numpy(np.dtype(dtype))
    except (TypeError, ValueError):
        return str(dtype)


def elem_of_numpy(dtype: np.dtype) -> str:
    """The spec element name of a NumPy dtype."""
    import numpy as np

    try:
        return _by_dtype()[dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"dtype {np.dtype(dtype)} has no spec element type") from None
