"""How a generated NumPy kernel spells spec names (Python keywords and ambiguous letters, attributes
named like an input) and what its docstring says."""
from __future__ import annotations

import keyword
import textwrap
from functools import lru_cache
from typing import Any

from ..dtypes import type_key
from ..model import OpVersion
from ..names import attribute_keyword

AMBIGUOUS = ("l", "O", "I")  # names PEP 8 (ruff E741) forbids for variables: MaxUnpool's input I


def py_name(name: str) -> str:
    """A spec name as a Python identifier: keywords and the ambiguous one-letter names with a "_"."""
    return name + "_" if keyword.iskeyword(name) or name in AMBIGUOUS else name


def attribute_keywords(v: OpVersion) -> dict[str, str]:
    """Each attribute's keyword in the kernel's signature, by attribute name: its own name, or
    `<name>_attr` where an input has the name (Split-1's `split`; names.attribute_keyword)."""
    inputs = {p.name for p in v.inputs}
    return {a.name: attribute_keyword(a.name, inputs) for a in v.attributes}


@lru_cache(maxsize=4096)
def _wrap(text: str, indent: str = "") -> tuple[str, ...]:
    """textwrap.wrap at 110 columns, never at a hyphen; remembered, as ops and versions repeat their
    docstring lines (type constraint lists above all: a full build wraps 1 216 texts 4 472 times)."""
    return tuple(textwrap.wrap(text, width=110, subsequent_indent=indent, break_on_hyphens=False))


def kernel_docstring(v: OpVersion, computes: str) -> str:
    """A kernel's docstring: what it computes (the formula re-emitted from its tree, or the runtime
    function it calls), its inputs, attributes with their defaults, outputs and type constraints."""
    def wrapped(label: str, items: list[str]) -> list[str]:
        return list(_wrap(f"{label}: {', '.join(items)}", "    ")) if items else []

    def param(p: Any) -> str:
        option = "" if p.option == "single" else f", {p.option}"
        return f"{p.name} ({p.type}{option})"

    spelled = attribute_keywords(v)

    def attribute(a: Any) -> str:
        tail = " (required)" if a.required else f" = {a.default!r}" if a.has_default else " (optional)"
        # an attribute with an input's name is given by the keyword <name>_attr (the name is the input's)
        keyword = "" if spelled[a.name] == a.name else f" (keyword {spelled[a.name]}, since an input is named {a.name})"
        return f"{a.name}: {a.type}{tail}{keyword}"

    if computes.startswith("calls "):  # a runtime function
        head = f"Calls {computes[len('calls '):]}"
    elif v.elementwise is not None and v.elementwise.fold is None:
        head = f"Computes {v.elementwise.output} = {computes}"
    else:  # a fold: "acc = ..., then ..."
        head = f"Computes {computes}"
    lines = [f"Reference kernel of {v.key}.", "", *_wrap(head + ".")]
    lines += [""] + wrapped("Inputs (positional)", [param(p) for p in v.inputs])
    lines += wrapped("Attributes (keyword)", [attribute(a) for a in v.attributes])
    lines += wrapped("Returns a tuple of the outputs", [param(p) for p in v.outputs])
    if v.requested_outputs:  # spec kernel.requested_outputs
        lines += _wrap("requested_outputs (keyword): the names of the outputs the node asks for, which the graph "
                       "runner passes; what they change is in the documentation of the function called.", "    ")
    for output, (named_by, *fallback) in v.dtype_from:  # kernel.dtype_from
        otherwise = f" (absent or 0: the type of {fallback[0]})" if fallback else ""
        lines += _wrap(f"The type of {output} is the one {spelled[named_by]} names{otherwise}, unless "
                       f"{py_name(output)}_dtype is given.")
    for tc in v.type_constraints:
        lines += wrapped(tc.name, [type_key(t) for t in tc.types])
    return "\n".join(lines)
