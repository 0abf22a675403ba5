"""The spec-authoring guide (docs/<lang>/guide.md): the spec format field by field from the JSON Schemas
the specs are checked against, the formula language from opgen.formula's function table, the check
language from opgen.expr's function sets and the shape rules of opgen.runtime.shape_rules. Nothing
listed here is typed twice: a new function, rule or schema field shows up in the next build."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .. import expr
from ..formula import _BINOPS, _CMPOPS, FORMULA_FUNCTIONS, MathFunction
from ..model import SpecSet
from ..paths import BUNDLED_SPECS, SCHEMA_DIR_NAME, TEMPLATES, schema_dir
from ..runtime.shape_rules import RULES
from .common import render as render_template
from .guide_text import BROADCAST_MODES, CHECK_FUNCTIONS, KIND_HEADERS, TEXT

LANGS = ("en", "zh")
EXAMPLE_SPEC = TEMPLATES / "docs" / "guide_example.yaml"  # the worked example hlir.Foo; tests build it
_ARGUMENT_NAMES = ("x", "y", "z")  # how the tables spell a function's operands


def schema_nodes(schema: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every field of a schema with its path: `a.b` for nested properties, `a[]` for a list's items,
    `a.*` for an object under any key; then each `$defs` entry (`$defs.name`) and its fields."""
    out: list[tuple[str, dict[str, Any]]] = []

    def walk(node: dict[str, Any], path: str) -> None:
        for name, sub in node.get("properties", {}).items():
            child = f"{path}.{name}" if path else name
            out.append((child, sub))
            walk(sub, child)
        if isinstance(node.get("items"), dict):
            walk(node["items"], path + "[]")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "properties" in extra:
            out.append((f"{path}.*", extra))
            walk(extra, f"{path}.*")

    walk(schema, "")
    for name, sub in schema.get("$defs", {}).items():
        out.append((f"$defs.{name}", sub))
        walk(sub, f"$defs.{name}")
    return out


_TYPE_WORDS = {"en": dict(list_of="list of {}", list="list", value="value", any="any", either=" or "),
               "zh": dict(list_of="{} 的列表", list="列表", value="值", any="任意", either=" 或 ")}


def _type_text(node: dict[str, Any], lang: str = "en") -> str:
    """A field's type as the table shows it: the `$defs` entry it refers to, or its JSON type (a list
    with its item type)."""
    words = _TYPE_WORDS[lang]
    if "$ref" in node:
        return str(node["$ref"]).split("#/", 1)[-1].replace("/", ".")
    kind = node.get("type")
    if kind == "array":
        items = node.get("items", {})
        return words["list_of"].format(_type_text(items, lang)) if isinstance(items, dict) and items else words["list"]
    if kind is None and "enum" in node:
        return "string" if all(isinstance(v, str) for v in node["enum"]) else words["value"]
    if kind is None:
        return words["any"]
    return words["either"].join(kind) if isinstance(kind, list) else str(kind)


def _allowed_text(node: dict[str, Any]) -> str:
    """The values a field may take: its enum, pattern, bounds, default (of the field or of its items)."""
    parts = []
    nested: list[dict[str, Any]] = [node]
    nested += [node[key] for key in ("items", "additionalProperties") if isinstance(node.get(key), dict)]
    for source in nested:
        if "enum" in source:
            # names as written; other values as JSON spells them (true, not Python's True)
            parts.append(", ".join(v if isinstance(v, str) else json.dumps(v) for v in source["enum"]))
        if "pattern" in source:
            parts.append(f"pattern {source['pattern']}")
    for key, word in (("minimum", "≥"), ("minItems", "items ≥"), ("minProperties", "keys ≥")):
        if key in node:
            parts.append(f"{word} {node[key]}")
    if "default" in node:
        parts.append(f"default {json.dumps(node['default'])}")
    return "; ".join(parts)


def _description(node: dict[str, Any], lang: str) -> str:
    return str(node.get("x-description-zh" if lang == "zh" else "description", node.get("description", "")))


