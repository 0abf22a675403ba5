"""The typed spec model: built once by `parse`, read by every renderer.

Everything is frozen; every element keeps the `Location` it was read from, so a
check or renderer can report a precise place.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import Location

# The closed sets of the spec format (the JSON Schema's enums), named once for the dataclasses below.
AttributeType = Literal["int", "float", "string", "bool", "ints", "floats", "strings", "tensor", "sparse_tensor",
                        "type_proto", "graph", "graphs", "enum"]
ParameterOption = Literal["single", "optional", "variadic"]
BroadcastMode = Literal["none", "unidirectional", "multidirectional", "xla", "onednn_prelu", "onnx_prelu_legacy"]
NoteKind = Literal["erratum", "decision", "reference_difference", "info"]
SupportLevel = Literal["COMMON", "EXPERIMENTAL"]


@dataclass(frozen=True)
class Text:
    en: str | None = None
    zh: str | None = None

    def get(self, lang: str) -> str:
        """The text in `lang`, falling back to the other language."""
        value = self.en if lang == "en" else self.zh
        return value if value is not None else (self.zh if lang == "en" else self.en) or ""


@dataclass(frozen=True)
class Note:
    text: Text
    location: Location
    id: str = ""
    kind: NoteKind = "info"
    field: str = ""
    document_says: str = ""


@dataclass(frozen=True)
class Attribute:
    name: str
    type: AttributeType
    description: Text
    location: Location
    required: bool = False
    has_default: bool = False
    default: Any = None
    default_each: float | int | None = None
    values: tuple[Any, ...] = ()
    tensor_type: str | None = None
    written_as: str | None = None


@dataclass(frozen=True)
class Parameter:
    """An input or output."""

    name: str
    type: str  # a type variable, or a fixed type: tensor(<elem>), seq(tensor(<elem>)), optional(...)
    description: Text
    location: Location
    option: ParameterOption = "single"
    homogeneous: bool = True
    min_arity: int = 1
    written_as: str | None = None
    shape: str | None = None  # outputs: the shape as a check-language expression of inputs and attributes

    @property
    def is_fixed(self) -> bool:
        return self.type.startswith(("tensor(", "seq(", "optional("))


@dataclass(frozen=True)
class TypeConstraint:
    name: str
    types: tuple[str, ...]  # expanded: tensor(<elem>) strings, group references resolved
    written_types: tuple[str, ...]  # as in the spec, with @group references
    description: Text
    location: Location
    written_as: str | None = None
    # the source declares the variable without typing anything with it (ONNX Tile-1's T1): no warning
    unused: bool = False


@dataclass(frozen=True)
class Constraint:
    id: str
    description: Text
    location: Location
    check: str | None = None
    rule: str | None = None
    args: tuple[tuple[str, Any], ...] = ()
    when: str | None = None


@dataclass(frozen=True)
class Elementwise:
    formula: str
    output: str
    broadcast: BroadcastMode
    location: Location
    # The tensor types (of the input the output's type follows, else the first) the formula is given for;
    # empty: every allowed type. The others have no kernel.
    types: tuple[str, ...] = ()
    # (name, "lowest" | "highest"): the value an optional input or an attribute without a default takes when
    # not given, the extreme finite values of the formula input's element type (Clip's min and max).
    absent: tuple[tuple[str, str], ...] = ()
    # A variadic input the formula folds over (Max, Sum, ...): the formula reads the accumulator `acc` and the
    # next tensor under the input's name; `finish` (over acc, attributes and count(<fold>)) gives the output.
    fold: str | None = None
    finish: str | None = None

    def finish_formula(self) -> str:
        """The expression the output is computed from after a fold (`acc` when the spec gives none)."""
        return self.finish if self.finish is not None else FOLD_ACCUMULATOR


# The accumulator's name in a fold formula (elementwise.fold).
FOLD_ACCUMULATOR = "acc"


# The broadcasting modes that align one input (`source`) to another (`target`) take the two from the
# shape rule that checks them; this names that rule (check.py requires exactly one such constraint).
BROADCAST_RULES: dict[BroadcastMode, str] = {
    "unidirectional": "unidirectional_broadcast", "onnx_prelu_legacy": "onnx_prelu_legacy_slope",
    "onednn_prelu": "onednn_prelu_slope"}


class Pairs(tuple):  # type: ignore[type-arg]
    """A mapping written in a spec (an example's graph attribute: an hlir graph), kept hashable as its
    (key, value) pairs; `as_dict` gives it back, nested mappings and lists included."""

    __slots__ = ()

    def as_dict(self) -> dict[str, Any]:
        return {k: plain_value(v) for k, v in self}


# Example tensors write infinities and NaN as these quoted strings: a YAML `.inf`/`.nan` (or 1e999) is
# refused as an accident, a spelled-out "-inf" is meant. Only float tensors may hold them.
NONFINITE = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}


def example_number(value: Any) -> Any:
    """An example value with the NONFINITE spellings replaced by their floats (nested lists kept)."""
    if isinstance(value, (list, tuple)):
        return [example_number(v) for v in value]
    if isinstance(value, str) and value in NONFINITE:
        return NONFINITE[value]
    return value


def has_nonfinite(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return any(has_nonfinite(v) for v in value)
    return isinstance(value, str) and value in NONFINITE


def plain_value(value: Any) -> Any:
    """A spec value as plain Python: tuples become lists, Pairs dicts (what generated code writes)."""
    if isinstance(value, Pairs):
        return value.as_dict()
    if isinstance(value, tuple):
        return [plain_value(v) for v in value]
    return value


@dataclass(frozen=True)
class Example:
    name: str
    inputs: tuple[tuple[str, Any], ...]
    outputs: tuple[tuple[str, Any], ...]
    attributes: tuple[tuple[str, Any], ...]
    location: Location
    dtype: str = "float"
    source: str = ""
    dtypes: tuple[tuple[str, str], ...] = ()  # element type per input/output name, where not `dtype`
    description: Text | None = None  # what the example shows, one short sentence


@dataclass(frozen=True)
class OpVersion:
    domain: str
    op: str
    since_version: int
    summary: Text
    attributes: tuple[Attribute, ...]
    inputs: tuple[Parameter, ...]
    outputs: tuple[Parameter, ...]
    type_constraints: tuple[TypeConstraint, ...]
    location: Location
    support_level: SupportLevel | None = None
    function: bool | None = None
    function_body: str | None = None
    function_opset: int | None = None
    shape_inference: bool | None = None
    deprecated: bool = False  # the source withdrew the op at this version (its use is reported)
    elementwise: Elementwise | None = None
    kernel: str | None = None  # "<module>.<function>" in opgen.runtime.kernels
    shape_from_node: tuple[str, ...] = ()  # outputs whose shape the node gives: kernel keyword <output>_shape
    count_from_node: tuple[str, ...] = ()  # variadic outputs whose count the node gives: keyword <output>_count
    # outputs whose element type an attribute names (a TensorProto code, Cast-1's name): (output,
    # (attribute, [input whose type the output takes when the attribute is absent or 0]))
    dtype_from: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the kernel takes the keyword requested_outputs: the names of the outputs the node asks for (ONNX
    # BatchNormalization-7/9 train when a node asks for more than Y)
    requested_outputs: bool = False
    constraints: tuple[Constraint, ...] = ()
    examples: tuple[Example, ...] = ()
    notes: tuple[Note, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.domain}.{self.op}@{self.since_version}"

    @property
    def has_kernel(self) -> bool:
        return self.elementwise is not None or self.kernel is not None

    def output_shape(self, param: Parameter) -> str | None:
        """The output's shape as a check-language expression: the spec's `shape`, or for the output of
        an element-wise formula the shape its broadcasting mode gives; None where the spec says nothing."""
        if param.shape is not None:
            return param.shape
        return self.formula_shape(param)

    def formula_shape(self, param: Parameter) -> str | None:
        """The shape an element-wise formula's broadcasting gives its output (None for other outputs)."""
        ew = self.elementwise
        if ew is None or param.name != ew.output:
            return None
        if ew.fold is not None:  # broadcast over the folded tensors (none: they share the first one's shape)
            return f"shapes({ew.fold})[0]" if ew.broadcast == "none" else f"broadcast_shape({ew.fold})"
        names = [p.name for p in self.inputs if p.option == "single"]
        rule = self.broadcast_rule()
        if rule is not None:
            return f"shape({dict(rule.args)['target']})"
        if ew.broadcast == "none" or len(names) == 1:
            return f"shape({names[0]})"
        if ew.broadcast == "xla":
            return f"xla_broadcast_shape({', '.join(names)})"
        if ew.broadcast == "multidirectional":
            return f"broadcast_shape({', '.join(names)})"
        return None

    def formula_input(self) -> Parameter:
        """The input whose element type a formula computes in: the one the output's type variable binds
        (Where's X rather than its boolean condition), else the first input."""
        ew = self.elementwise
        assert ew is not None and self.inputs
        out = next((p for p in self.outputs if p.name == ew.output), None)
        if out is not None and not out.is_fixed:
            return next((p for p in self.inputs if p.type == out.type), self.inputs[0])
        return self.inputs[0]

    def formula_types(self) -> tuple[str, ...]:
        """The tensor types of formula_input() the formula covers (its `types`, else every allowed one)."""
        ew = self.elementwise
        assert ew is not None
        return ew.types or self.allowed_types(self.formula_input())

    def broadcast_rule(self) -> Constraint | None:
        """The constraint whose rule states the element-wise formula's broadcasting (see BROADCAST_RULES)."""
        if self.elementwise is None or self.elementwise.broadcast not in BROADCAST_RULES:
            return None
        wanted = BROADCAST_RULES[self.elementwise.broadcast]
        return next((c for c in self.constraints if c.rule == wanted), None)

    def free_outputs(self) -> tuple[Parameter, ...]:
        """Outputs whose type no input determines: their dtype is an explicit kernel argument. With a
        graph-valued attribute the graph computes the outputs, and their types are its results' (If)."""
        if any(a.type in ("graph", "graphs") for a in self.attributes):
            return ()
        bound = {p.type for p in self.inputs}
        return tuple(p for p in self.outputs if not p.is_fixed and p.type not in bound)

    def type_constraint(self, name: str) -> TypeConstraint | None:
        return next((t for t in self.type_constraints if t.name == name), None)

    def allowed_types(self, param: Parameter) -> tuple[str, ...]:
        """The tensor types a parameter accepts."""
        if param.is_fixed:
            return (param.type,)
        tc = self.type_constraint(param.type)
        return tc.types if tc else ()


@dataclass(frozen=True)
class Provenance:
    documented: bool = True
    follows: str | None = None
    reference: str | None = None
    explanation: Text | None = None


@dataclass(frozen=True)
class Source:
    document: str | None  # None only for an extension op, which cites its specification by url
    section: str | None = None
    language: str | None = None
    url: str | None = None


@dataclass(frozen=True)
class OpSpec:
    domain: str
    name: str
    category: str
    sources: tuple[Source, ...]
    versions: tuple[OpVersion, ...]  # newest first
    location: Location
    provenance: Provenance = field(default_factory=Provenance)
    notes: tuple[Note, ...] = ()
    # The StableHLO/CHLO op names (stablehlo.exponential, chlo.top_k) this op stands for: the StableHLO
    # reader (opgen.validate.stablehlo_reader) reads an operation of one of these names as this op.
    stablehlo: tuple[str, ...] = ()
    # The dialect an op outside the domain's source document was added for (hlir: "stablehlo"), else None.
    extension: str | None = None
    # The ONNX operator domain of an onnx op outside the default one (ai.onnx.ml, ai.onnx.preview.training),
    # else None: a model's node of that domain resolves to this op with that domain's opset import.
    onnx_domain: str | None = None

    @property
    def key(self) -> str:
        return f"{self.domain}.{self.name}"

    def resolve(self, version: int) -> OpVersion | None:
        """The newest version with since_version <= `version` (ONNX opset resolution)."""
        return next((v for v in self.versions if v.since_version <= version), None)

    def all_notes(self) -> tuple[Note, ...]:
        return self.notes + tuple(n for v in self.versions for n in v.notes)


@dataclass(frozen=True)
class TypeGroup:
    name: str
    types: tuple[str, ...]
    description: Text


@dataclass(frozen=True)
class Domain:
    name: str
    description: Text
    opset_versions: tuple[int, ...]
    type_groups: tuple[TypeGroup, ...]
    location: Location
    versioning: Text | None = None
    dtype_names: tuple[tuple[str, str], ...] = ()
    notes: tuple[Note, ...] = ()
    ops: tuple[OpSpec, ...] = ()
    float_attributes: str = "float64"  # "float32": the kernels round float attributes (ONNX stores float32)
    # Other ONNX operator domains whose ops this spec domain holds, each with its own opset versions.
    onnx_domains: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def opsets_of(self, op: OpSpec) -> tuple[int, ...]:
        """The opset versions an op's since_versions count in: its ONNX domain's, else the domain's own."""
        if op.onnx_domain is None:
            return self.opset_versions
        return dict(self.onnx_domains).get(op.onnx_domain, ())

    def op(self, name: str) -> OpSpec | None:
        return next((o for o in self.ops if o.name == name), None)


@dataclass(frozen=True)
class SpecSet:
    domains: tuple[Domain, ...]

    def domain(self, name: str) -> Domain | None:
        return next((d for d in self.domains if d.name == name), None)

    def ops(self) -> tuple[OpSpec, ...]:
        return tuple(o for d in self.domains for o in d.ops)

    def find(self, domain: str, op: str) -> OpSpec | None:
        d = self.domain(domain)
        return d.op(op) if d else None
