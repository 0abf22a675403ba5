"""Element-wise formulas (`elementwise.formula`): checked, typed and emitted as NumPy and as C from one
parsed tree (opgen.expr parses and vets it), so the reference kernel and the C kernel cannot drift apart."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from .errors import suggest
from .expr import ExprError, _name, _tree
from .formula_fusions import numpy_fusion


@dataclass(frozen=True)
class MathFunction:
    """How a formula function is spelled in NumPy and in C.

    Spellings are templates over the emitted arguments ({0}, {1}, ...). `c` maps an operand kind
    ("float" for float and double, "float32" for the float flavour when it differs, "int", "uint",
    "bool") to its C spelling; a kind missing from `c` has no C implementation.
    """

    numpy: str
    c: dict[str, str]
    arity: int

    def c_spelling(self, compute: str, kind: str) -> str | None:
        if kind == "float":
            return self.c.get("float32" if compute == "float" else "float64", self.c.get("float"))
        return self.c.get(kind)


def _libm(name: str, arity: int = 1) -> MathFunction:
    args = ", ".join(f"{{{k}}}" for k in range(arity))
    return MathFunction(f"np.{name}({args})" if name not in _NUMPY_NAMES else f"{_NUMPY_NAMES[name]}({args})",
                        {"float32": f"{name}f({args})", "float64": f"{name}({args})"}, arity)


_NUMPY_NAMES = {"asin": "np.arcsin", "acos": "np.arccos", "atan": "np.arctan", "atan2": "np.arctan2",
                "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh", "pow": "_ew.power",
                "erf": "_ew.erf"}

FORMULA_FUNCTIONS: dict[str, MathFunction] = {
    **{name: _libm(name) for name in ("exp", "expm1", "log", "log1p", "sqrt", "cbrt", "sin", "cos", "tan", "asin",
                                      "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf")},
    # floor and ceil in C: branch-free helpers (runtime.h) that vectorise on baseline x86-64, where libm's
    # floorf is a call per element (the roundps instruction needs SSE4.1).
    "floor": MathFunction("np.floor({0})", {"float32": "opgen_floor_f32({0})", "float64": "opgen_floor_f64({0})"}, 1),
    "ceil": MathFunction("np.ceil({0})", {"float32": "opgen_ceil_f32({0})", "float64": "opgen_ceil_f64({0})"}, 1),
    "atan2": _libm("atan2", 2),
    "pow": _libm("pow", 2),
    "where": MathFunction("_ew.select({0}, {1}, {2})", {k: "(({0}) ? ({1}) : ({2}))" for k in
                                                      ("float", "int", "uint", "bool")}, 3),
    "abs": MathFunction("np.abs({0})", {"float32": "fabsf({0})", "float64": "fabs({0})", "int": "opgen_abs_i64({0})",
                                        "uint": "({0})"}, 1),
    # NaN-propagating maximum/minimum (XLA, NumPy); C's fmax/fmin would drop the NaN.
    "maximum": MathFunction("np.maximum({0}, {1})", {"float": "opgen_max_f64({0}, {1})",
                                                     "float32": "opgen_max_f32({0}, {1})",
                                                     "int": "opgen_maximum_i64({0}, {1})",
                                                     "uint": "opgen_maximum_u64({0}, {1})"}, 2),
    "minimum": MathFunction("np.minimum({0}, {1})", {"float": "opgen_min_f64({0}, {1})",
                                                     "float32": "opgen_min_f32({0}, {1})",
                                                     "int": "opgen_minimum_i64({0}, {1})",
                                                     "uint": "opgen_minimum_u64({0}, {1})"}, 2),
    # Rounding: half away from zero (C round) and half to even (C rint under the default mode).
    "round_half_away": MathFunction("_ew.round_half_away({0})", {"float32": "roundf({0})", "float64": "round({0})"}, 1),
    "round_half_even": MathFunction("np.rint({0})", {"float32": "rintf({0})", "float64": "rint({0})"}, 1),
    "sign": MathFunction("np.sign({0})", {"float32": "opgen_sign_f32({0})", "float64": "opgen_sign_f64({0})",
                                          "int": "opgen_sign_i64({0})", "uint": "(({0}) != 0)"}, 1),
    "isfinite": MathFunction("np.isfinite({0})", {"float": "isfinite({0})"}, 1),
    "popcount": MathFunction("np.bitwise_count({0})", {"int": "__builtin_popcountll((uint64_t)({0}))",
                                                      "uint": "__builtin_popcountll((uint64_t)({0}))"}, 1),
    # The bits of the integer as stored, in its own width (sizeof the operand, which C evaluates in the
    # element's own type): popcount() above counts a signed operand's 64-bit sign extension in C and |x|
    # in NumPy, which only the unsigned types it is written for (hlir PopulationCount) never meet.
    "popcount_bits": MathFunction("_ew.popcount_bits({0})", {
        k: "__builtin_popcountll((uint64_t)({0}) & (~(uint64_t)0 >> (64 - 8 * sizeof({0}))))"
        for k in ("int", "uint")}, 1),
    "logical_not": MathFunction("np.logical_not({0})", {"bool": "(!({0}))"}, 1),
    # Negation that wraps for integers (C's -INT64_MIN is undefined; NumPy and XLA wrap) and keeps -0.0.
    "neg": MathFunction("np.negative({0})", {"float": "(-({0}))", "int": "opgen_neg_i64({0})",
                                             "uint": "((uint64_t)0 - (uint64_t)({0}))"}, 1),
    # 1/sqrt(x) for x > 0, NaN for x <= 0 (hlir Rsqrt, seed 3.107); integers: the float result converted
    # like Convert (truncation, NaN -> 0), i.e. 1 for x == 1 and 0 otherwise.
    "rsqrt": MathFunction("_ew.rsqrt({0})", {"float32": "opgen_rsqrt_f32({0})", "float64": "opgen_rsqrt_f64({0})",
                                             "int": "(({0}) == 1)", "uint": "(({0}) == 1)"}, 1),
    # A fresh copy of the value (the NumPy kernel never returns its input array itself).
    "copy": MathFunction("np.copy({0})", {k: "({0})" for k in ("float", "int", "uint", "bool")}, 1),
    # Activations: erfc (exact Gelu without the cancellation of 1 + erf(x) for negative x), and
    # mul_trunc(a, x): a * x; for integer x the product is taken in double and converted toward zero,
    # saturating to x's type (NaN -> 0) — LeakyRelu's float alpha on integer inputs. No integer C
    # spelling yet: the C renderer converts formula attributes to the compute type, so an integer
    # kernel would see alpha = 0.5 as 0 (helpers opgen_mul_trunc_i64/u64(a, x, sizeof x) are ready in runtime.h).
    "erfc": MathFunction("_ew.erfc({0})", {"float32": "erfcf({0})", "float64": "erfc({0})"}, 1),
    "mul_trunc": MathFunction("_ew.mul_trunc({0}, {1})", {"float": "(({0}) * ({1}))"}, 2),
    # ---- XLA binary arithmetic (hlir Div, Rem, Max, Min, Clamp, shifts) ----
    # div/rem: floats as IEEE (rem = C fmod, sign of the dividend); integers truncate toward zero and
    # give XLA's defined results: x / 0 = -1 (all bits set), x % 0 = x, INT_MIN / -1 = INT_MIN,
    # INT_MIN % -1 = 0. The C helpers take 64-bit operands; the store narrows them back (wrapping).
    "div": MathFunction("_ew.xla_div({0}, {1})", {"float": "(({0}) / ({1}))",
                                                  "int": "opgen_div_i64((int64_t)({0}), (int64_t)({1}))",
                                                  "uint": "opgen_div_u64((uint64_t)({0}), (uint64_t)({1}))"}, 2),
    "rem": MathFunction("_ew.xla_rem({0}, {1})", {"float32": "fmodf({0}, {1})", "float64": "fmod({0}, {1})",
                                                  "int": "opgen_rem_i64((int64_t)({0}), (int64_t)({1}))",
                                                  "uint": "opgen_rem_u64((uint64_t)({0}), (uint64_t)({1}))"}, 2),
    # mod: the remainder with the sign of the divisor (Python's %, NumPy's remainder; ONNX Mod with fmod=0): rem's
    # result plus the divisor where that is nonzero and of the other sign. Integers: x mod 0 = x (as rem);
    # floats: a zero result takes the divisor's sign, x mod 0 and inf mod y are NaN.
    "mod": MathFunction("_ew.floor_mod({0}, {1})", {"float32": "opgen_mod_f32({0}, {1})",
                                                    "float64": "opgen_mod_f64({0}, {1})",
                                                    "int": "opgen_mod_i64((int64_t)({0}), (int64_t)({1}))",
                                                    "uint": "opgen_rem_u64((uint64_t)({0}), (uint64_t)({1}))"}, 2),
    # IEEE 754-2019 maximum/minimum (XLA's Max/Min): NaN-propagating and -0.0 < +0.0, unlike
    # maximum()/minimum() above, whose result for a pair of zeros is either operand.
    "ieee_maximum": MathFunction("_ew.ieee_maximum({0}, {1})", {"float32": "opgen_ieee_max_f32({0}, {1})",
                                                                "float64": "opgen_ieee_max_f64({0}, {1})",
                                                                "int": "opgen_maximum_i64({0}, {1})",
                                                                "uint": "opgen_maximum_u64({0}, {1})"}, 2),
    "ieee_minimum": MathFunction("_ew.ieee_minimum({0}, {1})", {"float32": "opgen_ieee_min_f32({0}, {1})",
                                                                "float64": "opgen_ieee_min_f64({0}, {1})",
                                                                "int": "opgen_minimum_i64({0}, {1})",
                                                                "uint": "opgen_minimum_u64({0}, {1})"}, 2),
    # XLA shifts of an integer by an amount of the same type, read as unsigned: an amount outside
    # [0, bit width) gives 0 (left, logical right) or the sign fill (arithmetic right, which reads
    # unsigned operands as signed). The bit width is that of the first operand's (compute) type.
    "shift_left": MathFunction("_ew.shift_left({0}, {1})", {
        k: "opgen_shl_u64((uint64_t)({0}), (uint64_t)({1}), 8u * (unsigned)sizeof({0}))" for k in ("int", "uint")}, 2),
    "shift_right_logical": MathFunction("_ew.shift_right_logical({0}, {1})", {
        k: "opgen_shr_logical_u64((uint64_t)({0}), (uint64_t)({1}), 8u * (unsigned)sizeof({0}))"
        for k in ("int", "uint")}, 2),
    "shift_right_arithmetic": MathFunction("_ew.shift_right_arithmetic({0}, {1})", {
        k: "opgen_shr_arithmetic_u64((uint64_t)({0}), (uint64_t)({1}), 8u * (unsigned)sizeof({0}))"
        for k in ("int", "uint")}, 2),
    # The right shift that keeps the value's sign (ONNX BitShift RIGHT): arithmetic for signed types,
    # logical for unsigned ones; amounts outside [0, bit width) as the two above.
    "shift_right": MathFunction("_ew.shift_right({0}, {1})", {
        "int": "opgen_shr_arithmetic_u64((uint64_t)({0}), (uint64_t)({1}), 8u * (unsigned)sizeof({0}))",
        "uint": "opgen_shr_logical_u64((uint64_t)({0}), (uint64_t)({1}), 8u * (unsigned)sizeof({0}))"}, 2),
}

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitAnd: "&", ast.BitOr: "|",
           ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>"}
_CMPOPS = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_CMP_HELPERS = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}


# count(x): the number of tensors of variadic input x, in a formula that folds over x (elementwise.fold).
COUNT_FUNCTION = "count"


@lru_cache(maxsize=8192)
def formula_names(text: str) -> frozenset[str]:
    """The names a formula reads (inputs, attributes, a fold's accumulator; count()'s argument included)."""
    tree = _tree(text)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    return frozenset(n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and id(n) not in called)


# A string constant of a formula (compared with a string attribute): a plain word, so that the C
# literal needs no escaping.
_FORMULA_STRING = re.compile(r"[A-Za-z0-9_]{1,64}")


def _string_comparison(node: ast.AST) -> tuple[ast.Name, str] | None:
    """(attribute name, literal) for `name == 'word'` / `name != 'word'` (either side), else None."""
    if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.Eq, ast.NotEq))):
        return None
    left, right = node.left, node.comparators[0]
    if isinstance(left, ast.Constant) and isinstance(left.value, str):
        left, right = right, left
    if isinstance(left, ast.Name) and isinstance(right, ast.Constant) and isinstance(right.value, str):
        return left, right.value
    return None


def check_formula(text: str, names: set[str], strings: set[str] | frozenset[str] = frozenset(),
                  counted: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Problems with an element-wise formula (empty when fine). `strings` are the names (among `names`) of
    string attributes: a formula may only compare them with a word (approximate == 'tanh'); `counted` the
    variadic inputs count() may take (a fold's input)."""
    return list(_check_formula(text, frozenset(names), frozenset(strings), frozenset(counted)))


