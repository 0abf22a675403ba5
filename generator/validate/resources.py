"""Files the validator reads besides the model: the hlir graph JSON Schema and domain files.

They come from the spec folder given with --specs, else from opgen's own specs/ folder next to the
package (opgen is installed editable from its repository) — never from the current directory: a
verdict must not depend on where the command runs, and a specs/ folder planted there (a schema with
a catastrophic regular expression, other dtype names) must not reach the checks."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from ..paths import BUNDLED_SPECS
from .limits import ModelReadError

HLIR_GRAPH_SCHEMA = "hlir-graph.schema.json"
PACKAGE_SPECS = BUNDLED_SPECS  # the specs opgen ships (in the wheel, or the repository when editable)


def spec_folders(specs_dir: Path | None = None) -> list[Path]:
    """Where resources are looked up, in order: --specs, then opgen's own specs."""
    folders = [Path(specs_dir)] if specs_dir is not None else []
    folders.append(PACKAGE_SPECS)
    return [f for f in folders if f.is_dir()]


def find_file(relative: str, specs_dir: Path | None = None) -> Path | None:
    for folder in spec_folders(specs_dir):
        if (folder / relative).is_file():
            return folder / relative
    return None


@lru_cache(maxsize=None)
def _load_json(path: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc


def hlir_graph_schema(specs_dir: Path | None = None) -> dict[str, Any]:
    path = find_file(f"schema/{HLIR_GRAPH_SCHEMA}", specs_dir)
    if path is None:
        raise ModelReadError(f"cannot find the hlir graph schema (specs/schema/{HLIR_GRAPH_SCHEMA}) in "
                             f"{PACKAGE_SPECS}; pass the spec folder with --specs")
    return _load_json(str(path))


def published_hlir_graph_schema() -> dict[str, Any] | None:
    """opgen's own hlir graph schema (None when it is not installed)."""
    path = PACKAGE_SPECS / "schema" / HLIR_GRAPH_SCHEMA
    return _load_json(str(path)) if path.is_file() else None


def domain_dtype_names(domain: str, specs_dir: Path | None = None) -> dict[str, str]:
    """`dtype_names` of specs/<domain>/domain.yaml ({} when the domain file has none)."""
    path = find_file(f"{domain}/domain.yaml", specs_dir)
    if path is None:
        raise ModelReadError(f"cannot find specs/{domain}/domain.yaml in {PACKAGE_SPECS} for the {domain} dtype "
                             "names; pass the spec folder with --specs")
    raw = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    names = raw.get("dtype_names", {}) if isinstance(raw, dict) else {}
    return {str(k): str(v) for k, v in names.items()}


@lru_cache(maxsize=None)
def stablehlo_names(specs_dir: Path | None = None) -> dict[str, str]:
    """StableHLO/CHLO op name -> hlir op, from the `stablehlo` field of specs/hlir/*.yaml (the field sits
    before `versions`, so only each file's head is parsed)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    folder = find_file("hlir/domain.yaml", specs_dir)
    if folder is None:
        raise ModelReadError(f"cannot find specs/hlir/domain.yaml in {PACKAGE_SPECS} for the StableHLO op names; "
                             "pass the spec folder with --specs")
    names: dict[str, str] = {}
    for path in sorted(folder.parent.glob("*.yaml")):
        head = path.read_text(encoding="utf-8").split("\nversions:", 1)[0]
        raw = yaml.load(head, Loader=loader)
        if isinstance(raw, dict) and isinstance(raw.get("stablehlo"), list):
            for name in raw["stablehlo"]:
                names.setdefault(str(name), str(raw["name"]))
    return names
