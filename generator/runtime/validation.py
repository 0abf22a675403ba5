"""The validation machinery behind every generated validator.

A generated validator is a `Signature` (data transcribed from the spec) plus
compiled constraint checks; `validate` applies all of it and returns every
problem found, each naming op@version, the parameter or attribute, what was
found and what is allowed.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ..dtypes import ELEM_TYPES, type_key
from ..errors import suggest
from ..errors import OpgenError
from ..names import attribute_keyword
from .attribute_kinds import ATTR_KINDS, attribute_kind_ok  # noqa: F401  (re-exported)

# The context types live in their own module (shape_rules needs them, and this module runs the rules);
# they are re-exported here, where generated validators, the readers and user code import them from.
from .context import Bound, CheckContext, Unknown  # noqa: F401  (re-exported)
from .context import TensorInfo as TensorInfo  # re-exported (validators and readers import it from here)
from .shape_rules import RULES
from .validation_memo import _CACHE  # noqa: F401  (re-exported: tests clear it)
from .validation_memo import cache_key as _cache_key
from .validation_memo import memo_get as _memo_get
from .validation_memo import memo_put as _memo_put


@dataclass(frozen=True)
class AttrSig:
    name: str
    type: str
    required: bool = False
    has_default: bool = False
    default: Any = None
    default_each: float | int | None = None
    values: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ParamSig:
    name: str
    type: str  # type variable or a fixed type: tensor(<elem>), seq(...), optional(...)
    option: str = "single"
    homogeneous: bool = True
    min_arity: int = 0


@dataclass(frozen=True)
class Check:
    id: str
    test: Callable[["CheckContext"], bool]
    message: str
    when: Callable[["CheckContext"], bool] | None = None


@dataclass(frozen=True)
class OutputShape:
    """An output's shape as a function of the inputs and attributes (the spec's expression `text`)."""

    name: str
    shape: Callable[["CheckContext"], Any]
    text: str


@dataclass(frozen=True)
class RuleCall:
    id: str
    rule: str
    args: Mapping[str, Any]
    message: str


@dataclass(frozen=True)
class Signature:
    op: str  # domain.Op
    version: int
    attributes: tuple[AttrSig, ...]
    inputs: tuple[ParamSig, ...]
    outputs: tuple[ParamSig, ...]
    type_constraints: Mapping[str, tuple[str, ...]]  # variable -> allowed types, as dtypes name them (type_key)
    checks: tuple[Check, ...] = ()
    rules: tuple[RuleCall, ...] = ()
    output_shapes: tuple[OutputShape, ...] = ()
    deprecated: bool = False  # the source withdrew the op at this version: every use is a problem

    @property
    def key(self) -> str:
        return f"{self.op}@{self.version}"

    @functools.cached_property
    def _attributes_by_name(self) -> dict[str, AttrSig]:
        return {a.name: a for a in self.attributes}

    def attribute(self, name: str) -> AttrSig | None:
        """The attribute called `name`."""
        return self._attributes_by_name.get(name)

    @functools.cached_property
    def keywords(self) -> dict[str, str]:
        """Each attribute's name as the kernel's keyword and checks spell it (names.attribute_keyword:
        `<name>_attr` for an attribute with an input's name) -> the attribute's own name."""
        inputs = {p.name for p in self.inputs}
        return {attribute_keyword(a.name, inputs): a.name for a in self.attributes}

    def checked_attribute(self, name: str) -> str | None:
        """The attribute a check's name denotes (checks ask this for every shape() and rank() they
        read), or None for a parameter: Split-1's `split` is its input, `split_attr` its attribute."""
        return self.keywords.get(name)

    def allowed(self, param: ParamSig) -> tuple[str, ...]:
        if param.type in self.type_constraints:
            return self.type_constraints[param.type]
        return (type_key(param.type),)


@dataclass(frozen=True)
class Problem:
    op: str  # domain.Op@version
    where: str  # "input 'slope'", "attribute 'alpha'", "constraint C1", ...
    message: str
    found: Any = None
    expected: Any = None

    def __str__(self) -> str:
        return f"{self.op}: {self.where}: {self.message}"


# ---- binding values to parameters ----------------------------------------------------------------

