"""ONNX models (.onnx protobuf) -> the graph model.

- Ops of domain "" / "ai.onnx" map to the `onnx` specs at the model's opset_import version; other
  domains map to a spec domain of the same name, if any (otherwise their ops have no spec).
- Dtypes and shapes come from graph inputs, initializers, value_info and graph outputs; when a node
  output is not fully described there, the model is completed with onnx.shape_inference first
  (declared information wins). `opgen validate` first checks the model as declared
  (read_onnx_as_declared): inference runs only when the specs cannot complete a node output either.
- Attributes keep the type the file declares (FLOAT, INT, ...), which the checker compares with the
  spec's attribute type. Small constant initializers carry their values.
- Subgraphs (If branches, Loop/Scan bodies: any GRAPH or GRAPHS attribute) become nested graphs.

Speed matters here (models have 10^5+ nodes): one TensorInfo per distinct TypeProto (keyed by its
bytes), attribute lists converted once per distinct serialization, and node fields read once.
"""
from __future__ import annotations

import math
import sys
from typing import Any, Callable

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from ..runtime.validation import TensorInfo
from ..graph import UNKNOWN, Graph, Node, small_key
from .onnx_nodes import _where, list_elements, read_nodes, read_value_info
from .limits import AttributeBudget, Limits, ModelReadError, check_shape
from .onnx_model import (ELEM, Incomplete, drop_large_data, first_node_undescribed, raw_array, shape_inference,
                         shared_readings, type_string)
from .onnx_model import load_model as load_model  # opgen.run reads ONNX models with it
from .registry import Registry
from .report import Record, to_str

_ATTR_KIND = {AttributeProto.FLOAT: "float", AttributeProto.INT: "int", AttributeProto.STRING: "string",
              AttributeProto.TENSOR: "tensor", AttributeProto.GRAPH: "graph", AttributeProto.FLOATS: "floats",
              AttributeProto.INTS: "ints", AttributeProto.STRINGS: "strings",
              AttributeProto.SPARSE_TENSOR: "sparse_tensor", AttributeProto.TYPE_PROTO: "type_proto"}
_LISTS = {AttributeProto.FLOATS: "floats", AttributeProto.INTS: "ints", AttributeProto.STRINGS: "strings",
          AttributeProto.TENSORS: "tensors", AttributeProto.GRAPHS: "graphs",
          AttributeProto.SPARSE_TENSORS: "sparse_tensors", AttributeProto.TYPE_PROTOS: "type_protos"}
_GRAPH_TYPES = (AttributeProto.GRAPH, AttributeProto.GRAPHS)
_ATTR_TYPE_NAMES = {code: name for name, code in AttributeProto.AttributeType.items()}  # FLOAT, INTS, ...
UNKNOWN_DIM = -1  # what onnx.shape_inference writes for a dimension it cannot tell
_NON_TENSOR = {"sequence_type": "sequence", "map_type": "map", "optional_type": "optional",
               "opaque_type": "opaque"}


def read_onnx(source: Any, registry: Registry, limits: Limits) -> tuple[Graph, str, list[Record]]:
    """The graph of an ONNX model, completed by onnx.shape_inference when a node output is not fully
    described (the reading stops at the first such output, then the inferred model is read once)."""
    model = load_model(source, limits)
    records: list[Record] = []
    opsets = _opsets(model)
    converter = _Converter(model, opsets, registry, limits, records, stop_if_incomplete=True)
    try:
        if first_node_undescribed(model.graph):  # exporters often write no value_info at all
            raise Incomplete
        graph = converter.graph(model.graph, 0, "")
    except Incomplete:
        records.clear()  # the full reading finds the same problems again
        graph, converter = _read_inferred(source, model, opsets, registry, limits, records)
    return graph, _context(converter, opsets, records), records


