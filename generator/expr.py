"""opgen's expression language: a small, safe subset of Python expressions.

One parser serves two uses:
- constraint checks (`check:` / `when:`), emitted as Python for the validators;
- element-wise formulas (`elementwise.formula`), emitted as NumPy and as C from
  the same tree, so the reference kernel and the C kernel cannot drift apart.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass


class ExprError(ValueError):
    """A malformed or disallowed expression; the message says what is allowed."""


# Functions a check may call; the ones in SHAPE_FUNCTIONS take a parameter name.
SHAPE_FUNCTIONS = frozenset({"rank", "shape", "numel", "count", "has", "dtype"})
CHECK_BUILTINS = frozenset({"len", "all", "any", "range", "min", "max", "abs", "sum", "sorted",
                            "set", "list", "tuple", "unique", "int", "zip", "enumerate"})


@dataclass(frozen=True)
class MathFunction:
    """How a formula function is spelled in NumPy and in C (float flavour, double flavour)."""

    numpy: str
    c_double: str
    c_float: str
    arity: int
    integer_ok: bool = False  # also defined for integer operands (C spelling then via opgen_* helper)


FORMULA_FUNCTIONS: dict[str, MathFunction] = {
    "where": MathFunction("np.where", "", "", 3, True),
    "abs": MathFunction("np.abs", "fabs", "fabsf", 1, True),
    "exp": MathFunction("np.exp", "exp", "expf", 1),
    "expm1": MathFunction("np.expm1", "expm1", "expm1f", 1),
    "log": MathFunction("np.log", "log", "logf", 1),
    "log1p": MathFunction("np.log1p", "log1p", "log1pf", 1),
    "sqrt": MathFunction("np.sqrt", "sqrt", "sqrtf", 1),
    "cbrt": MathFunction("np.cbrt", "cbrt", "cbrtf", 1),
    "sin": MathFunction("np.sin", "sin", "sinf", 1),
    "cos": MathFunction("np.cos", "cos", "cosf", 1),
    "tan": MathFunction("np.tan", "tan", "tanf", 1),
    "asin": MathFunction("np.arcsin", "asin", "asinf", 1),
    "acos": MathFunction("np.arccos", "acos", "acosf", 1),
    "atan": MathFunction("np.arctan", "atan", "atanf", 1),
    "atan2": MathFunction("np.arctan2", "atan2", "atan2f", 2),
    "sinh": MathFunction("np.sinh", "sinh", "sinhf", 1),
    "cosh": MathFunction("np.cosh", "cosh", "coshf", 1),
    "tanh": MathFunction("np.tanh", "tanh", "tanhf", 1),
    "asinh": MathFunction("np.arcsinh", "asinh", "asinhf", 1),
    "atanh": MathFunction("np.arctanh", "atanh", "atanhf", 1),
    "floor": MathFunction("np.floor", "floor", "floorf", 1),
    "ceil": MathFunction("np.ceil", "ceil", "ceilf", 1),
    "pow": MathFunction("np.power", "pow", "powf", 2),
    "minimum": MathFunction("np.minimum", "fmin", "fminf", 2, True),
    "maximum": MathFunction("np.maximum", "fmax", "fmaxf", 2, True),
}

_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Name, ast.Load,
    ast.Constant, ast.IfExp, ast.Subscript, ast.Tuple, ast.List, ast.GeneratorExp, ast.ListComp,
    ast.comprehension, ast.Store, ast.Attribute,
    ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Invert,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor,
    ast.LShift, ast.RShift,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Slice,
)


def parse(text: str) -> ast.Expression:
    """Parse and vet an expression; raises ExprError naming the offending construct."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"not a valid expression ({exc.msg} at column {exc.offset})") from None
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ExprError(f"{type(node).__name__} is not allowed in expressions")
        if isinstance(node, ast.Attribute):
            raise ExprError("attribute access (a.b) is not allowed in expressions")
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords):
            raise ExprError("only calls of named functions with positional arguments are allowed")
    return tree


