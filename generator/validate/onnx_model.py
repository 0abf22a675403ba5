"""The ONNX model as a whole, before its graph is read: loading the protobuf, deciding whether
onnx.shape_inference must complete it, and preparing that call (large data dropped first), and the raw
data of small tensors read without numpy_helper's per-call lookups."""
from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError
from onnx import TensorProto

from ..runtime.context import TensorInfo
from .limits import Limits, ModelReadError, read_model_file
from .report import Record


def _elem_names() -> dict[int, str]:
    """Element type names by TensorProto code: ONNX spells its types as the enum names in lower case
    (tensor(float8e4m3fn) is FLOAT8E4M3FN), and so do opgen's specs. A code opgen has no element type
    for keeps its ONNX name, which no spec allows, so the validator reports it."""
    return {code: name.lower() for name, code in TensorProto.DataType.items() if code != TensorProto.UNDEFINED}


ELEM = _elem_names()


def type_string(tp: onnx.TypeProto) -> str | None:
    """ONNX's spelling of a value type (tensor(float), seq(tensor(int64)), optional(...), map(...));
    None when the type is not given."""
    which: str | None = tp.WhichOneof("value")
    if which in ("tensor_type", "sparse_tensor_type"):
        tt = getattr(tp, which)
        return f"tensor({ELEM.get(tt.elem_type, tt.elem_type)})" if tt.elem_type else None
    if which == "sequence_type":
        inner = type_string(tp.sequence_type.elem_type)
        return None if inner is None else f"seq({inner})"
    if which == "optional_type":
        inner = type_string(tp.optional_type.elem_type)
        return None if inner is None else f"optional({inner})"
    if which == "map_type":
        inner = type_string(tp.map_type.value_type)
        key = ELEM.get(tp.map_type.key_type, tp.map_type.key_type)
        return None if inner is None else f"map({key}, {inner})"
    return which


class Incomplete(Exception):
    """A node output is not fully described (raised only by a converter told to stop there)."""


def load_model(source: Any, limits: Limits) -> onnx.ModelProto:
    """A ModelProto from a path, bytes or a ModelProto; ModelReadError when it is not one."""
    if isinstance(source, onnx.ModelProto):
        return source
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
    else:
        data = read_model_file(Path(source), limits.max_onnx_file_bytes)
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except (DecodeError, RuntimeError, ValueError) as exc:
        raise ModelReadError(f"not an ONNX model (protobuf decoding failed: {exc or 'truncated or corrupted'})") \
            from None
    if not model.HasField("graph"):
        raise ModelReadError("not an ONNX model: it has no graph")
    return model


# Element types whose raw_data numpy_helper.to_array reads as np.frombuffer(raw_data, dtype).reshape(dims)
_RAW_DTYPES: dict[int, np.dtype[Any]] = {
    TensorProto.FLOAT: np.dtype("float32"), TensorProto.DOUBLE: np.dtype("float64"),
    TensorProto.INT64: np.dtype("int64"), TensorProto.INT32: np.dtype("int32"),
    TensorProto.INT16: np.dtype("int16"), TensorProto.INT8: np.dtype("int8"),
    TensorProto.UINT64: np.dtype("uint64"), TensorProto.UINT32: np.dtype("uint32"),
    TensorProto.UINT16: np.dtype("uint16"), TensorProto.UINT8: np.dtype("uint8"),
    TensorProto.BOOL: np.dtype("bool"), TensorProto.FLOAT16: np.dtype("float16")}


def raw_array(t: onnx.TensorProto, dims: tuple[int, ...]) -> np.ndarray | None:
    """The array of a tensor held in raw_data with a plain NumPy element type, as numpy_helper.to_array
    gives it (the same read-only view of the bytes) without its per-call type lookups, which cost more
    than the read itself for the small tensors models are full of; None for any other tensor."""
    dtype = _RAW_DTYPES.get(t.data_type)
    if dtype is None or _BIG_ENDIAN or not t.HasField("raw_data") or t.HasField("segment"):
        return None
    return np.frombuffer(t.raw_data, dtype=dtype).reshape(dims)


_BIG_ENDIAN = sys.byteorder == "big"


_DATA_FIELDS = ("raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def drop_large_data(g: onnx.GraphProto, max_elements: int) -> None:
    """Clear the data of the main graph's initializers larger than max_elements (validation reads only
    their type and dims) before shape inference copies the model: twice in C++ and once more back, 100 MB
    of weights cost 400 MB. Inference reads initializer values only for shape-like inputs (a Reshape's
    shape, a Slice's starts: a few elements each), never one of this size."""
    for t in g.initializer:
        if math.prod(t.dims) > max_elements and t.data_location != TensorProto.EXTERNAL:
            for name in _DATA_FIELDS:
                t.ClearField(name)


def first_node_undescribed(g: onnx.GraphProto) -> bool:
    """Whether the main graph declares no value_info and its first node has an output the graph does not
    declare either: the first reading would stop there, after reading the initializers for nothing.
    (A cheap look at one node: other undescribed outputs are found by the reading itself.)"""
    if len(g.value_info) or not len(g.node):
        return False
    declared = {vi.name for vi in g.output}
    declared.update(vi.name for vi in g.input)
    return any(o and o not in declared for o in g.node[0].output[:])


def shape_inference(model: onnx.ModelProto, records: list[Record]) -> onnx.ModelProto | None:
    """The model completed by onnx.shape_inference, or None (and a warning) when inference fails."""
    try:
        return onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False, data_prop=False)
    except Exception as exc:  # inference is a help, not a requirement: go on with what is declared
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else type(exc).__name__
        records.append(Record("warning", "", "shape inference", f"onnx.shape_inference failed ({first}); "
                              "only declared dtypes and shapes are used"))
        return None


# Within a process, value types and attribute conversions are kept for the models read later, as the
# checker keeps its verdicts (verdicts.py): `opgen run` reads a model anew on every call, and onnx_reader's
# _Converter takes its tables from here. Both are keyed by their exact serialization, per Limits (which
# shape what a reading keeps); only small keys are kept (opgen.graph.small_key: never a large tensor), and
# a full table is started afresh.
_Tables = tuple[dict[bytes, TensorInfo], dict[tuple[bytes, ...], tuple[Any, ...]], list[int]]
SHARED_READINGS: dict[Limits, _Tables] = {}
MAX_SHARED = 50_000  # entries of either table
MAX_SHARED_BYTES = 1 << 26  # 64 MiB of keys (what the entries hold is of the same order)


def shared_readings(limits: Limits) -> _Tables:
    """The tables of types and attributes read under `limits`, and the bytes their keys hold (a list of one
    int, which the readings add to); a table past its bounds is started afresh."""
    found = SHARED_READINGS.get(limits)
    if found is None or len(found[0]) > MAX_SHARED or len(found[1]) > MAX_SHARED or \
            found[2][0] > MAX_SHARED_BYTES:
        found = SHARED_READINGS[limits] = ({}, {}, [0])
    return found
