"""Where opgen's own files are: the package, and the templates the renderers use."""
from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
TEMPLATES = PACKAGE_DIR.parent / "templates"
