"""Control flow: hlir Map, If and While (XLA Map, Conditional and While), and ONNX If, Loop and Scan.

A graph-valued attribute is either a Python callable taking and returning arrays, or a nested hlir graph
(a dict in the hlir graph format), which graph_runner turns into such a callable. A computation may
return one array or a tuple/list of arrays (a graph returns the tuple of its outputs). ONNX's graphs
(If's branches, Loop's and Scan's bodies) arrive from the graph runner as GraphFunctions, whose
declarations give the types of scan outputs that no iteration produced.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from ...dtypes import ELEM_TYPES, elem_of_numpy
from ..context import TensorInfo
from ..graph_runner import GraphFunction, as_callable, results
from ..values import OptionalValue, SequenceValue, is_value, value_type
from . import generated_ops
from .onnx_value import copy_value


def map_output_types() -> tuple[str, ...]:
    """The element types hlir Map's spec allows for its output, read from the generated signature (the
    spec's type constraint), so that no second copy of that list can fall out of step with the spec."""
    sig = generated_ops().get_signature("hlir", "Map")
    return sig.allowed(sig.outputs[0])


def _single(value: Any, what: str) -> np.ndarray:
    out = results(value, what)
    if len(out) != 1:
        raise ValueError(f"{what} returned {len(out)} values; it must return one")
    return out[0]


def _declared_output_dtype(fn: object) -> np.dtype | None:
    """The dtype a graph declares for its (single) output, when it declares one."""
    if isinstance(fn, GraphFunction) and len(fn.output_names) == 1:
        from ...dtypes import ELEM_TYPES

        dtype = fn.declared(fn.output_names[0]).dtype
        return None if dtype is None else np.dtype(ELEM_TYPES[dtype].numpy)
    return None


def map_(input: np.ndarray, *, dimensions: Sequence[int], computation: Callable[..., Any]) -> np.ndarray:
    """XLA Map. The computation runs once for every index of the mapped `dimensions`, on the inputs'
    sub-arrays at that index (over the other dimensions; scalars, as rank-0 arrays, when `dimensions`
    lists every dimension, XLA's only form) and returns a sub-array of the same shape; the output holds
    these results in place (spec note map_dimensions). Its element type is the computation's result type
    (spec note map_output_type)."""
    xs = [np.asarray(x) for x in input]
    if not xs:
        raise ValueError("Map needs at least one input")
    shape = xs[0].shape
    for k, x in enumerate(xs):
        if x.shape != shape:
            raise ValueError(f"input {k} has shape {x.shape}, input 0 {shape}: Map needs one shape")
    dims = sorted({int(d) for d in dimensions})
    if len(dims) != len(list(dimensions)) or any(not 0 <= d < len(shape) for d in dims):
        raise ValueError(f"dimensions {list(dimensions)} must be distinct dimensions of rank {len(shape)}")
    fn = as_callable(computation, "Map computation", resolver=generated_ops)
    front = [np.moveaxis(x, dims, list(range(len(dims)))) for x in xs]  # mapped dimensions first
    mapped, rest = front[0].shape[:len(dims)], front[0].shape[len(dims):]
    out = None
    for index in np.ndindex(*mapped):
        y = _single(fn(*(np.asarray(f[index]) for f in front)), "the Map computation")
        if y.shape != rest:
            raise ValueError(f"the Map computation returned shape {y.shape} for arguments of shape {rest}")
        if out is None:
            allowed = map_output_types()
            if elem_of_numpy(y.dtype) not in allowed:
                raise ValueError(f"the Map computation returned {y.dtype}; the output type must be one of "
                                 f"{', '.join(allowed)}")
            out = np.empty(front[0].shape, dtype=y.dtype)
        elif y.dtype != out.dtype:
            raise ValueError(f"the Map computation returned {y.dtype} at {index} and {out.dtype} before")
        out[index] = y
    if out is None:  # nothing to map: the type a graph declares for its result, else the first input's
        out = np.empty(front[0].shape, dtype=_declared_output_dtype(fn) or xs[0].dtype)
    return np.moveaxis(out, list(range(len(dims))), dims)