def schema_sections(schema: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """One section per object of the schema (the top level, each nested object, each `$defs` entry),
    listing its own fields; a `$defs` entry that is not an object is a section without rows."""
    nodes = [("", schema), *schema_nodes(schema)]
    sections = []
    for path, node in nodes:
        items = node.get("items")
        body = items if isinstance(items, dict) and "properties" in items else node
        is_definition = path.startswith("$defs.") and path.count(".") == 1
        if "properties" not in body and not is_definition:
            continue  # a plain field: a row of its parent's section
        own = path + "[]" if body is not node else path
        required = set(body.get("required", ()))
        rows = [dict(path=f"{own}.{name}" if own else name, name=name, required=name in required,
                     type=_type_text(sub, lang), allowed=_allowed_text(sub), description=_description(sub, lang))
                for name, sub in body.get("properties", {}).items()]
        sections.append(dict(path=own, type=_type_text(node, lang), allowed=_allowed_text(node),
                             description=_description(node, lang), rows=rows))
    return sections


def _spell(template: str | None, arity: int) -> str:
    return "—" if template is None else template.format(*_ARGUMENT_NAMES[:arity])


def formula_rows() -> list[dict[str, Any]]:
    """Every formula function: its arity, NumPy spelling and C spelling per operand kind, as the
    emitters use them (opgen.formula.FORMULA_FUNCTIONS)."""
    def c_of(fn: MathFunction, kind: str) -> str | None:
        if kind in ("float32", "float64"):
            return fn.c_spelling("float" if kind == "float32" else "double", "float")
        return fn.c_spelling("", kind)

    return [dict(name=name, arity=fn.arity, call=f"{name}({', '.join(_ARGUMENT_NAMES[:fn.arity])})",
                 numpy=_spell(fn.numpy, fn.arity), c=[_spell(c_of(fn, k), fn.arity) for k in KIND_HEADERS])
            for name, fn in sorted(FORMULA_FUNCTIONS.items())]


def check_rows(lang: str) -> list[dict[str, Any]]:
    """Every function a check may call, from opgen.expr's sets, with its meaning."""
    which = 0 if lang == "en" else 1
    groups = ((expr.SHAPE_FUNCTIONS, "shape"), (expr.MULTI_SHAPE_FUNCTIONS, "broadcast"),
              (expr.CHECK_BUILTINS, "builtin"))
    return [dict(name=name, group=group, attribute=name in expr.ATTRIBUTE_SHAPE_FUNCTIONS,
                 text=CHECK_FUNCTIONS.get(name, ("", ""))[which])
            for names, group in groups for name in sorted(names)]


def rule_rows() -> list[dict[str, str]]:
    """Every shape rule: its arguments with their kinds (optional ones in brackets) and the first
    paragraph of its docstring, on one line."""
    rows = []
    for name, rule in sorted(RULES.items()):
        args = ", ".join(f"[{arg} ({kind})]" if arg in rule.optional else f"{arg} ({kind})" for arg, kind in rule.kinds)
        doc = " ".join((rule.fn.__doc__ or "").strip().split("\n\n")[0].split())  # the first paragraph
        rows.append(dict(name=name, args=args, doc=doc))
    return rows


def _schemas(specs: SpecSet) -> tuple[dict[str, Any], dict[str, Any]]:
    """The op and domain schemas the specs were checked against (their folder's own, else opgen's)."""
    folder = BUNDLED_SPECS / SCHEMA_DIR_NAME
    if specs.domains:
        folder = schema_dir(Path(specs.domains[0].location.file).resolve().parent.parent)
    op, domain = (json.loads((folder / f"{name}.schema.json").read_text(encoding="utf-8")) for name in ("op", "domain"))
    return op, domain


def guide_page(specs: SpecSet, lang: str) -> bytes:
    op_schema, domain_schema = _schemas(specs)
    T = dict(TEXT[lang])
    T["operators"] = T["operators"].format(binops=", ".join(f"`{o}`" for o in _BINOPS.values()),
                                           cmps=", ".join(f"`{o}`" for o in _CMPOPS.values()))
    which = 0 if lang == "en" else 1
    broadcast_enum = op_schema["$defs"]["version"]["properties"]["elementwise"]["properties"]["broadcast"]["enum"]
    return render_template(
        "docs/guide.md.j2", T=T, kinds=KIND_HEADERS,
        op_sections=schema_sections(op_schema, lang), domain_sections=schema_sections(domain_schema, lang),
        functions=formula_rows(), checks=check_rows(lang), rules=rule_rows(),
        broadcasts=[dict(name=m, text=BROADCAST_MODES.get(m, ("", ""))[which]) for m in broadcast_enum],
        example_spec=EXAMPLE_SPEC.read_text(encoding="utf-8"))


def guide_files(specs: SpecSet) -> dict[str, bytes]:
    return {f"docs/{lang}/guide.md": guide_page(specs, lang) for lang in LANGS}