def _bound_names(tree: ast.AST) -> set[str]:
    """Names bound by comprehensions inside the expression."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            out |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return out


def check_names(text: str, attributes: set[str], parameters: set[str]) -> list[str]:
    """Problems with a check expression's names and calls (empty when fine)."""
    tree = parse(text)
    local = _bound_names(tree)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fname = node.func.id
            if fname in SHAPE_FUNCTIONS:
                if len(node.args) != 1 or not isinstance(node.args[0], ast.Name):
                    problems.append(f"{fname}() takes one parameter name")
                elif node.args[0].id not in parameters | attributes or (
                        fname != "has" and node.args[0].id not in parameters):
                    problems.append(f"{fname}({node.args[0].id}): no input or output named {node.args[0].id!r}")
            elif fname not in CHECK_BUILTINS:
                allowed = ", ".join(sorted(SHAPE_FUNCTIONS | CHECK_BUILTINS))
                problems.append(f"unknown function {fname}(); allowed: {allowed}")
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    shape_args = {id(n.args[0]) for n in ast.walk(tree)
                  if isinstance(n, ast.Call) and n.func.id in SHAPE_FUNCTIONS and n.args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called and id(node) not in shape_args:
            if node.id not in attributes and node.id not in local and node.id not in ("True", "False", "None"):
                problems.append(f"unknown name {node.id!r}; expected an attribute of the op"
                                f" ({', '.join(sorted(attributes)) or 'none'}) or a comprehension variable")
    return problems


class _CheckToPython(ast.NodeTransformer):
    """Rewrite a check so it reads attributes and shapes through the context object `c`."""

    def __init__(self, local: set[str]):
        self.local = local

    def visit_Call(self, node: ast.Call) -> ast.AST:
        fname = node.func.id
        if fname in SHAPE_FUNCTIONS:
            return ast.Call(ast.Attribute(ast.Name("c", ast.Load()), fname, ast.Load()),
                            [ast.Constant(node.args[0].id)], [])
        if fname == "unique":
            node = self.generic_visit(node)
            return ast.Call(ast.Attribute(ast.Name("c", ast.Load()), "unique", ast.Load()), node.args, [])
        node.args = [self.visit(a) for a in node.args]
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local or node.id in ("True", "False", "None"):
            return node
        return ast.Call(ast.Attribute(ast.Name("c", ast.Load()), "attr", ast.Load()), [ast.Constant(node.id)], [])


def check_to_python(text: str) -> str:
    """A check expression as Python source over a context object `c`."""
    tree = parse(text)
    out = _CheckToPython(_bound_names(tree)).visit(tree)
    return ast.unparse(ast.fix_missing_locations(out))


# ---- element-wise formulas -------------------------------------------------------------------

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CMP_HELPERS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}


def formula_names(text: str) -> set[str]:
    tree = parse(text)
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - set(FORMULA_FUNCTIONS)


def check_formula(text: str, names: set[str]) -> list[str]:
    """Problems with an element-wise formula (empty when fine)."""
    tree = parse(text)
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = FORMULA_FUNCTIONS.get(node.func.id)
            if fn is None:
                problems.append(f"unknown function {node.func.id}(); allowed: {', '.join(sorted(FORMULA_FUNCTIONS))}")
            elif len(node.args) != fn.arity:
                problems.append(f"{node.func.id}() takes {fn.arity} arguments, got {len(node.args)}")
        elif isinstance(node, (ast.BoolOp, ast.GeneratorExp, ast.ListComp, ast.Subscript, ast.IfExp,
                               ast.Tuple, ast.List)):
            problems.append(f"{type(node).__name__} is not allowed in element-wise formulas (use where())")
        elif isinstance(node, ast.Compare) and len(node.ops) != 1:
            problems.append("chained comparisons are not allowed in element-wise formulas")
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)):
            problems.append(f"constant {node.value!r} is not a number")
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called and node.id not in names:
            problems.append(f"unknown name {node.id!r}; expected one of: {', '.join(sorted(names))}")
    return problems


