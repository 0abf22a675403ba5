"""StableHLO operations as hlir ops: attributes and regions in the form the hlir specs spell them.

`translate(hlir_op, op)` gives the hlir attributes of one MLIR operation that a spec's `stablehlo`
field maps to that hlir op. A region that hlir states as an attribute (the reduction of Reduce,
ReduceWindow, SelectAndScatter and Scatter: an enum `computation`; Sort's comparator: `descending`; a
comparator of several keys or of complex values becomes several sorts, in stablehlo_sort)
is recognised from its operations, and so is jax's argmax/argmin reduce of values and an iota
(stablehlo_argminmax: Reduce ARGMAX/ARGMIN); a region hlir cannot state that way raises Untranslatable, and the
reader then keeps the operation as an unknown op. Regions that stay graphs (While's condition and
body) are turned into graphs by the reader, not here.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np


class Untranslatable(Exception):
    """The operation uses a form the hlir op cannot state (the message says which)."""


# A reduction body of one operation on the two block arguments -> hlir's `computation` enum.
_COMPUTATIONS = {"stablehlo.add": "ADD", "stablehlo.multiply": "MUL", "stablehlo.maximum": "MAX",
                 "stablehlo.minimum": "MIN", "stablehlo.and": "AND", "stablehlo.or": "OR", "stablehlo.xor": "XOR",
                 "stablehlo.subtract": "SUB", "stablehlo.divide": "DIV"}
_COMMUTATIVE = {"ADD", "MUL", "MAX", "MIN", "AND", "OR", "XOR"}


def _ints(attr: Any) -> list[int]:
    return [int(x) for x in attr]


def _attr(op: Any, name: str) -> Any:
    return op.attributes[name] if name in op.attributes else None


def _body(op: Any, region: int = 0) -> tuple[list[Any], list[Any]]:
    """(block arguments, operations) of a single-block region."""
    blocks = list(op.regions[region].blocks)
    if len(blocks) != 1:
        raise Untranslatable(f"region #{region} has {len(blocks)} blocks; one is expected")
    block = blocks[0]
    return list(block.arguments), [o.operation for o in block.operations]


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


def computation_of(op: Any, region: int = 0) -> str:
    """The hlir computation a reduction region performs: `return op(arg0, arg1)`, or `return arg1`
    (UPDATE: the update value replaces the current one)."""
    args, ops = _body(op, region)
    if len(args) != 2:
        raise Untranslatable(f"its region has {len(args)} arguments; hlir states only one-tensor computations")
    ret = ops[-1]
    if len(ops) == 1 and len(ret.operands) == 1 and _same(ret.operands[0], args[1]):
        return "UPDATE"
    if len(ops) == 2 and len(ret.operands) == 1 and _same(ret.operands[0], ops[0].results[0]):
        kind = _COMPUTATIONS.get(ops[0].name)
        operands = list(ops[0].operands)
        if kind is not None and len(operands) == 2:
            if _same(operands[0], args[0]) and _same(operands[1], args[1]):
                return kind
            if kind in _COMMUTATIVE and _same(operands[0], args[1]) and _same(operands[1], args[0]):
                return kind
    shown = ", ".join(o.name for o in ops)
    raise Untranslatable(f"its region ({shown}) is not one of the computations hlir states "
                         f"({', '.join(sorted(set(_COMPUTATIONS.values()) | {'UPDATE'}))})")


def _direction(op: Any) -> str:
    from jaxlib.mlir.dialects import stablehlo

    return str(stablehlo.ComparisonDirectionAttr(op.attributes["comparison_direction"]).value)


def _compare_type(op: Any) -> str | None:
    from jaxlib.mlir.dialects import stablehlo

    attr = _attr(op, "compare_type")
    return None if attr is None else str(stablehlo.ComparisonTypeAttr(attr).value)


def _select_type(op: Any) -> str:
    """select_and_scatter's select region: `return compare DIR (arg0, arg1)` -> DIR."""
    args, ops = _body(op, 0)
    if (len(ops) == 2 and ops[0].name == "stablehlo.compare" and len(args) == 2
            and _same(ops[-1].operands[0], ops[0].results[0]) and _same(ops[0].operands[0], args[0])
            and _same(ops[0].operands[1], args[1])):
        direction = _direction(ops[0])
        if direction in ("GE", "GT", "LE", "LT"):
            return direction
    raise Untranslatable("its select region is not `compare GE|GT|LE|LT (current, candidate)`")