def if_(pred: np.ndarray, true_operand: Sequence[np.ndarray], false_operand: Sequence[np.ndarray], *,
        true_computation: Callable[..., Any], false_computation: Callable[..., Any]) -> tuple[np.ndarray, ...]:
    """XLA Conditional: true_computation(true_operand) when pred is true, else
    false_computation(false_operand); only the chosen branch runs. The outputs are the branch's results
    with their own types."""
    p = np.asarray(pred)
    if p.ndim != 0 or p.dtype != np.bool_:
        raise ValueError(f"pred must be a bool scalar, found {p.dtype} of shape {p.shape}")
    if bool(p):
        branch = as_callable(true_computation, "If true_computation", resolver=generated_ops)
        return results(branch(true_operand), "true_computation")
    branch = as_callable(false_computation, "If false_computation", resolver=generated_ops)
    return results(branch(false_operand), "false_computation")


def case(index: np.ndarray, *, branches: Sequence[Callable[..., Any]]) -> tuple[np.ndarray, ...]:
    """StableHLO case: runs branches[index] (the last branch when index is outside [0, N)) with no
    arguments (a branch reads the values of the enclosing graph) and returns its results."""
    i = np.asarray(index)
    if i.ndim != 0 or i.dtype != np.int32:
        raise ValueError(f"index must be an int32 scalar, found {i.dtype} of shape {i.shape}")
    if not branches:
        raise ValueError("Case needs at least one branch")
    chosen = int(i) if 0 <= int(i) < len(branches) else len(branches) - 1
    branch = as_callable(branches[chosen], f"Case branches[{chosen}]", resolver=generated_ops)
    return results(branch(), f"branches[{chosen}]")


def while_(init: Sequence[np.ndarray], *, condition: Callable[..., Any], body: Callable[..., Any]) -> tuple[np.ndarray,
           ...]:
    """XLA While: state = init; while condition(*state): state = body(*state). The state is the list of
    init tensors; body must return the same number of tensors with the same dtypes and shapes."""
    cond = as_callable(condition, "While condition", resolver=generated_ops)
    step = as_callable(body, "While body", resolver=generated_ops)
    state = tuple(np.array(x, copy=True) for x in init)
    if not state:
        raise ValueError("While needs at least one init tensor")
    while True:
        c = _single(cond(*state), "the While condition")
        if c.ndim != 0 or c.dtype != np.bool_:
            raise ValueError(f"the While condition must return a bool scalar, found {c.dtype} of shape {c.shape}")
        if not bool(c):
            return state
        new = results(step(*state), "the While body")
        if len(new) != len(state) or any(n.dtype != s.dtype or n.shape != s.shape for n, s in zip(new, state)):
            raise ValueError("the While body must return the loop state's types and shapes "
                             f"{[(str(s.dtype), s.shape) for s in state]}, returned "
                             f"{[(str(n.dtype), n.shape) for n in new]}")
        state = new


# ---- ONNX If, Loop and Scan ----------------------------------------------------------------------
# ONNX's graphs carry sequences and optionals as well as tensors, so these kernels keep a body's
# results as they are (graph_runner.results, used above for XLA, would turn a sequence into one array).
# Their graphs arrive from the graph runner as GraphFunctions (or as any callable in direct calls):
# `body(*args)` returns the tuple of the graph's outputs and sees the values of the enclosing graphs.


def _values(value: Any, what: str) -> tuple[Any, ...]:
    """What a graph returned, as a tuple of values (arrays, SequenceValues, OptionalValues)."""
    if isinstance(value, tuple) or (isinstance(value, list) and not isinstance(value, SequenceValue)):
        return tuple(v if is_value(v) else np.asarray(v) for v in value)
    if value is None:
        raise ValueError(f"{what} returned None")
    return (value if is_value(value) else np.asarray(value),)


def _flag(value: Any, what: str) -> bool:
    """A condition: a bool tensor of exactly one element (ONNX allows shape [] or [1], any rank)."""
    if is_value(value):
        raise ValueError(f"{what} must be a bool tensor, found a {value_type(value)}")
    c = np.asarray(value)
    if c.dtype != np.bool_ or c.size != 1:
        raise ValueError(f"{what} must be a bool tensor of one element, found {c.dtype} of shape {list(c.shape)}")
    return bool(c.reshape(-1)[0])


def _declared_types(graph: Any, names_attr: str) -> list[TensorInfo | None]:
    """What a GraphFunction declares for its inputs or outputs (nothing for a plain callable)."""
    names = getattr(graph, names_attr, None)
    if not isinstance(graph, GraphFunction) or names is None:
        return []
    return [graph.declared(n) for n in names]


def _as_declared(value: Any, info: TensorInfo | None) -> Any:
    """A value fed to a body input that the body declares optional(X): wrapped into an optional when it
    is a plain X (ONNX lets a present value stand for an optional one: Loop-16's carried optionals
    become the sequences the body returns)."""
    declared = None if info is None else info.dtype
    if declared and declared.startswith("optional(") and not isinstance(value, OptionalValue):
        return OptionalValue(value, declared[len("optional("):-1])
    return value


