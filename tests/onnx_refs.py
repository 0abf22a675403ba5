"""Run one ONNX node through the independent references: onnx.reference and onnxruntime."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from opgen.dtypes import ELEM_TYPES
from opgen.testing import TOLERANCES

TENSOR_TYPES = {
    "float": onnx.TensorProto.FLOAT, "double": onnx.TensorProto.DOUBLE, "float16": onnx.TensorProto.FLOAT16,
    "bfloat16": onnx.TensorProto.BFLOAT16, "int32": onnx.TensorProto.INT32, "int64": onnx.TensorProto.INT64,
    "uint32": onnx.TensorProto.UINT32, "uint64": onnx.TensorProto.UINT64, "int8": onnx.TensorProto.INT8,
}


@functools.lru_cache(maxsize=None)
def node_test_cases() -> tuple:
    """The onnx package's node test cases, collected once per process. The collection is global
    state filled by the first call whatever its filter (with an op argument it returns its first
    answer again), so it is always called without one and filtered by the callers."""
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tuple(node.collect_testcases(None))


def node_model(op: str, opset: int, dtype: str, inputs: list[str], attrs: dict) -> onnx.ModelProto:
    elem = TENSOR_TYPES[dtype]
    node = helper.make_node(op, inputs, ["Y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info(n, elem, None) for n in inputs],
                              [helper.make_tensor_value_info("Y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=10)


def ort_session(model: onnx.ModelProto):
    """An onnxruntime CPU session for a model, with onnxruntime's log quiet (the one place the
    tests create sessions)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def run_reference(model: onnx.ModelProto, feeds: dict) -> np.ndarray:
    return ReferenceEvaluator(model).run(None, feeds)[0]


def run_onnxruntime(model: onnx.ModelProto, feeds: dict) -> np.ndarray | None:
    """onnxruntime's result, or None when it has no kernel for this opset and dtype."""
    try:
        return ort_session(model).run(None, feeds)[0]
    except Exception as exc:  # NOT_IMPLEMENTED / INVALID_GRAPH: no kernel for this type or opset
        if "NOT_IMPLEMENTED" in str(exc) or "Type Error" in str(exc):
            return None
        raise


def random_input(rng: np.random.Generator, shape, dtype: str) -> np.ndarray:
    elem = ELEM_TYPES[dtype]
    if elem.kind == "uint":
        return np.asarray(rng.integers(0, 50, size=shape), dtype=elem.numpy)
    if elem.kind == "int":
        return np.asarray(rng.integers(-50, 50, size=shape), dtype=elem.numpy)
    values = np.asarray(rng.standard_normal(size=shape) * 3)
    values.flat[: min(values.size, 3)] = [0.0, -0.0, -1e-3][: min(values.size, 3)]
    return values.astype(elem.numpy)




def assert_close(got: np.ndarray, want: np.ndarray, dtype: str, label: str) -> None:
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    rtol, atol = TOLERANCES.get(dtype, (0, 0))
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, err_msg=label)