def _count_problem(node: ast.Call, counted: frozenset[str]) -> str | None:
    """Why a call of count() is not allowed here, or None: it takes the variadic input the formula folds."""
    if len(node.args) == 1 and isinstance(node.args[0], ast.Name) and node.args[0].id in counted:
        return None
    if not counted:
        return "count() counts the tensors of a folded variadic input; this formula folds none (elementwise.fold)"
    return f"count() takes the folded input's name: count({', '.join(sorted(counted))})"


@lru_cache(maxsize=8192)
def _check_formula(text: str, names: frozenset[str], strings: frozenset[str] = frozenset(),
                   counted: frozenset[str] = frozenset()) -> tuple[str, ...]:
    tree = _tree(text)
    problems = []
    count_args = {id(a) for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n.func) == COUNT_FUNCTION
                  for a in n.args}
    compared = {}  # id of a string comparison's Name / Constant -> the comparison
    for node in ast.walk(tree):
        pair = _string_comparison(node)
        if pair is not None:
            name, word = pair
            assert isinstance(node, ast.Compare)  # _string_comparison matched a comparison
            compared[id(name)] = compared[id(node.comparators[0])] = compared[id(node.left)] = node
            if name.id not in strings:
                problems.append(f"{name.id!r} is compared with the string {word!r}, but is not a string attribute")
            if not _FORMULA_STRING.fullmatch(word):
                problems.append(f"string {word!r}: a formula compares with plain words (letters, digits, _)")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in strings and id(node) not in compared:
            problems.append(f"string attribute {node.id!r} can only be compared with a word (== or !=)")
        if isinstance(node, ast.Call) and _name(node.func) == COUNT_FUNCTION:
            problem = _count_problem(node, counted)
            if problem:
                problems.append(problem)
        elif isinstance(node, ast.Call):
            fn = FORMULA_FUNCTIONS.get(_name(node.func))
            if fn is None:
                problems.append(f"unknown function {_name(node.func)}(){suggest(_name(node.func), FORMULA_FUNCTIONS)}; "
                                f"allowed: {', '.join(sorted(FORMULA_FUNCTIONS))}")
            elif len(node.args) != fn.arity:
                problems.append(f"{_name(node.func)}() takes {fn.arity} arguments, got {len(node.args)}")
        elif isinstance(node, (ast.BoolOp, ast.GeneratorExp, ast.ListComp, ast.Subscript, ast.IfExp,
                               ast.Tuple, ast.List)):
            problems.append(f"{type(node).__name__} is not allowed in element-wise formulas (use where())")
        elif isinstance(node, ast.Compare) and len(node.ops) != 1:
            problems.append("chained comparisons are not allowed in element-wise formulas")
        elif isinstance(node, ast.Constant) and not isinstance(node.value, (int, float)) and id(node) not in compared:
            problems.append(f"constant {node.value!r} is not a number")
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in called | count_args and node.id not in names:
            problems.append(f"unknown name {node.id!r}; expected one of: {', '.join(sorted(names))}")
    return tuple(problems)