def onnx_if(cond: np.ndarray, *, then_branch: Callable[..., Any], else_branch: Callable[..., Any]) -> tuple[Any, ...]:
    """ONNX If: the outputs of then_branch when the one element of cond is true, else of else_branch;
    only that branch runs. Unlike XLA Conditional (if_ above), the branches take no operands (they read
    the enclosing graph's values), cond may have shape [1], and the outputs may be sequences or
    optionals, whose shapes may differ between the branches."""
    branch = then_branch if _flag(cond, "cond") else else_branch
    return tuple(copy_value(v) for v in _values(branch(), "the If branch"))


def _stacked(slices: list[np.ndarray], declared: TensorInfo | None, what: str) -> np.ndarray:
    """The per-iteration values of a scan output, stacked on a new leading axis (every iteration must
    give one dtype and shape). With no iteration the result is empty, of the dtype and the element shape
    the body declares for that output (a scalar element when it declares no shape: shape (0,); size 0 for
    a dimension it leaves unknown)."""
    if not slices:
        if declared is None or declared.dtype not in ELEM_TYPES:
            raise ValueError(f"{what}: no iteration ran and the body declares no tensor type for it, so its "
                             "element type is unknown")
        # no element exists, so a dimension the body leaves unknown may be taken as 0
        shape = () if declared.shape is None else tuple(0 if d is None else int(d) for d in declared.shape)
        return np.zeros((0, *shape), dtype=ELEM_TYPES[declared.dtype].numpy)
    first = slices[0]
    for k, s in enumerate(slices):
        if is_value(s):
            raise ValueError(f"{what} is a {value_type(s)}: scan outputs are tensors")
        if s.dtype != first.dtype or s.shape != first.shape:
            raise ValueError(f"{what} has {s.dtype} {list(s.shape)} at iteration {k}, {first.dtype} "
                             f"{list(first.shape)} at iteration 0: a scan output keeps one type and shape")
    return np.stack(slices)


def onnx_loop(M: np.ndarray | None = None, cond: np.ndarray | None = None, v_initial: Sequence[Any] = (), *,
              body: Callable[..., Any]) -> tuple[Any, ...]:
    """ONNX Loop. body(iteration_num, condition, *carried) -> (condition, *carried, *scan_slices) runs
    while iteration_num < M (when M is given) and the condition holds (true at first when cond is
    absent); iteration_num is an int64 scalar counting from 0. The outputs are the final carried values
    (the initial ones after no iteration), then each scan output: its per-iteration tensors stacked on a
    new axis 0. The body's condition output ends the loop even when cond is absent, as onnxruntime does
    (ONNX's table says it is ignored then; spec note loop_condition). Carried values may change shape
    between iterations and may be sequences or optionals. Unlike XLA While (while_ above) the state may
    change shape and type, and the loop collects scan outputs."""
    limit = None if M is None else int(np.asarray(M).reshape(-1)[0])
    keep_going = True if cond is None else _flag(cond, "cond")
    carried = list(v_initial)
    inputs_declared = _declared_types(body, "input_names")
    outputs_declared = _declared_types(body, "output_names")
    n = len(carried)
    scans: list[list[np.ndarray]] | None = None
    iteration = 0
    while keep_going and (limit is None or iteration < limit):
        args = [np.array(iteration, dtype=np.int64), np.array(keep_going), *carried]
        if inputs_declared:
            args = [_as_declared(a, d) for a, d in zip(args, inputs_declared)]
        out = _values(body(*args), "the Loop body")
        if len(out) < 1 + n:
            raise ValueError(f"the Loop body returned {len(out)} values; it must return the condition and the "
                             f"{n} carried values first")
        if scans is None:
            scans = [[] for _ in out[1 + n:]]
        elif len(out) != 1 + n + len(scans):
            raise ValueError(f"the Loop body returned {len(out)} values, {1 + n + len(scans)} before")
        keep_going = _flag(out[0], "the Loop body's condition")
        carried = list(out[1:1 + n])
        for k, s in enumerate(out[1 + n:]):
            scans[k].append(s)
        iteration += 1
    if scans is None:  # no iteration: as many scan outputs as the body declares
        n_scans = max(0, len(outputs_declared) - 1 - n)
        scans = [[] for _ in range(n_scans)]
    declared_scans = outputs_declared[1 + n:] if outputs_declared else [None] * len(scans)
    stacked = [_stacked(s, d, f"Loop scan output {k}") for k, (s, d) in enumerate(zip(scans, declared_scans))]
    return tuple(copy_value(v) for v in carried) + tuple(stacked)


