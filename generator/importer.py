"""`opgen import onnx --op NAME ...`: write specs for ONNX operators from the installed onnx package.

Every version of each named op (domain "" / ai.onnx) becomes one spec file specs/onnx/<Op>.yaml with
what onnx.defs knows: attributes (type, required, default), inputs and outputs (option, homogeneity,
arity), type constraints, support level, function body, shape inference. Texts are ONNX's English
documentation; the Chinese texts are missing (`opgen lint` lists them), and so are what onnx.defs
does not hold: element-wise formulas, shape constraints, examples.

Files the importer writes carry a first-line marker; it overwrites only files with that marker and
refuses to touch a hand-written spec. Element types opgen has no name for (string, float8, int4,
...) and non-tensor types (sequences, optionals, maps) are left out of type constraints, with a
warning; an op that cannot be written without them is reported and skipped.
"""
from __future__ import annotations

import difflib
import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from .dtypes import ELEM_TYPES, tensor_elem
from .errors import OpgenError

MARK = "# opgen-import: onnx"
DOMAIN = "onnx"
_ATTR_TYPES = {"INT": "int", "FLOAT": "float", "STRING": "string", "INTS": "ints", "FLOATS": "floats",
               "STRINGS": "strings", "TENSOR": "tensor", "GRAPH": "graph"}
_OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}


class ImportFailed(OpgenError):
    """The import cannot proceed at all (nothing is written)."""


@dataclass
class ImportResult:
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was done besides writing op specs
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # ops not imported, or problems in what was written
    missing_texts: int = 0  # texts of the written specs without Chinese (or English), as `opgen lint` counts


def categories(schema_dir: Path) -> list[str]:
    schema = json.loads((schema_dir / "op.schema.json").read_text(encoding="utf-8"))
    return list(schema["properties"]["category"]["enum"])


def import_onnx(names: list[str], specs_dir: Path, category: str | None = None) -> ImportResult:
    import onnx
    import onnx.defs

    result = ImportResult()
    specs_dir = Path(specs_dir)
    _ensure_schemas(specs_dir, result)
    known = categories(specs_dir / "schema")
    if category is not None and category not in known:
        raise ImportFailed(f"unknown category {category!r}; one of: {', '.join(known)}")
    history: dict[str, list] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in ("", "ai.onnx"):
            history.setdefault(s.name, []).append(s)
    folder = specs_dir / DOMAIN
    planned: list[tuple[str, Path, str, list]] = []
    for name in names:
        if name not in history:
            close = difflib.get_close_matches(name, list(history), n=3)
            result.errors.append(f"{name}: onnx {onnx.__version__} has no operator {name} in the default domain"
                                 + (f" (did you mean {', '.join(close)}?)" if close else ""))
            continue
        path = folder / f"{name}.yaml"
        existing_category = None
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if not text.startswith(MARK):
                result.errors.append(f"{name}: {path} is a hand-written spec; opgen import does not overwrite it "
                                     "(move it away to import the op)")
                continue
            found = re.search(r"^category:\s*(\S+)\s*$", text, re.M)
            existing_category = found.group(1) if found else None
        chosen = category or existing_category
        if chosen is None:
            raise ImportFailed(f"{name}: give --category for a new spec (one of: {', '.join(known)})")
        planned.append((name, path, chosen, sorted(history[name], key=lambda s: -s.since_version)))

    texts: list[tuple[str, Path, str, list[int]]] = []
    for name, path, chosen, schemas in planned:
        try:
            texts.append((name, path, _op_yaml(name, chosen, schemas, onnx.__version__, result),
                          [s.since_version for s in schemas]))
        except _Unsupported as exc:
            result.errors.append(f"{name}: not imported: {exc}")
    if not texts:
        return result
    _ensure_source_document(specs_dir, onnx.__version__, result)
    _update_domain(folder, sorted({v for *_, versions in texts for v in versions}), onnx.__version__, result)
    for name, path, text, versions in texts:
        path.write_text(text, encoding="utf-8")
        result.written.append(path)
    _check_written(specs_dir, [p for _, p, _, _ in texts], result)
    return result


# ---- one op ------------------------------------------------------------------------------------------

class _Unsupported(Exception):
    pass


def _text(value: str | None) -> dict:
    return {"en": (value or "").strip()}


def _plain_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float):
        return float(str(np.float32(value)))  # ONNX stores float32: the shortest text that round-trips
    if isinstance(value, (list, tuple)):
        return [_plain_default(v) for v in value]
    return value


