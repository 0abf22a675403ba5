"""Read spec files into the typed model: YAML -> JSON Schema -> frozen dataclasses.

Structure (keys, types, enums) is judged by the published JSON Schema, so the
format is defined once; `check.py` then judges meaning on the typed model.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, cast

from . import paths
from .errors import suggest
from .errors import Location, SpecError, SpecErrors
from .files import read_regular
from .model import (Attribute, Constraint, Domain, Elementwise, Example, Note, OpSpec, OpVersion, Pairs, Parameter,
                    Provenance, Source, SpecSet, Text, TypeConstraint, TypeGroup)
from .yaml_loader import LocDict, load_yaml, locate

SCHEMA_DIR = "schema"
SOURCES_DIR = "sources"  # the source documents the specs are transcribed from (not a domain)
RESERVED_FOLDERS = frozenset({SCHEMA_DIR, SOURCES_DIR})
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@lru_cache(maxsize=None)
def _validator(specs_root: str, name: str) -> Any:
    """The full validator (jsonschema): slow, but it lists every error with its path."""
    import jsonschema
    from referencing import Registry, Resource

    schema_dir = paths.schema_dir(Path(specs_root))
    resources = []
    for path in sorted(schema_dir.glob("*.schema.json")):
        doc = json.loads(path.read_text(encoding="utf-8"))
        resources.append((path.name, Resource.from_contents(doc)))
        resources.append((doc.get("$id", path.name), Resource.from_contents(doc)))
    registry = Registry().with_resources(resources)
    schema = json.loads((schema_dir / name).read_text(encoding="utf-8"))
    return jsonschema.Draft202012Validator(schema, registry=registry)


class _Invalid(ValueError):
    """Raised by the compiled validator (it stands for fastjsonschema's JsonSchemaValueException)."""


_FASTJSONSCHEMA_IMPORT = "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException"


@lru_cache(maxsize=None)
def _fast_validator(specs_root: str, name: str) -> tuple[Callable[[Any], Any], type[Exception]]:
    """A compiled validator (fastjsonschema, ~30x faster) that only says valid or not, and the
    exception it raises; files it rejects go through `_validator` for located messages. The compiled
    code is cached per schema and fastjsonschema version, and runs without importing fastjsonschema
    (its import costs more than an edit's schema checks): the exception it raises is ours."""
    import importlib.util
    import marshal
    import os
    import sys

    from . import cache

    schema_dir = paths.schema_dir(Path(specs_root))
    docs = {p.name: p.read_bytes() for p in sorted(schema_dir.glob("*.schema.json"))}
    library = importlib.util.find_spec("fastjsonschema")
    origin = library.origin if library is not None and library.origin else ""
    installed = os.stat(origin) if origin else None  # reinstalling or upgrading rewrites the package
    key = hashlib.sha256(repr((sorted(docs.items()), name, origin, installed and installed.st_mtime_ns,
                               installed and installed.st_size, sys.version)).encode()).hexdigest()
    entry = f"schema-{key[:32]}.marshal"
    code = None
    blob = cache.load(entry)
    if blob is not None:
        try:
            code = marshal.loads(blob)
        except (ValueError, EOFError, TypeError):
            code = None
    if code is None:
        import fastjsonschema

        schemas = {n: json.loads(d) for n, d in docs.items()}
        source = fastjsonschema.compile_to_code(
            schemas[name], handlers={"https": lambda uri: schemas[uri.rsplit("/", 1)[-1].split("#")[0]]},
            use_default=False, detailed_exceptions=False)
        code = compile(source.replace(_FASTJSONSCHEMA_IMPORT, ""), f"<schema {name}>", "exec")
        cache.store(entry, marshal.dumps(code))
    namespace: dict[str, Any] = {"JsonSchemaValueException": _Invalid, "JsonSchemaValuesException": _Invalid}
    exec(code, namespace)  # noqa: S102 - code generated here from the project's own schema
    entry_point = next(n for n in code.co_names if n.startswith("validate_"))
    # Another version of fastjsonschema may word its import differently: the code then imports its
    # own exception class, and that is the one to catch.
    return namespace[entry_point], namespace["JsonSchemaValueException"]


def _schema_errors(data: Any, schema: str, specs_root: Path, filename: str, op: str) -> list[SpecError]:
    validate, invalid = _fast_validator(str(specs_root), schema)
    try:
        validate(data)
        return []
    except invalid:
        pass  # invalid: the full validator says where and why
    errors = []
    for err in _validator(str(specs_root), schema).iter_errors(data):
        path = list(err.absolute_path)
        message = err.message
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            allowed = sorted(err.schema.get("properties", {}))
            for key in sorted(set(err.instance) - set(allowed)):
                loc = getattr(err.instance, "key_locs", {}).get(key) or locate(data, path) or Location(filename)
                errors.append(SpecError(loc, f"unknown key {key!r}{suggest(str(key), allowed)}; allowed keys: "
                                        f"{', '.join(allowed)}", op, _dotted(path + [key])))
            continue
        if err.validator == "required":
            missing = re.search(r"'([^']+)' is a required property", message)
            if missing and isinstance(err.instance, dict) and any(
                    suggest(str(k), [missing.group(1)]) for k in err.instance if k not in err.schema.get(
                        "properties", {})):
                continue  # a misspelt key: its unknown-key error says which one was meant (one fault, one error)
            message = f"missing required key {missing.group(1)!r}" if missing else message
        elif err.validator == "pattern":
            message = f"{err.instance!r} is not allowed here; expected a string matching {err.validator_value}"
        elif err.validator == "type":
            message = f"{_short(err.instance)} has the wrong type; expected {err.validator_value}"
        errors.append(SpecError(locate(data, path) or Location(filename), message, op, _dotted(path)))
    return errors


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _dotted(path: list[Any]) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _text(raw: dict[str, Any] | None) -> Text | None:
    return Text(en=raw.get("en"), zh=raw.get("zh")) if raw else None


def _required_text(raw: dict[str, Any]) -> Text:
    """A text the schema requires (never empty: it has at least one language)."""
    return Text(en=raw.get("en"), zh=raw.get("zh"))


def _loc(raw: Any, fallback: Location) -> Location:
    return getattr(raw, "loc", fallback)


def _notes(raw: list[Any] | None, fallback: Location) -> tuple[Note, ...]:
    return tuple(
        Note(text=_required_text(n["text"]), location=_loc(n, fallback), id=n.get("id", ""), kind=n.get("kind", "info"),
             field=n.get("field", ""), document_says=n.get("document_says", ""))
        for n in raw or ()
    )


def _items(raw: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    return tuple((k, _plain(v)) for k, v in (raw or {}).items())


def _plain(value: Any) -> Any:
    """Loaded YAML as plain, hashable-friendly Python (lists become tuples)."""
    if isinstance(value, list):
        return tuple(_plain(v) for v in value)
    if isinstance(value, dict):
        return Pairs((k, _plain(v)) for k, v in value.items())
    return value


def build_domain(raw: LocDict, filename: str) -> Domain:
    loc = raw.loc
    groups = tuple(
        TypeGroup(name, tuple(g["types"]), _required_text(g["description"])) for name, g in raw["type_groups"].items()
    )
    return Domain(
        name=raw["name"], description=_required_text(raw["description"]), opset_versions=tuple(raw["opset_versions"]),
        type_groups=groups, location=loc, versioning=_text(raw.get("versioning")),
        dtype_names=tuple(raw.get("dtype_names", {}).items()), notes=_notes(raw.get("notes"), loc),
        float_attributes=raw.get("float_attributes", "float64"),
        onnx_domains=tuple((name, tuple(v)) for name, v in raw.get("onnx_domains", {}).items()),
    )


def build_op(raw: LocDict, groups: dict[str, tuple[str, ...]]) -> OpSpec:
    loc = raw.loc
    prov = raw.get("provenance")
    versions = tuple(_build_version(v, raw["domain"], raw["name"], groups, loc) for v in raw["versions"])
    return OpSpec(
        domain=raw["domain"], name=raw["name"], category=raw["category"],
        sources=tuple(Source(s.get("document"), s.get("section"), s.get("language"), s.get("url"))
                      for s in raw["sources"]),
        versions=versions, location=loc,
        provenance=Provenance(prov["documented"], prov.get("follows"), prov.get("reference"),
                              _text(prov.get("explanation"))) if prov else Provenance(),
        notes=_notes(raw.get("notes"), loc), extension=raw.get("extension"),
        stablehlo=tuple(raw.get("stablehlo", ())), onnx_domain=raw.get("onnx_domain"),
    )


def expand_types(written: list[str], groups: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """Resolve @group references, keeping first-seen order and dropping repeats."""
    out: list[str] = []
    for t in written:
        for x in groups.get(t[1:], ()) if t.startswith("@") else (t,):
            if x not in out:
                out.append(x)
    return tuple(out)


def _build_version(raw: LocDict, domain: str, op: str, groups: dict[str, tuple[str, ...]],
                   fallback: Location) -> OpVersion:
    loc = _loc(raw, fallback)

    def attr(a: LocDict) -> Attribute:
        return Attribute(
            name=a["name"], type=a["type"], description=_required_text(a["description"]), location=_loc(a, loc),
            required=bool(a.get("required", False)), has_default="default" in a, default=_plain(a.get("default")),
            default_each=a.get("default_each"), values=tuple(a.get("values", ())),
            tensor_type=a.get("tensor_type"), written_as=a.get("written_as"),
        )

    def param(p: LocDict) -> Parameter:
        return Parameter(
            name=p["name"], type=p["type"], description=_required_text(p["description"]), location=_loc(p, loc),
            option=p.get("option", "single"), homogeneous=p.get("homogeneous", True),
            min_arity=p.get("min_arity", 1 if p.get("option") == "variadic" else 0),
            written_as=p.get("written_as"), shape=p.get("shape"),
        )

    ew = raw.get("elementwise")
    outputs = tuple(param(p) for p in raw["outputs"])
    return OpVersion(
        domain=domain, op=op, since_version=raw["since_version"], summary=_required_text(raw["summary"]),
        attributes=tuple(attr(a) for a in raw.get("attributes", ())),
        inputs=tuple(param(p) for p in raw["inputs"]), outputs=outputs,
        type_constraints=tuple(
            TypeConstraint(t["name"], expand_types(t["types"], groups), tuple(t["types"]),
                           _required_text(t["description"]), _loc(t, loc), t.get("written_as"),
                           bool(t.get("unused", False)))
            for t in raw["type_constraints"]),
        location=loc, support_level=raw.get("support_level"), function=raw.get("function"),
        function_body=raw.get("function_body"), function_opset=raw.get("function_opset"),
        shape_inference=raw.get("shape_inference"), deprecated=bool(raw.get("deprecated", False)),
        elementwise=Elementwise(ew["formula"], ew.get("output", outputs[0].name if outputs else ""),
                                ew.get("broadcast", "multidirectional"), _loc(ew, loc),
                                tuple(ew.get("types", ())), tuple(ew.get("absent", {}).items()),
                                ew.get("fold"), ew.get("finish")) if ew else None,
        kernel=raw["kernel"]["function"] if "kernel" in raw else None,
        shape_from_node=tuple(raw["kernel"].get("shape_from_node", ())) if "kernel" in raw else (),
        count_from_node=tuple(raw["kernel"].get("count_from_node", ())) if "kernel" in raw else (),
        dtype_from=tuple((output, tuple(names)) for output, names in raw["kernel"].get("dtype_from", {}).items())
        if "kernel" in raw else (),
        requested_outputs=bool(raw["kernel"].get("requested_outputs", False)) if "kernel" in raw else False,
        constraints=tuple(
            Constraint(c["id"], _required_text(c["description"]), _loc(c, loc), c.get("check"), c.get("rule"),
                       _items(c.get("args")), c.get("when"))
            for c in raw.get("constraints", ())),
        examples=tuple(
            Example(e["name"], _items(e["inputs"]), _items(e["outputs"]), _items(e.get("attributes")),
                    _loc(e, loc), e.get("dtype", "float"), e.get("source", ""), _items(e.get("dtypes")),
                    _text(e.get("description")))
            for e in raw.get("examples", ())),
        notes=_notes(raw.get("notes"), loc),
    )


def display_path(path: Path, root: Path) -> str:
    """How errors name a file of the spec folder `root`: relative to the folder above it."""
    try:
        return str(path.relative_to(root.parent)) if root.parent != path else str(path)
    except ValueError:
        return str(path)


OpLoader = Callable[[Path, Path, Domain], "tuple[OpSpec | None, list[SpecError]]"]
DomainLoader = Callable[[Path, Path], "tuple[Domain | None, list[SpecError]]"]


def load_op(path: Path, root: Path, domain: Domain) -> tuple[OpSpec | None, list[SpecError]]:
    """Read, structure-check, build and meaning-check one op spec file of `domain`."""
    from .check import check_op

    raw_op, errors = _load_file(path, root, "op.schema.json", f"{domain.name}.{path.stem}")
    if raw_op is None:
        return None, errors
    groups = {g.name: g.types for g in domain.type_groups}
    op = build_op(raw_op, groups)
    return op, errors + check_op(op, domain, root)


def load_domain(path: Path, root: Path) -> tuple[Domain | None, list[SpecError]]:
    raw, errors = _load_file(path, root, "domain.schema.json", path.parent.name)
    return (build_domain(raw, display_path(path, root)) if raw is not None else None), errors


def spec_folders(root: Path) -> tuple[list[Path], list[SpecError]]:
    """The domain folders under `root` (every folder but schema/ and sources/)."""
    errors = []
    folders = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and p.name not in RESERVED_FOLDERS):
        shown = display_path(folder, root)
        if not _IDENT.fullmatch(folder.name):
            errors.append(SpecError(Location(shown), f"domain folder name {folder.name!r} is not an identifier"))
        elif not (folder / "domain.yaml").is_file():
            errors.append(SpecError(Location(shown), "missing domain.yaml (domain description, opset versions, "
                                                     "type groups)"))
        else:
            folders.append(folder)
    return folders, errors


def op_files(folder: Path) -> list[Path]:
    """The op files of a domain folder: *.yaml, then *.yml, each sorted, not hidden (as glob), not domain.yaml.
    Listed with os.listdir: two pathlib globs cost an edit's build several times more."""
    import os

    names = [n for n in os.listdir(folder) if not n.startswith(".") and n != "domain.yaml"]
    return [folder / n for ext in (".yaml", ".yml") for n in sorted(names) if n.endswith(ext)]


def load_specs(specs_root: Path | str, op_loader: OpLoader = load_op,
               domain_loader: DomainLoader = load_domain) -> tuple[SpecSet, list[SpecError]]:
    """Load every domain under `specs_root`; returns the model and all problems found.

    Files with structural errors are left out of the model, so checks and renderers only ever
    see well-formed data. `op_loader` reads one op file, `domain_loader` one domain.yaml (a build
    may answer both from its cache).
    """
    from .check import check_specs

    root = Path(specs_root)
    if not root.is_dir():
        return SpecSet(()), [SpecError(Location(str(root)), "specs folder not found")]
    folders, errors = spec_folders(root)
    if not folders and not errors:  # nothing to build: a mistaken --specs, not an empty output to write
        hint = (f"it is a domain folder: give the folder above it (--specs {root.parent})"
                if (root / "domain.yaml").is_file() else
                "a spec folder holds one folder per domain, each with a domain.yaml")
        return SpecSet(()), [SpecError(Location(str(root)), f"no domain folder in this specs folder; {hint}")]
    domains: list[Domain] = []
    for folder in folders:
        domain, errs = domain_loader(folder / "domain.yaml", root)
        errors += errs
        if domain is None:
            continue
        ops = []
        for path in op_files(folder):
            op, errs = op_loader(path, root, domain)
            errors += errs
            if op is not None:
                ops.append(op)
        domains.append(dataclasses.replace(domain, ops=tuple(sorted(ops, key=lambda o: o.name))))
    specs = SpecSet(tuple(domains))
    errors += check_specs(specs, root)
    return specs, errors


def load_single_op(specs_root: Path | str, domain_name: str,
                   op_name: str) -> tuple[list[str], list[str], OpSpec | None, list[SpecError]]:
    """One op of one domain, read alone (what `opgen show` needs: the whole set takes seconds to load).
    Returns the domain names, the op names of that domain (file stems: a spec's name is its file's),
    the op (None when it has no file, or its file does not load) and the problems of the files read."""
    root = Path(specs_root)
    if not root.is_dir():
        return [], [], None, [SpecError(Location(str(root)), "specs folder not found")]
    folders, errors = spec_folders(root)
    domains = [f.name for f in folders]
    if domain_name not in domains:
        return domains, [], None, errors
    folder = root / domain_name
    files = op_files(folder)
    names = [p.stem for p in files]
    path = next((p for p in files if p.stem == op_name), None)
    domain, errs = load_domain(folder / "domain.yaml", root)
    errors = errs
    if domain is None or path is None:
        return domains, names, None, errors
    op, errs = load_op(path, root, domain)
    return domains, names, op, errors + errs


def _load_file(path: Path, root: Path, schema: str, op: str) -> tuple[LocDict | None, list[SpecError]]:
    shown = display_path(path, root)
    try:
        # decoded with universal newlines, as read_text did (locations count "\r\n" as one line break)
        text = read_regular(path).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [SpecError(Location(shown), f"cannot read file: {exc}", op)]
    data, errors = load_yaml(text, shown)
    if errors or data is None:
        return None, errors or [SpecError(Location(shown), "empty file; expected a mapping", op)]
    if not isinstance(data, dict):
        return None, [SpecError(Location(shown, 1, 1), f"expected a mapping at the top, found {type(data).__name__}",
                                op)]
    errors = _schema_errors(data, schema, root, shown, op)
    return (None if errors else cast(LocDict, data)), errors  # load_yaml builds every mapping as a LocDict


def load_or_raise(specs_root: Path | str) -> SpecSet:
    specs, errors = load_specs(specs_root)
    real = [e for e in errors if e.severity == "error"]
    if real:
        raise SpecErrors(real)
    return specs