def float_attributes_outside_mul_trunc(text: str, float_attributes: frozenset[str]) -> frozenset[str]:
    """Float attributes the formula uses other than as mul_trunc's factor.

    The typing rule both emitters follow: a formula computes in its compute type (the first
    input's element type; float16/bfloat16 in float32), and attributes take that type where they
    meet the inputs -- except mul_trunc(a, x), which multiplies in double and truncates toward zero.
    So over integer element types a float attribute would be truncated first (0.2 -> 0): the
    checker refuses that rather than let the NumPy kernel (which would promote) and the C kernel
    (which converts) disagree.
    """
    tree = _tree(text)
    allowed = {id(node.args[0]) for node in ast.walk(tree)
               if isinstance(node, ast.Call) and _name(node.func) == "mul_trunc" and node.args}
    return frozenset(n.id for n in ast.walk(tree)
                     if isinstance(n, ast.Name) and n.id in float_attributes and id(n) not in allowed)


class _Emitter:
    """Walks a vetted formula tree; subclasses say how each construct is spelled."""

    def __init__(self, rename: dict[str, str], counts: dict[str, str] | None = None):
        self.rename = rename
        self.counts = counts or {}  # count(x) of a fold: how the number of x's tensors is spelled

    def constant(self, value: Any) -> str:
        raise NotImplementedError

    def unary(self, op: ast.unaryop, operand: str) -> str:
        raise NotImplementedError

    def binary(self, op: str, left: str, right: str) -> str:
        raise NotImplementedError

    def compare(self, op: str, left: str, right: str) -> str:
        raise NotImplementedError

    def string_compare(self, op: str, name: str, word: str) -> str:
        raise NotImplementedError

    def call(self, name: str, args: list[str]) -> str:
        raise NotImplementedError

    def count(self, spelling: str) -> str:
        """count(x) of a fold, as a value of the compute type."""
        raise NotImplementedError

    def emit(self, node: ast.AST) -> str:
        if isinstance(node, ast.Expression):
            return self.emit(node.body)
        if isinstance(node, ast.Name):
            return self.rename[node.id]
        if isinstance(node, ast.Constant):
            return self.constant(node.value)
        if isinstance(node, ast.UnaryOp):
            return self.unary(node.op, self.emit(node.operand))
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow):
                return self.call("pow", [self.emit(node.left), self.emit(node.right)])
            return self.binary(_BINOPS[type(node.op)], self.emit(node.left), self.emit(node.right))
        if isinstance(node, ast.Compare):
            pair = _string_comparison(node)
            if pair is not None:
                return self.string_compare(_CMPOPS[type(node.ops[0])], self.emit(pair[0]), pair[1])
            return self.compare(_CMPOPS[type(node.ops[0])], self.emit(node.left), self.emit(node.comparators[0]))
        if isinstance(node, ast.Call) and _name(node.func) == COUNT_FUNCTION:
            return self.count(self.counts[_name(node.args[0])])
        if isinstance(node, ast.Call):
            return self.call(_name(node.func), [self.emit(a) for a in node.args])
        raise ExprError(f"cannot emit {type(node).__name__}")


