"""Constraints and output shapes of the control-flow, sequence and optional ops: If, Loop, Scan,
SequenceMap, ConcatFromSequence, SplitToSequence, SequenceAt, SequenceConstruct, SequenceEmpty,
SequenceErase, SequenceInsert, SequenceLength, Optional, OptionalGetElement, OptionalHasElement (every
version).

Every numbered constraint is broken by a small model that opgen must report at exactly that constraint,
and onnx's own machinery (strict shape inference with type checks, the full checker, onnxruntime creating
a session and running it) must refuse it too, except where a case says no reference checks it. The valid
base model of each op version passes opgen and every reference. The graph rules (runtime/graph_rules.py)
are also called through the validators directly, with plain values: hlir-style graph mappings and
Python callables (whose inputs and outputs cannot be known, so nothing is reported).
"""
from __future__ import annotations

import warnings

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import opgen_ops
from onnx_cases import onnx_shapes, rejection, where

F, I64, B, I32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL, TensorProto.INT32
ORT_MAX_OPSET = 25  # onnxruntime 1.31 knows opsets up to 25; the opset 28 versions are checked by onnx alone
X23 = np.zeros((2, 3), np.float32)


def ten(name, elem=F, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def seq(name, elem=F, shape=None):
    return helper.make_tensor_sequence_value_info(name, elem, shape)


def opt(name, elem=F, shape=None):
    return helper.make_value_info(name, helper.make_optional_type_proto(helper.make_tensor_type_proto(elem, shape)))


def model(nodes, inputs, outputs, opset, inits=()):
    graph = helper.make_graph(nodes if isinstance(nodes, list) else [nodes], "g", inputs, outputs,
                              initializer=[numpy_helper.from_array(np.asarray(v), n) for n, v in inits])
    opsets = [helper.make_opsetid("", opset)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=max(10, helper.find_min_ir_version_for(opsets)))


def refused(m, feeds):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rejection(m, feeds, ort_max_opset=ORT_MAX_OPSET)


def assert_valid(m, feeds):
    assert where(m) == []
    assert refused(m, feeds) is None
    onnx.checker.check_model(m, full_check=True)


def assert_caught(m, feeds, at, ref=True):
    assert where(m) == [at]
    if ref:
        assert refused(m, feeds) is not None


# ---- sequence ops ---------------------------------------------------------------------------------

SEQ = {"s": [X23, X23]}


def cfs(axis, new_axis=0, out_elem=F, out_shape=None):
    node = helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=axis, new_axis=new_axis)
    return model(node, [seq("s", F, [2, 3])], [ten("y", out_elem, out_shape)], 11)


def sts(opset, split=None, out_elem=F, **attrs):
    ins = ["x"] + (["sp"] if split is not None else [])
    node = helper.make_node("SplitToSequence", ins, ["y"], **attrs)
    return model(node, [ten("x", F, [2, 3])], [seq("y", out_elem, None)], opset,
                 inits=[("sp", split)] if split is not None else [])


def test_concat_from_sequence():
    assert_valid(cfs(1, out_shape=[2, 6]), SEQ)
    assert_valid(cfs(-3, new_axis=1, out_shape=[2, 2, 3]), SEQ)
    assert_valid(cfs(2, new_axis=1, out_shape=[2, 3, 2]), SEQ)
    assert_caught(cfs(0, new_axis=2), SEQ, "constraint C1")
    assert_caught(cfs(2), SEQ, "constraint C2")
    assert_caught(cfs(-3), SEQ, "constraint C2")
    assert_caught(cfs(3, new_axis=1), SEQ, "constraint C3")
    assert_caught(cfs(-4, new_axis=1), SEQ, "constraint C3")
    assert_caught(cfs(0, out_elem=I64), SEQ, "constraint C4")


