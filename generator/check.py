"""Semantic checks on the typed model; each returns SpecErrors naming file:line, op@version and field."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Iterator

from . import expr
from .check_examples import check_examples
from .check_formula import check_elementwise
from .check_sources import check_sources
from .dtypes import ELEM_TYPES, parse_type
from .errors import SpecError
from .model import Attribute, Domain, OpSpec, OpVersion, SpecSet
from .names import ATTRIBUTE_CLASH_SUFFIX, RESERVED_MODULES, attribute_keyword, name_problems
from .render.common import module_name
from .runtime.attribute_kinds import attribute_kind_ok

# Names: used with fullmatch (a `$` would let "X\n" through); at most 100 characters (file names).
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,99}")


def check_specs(specs: SpecSet, root: Path) -> list[SpecError]:
    """Checks across the specs: each domain's own fields, and op names that would collide.
    (Each op is checked alone by `check_op` as it is loaded.)"""
    errors: list[SpecError] = []
    for domain in specs.domains:
        errors += _check_domain(domain)
        seen: dict[str, OpSpec] = {}
        for op in domain.ops:
            module = module_name(op.name)
            other = seen.get(module)
            if other is not None:
                errors.append(SpecError(op.location, f"op name {op.name!r} gives the same file names as {other.name} "
                                        f"({other.location}): {module}.py; generated files would collide",
                                        op.key, "name"))
            if module.strip("_") in RESERVED_MODULES or module.startswith("_"):
                errors.append(SpecError(op.location, f"op name {op.name!r} would overwrite a file of the generated "
                                        "package; op names start with a letter", op.key, "name"))
            seen[module] = op
        errors += _check_stablehlo_names(domain)
    return errors


def _check_stablehlo_names(domain: Domain) -> list[SpecError]:
    """A StableHLO op name stands for one op of a domain: the reader could not choose between two."""
    errors = []
    claimed: dict[str, OpSpec] = {}
    for op in domain.ops:
        for k, name in enumerate(op.stablehlo):
            other = claimed.get(name)
            if other is not None and other is not op:
                errors.append(SpecError(op.location, f"{name} is already listed by {other.key} ({other.location}); "
                                        "a StableHLO op name stands for one op of a domain", op.key,
                                        f"stablehlo[{k}]"))
            claimed.setdefault(name, op)
    return errors


def check_op(op: OpSpec, domain: Domain, root: Path) -> list[SpecError]:
    """Every check of one op against its domain and the project's source documents."""
    return _check_op(op, domain) + list(check_sources(op, root))


def _check_domain(domain: Domain) -> list[SpecError]:
    errors = []
    if list(domain.opset_versions) != sorted(set(domain.opset_versions)):
        errors.append(SpecError(domain.location, "opset_versions must be strictly ascending", domain.name,
                                "opset_versions"))
    for name, versions in domain.onnx_domains:
        if list(versions) != sorted(set(versions)):
            errors.append(SpecError(domain.location, f"the opset versions of {name} must be strictly ascending",
                                    domain.name, f"onnx_domains.{name}"))
        if domain.name != "onnx" or name in ("", "ai.onnx"):
            errors.append(SpecError(domain.location, "onnx_domains lists ONNX operator domains other than the "
                                    "default one, in the onnx spec domain only", domain.name, f"onnx_domains.{name}"))
    for group in domain.type_groups:
        for t in group.types:
            if parse_type(t) is None:
                errors.append(SpecError(domain.location, f"unknown type {t}; element types: "
                                        + ", ".join(ELEM_TYPES), domain.name, f"type_groups.{group.name}"))
    for name, elem in domain.dtype_names:
        if elem not in ELEM_TYPES:
            errors.append(SpecError(domain.location, f"dtype {name!r} maps to unknown element type {elem!r}",
                                    domain.name, f"dtype_names.{name}"))
    return errors


