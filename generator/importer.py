"""`opgen import onnx`: write specs for ONNX operators from the installed onnx package.

Every version of each named op (domain "" / ai.onnx), or of every op with `--all`, becomes one spec
file specs/onnx/<Op>.yaml with what onnx.defs knows: attributes (type, required, default), inputs and
outputs (option, homogeneity, arity), type constraints (every type ONNX names: tensors of every
element type, sequences, optionals), support level, deprecation, function body, shape inference.

Importing again refreshes those facts and keeps what people added (import_merge.py): texts,
constraints, formulas, kernels, examples, notes. Texts come from `--texts DIR` (one <Op>.yaml of
slots per op), else from the spec written before, else ONNX's English documentation (which
`opgen lint` reports as lacking Chinese). Files the importer writes carry a first-line marker; it
never touches a spec without it (a hand transcription such as the seed PRelu and Elu).
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

from .files import write_atomically
from .dtypes import parse_type
from .errors import OpgenError
from .import_merge import (Texts, TextsError, dump, existing_texts, keep_curated, pick_text, read_texts, share)
from .import_category import category_from_group, existing_categories
from .paths import BUNDLED_SPECS

MARK = "# opgen-import: onnx"
DOMAIN = "onnx"
_ATTR_TYPES = {"INT": "int", "FLOAT": "float", "STRING": "string", "INTS": "ints", "FLOATS": "floats",
               "STRINGS": "strings", "TENSOR": "tensor", "GRAPH": "graph", "SPARSE_TENSOR": "sparse_tensor",
               "TYPE_PROTO": "type_proto"}
_OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}
# onnx.defs does not say which type a tensor attribute holds; for Constant and ConstantOfShape it is the
# type of their output (the op returns the attribute's tensor, or fills its shape with its value).
# ai.onnx.ml's LabelEncoder holds its keys in the input's type and its values (and default) in the
# output's; TreeEnsemble's thresholds, weights and sets are of its input type, its node modes uint8.
_TENSOR_ATTRIBUTE_TYPES = {("Constant", "value"): "T", ("ConstantOfShape", "value"): "T2",
                           ("LabelEncoder", "keys_tensor"): "T1", ("LabelEncoder", "values_tensor"): "T2",
                           ("LabelEncoder", "default_tensor"): "T2", ("TreeEnsemble", "nodes_splits"): "T",
                           ("TreeEnsemble", "nodes_hitrates"): "T", ("TreeEnsemble", "leaf_weights"): "T",
                           ("TreeEnsemble", "membership_values"): "T", ("TreeEnsemble", "nodes_modes"): "tensor(uint8)"}


class ImportFailed(OpgenError):
    """The import cannot proceed at all (nothing is written)."""


@dataclass
class ImportResult:
    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was done besides writing op specs
    warnings: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # ops not imported, or problems in what was written
    missing_texts: int = 0  # texts of the written specs without Chinese (or English), as `opgen lint` counts
    skipped: list[str] = field(default_factory=list)  # hand-written specs left alone by --all


def categories(schema_dir: Path) -> list[str]:
    schema = json.loads((schema_dir / "op.schema.json").read_text(encoding="utf-8"))
    return list(schema["properties"]["category"]["enum"])


def onnx_history(onnx_domain: str = "") -> dict[str, list[Any]]:
    """Every schema of an ONNX operator domain (default: "" / ai.onnx) by op name, newest version first."""
    import onnx.defs

    wanted = ("", "ai.onnx") if onnx_domain in ("", "ai.onnx") else (onnx_domain,)
    history: dict[str, list[Any]] = {}
    for s in onnx.defs.get_all_schemas_with_history():
        if s.domain in wanted:
            history.setdefault(s.name, []).append(s)
    for schemas in history.values():
        schemas.sort(key=lambda s: -s.since_version)
    return history


def import_onnx(names: list[str], specs_dir: Path, category: str | None = None, texts_dir: Path | None = None,
                all_ops: bool = False, onnx_domain: str = "") -> ImportResult:
    """onnx_domain: the ONNX operator domain the ops belong to (ai.onnx.ml, ...); its specs carry the field
    onnx_domain and count their versions in that domain's opsets (listed by hand in domain.yaml)."""
    import onnx

    result = ImportResult()
    specs_dir = Path(specs_dir)
    _ensure_schemas(specs_dir, result)
    known = categories(specs_dir / "schema")
    if category is not None and category not in known:
        raise ImportFailed(f"unknown category {category!r}; one of: {', '.join(known)}")
    if texts_dir is not None and not Path(texts_dir).is_dir():
        raise ImportFailed(f"texts folder not found: {texts_dir}")
    onnx_domain = "" if onnx_domain == "ai.onnx" else onnx_domain
    history = onnx_history(onnx_domain)
    if not history:
        raise ImportFailed(f"onnx {onnx.__version__} has no operator domain {onnx_domain!r}")
    folder = specs_dir / DOMAIN
    existing = existing_categories(folder) if category is None else {}
    planned: list[tuple[str, Path, str, list[Any], dict[str, Any] | None, Texts]] = []
    for name in (sorted(history) if all_ops else names):
        if name not in history:
            close = difflib.get_close_matches(name, list(history), n=3)
            result.errors.append(f"{name}: onnx {onnx.__version__} has no operator {name} in the "
                                 f"{repr(onnx_domain) if onnx_domain else 'default'} domain"
                                 + (f" (did you mean {', '.join(close)}?)" if close else ""))
            continue
        path = folder / f"{name}.yaml"
        old = None
        if path.exists():
            text = path.read_text(encoding="utf-8")
            if not text.startswith(MARK):
                if all_ops:
                    result.skipped.append(name)
                else:
                    result.errors.append(f"{name}: {path} is a hand-written spec; opgen import does not overwrite "
                                         "it (move it away to import the op)")
                continue
            try:
                old = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                result.errors.append(f"{name}: {path} is not readable YAML ({exc}); fix or remove it first")
                continue
            if not isinstance(old, dict) or not isinstance(old.get("versions"), list) or \
                    not all(isinstance(v, dict) for v in old["versions"]):
                result.errors.append(f"{name}: {path} is not a spec (a mapping with a list of versions); fix or "
                                     "remove it first")
                continue
        try:
            given, texts_category = read_texts(texts_dir, name)
        except TextsError as exc:
            result.errors.append(str(exc))
            continue
        chosen = category or texts_category or (old or {}).get("category")
        if chosen is None:
            chosen, why = category_from_group(name, history, existing, known)
            if chosen is None:
                result.errors.append(f"{name}: {why}: give --category (one of: {', '.join(known)})")
                continue
            result.notes.append(f"{name}: {why}")
        if chosen not in known:
            result.errors.append(f"{name}: unknown category {chosen!r}; one of: {', '.join(known)}")
            continue
        planned.append((name, path, chosen, history[name], old, given))

    written: list[tuple[str, Path, str, list[int]]] = []
    for name, path, chosen, schemas, old, given in planned:
        try:
            written.append((name, path, _op_yaml(name, chosen, schemas, onnx.__version__, result, old, given,
                                                 onnx_domain),
                            [s.since_version for s in schemas]))
        except _Unsupported as exc:
            result.errors.append(f"{name}: not imported: {exc}")
    if not written:
        return result
    _ensure_source_document(specs_dir, onnx.__version__, result)
    if onnx_domain:
        _list_onnx_domain(folder, onnx_domain, history, result)
    else:
        _update_domain(folder, sorted({v for *_, versions in written for v in versions}), onnx.__version__, result)
    for name, path, text, versions in written:
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            _write_text(path, text)
        result.written.append(path)
    _check_written(specs_dir, [p for _, p, _, _ in written], result)
    return result