@pytest.mark.parametrize("opset", [11, 24])
def test_split_to_sequence(opset):
    feeds = {"x": X23}
    for valid in (sts(opset), sts(opset, axis=-1, keepdims=0), sts(opset, np.array([1, 2]), axis=1),
                  sts(opset, np.array(2), axis=1)):
        assert_valid(valid, feeds)
    assert_caught(sts(opset, axis=2), feeds, "constraint C1")
    assert_caught(sts(opset, axis=-3), feeds, "constraint C1")
    # A 2-D split: the documentation asks for a scalar or a 1-D tensor; onnx and onnxruntime take it flat.
    assert_caught(sts(opset, np.array([[1, 1]])), feeds, "constraint C2", ref=False)
    # A scalar split of 0 crashes onnxruntime (a division by zero): strict shape inference refuses it first.
    assert_caught(sts(opset, np.array(0)), feeds, "constraint C3")
    assert_caught(sts(opset, np.array(-1)), feeds, "constraint C3")
    assert_caught(sts(opset, np.array([-1, 3])), feeds, "constraint C4")  # onnxruntime refuses it at run
    assert_caught(sts(opset, np.array([1, 2])), feeds, "constraint C5")
    assert_caught(sts(opset, out_elem=I64), feeds, "constraint C6")


def seq_at(out_elem=F, out_shape=None, shape=(2, 3)):
    node = helper.make_node("SequenceAt", ["s", "p"], ["y"])
    return model(node, [seq("s", F, list(shape) if shape else None)], [ten("y", out_elem, out_shape)], 11,
                 inits=[("p", np.array(-1))])


def test_sequence_at_and_its_shape():
    assert_valid(seq_at(out_shape=[2, 3]), SEQ)
    assert onnx_shapes(seq_at())["y"] == [2, 3]  # the reference shape: the sequence's tensors' shape
    assert_caught(seq_at(out_shape=[2, 4]), SEQ, "output 'tensor'")
    assert_caught(seq_at(out_shape=[2, 3, 1]), SEQ, "output 'tensor'")
    assert_caught(seq_at(out_elem=I64), SEQ, "constraint C1")
    # A sequence type that states no tensor shape: the output shape is unknown, nothing is reported.
    assert where(seq_at(out_shape=[7], shape=None)) == []


def test_sequence_construct_erase_insert():
    a, b = np.zeros(2, np.float32), np.zeros(2, np.int64)
    ok = model(helper.make_node("SequenceConstruct", ["a", "a2"], ["y"]), [ten("a", F, [2]), ten("a2", F, [2])],
               [seq("y", F, [2])], 11)
    assert_valid(ok, {"a": a, "a2": a})
    bad = model(helper.make_node("SequenceConstruct", ["a"], ["y"]), [ten("a", F, [2])], [seq("y", I64, None)], 11)
    assert_caught(bad, {"a": a}, "constraint C1")
    mixed = model(helper.make_node("SequenceConstruct", ["a", "b"], ["y"]), [ten("a", F, [2]), ten("b", I64, [2])],
                  [seq("y", F, None)], 11)
    assert where(mixed) == ["input 'inputs'[1]"]  # the type variable T (not a numbered constraint)
    assert refused(mixed, {"a": a, "b": b}) is not None

    erase = model(helper.make_node("SequenceErase", ["s", "p"], ["y"]), [seq("s", F, [2, 3])],
                  [seq("y", F, [2, 3])], 11, inits=[("p", np.array(0))])
    assert_valid(erase, SEQ)
    erase_bad = model(helper.make_node("SequenceErase", ["s"], ["y"]), [seq("s", F, [2, 3])], [seq("y", I64, None)],
                      11)
    assert_caught(erase_bad, SEQ, "output 'output_sequence'")  # the type variable S binds both sequences

    def insert(t_elem=F, out_elem=F, pos=True):
        node = helper.make_node("SequenceInsert", ["s", "t"] + (["p"] if pos else []), ["y"])
        return model(node, [seq("s", F, [2, 3]), ten("t", t_elem, [2, 3])], [seq("y", out_elem, [2, 3])], 11,
                     inits=[("p", np.array(1))] if pos else [])
    assert_valid(insert(), {**SEQ, "t": X23})
    assert_caught(insert(t_elem=I64), {**SEQ, "t": np.zeros((2, 3), np.int64)}, "constraint C1")
    assert_caught(insert(out_elem=I64, pos=False), {**SEQ, "t": X23}, "output 'output_sequence'")  # type variable S


def empty(dtype=None, out_elem=F):
    node = helper.make_node("SequenceEmpty", [], ["y"], **({} if dtype is None else {"dtype": dtype}))
    return model(node, [], [seq("y", out_elem, None)], 11)


