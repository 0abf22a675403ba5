"""ast.unparse for the line wrapper (pyformat), remembering the text of every expression node it writes
until forget(): laying out a line asks for the text of a node and of its parents again and again (each
level measures its children), and ast.unparse of a parent writes its whole subtree again each time."""
from __future__ import annotations

import ast
from typing import cast

# The text of each expression node written, by the precedence it was written at: _Unparser writes a
# node it has written before (same node, same precedence) from here, so each node of a line is written
# once. Keyed by id, with the node itself kept so an id reused by a new object is never mistaken for it;
# pyformat empties it after each line.
_TEXTS: dict[tuple[int, object], tuple[ast.AST, str]] = {}
_STANDALONE = ast._Precedence.TEST  # type: ignore[attr-defined]  # the precedence ast.unparse starts at


class _Unparser(ast._Unparser):  # type: ignore[misc,name-defined]  # ast.unparse's own writer
    """ast.unparse that reuses the text of an expression node it wrote before. What the writer emits for
    an expression is a function of the node, the precedence its parent gave it (the parentheses) and the
    f-string mode (_avoid_backslashes, never remembered): the key holds the first two. `skip`: a node
    whose text must be neither read nor remembered (a parent with a hole in it, _split)."""

    def __init__(self, skip: ast.AST | None = None, **kwargs: bool):
        super().__init__(**kwargs)
        self._skip = skip

    def traverse(self, node: ast.AST | list[ast.AST]) -> None:
        if not isinstance(node, ast.expr) or node is self._skip or getattr(self, "_avoid_backslashes", False):
            super().traverse(node)
            return
        key = (id(node), self.get_precedence(node))
        known = _TEXTS.get(key)
        if known is not None and known[0] is node:
            self._source.append(known[1])
            return
        start = len(self._source)
        super().traverse(node)
        _TEXTS[key] = (node, "".join(self._source[start:]))


def unparse(node: ast.AST) -> str:
    """ast.unparse(node), remembered until forget()."""
    known = _TEXTS.get((id(node), _STANDALONE))  # asked for most nodes many times: no writer for those
    if known is not None and known[0] is node:
        return known[1]
    return cast(str, _Unparser().visit(node))


def unparse_holed(parent: ast.AST) -> str:
    """ast.unparse of a node one of whose children is replaced for the moment (pyformat._split): its
    text is neither read nor remembered, its other children's are."""
    return cast(str, _Unparser(skip=parent).visit(parent))


def forget() -> None:
    """Drop every text (and the nodes kept with them): the line they belong to is laid out."""
    _TEXTS.clear()
