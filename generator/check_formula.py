"""Checks of an op version's element-wise formula (`elementwise`): names, typing (one compute type
for both emitters), optional inputs' `absent` values and variadic folds. Part of opgen.check."""
from __future__ import annotations

from typing import Any, Iterator

from . import expr, formula
from .dtypes import ELEM_TYPES, tensor_elem
from .model import BROADCAST_RULES, FOLD_ACCUMULATOR, OpVersion


def check_elementwise(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    ew = v.elementwise
    if ew is None:
        return
    strings = {a.name for a in v.attributes if a.type in ("string", "enum")}
    attributes = {a.name for a in v.attributes if a.type in ("int", "float", "bool")} | strings
    names = {p.name for p in v.inputs} | attributes
    counted: set[str] = set()
    if ew.fold is not None:  # the formula reads the accumulator and the next tensor; finish the accumulator
        names, counted = attributes | {FOLD_ACCUMULATOR, ew.fold}, {ew.fold}
    texts = [("formula", ew.formula, names)]
    if ew.finish is not None:
        texts.append(("finish", ew.finish, attributes | {FOLD_ACCUMULATOR}))
    readable = True
    for key, text, known in texts:
        try:
            for problem in formula.check_formula(text, known, strings, counted):
                yield ew.location, f"elementwise.{key}", problem
        except expr.ExprError as exc:
            readable = False
            yield ew.location, f"elementwise.{key}", f"{exc}: {text!r}"
    if readable:
        yield from _check_formula_typing(v)
        yield from _check_fold(v)
    if ew.broadcast in BROADCAST_RULES:
        wanted = BROADCAST_RULES[ew.broadcast]
        count = sum(1 for c in v.constraints if c.rule == wanted)
        if count != 1:
            yield ew.location, "elementwise.broadcast", (
                f"{ew.broadcast} broadcasting takes its source and target from the constraint with rule "
                f"{wanted}; the version has {count} such constraints, it needs exactly one")
    if ew.output not in {p.name for p in v.outputs}:
        yield ew.location, "elementwise.output", f"no output named {ew.output!r}"
    elif v.inputs and ew.types:
        allowed = v.allowed_types(v.formula_input())
        for t in ew.types:
            if t not in allowed:
                yield ew.location, "elementwise.types", (
                    f"{t} is not a type of input {v.formula_input().name} ({', '.join(allowed) or 'none'})")
        if len(set(ew.types)) != len(ew.types):
            yield ew.location, "elementwise.types", "a type is listed more than once"
    if ew.fold is None and any(p.option == "variadic" for p in v.inputs):
        yield ew.location, "elementwise", ("an element-wise formula reads a variadic input by folding over it: "
                                           "give elementwise.fold (or use kernel)")
    yield from _check_absent(v)
    needs = {"onednn_prelu": {"data_format", "per_channel_broadcast"},
             "xla": {"broadcast_dimensions"}}.get(ew.broadcast, set())
    missing = needs - {a.name for a in v.attributes}
    if missing:
        yield ew.location, "elementwise.broadcast", f"{ew.broadcast} broadcasting needs attributes {sorted(missing)}"


def _check_absent(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    """`absent` names optional inputs and attributes without a default that the formula reads; every optional
    input the formula reads has an absent value (the kernels have nothing else to compute with)."""
    ew = v.elementwise
    assert ew is not None
    try:
        used = formula.formula_names(ew.formula)
    except expr.ExprError:
        return  # reported by check_elementwise
    optional = {p.name for p in v.inputs if p.option == "optional"}
    open_attributes = {a.name for a in v.attributes if a.type in ("int", "float") and not a.required
                       and not a.has_default}
    for name, _ in ew.absent:
        if name not in optional | open_attributes:
            yield ew.location, f"elementwise.absent.{name}", (
                "not an optional input or an int/float attribute without a default; those are: "
                + (", ".join(sorted(optional | open_attributes)) or "none"))
        elif name not in used:
            yield ew.location, f"elementwise.absent.{name}", "the formula does not read it"
    given = {name for name, _ in ew.absent}
    for name in sorted((optional & used) - given):
        yield ew.location, "elementwise.absent", (
            f"the formula reads optional input {name!r}: say which value it takes when absent (lowest or highest)")


def _check_fold(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    """A fold (elementwise.fold) runs over the op's one input, a variadic one, with multidirectional broadcasting
    (or none); its formula reads the accumulator and the next tensor; finish belongs to a fold; the output's
    stated shape is the one the broadcasting gives."""
    ew = v.elementwise
    assert ew is not None
    if ew.fold is None:
        if ew.finish is not None:
            yield ew.location, "elementwise.finish", "finish applies to a fold: give elementwise.fold too"
        return
    variadic = [p.name for p in v.inputs if p.option == "variadic"]
    if ew.fold not in {p.name for p in v.inputs}:
        yield ew.location, "elementwise.fold", f"no input named {ew.fold!r}; a fold takes the op's variadic input " \
                                               f"({', '.join(variadic) or 'it has none'})"
        return
    if ew.fold not in variadic:
        yield ew.location, "elementwise.fold", f"input {ew.fold!r} is not variadic; a fold runs over the tensors of " \
                                               "a variadic input (a formula reads single inputs by name)"
        return
    others = [p.name for p in v.inputs if p.name != ew.fold]
    if others:
        yield ew.location, "elementwise.fold", f"a fold takes the op's only input; this version also has " \
                                               f"{', '.join(others)}"
    clashing = [n for n in [p.name for p in v.inputs + v.outputs] + [a.name for a in v.attributes]
                if n == FOLD_ACCUMULATOR]
    if clashing:
        yield ew.location, "elementwise.fold", f"the accumulator of a fold is named {FOLD_ACCUMULATOR!r}, as is a " \
                                               "parameter or attribute of this version"
    missing = {FOLD_ACCUMULATOR, ew.fold} - formula.formula_names(ew.formula)
    if missing:
        yield ew.location, "elementwise.formula", (
            f"a fold's formula combines the accumulator {FOLD_ACCUMULATOR} with the next tensor {ew.fold}; it does "
            f"not read {', '.join(sorted(missing))}")
    if ew.broadcast not in ("multidirectional", "none"):
        yield ew.location, "elementwise.broadcast", (
            f"a fold broadcasts its tensors multidirectionally, or not at all (none); not {ew.broadcast}")
    out = next((p for p in v.outputs if p.name == ew.output), None)
    derived = v.formula_shape(out) if out is not None else None
    if out is not None and out.shape is not None and derived is not None:
        try:
            same = expr.canonical(out.shape) == expr.canonical(derived)
        except expr.ExprError:
            same = True  # reported with the shape
        if not same:
            yield out.location, f"outputs.{out.name}.shape", (
                f"the stated shape {out.shape!r} is not the one the fold's {ew.broadcast} broadcasting gives "
                f"({derived}); state that one, or none")


def _check_formula_typing(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    """A float attribute may not meet integer element types (see expr.float_attributes_outside_mul_trunc)."""
    ew = v.elementwise
    assert ew is not None
    floats = frozenset(a.name for a in v.attributes if a.type == "float")
    used = frozenset().union(*(formula.float_attributes_outside_mul_trunc(text, floats)
                               for text in (ew.formula, ew.finish) if text is not None)) \
        if floats and v.inputs else frozenset()
    if not used:
        return
    if ew.output not in {p.name for p in v.outputs}:
        return  # reported by check_elementwise
    integer = [t for t in v.formula_types()
               if (e := tensor_elem(t)) in ELEM_TYPES and ELEM_TYPES[e].kind in ("int", "uint", "bool")]
    if integer:
        yield ew.location, "elementwise.formula", (
            f"float attribute(s) {', '.join(sorted(used))} meet integer element types ({', '.join(integer)}): the "
            "formula computes in the input's element type, so the attribute would be truncated; restrict the "
            "type constraint (or the formula's types) to float types, or write mul_trunc(attribute, x) for a "
            "product truncated toward zero")
