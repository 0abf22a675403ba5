"""Where opgen's own files are: the package, the templates the renderers use and the bundled specs.

Two layouts, one rule: a wheel carries the templates and the specs (with their JSON Schemas and source
documents) inside the package, as `opgen/templates` and `opgen/specs`; an editable install from the
repository has them beside the package (`templates/`, `specs/`). The installed copy wins when present.
"""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def _data_dir(name: str) -> Path:
    installed = PACKAGE_DIR / name  # a wheel: package data
    return installed if installed.is_dir() else PACKAGE_DIR.parent / name  # the repository


TEMPLATES = _data_dir("templates")
BUNDLED_SPECS = _data_dir("specs")  # the onnx, onednn and hlir specs opgen ships with
SCHEMA_DIR_NAME = "schema"


def project_root() -> Path:
    """The folder holding specs/: the current directory or one of its parents."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "specs").is_dir():
            return folder
    return here


def project_specs() -> Path | None:
    """The specs/ folder of the project the command runs in (the current directory or a parent), if any."""
    specs = project_root() / "specs"
    return specs if specs.is_dir() else None


def reading_specs(given: Path | None) -> Path:
    """The spec folder a reading command (list, show, lint) uses: --specs, else the project's, else the
    bundled specs (so `opgen list` works anywhere after a plain `pip install`)."""
    return given or project_specs() or BUNDLED_SPECS


def schema_dir(specs_root: Path) -> Path:
    """The JSON Schemas a spec folder is checked against: its own schema/ folder when it has one (a
    project may pin the schema it was written for), else the schemas opgen ships."""
    own = Path(specs_root) / SCHEMA_DIR_NAME
    return own if (own / "op.schema.json").is_file() else BUNDLED_SPECS / SCHEMA_DIR_NAME
