"""Checking a model loads validators only: the generated op modules import what their kernels call on a
kernel's first call (a third of a small model's import time was kernel modules no check used)."""
from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

SCRIPT = r"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import opgen_ops
from opgen.validate import validate_model

f = TensorProto.FLOAT
w = numpy_helper.from_array(np.arange(18, dtype=np.float32).reshape(2, 1, 3, 3) / 10, "w")
scale, bias, mean, var = (numpy_helper.from_array(np.full(2, v, np.float32), n)
                          for v, n in ((1.5, "s"), (0.5, "b"), (0.25, "m"), (2.0, "v")))
nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["n"]),
         helper.make_node("Relu", ["n"], ["r"]), helper.make_node("Add", ["r", "n"], ["y"])]
graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", f, [1, 1, 4, 4])],
                          [helper.make_tensor_value_info("y", f, [1, 2, 4, 4])], [w, scale, bias, mean, var])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
report = validate_model(model)
assert report.valid and report.checked == 4, report.to_text()
loaded = [m for m in sys.modules if m.startswith(("opgen.runtime.kernels", "opgen.runtime.elementwise"))]
assert loaded == [], loaded

x = np.linspace(-1, 1, 16, dtype=np.float32).reshape(1, 1, 4, 4)
(expected,) = ReferenceEvaluator(model).run(None, {"x": x})
conv = opgen_ops.get_kernel("onnx", "Conv", 17)
norm = opgen_ops.get_kernel("onnx", "BatchNormalization", 15)
relu, add = opgen_ops.get_kernel("onnx", "Relu", 14), opgen_ops.get_kernel("onnx", "Add", 14)
(c,) = conv(x, numpy_helper.to_array(w), pads=[1, 1, 1, 1])
(n,) = norm(c, *(numpy_helper.to_array(t) for t in (scale, bias, mean, var)))
(y,) = add(relu(n)[0], n)
np.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-6)
print("ok")
"""


def test_validating_imports_no_kernel_and_kernels_import_on_first_call():
    run = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr
