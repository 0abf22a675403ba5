"""Walks a graph: graph checks, every node through its generated validator, dtype/shape propagation.

Graph checks: every input is defined before use (by a graph input, an initializer, an earlier node
or an enclosing graph), no value is produced twice in one graph, no cycle, every graph output is
defined.

Propagation: a node output the file does not describe gets its dtype from the spec where the spec
determines it (a fixed type such as tensor(bool), a type variable with a single allowed type, or a
type variable bound by an input of the same variable) and its shape where the spec states it (an
output's `shape` expression, or an element-wise formula's broadcasting) or a `same_shape` rule ties
it to an input of known shape. Nothing else is inferred (ONNX models are completed with
onnx.shape_inference by the reader as well).

Speed: a node's answer (its problems, its outputs' descriptions) depends only on the op version, the
attributes, and the dtype, shape and value of each input and output. Repeated uses are answered from
a cache keyed by (op, opset, attribute key, (dtype, shape, value known?) of every value); only when an
answer depended on values (a check read one: opgen.runtime.validation_memo tells) are the values'
bytes added to the key. So the nodes of a CNN that differ only in their weights share one answer.
The cache is shared by every check against one registry (verdicts.py): a model checked again, or
another built of the same uses, finds its verdicts there.
"""
from __future__ import annotations

from typing import Any, Callable

from ..runtime.validation import Problem, TensorInfo, output_shapes_of
from ..runtime.validation_memo import VALUES_MATTERED
from ..graph import UNKNOWN, Graph, Node, small_key
from .cycles import find_cycles
from .folding import fold, foldable, small_results
from .limits import DEFAULT_LIMITS, Limits, ModelReadError
from .propagation import RECIPES, constant_output, recipe_for
from .registry import Entry, Registry, UnknownOp
from .report import Record
from .verdicts import info_key, memo_for, values_key

_COMPATIBLE = {("string", "enum")}  # (declared by the file, required by the spec) pairs that are fine
_ABSENT = -1  # the key of an absent optional input (named ""); descriptions are numbered from 0
_UNKNOWN_KEY = (None, None, True)  # info_key(UNKNOWN)
# a first-level cache entry when the answer depends on the values (see _walk); shaped like an answer
# (problems, outputs made, fast: no problem and every output complete) whose fast path does not apply
_VALUES_MATTER = ("the answer depends on the values", (), False)


class IncompleteOutput(Exception):
    """A node output whose dtype or shape neither the file nor the specs tell (raised only by a checker
    told to stop there: its caller then checks the model completed by a reader's shape inference)."""