def _check_op(op: OpSpec, domain: Domain) -> list[SpecError]:
    errors = []
    file_stem = Path(op.location.file).stem
    if op.name != file_stem:
        errors.append(SpecError(op.location, f"op name {op.name!r} does not match its file name {file_stem!r}",
                                op.key, "name"))
    if op.domain != domain.name:
        errors.append(SpecError(op.location, f"domain {op.domain!r} does not match the folder {domain.name!r}",
                                op.key, "domain"))
    if not _IDENT.fullmatch(op.name):
        errors.append(SpecError(op.location, f"op name {op.name!r} is not an identifier", op.key, "name"))
    if any(not isinstance(v.since_version, int) or isinstance(v.since_version, bool) for v in op.versions):
        bad = next(v for v in op.versions if not isinstance(v.since_version, int) or isinstance(v.since_version, bool))
        return errors + [SpecError(bad.location, f"since_version {bad.since_version!r} is not a whole number "
                                   "(write 22, not 22.0)", op.key, "since_version")]
    since = [v.since_version for v in op.versions]
    if since != sorted(set(since), reverse=True):
        errors.append(SpecError(op.versions[0].location, "versions out of order: since_version must be strictly "
                                f"descending (newest first), found {since}", op.key, "versions"))
    errors += _check_onnx_domain(op, domain)
    opsets, numbering = domain.opsets_of(op), op.onnx_domain or domain.name
    for v in op.versions:
        if opsets and v.since_version not in opsets:
            errors.append(SpecError(v.location, f"since_version {v.since_version} is not an opset version of domain "
                                    f"{numbering} ({list(opsets)})", v.key, "since_version"))
        errors += [SpecError(loc, msg, v.key, fld, *severity) for loc, fld, msg, *severity in _check_version(v, domain)]
    return errors


def _check_onnx_domain(op: OpSpec, domain: Domain) -> list[SpecError]:
    """An op of another ONNX operator domain names one its spec domain lists (with its opset numbering)."""
    if op.onnx_domain is None:
        return []
    listed = [name for name, _ in domain.onnx_domains]
    if op.onnx_domain in listed:
        return []
    return [SpecError(op.location, f"onnx_domain {op.onnx_domain!r} is not listed in the onnx_domains of domain "
                      f"{domain.name} ({', '.join(listed) or 'none'}); list it there with its opset versions",
                      op.key, "onnx_domain")]


