"""`opgen show domain.Op@version`: everything the spec says of one op version, as text or as JSON.

Both forms come from one view (`version_view`), so the JSON never says less than the text."""
from __future__ import annotations

import re
from typing import Any

from .model import Constraint, Note, OpSpec, OpVersion, Text

_REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:@(\d+))?$")


def parse_ref(ref: str) -> tuple[str, str, int | None]:
    m = _REF.match(ref)
    if not m:
        raise ValueError(f"{ref!r} is not of the form domain.Op or domain.Op@version (e.g. onnx.PRelu@9)")
    return m.group(1), m.group(2), int(m.group(3)) if m.group(3) else None


def _text(text: Text | None, lang: str) -> str:
    return "" if text is None else text.get(lang)


def _note(n: Note, lang: str) -> dict[str, Any]:
    view: dict[str, Any] = {"id": n.id, "kind": n.kind, "text": _text(n.text, lang)}
    if n.field:
        view["field"] = n.field
    if n.document_says:
        view["document_says"] = n.document_says
    return view


def _constraint(c: Constraint, lang: str) -> dict[str, Any]:
    view: dict[str, Any] = {"id": c.id, "description": _text(c.description, lang)}
    if c.check:
        view["check"] = c.check
    if c.rule:
        view["rule"] = c.rule
        view["args"] = {k: v for k, v in c.args}
    if c.when:
        view["when"] = c.when
    return view


def _plain(value: Any) -> Any:
    """Example values as JSON can hold them (tuples of pairs become objects)."""
    if isinstance(value, tuple) and all(isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str)
                                        for p in value) and value:
        return {k: _plain(v) for k, v in value}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value != value:
        return "nan"
    if isinstance(value, float) and value in (float("inf"), float("-inf")):
        return "inf" if value > 0 else "-inf"
    return value


def version_view(op: OpSpec, v: OpVersion, lang: str) -> dict[str, Any]:
    """Every field of one version (and the op-level notes), in one language."""
    view: dict[str, Any] = {
        "op": f"{op.domain}.{op.name}", "version": v.since_version, "key": v.key, "category": op.category,
        "versions": [x.since_version for x in op.versions], "summary": _text(v.summary, lang),
        "deprecated": v.deprecated,
        "attributes": [{"name": a.name, "type": a.type, "required": a.required,
                        **({"default": _plain(a.default)} if a.has_default else {}),
                        **({"values": list(a.values)} if a.values else {}),
                        "description": _text(a.description, lang)} for a in v.attributes],
        "inputs": [_parameter(p, lang) for p in v.inputs],
        "outputs": [_parameter(p, lang, v.output_shape(p)) for p in v.outputs],
        "type_constraints": [{"name": tc.name, "types": list(tc.types), "description": _text(tc.description, lang)}
                             for tc in v.type_constraints],
        "constraints": [_constraint(c, lang) for c in v.constraints],
        "kernel": ("formula" if v.elementwise else v.kernel) or None,
        "sources": [{"document": s.document, **({"section": s.section} if s.section else {}),
                     **({"url": s.url} if s.url else {})} for s in op.sources],
        "notes": [_note(n, lang) for n in (*op.notes, *v.notes)],
        "examples": [{"name": e.name, "dtype": e.dtype, "attributes": _plain(e.attributes),
                      "inputs": _plain(e.inputs), "outputs": _plain(e.outputs),
                      **({"description": _text(e.description, lang)} if e.description else {}),
                      **({"source": e.source} if e.source else {})} for e in v.examples],
    }
    if v.elementwise:
        view["formula"] = f"{v.elementwise.output} = {v.elementwise.formula}"
    return view


def _parameter(p: Any, lang: str, shape: str | None = None) -> dict[str, Any]:
    """An input or output; `shape`: an output's shape as the spec states it or its formula implies."""
    view: dict[str, Any] = {"name": p.name, "type": p.type, "option": p.option, "description": _text(p.description, lang)}
    if shape:
        view["shape"] = shape
    return view


def describe(op: OpSpec, v: OpVersion, lang: str) -> str:
    """The text form: one heading per part, parts without entries left out."""
    view = version_view(op, v, lang)
    lines = [f"{v.key}  ({op.category}; versions: {', '.join(map(str, view['versions']))})"
             + ("  [deprecated]" if v.deprecated else ""), "", view["summary"], ""]

    def section(title: str, rows: list[str]) -> None:
        if rows:
            lines.extend([f"{title}:", *rows, ""])

    section("attributes", [
        f"  {a['name']}: {a['type']}" + (f" in {{{', '.join(map(str, a['values']))}}}" if "values" in a else "")
        + (" (required)" if a["required"] else f" (default {a['default']!r})" if "default" in a else " (optional)")
        + f" - {a['description']}" for a in view["attributes"]])
    for side in ("inputs", "outputs"):
        section(side, [f"  {p['name']}: {p['type']}" + ("" if p["option"] == "single" else f" ({p['option']})")
                       + (f" shape {p['shape']}" if "shape" in p else "") + f" - {p['description']}"
                       for p in view[side]])
    section("type constraints", [f"  {tc['name']} in ({', '.join(tc['types'])})" for tc in view["type_constraints"]])
    section("constraints", [f"  {c['id']}: {c.get('check') or c.get('rule')}"
                            + (f" {c['args']}" if c.get("args") else "")
                            + (f" (when {c['when']})" if "when" in c else "") + f" - {c['description']}"
                            for c in view["constraints"]])
    kernel = view.get("formula") or (f"runtime function {view['kernel']}" if view["kernel"] else "none")
    section("kernel", [f"  {kernel}"])
    section("notes", [f"  [{n['kind']}] {n['id']}" + (f" ({n['field']})" if "field" in n else "") + f": {n['text']}"
                      for n in view["notes"]])
    section("examples", [f"  {e['name']}: inputs {e['inputs']}"
                         + (f", attributes {e['attributes']}" if e["attributes"] else "")
                         + f" -> {e['outputs']} ({e['dtype']})"
                         + (f"\n    {e['description']}" if "description" in e else "") for e in view["examples"]])
    section("sources", [f"  {s['document']}" + (f" §{s['section']}" if "section" in s else "")
                        + (f" <{s['url']}>" if "url" in s else "") for s in view["sources"]])
    return "\n".join(lines).rstrip() + "\n"
