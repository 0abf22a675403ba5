"""StableHLO programs (MLIR text .mlir, portable artifacts .mlirbc) -> the graph model.

A program is what `jax.jit(f).lower(*args).as_text()` prints, or what `jax.export` serializes
(`exported.mlir_module_serialized`, a StableHLO portable artifact). It is parsed with jaxlib's MLIR
bindings (the optional extra `opgen[xla]`). Its public `main` function becomes the graph: arguments
are the inputs `arg0`, `arg1`, ..., returned values the outputs. `func.call`s of private functions
are inlined. Each operation is read as the hlir op whose spec lists its name in the `stablehlo`
field (the registry's specs, never a table here), with the attributes the hlir specs spell
(opgen.validate.stablehlo_ops); `stablehlo.while` keeps its condition and body as nested graphs,
`stablehlo.case` each branch as a nested graph of the list `branches` (hlir.Case), and `stablehlo.if` as a
Case over [false_branch, true_branch] indexed by the predicate converted to int32; a gather's or
scatter's batching dimensions become explicit indices (opgen.validate.stablehlo_batching), and a
total-order comparison of floats a comparison of integers (opgen.validate.stablehlo_total_order);
bfloat16 values of ops whose types lack bfloat16 are computed in float32, and bool values of Select, Pad, Max, Min
and the like in uint8 (opgen.validate.stablehlo_widening); complex values of ops that work part by part
(Pad, Select, Add, ...) on their real and imaginary parts, and abs and exponential of complex numbers by
extension ops of their own (opgen.validate.stablehlo_complex). A custom call is looked up by its target
(stablehlo.custom_call@lapack_dpotrf_ffi).
Every result's declared type becomes a declared value, so the checker compares it with what the
spec says the op produces. An operation no spec lists (or one whose form the hlir op cannot state)
stays an op of the file's own domain (`stablehlo.multiply`): an unknown op.

Nodes are named by their MLIR location, FILE:line:column, so every problem is reported there.
"""
from __future__ import annotations

import re
from collections import ChainMap
from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ..dtypes import ELEM_TYPES
from ..graph import UNKNOWN, Graph, Node
from ..runtime.validation import TensorInfo
from .limits import Limits, ModelReadError, check_shape
from .report import Record
from .stablehlo_batching import aligned_dot_batching, batching_of, explicit_indices
from .stablehlo_complex import add_in_parts, complex_form, split_plan
from .stablehlo_ops import Untranslatable, custom_call_name, dropped_note, is_total_order, translate
from .stablehlo_sort import add_chained_sort, needs_chain, sort_dimension, sort_keys
from .stablehlo_total_order import total_order_keys
from .stablehlo_widening import (
    accumulation_plan,
    float8_form,
    narrow_outputs,
    widen_inputs,
    widen_outputs,
    widening_plan,
)

if TYPE_CHECKING:
    from collections.abc import MutableMapping

    from ..runtime.validation import Signature

BYTECODE_MAGIC = b"ML\xefR"  # MLIR bytecode (portable artifacts are bytecode of the VHLO dialect)
SUFFIXES = (".mlir", ".mlirbc")
INSTALL_HINT = "reading StableHLO programs needs jax and jaxlib: pip install 'opgen[xla]'"

_ELEMENTS = {"i1": "bool", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64", "ui8": "uint8",
             "ui16": "uint16", "ui32": "uint32", "ui64": "uint64", "f16": "float16", "bf16": "bfloat16",
             "f32": "float", "f64": "double", "complex<f32>": "complex64", "complex<f64>": "complex128",
             "f8E4M3FN": "float8e4m3fn", "f8E5M2": "float8e5m2", "f8E4M3FNUZ": "float8e4m3fnuz",
             "f8E5M2FNUZ": "float8e5m2fnuz", "f8E8M0FNU": "float8e8m0", "f4E2M1FN": "float4e2m1", "i4": "int4",
             "ui4": "uint4", "i2": "int2", "ui2": "uint2"}