def lineage(value: Any, args: list[Any]) -> tuple[set[int], set[str]]:
    """Which block arguments a value of a region is computed from (their positions), and the names of the
    operations on the way."""
    found: set[int] = set()
    names: set[str] = set()
    stack, seen = [value], 0
    while stack and seen < 10_000:
        v, seen = stack.pop(), seen + 1
        for k, a in enumerate(args):
            if _same(v, a):
                found.add(k)
                break
        else:
            owner = v.owner
            if hasattr(owner, "operands"):
                names.add(getattr(owner, "name", ""))
                stack.extend(owner.operands)
    return found, names


def _roots(value: Any, args: list[Any]) -> set[int]:
    """Which block arguments a value of a region is computed from (their positions)."""
    return lineage(value, args)[0]


def sort_order(op: Any) -> bool:
    """descending, from a comparator that returns `compare LT|GT (f(arg0), f(arg1))`: the first
    operand alone decides the order (what hlir.Sort states)."""
    args, ops = _body(op, 0)
    ret = ops[-1]
    if len(ret.operands) == 1 and len(args) >= 2:
        last = ret.operands[0].owner
        if getattr(last, "name", "") == "stablehlo.compare":
            direction = _direction(last)
            lhs, rhs = _roots(last.operands[0], args), _roots(last.operands[1], args)
            if direction in ("LT", "GT") and lhs == {0} and rhs == {1}:
                return direction == "GT"
    raise Untranslatable("its comparator is not `compare LT|GT` of the first operand's two elements "
                         "(hlir.Sort orders by the first tensor, ascending or descending)")


def _padding_pairs(attr: Any, rank: int) -> list[list[int]]:
    if attr is None:
        return [[0, 0]] * rank
    pairs = np.array(attr).reshape(-1, 2)
    return [[int(lo), int(hi)] for lo, hi in pairs]


def _low_then_high(pairs: list[list[int]]) -> list[int]:
    """StableHLO's [[low, high], ...] as hlir's [x1_low, x2_low, ..., x1_high, x2_high, ...]."""
    return [p[0] for p in pairs] + [p[1] for p in pairs]


def _rank(op: Any) -> int:
    from jaxlib.mlir import ir

    return len(ir.RankedTensorType(op.operands[0].type).shape)


def _all_one(attr: Any) -> bool:
    return attr is None or all(int(x) == 1 for x in attr)


def _compare(op: Any) -> dict[str, Any]:
    # compare_type TOTALORDER: the reader compares integers made from the floats' bits instead
    # (opgen.validate.stablehlo_total_order)
    return {"comparison_direction": _direction(op)}


def is_total_order(op: Any) -> bool:
    return _compare_type(op) == "TOTALORDER"


def _dot_general(op: Any) -> dict[str, Any]:
    from jaxlib.mlir.dialects import stablehlo

    d = stablehlo.DotDimensionNumbers(op.attributes["dot_dimension_numbers"])
    return {"lhs_batching_dimensions": _ints(d.lhs_batching_dimensions),
            "rhs_batching_dimensions": _ints(d.rhs_batching_dimensions),
            "lhs_contracting_dimensions": _ints(d.lhs_contracting_dimensions),
            "rhs_contracting_dimensions": _ints(d.rhs_contracting_dimensions)}