# ---- one op ------------------------------------------------------------------------------------------

class _Unsupported(Exception):
    pass


def _plain_default(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float):
        return float(str(np.float32(value)))  # ONNX stores float32: the shortest text that round-trips
    if isinstance(value, (list, tuple)):
        return [_plain_default(v) for v in value]
    return value


def _types(key: str, var: str, allowed: list[str]) -> list[str]:
    unknown = [t for t in allowed if parse_type(t) is None]
    if unknown:  # never dropped silently: a type opgen cannot name stops the op
        raise _Unsupported(f"{key}: type constraint {var} allows {', '.join(unknown)}, which opgen has no type for")
    return sorted(allowed)


def _version(name: str, s: Any, result: ImportResult, texts: tuple[Texts, ...]) -> dict[str, Any]:
    import onnx
    from onnx import helper

    key = f"{name}@{s.since_version}"
    since = s.since_version

    def text(slot: str, onnx_text: str | None) -> dict[str, Any]:
        return pick_text(slot, since, (onnx_text or "").strip(), *texts)

    v: dict[str, Any] = {"since_version": since, "support_level": s.support_level.name}
    if s.deprecated:
        v["deprecated"] = True
    v["function"] = bool(s.has_function or s.has_context_dependent_function)
    if s.has_function and s.function_opset_versions:
        opset = max(s.function_opset_versions)
        v["function_opset"] = opset
        body = s.get_function_with_opset_version(opset)
        if isinstance(body, bytes):  # the C++ binding hands out the serialized FunctionProto
            body = onnx.FunctionProto.FromString(body)
        v["function_body"] = onnx.printer.to_text(body).strip() + "\n"
    v["shape_inference"] = bool(s.has_type_and_shape_inference_function)
    v["summary"] = text("summary", s.doc)
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
            if kind in ("tensor", "graph", "sparse_tensor", "type_proto"):
                result.warnings.append(f"{key}: the default of {kind} attribute {a.name} is left out")
            else:
                entry["default"] = _plain_default(default)
        if kind == "tensor":
            if (name, a.name) not in _TENSOR_ATTRIBUTE_TYPES:
                raise _Unsupported(f"{key}: tensor attribute {a.name} needs a tensor_type, which onnx.defs does not give")
            entry["tensor_type"] = _TENSOR_ATTRIBUTE_TYPES[(name, a.name)]
        entry["description"] = text(f"attributes.{a.name}", a.description)
        attributes.append(entry)
    v["attributes"] = attributes
    variables = {t.type_param_str for t in s.type_constraints}
    for side, params in (("inputs", s.inputs), ("outputs", s.outputs)):
        out = []
        for p in params:
            if p.type_str not in variables and parse_type(p.type_str) is None:
                raise _Unsupported(f"{key}: {side[:-1]} {p.name} has type {p.type_str}")
            name_ = p.name
            if name_.endswith("...") and name_[:-3].isidentifier():  # Split-1/2 name theirs "outputs..."
                name_ = name_[:-3]
                v.setdefault("notes", []).append(_dots_note(side, name_, p.name))
            entry = {"name": name_, "type": p.type_str}
            option = _OPTION[p.option.name]
            if option != "single":
                entry["option"] = option
            if option == "variadic":
                if not p.is_homogeneous:
                    entry["homogeneous"] = False
                entry["min_arity"] = p.min_arity
            entry["description"] = text(f"{side}.{name_}", p.description)
            out.append(entry)
        v[side] = out
    typed = {p.type_str for p in (*s.inputs, *s.outputs)}
    v["type_constraints"] = [
        {"name": t.type_param_str, "types": _types(key, t.type_param_str, list(t.allowed_type_strs)),
         **({"unused": True} if t.type_param_str not in typed else {}),  # declared, typing nothing (Tile-1's T1)
         "description": text(f"type_constraints.{t.type_param_str}", t.description)}
        for t in s.type_constraints]
    return v