def _scan_loop(states: list[Any], slices_of: Callable[[int], list[np.ndarray]], steps: int,
               body: Callable[..., Any], what: str) -> tuple[list[Any], list[list[np.ndarray]]]:
    """Run a Scan body `steps` times: body(*states, *slices_of(t)) -> (*states, *scan_slices). The
    states keep their dtype and shape (ONNX requires it); the scan slices are collected per output."""
    n = len(states)
    collected: list[list[np.ndarray]] | None = None
    for t in range(steps):
        out = _values(body(*states, *slices_of(t)), what)
        if len(out) < n:
            raise ValueError(f"{what} returned {len(out)} values; it must return the {n} states first")
        for k, (new, old) in enumerate(zip(out[:n], states)):
            if is_value(new) or new.dtype != old.dtype or new.shape != old.shape:
                shown = value_type(new) if is_value(new) else f"{new.dtype} {list(new.shape)}"
                raise ValueError(f"{what} returned state {k} as {shown}, it is {old.dtype} {list(old.shape)}: "
                                 "a Scan state keeps its type and shape")
        if collected is None:
            collected = [[] for _ in out[n:]]
        elif len(out) != n + len(collected):
            raise ValueError(f"{what} returned {len(out)} values, {n + len(collected)} before")
        states = list(out[:n])
        for k, s in enumerate(out[n:]):
            collected[k].append(s)
    if collected is None:  # no step: as many scan outputs as the body declares
        collected = [[] for _ in range(max(0, len(_declared_types(body, "output_names")) - n))]
    return states, collected


def _axis_in(axis: int, rank: int, what: str) -> int:
    if not -rank <= axis < rank:
        raise ValueError(f"{what} {axis} is outside [{-rank}, {rank - 1}]")
    return axis % rank


def onnx_scan(initial_state_and_scan_inputs: Sequence[np.ndarray], *, body: Callable[..., Any],
              num_scan_inputs: int, scan_input_axes: Sequence[int] | None = None,
              scan_input_directions: Sequence[int] | None = None, scan_output_axes: Sequence[int] | None = None,
              scan_output_directions: Sequence[int] | None = None) -> tuple[np.ndarray, ...]:
    """ONNX Scan (version 9 and later). The last num_scan_inputs inputs are scanned along their
    scan_input_axes (0 by default; negative counts from the back), each from its end when its
    scan_input_directions entry is 1; all have one length T along those axes. The body runs T times on
    the states and the t-th slice of every scan input, and returns the next states then one slice per
    scan output. The outputs are the final states, then each scan output: its T slices stacked along
    its scan_output_axes entry (an axis of the stacked result, in [-r-1, r] for slices of rank r), in
    reverse order when its scan_output_directions entry is 1 (each slice prepended)."""
    values = [np.asarray(v) for v in initial_state_and_scan_inputs]
    m = int(num_scan_inputs)
    if not 1 <= m <= len(values):
        raise ValueError(f"num_scan_inputs {m} must lie in [1, {len(values)}], the number of inputs")
    states, scanned = values[:len(values) - m], values[len(values) - m:]
    in_axes = [0] * m if scan_input_axes is None else [int(a) for a in scan_input_axes]
    in_dirs = [0] * m if scan_input_directions is None else [int(d) for d in scan_input_directions]
    if len(in_axes) != m or len(in_dirs) != m:
        raise ValueError(f"scan_input_axes and scan_input_directions need one entry per scan input ({m})")
    # each scan input with its scan axis first, reversed when scanned backwards
    fronts = []
    for j, (x, a, d) in enumerate(zip(scanned, in_axes, in_dirs)):
        if x.ndim == 0:
            raise ValueError(f"scan input {j} is a scalar: it has no axis to scan")
        front = np.moveaxis(x, _axis_in(a, x.ndim, f"scan_input_axes[{j}]"), 0)
        fronts.append(front[::-1] if d else front)
    lengths = {f.shape[0] for f in fronts}
    if len(lengths) != 1:
        raise ValueError(f"the scan inputs have lengths {sorted(lengths)} along their scan axes: they need one")
    steps = lengths.pop()
    final, collected = _scan_loop(list(states), lambda t: [f[t] for f in fronts], steps, body, "the Scan body")
    k = len(collected)
    out_axes = [0] * k if scan_output_axes is None else [int(a) for a in scan_output_axes]
    out_dirs = [0] * k if scan_output_directions is None else [int(d) for d in scan_output_directions]
    if len(out_axes) != k or len(out_dirs) != k:
        raise ValueError(f"scan_output_axes and scan_output_directions need one entry per scan output ({k})")
    declared = _declared_types(body, "output_names")[len(states):] or [None] * k
    outputs = []
    for j, (slices, a, d, info) in enumerate(zip(collected, out_axes, out_dirs, declared)):
        stacked = _stacked(slices[::-1] if d else slices, info, f"Scan output {j}")
        outputs.append(np.moveaxis(stacked, 0, _axis_in(a, stacked.ndim, f"scan_output_axes[{j}]")))
    return tuple(copy_value(s) for s in final) + tuple(np.ascontiguousarray(o) for o in outputs)


