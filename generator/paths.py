"""Where opgen's own files are: the package, and the templates the renderers use."""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
TEMPLATES = PACKAGE_DIR.parent / "templates"


def project_root() -> Path:
    """The folder holding specs/: the current directory or one of its parents."""
    here = Path.cwd()
    for folder in (here, *here.parents):
        if (folder / "specs").is_dir():
            return folder
    return here