def read_onnx_as_declared(source: Any, registry: Registry,
                          limits: Limits) -> tuple[Graph, str, list[Record], Callable[[], tuple[Graph, str, list[Record]]]]:
    """The graph of an ONNX model as the file describes it, whole (no shape inference), and the function
    that reads it completed by onnx.shape_inference (read_onnx's answer). `opgen validate` checks the
    first; when the specs leave a node output incomplete (the checker stops there), it takes the second.
    Models without value_info, as exporters write them, are then checked without inference, which costs
    more than the check on small models."""
    model = load_model(source, limits)
    records: list[Record] = []
    opsets = _opsets(model)
    converter = _Converter(model, opsets, registry, limits, records)
    graph = converter.graph(model.graph, 0, "")

    def completed() -> tuple[Graph, str, list[Record]]:
        again: list[Record] = []
        graph, converter = _read_inferred(source, model, opsets, registry, limits, again)
        return graph, _context(converter, opsets, again), again

    return graph, _context(converter, opsets, records), records, completed


def _opsets(model: onnx.ModelProto) -> dict[str, int]:
    opsets: dict[str, int] = {}
    for o in model.opset_import:
        domain = to_str(o.domain)
        domain = "" if domain == "ai.onnx" else domain
        opsets.setdefault(domain, o.version)
    return opsets


def _read_inferred(source: Any, model: onnx.ModelProto, opsets: dict[str, int], registry: Registry,
                   limits: Limits, records: list[Record]) -> tuple[Graph, "_Converter"]:
    """The model completed by onnx.shape_inference, read (declared information wins)."""
    if not isinstance(source, onnx.ModelProto) and limits.max_constant_elements < sys.maxsize:
        drop_large_data(model.graph, limits.max_constant_elements)  # our own copy, read from a file
    # The attribute budget before inference, which would copy the model, lists and all. Each list
    # element takes at least a byte, so a model smaller than the budget cannot exceed it. (ByteSize
    # serializes the model: measured after the large data is gone.)
    if model.ByteSize() > limits.max_total_attribute_elements:
        _Converter(model, opsets, registry, limits, records).budget_scan(model.graph, 0)
    inferred = shape_inference(model, records)
    source = inferred if inferred is not None else model
    converter = _Converter(source, opsets, registry, limits, records)
    if inferred is not None:
        converter.declared = {to_str(vi.name): vi.type.SerializeToString()
                              for vi in (*model.graph.value_info, *model.graph.output)}
    return converter.graph(source.graph, 0, ""), converter


def _context(converter: "_Converter", opsets: dict[str, int], records: list[Record]) -> str:
    """The opsets shown in the report; a model using the default domain without importing it is an error."""
    if "" not in opsets and converter.uses_default_domain:
        records.append(Record("error", "", "opset_import", "the model imports no opset for the default domain "
                              "'' (ai.onnx); ops are checked against their newest versions", found=None,
                              expected="an opset_import entry for domain ''"))
    shown = [f"onnx opset {opsets['']}"] if "" in opsets else []
    shown += [f"{d} {v}" for d, v in sorted(opsets.items()) if d]
    return ", ".join(shown) or "no opset_import"