def _check_version(v: OpVersion, domain: Domain) -> Iterator[tuple[Any, ...]]:
    groups = {g.name for g in domain.type_groups}
    # Names: unique within each list, attributes distinct from parameters.
    for kind, items in (("attributes", v.attributes), ("inputs", v.inputs), ("outputs", v.outputs),
                        ("type_constraints", v.type_constraints)):
        names = [i.name for i in items]
        for item in items:
            if not _IDENT.fullmatch(item.name):
                yield item.location, f"{kind}.{item.name!r}", f"{item.name!r} is not an identifier"
            if names.count(item.name) > 1:
                yield item.location, f"{kind}.{item.name}", f"{item.name!r} is declared more than once in {kind}"
    derived: dict[str, tuple[str, ...]] | None = None
    if v.kernel is not None:  # a runtime function: derived names only for free and node-shaped outputs
        derived = {p.name: ("_", "_dtype", "_out") for p in v.free_outputs()}
        for name in v.shape_from_node:
            derived[name] = derived.get(name, ("_",)) + ("_shape",)
        for name in v.count_from_node:
            derived[name] = derived.get(name, ("_",)) + ("_count",)
        for a in v.attributes:  # an attribute with an input's name is the keyword <name>_attr
            if a.name in {p.name for p in v.inputs}:
                derived[a.name] = derived.get(a.name, ("_",)) + (ATTRIBUTE_CLASH_SUFFIX,)
    for name, problem in name_problems([i.name for i in v.inputs + v.outputs + v.attributes], kernel=v.has_kernel,
                                       c_kernel=v.elementwise is not None, derived=derived).items():
        item = next(i for i in v.inputs + v.outputs + v.attributes if i.name == name)
        yield item.location, f"{'attributes' if item in v.attributes else 'inputs' if item in v.inputs else 'outputs'}" \
            f".{name}", problem + "; choose another name"
    # An attribute may share its name with an input (ONNX Split-1's `split`): a runtime function's kernel
    # then takes it as the keyword <name>_attr, and checks read it by that name (names.attribute_keyword).
    # A formula reads both by their names, so there the names stay distinct; an output's name derives
    # the kernel's <output>_dtype/_shape/_count keywords and locals, so it stays distinct everywhere.
    params = ({p.name for p in v.outputs} | ({p.name for p in v.inputs} if v.elementwise is not None else set())
              if v.has_kernel else set())
    for a in v.attributes:
        if a.name in params:
            yield a.location, f"attributes.{a.name}", f"attribute {a.name!r} has the name of an " + \
                ("output" if a.name in {p.name for p in v.outputs} else "input (a formula reads both by name)")
    # Type constraints: element types exist, groups exist, every variable used.
    used = {p.type for p in v.inputs + v.outputs if not p.is_fixed}
    used |= {a.tensor_type for a in v.attributes if a.tensor_type}
    for tc in v.type_constraints:
        for t in tc.written_types:
            if t.startswith("@") and t[1:] not in groups:
                yield tc.location, f"type_constraints.{tc.name}", (
                    f"unknown type group {t}; groups of domain {domain.name}: " + ", ".join(sorted(groups)))
            elif not t.startswith("@") and parse_type(t) is None:
                yield tc.location, f"type_constraints.{tc.name}", (
                    f"unknown type {t}; expected tensor(<elem>), seq(tensor(<elem>)) or optional(...) with elem "
                    "one of " + ", ".join(ELEM_TYPES))
        if tc.unused and tc.name in used:
            yield tc.location, f"type_constraints.{tc.name}.unused", (
                f"type variable {tc.name} is marked unused, but a parameter or attribute is typed with it")
        elif tc.name not in used and not tc.unused:
            # A warning: a slip, or a source that declares one and types nothing with it (ONNX Tile-1's T1),
            # which the spec records with `unused: true`.
            yield tc.location, f"type_constraints.{tc.name}", f"type variable {tc.name} is not used by any " \
                "parameter (when the source declares it so, say `unused: true`)", "warning"
    declared = {tc.name for tc in v.type_constraints}
    for side, plist in (("inputs", v.inputs), ("outputs", v.outputs)):
        seen_optional = False
        for k, p in enumerate(plist):
            fld = f"{side}.{p.name}"
            if p.is_fixed:
                if parse_type(p.type) is None:
                    yield p.location, f"{fld}.type", f"unknown type {p.type}; known element types: " + ", ".join(ELEM_TYPES)
            elif p.type not in declared:
                yield p.location, f"{fld}.type", (f"unknown type variable {p.type!r}; declared: "
                                                  + (", ".join(sorted(declared)) or "none"))
            if p.option == "variadic" and any(q.option != "variadic" for q in plist[k + 1:]):
                yield p.location, f"{fld}.option", ("variadic parameters come last (several variadic parameters "
                                                    "share the values equally, as XLA pairs operands and init values)")
            # An output may follow an omitted optional one (ONNX names omitted outputs ""; RNN-1's Y_h
            # follows the optional Y); an input list is positional, so a required one comes first.
            if p.option == "single" and seen_optional and side == "inputs":
                yield p.location, f"{fld}.option", "a required parameter cannot follow an optional one"
            seen_optional |= p.option == "optional"
            if p.option != "variadic" and not p.homogeneous:
                yield p.location, f"{fld}.homogeneous", "homogeneous applies to variadic parameters only"
    inputs = {p.name for p in v.inputs}
    attr_names = {attribute_keyword(a.name, inputs) for a in v.attributes}  # Split-1's split_attr
    tensor_attrs = {attribute_keyword(a.name, inputs) for a in v.attributes if a.type in ("tensor", "sparse_tensor")}
    for p in v.inputs:
        if p.shape is not None:
            yield p.location, f"inputs.{p.name}.shape", "shape is stated for outputs (inputs have the shape given)"
    for p in v.outputs:
        if p.shape is None:
            continue
        # A shape may count the elements of a variadic output (Split gives as many pieces as the node
        # has outputs) and read an output's element type (BitcastConvert: a width change adds or drops
        # a dimension), but never read an output's shape: that is what it is checked against.
        counted = {q.name for q in v.outputs if q.option == "variadic"}
        outputs = {q.name for q in v.outputs} - inputs
        try:
            for problem in expr.check_names(p.shape, attr_names, inputs | outputs, tensor_attrs):
                yield p.location, f"outputs.{p.name}.shape", problem
            for fname, name in sorted(expr.parameter_calls(p.shape)):
                if name in outputs and not (fname == "dtype" or fname == "count" and name in counted):
                    yield p.location, f"outputs.{p.name}.shape", f"{fname}({name}): a shape reads the inputs; " \
                        "of an output it may read only dtype() (and count() the elements of a variadic one)"
        except expr.ExprError as exc:
            yield p.location, f"outputs.{p.name}.shape", f"{exc}: {p.shape!r}"
    for a in v.attributes:
        yield from _check_attribute(a, v)
    yield from _check_constraints(v)
    yield from check_elementwise(v)
    yield from _check_kernel(v)
    yield from check_examples(v)