def onnx_scan_v8(sequence_lens: np.ndarray | None = None, initial_state_and_scan_inputs: Sequence[np.ndarray] = (),
                 *, body: Callable[..., Any], num_scan_inputs: int,
                 directions: Sequence[int] | None = None) -> tuple[np.ndarray, ...]:
    """ONNX Scan-8: every input has a leading batch axis, and the scan inputs' sequence axis is axis 1.
    Each batch entry b is scanned on its own, for sequence_lens[b] steps (the whole sequence axis when
    sequence_lens is absent); a scan input whose directions entry is 1 is read backwards from step
    sequence_lens[b] - 1. Outputs: the final states per batch entry, and the scan outputs [batch, T,
    ...] whose steps past sequence_lens[b] are zeros (ONNX leaves them undefined; onnxruntime writes
    zeros; spec note scan8_padding)."""
    values = [np.asarray(v) for v in initial_state_and_scan_inputs]
    m = int(num_scan_inputs)
    if not 1 <= m <= len(values):
        raise ValueError(f"num_scan_inputs {m} must lie in [1, {len(values)}], the number of inputs")
    states, scanned = values[:len(values) - m], values[len(values) - m:]
    dirs = [0] * m if directions is None else [int(d) for d in directions]
    if len(dirs) != m:
        raise ValueError(f"directions needs one entry per scan input ({m})")
    for j, x in enumerate(values):
        if x.ndim < (2 if j >= len(states) else 1):
            raise ValueError(f"input {j} has rank {x.ndim}: Scan-8's inputs have a batch axis (and the scan "
                             "inputs a sequence axis after it)")
    batches = {x.shape[0] for x in values}
    steps_all = {x.shape[1] for x in scanned}
    if len(batches) != 1 or len(steps_all) != 1:
        raise ValueError(f"the inputs need one batch size (found {sorted(batches)}) and the scan inputs one "
                         f"sequence length (found {sorted(steps_all)})")
    batch, max_steps = batches.pop(), steps_all.pop()
    if batch == 0:  # no batch entry runs the body, so nothing tells the scan outputs' element shapes
        raise ValueError("Scan-8 with a batch of size 0: the scan outputs' shapes are unknown")
    lens = [max_steps] * batch if sequence_lens is None else [int(v) for v in np.asarray(sequence_lens).reshape(-1)]
    if len(lens) != batch or any(not 0 <= n <= max_steps for n in lens):
        raise ValueError(f"sequence_lens {lens} needs {batch} lengths in [0, {max_steps}]")
    finals: list[list[np.ndarray]] = []
    scans: list[list[np.ndarray]] = []
    declared = _declared_types(body, "output_names")[len(states):]
    for b, steps in enumerate(lens):
        rows = [x[b, :steps][::-1] if d else x[b, :steps] for x, d in zip(scanned, dirs)]
        final, collected = _scan_loop([s[b] for s in states], lambda t: [r[t] for r in rows], steps, body,
                                      "the Scan body")
        finals.append(final)
        for k, slices in enumerate(collected):
            run = _stacked(slices, declared[k] if k < len(declared) else None, f"Scan output {k}")
            padded = np.zeros((max_steps, *run.shape[1:]), dtype=run.dtype)
            if padded.dtype == object:  # strings: the empty string where numbers get zeros
                padded[...] = ""
            padded[:steps] = run
            if k == len(scans):
                scans.append([])
            scans[k].append(padded)
    state_out = tuple(np.stack([f[k] for f in finals]) if finals else np.zeros((0, *s.shape[1:]), s.dtype)
                      for k, s in enumerate(states))
    return state_out + tuple(np.stack(per_batch) for per_batch in scans)