def _types(allowed: list[str], dropped: dict[str, None]) -> list[str]:
    kept = []
    for t in allowed:
        if tensor_elem(t) in ELEM_TYPES:
            kept.append(t)
        else:
            dropped[t] = None
    return sorted(kept)


def _version(name: str, s: Any, result: ImportResult, dropped: dict[str, None]) -> dict:
    import onnx
    from onnx import helper

    key = f"{name}@{s.since_version}"
    v: dict[str, Any] = {"since_version": s.since_version, "support_level": s.support_level.name,
                         "function": bool(s.has_function or s.has_context_dependent_function)}
    if s.has_function and s.function_opset_versions:
        opset = max(s.function_opset_versions)
        v["function_opset"] = opset
        body = s.get_function_with_opset_version(opset)
        if isinstance(body, bytes):  # the C++ binding hands out the serialized FunctionProto
            body = onnx.FunctionProto.FromString(body)
        v["function_body"] = onnx.printer.to_text(body).strip() + "\n"
    v["shape_inference"] = bool(s.has_type_and_shape_inference_function)
    v["summary"] = _text(s.doc)
    attributes = []
    for a in sorted(s.attributes.values(), key=lambda a: a.name):
        kind = _ATTR_TYPES.get(a.type.name)
        if kind is None:
            raise _Unsupported(f"{key}: attribute {a.name} is of type {a.type.name}, which opgen specs cannot express")
        entry: dict[str, Any] = {"name": a.name, "type": kind}
        if a.required:
            entry["required"] = True
        if a.default_value.name:
            default = helper.get_attribute_value(a.default_value)
            if kind in ("tensor", "graph"):
                result.warnings.append(f"{key}: the default of {kind} attribute {a.name} is left out")
            else:
                entry["default"] = _plain_default(default)
        if kind == "tensor":
            raise _Unsupported(f"{key}: tensor attribute {a.name} needs a tensor_type, which onnx.defs does not give")
        entry["description"] = _text(a.description)
        attributes.append(entry)
    v["attributes"] = attributes
    variables = {t.type_param_str for t in s.type_constraints}
    for side, params in (("inputs", s.inputs), ("outputs", s.outputs)):
        out = []
        for p in params:
            if p.type_str not in variables and tensor_elem(p.type_str) not in ELEM_TYPES:
                raise _Unsupported(f"{key}: {side[:-1]} {p.name} has type {p.type_str}")
            entry = {"name": p.name, "type": p.type_str}
            option = _OPTION[p.option.name]
            if option != "single":
                entry["option"] = option
            if option == "variadic":
                if not p.is_homogeneous:
                    entry["homogeneous"] = False
                entry["min_arity"] = p.min_arity
            entry["description"] = _text(p.description)
            out.append(entry)
        v[side] = out
    constraints = []
    for t in s.type_constraints:
        types = _types(list(t.allowed_type_strs), dropped)
        if not types:
            raise _Unsupported(f"{key}: type constraint {t.type_param_str} allows no type opgen knows "
                               f"({', '.join(t.allowed_type_strs)})")
        constraints.append({"name": t.type_param_str, "types": types, "description": _text(t.description)})
    v["type_constraints"] = constraints
    return v


def _op_yaml(name: str, category: str, schemas: list, onnx_version: str, result: ImportResult) -> str:
    dropped: dict[str, None] = {}
    versions = [_version(name, s, result, dropped) for s in schemas]
    if dropped:
        shown = list(dropped)
        result.warnings.append(f"{name}: type constraints leave out {len(shown)} type(s) opgen has no element type "
                               f"for: {', '.join(shown[:8])}" + (", ..." if len(shown) > 8 else ""))
    doc = {
        "name": name,
        "domain": DOMAIN,
        "category": category,
        "sources": [{"document": defs_document(onnx_version), "language": "en",
                     "url": f"https://onnx.ai/onnx/operators/onnx__{name}.html"}],
        "notes": [{"id": "imported", "kind": "info",
                   "text": {"en": f"Imported by `opgen import onnx` from the schemas of onnx {onnx_version}; the "
                                  "texts are ONNX's English documentation. Chinese texts, element-wise formulas, "
                                  "shape constraints and examples are not in onnx.defs and are to be added by "
                                  "hand (delete the first line of this file first, so a new import leaves it "
                                  "alone)."}}],
        "versions": versions,
    }
    return (f"{MARK} {onnx_version}. Written by `opgen import onnx`; a new import overwrites this file.\n"
            "# yaml-language-server: $schema=../schema/op.schema.json\n" + _dump(doc))


# ---- YAML --------------------------------------------------------------------------------------------

