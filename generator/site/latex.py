"""Element-wise formulas as LaTeX for the site's maths rendering (MathJax).

The formula is parsed with the same vetted parser the kernels are generated from (opgen.expr), and
the tree (not the text) is laid out, so the maths shown is the formula the kernel computes."""
from __future__ import annotations

import ast

from .. import expr

# Functions with a usual mathematical spelling; any other function shows as \operatorname{name}(args).
_NAMED = {
    "exp": r"\exp", "log": r"\log", "sin": r"\sin", "cos": r"\cos", "tan": r"\tan", "sinh": r"\sinh",
    "cosh": r"\cosh", "tanh": r"\tanh", "asin": r"\arcsin", "acos": r"\arccos", "atan": r"\arctan",
    "asinh": r"\operatorname{arsinh}", "acosh": r"\operatorname{arcosh}", "atanh": r"\operatorname{artanh}",
    "maximum": r"\max", "minimum": r"\min", "ieee_maximum": r"\max", "ieee_minimum": r"\min",
    "erf": r"\operatorname{erf}", "erfc": r"\operatorname{erfc}", "sign": r"\operatorname{sign}",
}
_BINARY = {ast.Add: "+", ast.Sub: "-", ast.Mult: r"\cdot", ast.Mod: r"\bmod", ast.BitAnd: r"\mathbin{\&}",
           ast.BitOr: r"\mathbin{|}", ast.BitXor: r"\oplus", ast.LShift: r"\ll", ast.RShift: r"\gg",
           ast.FloorDiv: r"\mathbin{//}"}
_COMPARE = {ast.Lt: "<", ast.LtE: r"\le", ast.Gt: ">", ast.GtE: r"\ge", ast.Eq: "=", ast.NotEq: r"\ne"}
# Binding strength: a child binding more loosely than its parent gets parentheses.
_PRECEDENCE = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.Mod: 2, ast.FloorDiv: 2, ast.BitOr: 0,
               ast.BitXor: 0, ast.BitAnd: 0, ast.LShift: 0, ast.RShift: 0, ast.Pow: 3}


def formula_latex(output: str, formula: str) -> str:
    """`output = formula` as display LaTeX."""
    return f"{_name(output)} = {_latex(expr.parse(formula).body)}"


def _name(name: str) -> str:
    if len(name) == 1:
        return name
    return r"\mathrm{" + name.replace("_", r"\_") + "}"


def _precedence(node: ast.AST) -> int:
    if isinstance(node, ast.BinOp):
        return _PRECEDENCE.get(type(node.op), 0)
    if isinstance(node, ast.UnaryOp):
        return 2
    if isinstance(node, (ast.Compare, ast.BoolOp, ast.IfExp)):
        return -1
    return 9


def _wrapped(node: ast.AST, parent: int) -> str:
    text = _latex(node)
    return rf"\left({text}\right)" if _precedence(node) < parent else text


def _latex(node: ast.AST) -> str:  # noqa: C901 - one branch per node kind reads best
    if isinstance(node, ast.Name):
        return _name(node.id)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return r"\mathrm{" + str(node.value).lower() + "}"
        if isinstance(node.value, str):
            return r"\text{“" + node.value.replace("_", r"\_") + "”}"
        return str(node.value)
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div):
            return rf"\frac{{{_latex(node.left)}}}{{{_latex(node.right)}}}"
        if isinstance(node.op, ast.Pow):
            return f"{{{_wrapped(node.left, 4)}}}^{{{_latex(node.right)}}}"
        level = _PRECEDENCE.get(type(node.op), 0)
        right_level = level + 1 if isinstance(node.op, (ast.Sub, ast.Mod, ast.FloorDiv)) else level
        return f"{_wrapped(node.left, level)} {_BINARY[type(node.op)]} {_wrapped(node.right, right_level)}"
    if isinstance(node, ast.UnaryOp):
        sign = {ast.USub: "-", ast.UAdd: "+", ast.Not: r"\lnot ", ast.Invert: r"\sim "}[type(node.op)]
        return sign + _wrapped(node.operand, 2)
    if isinstance(node, ast.Compare):
        parts = [_latex(node.left)]
        for op, right in zip(node.ops, node.comparators):
            parts += [_COMPARE.get(type(op), r"\mathrel{?}"), _latex(right)]
        return " ".join(parts)
    if isinstance(node, ast.BoolOp):
        joiner = r" \land " if isinstance(node.op, ast.And) else r" \lor "
        return joiner.join(_wrapped(v, 0) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _cases(node.test, node.body, node.orelse)
    if isinstance(node, ast.Call):
        return _call(node)
    return r"\text{" + ast.unparse(node) + "}"


def _cases(test: ast.AST, then: ast.AST, otherwise: ast.AST) -> str:
    return (r"\begin{cases} " + f"{_latex(then)} & \\text{{if }} {_latex(test)} \\\\ "
            + f"{_latex(otherwise)} & \\text{{otherwise}}" + r" \end{cases}")


def _call(node: ast.Call) -> str:
    name = node.func.id if isinstance(node.func, ast.Name) else "?"
    args = node.args
    if name == "where" and len(args) == 3:
        return _cases(*args)
    if name == "abs" and len(args) == 1:
        return rf"\left|{_latex(args[0])}\right|"
    if name == "sqrt" and len(args) == 1:
        return rf"\sqrt{{{_latex(args[0])}}}"
    if name == "rsqrt" and len(args) == 1:
        return rf"\frac{{1}}{{\sqrt{{{_latex(args[0])}}}}}"
    if name == "cbrt" and len(args) == 1:
        return rf"\sqrt[3]{{{_latex(args[0])}}}"
    if name in ("floor", "ceil") and len(args) == 1:
        side = "floor" if name == "floor" else "ceil"
        return rf"\left\l{side}{_latex(args[0])}\right\r{side}"
    if name == "expm1" and len(args) == 1:
        return rf"\left(e^{{{_latex(args[0])}}} - 1\right)"
    if name == "log1p" and len(args) == 1:
        return rf"\log\left(1 + {_latex(args[0])}\right)"
    if name == "neg" and len(args) == 1:
        return "-" + _wrapped(args[0], 2)
    if name in ("div", "mul_trunc") and len(args) == 2:
        return _latex(ast.BinOp(args[0], ast.Div() if name == "div" else ast.Mult(), args[1]))
    if name == "pow" and len(args) == 2:
        return _latex(ast.BinOp(args[0], ast.Pow(), args[1]))
    head = _NAMED.get(name, r"\operatorname{" + name.replace("_", r"\_") + "}")
    return head + r"\left(" + ", ".join(_latex(a) for a in args) + r"\right)"