_LOCATION = re.compile(r'"([^"]*)":(\d+):(\d+)')
_TERMINATORS = ("func.return", "stablehlo.return")
MAX_INLINE_DEPTH = 64


def is_stablehlo(data: bytes) -> bool:
    """A StableHLO portable artifact (MLIR bytecode naming its StableHLO producer), or MLIR text of a
    module or function with a main function. Content that only starts like one stays with the other
    readers (parsing it would first import jax, which takes seconds)."""
    if data.startswith(BYTECODE_MAGIC):
        return b"StableHLO" in data[4:64]
    head = data[:4096].lstrip()
    return head.startswith((b"module", b"func.func", b"#loc")) and b"func.func" in data and b"@main" in data


def _mlir() -> tuple[Any, Any]:
    try:
        from jax.interpreters import mlir as jax_mlir
        from jaxlib.mlir import ir
    except ImportError:
        raise ModelReadError(INSTALL_HINT) from None
    return ir, jax_mlir


def parse_module(data: bytes, name: str) -> tuple[Any, Any]:
    """(context, module) of MLIR text or bytecode; ModelReadError with MLIR's own message otherwise."""
    ir, jax_mlir = _mlir()
    from jaxlib.mlir.dialects import stablehlo

    context = jax_mlir.make_ir_context()
    with context:
        try:
            if data.startswith(BYTECODE_MAGIC):
                try:
                    return context, stablehlo.deserialize_portable_artifact(context, data)
                except Exception:  # plain MLIR bytecode (not VHLO) parses as it is
                    return context, ir.Module.parse(data)
            text = data.decode("utf-8-sig")
            return context, ir.Module.parse(text)
        except UnicodeDecodeError as exc:
            raise ModelReadError(f"not UTF-8 MLIR text (byte {exc.start}) and not MLIR bytecode") from None
        except Exception as exc:  # MLIRError: the parser's diagnostics, located in the text ("-":line:col)
            message = " ".join(str(exc).split())
            message = message.replace('"-":', f"{name}:")
            raise ModelReadError(f"not a StableHLO program: {message[:600]}") from None


def read_stablehlo(data: bytes, name: str, ops: dict[str, str], limits: Limits,
                   signature_of: Callable[[str], Signature | None] | None = None) -> tuple[Graph, str, list[Record]]:
    """`ops`: StableHLO/CHLO name (a custom call's: stablehlo.custom_call@TARGET) -> hlir op; `signature_of`: an
    hlir op's newest signature (None: unknown), for the bfloat16 and bool values an op's types lack
    (opgen.validate.stablehlo_widening); None reads them as given."""
    context, module = parse_module(data, name)
    with context:
        functions = {}
        for op in module.body.operations:
            op = op.operation
            if op.name == "func.func":
                functions[str(op.attributes["sym_name"]).strip('"')] = op
        main = functions.get("main")
        if main is None:
            public = [f for f, op in functions.items() if "sym_visibility" not in op.attributes]
            if len(public) != 1:
                raise ModelReadError(f"no main function (functions: {', '.join(functions) or 'none'})")
            main = functions[public[0]]
        reader = _Reader(functions, ops, name, limits, signature_of)
        graph = reader.main(main)
    return graph, f"StableHLO program, {reader.operations} operations", reader.records


