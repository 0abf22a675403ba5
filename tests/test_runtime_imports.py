"""Runtime modules import on their own (issue 11, item 5): no import circle between validation and
shape_rules (their shared context types live in runtime/context.py), and no runtime module imports the
generated package opgen_ops (the graph runner takes its kernel resolver injected)."""
from __future__ import annotations

import pkgutil
import subprocess
import sys

import re

import numpy as np
import pytest

import opgen.runtime
import opgen.runtime.kernels
from opgen.runtime import graph_runner

MODULES = sorted(
    [f"opgen.runtime.{m.name}" for m in pkgutil.iter_modules(opgen.runtime.__path__)]
    + [f"opgen.runtime.kernels.{m.name}" for m in pkgutil.iter_modules(opgen.runtime.kernels.__path__)])

PROBE = """
import importlib, sys
importlib.import_module({module!r})
print(sorted(m for m in sys.modules if m == "opgen_ops" or m.startswith("opgen_ops.")))
"""


def test_the_runtime_modules_are_all_listed():
    assert {"opgen.runtime.context", "opgen.runtime.validation", "opgen.runtime.shape_rules",
            "opgen.runtime.graph_runner", "opgen.runtime.kernels.control_flow"} <= set(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_alone_without_the_generated_package(module):
    run = subprocess.run([sys.executable, "-c", PROBE.format(module=module)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]", f"{module} imports {run.stdout.strip()}"


def test_shape_rules_and_validation_do_not_import_each_other():
    # shape_rules needs only the context; validation runs the rules, so it imports shape_rules.
    import opgen.runtime.shape_rules as rules

    assert not hasattr(rules, "validation")
    source = open(rules.__file__, encoding="utf-8").read()
    assert "from .validation" not in source and "import validation" not in source


class FakeResolver:
    """A kernel resolver that is not the generated package: the runner must use it."""

    def __init__(self):
        self.asked: list[tuple] = []

    def get_kernel(self, domain, op, opset=None):
        self.asked.append((domain, op, opset))
        return lambda a, b: (np.asarray(a) * 10 + np.asarray(b),)

    def get_signature(self, domain, op, opset=None):
        class Sig:
            inputs = ()
            outputs = ()
        return Sig()


def test_graph_runner_uses_the_injected_resolver():
    resolver = FakeResolver()
    graph = {"inputs": [{"name": "p"}, {"name": "q"}], "outputs": [{"name": "r"}],
             "nodes": [{"op": "Whatever", "inputs": ["p", "q"], "outputs": ["r"]}]}
    (r,) = graph_runner.GraphFunction(graph, resolver, opset=3)(np.int64(2), np.int64(5))
    assert int(r) == 25 and resolver.asked == [("hlir", "Whatever", 3)]
    # as_callable: a resolver, or a zero-argument function returning one (asked for graphs only)
    (r,) = graph_runner.as_callable(graph, resolver=lambda: resolver)(np.int64(1), np.int64(1))
    assert int(r) == 11
    fn = lambda x: x  # noqa: E731
    assert graph_runner.as_callable(fn) is fn
    with pytest.raises(TypeError, match="needs a kernel resolver"):
        graph_runner.as_callable(graph)


@pytest.mark.parametrize("result, message", [
    (np.zeros((2, 3), np.float64), "output 'r' has dtype double, the graph declares float"),
    (np.zeros((3, 2), np.float32), "output 'r' has shape [3, 2], the graph declares [2, ?]"),
    (np.zeros((2, 7), np.float32), None),
])
def test_the_runner_checks_each_result_against_the_graph_declaration(result, message):
    """A kernel's result that differs from what the graph declares for it (a kernel's fault: the
    validator accepted the declaration) is an error naming the node and the value."""
    class Resolver(FakeResolver):
        def get_kernel(self, domain, op, opset=None):
            return lambda a: (result,)

    graph = {"inputs": [{"name": "p"}], "outputs": [{"name": "r", "dtype": "float", "shape": [2, None]}],
             "nodes": [{"name": "abs", "op": "Abs", "inputs": ["p"], "outputs": ["r"]}]}
    fn = graph_runner.GraphFunction(graph, Resolver())
    if message is None:
        assert fn(np.zeros(1, np.float32))[0] is result
    else:
        with pytest.raises(graph_runner.GraphError, match=re.escape(f"node abs (hlir.Abs): {message}")):
            fn(np.zeros(1, np.float32))
