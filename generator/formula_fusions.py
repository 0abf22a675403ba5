"""Formula subtrees the NumPy kernels compute with one runtime helper instead of term by term: the helper
gives the same bits in fewer passes over the data (the C kernels compute element by element and need none)."""
from __future__ import annotations

import ast

from .expr import _name


def numpy_fusion(node: ast.AST) -> tuple[str, list[ast.expr]] | None:
    """(helper, operand subtrees) when node is a subtree a runtime helper computes whole, else None.

    - ieee_minimum(ieee_maximum(x, low), high), a clamp: _ew.ieee_clamp(x, low, high), a single np.clip
      pass where that gives the same bits (bounds that are single values), instead of two passes and two
      signed-zero checks;
    - where(x < 0, mul_trunc(a, x), x), LeakyRelu: _ew.leaky_relu(x, a), max or min of x and the product
      where that gives the same bits (a positive finite factor), instead of a comparison, the product and
      a select.
    """
    if not isinstance(node, ast.Call):
        return None
    name = _name(node.func)
    if name == "ieee_minimum" and len(node.args) == 2:
        inner = node.args[0]
        if isinstance(inner, ast.Call) and _name(inner.func) == "ieee_maximum" and len(inner.args) == 2:
            return "_ew.ieee_clamp", [*inner.args, node.args[1]]
    if name == "where" and len(node.args) == 3:
        test, product, x = node.args
        if (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Lt)
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == 0
                and isinstance(product, ast.Call) and _name(product.func) == "mul_trunc" and len(product.args) == 2
                and ast.dump(test.left) == ast.dump(product.args[1]) == ast.dump(x)):
            return "_ew.leaky_relu", [x, product.args[0]]
    return None