def _convolution(op: Any) -> dict[str, Any]:
    from jaxlib.mlir.dialects import stablehlo

    d = stablehlo.ConvDimensionNumbers(op.attributes["dimension_numbers"])
    n = len(d.input_spatial_dimensions)
    reversal = _attr(op, "window_reversal")
    if reversal is not None and any(bool(x) for x in reversal):
        raise Untranslatable("window_reversal is set; hlir.Conv has no reversed windows")
    strides, lhs_dil, rhs_dil = (_attr(op, k) for k in ("window_strides", "lhs_dilation", "rhs_dilation"))
    return {"input_batch_dimension": int(d.input_batch_dimension),
            "input_feature_dimension": int(d.input_feature_dimension),
            "input_spatial_dimensions": _ints(d.input_spatial_dimensions),
            "kernel_input_feature_dimension": int(d.kernel_input_feature_dimension),
            "kernel_output_feature_dimension": int(d.kernel_output_feature_dimension),
            "kernel_spatial_dimensions": _ints(d.kernel_spatial_dimensions),
            "output_batch_dimension": int(d.output_batch_dimension),
            "output_feature_dimension": int(d.output_feature_dimension),
            "output_spatial_dimensions": _ints(d.output_spatial_dimensions),
            "window_strides": [1] * n if strides is None else _ints(strides),
            "padding": _low_then_high(_padding_pairs(_attr(op, "padding"), n)),
            "lhs_dilation": [1] * n if lhs_dil is None else _ints(lhs_dil),
            "rhs_dilation": [1] * n if rhs_dil is None else _ints(rhs_dil),
            "feature_group_count": int(op.attributes["feature_group_count"].value),
            "batch_group_count": int(op.attributes["batch_group_count"].value)}


def _reduce_window(op: Any) -> dict[str, Any]:
    pairs = _padding_pairs(_attr(op, "padding"), _rank(op))
    attrs: dict[str, Any] = {"computation": computation_of(op),
                             "window_dimensions": _ints(op.attributes["window_dimensions"])}
    if any(p != [0, 0] for p in pairs):  # explicit padding goes with auto_pad NOTSET, the default
        attrs["padding"] = _low_then_high(pairs)
    for name in ("window_strides", "base_dilations", "window_dilations"):
        value = _attr(op, name)
        if value is not None:
            attrs[name] = _ints(value)
    return attrs


def _select_and_scatter(op: Any) -> dict[str, Any]:
    rank = _rank(op)
    strides = _attr(op, "window_strides")
    return {"select_type": _select_type(op), "computation": computation_of(op, 1),
            "window_dimensions": _ints(op.attributes["window_dimensions"]),
            "window_strides": [1] * rank if strides is None else _ints(strides),
            "padding": _low_then_high(_padding_pairs(_attr(op, "padding"), rank))}


def _explicit_batching(batching: list[int], index_map: list[int], collapsed: list[int]) -> tuple[list[int], list[int]]:
    """The index map, and the collapsed (gather) or inserted (scatter) window dimensions, once each operand
    batching dimension is indexed explicitly by the index component the reader appends for it, in order
    (opgen.validate.stablehlo_batching): hlir's Gather and ScatterND have no batching dimensions."""
    return index_map + batching, sorted(collapsed + batching)


def _gather(op: Any) -> dict[str, Any]:
    from jaxlib.mlir.dialects import stablehlo

    d = stablehlo.GatherDimensionNumbers(op.attributes["dimension_numbers"])
    index_map, collapsed = _explicit_batching(_ints(d.operand_batching_dims), _ints(d.start_index_map),
                                              _ints(d.collapsed_slice_dims))
    sorted_ = _attr(op, "indices_are_sorted")
    return {"offset_dims": _ints(d.offset_dims), "collapsed_slice_dims": collapsed,
            "start_index_map": index_map, "index_vector_dim": int(d.index_vector_dim),
            "slice_sizes": _ints(op.attributes["slice_sizes"]),
            "indices_are_sorted": bool(sorted_.value) if sorted_ is not None else False}


def _scatter(op: Any) -> dict[str, Any]:
    from jaxlib.mlir.dialects import stablehlo

    if len(op.operands) != 3:
        raise Untranslatable(f"it scatters {(len(op.operands) - 1) // 2} tensors at once; hlir.ScatterND one")
    d = stablehlo.ScatterDimensionNumbers(op.attributes["scatter_dimension_numbers"])
    index_map, inserted = _explicit_batching(_ints(d.input_batching_dims), _ints(d.scattered_dims_to_operand_dims),
                                             _ints(d.inserted_window_dims))
    flags = {k: bool(_attr(op, k).value) if _attr(op, k) is not None else False
             for k in ("indices_are_sorted", "unique_indices")}
    return {"computation": computation_of(op), "update_window_dims": _ints(d.update_window_dims),
            "inserted_window_dims": inserted, "scatter_dims_to_operand_dims": index_map,
            "index_vector_dim": int(d.index_vector_dim), **flags}


