"""Shared fixtures: the project root, the specs loaded once, the generated C built once, a scratch spec tree."""
from __future__ import annotations

import functools
import shutil
import zlib
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from opgen.model import SpecSet
from opgen.parse import load_or_raise

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


@functools.lru_cache(maxsize=None)
def project_specs() -> SpecSet:
    """The project's specs, loaded once per test process (loading them takes seconds; the model is
    frozen, so every module can share it)."""
    return load_or_raise(SPECS)


def get_kernel(domain: str, op: str, version: int = 1) -> Callable[..., Any]:
    """A generated kernel: the one lookup the test modules share (hlir: kernel_refs.kernel)."""
    import opgen_ops

    return opgen_ops.get_kernel(domain, op, version)


def onnx_kernel(op: str, version: int) -> Callable[..., Any]:
    return get_kernel("onnx", op, version)


def onednn_kernel(op: str) -> Callable[..., Any]:
    """oneDNN Graph ops have one version each."""
    return get_kernel("onednn", op, 1)


@pytest.fixture(scope="session")
def specs():
    return project_specs()


@pytest.fixture(scope="session")
def c_library(tmp_path_factory):
    """Every generated C source compiled with -Werror into one shared library, once per test run: the
    pytest-xdist workers share it (their base folders have one parent)."""
    from c_harness import shared_library

    return shared_library(tmp_path_factory.getbasetemp().parent)


@pytest.fixture(autouse=True)
def _rng_per_test(request: pytest.FixtureRequest) -> None:
    """A test module's shared random stream `RNG` restarts for every test from a seed taken from the
    test's id: a test's inputs do not depend on which tests ran before it in the same process (under
    pytest-xdist, each worker runs a different subset in its own order)."""
    module = request.node.module if hasattr(request.node, "module") else None
    if module is not None and isinstance(getattr(module, "RNG", None), np.random.Generator):
        module.RNG = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


@pytest.fixture
def spec_tree(tmp_path: Path) -> Path:
    """An empty spec folder with the published schemas, to write test specs into."""
    return empty_spec_tree(tmp_path / "specs")


def empty_spec_tree(root: Path) -> Path:
    """The published schemas and one source document (`demo.txt`) for test specs to cite."""
    shutil.copytree(SPECS / "schema", root / "schema")
    write(root / "sources" / "demo.txt", "A demo source document.\n")
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