def formula_to_numpy(text: str, rename: dict[str, str]) -> str:
    """NumPy source for a formula; `rename` maps spec names to Python variables."""

    def emit(node: ast.AST) -> str:
        if isinstance(node, ast.Expression):
            return emit(node.body)
        if isinstance(node, ast.Name):
            return rename[node.id]
        if isinstance(node, ast.Constant):
            return repr(node.value)
        if isinstance(node, ast.UnaryOp):
            op = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "~"}[type(node.op)]
            return f"({op}{emit(node.operand)})"
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return f"np.power({emit(node.left)}, {emit(node.right)})"
            return f"({emit(node.left)} {_BINOPS[type(node.op)]} {emit(node.right)})"
        if isinstance(node, ast.Compare):
            return f"({emit(node.left)} {_CMPOPS[type(node.ops[0])]} {emit(node.comparators[0])})"
        if isinstance(node, ast.Call):
            args = ", ".join(emit(a) for a in node.args)
            return f"{FORMULA_FUNCTIONS[node.func.id].numpy}({args})"
        raise ExprError(f"cannot emit {type(node).__name__}")

    return emit(parse(text))


def formula_to_c(text: str, rename: dict[str, str], compute: str, kind: str) -> str:
    """C source for a formula evaluated in C type `compute` (of kind int/uint/float).

    Comparisons of unsigned values go through opgen_cmp_* helpers so that
    `x < 0` on an unsigned type does not trip -Wtype-limits.
    """

    def const(value: float | int) -> str:
        if kind == "float":
            return f"(({compute}){float(value)!r})"
        return f"(({compute}){int(value)})"

    def emit(node: ast.AST) -> str:
        if isinstance(node, ast.Expression):
            return emit(node.body)
        if isinstance(node, ast.Name):
            return rename[node.id]
        if isinstance(node, ast.Constant):
            return const(node.value)
        if isinstance(node, ast.UnaryOp):
            op = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "!"}[type(node.op)]
            return f"(({compute})({op}{emit(node.operand)}))"
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return emit(ast.Call(ast.Name("pow", ast.Load()), [node.left, node.right], []))
            op = _BINOPS[type(node.op)]
            if kind == "int" and op in ("+", "-", "*"):
                # Signed overflow is undefined in C; wrap through uint64_t as NumPy does.
                return f"(({compute})((uint64_t)({emit(node.left)}) {op} (uint64_t)({emit(node.right)})))"
            return f"(({compute})({emit(node.left)} {op} {emit(node.right)}))"
        if isinstance(node, ast.Compare):
            op = _CMPOPS[type(node.ops[0])]
            left, right = emit(node.left), emit(node.comparators[0])
            if kind == "uint":
                return f"opgen_cmp_{_CMP_HELPERS[op]}_u64((uint64_t)({left}), (uint64_t)({right}))"
            return f"({left} {op} {right})"
        if isinstance(node, ast.Call):
            name = node.func.id
            args = [emit(a) for a in node.args]
            if name == "where":
                return f"(({args[0]}) ? ({args[1]}) : ({args[2]}))"
            fn = FORMULA_FUNCTIONS[name]
            if kind != "float":
                if not fn.integer_ok:
                    raise ExprError(f"{name}() has no integer C implementation")
                return f"(({compute})opgen_{name}_i64((int64_t)({'), (int64_t)('.join(args)})))" if kind == "int" \
                    else f"(({compute})opgen_{name}_u64((uint64_t)({'), (uint64_t)('.join(args)})))"
            cname = fn.c_float if compute == "float" else fn.c_double
            return f"{cname}({', '.join(args)})"
        raise ExprError(f"cannot emit {type(node).__name__}")

    return emit(parse(text))


def c_supported(text: str, kind: str) -> bool:
    """Whether the formula has a C implementation for operands of this kind."""
    if kind == "float":
        return True
    if kind not in ("int", "uint"):
        return False
    for node in ast.walk(parse(text)):
        if isinstance(node, ast.Call) and node.func.id != "where" and not FORMULA_FUNCTIONS[node.func.id].integer_ok:
            return False
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.Div)):
            return False
        if isinstance(node, ast.Constant) and isinstance(node.value, float) and not float(node.value).is_integer():
            return False
    return True