class _Reader:
    def __init__(self, functions: dict[str, Any], ops: dict[str, str], file: str, limits: Limits,
                 signature_of: Callable[[str], Signature | None] | None = None):
        self.functions, self.ops, self.file, self.limits = functions, ops, file, limits
        self.signature_of = signature_of
        self.records: list[Record] = []
        self.operations = 0
        self.count = 0
        self.infos: dict[tuple[Any, ...], TensorInfo] = {}

    # ---- values ----------------------------------------------------------------------------------

    def fresh(self) -> str:
        self.count += 1
        return f"v{self.count}"

    def info(self, mlir_type: Any, what: str) -> TensorInfo:
        from jaxlib.mlir import ir

        if not isinstance(mlir_type, ir.RankedTensorType):
            return UNKNOWN
        tensor = ir.RankedTensorType(mlir_type)
        element = str(tensor.element_type)
        dtype = _ELEMENTS.get(element)
        if dtype is None:  # a value opgen cannot represent: neither checked nor computed in some other type
            raise ModelReadError(f"{what}: element type {element[:80]} is none of the types opgen reads "
                                 f"({', '.join(_ELEMENTS)})")
        shape = tuple(None if tensor.is_dynamic_dim(k) else int(d) for k, d in enumerate(tensor.shape))
        check_shape(shape, self.limits, what)
        key = (dtype, shape)
        found = self.infos.get(key)
        if found is None:
            found = self.infos[key] = TensorInfo(dtype, shape)
        return found

    def location(self, op: Any) -> str:
        match = _LOCATION.search(str(op.location))
        if match is None:
            return ""
        file = self.file if match.group(1) in ("-", "") else match.group(1)
        return f"{file}:{match.group(2)}:{match.group(3)}"

    # ---- graphs ----------------------------------------------------------------------------------

    def main(self, func: Any) -> Graph:
        block = func.regions[0].blocks[0]
        env: dict[Any, str] = {}
        values: dict[str, TensorInfo] = {}
        inputs = []
        for k, arg in enumerate(block.arguments):
            env[arg] = f"arg{k}"
            inputs.append(f"arg{k}")
            values[f"arg{k}"] = self.info(arg.type, f"argument {k}")
        nodes: list[Node] = []
        outputs = self.block(block, env, values, nodes, "", 0)
        return Graph("main", inputs, [], outputs, values, nodes)

    def region_graph(self, region: Any, env: dict[Any, str], outer: MutableMapping[str, TensorInfo], path: str,
                     depth: int, label: str) -> Graph:
        """A region as a nested graph: block arguments are its inputs, what it returns its outputs;
        values of the enclosing graphs stay visible (StableHLO regions may use them), and so do their
        descriptions (`outer`), which the readings of complex, bfloat16 and bool operands look at."""
        if depth > self.limits.max_graph_depth:
            raise ModelReadError(f"regions are nested more than {self.limits.max_graph_depth} deep")
        block = region.blocks[0]
        inner = dict(env)
        local: dict[str, TensorInfo] = {}  # the graph's own values; the enclosing ones stay readable
        values = ChainMap(local, outer)
        inputs = []
        for k, arg in enumerate(block.arguments):
            name = self.fresh()
            inner[arg] = name
            inputs.append(name)
            values[name] = self.info(arg.type, f"{label} argument {k}")
        nodes: list[Node] = []
        outputs = self.block(block, inner, values, nodes, path, depth)
        return Graph(label, inputs, [], outputs, local, nodes)

    def block(self, block: Any, env: dict[Any, str], values: MutableMapping[str, TensorInfo], nodes: list[Node],
              path: str, depth: int) -> list[str]:
        """Reads the operations of a block into nodes; the names of the values its terminator returns."""
        for op in block.operations:
            op = op.operation
            if op.name in _TERMINATORS:
                return [env[v] for v in op.operands]
            self.operation(op, env, values, nodes, path, depth)
        raise ModelReadError("a block of the program does not end with a return")

    # ---- operations ------------------------------------------------------------------------------

    def operation(self, op: Any, env: dict[Any, str], values: MutableMapping[str, TensorInfo], nodes: list[Node],
                  path: str, depth: int) -> None:
        self.operations += 1
        if self.operations > self.limits.max_nodes:
            raise ModelReadError(f"more than {self.limits.max_nodes} operations")
        if op.name == "func.call":
            self.inline(op, env, values, nodes, path, depth)
            return
        where = self.location(op)
        outputs = []
        for k, result in enumerate(op.results):
            name = self.fresh()
            env[result] = name
            outputs.append(name)
            values[name] = self.info(result.type, f"{where or op.name} result {k}")
        inputs = [env[v] for v in op.operands]
        hlir_op = self.ops.get(custom_call_name(op) if op.name == "stablehlo.custom_call" else op.name)
        if hlir_op is not None:  # e.g. stablehlo.abs of a complex number: its modulus
            hlir_op = complex_form(hlir_op, [values.get(n) for n in inputs])
            hlir_op = float8_form(hlir_op, [values.get(n) for n in inputs + outputs])  # e.g. x.astype(float8_e4m3fn)
        if op.name == "stablehlo.if" and self.ops.get("stablehlo.case") == "Case":
            self.if_as_case(op, env, inputs, outputs, values, nodes, where, path, depth)
            return
        attributes: dict[str, Any] = {}
        if hlir_op is not None:
            try:
                if hlir_op == "Sort":  # several keys, or complex values: a chain of hlir.Sort (stablehlo_sort)
                    keys = sort_keys(op)
                    if needs_chain(keys, [values.get(n) for n in inputs]):
                        add_chained_sort(self, keys, sort_dimension(op), inputs, outputs, values, nodes, where,
                                         self.signature_of("Sort") if self.signature_of is not None else None)
                        return
                attributes = translate(hlir_op, op)
                batching = batching_of(op) if hlir_op in ("Gather", "ScatterND") else None
                if batching is not None:  # written as explicit indices (nodes added before this one)
                    at = batching.indices
                    inputs[at] = explicit_indices(self, inputs[at], values[inputs[at]], batching, values, nodes,
                                                  where)
                if hlir_op == "DotGeneral":  # batching dimensions numbered alike on both sides (hlir C3)
                    inputs = aligned_dot_batching(self, inputs, attributes, values, nodes, where)
                if hlir_op == "Compare" and is_total_order(op):  # integers made from the floats' bits
                    inputs = total_order_keys(self, inputs, values, nodes, where)
            except Untranslatable as exc:
                self.records.append(Record("warning", op.name, "op", f"read as an unknown op: {exc}", where,
                                           len(nodes), path))
                hlir_op = None
        if hlir_op is None:  # an unknown op; a custom call is named with its target (what the user must look up)
            domain, _, short = (custom_call_name(op) if op.name == "stablehlo.custom_call" else op.name).partition(".")
            self.add(nodes, Node(len(nodes), where, domain, short, None, tuple(inputs), tuple(outputs)), {})
            return
        note = dropped_note(op)
        if note is not None:
            self.records.append(Record("warning", op.name, "attributes", note, where, len(nodes), path))
        if hlir_op == "Constant":
            value = self.constant(op, values[outputs[0]], where)
            attributes = {"value": value}
            if value.size <= self.limits.max_constant_elements:
                values[outputs[0]] = TensorInfo(values[outputs[0]].dtype, values[outputs[0]].shape, value)
        if hlir_op in ("DynamicSlice", "DynamicUpdateSlice"):
            fixed = 1 if hlir_op == "DynamicSlice" else 2
            inputs = inputs[:fixed] + [self.index_vector(op, inputs[fixed:], fixed, values, nodes, where, path)]
        graphs: dict[str, Graph] = {}
        if hlir_op == "While":
            for k, label in enumerate(("condition", "body")):
                sub_path = (f"{path} > " if path else "") + f"{where or f'node #{len(nodes)}'}.{label}"
                graphs[label] = self.region_graph(op.regions[k], env, values, sub_path, depth + 1, label)
        if hlir_op == "Case":  # each region a nested graph (no inputs: it captures the outer values)
            for k in range(len(op.regions)):
                label = f"branches[{k}]"
                sub_path = (f"{path} > " if path else "") + f"{where or f'node #{len(nodes)}'}.{label}"
                graphs[label] = self.region_graph(op.regions[k], env, values, sub_path, depth + 1, label)
            attributes["branches"] = list(graphs.values())
        made = outputs
        accumulate = accumulation_plan(hlir_op, [values.get(n) for n in inputs], [values[n] for n in outputs])
        if accumulate is not None:  # int8 products into int32 and the like: operands in the result's type
            inputs = widen_inputs(self, inputs, accumulate, values, nodes, where)
        plan = None if graphs or self.signature_of is None else \
            widening_plan(hlir_op, self.signature_of(hlir_op), [values.get(n) if n else None for n in inputs],
                          [values[n] for n in outputs], attributes)  # e.g. bfloat16 computed in float32, as XLA
        if plan is not None:
            inputs = widen_inputs(self, inputs, plan[0], values, nodes, where)
            made = widen_outputs(self, outputs, plan[1], values)
        elif not graphs and self.signature_of is not None:
            split = split_plan(hlir_op, self.signature_of(hlir_op), [values.get(n) if n else None for n in inputs],
                               [values[n] for n in outputs], attributes)
            if split is not None:  # complex values computed on their real and imaginary parts
                add_in_parts(self, hlir_op, inputs, outputs[0], split, attributes, values, nodes, where)
                return
        node = Node(len(nodes), where, "hlir", hlir_op, None, tuple(inputs), tuple(made))
        if graphs:
            node.graphs = graphs
            if hlir_op != "Case":  # Case's graphs are the list `branches`, set above
                attributes.update(graphs)
        self.add(nodes, node, attributes)
        if made is not outputs:
            narrow_outputs(self, made, outputs, nodes, where)

    def if_as_case(self, op: Any, env: dict[Any, str], inputs: list[str], outputs: list[str],
                   values: MutableMapping[str, TensorInfo], nodes: list[Node], where: str, path: str,
                   depth: int) -> None:
        """`stablehlo.if` (a bool predicate, regions true_branch and false_branch capturing the outer
        values) read as hlir.Case: the predicate converted to an int32 index (hlir.Convert: false 0,
        true 1) choosing between the branches in the order [false_branch, true_branch]."""
        index = self.fresh()
        values[index] = self.info_of("int32", ())
        self.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (inputs[0],), (index,)), {})
        graphs: dict[str, Graph] = {}
        for k, region in enumerate((1, 0)):
            label = f"branches[{k}]"
            sub_path = (f"{path} > " if path else "") + f"{where or f'node #{len(nodes)}'}.{label}"
            graphs[label] = self.region_graph(op.regions[region], env, values, sub_path, depth + 1, label)
        node = Node(len(nodes), where, "hlir", "Case", None, (index,), tuple(outputs))
        node.graphs = graphs
        self.add(nodes, node, {"branches": list(graphs.values())})

    def add(self, nodes: list[Node], node: Node, attributes: dict[str, Any]) -> None:
        if attributes:
            node.attributes = attributes
        if node.graphs or "value" in attributes:
            node.attr_key = None
        else:
            node.attr_key = repr(sorted(attributes.items())) if attributes else "{}"
        nodes.append(node)

    def inline(self, op: Any, env: dict[Any, str], values: MutableMapping[str, TensorInfo], nodes: list[Node],
               path: str, depth: int) -> None:
        callee = str(op.attributes["callee"]).lstrip("@").strip('"')
        func = self.functions.get(callee)
        if func is None:
            raise ModelReadError(f"{self.location(op)}: call of an unknown function @{callee}")
        if depth > MAX_INLINE_DEPTH:
            raise ModelReadError(f"{self.location(op)}: calls nest more than {MAX_INLINE_DEPTH} deep (recursion?)")
        block = func.regions[0].blocks[0]
        inner: dict[Any, str] = {arg: env[v] for arg, v in zip(block.arguments, op.operands)}
        returned = self.block(block, inner, values, nodes, path, depth + 1)
        for result, name in zip(op.results, returned):
            env[result] = name

    def constant(self, op: Any, info: TensorInfo, where: str) -> np.ndarray:
        from jaxlib.mlir import ir

        if info.dtype is None or info.shape is None or info.dtype not in ELEM_TYPES or None in info.shape:
            raise ModelReadError(f"{where}: a constant of an element type opgen has no dtype for, or of no "
                                 "static shape")
        dtype = ELEM_TYPES[info.dtype].numpy
        shape = tuple(int(d or 0) for d in info.shape)
        try:
            if dtype.kind == "c":  # the bindings cannot even hand out the attribute: read the operation's text
                elements = _dense_from_text(str(op), dtype)
                return np.full(shape, elements[0], dtype) if elements.size == 1 else elements.reshape(shape)
            dense = ir.DenseElementsAttr(op.attributes["value"])
            if dense.is_splat:
                scalar = dense.get_splat_value()
                if isinstance(scalar, ir.FloatAttr):
                    item: Any = ir.FloatAttr(scalar).value
                elif isinstance(scalar, ir.BoolAttr):
                    item = ir.BoolAttr(scalar).value
                else:
                    item = ir.IntegerAttr(scalar).value
                return np.full(shape, np.array(item).astype(dtype), dtype=dtype)
            if dtype.kind == "V":  # bfloat16, float8: the bindings give neither a buffer nor elements
                return _dense_from_text(str(dense), dtype).reshape(shape)
            return np.array(dense).astype(dtype, copy=False).reshape(shape)
        except (ValueError, TypeError, RuntimeError) as exc:
            raise ModelReadError(f"{where}: cannot read the constant's value ({exc})") from None

    def index_vector(self, op: Any, scalars: list[str], first: int, values: MutableMapping[str, TensorInfo],
                     nodes: list[Node], where: str, path: str) -> str:
        """StableHLO's scalar start indices as the one rank-1 tensor hlir's dynamic slices take: each
        scalar reshaped to [1] (hlir.Reshape), the pieces joined (hlir.Concatenate); the nodes carry the
        operation's location. Unsigned indices of up to 32 bits (jnp.searchsorted's loop writes uint32)
        are converted to int64, which hlir's dynamic slices take and which holds every such value, so
        the clamped start is the same."""
        dtype = self.info(op.operands[first].type, where).dtype if scalars else "int64"
        pieces = []
        for name in scalars:
            piece = self.fresh()
            values[piece] = self.info_of(dtype, (1,))
            self.add(nodes, Node(len(nodes), where, "hlir", "Reshape", None, (name,), (piece,)), {})
            pieces.append(piece)
        vector = self.fresh()
        values[vector] = self.info_of(dtype, (len(scalars),))
        self.add(nodes, Node(len(nodes), where, "hlir", "Concatenate", None, tuple(pieces), (vector,)),
                 {"dimension": 0})
        if dtype in ("uint8", "uint16", "uint32"):
            signed = self.fresh()
            values[signed] = self.info_of("int64", (len(scalars),))
            self.add(nodes, Node(len(nodes), where, "hlir", "Convert", None, (vector,), (signed,)), {})
            return signed
        return vector

    def info_of(self, dtype: str | None, shape: tuple[int, ...]) -> TensorInfo:
        key = (dtype, shape)
        found = self.infos.get(key)
        if found is None:
            found = self.infos[key] = TensorInfo(dtype, shape)
        return found


