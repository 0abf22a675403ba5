"""`opgen show domain.Op@version`: a plain-text view of one op version."""
from __future__ import annotations

import re

from .model import OpSpec, OpVersion

_REF = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(?:@(\d+))?$")


def parse_ref(ref: str) -> tuple[str, str, int | None]:
    m = _REF.match(ref)
    if not m:
        raise ValueError(f"{ref!r} is not of the form domain.Op or domain.Op@version (e.g. onnx.PRelu@9)")
    return m.group(1), m.group(2), int(m.group(3)) if m.group(3) else None


def describe(op: OpSpec, v: OpVersion, lang: str) -> str:
    lines = [f"{v.key}  ({op.category}; versions: {', '.join(str(x.since_version) for x in op.versions)})", "",
             v.summary.get(lang), ""]
    if v.attributes:
        lines.append("attributes:")
        for a in v.attributes:
            req = "required" if a.required else (f"default {a.default!r}" if a.has_default else "optional")
            vals = f" in {{{', '.join(map(str, a.values))}}}" if a.values else ""
            lines.append(f"  {a.name}: {a.type}{vals} ({req}) - {a.description.get(lang)}")
    for side, params in (("inputs", v.inputs), ("outputs", v.outputs)):
        lines.append(f"{side}:")
        for p in params:
            opt = "" if p.option == "single" else f" ({p.option})"
            lines.append(f"  {p.name}: {p.type}{opt} - {p.description.get(lang)}")
    lines.append("type constraints:")
    for tc in v.type_constraints:
        lines.append(f"  {tc.name} in ({', '.join(tc.types)})")
    if v.elementwise:
        lines.append(f"formula: {v.elementwise.output} = {v.elementwise.formula}")
    for c in v.constraints:
        lines.append(f"  {c.id}: {c.check or c.rule} - {c.description.get(lang)}")
    return "\n".join(lines).rstrip() + "\n"
