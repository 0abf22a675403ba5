"""Element types: the one table that maps spec type names to NumPy and C."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

# NumPy (and ml_dtypes) load on first use: the build and the spec checks need only the names.


@dataclass(frozen=True)
class ElemType:
    name: str  # spec spelling inside tensor(...)
    kind: str  # bool | int | uint | float | complex
    bits: int
    c_type: str  # storage type in C
    c_compute: str  # type C arithmetic is done in

    @property
    def numpy(self) -> np.dtype:
        import numpy as np

        return np.dtype(_numpy_types()[self.name])

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def c_suffix(self) -> str:
        return self.name


@lru_cache(maxsize=None)
def _numpy_types() -> dict[str, Any]:
    import ml_dtypes
    import numpy as np

    return {
        "bool": np.bool_, "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64,
        "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
        "float16": np.float16, "bfloat16": ml_dtypes.bfloat16, "float": np.float32, "double": np.float64,
        "complex64": np.complex64, "complex128": np.complex128,
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
    ]
}

_TENSOR = re.compile(r"^tensor\(([a-z0-9]+)\)$")


def tensor_elem(type_str: str) -> str | None:
    """'tensor(float)' -> 'float'; None when not a tensor type."""
    m = _TENSOR.match(type_str)
    return m.group(1) if m else None


@lru_cache(maxsize=None)
def _by_dtype() -> dict[Any, str]:
    import numpy as np

    return {np.dtype(np_type): name for name, np_type in _numpy_types().items()}


def elem_of_numpy(dtype: np.dtype) -> str:
    """The spec element name of a NumPy dtype."""
    import numpy as np

    try:
        return _by_dtype()[dtype if isinstance(dtype, np.dtype) else np.dtype(dtype)]
    except KeyError:
        raise ValueError(f"dtype {np.dtype(dtype)} has no spec element type") from None
