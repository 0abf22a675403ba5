"""The onnx package's node tests through `opgen.run_model`, compared as ONNX's backend test runner
compares (onnx.backend.test.runner.Runner.assert_similar_outputs: same count, shape and dtype; strings
equal; numbers within the case's rtol/atol, bfloat16 at two ulps). Used by
tests/test_onnx_node_conformance.py, and as a tool while writing kernels:

    .venv/bin/python tests/node_conformance.py Relu LeakyRelu    # the cases of these ops, one line each
    .venv/bin/python tests/node_conformance.py --all             # every case, then the pass rate
"""
from __future__ import annotations

import functools
import sys
import warnings
from typing import Any

import numpy as np

import opgen
from opgen.runtime.values import OptionalValue, SequenceValue


@functools.lru_cache(maxsize=1)
def all_cases() -> tuple[Any, ...]:
    """Every node test case (collected once: with an op argument collect_testcases repeats its first answer)."""
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the case generators compute their expected outputs noisily
        return tuple(node_cases.collect_testcases())


def ops_of(case: Any) -> set[str]:
    return {n.op_type for n in case.model.graph.node}


def _plain(value: Any) -> Any:
    """An output as the backend runner holds it: an optional unwrapped, a sequence as a list."""
    if isinstance(value, OptionalValue):
        return _plain(value.value)
    if isinstance(value, SequenceValue):
        return list(value)
    return value


def assert_similar(got: Any, want: Any, rtol: float, atol: float, where: str) -> None:
    if want is None or got is None:
        assert got is None and want is None, f"{where}: got {type(got).__name__}, expected {type(want).__name__}"
        return
    if isinstance(want, (list, tuple)):
        assert isinstance(got, (list, tuple)), f"{where}: got {type(got).__name__}, expected a sequence"
        assert len(got) == len(want), f"{where}: {len(got)} elements, expected {len(want)}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_similar(g, w, rtol, atol, f"{where}[{k}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{where}: shape {got.shape}, expected {want.shape}"
    if want.dtype == object:
        np.testing.assert_array_equal(got, want, err_msg=where)
        return
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, expected {want.dtype}"
    if got.dtype.name == "bfloat16":
        rtol = max(rtol, 2**-6)
        got, want = got.astype(np.float32), want.astype(np.float32)
    if got.dtype.kind not in "fciub" and got.dtype.itemsize == 1:  # float8/int4 (ml_dtypes): compare as float32
        got, want = got.astype(np.float32), want.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=where)


def _data(value: Any) -> Any:
    """A data-set entry as an array (or list, or None): some cases store TensorProto/SequenceProto/
    OptionalProto messages, which the backend runner converts the same way."""
    import onnx
    from onnx import numpy_helper

    if isinstance(value, onnx.TensorProto):
        return numpy_helper.to_array(value)
    if isinstance(value, onnx.SequenceProto):
        return numpy_helper.to_list(value)
    if isinstance(value, onnx.OptionalProto):
        return numpy_helper.to_optional(value)
    return value


def run_case(case: Any) -> str | None:
    """None when opgen's outputs match the case's on every data set, else why not (one line)."""
    model = case.model
    names = [i.name for i in model.graph.input]
    for k, (inputs, outputs) in enumerate(case.data_sets):
        inputs, outputs = [_data(x) for x in inputs], [_data(x) for x in outputs]
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                got = opgen.run_model(model, dict(zip(names, inputs)))
        except Exception as exc:  # any failure is this case's result
            first = (str(exc).strip().splitlines() or [""])[0][:300]
            return f"{type(exc).__name__}: {first}"
        values = [_plain(got[o.name]) for o in model.graph.output]
        try:
            assert len(values) == len(outputs), f"{len(values)} outputs, expected {len(outputs)}"
            for j, (g, w) in enumerate(zip(values, outputs)):
                assert_similar(g, w, case.rtol, case.atol, f"data set {k} output {j}")
        except AssertionError as exc:
            return "mismatch: " + " ".join(str(exc).split())[:300]
    return None


def main(argv: list[str]) -> int:
    cases = all_cases()
    if argv != ["--all"]:
        wanted = set(argv)
        cases = tuple(c for c in cases if ops_of(c) & wanted)
    failed = 0
    for case in cases:
        why = run_case(case)
        failed += why is not None
        print(f"{'ok  ' if why is None else 'FAIL'} {case.name}" + ("" if why is None else f": {why}"))
    print(f"{len(cases) - failed}/{len(cases)} pass ({100 * (len(cases) - failed) / max(1, len(cases)):.1f} %)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
