"""What `opgen import onnx` keeps when it writes a spec again, and how it writes the YAML.

Facts (names, types, defaults, versions) always come fresh from onnx.defs. Everything a person added
to an imported spec is kept: texts, constraints, element-wise formulas, kernels, examples, notes,
output shapes, attribute value lists and the category. Texts may also come from a texts folder (one
`<Op>.yaml` per operator, slots keyed `summary`, `attributes.<name>`, `inputs.<name>`, ...); a slot
with no text anywhere gets ONNX's English text, which `opgen lint` then reports as untranslated.

Versions whose texts or entries are equal share one YAML anchor, so a text is written (and edited)
once however many versions carry it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from .errors import OpgenError

# Keys of a version the importer writes from onnx.defs; every other key of an existing version is kept.
FACT_KEYS = ("since_version", "support_level", "deprecated", "function", "function_opset", "function_body",
             "shape_inference", "summary", "attributes", "inputs", "outputs", "type_constraints")
# Keys of an attribute / parameter / type constraint that are facts; others (values, shape, ...) are kept.
ENTRY_FACTS = {"attributes": ("name", "type", "required", "default", "tensor_type", "description"),
               "inputs": ("name", "type", "option", "homogeneous", "min_arity", "description"),
               "outputs": ("name", "type", "option", "homogeneous", "min_arity", "description"),
               "type_constraints": ("name", "types", "unused", "description")}
SIDES = tuple(ENTRY_FACTS)
# An op's texts: (slot, version; None for every version) -> {"en": ..., "zh": ...}.
Texts = dict[tuple[str, int | None], dict[str, Any]]


class TextsError(OpgenError):
    """A texts file that cannot be used (not YAML, wrong shape, a slot or version that does not exist)."""


def slot_texts(doc: dict[str, Any], where: str) -> Texts:
    """A texts file's content as {(slot, since_version): {en, zh}}."""
    out: Texts = {}
    for slot, entries in doc.items():
        if slot == "category":
            continue
        if isinstance(entries, dict):
            entries = [entries]
        if not isinstance(entries, list):
            raise TextsError(f"{where}: {slot}: expected a mapping with en/zh or a list of them")
        for e in entries:
            if not isinstance(e, dict) or not {"en", "zh"} <= set(e) or set(e) - {"en", "zh", "versions"}:
                raise TextsError(f"{where}: {slot}: each entry has en, zh and optionally versions")
            versions = e.get("versions", "all")
            if versions != "all" and not (isinstance(versions, list)
                                          and all(isinstance(v, int) and not isinstance(v, bool) for v in versions)):
                raise TextsError(f"{where}: {slot}: versions is 'all' or a list of since_versions, found {versions!r}")
            for v in ([None] if versions == "all" else versions):
                out[(slot.removesuffix("..."), v)] = {"en": str(e["en"]).strip(), "zh": str(e["zh"]).strip()}
    return out


def read_texts(folder: Path | None, name: str) -> tuple[Texts, str | None]:
    """The texts (and category) a texts folder holds for an op; empty when it has no file."""
    if folder is None:
        return {}, None
    path = Path(folder) / f"{name}.yaml"
    if not path.is_file():
        return {}, None
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise TextsError(f"{path}: not readable YAML: {exc}") from None
    if not isinstance(doc, dict):
        raise TextsError(f"{path}: expected a mapping of slots")
    return slot_texts(doc, str(path)), doc.get("category")


def existing_texts(old: dict[str, Any] | None) -> Texts:
    """The texts of a spec written before, by slot and version (to keep them on a new import)."""
    out: Texts = {}
    for v in (old or {}).get("versions", []):
        since = v.get("since_version")
        if isinstance(v.get("summary"), dict):
            out[("summary", since)] = dict(v["summary"])
        for side in SIDES:
            for e in v.get(side) or []:
                if isinstance(e, dict) and isinstance(e.get("description"), dict):
                    out[(f"{side}.{e.get('name')}", since)] = dict(e["description"])
    return out


def pick_text(slot: str, since: int, onnx_text: str, *sources: Texts) -> dict[str, Any]:
    """The first source's text for a slot at a version (a version-less entry covers every version);
    ONNX's English text when no source has one."""
    for source in sources:
        found = source.get((slot, since)) or source.get((slot, None))
        if found and found.get("en"):
            return {k: found[k] for k in ("en", "zh") if found.get(k)}
    return {"en": onnx_text}


def keep_curated(new: dict[str, Any], old: dict[str, Any] | None) -> dict[str, Any]:
    """New facts, with everything else an earlier spec of the same version held (see FACT_KEYS)."""
    if not old:
        return new
    merged = dict(new)
    for key, value in old.items():
        if key not in FACT_KEYS:
            merged[key] = value
    for side in SIDES:
        before = {e.get("name"): e for e in old.get(side) or [] if isinstance(e, dict)}
        entries = []
        for entry in new.get(side, []):
            prior = before.get(entry["name"], {})
            extra = {k: v for k, v in prior.items() if k not in ENTRY_FACTS[side]}
            entries.append({**entry, **extra})
        merged[side] = entries
    return merged


# ---- sharing and writing -------------------------------------------------------------------------

def share(versions: list[dict[str, Any]]) -> None:
    """Make equal texts and entries across versions one object each (one YAML anchor each)."""
    seen: dict[str, Any] = {}

    def intern(value: Any) -> Any:
        key = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
        return seen.setdefault(key, value)

    for v in versions:
        for key in ("summary", "function_body", "elementwise", "examples", "constraints"):
            if key in v and v[key] not in (None, [], ""):
                v[key] = intern(v[key])
        for side in SIDES:
            v[side] = [intern(e) for e in v.get(side, [])]


class _Dumper(yaml.SafeDumper):
    """Block style for multi-line strings; anchors named after what they hold."""

    def ignore_aliases(self, data: Any) -> bool:
        return not isinstance(data, (dict, list)) and not (isinstance(data, str) and "\n" in data)

    def generate_anchor(self, node: yaml.Node) -> str:
        self._anchors = getattr(self, "_anchors", 0) + 1
        label = "a"
        if isinstance(node, yaml.MappingNode):
            keys = [k.value for k, _ in node.value]
            names = [v.value for k, v in node.value if k.value == "name"]
            label = names[0] if names else "text" if "en" in keys else keys[0] if keys else "map"
        elif isinstance(node, yaml.SequenceNode):
            label = "list"
        elif isinstance(node, yaml.ScalarNode):
            label = "body"
        return f"{label}_{self._anchors}"


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    if "\n" in value:
        text = "\n".join(line.rstrip() for line in value.split("\n"))
        return dumper.represent_scalar("tag:yaml.org,2002:str", text, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


def _list(dumper: yaml.SafeDumper, value: list[Any]) -> yaml.Node:
    # Lists of plain values (type lists, defaults) on one line; lists of entries as blocks.
    flow = all(isinstance(x, (str, int, float, bool)) and not (isinstance(x, str) and "\n" in x) for x in value)
    return dumper.represent_sequence("tag:yaml.org,2002:seq", value, flow_style=flow)


_Dumper.add_representer(str, _str)
_Dumper.add_representer(list, _list)


def dump(doc: Any) -> str:
    return yaml.dump(doc, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
