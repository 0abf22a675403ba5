"""The documentation category of an ONNX operator imported without `--category`.

onnx.defs gives each schema the source file it is defined in (`onnx/defs/<group>/defs.cc`); that
group is how ONNX itself files its operators (math, nn, tensor, logical, reduction, ...). An imported
op takes the category most of the spec folder's ONNX specs of the same group have (so a team's own
choices decide), else a fixed reading of the group; a group neither knows needs `--category`."""
from __future__ import annotations

import collections
import re
from pathlib import Path
from typing import Any

# What an ONNX group means when the spec folder has no spec of that group yet.
GROUP_CATEGORIES = {
    "math": "elementwise_math", "logical": "logic_comparison", "tensor": "data_movement_indexing",
    "nn": "convolution_pooling", "reduction": "reduction_normalization", "rnn": "recurrent",
    "generator": "random", "controlflow": "control_flow", "sequence": "sequence_optional",
    "optional": "sequence_optional", "quantization": "quantization", "image": "vision",
    "object_detection": "vision", "text": "text",
}
_FIELD = re.compile(r"^(name|category): *(\S+)", re.M)


def onnx_group(schema: Any) -> str | None:
    """The folder under onnx/defs/ the schema is defined in (None when onnx does not say)."""
    parts = str(getattr(schema, "file", "") or "").replace("\\", "/").split("/defs/")
    return parts[-1].split("/")[0] if len(parts) > 1 and "/" in parts[-1] else None


def existing_categories(folder: Path) -> dict[str, str]:
    """op name -> category of the specs in the folder (read from their top-level keys)."""
    found = {}
    for path in sorted(folder.glob("*.yaml")):
        fields = dict(_FIELD.findall(path.read_text(encoding="utf-8")))
        if "name" in fields and "category" in fields:
            found[fields["name"]] = fields["category"]
    return found


def category_from_group(name: str, history: dict[str, list[Any]], existing: dict[str, str],
                        known: list[str]) -> tuple[str | None, str]:
    """(category, why) for the op `name`; (None, why) when no choice can be made."""
    group = onnx_group(history[name][0])
    if group is None:
        return None, f"onnx does not say which group {name} belongs to"
    peers = collections.Counter(category for op, category in existing.items()
                                if op in history and onnx_group(history[op][0]) == group and category in known)
    if peers:
        category, count = peers.most_common(1)[0]
        return category, (f"category {category} from its ONNX group {group!r} ({count} of the "
                          f"{sum(peers.values())} specs of that group here have it)")
    reading = GROUP_CATEGORIES.get(group)
    if reading is not None and reading in known:
        return reading, f"category {reading} from its ONNX group {group!r}"
    return None, f"its ONNX group {group!r} names no category"