def bind(sig: Signature, params: tuple[ParamSig, ...], values: Sequence[Any], side: str,
         problems: list[Problem]) -> Bound:
    bound = Bound()
    values = list(values)
    n_fixed = sum(1 for p in params if p.option != "variadic")
    has_variadic = any(p.option == "variadic" for p in params)
    required = sum(1 for p in params if p.option == "single")
    min_total = required + sum(p.min_arity for p in params if p.option == "variadic")
    max_total = None if has_variadic else len(params)
    # Trailing absent optionals may be omitted entirely.
    if len(values) < min_total or (max_total is not None and len(values) > max_total):
        expected = f"{min_total}" if max_total == min_total else (
            f"{min_total} to {max_total}" if max_total is not None else f"at least {min_total}")
        names = ", ".join(p.name + ("?" if p.option == "optional" else "..." if p.option == "variadic" else "")
                          for p in params)
        problems.append(Problem(sig.key, f"{side}s", f"expected {expected} {side}s ({names}), found {len(values)}",
                                len(values), expected))
    variadics = [p for p in params if p.option == "variadic"]
    spare = max(len(values) - n_fixed, 0)
    share = spare // len(variadics) if variadics else 0
    if variadics and spare % len(variadics):
        problems.append(Problem(sig.key, f"{side}s", f"the {spare} values of the variadic {side}s "
                                f"{', '.join(p.name for p in variadics)} must split equally among them", spare))
    pos = 0
    for p in params:
        if p.option == "variadic":
            bound.variadic[p.name] = [TensorInfo.of(v) for v in values[pos:pos + share]]
            pos += share
        else:
            v = values[pos] if pos < len(values) else None
            pos += 1
            info = TensorInfo.of(v)
            if info is None and p.option == "single" and pos <= len(values):
                problems.append(Problem(sig.key, f"{side} {p.name!r}", "is required but was not given", None,
                                        "a tensor"))
            bound.single[p.name] = info
    return bound


# ---- attributes --------------------------------------------------------------------------------