def test_sequence_empty_and_length():
    assert_valid(empty(), {})
    assert_valid(empty(TensorProto.STRING, TensorProto.STRING), {})
    for code in (0, 99):  # not an element type at all
        assert_caught(empty(code), {}, "constraint C1")
    bf16 = empty(TensorProto.BFLOAT16, TensorProto.BFLOAT16)  # an element type a sequence here may not hold
    assert set(where(bf16)) == {"constraint C1", "output 'output'"}  # the attribute and the output's dtype
    assert refused(bf16, {}) is not None
    assert_caught(empty(TensorProto.INT64, F), {}, "constraint C2")
    assert_caught(empty(None, I64), {}, "constraint C2")

    def length(shape):
        return model(helper.make_node("SequenceLength", ["s"], ["n"]), [seq("s", F, [2, 3])], [ten("n", I64, shape)],
                     11)
    assert onnx_shapes(length(None))["n"] == []
    assert_valid(length([]), SEQ)
    assert_caught(length([1]), SEQ, "output 'length'")


def test_sequence_map_body_arity():
    def smap(extra_in=0, extra_out=0):
        ins = [ten("e", F, [2, 3])] + [ten(f"a{k}", F, [2, 3]) for k in range(1 + extra_in)]
        nodes = [helper.make_node("Add", ["e", "a0"], ["o0"])] + \
            [helper.make_node("Identity", ["e"], [f"o{k}"]) for k in range(1, 1 + extra_out)]
        body = helper.make_graph(nodes, "body", ins, [ten(f"o{k}", F, [2, 3]) for k in range(1 + extra_out)])
        node = helper.make_node("SequenceMap", ["s", "x"], ["y"], body=body)
        return model(node, [seq("s", F, [2, 3]), ten("x", F, [2, 3])], [seq("y", F, [2, 3])], 17)
    feeds = {**SEQ, "x": X23}
    assert_valid(smap(), feeds)
    assert_caught(smap(extra_in=1), feeds, "constraint C1")
    assert_caught(smap(extra_out=1), feeds, "constraint C2")


# ---- optionals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("opset", [15, 28])
def test_optional(opset):
    def optional(inputs, out, **attrs):
        node = helper.make_node("Optional", inputs, ["y"], **attrs)
        return model(node, [ten("x", F, [2, 3])] if inputs else [], [out], opset)
    feeds = {"x": X23}
    assert_valid(optional(["x"], opt("y", F, [2, 3])), feeds)
    assert_valid(optional([], opt("y", I64, None), type=helper.make_tensor_type_proto(I64, None)), {})
    seq_type = helper.make_sequence_type_proto(helper.make_tensor_type_proto(F, None))
    assert_valid(optional([], helper.make_value_info("y", helper.make_optional_type_proto(seq_type)), type=seq_type),
                 {})
    assert_caught(optional([], opt("y", F, None)), {}, "constraint C1")
    assert_caught(optional([], opt("y", F, None), type=helper.make_tensor_type_proto(I64, None)), {},
                  "constraint C2")
    assert_caught(optional(["x"], opt("y", I64, None)), feeds, "constraint C3")


@pytest.mark.parametrize("opset", [15, 18, 28])
def test_optional_get_and_has_element(opset):
    feeds = {"o": X23}

    def get(out_elem=F, out_shape=None):
        return model(helper.make_node("OptionalGetElement", ["o"], ["y"]), [opt("o", F, [2, 3])],
                     [ten("y", out_elem, out_shape)], opset)
    assert onnx_shapes(get())["y"] == [2, 3]
    assert_valid(get(out_shape=[2, 3]), feeds)
    assert_caught(get(out_shape=[2, 4]), feeds, "output 'output'")
    assert_caught(get(out_elem=I64), feeds, "constraint C1")
    if opset >= 18:  # a plain tensor is accepted too, and passed through
        plain = model(helper.make_node("OptionalGetElement", ["o"], ["y"]), [ten("o", F, [2, 3])],
                      [ten("y", F, [2, 3])], opset)
        assert_valid(plain, feeds)

    def has(shape):
        return model(helper.make_node("OptionalHasElement", ["o"], ["b"]), [opt("o", F, [2, 3])],
                     [ten("b", B, shape)], opset)
    assert onnx_shapes(has(None))["b"] == []
    assert_valid(has([]), feeds)
    assert_caught(has([1]), feeds, "output 'output'")


# ---- If -------------------------------------------------------------------------------------------

IF_VERSIONS = [1, 11, 13, 16, 19, 21, 23, 24, 25]
D = TensorProto.DOUBLE  # another element type Constant-1 (in the branches of If-1) allows
NPE = {F: np.float32, D: np.float64}