class _NumpyEmitter(_Emitter):
    def emit(self, node: ast.AST) -> str:
        fused = numpy_fusion(node)  # a clamp, LeakyRelu: one runtime helper for the whole subtree
        if fused is not None:
            helper, operands = fused
            return f"{helper}({', '.join(self.emit(a) for a in operands)})"
        if isinstance(node, ast.Lambda):  # a branch a fusion's helper computes only when it needs it
            return f"(lambda: {self.emit(node.body)})"
        return super().emit(node)

    def constant(self, value: Any) -> str:
        return repr(value)

    def unary(self, op: ast.unaryop, operand: str) -> str:
        return f"({ {ast.USub: '-', ast.UAdd: '+', ast.Invert: '~', ast.Not: '~'}[type(op)]}{operand})"

    def binary(self, op: str, left: str, right: str) -> str:
        return f"({left} {op} {right})"

    def compare(self, op: str, left: str, right: str) -> str:
        return f"({left} {op} {right})"

    def call(self, name: str, args: list[str]) -> str:
        return FORMULA_FUNCTIONS[name].numpy.format(*args)

    def count(self, spelling: str) -> str:
        return spelling  # a Python int: it takes the array's type where it meets it

    def string_compare(self, op: str, name: str, word: str) -> str:
        return f"({name} {op} {word!r})"


