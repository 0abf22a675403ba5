"""JSON model files decoded into typed records where their kind has them (opgen.validate.hlir_typed,
opgen.validate.onednn_typed): a faster way to the answer json.loads and the dict readers give."""
from __future__ import annotations

from typing import Any


def decode(data: bytes, kind: str | None) -> Any | None:
    """The typed records of an hlir graph or a oneDNN Graph document (kind None: either; "hlir" or
    "onednn": that kind only), or None when no records take the document whole. Each kind's records
    refuse the other's at its first key (hlir's "format", oneDNN's "version" string)."""
    if kind in (None, "hlir"):
        from .hlir_typed import decode as hlir

        found = hlir(data)
        if found is not None:
            return found
    if kind in (None, "onednn"):
        from .onednn_typed import decode as onednn

        return onednn(data)
    return None