class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        text = "\n".join(line.rstrip() for line in value.split("\n"))
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def _dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100, default_flow_style=None)


# ---- the domain file, the schemas, the check -----------------------------------------------------------

def _ensure_schemas(specs_dir: Path, result: ImportResult) -> None:
    if (specs_dir / "schema" / "op.schema.json").is_file():
        return
    source = Path(__file__).resolve().parents[1] / "specs" / "schema"
    if not (source / "op.schema.json").is_file():
        raise ImportFailed(f"{specs_dir} has no schema/ folder and opgen's own schemas are not installed")
    shutil.copytree(source, specs_dir / "schema", dirs_exist_ok=True)
    result.notes.append(f"copied the spec schemas to {specs_dir / 'schema'}")


def defs_document(onnx_version: str) -> str:
    """The file in specs/sources/ that stands for the onnx package's schemas an import read."""
    return f"onnx-{onnx_version}-defs.md"


def _ensure_source_document(specs_dir: Path, onnx_version: str, result: ImportResult) -> None:
    """Imported specs cite the onnx package's operator schemas; every cited source is a file in
    specs/sources/, so the import writes one that says what was read and how to read it again."""
    path = specs_dir / "sources" / defs_document(onnx_version)
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"# onnx {onnx_version} operator schemas\n\n"
        f"Specs that cite this file were imported by `opgen import onnx` from the operator schemas of the\n"
        f"onnx Python package, version {onnx_version} (`onnx.defs.get_all_schemas_with_history()`): names,\n"
        "versions, attributes with their types and defaults, inputs and outputs, type constraints, support\n"
        "level and function bodies. To read the same facts again: `pip install onnx=="
        f"{onnx_version}`, then `opgen import onnx --op NAME`.\n", encoding="utf-8")
    result.notes.append(f"wrote {path} (the source document imported specs cite)")


def _update_domain(folder: Path, versions: list[int], onnx_version: str, result: ImportResult) -> None:
    path = folder / "domain.yaml"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        _write_domain(path, versions, onnx_version)
        result.notes.append(f"wrote {path} (opset versions {', '.join(map(str, versions))})")
        return
    text = path.read_text(encoding="utf-8")
    match = re.search(r"^opset_versions:\s*\[([0-9,\s]*)\][ \t]*$", text, re.M)
    if match is None:
        raise ImportFailed(f"{path}: cannot find a one-line `opset_versions: [...]` to add versions "
                           f"{', '.join(map(str, versions))} to")
    have = [int(x) for x in re.findall(r"\d+", match.group(1))]
    missing = sorted(set(versions) - set(have))
    if not missing:
        return
    if text.startswith(MARK):
        _write_domain(path, sorted(set(have) | set(versions)), onnx_version)
    else:
        merged = ", ".join(map(str, sorted(set(have) | set(versions))))
        path.write_text(text[:match.start()] + f"opset_versions: [{merged}]" + text[match.end():], encoding="utf-8")
    result.notes.append(f"added opset versions {', '.join(map(str, missing))} to {path}")


def _write_domain(path: Path, versions: list[int], onnx_version: str) -> None:
    doc = {
        "name": DOMAIN,
        "description": {"en": 'The default ONNX operator set (domain "" / ai.onnx), imported from the schemas of '
                              f"onnx {onnx_version}."},
        "opset_versions": versions,
        "versioning": {"en": "Each operator version carries the opset version that introduced it (since_version); "
                             "a model importing opset N uses the newest version with since_version <= N."},
        "type_groups": {},
    }
    path.write_text(f"{MARK} {onnx_version}. Written by `opgen import onnx`; a new import overwrites this file.\n"
                    "# yaml-language-server: $schema=../schema/domain.schema.json\n" + _dump(doc), encoding="utf-8")


def _check_written(specs_dir: Path, paths: list[Path], result: ImportResult) -> None:
    """Load the spec folder as `opgen build` would; report errors in the files just written."""
    from .lint import missing_translations
    from .parse import load_specs

    specs, errors = load_specs(specs_dir)
    stems = {p.stem for p in paths}
    for e in errors:
        if e.severity == "error" and (Path(e.location.file).stem in stems or Path(e.location.file).name == "domain.yaml"
                                      and DOMAIN in Path(e.location.file).parts):
            result.errors.append(str(e))
    missing = [p for p in missing_translations(specs)
               if p.op.startswith(f"{DOMAIN}.") and p.op[len(DOMAIN) + 1:].split("@")[0] in stems]
    result.missing_texts = len(missing)