class _CEmitter(_Emitter):
    """C, evaluated in type `compute` of kind float/int/uint/bool.

    Signed + - * wrap through uint64_t (overflow is undefined in C, NumPy wraps); comparisons of
    unsigned values go through opgen_cmp_* so that `x < 0` does not trip -Wtype-limits.
    """

    def __init__(self, rename: dict[str, str], compute: str, kind: str, counts: dict[str, str] | None = None):
        super().__init__(rename, counts)
        self.compute, self.kind = compute, kind

    def count(self, spelling: str) -> str:
        return f"(({self.compute})({spelling}))"

    def constant(self, value: Any) -> str:
        if self.kind == "float":
            return f"(({self.compute}){float(value)!r})"
        return f"(({self.compute}){int(value)})"

    def unary(self, op: ast.unaryop, operand: str) -> str:
        symbol = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~", ast.Not: "!"}[type(op)]
        if self.kind == "bool" and symbol == "~":
            # NumPy's ~ on booleans is the logical not; C's ~ promotes to int, and (bool)~1 is true
            symbol = "!"
        return f"(({self.compute})({symbol}{operand}))"

    def binary(self, op: str, left: str, right: str) -> str:
        if self.kind == "int" and op in ("+", "-", "*"):
            return f"(({self.compute})((uint64_t)({left}) {op} (uint64_t)({right})))"
        return f"(({self.compute})({left} {op} {right}))"

    def compare(self, op: str, left: str, right: str) -> str:
        if self.kind == "uint":
            return f"opgen_cmp_{_CMP_HELPERS[op]}_u64((uint64_t)({left}), (uint64_t)({right}))"
        return f"({left} {op} {right})"

    def string_compare(self, op: str, name: str, word: str) -> str:
        # A NULL string (an attribute the caller did not give) equals no word.
        if op == "==":
            return f"({name} != NULL && strcmp({name}, \"{word}\") == 0)"
        return f"({name} == NULL || strcmp({name}, \"{word}\") != 0)"

    def call(self, name: str, args: list[str]) -> str:
        spelling = FORMULA_FUNCTIONS[name].c_spelling(self.compute, self.kind)
        if spelling is None:
            raise ExprError(f"{name}() has no C implementation for {self.kind} operands")
        return spelling.format(*args)