def branch(n_outputs, elem=F, n_inputs=0):
    nodes = [helper.make_node("Constant", [], [f"c{k}"], value=numpy_helper.from_array(np.zeros(2, NPE[elem])))
             for k in range(n_outputs)]
    return helper.make_graph(nodes, "b", [ten(f"i{k}", F, [2]) for k in range(n_inputs)],
                             [ten(f"c{k}", elem, [2]) for k in range(n_outputs)])


def if_model(opset, then=1, other=1, node=1, then_elem=F, else_elem=F, out_elem=F, then_inputs=0):
    n = helper.make_node("If", ["c"], [f"y{k}" for k in range(node)], then_branch=branch(then, then_elem, then_inputs),
                         else_branch=branch(other, else_elem))
    return model(n, [ten("c", B, [])], [ten(f"y{k}", out_elem, [2]) for k in range(node)], opset)


@pytest.mark.parametrize("opset", IF_VERSIONS)
def test_if(opset):
    feeds = {"c": np.array(True)}
    assert_valid(if_model(opset), feeds)
    assert_valid(if_model(opset, 2, 2, 2), feeds)
    assert_caught(if_model(opset, then_inputs=1), feeds, "constraint C1")
    assert_caught(if_model(opset, then=2, other=2, node=1), feeds, "constraint C3")
    assert_caught(if_model(opset, then=2, other=1, node=1), feeds, "constraint C3")
    assert_caught(if_model(opset, then=1, other=2, node=1), feeds, "constraint C3")
    assert_caught(if_model(opset, else_elem=D), feeds, "constraint C4")
    assert_caught(if_model(opset, then_elem=D, else_elem=D), feeds, "constraint C5")


def test_if_else_branch_inputs():
    then, other = branch(1), branch(1, n_inputs=1)
    n = helper.make_node("If", ["c"], ["y0"], then_branch=then, else_branch=other)
    assert_caught(model(n, [ten("c", B, [])], [ten("y0", F, [2])], 16), {"c": np.array(False)}, "constraint C2")


# ---- Loop -----------------------------------------------------------------------------------------

LOOP_VERSIONS = [1, 11, 13, 16, 19, 21, 23, 24, 25]


def loop_body(n_in, n_state_out, n_scan):
    ins = [ten("i", I64, []), ten("c", B, [])] + [ten(f"v{k}", F, [2]) for k in range(n_in)]
    nodes = [helper.make_node("Identity", ["c"], ["co"])]
    nodes += [helper.make_node("Identity", [f"v{min(k, n_in - 1)}"], [f"vo{k}"]) for k in range(n_state_out)]
    nodes += [helper.make_node("Identity", ["v0"], [f"so{k}"]) for k in range(n_scan)]
    outs = [ten("co", B, [])] + [ten(f"vo{k}", F, [2]) for k in range(n_state_out)] + \
        [ten(f"so{k}", F, [2]) for k in range(n_scan)]
    return helper.make_graph(nodes, "body", ins, outs)


def loop_model(opset, n_v, body, n_out):
    n = helper.make_node("Loop", ["M", "", *[f"x{k}" for k in range(n_v)]], [f"y{k}" for k in range(n_out)],
                         body=body)
    outs = [ten(f"y{k}", F, [2] if k < n_v else [3, 2]) for k in range(n_out)]
    return model(n, [ten("M", I64, [])] + [ten(f"x{k}", F, [2]) for k in range(n_v)], outs, opset)


@pytest.mark.parametrize("opset", LOOP_VERSIONS)
def test_loop(opset):
    feeds1 = {"M": np.array(3), "x0": np.zeros(2, np.float32)}
    feeds2 = {**feeds1, "x1": np.zeros(2, np.float32)}
    assert_valid(loop_model(opset, 1, loop_body(1, 1, 1), 2), feeds1)
    # two loop-carried values, a body giving 1 + 1 outputs and a node with 1: fewer outputs than values
    assert_caught(loop_model(opset, 2, loop_body(2, 1, 0), 1), feeds2, "constraint C1")
    assert_caught(loop_model(opset, 1, loop_body(2, 1, 1), 2), feeds1, "constraint C2")
    assert_caught(loop_model(opset, 1, loop_body(1, 1, 2), 2), feeds1, "constraint C3")
    assert_caught(loop_model(opset, 1, loop_body(1, 1, 1), 3), feeds1, "constraint C3")


