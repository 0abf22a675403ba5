"""Shared fixtures: the project root, the specs loaded once, the generated C built once, a scratch spec tree."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from opgen.parse import load_specs

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"


@pytest.fixture(scope="session")
def specs():
    loaded, errors = load_specs(SPECS)
    assert [e for e in errors if e.severity == "error"] == []
    return loaded


@pytest.fixture(scope="session")
def c_library(tmp_path_factory):
    """Every generated C source compiled with -Werror into one shared library, once per test session."""
    from c_harness import build_library

    return build_library(tmp_path_factory.mktemp("c"))


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
