"""Shared fixtures: the project root, the specs loaded once, a scratch spec tree."""
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


@pytest.fixture
def spec_tree(tmp_path: Path) -> Path:
    """An empty spec folder with the published schemas, to write test specs into."""
    root = tmp_path / "specs"
    shutil.copytree(SPECS / "schema", root / "schema")
    return root


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
