"""opgen's expression language: a small, safe subset of Python expressions.

One parser (here) serves two uses:
- constraint checks (`check:` / `when:`) and output shapes, emitted as Python for the validators (here);
- element-wise formulas (`elementwise.formula`), emitted as NumPy and as C from the same tree, so the
  reference kernel and the C kernel cannot drift apart (opgen.formula).
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import cast

from .errors import suggest
from .errors import OpgenError


class ExprError(OpgenError, ValueError):
    """A malformed or disallowed expression; the message says what is allowed."""


# Functions a check may call; the ones in SHAPE_FUNCTIONS take a parameter name.
SHAPE_FUNCTIONS = frozenset({"rank", "shape", "shapes", "numel", "count", "has", "dtype", "values"})
# Shape functions that also take a tensor-valued attribute: the shape of its value (Constant's value).
ATTRIBUTE_SHAPE_FUNCTIONS = frozenset({"rank", "shape", "numel"})
# Functions of several parameter names: the shape their broadcasting gives (NumPy/ONNX rules, or
# XLA's: operands of the highest rank broadcast among themselves, lower-rank ones align into them).
MULTI_SHAPE_FUNCTIONS = frozenset({"broadcast_shape", "xla_broadcast_shape"})
CHECK_BUILTINS = frozenset({"len", "all", "any", "range", "min", "max", "abs", "sum", "sorted",
                            "set", "list", "tuple", "unique", "int", "zip", "enumerate", "prod", "bits"})


_ALLOWED_NODES = (
    ast.Expression, ast.BoolOp, ast.BinOp, ast.UnaryOp, ast.Compare, ast.Call, ast.Name, ast.Load,
    ast.Constant, ast.IfExp, ast.Subscript, ast.Tuple, ast.List, ast.GeneratorExp, ast.ListComp,
    ast.comprehension, ast.Store, ast.Attribute,
    ast.And, ast.Or, ast.Not, ast.USub, ast.UAdd, ast.Invert,
    ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow, ast.BitAnd, ast.BitOr, ast.BitXor,
    ast.LShift, ast.RShift,
    ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn, ast.Slice,
)


# Bounds on what one expression may be: generated code re-emits the tree, and a tree deeper or
# larger than these would overflow the emitters' (and Python's compiler's) recursion.
MAX_EXPR_CHARS = 2000
MAX_EXPR_NODES = 400
MAX_EXPR_DEPTH = 40
INT_LIMIT = 2 ** 63  # integer constants fit in int64 (the C emitter spells them as int64 literals)


def parse(text: str) -> ast.Expression:
    """Parse and vet an expression; raises ExprError naming the offending construct.

    Comments are refused: generated code re-emits the parsed tree, never the text, and a comment
    is the one part of the text the tree would silently drop.
    """
    _vet(text)
    return ast.parse(text.strip(), mode="eval")


def _name(node: ast.AST) -> str:
    """The name a vetted tree holds here (a called function, a shape function's argument): `_vet` and
    the checks only let names through at these places."""
    return cast(ast.Name, node).id


def _tree(text: str) -> ast.Expression:
    """The vetted tree, shared: only for readers that never change it (the emitters, the checks,
    check_to_python, which builds new nodes where it rewrites); an emitter that rewrites the tree in
    place takes its own copy from parse()."""
    return _vetted(text)


def _vet(text: str) -> None:
    """Raise ExprError unless `text` is an allowed expression (_vetted)."""
    _vetted(text)


@lru_cache(maxsize=8192)
def _vetted(text: str) -> ast.Expression:
    """The tree of `text`, after raising ExprError unless it is an allowed expression (memoised: specs
    repeat expressions and every stage parses them again). The tree is the one _tree shares."""
    if len(text) > MAX_EXPR_CHARS:
        raise ExprError(f"expression of {len(text)} characters; at most {MAX_EXPR_CHARS} are allowed")
    if "#" in text and "#" in _code_only(text):
        raise ExprError("comments (#) are not allowed in expressions")
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"not a valid expression ({exc.msg} at column {exc.offset})") from None
    except (RecursionError, MemoryError):
        raise ExprError(f"expression nested too deeply (at most {MAX_EXPR_DEPTH} levels)") from None
    _check_size(tree)
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ExprError(f"{type(node).__name__} is not allowed in expressions")
        if isinstance(node, ast.Attribute):
            raise ExprError("attribute access (a.b) is not allowed in expressions")
        if isinstance(node, ast.Call) and (not isinstance(node.func, ast.Name) or node.keywords):
            raise ExprError("only calls of named functions with positional arguments are allowed")
        if isinstance(node, ast.Call) and any(isinstance(a, ast.Starred) for a in node.args):
            raise ExprError("starred arguments are not allowed in expressions")
        if isinstance(node, ast.Constant):
            _check_constant(node.value)
    return tree


def _code_only(text: str) -> str:
    """The text with its string literals blanked, so a '#' inside a string is not taken for a comment."""
    import io
    import tokenize

    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text.strip()).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return text  # the parser reports the real problem
    return " ".join("''" if t.type == tokenize.STRING else t.string for t in tokens if t.type != tokenize.NL) \
        + ("#" if any(t.type == tokenize.COMMENT for t in tokens) else "")


def _check_size(tree: ast.AST) -> None:
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if depth > MAX_EXPR_DEPTH:
            raise ExprError(f"expression nested too deeply (at most {MAX_EXPR_DEPTH} levels)")
        if count > MAX_EXPR_NODES:
            raise ExprError(f"expression too large (at most {MAX_EXPR_NODES} parts)")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _check_constant(value: object) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        if isinstance(value, str) and (len(value) > 200 or not value.isprintable()):
            raise ExprError("string constants are at most 200 printable characters")
        return
    if isinstance(value, int):
        if not -INT_LIMIT <= value < INT_LIMIT:
            raise ExprError("integer constant out of the int64 range")
        return
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ExprError("numeric constant is not finite (write a finite number)")
        return
    raise ExprError(f"constant of type {type(value).__name__} is not allowed")


@lru_cache(maxsize=8192)
def canonical(text: str) -> str:
    """The expression as opgen re-emits it for display: from the parsed tree, one line, no comments."""
    return ast.unparse(_tree(text))


def _bound_names(tree: ast.AST) -> set[str]:
    """Names bound by comprehensions inside the expression."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.comprehension):
            out |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    return out


def check_names(text: str, attributes: set[str], parameters: set[str],
                tensor_attributes: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Problems with a check expression's names and calls (empty when fine). `tensor_attributes` (among
    `attributes`) are the tensor-valued ones, whose shape, rank and numel a check may read."""
    return list(_check_names(text, frozenset(attributes), frozenset(parameters), frozenset(tensor_attributes)))


def parameter_calls(text: str) -> set[tuple[str, str]]:
    """(function, parameter) for every shape function call of an expression: `count(outputs)`."""
    return {(_name(n.func), _name(n.args[0])) for n in ast.walk(_tree(text)) if isinstance(n, ast.Call)
            and _name(n.func) in SHAPE_FUNCTIONS and len(n.args) == 1 and isinstance(n.args[0], ast.Name)}


RESERVED_LOCALS = frozenset({"c"}) | SHAPE_FUNCTIONS | MULTI_SHAPE_FUNCTIONS | CHECK_BUILTINS


# What a check's text holds, in the order ast.walk meets it: ("call", function, argument names or None
# where an argument is not a plain name), ("problem", text) for what is wrong whatever the op, and
# ("name", id) for a free name (neither called nor a shape function's argument). Read once per text:
# specs repeat expressions across versions and ops, and walking the tree is most of what checking costs.
_Event = tuple[str, str, "tuple[str | None, ...] | None"]


@lru_cache(maxsize=8192)
def _check_events(text: str) -> tuple[frozenset[str], tuple[_Event, ...]]:
    tree = _tree(text)
    nodes = list(ast.walk(tree))
    local: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.comprehension):
            local |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
    not_free: set[int] = set()
    events: list[_Event] = []
    for node in nodes:
        if isinstance(node, ast.Call):
            fname = _name(node.func)
            not_free.add(id(node.func))
            if fname in SHAPE_FUNCTIONS and node.args:
                not_free.add(id(node.args[0]))
            elif fname in MULTI_SHAPE_FUNCTIONS:
                not_free |= {id(a) for a in node.args}
            events.append(("call", fname, tuple(a.id if isinstance(a, ast.Name) else None for a in node.args)))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            events.append(("problem", "** is not allowed in checks (a check must stay cheap to evaluate)", None))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult) and any(
                isinstance(side, (ast.List, ast.Tuple, ast.ListComp)) or
                (isinstance(side, ast.Constant) and isinstance(side.value, str)) for side in (node.left, node.right)):
            events.append(("problem", "repeating a list or string with * is not allowed in checks", None))
    events += [("name", node.id, None) for node in nodes if isinstance(node, ast.Name) and id(node) not in not_free]
    return frozenset(local), tuple(events)


@lru_cache(maxsize=8192)
def _check_names(text: str, attributes: frozenset[str], parameters: frozenset[str],
                 tensor_attributes: frozenset[str] = frozenset()) -> tuple[str, ...]:
    local, events = _check_events(text)
    # The generated check is `lambda c: ...` and calls the functions below by name: a comprehension
    # variable with one of these names would shadow them (`[c for c in ...]` broke the context).
    problems = [f"comprehension variable {name!r} is reserved (the check's context or a function it calls); "
                "use another name" for name in sorted(local & RESERVED_LOCALS)]
    problems += [f"comprehension variable {name!r} is easily misread (l, O, I: the generated code is linted, "
                 "ruff E741); use another name" for name in sorted(local & {"l", "O", "I"})]
    for kind, value, args in events:
        if kind == "problem":
            problems.append(value)
        elif kind == "name":
            if value not in attributes and value not in local and value not in ("True", "False", "None"):
                problems.append(f"unknown name {value!r}; expected an attribute of the op"
                                f" ({', '.join(sorted(attributes)) or 'none'}) or a comprehension variable")
        else:
            problems += _call_problems(value, args or (), attributes, parameters, tensor_attributes)
    return tuple(problems)


def _call_problems(fname: str, args: tuple[str | None, ...], attributes: frozenset[str],
                   parameters: frozenset[str], tensor_attributes: frozenset[str]) -> list[str]:
    """What is wrong with one call of a check: a shape function's argument must name a parameter (or, for
    has() and the attribute shape functions, an attribute); any other function must be a check builtin."""
    if fname in SHAPE_FUNCTIONS:
        if len(args) != 1 or args[0] is None:
            return [f"{fname}() takes one parameter name"]
        name = args[0]
        if name not in parameters and not ((fname == "has" and name in attributes) or
                                           (fname in ATTRIBUTE_SHAPE_FUNCTIONS and name in tensor_attributes)):
            return [f"{fname}({name}): no input or output named {name!r}"]
        return []
    if fname in MULTI_SHAPE_FUNCTIONS:
        if not args or any(a is None for a in args):
            return [f"{fname}() takes parameter names"]
        return [f"{fname}({a}): no input or output named {a!r}" for a in args if a not in parameters]
    if fname not in CHECK_BUILTINS:
        allowed = ", ".join(sorted(SHAPE_FUNCTIONS | MULTI_SHAPE_FUNCTIONS | CHECK_BUILTINS))
        return [f"unknown function {fname}(){suggest(fname, SHAPE_FUNCTIONS | MULTI_SHAPE_FUNCTIONS | CHECK_BUILTINS)}"
                f"; allowed: {allowed}"]
    return []


def _through_context(node: ast.AST, local: set[str]) -> ast.AST:
    """The check read through the context object `c` (attributes and shapes), as new nodes where it
    changes and the shared tree's own (_tree) where not, so the tree the vet parsed serves here too.
    A plain recursion over the fields: ast.NodeTransformer's generic visit (a method looked up by name
    for every node, a list rebuilt for every field) was a third of what emitting the checks cost."""
    if isinstance(node, ast.Call):
        fname = _name(node.func)
        if fname in SHAPE_FUNCTIONS:
            return _context_call(fname, [ast.Constant(_name(node.args[0]))])
        if fname in MULTI_SHAPE_FUNCTIONS:
            return _context_call(fname, [ast.Constant(_name(a)) for a in node.args])
        args = [cast(ast.expr, _through_context(a, local)) for a in node.args]
        if fname in ("unique", "range", "prod", "bits"):  # bounded, NumPy-free or spec-aware: on the context
            return _context_call(fname, args)
        return ast.Call(node.func, args, node.keywords)
    if isinstance(node, ast.Name):
        if node.id in local or node.id in ("True", "False", "None"):
            return node
        return _context_call("attr", [ast.Constant(node.id)])
    fields = {}
    changed = False
    for field in node._fields:
        value = getattr(node, field)
        if isinstance(value, list):
            value = [_through_context(v, local) if isinstance(v, ast.AST) else v for v in value]
            changed = changed or any(new is not old for new, old in zip(value, getattr(node, field)))
        elif isinstance(value, ast.AST):
            value = _through_context(value, local)
            changed = changed or value is not getattr(node, field)
        fields[field] = value
    return type(node)(**fields) if changed else node


def _context_call(function: str, args: list[ast.expr]) -> ast.Call:
    """`c.<function>(args)`."""
    return ast.Call(ast.Attribute(ast.Name("c", ast.Load()), function, ast.Load()), args, [])


@lru_cache(maxsize=8192)
def check_to_python(text: str) -> str:
    """A check expression as Python source over a context object `c`. (Only the text is wanted: the tree
    gets no line numbers, which ast.unparse never reads; a text without `for` has no comprehension.)"""
    tree = _tree(text)
    local = _bound_names(tree) if "for" in text else set()
    return ast.unparse(_through_context(tree, local))