_ELEMENT = re.compile(r"0x[0-9A-Fa-f]+|[-+]?(?:inf|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)")


def _dense_from_text(text: str, dtype: np.dtype) -> np.ndarray:
    """The elements of a dense attribute of an ml_dtypes type (bfloat16, float8) or a complex type, read from
    its MLIR text: `dense<"0x...">` holds the raw little-endian bytes; otherwise each element is a decimal
    literal, or an 0x bit pattern (how MLIR prints infinities and NaNs), in row-major order; a complex
    element is the pair (real,imaginary) of such literals."""
    inner = text[text.index("<") + 1:text.rindex("> : ")]
    if inner.startswith('"0x'):
        return np.frombuffer(bytes.fromhex(inner[3:-1]), dtype=dtype).copy()
    if dtype.kind == "c":  # the parts in turn, as floats of half the width
        return _dense_from_text(text, np.dtype(f"f{dtype.itemsize // 2}")).view(dtype)
    tokens = np.array(_ELEMENT.findall(inner), dtype=str)
    patterns = np.char.startswith(tokens, "0x")
    out = np.empty(tokens.size, dtype=dtype)
    out[~patterns] = tokens[~patterns].astype(np.float64).astype(dtype)  # exact: MLIR prints enough digits
    bits = np.dtype(f"uint{dtype.itemsize * 8}")
    out[patterns] = np.array([int(token, 16) for token in tokens[patterns]], dtype=bits).view(dtype)
    return out