def _op_yaml(name: str, category: str, schemas: list[Any], onnx_version: str, result: ImportResult,
             old: dict[str, Any] | None, given: Texts, onnx_domain: str = "") -> str:
    kept = existing_texts(old)
    old_versions = {v.get("since_version"): v for v in (old or {}).get("versions", []) if isinstance(v, dict)}
    versions = [keep_curated(_version(name, s, result, (given, kept)), old_versions.get(s.since_version))
                for s in schemas]
    share(versions)
    doc: dict[str, Any] = {"name": name, "domain": DOMAIN}
    if onnx_domain:
        doc["onnx_domain"] = onnx_domain
    # ONNX's operator pages: onnx__Relu.html, onnx_aionnxml_LabelEncoder.html
    page = f"onnx_{onnx_domain.replace('.', '')}_{name}" if onnx_domain else f"onnx__{name}"
    doc.update({"category": category, "sources": [{"document": defs_document(onnx_version), "language": "en",
                                                   "url": f"https://onnx.ai/onnx/operators/{page}.html"}]})
    notes = [n for n in (old or {}).get("notes", []) if isinstance(n, dict) and n.get("id") != "imported"]
    doc["notes"] = [_imported_note(onnx_version, own_texts=bool(given or kept))] + notes
    doc["versions"] = versions
    return (f"{MARK} {onnx_version}. Written by `opgen import onnx`; a new import refreshes the facts and "
            "keeps texts, constraints, formulas and examples.\n"
            "# yaml-language-server: $schema=../schema/op.schema.json\n" + dump(doc))