def _sort(op: Any) -> dict[str, Any]:
    stable = _attr(op, "is_stable")
    dimension = _attr(op, "dimension")
    return {"dimension": int(dimension.value) if dimension is not None else _rank(op) - 1,
            "descending": sort_order(op), "is_stable": bool(stable.value) if stable is not None else False}


def _reduce(op: Any) -> dict[str, Any]:
    dimensions = _ints(op.attributes["dimensions"])
    if len(op.operands) == 4:  # (values, indices) with their initial values: jax's argmax/argmin
        from .stablehlo_argminmax import argminmax_of  # that module reads regions with this one's helpers

        return {"dimensions": dimensions, "computation": argminmax_of(op, dimensions)}
    return {"dimensions": dimensions, "computation": computation_of(op)}


def _top_k(op: Any) -> dict[str, Any]:
    largest = _attr(op, "largest")
    if largest is not None and not bool(largest.value):
        raise Untranslatable("largest = false; hlir.ChloTopK takes the largest elements")
    return {"k": int(op.attributes["k"].value)}


def _pad(op: Any) -> dict[str, Any]:
    return {"mode": "PAD_VALUE", "edge_padding_low": _ints(op.attributes["edge_padding_low"]),
            "edge_padding_high": _ints(op.attributes["edge_padding_high"]),
            "interior_padding": _ints(op.attributes["interior_padding"])}


def _slice(op: Any) -> dict[str, Any]:
    return {k: _ints(op.attributes[k]) for k in ("start_indices", "limit_indices", "strides")}


def _batch_norm(op: Any) -> dict[str, Any]:
    return {"epsilon": float(op.attributes["epsilon"].value),
            "feature_index": int(op.attributes["feature_index"].value)}


def _fft(op: Any) -> dict[str, Any]:
    from jaxlib.mlir.dialects import stablehlo

    return {"fft_type": str(stablehlo.FftTypeAttr(op.attributes["fft_type"]).value),
            "fft_length": _ints(op.attributes["fft_length"])}


def custom_call_name(op: Any) -> str:
    """How the specs' `stablehlo` field names a custom call: stablehlo.custom_call@TARGET."""
    from jaxlib.mlir import ir

    return f"{op.name}@{ir.StringAttr(op.attributes['call_target_name']).value}"


def _lapack(*flags: str) -> Callable[[Any], dict[str, Any]]:
    """The flags of a jax LAPACK call (lapack_?potrf_ffi, ...): characters in mhlo.backend_config, uplo = 76 : ui8
    for "L". Its matrices are the last two dimensions, num_batch_dims (a frontend attribute) those before."""
    from jaxlib.mlir import ir

    def read(op: Any) -> dict[str, Any]:
        batch = ir.DictAttr(op.attributes["mhlo.frontend_attributes"])["num_batch_dims"]
        if int(ir.StringAttr(batch).value) != _rank(op) - 2:
            raise Untranslatable(f"num_batch_dims {ir.StringAttr(batch).value} is not the rank less 2")
        config = ir.DictAttr(op.attributes["mhlo.backend_config"])
        return {flag: chr(ir.IntegerAttr(config[flag]).value) for flag in flags}
    return read