def _check_attribute(a: Attribute, v: OpVersion) -> Iterator[tuple[Any, ...]]:
    fld = f"attributes.{a.name}"
    if a.required and (a.has_default or a.default_each is not None):
        yield a.location, fld, "a required attribute cannot have a default"
    if a.type == "enum" and not a.values:
        yield a.location, f"{fld}.values", "an enum attribute must list its values"
    if a.type == "tensor" and not a.tensor_type:
        yield a.location, f"{fld}.tensor_type", "a tensor attribute must give its tensor_type"
    if a.tensor_type and a.type != "tensor":
        yield a.location, f"{fld}.tensor_type", "tensor_type applies to tensor attributes only"
    scalar = {"ints": "int", "floats": "float", "strings": "string"}.get(a.type, a.type)
    for value in a.values:
        if not attribute_kind_ok(scalar, value):
            yield a.location, f"{fld}.values", f"listed value {value!r} is not of type {scalar}"
    if a.has_default:
        default = list(a.default) if isinstance(a.default, tuple) else a.default
        if a.type in ("tensor", "graph", "graphs"):
            yield a.location, f"{fld}.default", f"a {a.type} attribute cannot have a default in a spec"
        elif not attribute_kind_ok(a.type, default):
            yield a.location, f"{fld}.default", f"default {a.default!r} is not of the attribute's type {a.type}"
        elif a.values and (default not in a.values if not isinstance(default, list)
                           else any(d not in a.values for d in default)):
            yield a.location, f"{fld}.default", f"default {a.default!r} is not among the listed values {list(a.values)}"
    if a.default_each is not None and a.type not in ("ints", "floats"):
        yield a.location, f"{fld}.default_each", "default_each applies to list attributes (ints, floats) only"
    if a.default_each is not None and a.type == "ints" and not float(a.default_each).is_integer():
        yield a.location, f"{fld}.default_each", f"default_each {a.default_each!r} is not an integer"


