"""Line wrapping of generated Python: every line that is longer than WIDTH is re-laid from its syntax
tree (a bracketed call, tuple, list or dict gets one item a line; a long `and`/`or` one operand a
line; a long string is split into adjacent literals), so the generated modules stay within the
project's line length (ruff E501) without the templates knowing about it. Lines that fit are left as
the template wrote them. Only layout changes: the wrapped text parses to the same tree."""
from __future__ import annotations

import ast
import bisect
import itertools
import re
from functools import lru_cache
from typing import cast

from .unparse_memo import forget, unparse_holed
from .unparse_memo import unparse as _unparse

WIDTH = 120
INDENT = 4
_HOLE = "_opgen_hole_"
_KEYWORD_ITEM = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(?!=)")

def wrap_module(text: str, width: int = WIDTH, verify: bool = False) -> str:
    """The module with each over-long line re-laid. Only layout changes; `verify` parses both texts
    and compares the trees (a second of every full build, so the build leaves it to the test suite,
    which verifies every generated module: tests/test_generated_style.py)."""
    lines = text.split("\n")
    if all(len(line) <= width for line in lines):
        return text
    long_lines: list[tuple[int, int]] = []  # (number, offset) of the lines to re-lay
    offset = 0
    for number, line in enumerate(lines):
        if len(line) > width and not line.lstrip().startswith("#"):
            long_lines.append((number, offset))
        offset += len(line) + 1
    out = list(lines)
    for (number, _), depth in zip(long_lines, _depths_at(text, [offset for _, offset in long_lines])):
        wrapped = _wrap_line(lines[number], depth > 0, width)
        if wrapped is not None:
            out[number] = wrapped
    result = "\n".join(out)
    if verify and ast.dump(ast.parse(result)) != ast.dump(ast.parse(text)):
        raise AssertionError("line wrapping changed the generated module's syntax tree")
    return result


# What hides brackets from the bracket depth of Python source: strings and comments (a string's prefix
# letters do not matter; a backslash keeps an escaped quote, raw strings' included, from ending it, and
# carries a backslash-newline). One group: re.split returns code and hiders in turn.
_HIDERS = re.compile("(" + "|".join([
    r"#[^\n]*",  # a comment
    r"'''(?:\\.|[^\\])*?'''", r'"""(?:\\.|[^\\])*?"""',  # triple-quoted strings
    r"'(?:\\.|[^'\\\n])*'", r'"(?:\\.|[^"\\\n])*"',  # one-line strings
]) + ")", re.DOTALL)


def _bracket_depths(text: str) -> dict[int, int]:
    """Bracket nesting at the start of each (0-based) line but the first (_depths_at)."""
    starts = [m.end() for m in re.finditer("\n", text)]
    return dict(zip(range(1, len(starts) + 1), _depths_at(text, starts)))


def _depths_at(text: str, offsets: list[int]) -> list[int]:
    """Bracket nesting at each of these ascending offsets (line starts): the brackets outside strings and
    comments that come before it, as the tokenizer counts them (tokenize, which this replaces, took half
    of the line wrapping's time). The text is cut into code and hiders by re.split and the brackets of
    the code before each offset counted by str.count, both in C: a module has tens of thousands of
    brackets and strings, and wraps a few lines."""
    parts = _HIDERS.split(text)  # code, hider, code, ...: even indices are code
    ends = list(itertools.accumulate(map(len, parts)))
    depths: list[int] = []
    depth, done = 0, 0  # the nesting after parts[:done]
    for offset in offsets:
        k = bisect.bisect_right(ends, offset)  # the part holding the offset (k == len(parts): the end)
        code = parts[done + done % 2:k:2]
        depth += _net_brackets("".join(code))
        done = k
        if k < len(parts) and k % 2 == 0:  # inside code: its text before the offset counts too
            head = parts[k][:offset - (ends[k - 1] if k else 0)]
            depths.append(depth + _net_brackets(head))
        else:
            depths.append(depth)
    return depths


def _net_brackets(code: str) -> int:
    """Brackets opened minus brackets closed in `code`."""
    return (code.count("(") + code.count("[") + code.count("{")
            - code.count(")") - code.count("]") - code.count("}"))