class _Converter:
    def __init__(self, model: onnx.ModelProto, opsets: dict[str, int], registry: Registry, limits: Limits,
                 records: list[Record], stop_if_incomplete: bool = False):
        self.opsets = opsets
        self.registry = registry
        self.limits = limits
        self.records = records
        self.functions = {(to_str(f.domain), to_str(f.name)) for f in model.functions}
        # type bytes -> TensorInfo; attribute bytes -> (attributes, attr_kinds, list elements, first list's
        # name): shared with later readings (onnx_model.shared_readings)
        self.types, self.attr_cache, self._shared_bytes = shared_readings(limits)
        self.budget = AttributeBudget(limits)
        self.domains: dict[str, tuple[str, int | None]] = {}
        self.nodes = 0
        self.stop_if_incomplete = stop_if_incomplete
        # Reading a model completed by shape inference: the types of the main graph's value_info and
        # outputs as the file itself declared them. Other types there are inference's: a negative size in
        # them (inference computing a size from a bad attribute, e.g. DFT's dft_length -2) is an unknown
        # dimension, and the node's checks report the fault; in what the file declares it stays an
        # unreadable file.
        self.declared: dict[str, bytes] | None = None
        self.uses_default_domain = False

    # ---- values ----------------------------------------------------------------------------------

    def type_info(self, tp: onnx.TypeProto, kind: str, name: str, path: str) -> TensorInfo:
        key = tp.SerializeToString()
        info = self.types.get(key)
        return info if info is not None else self._new_type(tp, key, kind, name, path)

    def _new_type(self, tp: onnx.TypeProto, key: bytes, kind: str, name: str, path: str) -> TensorInfo:
        which = tp.WhichOneof("value")
        if which in ("tensor_type", "sparse_tensor_type"):
            tt = getattr(tp, which)
            dtype = ELEM.get(tt.elem_type, f"elem_type {tt.elem_type}") if tt.elem_type else None
            shape = None
            if tt.HasField("shape"):
                # dim_value -1 is an unknown dimension: onnx.shape_inference itself writes it (e.g. for
                # AffineGrid's expanded function body); other negative values are corruption.
                shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value != UNKNOWN_DIM else None
                              for d in tt.shape.dim)
                check_shape(shape, self.limits, _where(kind, name, path))
            info = TensorInfo(dtype, shape)
        elif which is None:
            info = UNKNOWN
        else:
            # A sequence, optional or map is named by its whole type string (as type constraints name it);
            # a sequence of tensors or an optional tensor whose type states the tensors' shape carries it.
            info = TensorInfo(type_string(tp) or _NON_TENSOR.get(which, which),
                              self._element_shape(tp, which, kind, name, path))
        if len(key) <= 1 << 16:
            self.types[key] = info
            self._shared_bytes[0] += len(key)
        return info

    def _inferred_type(self, tp: onnx.TypeProto, key: bytes, name: str, path: str) -> TensorInfo:
        """A type onnx.shape_inference wrote: negative sizes in it are unknown dimensions."""
        if tp.WhichOneof("value") == "tensor_type" and tp.tensor_type.HasField("shape") and any(
                d.HasField("dim_value") and d.dim_value < 0 for d in tp.tensor_type.shape.dim):
            tp = onnx.TypeProto.FromString(tp.SerializeToString())
            for d in tp.tensor_type.shape.dim:
                if d.HasField("dim_value") and d.dim_value < 0:
                    d.dim_value = UNKNOWN_DIM
        return self._new_type(tp, key, "value", name, path)

    def _element_shape(self, tp: onnx.TypeProto, which: str, kind: str, name: str,
                       path: str) -> tuple[int | None, ...] | None:
        """The shape a seq(tensor) or optional(tensor) type states for its tensors (None when it states
        none, or for other types): the shape checks of SequenceAt, ConcatFromSequence and
        OptionalGetElement read it as the shape of the value (see TensorInfo)."""
        inner = tp.sequence_type.elem_type if which == "sequence_type" else \
            tp.optional_type.elem_type if which == "optional_type" else None
        if inner is None or inner.WhichOneof("value") != "tensor_type" or not inner.tensor_type.HasField("shape"):
            return None
        shape = tuple(d.dim_value if d.HasField("dim_value") and d.dim_value != UNKNOWN_DIM else None
                      for d in inner.tensor_type.shape.dim)
        check_shape(shape, self.limits, _where(kind, name, path))
        return shape

    def tensor_info(self, t: onnx.TensorProto, what: str, constant: bool) -> TensorInfo:
        dims = tuple(t.dims)
        check_shape(dims, self.limits, what)
        dtype = ELEM.get(t.data_type, f"elem_type {t.data_type}") if t.data_type else None
        value = None
        if constant and t.data_location != TensorProto.EXTERNAL and math.prod(dims) <= self.limits.max_constant_elements:
            try:
                value = raw_array(t, dims)
                if value is None:
                    value = numpy_helper.to_array(t)
            except Exception as exc:  # data that does not match dims and type
                self.records.append(Record("error", "", what, "its data cannot be read as "
                                           f"{dtype} {list(dims)} ({type(exc).__name__})", found=what))
        return TensorInfo(dtype, dims, value)

    def sparse_info(self, st: onnx.SparseTensorProto, what: str, constant: bool) -> TensorInfo:
        """A sparse tensor as the dense tensor it stands for (zeros where no value is given): the value
        kept like a dense constant's, for the checks and for running (Constant's sparse_value)."""
        dims = tuple(st.dims)
        check_shape(dims, self.limits, what)
        dtype = ELEM.get(st.values.data_type)
        value = None
        if constant and math.prod(dims) <= self.limits.max_constant_elements:
            try:
                values = numpy_helper.to_array(st.values)
                indices = numpy_helper.to_array(st.indices).astype(np.int64)
                dense = np.zeros(math.prod(dims), values.dtype)
                # indices: [NNZ] linear positions, or [NNZ, rank] coordinates
                flat = np.ravel_multi_index(tuple(indices.T), dims) if indices.ndim == 2 else indices
                dense[flat] = values
                value = dense.reshape(dims)
            except Exception as exc:  # indices out of range, data that does not match its type
                self.records.append(Record("error", "", what, "its data cannot be read as a sparse "
                                           f"{dtype} {list(dims)} ({type(exc).__name__})", found=what))
        return TensorInfo(dtype, dims, value)

    # ---- graphs ----------------------------------------------------------------------------------

    def graph(self, g: onnx.GraphProto, depth: int, path: str) -> Graph:
        if depth > self.limits.max_graph_depth:
            raise ModelReadError(f"graphs are nested more than {self.limits.max_graph_depth} deep")
        values: dict[str, TensorInfo] = {}
        type_info = self.type_info
        # Every name goes through to_str where protobuf may hand out bytes (a string that is not UTF-8),
        # so that reports can print and serialize it.
        inputs = []
        for vi in g.input:
            name = to_str(vi.name)
            inputs.append(name)
            values[name] = type_info(vi.type, "input", name, path)
        input_names = set(inputs)
        initializers = []
        for t in g.initializer:
            name = to_str(t.name)
            initializers.append(name)
            init = self.tensor_info(t, _where("initializer", name, path), constant=name not in input_names)
            if name not in values or values[name].dtype is None:
                values[name] = init
        for st in g.sparse_initializer:
            name = to_str(st.values.name)
            initializers.append(name)
            values.setdefault(name, self.sparse_info(st, _where("sparse initializer", name, path),
                                                     constant=name not in input_names))
        declared = self.declared if depth == 0 else None
        inferred = read_value_info(self, g.value_info, values, declared, path)
        outputs = []
        for vi in g.output:
            name = to_str(vi.name)
            outputs.append(name)
            if declared is not None and declared.get(name) != (key := vi.type.SerializeToString()):
                inferred.add(name)
                info = self.types.get(b"inferred:" + key) or self._inferred_type(vi.type, b"inferred:" + key, name, path)
            else:
                info = type_info(vi.type, "output", name, path)
            if info is not UNKNOWN and (name not in values or values[name].dtype is None):
                values[name] = info

        self.nodes += len(g.node)
        if self.nodes > self.limits.max_nodes:
            raise ModelReadError(f"more than {self.limits.max_nodes} nodes")
        nodes = read_nodes(self, g.node, values, depth, path)
        return Graph(to_str(g.name), inputs, initializers, outputs, values, nodes, frozenset(inferred))

    def budget_scan(self, g: onnx.GraphProto, depth: int) -> None:
        """Take every list attribute of a graph (nested graphs included) from the budget, by length only."""
        if depth > self.limits.max_graph_depth:
            raise ModelReadError(f"graphs are nested more than {self.limits.max_graph_depth} deep")
        take = self.budget.take
        for k, node in enumerate(g.node):
            for a in node.attribute:
                field = _LISTS.get(a.type)
                if field is not None:
                    name = to_str(node.name)
                    label = f"node {name!r} (#{k})" if name else f"node #{k}"
                    take(len(getattr(a, field)), f"{label} attribute {to_str(a.name)!r}")
                if a.type == AttributeProto.GRAPH:
                    self.budget_scan(a.g, depth + 1)
                elif a.type == AttributeProto.GRAPHS:
                    for sub in a.graphs:
                        self.budget_scan(sub, depth + 1)

    def domain(self, dom: str) -> tuple[str, int | None]:
        found = self.domains.get(dom)
        if found is None:
            found = self.domains[dom] = (dom, self.opsets.get(dom))
        return found

    # ---- attributes ------------------------------------------------------------------------------

    def attributes(self, node: Node, attrs: Any, depth: int, path: str) -> None:
        # One pass: each list is taken from the budget by its length (protobuf knows it without
        # converting anything) before it is serialized for the cache key or becomes a Python list; an
        # attribute holding a graph makes the node uncacheable (its graphs are read per node). (read_nodes
        # answers attributes serialized as an earlier node's from the cache before it calls this.)
        take = self.budget.take
        parts: list[bytes] | None = []
        for a in attrs[:]:
            t = a.type
            field = _LISTS.get(t)
            if field is not None:
                take(len(getattr(a, field)), lambda a=a: _where(f"{node.label} attribute", to_str(a.name), path))
            if t in _GRAPH_TYPES:
                parts = None
            elif parts is not None:
                parts.append(a.SerializeToString())
        if parts is not None:
            key = tuple(parts)
            hit = self.attr_cache.get(key)
            node.attr_key = key
            if hit is None:
                before = len(self.records)
                hit = self._convert(attrs, node, depth, path)[:2]
                if len(self.records) == before and small_key(key):
                    self.attr_cache[key] = (*hit, *list_elements(attrs))
                    self._shared_bytes[0] += sum(map(len, key))
                else:  # problems found in the attributes are this node's: the next node must find them again
                    node.attr_key = None
            node.attributes, node.attr_kinds = hit
        else:
            node.attributes, node.attr_kinds, node.graphs = self._convert(attrs, node, depth, path)
            node.attr_key = None

    def _convert(self, attrs: Any, node: Node, depth: int,
                 path: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
        values: dict[str, Any] = {}
        kinds: dict[str, tuple[str, str]] = {}
        graphs: dict[str, Graph] = {}
        for a in attrs:
            t, name = a.type, to_str(a.name)
            if name in values:
                self.records.append(Record("error", f"{node.domain}.{node.op}", f"attribute {name!r}",
                                           "is given more than once", node.name, node.index, path, name))
            spelled = _ATTR_TYPE_NAMES.get(t) or str(t)
            kinds[name] = (_ATTR_KIND.get(t, spelled.lower()), spelled)
            if t in _GRAPH_TYPES:
                sub_path = (f"{path} > " if path else "") + f"{node.label}.{name}"
            if t == AttributeProto.GRAPH:
                values[name] = graphs[name] = self.graph(a.g, depth + 1, sub_path)
            elif t == AttributeProto.GRAPHS:
                values[name] = []
                for j, g in enumerate(a.graphs):
                    values[name].append(self.graph(g, depth + 1, f"{sub_path}[{j}]"))
                    graphs[f"{name}[{j}]"] = values[name][-1]
            elif t == AttributeProto.TENSOR:
                values[name] = self.tensor_info(a.t, _where(f"{node.label} attribute", name, path), constant=True)
            elif t == AttributeProto.TENSORS:
                values[name] = [self.tensor_info(x, _where(f"{node.label} attribute", name, path), constant=True)
                                  for x in a.tensors]
            elif t in (AttributeProto.FLOAT, AttributeProto.INT, AttributeProto.FLOATS, AttributeProto.INTS):
                values[name] = helper.get_attribute_value(a)
            elif t == AttributeProto.STRING:
                values[name] = a.s.decode("utf-8", "replace")
            elif t == AttributeProto.STRINGS:
                values[name] = [s.decode("utf-8", "replace") for s in a.strings]
            elif t == AttributeProto.SPARSE_TENSOR:
                values[name] = self.sparse_info(a.sparse_tensor, _where(f"{node.label} attribute", name, path),
                                                constant=True)
            elif t == AttributeProto.TYPE_PROTO:
                values[name] = type_string(a.tp)
            else:  # lists of sparse tensors or types, undefined: their kind is reported if the spec disagrees
                values[name] = spelled.lower()
        return values, kinds, graphs
