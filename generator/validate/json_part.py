"""A part of a typed JSON document kept as raw text (opgen.validate.onednn_typed, hlir_typed), parsed
by json.loads as the whole document would have been."""
from __future__ import annotations

import json
from typing import Any

from .limits import ModelReadError


def loads_part(raw: bytes) -> Any:
    """The value of a raw part of a document msgspec decoded: json.loads' value. msgspec bounds nesting about
    as json does; where json's bound is met first, the error is the one the whole document would give."""
    try:
        return json.loads(raw)
    except RecursionError:
        raise ModelReadError("the JSON document nests too deeply") from None