def _dots_note(side: str, name: str, spelled: str) -> dict[str, Any]:
    return {"id": f"{name}_spelling", "kind": "decision", "field": f"{side}.{name}", "document_says": spelled,
            "text": {"en": f"onnx.defs names this variadic {side[:-1]} {spelled!r}; the dots are the variadic mark "
                           f"of ONNX's documentation, not part of a name, so the spec names it {name!r}.",
                     "zh": f"onnx.defs 把这个可变数量的{'输入' if side == 'inputs' else '输出'}命名为 {spelled!r}；"
                           f"其中的点号是 ONNX 文档中表示可变数量的记号,并非名称的一部分,因此规格将其命名为 {name!r}。"}}


def _imported_note(onnx_version: str, own_texts: bool) -> dict[str, Any]:
    if own_texts:
        return {"id": "imported", "kind": "info", "text": {
            "en": f"Facts (names, types, defaults, versions) are imported by `opgen import onnx` from the "
                  f"operator schemas of onnx {onnx_version}; the texts are opgen's own, in English and Chinese.",
            "zh": f"事实 (名称、类型、默认值、版本) 由 `opgen import onnx` 从 onnx {onnx_version} 的算子模式导入；"
                  "文本为 opgen 自己撰写的英文和中文。"}}
    return {"id": "imported", "kind": "info", "text": {
        "en": f"Imported by `opgen import onnx` from the schemas of onnx {onnx_version}; the texts are ONNX's "
              "English documentation. Chinese texts, element-wise formulas, shape constraints and examples are "
              "not in onnx.defs and are to be added (a new import keeps them)."}}


# ---- the domain file, the schemas, the check -----------------------------------------------------------

def _ensure_schemas(specs_dir: Path, result: ImportResult) -> None:
    if (specs_dir / "schema" / "op.schema.json").is_file():
        return
    source = BUNDLED_SPECS / "schema"
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
    _write_text(path,
        f"# onnx {onnx_version} operator schemas\n\n"
        f"Specs that cite this file were imported by `opgen import onnx` from the operator schemas of the\n"
        f"onnx Python package, version {onnx_version} (`onnx.defs.get_all_schemas_with_history()`): names,\n"
        "versions, attributes with their types and defaults, inputs and outputs, type constraints, support\n"
        "level and function bodies. To read the same facts again: `pip install onnx=="
        f"{onnx_version}`, then `opgen import onnx --op NAME`.\n")
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
        _write_text(path, text[:match.start()] + f"opset_versions: [{merged}]" + text[match.end():])
    result.notes.append(f"added opset versions {', '.join(map(str, missing))} to {path}")


def _list_onnx_domain(folder: Path, onnx_domain: str, history: dict[str, list[Any]], result: ImportResult) -> None:
    """List another ONNX domain, with its opset versions (every since_version of its ops in onnx.defs),
    under onnx_domains in domain.yaml, where its ops' versions are checked."""
    path = folder / "domain.yaml"
    if not path.exists():
        raise ImportFailed(f"{path} does not exist: import an op of the default domain first (the onnx domain "
                           f"file lists {onnx_domain} among its onnx_domains)")
    text = path.read_text(encoding="utf-8")
    if re.search(rf"^  {re.escape(onnx_domain)}:", text, re.M):
        return
    versions = sorted({s.since_version for schemas in history.values() for s in schemas})
    line = f"  {onnx_domain}: [{', '.join(map(str, versions))}]\n"
    block = re.search(r"^onnx_domains:[ \t]*\n", text, re.M) or re.search(r"^opset_versions:.*\n", text, re.M)
    if block is None:
        raise ImportFailed(f"{path}: cannot find `opset_versions:` to list {onnx_domain} after")
    head = "" if block.group(0).startswith("onnx_domains") else "onnx_domains:\n"
    _write_text(path, text[:block.end()] + head + line + text[block.end():])
    result.notes.append(f"listed {onnx_domain} (opset versions {', '.join(map(str, versions))}) in {path}")


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
    _write_text(path, f"{MARK} {onnx_version}. Written by `opgen import onnx`; a new import overwrites this file.\n"
                      "# yaml-language-server: $schema=../schema/domain.schema.json\n" + dump(doc))


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


def _write_text(path: Path, text: str) -> None:
    """A spec file written whole or not at all (opgen.files): an interrupted import leaves the old one."""
    write_atomically(str(path), text.encode("utf-8"))