def _gesdd(op: Any) -> dict[str, Any]:
    """lapack_?gesdd_ffi's mode, as LapackGesdd's flags: A (full U and Vᵀ), S (economy ones) or N (none; the
    program still declares U and Vᵀ results, whose shapes say whether they are the full or the economy ones)."""
    from jaxlib.mlir import ir

    mode = _lapack("mode")(op)["mode"]
    if mode not in ("A", "S", "N"):
        raise Untranslatable(f"gesdd mode {mode!r} is not A, S or N")
    if mode != "N":
        return {"compute_uv": True, "full_matrices": mode == "A"}
    m, n = ir.RankedTensorType(op.operands[0].type).shape[-2:]
    u, vt = (ir.RankedTensorType(op.results[k].type).shape for k in (2, 3))
    return {"compute_uv": False, "full_matrices": u[-1] == m and vt[-2] == n}


def _int_attr(mlir: str, hlir: str) -> Callable[[Any], dict[str, Any]]:
    return lambda op: {hlir: int(op.attributes[mlir].value)}


def _ints_attr(mlir: str, hlir: str) -> Callable[[Any], dict[str, Any]]:
    return lambda op: {hlir: _ints(op.attributes[mlir])}


TRANSLATORS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "Compare": _compare, "DotGeneral": _dot_general, "StablehloComplexDotGeneral": _dot_general, "Conv": _convolution,
    "ReduceWindow": _reduce_window,
    "SelectAndScatter": _select_and_scatter, "Gather": _gather, "ScatterND": _scatter, "Sort": _sort,
    "StablehloReduce": _reduce, "ChloTopK": _top_k, "Pad": _pad, "Slice": _slice, "BatchNormInference": _batch_norm,
    "BatchNormTraining": _batch_norm, "BatchNormGrad": _batch_norm,
    "Iota": _int_attr("iota_dimension", "iota_dimension"), "Concatenate": _int_attr("dimension", "dimension"),
    "Transpose": _ints_attr("permutation", "permutation"), "Reverse": _ints_attr("dimensions", "dimensions"),
    "BroadcastInDim": _ints_attr("broadcast_dimensions", "broadcast_dimensions"),
    "Broadcast": _ints_attr("broadcast_sizes", "broadcast_sizes"),
    "DynamicSlice": _ints_attr("slice_sizes", "slice_sizes"),
    "Cholesky": lambda op: {"lower": bool(op.attributes["lower"].value) if "lower" in op.attributes else False},
    "LapackPotrf": _lapack("uplo"), "LapackTrsm": _lapack("side", "uplo", "trans_x", "diag"), "LapackGetrf": _lapack(),
    "LapackGeqrf": _lapack(), "LapackOrgqr": _lapack(), "LapackSyevd": _lapack("mode", "uplo"), "LapackGesdd": _gesdd,
    "LapackGeev": _lapack("compute_left", "compute_right"), "LapackGees": _lapack("mode", "sort"),
    "LapackGeesComplex": _lapack("mode", "sort"),
    "StablehloFft": _fft,
    "ReducePrecision": lambda op: {name: int(op.attributes[name].value) for name in ("exponent_bits", "mantissa_bits")},
}

# Attributes that change nothing an hlir op computes on a CPU reference (their loss is noted when they
# ask for more than the default).
DROPPED = ("precision_config", "algorithm", "result_accuracy")


def translate(hlir_op: str, op: Any) -> dict[str, Any]:
    """The hlir attributes of `op`; Untranslatable when the hlir op cannot state what op does."""
    translator = TRANSLATORS.get(hlir_op)
    try:
        return translator(op) if translator is not None else {}
    except (KeyError, ValueError, TypeError) as exc:  # an attribute missing or of another kind
        raise Untranslatable(f"its attributes cannot be read ({type(exc).__name__}: {exc})") from None


def dropped_note(op: Any) -> str | None:
    """A note when an attribute the hlir op has no place for asks for something (precision_config
    other than DEFAULT, an explicit dot algorithm)."""
    dropped = []
    for name in DROPPED:
        attr = _attr(op, name)
        if attr is None:
            continue
        text = str(attr)
        if name == "precision_config" and all(p in ("DEFAULT", "") for p in
                                                text.strip("[]").replace("#stablehlo<precision", "")
                                                .replace(">", "").replace(" ", "").split(",")):
            continue
        dropped.append(f"{name} = {text}")
    if not dropped:
        return None
    return f"dropped {'; '.join(dropped)} (hlir computes at the operands' own precision)"