@lru_cache(maxsize=4096)  # versions of one op, and ops alike, repeat their long lines: half are repeats
def _wrap_line(line: str, in_brackets: bool, width: int) -> str | None:
    try:
        return _lay_out_line(line, in_brackets, width)
    finally:
        forget()


def _lay_out_line(line: str, in_brackets: bool, width: int) -> str | None:
    body = line.lstrip()
    indent = len(line) - len(body)
    if in_brackets:  # one item of a bracketed display: `expr,` or `name=expr,`
        if not body.endswith(","):
            return None
        item, prefix = body[:-1], ""
        match = _KEYWORD_ITEM.match(item)
        if match:
            prefix, item = match.group(0), item[match.end():]
        try:
            node = ast.parse(item, mode="eval").body
        except SyntaxError:
            try:  # a dict entry `key: value`: the key as written, the value laid out
                entry = cast(ast.Dict, ast.parse("{" + item + "}", mode="eval").body)
            except SyntaxError:
                return None
            if not isinstance(entry, ast.Dict) or len(entry.keys) != 1 or entry.keys[0] is None:
                return None
            prefix, node = ast.unparse(entry.keys[0]) + ": ", entry.values[0]
        return " " * indent + prefix + Layout(width).expr(node, indent + len(prefix), indent, 1) + ","
    if body.startswith("def ") and body.endswith(":"):
        try:
            fn = cast(ast.FunctionDef, ast.parse(body + "\n    pass").body[0])  # a def, by the test above
        except SyntaxError:
            return None
        return " " * indent + _def_header(fn, indent, width)
    try:
        tree = ast.parse(body)
    except SyntaxError:
        return None
    if len(tree.body) != 1 or not isinstance(tree.body[0], (ast.Assign, ast.Expr, ast.Return, ast.AugAssign)):
        return None
    stmt = tree.body[0]
    if stmt.value is None:
        return None
    pre, post, paren = _split(stmt, stmt.value)
    if paren:
        return None
    layout = Layout(width)
    return " " * indent + pre + layout.expr(stmt.value, indent + len(pre), indent, len(post)) + post


def _def_header(fn: ast.FunctionDef, indent: int, width: int) -> str:
    a = fn.args
    params: list[str] = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for k, (arg, default) in enumerate(zip(positional, defaults)):
        params.append(arg.arg + ("" if default is None else "=" + ast.unparse(default)))
        if a.posonlyargs and k == len(a.posonlyargs) - 1:
            params.append("/")
    if a.vararg:
        params.append("*" + a.vararg.arg)
    elif a.kwonlyargs:
        params.append("*")
    for arg, default in zip(a.kwonlyargs, a.kw_defaults):
        params.append(arg.arg + ("" if default is None else "=" + ast.unparse(default)))
    if a.kwarg:
        params.append("**" + a.kwarg.arg)
    flat = f"def {fn.name}({', '.join(params)}):"
    if indent + len(flat) <= width:
        return flat
    inner = " " * (indent + INDENT)
    return f"def {fn.name}(\n" + "".join(f"{inner}{p},\n" for p in params) + " " * indent + "):"


def _split(parent: ast.AST, child: ast.AST) -> tuple[str, str, bool]:
    """The text of parent before and after child, and whether child stands in parentheses there."""
    for field, value in ast.iter_fields(parent):
        if value is child:
            setattr(parent, field, ast.Name(_HOLE))
            try:
                holed = unparse_holed(parent)
            finally:
                setattr(parent, field, child)
            break
        if isinstance(value, list) and any(v is child for v in value):
            k = next(k for k, v in enumerate(value) if v is child)
            value[k] = ast.Name(_HOLE)
            try:
                holed = unparse_holed(parent)
            finally:
                value[k] = child
            break
    else:
        raise ValueError("not a child")
    pre, post = holed.split(_HOLE, 1)
    full = _unparse(parent)
    middle = full[len(pre):len(full) - len(post)]
    if middle == _unparse(child):
        return pre, post, False
    if middle == "(" + _unparse(child) + ")":
        return pre, post, True
    raise ValueError("cannot locate the child's text")


_OPS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&",
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Is: "is",
    ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}