def formula_to_numpy(text: str, rename: dict[str, str], counts: dict[str, str] | None = None) -> str:
    """NumPy source for a formula; `rename` maps spec names to Python variables, `counts` a folded input's
    name to the Python expression of its number of tensors (count())."""
    return _formula_to_numpy(text, tuple(sorted(rename.items())), tuple(sorted((counts or {}).items())))


@lru_cache(maxsize=8192)
def _formula_to_numpy(text: str, rename: tuple[tuple[str, str], ...], counts: tuple[tuple[str, str], ...]) -> str:
    return _NumpyEmitter(dict(rename), dict(counts)).emit(_tree(text))


def formula_to_c(text: str, rename: dict[str, str], compute: str, kind: str,
                 counts: dict[str, str] | None = None) -> str:
    """C source for a formula evaluated in C type `compute` (of kind float/int/uint/bool); `counts` as for
    formula_to_numpy, a C expression (converted to the compute type)."""
    return _formula_to_c(text, tuple(sorted(rename.items())), compute, kind, tuple(sorted((counts or {}).items())))


@lru_cache(maxsize=8192)
def _formula_to_c(text: str, rename: tuple[tuple[str, str], ...], compute: str, kind: str,
                  counts: tuple[tuple[str, str], ...]) -> str:
    return _CEmitter(dict(rename), compute, kind, dict(counts)).emit(_tree(text))


@lru_cache(maxsize=8192)
def c_supported(text: str, kind: str) -> bool:
    """Whether the formula has a C implementation for operands of this kind."""
    if kind not in ("float", "int", "uint", "bool"):
        return False
    for node in ast.walk(_tree(text)):
        if isinstance(node, ast.Call) and _name(node.func) != COUNT_FUNCTION \
                and FORMULA_FUNCTIONS[_name(node.func)].c_spelling("double", kind) is None:
            return False
        if kind != "float" and isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Pow, ast.Div)):
            return False
        if kind != "float" and isinstance(node, ast.Constant) and not isinstance(node.value, str) \
                and not float(cast(float, node.value)).is_integer():
            return False
    return True
