"""Layout of generated C declarations: a prototype wrapped to the page width between parameters,
keeping groups (an operand's data, shape and rank) on one line."""
from __future__ import annotations

WIDTH = 120


def prototype(result: str, function: str, params: list[str] | list[list[str]], end: str, indent: int = 0) -> str:
    """`result function(params)` then `end` (";" or " {"), starting at column `indent` and wrapped to
    WIDTH columns between parameters, which may come in groups kept on one line (an operand's data, shape
    and rank): they continue under the first parameter or, where a group would not fit there, on lines
    indented by 4 more."""
    groups = [g if isinstance(g, list) else [g] for g in params]
    flat_params = [p for g in groups for p in g]
    head = " " * indent + f"{result} {function}("
    flat = head + ", ".join(flat_params) + ")" + end
    if len(flat) <= WIDTH:
        return flat
    pieces, remaining = [], len(flat_params)
    for group in groups:
        texts = []
        for param in group:
            remaining -= 1
            texts.append(param + (", " if remaining else ")" + end))
        pieces.append(texts)
    aligned = _fill([head], " " * len(head), pieces, split=False)
    if aligned is not None:
        return "\n".join(aligned)
    lines = _fill([head.rstrip(), ""], " " * (indent + 4), pieces, split=True)
    assert lines is not None  # split=True always fits
    return "\n".join(lines)


def _fill(lines: list[str], margin: str, pieces: list[list[str]], split: bool) -> list[str] | None:
    """Greedy filling of the last line and new ones starting with `margin`; None where a group does not fit
    on a line of its own and split is False."""
    lines = list(lines)
    if not lines[-1]:
        lines[-1] = margin
    for group in pieces:
        text = "".join(group)
        if lines[-1].strip() and lines[-1] != margin and len(lines[-1] + text.rstrip()) > WIDTH:
            lines.append(margin)
        if len(lines[-1] + text.rstrip()) <= WIDTH:
            lines[-1] += text
            continue
        if not split:
            return None
        for piece in group:
            if lines[-1] != margin and len(lines[-1] + piece.rstrip()) > WIDTH:
                lines.append(margin)
            lines[-1] += piece
    return [line.rstrip() for line in lines]