# ---- Scan -----------------------------------------------------------------------------------------

SCAN_VERSIONS = [9, 11, 16, 19, 21, 23, 24, 25]


def scan_body(n_state=1, n_scan_in=1, n_scan_out=1, extra_in=0, out_rank=1):
    ins = [ten(f"s{k}", F, [2]) for k in range(n_state)] + [ten(f"x{k}", F, [2]) for k in range(n_scan_in + extra_in)]
    nodes = [helper.make_node("Add", [f"s{k}", "x0"], [f"so{k}"]) for k in range(n_state)]
    nodes += [helper.make_node("Identity", ["x0"], [f"yo{k}"]) for k in range(n_scan_out)]
    outs = [ten(f"so{k}", F, [2]) for k in range(n_state)] + \
        [ten(f"yo{k}", F, [2] if out_rank == 1 else None) for k in range(n_scan_out)]
    return helper.make_graph(nodes, "body", ins, outs)


def scan_model(opset, attrs, n_state=1, n_scan_in=1, n_out=2, body=None):
    body = body or scan_body(n_state, n_scan_in, n_out - n_state)
    n = helper.make_node("Scan", [f"S{k}" for k in range(n_state)] + [f"X{k}" for k in range(n_scan_in)],
                         [f"Y{k}" for k in range(n_out)], body=body, **attrs)
    return model(n, [ten(f"S{k}", F, [2]) for k in range(n_state)] + [ten(f"X{k}", F, [3, 2]) for k in range(n_scan_in)],
                 [ten(f"Y{k}", F, None) for k in range(n_out)], opset)


def scan_feeds(n_state=1, n_scan_in=1):
    return {**{f"S{k}": np.zeros(2, np.float32) for k in range(n_state)},
            **{f"X{k}": np.zeros((3, 2), np.float32) for k in range(n_scan_in)}}


@pytest.mark.parametrize("opset", SCAN_VERSIONS)
def test_scan(opset):
    feeds, one = scan_feeds(), {"num_scan_inputs": 1}
    m = scan_model(opset, {**one, "scan_input_axes": [-2], "scan_output_axes": [1],
                           "scan_input_directions": [1], "scan_output_directions": [1]})
    assert where(m) == [] and refused(m, feeds) is None
    # num_scan_inputs 0: both inputs are states, and the body has nothing to scan
    zero = scan_model(opset, {"num_scan_inputs": 0}, n_state=2, n_scan_in=0, n_out=2,
                      body=helper.make_graph([helper.make_node("Identity", ["s0"], ["o0"]),
                                              helper.make_node("Identity", ["s1"], ["o1"])], "body",
                                             [ten("s0", F, [2]), ten("s1", F, [2])],
                                             [ten("o0", F, [2]), ten("o1", F, [2])]))
    assert_caught(zero, scan_feeds(2, 0), "constraint C1")
    assert_caught(scan_model(opset, {"num_scan_inputs": 3}), feeds, "constraint C2")
    # two states but one node output (and a body giving that one output): fewer outputs than states
    short = helper.make_graph([helper.make_node("Add", ["s0", "x0"], ["o0"])], "body",
                              [ten("s0", F, [2]), ten("s1", F, [2]), ten("x0", F, [2])], [ten("o0", F, [2])])
    assert_caught(scan_model(opset, one, n_state=2, n_out=1, body=short), scan_feeds(2), "constraint C3")
    assert_caught(scan_model(opset, {**one, "scan_input_axes": [0, 0]}), feeds, "constraint C4")
    assert_caught(scan_model(opset, {**one, "scan_input_directions": [0, 0]}), feeds, "constraint C5")
    assert_caught(scan_model(opset, {**one, "scan_output_axes": [0, 0]}), feeds, "constraint C6")
    assert_caught(scan_model(opset, {**one, "scan_output_directions": [0, 0]}), feeds, "constraint C7")
    assert_caught(scan_model(opset, {**one, "scan_input_directions": [2]}), feeds, "constraint C8")
    assert_caught(scan_model(opset, {**one, "scan_output_directions": [-1]}), feeds, "constraint C9")
    assert_caught(scan_model(opset, {**one, "scan_input_axes": [2]}), feeds, "constraint C10")
    assert_caught(scan_model(opset, {**one, "scan_input_axes": [-3]}), feeds, "constraint C10")
    assert_caught(scan_model(opset, {**one, "scan_output_axes": [2]}), feeds, "constraint C11")
    assert_caught(scan_model(opset, {**one, "scan_output_axes": [-3]}), feeds, "constraint C11")
    assert_caught(scan_model(opset, one, body=scan_body(extra_in=1)), feeds, "constraint C12")
    assert_caught(scan_model(opset, one, body=scan_body(1, 1, 2)), feeds, "constraint C13")