def _atomic(node: ast.expr) -> bool:
    """A number, string, constant or name (negative numbers included)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, (ast.Constant, ast.Name)) and len(_unparse(node)) <= 40


class Layout:
    """Text of an expression whose first line starts at column `col`, whose further lines are indented
    by at least `indent`, and after whose last line `tail` more characters follow."""

    def __init__(self, width: int):
        self.width = width
        self.blocks: set[str] = set()  # texts that are one parenthesised block of their own

    def block(self, text: str) -> str:
        self.blocks.add(text)
        return text

    def fits(self, text: str, col: int, tail: int) -> bool:
        return "\n" not in text and col + len(text) + tail <= self.width

    def expr(self, node: ast.expr, col: int, indent: int, tail: int) -> str:
        flat = _unparse(node)
        if self.fits(flat, col, tail):
            return flat
        if isinstance(node, ast.Call):
            return self.call(node, indent)
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return self.display(node, indent)
        if isinstance(node, ast.Dict):
            return self.dict(node, indent)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return self.string(node.value, indent)
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, indent)
        if isinstance(node, ast.Lambda):
            return self.lambda_(node, col, indent, tail)
        if isinstance(node, (ast.GeneratorExp, ast.ListComp, ast.SetComp)):
            return self.comprehension(node, indent)
        if isinstance(node, ast.IfExp):
            return self.operands(node, [("", node.body), ("if ", node.test), ("else ", node.orelse)], indent)
        hugged = self.largest_child(node, col, indent, tail, flat)
        if not self.too_long(hugged, col, tail):
            return hugged
        if isinstance(node, ast.BinOp):
            return self.operands(node, [("", node.left), (_OPS[type(node.op)] + " ", node.right)], indent)
        if isinstance(node, ast.Compare):
            ops = [_OPS[type(op)] + " " for op in node.ops]
            return self.operands(node, [("", node.left)] + list(zip(ops, node.comparators)), indent)
        return hugged

    def too_long(self, text: str, col: int, tail: int) -> bool:
        lines = text.split("\n")
        widths = [col + len(lines[0])] + [len(line) for line in lines[1:]]
        widths[-1] += tail
        return max(widths) > self.width

    def operands(self, node: ast.expr, parts: list[tuple[str, ast.expr]], indent: int) -> str:
        """Block form: in parentheses, one operand a line, each after its operator word."""
        inner = indent + INDENT
        lines = []
        for lead, value in parts:
            _, _, paren = _split(node, value)
            col = inner + len(lead)
            text = self.parenthesized(value, col, inner, 0) if paren else self.expr(value, col, inner, 0)
            lines.append(" " * inner + lead + text + "\n")
        return self.block("(\n" + "".join(lines) + " " * indent + ")")

    def comprehension(self, node: ast.GeneratorExp | ast.ListComp | ast.SetComp, indent: int) -> str:
        opening, closing = {ast.GeneratorExp: ("(", ")"), ast.ListComp: ("[", "]"), ast.SetComp: ("{", "}")}[type(node)]
        inner = indent + INDENT
        lines = [" " * inner + self.expr(node.elt, inner, inner, 0) + "\n"]
        for gen in node.generators:
            head = ("async for " if gen.is_async else "for ") + _unparse(gen.target) + " in "
            lines.append(" " * inner + head + self.expr(gen.iter, inner + len(head), inner, 0) + "\n")
            for cond in gen.ifs:
                lines.append(" " * inner + "if " + self.expr(cond, inner + 3, inner, 0) + "\n")
        return self.block(opening + "\n" + "".join(lines) + " " * indent + closing)

    def _items(self, items: list[tuple[str, ast.expr | None]], indent: int) -> str:
        inner = indent + INDENT
        flat = ", ".join(prefix + ("" if node is None else _unparse(node)) for prefix, node in items)
        if len(items) > 1 and self.fits(flat, inner, 0):  # all on one line of their own
            return " " * inner + flat + "\n" + " " * indent
        lines = []
        for prefix, node in items:
            text = prefix if node is None else prefix + self.expr(node, inner + len(prefix), inner, 1)
            lines.append(" " * inner + text + ",\n")
        return "".join(lines) + " " * indent

    def call(self, node: ast.Call, indent: int) -> str:
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            return _unparse(node.func) + self.comprehension(node.args[0], indent)  # all(x for x in y)
        items: list[tuple[str, ast.expr | None]] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                items.append(("*", arg.value))
            else:
                items.append(("", arg))
        for kw in node.keywords:
            items.append(((kw.arg + "=") if kw.arg else "**", kw.value))
        return f"{_unparse(node.func)}(\n" + self._items(items, indent) + ")"

    def display(self, node: ast.Tuple | ast.List | ast.Set, indent: int) -> str:
        opening, closing = {ast.Tuple: ("(", ")"), ast.List: ("[", "]"), ast.Set: ("{", "}")}[type(node)]
        if node.elts and all(_atomic(e) for e in node.elts):  # plain values: as many to a line as fit
            inner, lines, current = indent + INDENT, [], ""
            for e in node.elts:
                word = _unparse(e) + ","
                if current and inner + len(current) + 1 + len(word) > self.width:
                    lines.append(current)
                    current = ""
                current = f"{current} {word}" if current else word
            lines.append(current)
            return opening + "\n" + "".join(" " * inner + line + "\n" for line in lines) + " " * indent + closing
        items: list[tuple[str, ast.expr | None]] = [("*", e.value) if isinstance(e, ast.Starred) else ("", e)
                                                    for e in node.elts]
        return opening + "\n" + self._items(items, indent) + closing

    def dict(self, node: ast.Dict, indent: int) -> str:
        items: list[tuple[str, ast.expr | None]] = []
        for key, value in zip(node.keys, node.values):
            items.append(("**", value) if key is None else (_unparse(key) + ": ", value))
        return "{\n" + self._items(items, indent) + "}"

    def string(self, value: str, indent: int) -> str:
        inner = indent + INDENT
        room = max(self.width - inner, 20)
        chunks, current = [], ""
        for word in re.findall(r"\S+\s*|\s+", value):
            if current and len(repr(current + word)) > room:
                chunks.append(current)
                current = ""
            while len(repr(word)) > room:  # a word longer than a line: cut it
                cut = max(1, room - 2 - (len(repr(word)) - len(word)))
                chunks.append(word[:cut])
                word = word[cut:]
            current += word
        chunks.append(current)
        return self.block("(\n" + "".join(" " * inner + repr(c) + "\n" for c in chunks) + " " * indent + ")")

    def boolop(self, node: ast.BoolOp, indent: int) -> str:
        inner = indent + INDENT
        word = "and " if isinstance(node.op, ast.And) else "or "
        lines = []
        for k, value in enumerate(node.values):
            pre, post, paren = _split(node, value)
            lead = "" if k == 0 else word
            if paren:
                text = self.parenthesized(value, inner + len(lead), inner, 0)
            else:
                text = self.expr(value, inner + len(lead), inner, 0)
            lines.append(" " * inner + lead + text + "\n")
        return self.block("(\n" + "".join(lines) + " " * indent + ")")

    def lambda_(self, node: ast.Lambda, col: int, indent: int, tail: int) -> str:
        pre, post, paren = _split(node, node.body)
        if paren:
            body = self.parenthesized(node.body, col + len(pre), indent, tail + len(post))
        else:
            body = self.expr(node.body, col + len(pre), indent, tail + len(post))
        return pre + body + post

    def parenthesized(self, node: ast.expr, col: int, indent: int, tail: int) -> str:
        """node in parentheses (the block forms of `and`/`or` and of strings bring their own)."""
        flat = "(" + _unparse(node) + ")"
        if self.fits(flat, col, tail):
            return flat
        text = self.expr(node, col, indent, tail)
        if text in self.blocks:
            return text  # a block form brings its own parentheses
        return "(" + self.expr(node, col + 1, indent, tail + 1) + ")"

    def largest_child(self, node: ast.expr, col: int, indent: int, tail: int, flat: str) -> str:
        children = [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)]
        if not children:
            return flat
        child = max(children, key=lambda c: len(_unparse(c)))
        try:
            pre, post, paren = _split(node, child)
        except ValueError:
            return flat
        if "\n" in pre:
            return flat
        if paren:
            text = self.parenthesized(child, col + len(pre), indent, tail + len(post))
        else:
            text = self.expr(child, col + len(pre), indent, tail + len(post))
        return pre + text + post