class Checker:
    def __init__(self, registry: Registry, allow_unknown_ops: bool = False, limits: Limits = DEFAULT_LIMITS,
                 stop_if_incomplete: bool = False, complete_graph: bool = False):
        self.registry = registry
        self.stop_if_incomplete = stop_if_incomplete
        # complete_graph: values the file leaves undescribed get the descriptions the check found (as a
        # reader's inference would fill them in: in graph.inferred), for the runner's output keywords
        self.complete_graph = complete_graph
        self.allow_unknown_ops = allow_unknown_ops
        self.limits = limits
        self.records: list[Record] = []
        self.nodes = 0
        self.unchecked: dict[str, int] = {}  # nodes whose op has no spec, by op (they are not checked)
        self._entries: dict[tuple[str, str, int | None], Entry | UnknownOp] = {}
        # verdicts, shared with the other checks against this registry (verdicts.py)
        memo = self._memo = memo_for(registry)
        self._cache = memo.verdicts
        self._serial, self._complete, self._intern = memo.serial, memo.complete, memo.intern

    # ---- entry points ------------------------------------------------------------------------------

    def check(self, graph: Graph) -> list[Record]:
        self._walk(graph, None, "", 0)
        return self.records

    # ---- one graph -----------------------------------------------------------------------------------

    def _walk(self, graph: Graph, outer: tuple[Callable[..., Any], Callable[..., Any]] | None, path: str,
              depth: int) -> None:
        if depth > self.limits.max_graph_depth:
            raise ModelReadError(f"graphs are nested more than {self.limits.max_graph_depth} deep")
        self.nodes += len(graph.nodes)
        if self.nodes > self.limits.max_nodes:
            raise ModelReadError(f"more than {self.limits.max_nodes} nodes")
        local: dict[str, TensorInfo] = {}
        keys: dict[str, int] = {}  # value name -> the number of the info_key of its entry in local
        serial, complete = self._serial, self._complete
        declared = fallback = graph.values
        inferred = graph.inferred
        if inferred:  # filled in by onnx.shape_inference: not the file's word, so not checked against it
            declared = {k: v for k, v in declared.items() if k not in inferred}
        get: Callable[..., Any]
        key_of: Callable[[str], Any]
        if outer is None:
            get, key_of = local.get, keys.get
        else:
            local_get, keys_get = local.get, keys.get
            outer_get, outer_key = outer

            def get_nested(name: str, default: Any = None) -> Any:
                info = local_get(name)
                if info is not None:
                    return info
                info = outer_get(name)
                return info if info is not None else default

            def key_nested(name: str) -> Any:
                found = keys_get(name)
                return found if found is not None else outer_key(name)

            get, key_of = get_nested, key_nested

        records = self.records
        for kind, given_names in (("input", graph.inputs), ("initializer", graph.initializers)):
            seen_here: set[str] = set()
            for name in given_names:
                if name in seen_here:
                    records.append(Record("error", "", f"{kind} {name!r}", "is declared more than once",
                                          graph=path, found=name))
                seen_here.add(name)
                info = local[name] = declared.get(name, UNKNOWN)
                keys[name] = serial(info_key(info))
        keys[""] = _ABSENT  # "" names an absent optional input, whatever a graph declares under it

        forward: list[tuple[Node, str]] = []
        stop = self.stop_if_incomplete
        cache = self._cache
        # the key of each declared value, once per value (a node's outputs are looked up, not described)
        # Readers share one TensorInfo among the values of one description: the few distinct objects are
        # described once each. (Their ids only pair each object with its description during this call,
        # while `declared` holds every one of them; no key of the cache holds an id.)
        infos_of_values = declared.values()
        distinct = dict(zip(map(id, infos_of_values), infos_of_values))
        numbers = {k: serial((info.dtype, info.shape, info.value is None)) for k, info in distinct.items()}
        declared_keys = dict(zip(declared, map(numbers.__getitem__, map(id, infos_of_values))))
        unknown_key = serial(_UNKNOWN_KEY)
        declared_keys[""] = _ABSENT
        declared_key: Callable[[str], Any] = declared_keys.get
        declared_get: Callable[..., Any] = declared.get
        local_names = local.keys()
        mattered = VALUES_MATTERED
        for node in graph.nodes:
            # The hot path: a use seen before (the same op, attributes and descriptions of its values) is
            # answered from the cache; the key numbers the descriptions themselves (info_key; None for an
            # output the graph does not describe), and the values' bytes only when the answer depended
            # on them.
            names = node.outputs
            in_keys = tuple(map(key_of, node.inputs))
            out_keys = tuple(map(declared_key, names))
            if None in in_keys:  # an input that no earlier node, input or initializer defines
                for name in node.inputs:
                    if name and get(name) is None:
                        forward.append((node, name))
            answer: Any = None
            infos: Any = None
            outs: Any = None
            cache_key: Any
            if node.graphs:
                for attr, sub in node.graphs.items():
                    self._walk(sub, (get, key_of), (f"{path} > " if path else "") + f"{node.label}.{attr}",
                               depth + 1)
                cache_key = None
            elif node.attr_key is not None:
                cache_key = (node.domain, node.op, node.opset, node.attr_key, in_keys, out_keys)
                answer = cache.get(cache_key)
                if answer is not None and answer[2]:
                    # no problem, and every output described in full: as the file declares it, or as the
                    # specs complete it
                    if len(names) == 1:
                        name = names[0]
                        if name not in local:
                            made = answer[1][0]
                            if made is None:
                                local[name] = declared_get(name)
                                keys[name] = out_keys[0]
                            else:
                                local[name], keys[name] = made
                            continue
                    elif answer[1].count(None) == len(names) and local_names.isdisjoint(names):
                        local.update(zip(names, map(declared_get, names)))
                        keys.update(zip(names, out_keys))
                        continue
                if answer is _VALUES_MATTER:
                    infos = [get(name, UNKNOWN) if name else None for name in node.inputs]
                    outs = [declared_get(name, UNKNOWN) if name else None for name in names]
                    cache_key = (cache_key, values_key(infos, outs))
                    answer = cache.get(cache_key)
            else:
                cache_key = None
            if outs is None:
                outs = [declared_get(name, UNKNOWN) if name else None for name in names]
            if answer is None:
                if infos is None:
                    infos = [get(name, UNKNOWN) if name else None for name in node.inputs]
                mattered[0] = False
                problems, given = self._check_node(node, infos, outs)
                # outputs as the file describes them (None), or as the specs complete them (info, key)
                made = tuple([None if info is out else (info, serial(info_key(info)))
                              for info, out in zip(given, outs)])
                plain = not problems and all(out is not None and complete[keys_made[1]] if keys_made is not None else
                                             out is not None and out.dtype is not None and out.shape is not None
                                             for out, keys_made in zip(outs, made))
                answer = (problems, made, plain)
                if cache_key is not None and small_key(node.attr_key):
                    if not mattered[0]:
                        cache[cache_key] = answer
                        self._memo.count(None, answer)
                    elif len(cache_key) == 6:  # first time: the answer is keyed by the values too
                        values = values_key(infos, outs)
                        if values is not None:
                            cache[cache_key] = _VALUES_MATTER
                            cache[(cache_key, values)] = answer
                            self._memo.count(values, answer)
                    elif cache_key[1] is not None:
                        cache[cache_key] = answer
                        self._memo.count(cache_key[1], answer)
            if answer[0]:
                self._report(node, answer[0], path)
            for name, made_here, info, okey in zip(names, answer[1], outs, out_keys):
                if name:
                    if made_here is not None:
                        info, okey = made_here
                    elif okey is None:  # not described: UNKNOWN
                        okey = unknown_key
                    if inferred and name in inferred and not complete[okey]:
                        info = fallback.get(name, info)  # the specs tell nothing here: take the inferred type
                        okey = serial(info_key(info))
                    if stop and not complete[okey]:
                        raise IncompleteOutput(name)
                    if name in local:
                        records.append(Record("error", f"{node.domain}.{node.op}", f"output {name!r}",
                                              f"value {name!r} is produced twice (a graph is in single static "
                                              "assignment form)", node.name, node.index, path, name))
                    else:
                        local[name] = info
                        keys[name] = okey

        for name in graph.outputs:
            if get(name) is None:
                records.append(Record("error", "", f"output {name!r}", f"graph output {name!r} is not defined by "
                                      "any input, initializer or node", graph=path, found=name))
        if forward:
            self._forward_references(graph, forward, path)
        if self.complete_graph:
            self._fill_in(graph, local)

    @staticmethod
    def _fill_in(graph: Graph, found: dict[str, TensorInfo]) -> None:
        """The values the file describes not at all take what the check found (listed in graph.inferred,
        so the runner does not check results against them as declarations)."""
        described = graph.values
        filled = [name for name, info in found.items() if info is not UNKNOWN and (
            name not in described or (described[name].dtype is None and described[name].shape is None))]
        described.update((name, found[name]) for name in filled)
        graph.inferred = graph.inferred | frozenset(filled)


    # ---- one node ------------------------------------------------------------------------------------

    def _check_node(self, node: Node, infos: list[Any], outs: list[Any]) -> tuple[Any, tuple[Any, ...]]:
        """(problems, or the UnknownOp when the op has no spec; the infos of the node's outputs)."""
        key = (node.domain, node.op, node.opset)
        entry = self._entries.get(key)
        if entry is None:
            try:
                entry = self.registry.lookup(*key)
            except UnknownOp as exc:
                entry = exc
            self._entries[key] = entry
        if isinstance(entry, UnknownOp):
            return entry, tuple(outs)
        problems = self._validate(entry, node, infos, outs)
        # A node with problems passes on only what the file declares: a shape inferred from a bad use
        # (an axis out of range still slices) would make its consumers report the same fault again.
        return problems, (tuple(outs) if problems else self._infer(entry, node, infos, outs))

    def _report(self, node: Node, found: Any, path: str) -> None:
        if isinstance(found, UnknownOp):
            op = f"{node.domain}.{node.op}"
            self.unchecked[op] = self.unchecked.get(op, 0) + 1
            if node.note:
                self.records.append(Record("warning", op, "op", node.note, node.name, node.index, path))
                return
            severity = "warning" if self.allow_unknown_ops else "error"
            message = str(found) + ("" if self.allow_unknown_ops else " (--allow-unknown-ops makes this a warning)")
            self.records.append(Record(severity, op, "op", message, node.name, node.index, path, op))
            return
        for p in found:
            self.records.append(Record("error", p.op, p.where, p.message, node.name, node.index, path, p.found,
                                       p.expected))

    def _validate(self, entry: Entry, node: Node, infos: list[Any], outs: list[Any]) -> tuple[Problem, ...]:
        sig = entry.signature
        problems: list[Problem] = []
        attributes = node.attributes
        bad: set[str] = set()
        for name, (kind, spelled) in node.attr_kinds.items():
            spec = sig.attribute(name)
            if spec is None or kind == spec.type or (kind, spec.type) in _COMPATIBLE:
                continue
            bad.add(name)
            value = attributes.get(name)
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            problems.append(Problem(sig.key, f"attribute {name!r}", f"expected a {spec.type} attribute, found "
                                    f"{spelled} {shown}", spelled, spec.type))
        if bad:
            attributes = {k: v for k, v in attributes.items() if k not in bad}
        try:
            found = entry.validator(infos, attributes, outs)
        except Exception as exc:  # a rule that cannot cope with what the file holds: report, do not crash
            VALUES_MATTERED[0] = True  # (the fault may lie in a value: no verdict for other values)
            found = [Problem(sig.key, "validator", f"could not be checked: {type(exc).__name__}: {exc}")]
        if bad:
            found = [p for p in found if not (p.where.startswith("attribute ") and p.where[11:-1] in bad)]
        problems += found
        return tuple(problems)

    def _infer(self, entry: Entry, node: Node, infos: list[Any], outs: list[Any]) -> tuple[Any, ...]:
        sig = entry.signature
        if all(out is None or (out.dtype is not None and out.shape is not None) for out in outs):
            return tuple(outs)  # the file describes every output: nothing to infer
        if node.op == "Constant" and node.domain == "onnx" and len(outs) == 1:
            made = constant_output(node.attributes)  # its type is its attribute's, which no spec rule reads
            if made is not None:
                return (made,)
        inferred: dict[str, tuple[Any, ...]] = {}
        if sig.output_shapes and any(out is not None and out.shape is None for out in outs):
            try:
                inferred = output_shapes_of(sig, infos, node.attributes)
            except Exception:  # a file's values a shape function cannot take: the validator reports them
                VALUES_MATTERED[0] = True
                inferred = {}
        # What follows depends on the signature, the dtypes and shapes, and the shapes inferred only:
        # memoised by those (a model's next reading, or another node of the same use, asks again).
        key = (id(sig), tuple([None if i is None else (i.dtype, i.shape) for i in infos]),
               tuple([None if o is None else (o.dtype, o.shape) for o in outs]), tuple(sorted(inferred.items())))
        found = RECIPES.get(key)
        if found is not None and found[0] is sig:
            recipe = found[1]
        else:
            recipe = recipe_for(sig, infos, outs, inferred)
            if len(RECIPES) >= 4096:
                RECIPES.clear()
            RECIPES[key] = (sig, recipe)  # sig kept alive: its id names it only
        given = tuple([out if made is None else self._intern(*made) for out, made in zip(outs, recipe)])
        if foldable(node) and small_results(given):  # the spec's own shapes bound what folding computes
            folded = fold(node, infos)
            if folded is not None:
                if node.op not in ("Shape", "Size"):
                    VALUES_MATTERED[0] = True  # the answer depends on the input values: keyed by them
                return tuple(out if out is None else made for out, made in zip(given, folded))
        return given


    # ---- graph structure -----------------------------------------------------------------------------

    def _forward_references(self, graph: Graph, forward: list[tuple[Node, str]], path: str) -> None:
        producer: dict[str, Node] = {}
        for node in graph.nodes:
            for name in node.outputs:
                if name:
                    producer.setdefault(name, node)
        for node, name in forward:
            later = producer.get(name)
            if later is not None:
                message = (f"value {name!r} is used before it is defined ({later.label} produces it later; "
                           "nodes must be in execution order)")
            else:
                message = f"value {name!r} is not defined by any input, initializer or node"
            self.records.append(Record("error", f"{node.domain}.{node.op}", f"input {name!r}", message, node.name,
                                       node.index, path, name))
        for cycle in find_cycles(graph.nodes, producer):
            shown = ", ".join(n.label for n in cycle[:8]) + (f" and {len(cycle) - 8} more" if len(cycle) > 8 else "")
            self.records.append(Record("error", "", "nodes", f"form a cycle: {shown}", graph=path,
                                       found=[n.index for n in cycle]))