def check_attributes(sig: Signature, attributes: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """Check names, kinds, required-ness and listed values; return values with defaults applied."""
    known = {a.name for a in sig.attributes}
    for name in attributes:
        if name not in known:
            problems.append(Problem(sig.key, f"attribute {name!r}", "is not an attribute of this op; known: "
                                    + (", ".join(sorted(known)) or "none"), name, sorted(known)))
    effective: dict[str, Any] = {}
    for a in sig.attributes:
        if a.name in attributes and attributes[a.name] is not None:
            value = attributes[a.name]
            what, ok = ATTR_KINDS[a.type]
            if not ok(value):
                problems.append(Problem(sig.key, f"attribute {a.name!r}", f"expected {what} ({a.type}), found "
                                        f"{_describe(value)}", _describe(value), a.type))
                continue
            if a.values and _unlisted(value, a.values):
                problems.append(Problem(sig.key, f"attribute {a.name!r}", f"value {value!r} is not allowed; allowed: "
                                        + ", ".join(map(str, a.values)), value, list(a.values)))
            effective[a.name] = value
        elif a.required:
            problems.append(Problem(sig.key, f"attribute {a.name!r}", "is required but was not given", None, a.type))
        elif a.has_default:
            effective[a.name] = a.default
    return effective


def _unlisted(value: Any, allowed: tuple[Any, ...]) -> bool:
    if isinstance(value, (list, tuple)):
        return any(v not in allowed for v in value)
    return value not in allowed


def _describe(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return f"bool {value}"
    if isinstance(value, (list, tuple)):
        kinds = sorted({type(v).__name__ for v in value})
        return f"list of {'/'.join(kinds) or 'nothing'}"
    return f"{type(value).__name__} {value!r}" if not callable(value) else "a callable"


# ---- types -------------------------------------------------------------------------------------

def check_types(sig: Signature, ins: Bound, outs: Bound, problems: list[Problem]) -> dict[str, str]:
    """Check allowed dtypes and that each type variable binds one dtype; returns the bindings."""
    binding: dict[str, tuple[str, str]] = {}  # var -> (dtype, first parameter)
    for side, params, bound in (("input", sig.inputs, ins), ("output", sig.outputs, outs)):
        for p in params:
            infos = bound.variadic.get(p.name, []) if p.option == "variadic" else [bound.single.get(p.name)]
            allowed = sig.allowed(p)
            het_seen: set[str] = set()
            for k, info in enumerate(infos):
                if info is None or info.dtype is None:
                    continue
                label = f"{side} {p.name!r}" + (f"[{k}]" if p.option == "variadic" else "")
                if info.dtype not in allowed:
                    dtype = info.dtype
                    unknown = dtype not in ELEM_TYPES and "(" not in dtype
                    message = (f"unknown dtype {dtype!r}{suggest(dtype, ELEM_TYPES)}" if unknown else
                               f"dtype {dtype} is not allowed")
                    problems.append(Problem(sig.key, label, f"{message}; allowed ({p.type}): " + ", ".join(allowed),
                                            dtype, list(allowed)))
                    continue
                if p.type not in sig.type_constraints:  # a fixed type binds no variable
                    continue
                if p.option == "variadic" and not p.homogeneous:
                    het_seen.add(info.dtype)
                    continue
                if p.type in binding and binding[p.type][0] != info.dtype:
                    first_dtype, first = binding[p.type]
                    problems.append(Problem(sig.key, label, f"dtype {info.dtype} differs from {first_dtype} of {first}; "
                                            f"type variable {p.type} must be one type", info.dtype, first_dtype))
                else:
                    binding.setdefault(p.type, (info.dtype, label))
    return {var: dtype for var, (dtype, _) in binding.items()}


# ---- constraints -------------------------------------------------------------------------------

def run_constraints(sig: Signature, ctx: CheckContext, problems: list[Problem]) -> None:
    failed = False  # whether an earlier constraint already reported a problem
    for check in sig.checks:
        try:
            if check.when is not None and not check.when(ctx):
                continue
            ok = check.test(ctx)
        except Unknown:
            continue
        except (TypeError, IndexError, ValueError, ZeroDivisionError, KeyError) as exc:
            # One fault, one problem: a check that cannot even be evaluated after an earlier constraint
            # failed (an index past a list C1 found too short) is a consequence of that failure.
            if not failed:
                problems.append(Problem(sig.key, f"constraint {check.id}", f"{check.message} (could not be "
                                        f"evaluated: {exc})"))
            failed = True
            continue
        if not ok:
            problems.append(Problem(sig.key, f"constraint {check.id}", check.message))
            failed = True
    if not sig.rules:
        return
    for call in sig.rules:
        try:
            found = RULES[call.rule].fn(ctx, **call.args)
        except Unknown:
            continue
        if found:
            problems.append(Problem(sig.key, f"constraint {call.id}", f"{call.message} ({found})", found))


def validate(sig: Signature, inputs: Sequence[Any] = (), attributes: Mapping[str, Any] | None = None,
             outputs: Sequence[Any] | None = None) -> list[Problem]:
    """Every problem with one use of the op. Values are arrays, TensorInfo, (dtype, shape) pairs or None.

    Results are memoised by (signature, dtypes, shapes, attribute values): everything a check can see
    but the tensors' values is in that key, so a cached answer is exact. When a check read a value
    (Reshape's shape), the answer is memoised only if every value it read was small, under that key
    and the bytes of every small value given (the values it read among them).
    """
    key = _cache_key(sig, inputs, attributes, outputs)
    cached = _memo_get(sig, key, inputs, outputs)
    if cached is not None:
        return list(cached)
    problems, largest_read = _validate(sig, inputs, dict(attributes or {}), outputs)
    _memo_put(sig, key, tuple(problems), largest_read, inputs, outputs)
    return problems


def _validate(sig: Signature, inputs: Sequence[Any], attributes: dict[str, Any],
              outputs: Sequence[Any] | None) -> tuple[list[Problem], int]:
    problems: list[Problem] = []
    if sig.deprecated:
        problems.append(Problem(sig.key, "op", f"is deprecated since version {sig.version}: a model importing "
                                "this opset may not use it (use an earlier opset or the op that replaces it)"))
    ins = bind(sig, sig.inputs, inputs, "input", problems)
    outs = bind(sig, sig.outputs, outputs, "output", problems) if outputs is not None else Bound()
    attrs = check_attributes(sig, attributes, problems)
    check_types(sig, ins, outs, problems)
    ctx = CheckContext(sig, attrs, ins, outs, frozenset(k for k, v in attributes.items() if v is not None))
    run_constraints(sig, ctx, problems)
    if sig.output_shapes and outputs is not None and not problems:  # one fault, one problem
        check_output_shapes(sig, ctx, outs, problems)
    return problems, ctx.largest_value_read


def output_shapes_of(sig: Signature, inputs: Sequence[Any], attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The output shapes the spec gives for these inputs and attributes (graphs that do not declare
    their values' shapes take them from here); outputs it cannot tell are left out. A variadic
    output's entry is a tuple of shapes, one per element."""
    if not sig.output_shapes:
        return {}
    # memoised as validate's answers are, under a key of its own (validate's keys have 4 parts)
    key = _cache_key(sig, inputs, attributes, None)
    if key is not None:
        key = (*key, "output shapes")
    cached = _memo_get(sig, key, inputs, None)
    if cached is not None:
        return dict(cached)
    ignored: list[Problem] = []
    ins = bind(sig, sig.inputs, inputs, "input", ignored)
    attrs = check_attributes(sig, attributes, ignored)
    ctx = CheckContext(sig, attrs, ins, Bound(), frozenset(k for k, v in attributes.items() if v is not None))
    found = infer_output_shapes(sig, ctx)
    _memo_put(sig, key, dict(found), ctx.largest_value_read, inputs, None)
    return found


def _variadic_outputs(sig: Signature) -> frozenset[str]:
    return frozenset(p.name for p in sig.outputs if p.option == "variadic")


def infer_output_shapes(sig: Signature, ctx: CheckContext) -> dict[str, Any]:
    """The output shapes the spec determines from what the context knows (unknown ones left out).
    The shape expression of a variadic output gives a list of shapes, one per element (Split)."""
    found: dict[str, Any] = {}
    variadic = _variadic_outputs(sig)
    for entry in sig.output_shapes:
        try:
            value = entry.shape(ctx)
            if entry.name in variadic:
                found[entry.name] = tuple(tuple(int(d) for d in s) for s in value)
            else:
                found[entry.name] = tuple(int(d) for d in value)
        except (Unknown, TypeError, IndexError, ValueError, KeyError, ZeroDivisionError):
            continue  # unknown inputs, or inputs a constraint already reports
    return found


def _mismatch(got: tuple[int | None, ...], want: tuple[int, ...]) -> bool:
    return len(got) != len(want) or any(g is not None and g != w for g, w in zip(got, want))


def _shown(shape: tuple[int | None, ...]) -> str:
    return "[" + ", ".join("?" if g is None else str(g) for g in shape) + "]"


def check_output_shapes(sig: Signature, ctx: CheckContext, outs: Bound, problems: list[Problem]) -> None:
    """A declared output shape must be the one the op gives (unknown dimensions match anything); a
    variadic output must have as many elements as the op gives, each of its shape."""
    inferred = infer_output_shapes(sig, ctx)
    variadic = _variadic_outputs(sig)
    for entry in sig.output_shapes:
        want = inferred.get(entry.name)
        if want is None:
            continue
        if entry.name in variadic:
            infos = outs.variadic.get(entry.name, [])
            if infos and len(infos) != len(want):
                problems.append(Problem(sig.key, f"output {entry.name!r}", f"has {len(infos)} elements, but the op "
                                        f"gives {len(want)} (shapes = {entry.text})", len(infos), len(want)))
                continue
            for k, (info, one) in enumerate(zip(infos, want)):
                if info is not None and info.shape is not None and _mismatch(tuple(info.shape), one):
                    problems.append(Problem(sig.key, f"output {entry.name!r}[{k}]", f"has shape "
                                            f"{_shown(tuple(info.shape))}, but the op gives {list(one)} "
                                            f"(shapes = {entry.text})", tuple(info.shape), one))
            continue
        info = outs.single.get(entry.name)
        if info is None or info.shape is None:
            continue
        got = tuple(info.shape)
        if _mismatch(got, want):
            problems.append(Problem(sig.key, f"output {entry.name!r}", f"has shape {_shown(got)}, but the op gives "
                                    f"{list(want)} (shape = {entry.text})", got, want))


class ValidationError(OpgenError, ValueError):
    """Raised by kernels when their inputs break the spec."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))
