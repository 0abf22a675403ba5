"""Renderers: typed model -> {relative path: bytes}. Each renderer owns one kind of output."""
from __future__ import annotations

from ..model import SpecSet


def render_all(specs: SpecSet) -> dict[str, bytes]:
    from . import c_code, docs, python_ops, tests

    files: dict[str, bytes] = {}
    for renderer in (python_ops, c_code, docs, tests):
        files.update(renderer.render(specs))
    return files
