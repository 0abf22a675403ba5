"""Checks of a version's examples: names, graph-valued attributes, element types and values."""
from __future__ import annotations

from typing import Any, Iterator

from .dtypes import ELEM_TYPES, type_key
from .model import NONFINITE, Example, OpVersion, Pairs, has_nonfinite


def check_examples(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    ins, outs, attrs = ({p.name for p in ps} for ps in (v.inputs, v.outputs, v.attributes))
    for e in v.examples:
        fld = f"examples.{e.name}"
        if e.dtype not in ELEM_TYPES:
            yield e.location, f"{fld}.dtype", f"unknown dtype {e.dtype!r}"
        for kind, given, known in (("inputs", e.inputs, ins), ("outputs", e.outputs, outs),
                                   ("attributes", e.attributes, attrs)):
            for name, _ in given:
                if name not in known:
                    yield e.location, f"{fld}.{kind}.{name}", (f"no {kind[:-1]} named {name!r}; known: "
                                                              + ", ".join(sorted(known)))
        graphs = {a.name for a in v.attributes if a.type == "graph"}
        graph_lists = {a.name for a in v.attributes if a.type == "graphs"}
        for name, value in e.attributes:
            if name in graphs and not _is_example_graph(value):
                yield e.location, f"{fld}.attributes.{name}", ("a graph attribute is an hlir graph: a mapping with "
                                                               "lists inputs, outputs and nodes")
            if name in graph_lists and not (isinstance(value, tuple) and all(_is_example_graph(g) for g in value)):
                yield e.location, f"{fld}.attributes.{name}", ("a graphs attribute is a list of hlir graphs, each a "
                                                               "mapping with lists inputs, outputs and nodes")
        for kind, given in (("inputs", e.inputs), ("outputs", e.outputs)):
            for name, value in given:
                problem = _example_value_problem(value)
                if problem:
                    yield e.location, f"{fld}.{kind}.{name}", problem
                elif has_nonfinite(value) and _example_elem(v, e, name) not in FLOAT_ELEMS:
                    yield e.location, f"{fld}.{kind}.{name}", ('"inf", "-inf" and "nan" are float values; this '
                                                              f"tensor's element type is {_example_elem(v, e, name)}")
        for name, elem in e.dtypes:
            if name not in ins | outs:
                yield e.location, f"{fld}.dtypes.{name}", f"no input or output named {name!r}"
            elif elem not in ELEM_TYPES:
                yield e.location, f"{fld}.dtypes.{name}", f"unknown element type {elem!r}"
        yield from _element_type_problems(v, e, fld)
        listed = {n for n, _ in e.outputs}
        for p in v.outputs:
            if p.option != "optional" and p.name not in listed:
                yield e.location, f"{fld}.outputs", (f"output {p.name!r} has no expected value; an example states "
                                                     "every output the kernel returns")
        required = {p.name for p in v.inputs if p.option == "single"}
        for name in sorted(required - {n for n, _ in e.inputs}):
            yield e.location, f"{fld}.inputs", f"required input {name!r} is missing"


MAX_EXAMPLE_RANK = 8
FLOAT_ELEMS = frozenset(name for name, elem in ELEM_TYPES.items() if elem.kind == "float")


def _example_elem(v: OpVersion, e: Example, name: str) -> str:
    """The element type of an example's input or output: its fixed type, else `dtypes`, else `dtype`."""
    param = next(p for p in v.inputs + v.outputs if p.name == name)
    return type_key(param.type) if param.is_fixed else dict(e.dtypes).get(name, e.dtype)


def _element_type_problems(v: OpVersion, e: Example, fld: str) -> Iterator[tuple[Any, ...]]:
    """Each input and output an example gives must be of an element type its type variable allows: the
    example's `dtype` is every tensor's unless `dtypes` names another (a complex output of a double example,
    say), and the generated test and the site's example would otherwise be refused by the validator."""
    named = dict(e.dtypes)
    constraints = {tc.name: tc for tc in v.type_constraints}
    params = {p.name: p for p in v.inputs + v.outputs}
    for name, _ in e.inputs + e.outputs:
        param = params.get(name)
        tc = constraints.get(param.type) if param is not None and not param.is_fixed else None
        if tc is None:
            continue
        allowed = {type_key(t) for t in tc.types}
        elem = named.get(name, e.dtype)
        if elem in ELEM_TYPES and allowed & ELEM_TYPES.keys() and elem not in allowed:
            where = f"{fld}.dtypes.{name}" if name in named else f"{fld}.dtype"
            yield e.location, where, (f"{name!r} is of type {tc.name} ({', '.join(sorted(allowed))}), which "
                                      f"{elem} is not; name its element type in the example's `dtypes`")


def _is_example_graph(value: Any) -> bool:
    return isinstance(value, Pairs) and all(isinstance(dict(value).get(key), tuple)
                                            for key in ("inputs", "outputs", "nodes"))


def _example_value_problem(value: Any) -> str | None:
    """An example tensor is a number, a boolean, or nested lists of them (at most rank 8, finite)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_EXAMPLE_RANK:
            return f"nested more than {MAX_EXAMPLE_RANK} levels deep; an example tensor has rank at most {MAX_EXAMPLE_RANK}"
        if isinstance(item, (list, tuple)):
            stack.extend((x, depth + 1) for x in item)
        elif isinstance(item, bool) or isinstance(item, int) and -2 ** 64 < item < 2 ** 64:
            continue
        elif isinstance(item, float) and item == item and abs(item) != float("inf"):
            continue
        elif isinstance(item, str) and item in NONFINITE:
            continue
        else:
            return (f"{str(item)[:40]!r} is not a finite number or boolean (write numbers, or lists of them; "
                    'an infinity or NaN of a float tensor is spelled "inf", "-inf" or "nan", quoted)')
    return None