def scan8_model(attrs, body=None, n_out=2):
    body = body or scan_body(1, 1, n_out - 1)
    n = helper.make_node("Scan", ["", "S0", "X0"], [f"Y{k}" for k in range(n_out)], body=body, **attrs)
    return model(n, [ten("S0", F, [1, 2]), ten("X0", F, [1, 3, 2])], [ten(f"Y{k}", F, None) for k in range(n_out)], 8)


def test_scan_8():
    feeds, one = {"S0": np.zeros((1, 2), np.float32), "X0": np.zeros((1, 3, 2), np.float32)}, {"num_scan_inputs": 1}
    m = scan8_model({**one, "directions": [1]})
    assert where(m) == [] and refused(m, feeds) is None
    assert_caught(scan8_model({"num_scan_inputs": 3}), feeds, "constraint C2")
    assert_caught(scan8_model({**one, "directions": [0, 0]}), feeds, "constraint C4")
    assert_caught(scan8_model({**one, "directions": [2]}), feeds, "constraint C5")
    assert_caught(scan8_model(one, body=scan_body(extra_in=1)), feeds, "constraint C6")
    assert_caught(scan8_model(one, body=scan_body(1, 1, 2)), feeds, "constraint C7")


# ---- the graph rules called directly, with plain values -----------------------------------------------

def hlir_graph(n_in, n_out, dtype="float"):
    return {"inputs": [{"name": f"i{k}", "dtype": dtype, "shape": [2]} for k in range(n_in)],
            "outputs": [{"name": f"o{k}", "dtype": dtype, "shape": [2]} for k in range(n_out)], "nodes": []}


def test_graph_rules_take_plain_values():
    validate = opgen_ops.get_validator("onnx", "If", 16)
    cond, out = ("bool", ()), ("float", (2,))
    ok = {"then_branch": hlir_graph(0, 1), "else_branch": hlir_graph(0, 1)}
    assert validate([cond], ok, [out]) == []
    bad = {"then_branch": hlir_graph(0, 2), "else_branch": hlir_graph(0, 1)}
    assert [p.where for p in validate([cond], bad, [out])] == ["constraint C3"]
    mixed = {"then_branch": hlir_graph(0, 1), "else_branch": hlir_graph(0, 1, "int64")}
    assert [p.where for p in validate([cond], mixed, [out])] == ["constraint C4"]
    # A callable's inputs and outputs are unknown: no graph rule can tell anything
    fns = {"then_branch": lambda: (np.zeros(2),), "else_branch": lambda: (np.zeros(2), np.zeros(2))}
    assert validate([cond], fns, [out]) == []
    assert validate([cond], fns) == []  # no outputs given (a kernel call)

    loop = opgen_ops.get_validator("onnx", "Loop", 16)
    m, x = ("int64", ()), ("float", (2,))
    assert loop([m, None, x], {"body": hlir_graph(3, 2)}, [x]) == []
    assert [p.where for p in loop([m, None, x], {"body": hlir_graph(2, 2)}, [x])] == ["constraint C2"]

    scan = opgen_ops.get_validator("onnx", "Scan", 16)
    s, xs = ("float", (2,)), ("float", (3, 2))
    attrs = {"num_scan_inputs": 1, "body": hlir_graph(2, 2), "scan_output_axes": [1]}
    assert scan([s, xs], attrs, [s, xs]) == []
    assert [p.where for p in scan([s, xs], {**attrs, "scan_output_axes": [2]}, [s, xs])] == ["constraint C11"]
    assert scan([s, xs], {**attrs, "body": lambda s, x: (s, x), "scan_output_axes": [5]}, [s, xs]) == []

    at = opgen_ops.get_validator("onnx", "SequenceAt", 11)
    seq23 = ("seq(tensor(float))", (2, 3))  # a sequence's shape: the shape of its tensors
    assert at([seq23, ("int64", ())], {}, [("float", (2, 3))]) == []
    assert [p.where for p in at([seq23, ("int64", ())], {}, [("float", (3, 2))])] == ["output 'tensor'"]