def _check_constraints(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    inputs = {p.name for p in v.inputs}
    attrs = {attribute_keyword(a.name, inputs) for a in v.attributes}  # Split-1's split_attr
    tensor_attrs = {attribute_keyword(a.name, inputs) for a in v.attributes if a.type in ("tensor", "sparse_tensor")}
    params = {p.name for p in v.inputs + v.outputs}
    ids = [c.id for c in v.constraints]
    for k, c in enumerate(v.constraints):
        fld = f"constraints.{c.id}"
        if ids.count(c.id) > 1:
            yield c.location, fld, f"constraint id {c.id} is used more than once"
        if c.id != f"C{k + 1}":
            yield c.location, fld, f"constraints are numbered in order: expected C{k + 1}, found {c.id}"
        if (c.check is None) == (c.rule is None):
            yield c.location, fld, "give exactly one of check (an expression) or rule (a named shape rule)"
        for key, text in (("check", c.check), ("when", c.when)):
            if text is None:
                continue
            try:
                for problem in expr.check_names(text, attrs, params, tensor_attrs):
                    yield c.location, f"{fld}.{key}", problem
            except expr.ExprError as exc:
                yield c.location, f"{fld}.{key}", f"{exc}: {text!r}"
        if c.rule is not None:
            yield from _check_rule_call(c, attrs, params, fld)


def _check_rule_call(c: Any, attrs: set[str], params: set[str], fld: str) -> Iterator[tuple[Any, ...]]:
    from .runtime.shape_rules import RULES  # imports NumPy: only for ops that name a rule

    rule = RULES.get(c.rule)
    if rule is None:
        yield c.location, f"{fld}.rule", f"unknown shape rule {c.rule!r}; known: " + ", ".join(sorted(RULES))
        return
    args = dict(c.args)
    missing = [p for p in rule.params if p not in args and p not in rule.optional]
    extra = [a for a in args if a not in rule.params]
    if missing or extra:
        yield c.location, f"{fld}.args", (f"rule {c.rule} takes arguments ({', '.join(rule.params)}); "
                                          f"missing: {missing or 'none'}, unexpected: {extra or 'none'}")
    # Every argument's kind comes from the rule's own declaration (its annotations), so a name the op
    # lacks is refused here rather than making the check quietly find nothing at run time.
    for name, kind in rule.kinds:
        if name not in args:
            continue
        value = args[name]
        if kind == "params":
            if not isinstance(value, tuple) or not all(isinstance(v, str) for v in value):
                yield c.location, f"{fld}.args.{name}", f"expected a list of input/output names, found {value!r}"
                continue
            names = value
        elif not isinstance(value, str):
            what = "attribute" if kind == "attr" else "input or output"
            yield c.location, f"{fld}.args.{name}", f"expected one {what} name, found {value!r}"
            continue
        else:
            names = (value,)
        known = attrs if kind == "attr" else params
        for n in names:
            if n not in known:
                what = "attribute" if kind == "attr" else "input or output"
                yield c.location, f"{fld}.args.{name}", (f"no {what} named {n!r}; known: "
                                                         + (", ".join(sorted(known)) or "none"))


def _check_kernel(v: OpVersion) -> Iterator[tuple[Any, ...]]:
    if v.kernel is None:
        return
    from .runtime.kernels import signature_problems

    if v.elementwise is not None:
        yield v.location, "kernel", "give either elementwise (a formula) or kernel (a function), not both"
    outputs = {p.name for p in v.outputs}
    for name in v.shape_from_node:
        if name not in outputs:
            yield v.location, "kernel.shape_from_node", f"no output named {name!r}; outputs: {', '.join(sorted(outputs))}"
    variadic = {p.name for p in v.outputs if p.option == "variadic"}
    for name in v.count_from_node:
        if name not in variadic:
            yield v.location, "kernel.count_from_node", f"no variadic output named {name!r}" + \
                (f"; variadic outputs: {', '.join(sorted(variadic))}" if variadic else "; the version has none")
    free = {p.name for p in v.free_outputs()}
    attributes = {a.name: a for a in v.attributes}
    for output, names in v.dtype_from:
        fld = f"kernel.dtype_from.{output}"
        if output not in free:
            yield v.location, fld, f"{output!r} is not an output whose type no input determines; such outputs: " \
                + (", ".join(sorted(free)) or "none")
        named = attributes.get(names[0])
        if named is None or named.type not in ("int", "string"):
            yield v.location, fld, f"{names[0]!r} is not an int or string attribute (a type code or name)"
        if len(names) > 1 and names[1] not in {p.name for p in v.inputs}:
            yield v.location, fld, f"{names[1]!r} is not an input (the type taken when the attribute is absent or 0)"
    inputs = {p.name for p in v.inputs}
    keywords = [attribute_keyword(a.name, inputs) for a in v.attributes] \
        + [f"{p.name}_dtype" for p in v.free_outputs()] \
        + [f"{name}_shape" for name in v.shape_from_node] + [f"{name}_count" for name in v.count_from_node] \
        + (["requested_outputs"] if v.requested_outputs else [])
    for problem in signature_problems(v.kernel, [p.name for p in v.inputs], keywords):
        yield v.location, "kernel.function", problem
