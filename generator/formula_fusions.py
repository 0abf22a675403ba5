"""Formula subtrees the NumPy kernels compute with one runtime helper instead of term by term: the helper
gives the same bits in fewer passes over the data (the C kernels compute element by element and need none)."""
from __future__ import annotations

import ast
from typing import Any

from .expr import _name


def numpy_fusion(node: ast.AST) -> tuple[str, list[ast.expr]] | None:
    """(helper, operand subtrees) when node is a subtree a runtime helper computes whole, else None.

    - ieee_minimum(ieee_maximum(x, low), high), a clamp: _ew.ieee_clamp(x, low, high), a single np.clip
      pass where that gives the same bits (bounds that are single values), instead of two passes and two
      signed-zero checks;
    - minimum(maximum(x, low), high), ONNX Clip: _ew.clamp(x, low, high), one np.clip pass where that gives
      the same bits (bounds that are single values), instead of two passes;
    - where(x < 0, mul_trunc(a, x), x), LeakyRelu: _ew.leaky_relu(x, a), max or min of x and the product
      where that gives the same bits (a positive finite factor), instead of a comparison, the product and
      a select;
    - where(x > 0, x + log1p(exp(-x)), log1p(exp(x))), ONNX Softplus: _ew.softplus(x), one exp and one
      log1p per element instead of two;
    - where(c, f(a, b), g(a, b)) with f and g a pair of functions that give one shape and type for the same
      operands (rem and mod: ONNX Mod's fmod; shift_left and shift_right: BitShift's direction):
      _ew.either(c, lambda: f(a, b), lambda: g(a, b)), which computes only one branch when c is a single
      truth value (an attribute's test) instead of both and a select;
    - x / (1 + abs(x)), Softsign: _ew.softsign(x), the temporaries reused in place;
    - where(isfinite(x), 0, where(x > 0, p, where(x < 0, n, 0))), IsInf (its whole formula, whose values
      its boolean output takes): _ew.inf_flags(x, p, n), np.isinf and at most one comparison.
    """
    if isinstance(node, ast.BinOp):
        softsign_of = _softsign_operand(node)
        return ("_ew.softsign", [softsign_of]) if softsign_of is not None else None
    if not isinstance(node, ast.Call):
        return None
    name = _name(node.func)
    for outer, inner_name, helper in (("ieee_minimum", "ieee_maximum", "_ew.ieee_clamp"),
                                      ("minimum", "maximum", "_ew.clamp")):
        if name == outer and len(node.args) == 2:
            inner = node.args[0]
            if isinstance(inner, ast.Call) and _name(inner.func) == inner_name and len(inner.args) == 2:
                return helper, [*inner.args, node.args[1]]
    if name == "where" and len(node.args) == 3:
        test, product, x = node.args
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0
                and isinstance(product, ast.Call) and _name(product.func) == "mul_trunc" and len(product.args) == 2
                and ast.dump(test.left) == ast.dump(product.args[1]) == ast.dump(x)):
            return "_ew.leaky_relu", [x, product.args[0]]
        inf_flags_of = _inf_flags_operands(node)
        if inf_flags_of is not None:
            return "_ew.inf_flags", inf_flags_of
        softplus_of = _softplus_operand(node)
        if softplus_of is not None:
            return "_ew.softplus", [softplus_of]
        if _same_shaped_pair(node.args[1], node.args[2]):
            return "_ew.either", [node.args[0], _thunk(node.args[1]), _thunk(node.args[2])]
    return None


# functions whose results have one shape and type for the same operands (the operands' broadcast shape and
# their type): either branch of a select between two of them may stand for the select's result
_SAME_SHAPED = ({"rem", "mod"}, {"shift_left", "shift_right"})


def _same_shaped_pair(a: ast.expr, b: ast.expr) -> bool:
    if not (isinstance(a, ast.Call) and isinstance(b, ast.Call) and not a.keywords and not b.keywords):
        return False
    names = {_name(a.func), _name(b.func)}
    return any(names <= family for family in _SAME_SHAPED) and \
        [ast.dump(x) for x in a.args] == [ast.dump(x) for x in b.args]


def _thunk(node: ast.expr) -> ast.expr:
    """lambda: node (emitted as such by the NumPy emitter's generic Lambda support)."""
    return ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[]),
                      body=node)


def _softplus_operand(node: ast.Call) -> ast.expr | None:
    """x when node is where(x > 0, x + log1p(exp(-x)), log1p(exp(x))), else None."""
    last = node.args[2]
    if not (isinstance(last, ast.Call) and _name(last.func) == "log1p" and len(last.args) == 1
            and isinstance(last.args[0], ast.Call) and _name(last.args[0].func) == "exp" and len(last.args[0].args) == 1):
        return None
    x = last.args[0].args[0]
    text = ast.unparse(x)
    want = ast.parse(f"where(({text}) > 0, ({text}) + log1p(exp(-({text}))), log1p(exp({text})))", mode="eval").body
    return x if ast.dump(want) == ast.dump(node) else None


def _softsign_operand(node: ast.BinOp) -> ast.expr | None:
    """x when node is x / (1 + abs(x)), else None."""
    text = ast.unparse(node.left)
    want = ast.parse(f"({text}) / (1 + abs({text}))", mode="eval").body
    return node.left if ast.dump(want) == ast.dump(node) else None


def _inf_flags_operands(node: ast.Call) -> list[ast.expr] | None:
    """[x, p, n] when node is where(isfinite(x), 0, where(x > 0, p, where(x < 0, n, 0))), else None."""
    parts: Any = node.args
    try:
        operands = [parts[0].args[0], parts[2].args[1], parts[2].args[2].args[1]]
    except (AttributeError, IndexError):
        return None
    x, positive, negative = map(ast.unparse, operands)
    text = f"where(isfinite({x}), 0, where(({x}) > 0, {positive}, where(({x}) < 0, {negative}, 0)))"
    return operands if ast.dump(ast.parse(text, mode="eval").body) == ast.dump(node) else None
