"""ONNX If, Loop, Scan, the sequence ops, the optional ops, Identity and Constant (kernels
control_flow.onnx_if/onnx_loop/onnx_scan/onnx_scan_v8, sequence.*, optional.*, onnx_value.*) against
onnx.reference (ReferenceEvaluator) and onnxruntime, every version.

The ops with graph attributes run whole small models through `opgen.run_model` (the graph runner gives
their bodies as GraphFunctions); the others are called as kernels. References compare exactly: these
ops move values, and the few additions in the bodies round the same way everywhere.

Known reference gaps and differences (checked where they matter):
- onnx.reference's Loop stacks scan outputs with np.vstack, so scalar slices give shape [N, 1] where
  ONNX (and onnxruntime, and Range's own function body) concatenate them to [N]; and with cond absent
  it runs no iteration (`while cond` on None). Scalar scans and absent conds are compared with
  onnxruntime only.
- onnx.reference's Scan knows only axis 0 and forward directions; the rest is compared with onnxruntime.
- onnxruntime reads opsets up to 26: the versions 28 run against onnx.reference only.

Every kernel is called as the generated package serves it (opgen_ops.get_kernel), sequence and
optional ops included.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import TensorProto as TP
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen
import opgen_ops
from opgen.runtime.kernels import control_flow, optional, sequence
from opgen.runtime.values import OptionalValue, SequenceValue

ORT_MAX_OPSET = 26
RNG = np.random.default_rng(7)


# ---- helpers -------------------------------------------------------------------------------------

def versions(op: str) -> list[int]:
    return list(opgen_ops.OPS[("onnx", op)][1])


def call(op: str, version: int, *inputs, **attrs):
    """The op's generated kernel, called with these inputs and attributes."""
    return opgen_ops.get_kernel("onnx", op, version)(*inputs, **attrs)


def tensor(elem: int, shape=None):
    return helper.make_tensor_type_proto(elem, shape)


def seq(elem: int):
    return helper.make_sequence_type_proto(tensor(elem))


def opt(inner):
    return helper.make_optional_type_proto(inner)


def graph(nodes, inputs, outputs, name="g"):
    return helper.make_graph(nodes, name, [helper.make_value_info(n, t) for n, t in inputs],
                             [helper.make_value_info(n, t) for n, t in outputs])


def model(nodes, inputs, outputs, opset: int) -> onnx.ModelProto:
    return helper.make_model(graph(nodes, inputs, outputs), opset_imports=[helper.make_opsetid("", opset)],
                             ir_version=10)


def plain(x):
    if isinstance(x, OptionalValue):
        return plain(x.value)
    if isinstance(x, SequenceValue):
        return [plain(a) for a in x]
    return x


def assert_same(got, want, where: str) -> None:
    got = plain(got)
    if want is None:
        assert got is None, f"{where}: got {type(got).__name__}, expected no value"
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: {got!r} vs {want!r}"
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{where}[{k}]")
        return
    got, want = np.asarray(got), np.asarray(want)
    if want.dtype.kind == "U":  # onnx.reference gives some strings as NumPy str arrays, ONNX's are objects
        want = want.astype(object)
    assert got.dtype == want.dtype and got.shape == want.shape, \
        f"{where}: {got.dtype} {got.shape} vs {want.dtype} {want.shape}"
    if got.dtype.kind == "f" and got.dtype.itemsize in (2, 4, 8):  # bit for bit: NaN payloads, -0.0
        assert got.tobytes() == want.tobytes(), f"{where}: {got} vs {want}"
    else:
        np.testing.assert_array_equal(got, want, err_msg=where)


def references(m: onnx.ModelProto, feeds: dict, *, ref: bool = True, ort: bool = True) -> dict:
    opset = m.opset_import[0].version
    runs = {}
    if ref:
        runs["onnx.reference"] = ReferenceEvaluator(m).run(None, feeds)
    if ort and opset <= ORT_MAX_OPSET:
        runs["onnxruntime"] = ort_session(m).run(None, feeds)
    assert runs, "no reference ran"
    return runs


def check_model(m: onnx.ModelProto, feeds: dict, label: str, **which) -> list:
    """Run the model through opgen.run_model and the references; every output must agree."""
    got = opgen.run_model(m, feeds)
    ours = [got[o.name] for o in m.graph.output]
    for name, want in references(m, feeds, **which).items():
        assert len(want) == len(ours)
        for k, (g, w) in enumerate(zip(ours, want)):
            assert_same(g, w, f"{label} output {k} vs {name}")
    return ours


def ours_value(x, type_proto):
    """An input as opgen's kernels take it: a list for a sequence type becomes a SequenceValue."""
    if isinstance(x, list):
        elem = helper.tensor_dtype_to_np_dtype(type_proto.sequence_type.elem_type.tensor_type.elem_type)
        return SequenceValue(x, f"tensor({opgen.dtypes.elem_of_numpy(np.dtype(elem))})")
    return x


def check_node(op: str, version: int, inputs: list, input_types: list, output_types: list, attrs: dict,
               label: str, kernel_only: dict | None = None, **which) -> None:
    """One node as a kernel call (attrs, plus kernel_only keywords such as <output>_dtype), against the
    same node as a model in the references."""
    names = [f"i{k}" if x is not None else "" for k, x in enumerate(inputs)]
    while names and names[-1] == "":
        names.pop()
    node = helper.make_node(op, names, [f"o{k}" for k in range(len(output_types))], **attrs)
    m = model([node], [(n, t) for n, t in zip(names, input_types) if n], [(f"o{k}", t) for k, t in
                                                                          enumerate(output_types)], version)
    feeds = {n: plain(x) for n, x in zip(names, inputs) if n}
    ours = call(op, version, *[ours_value(x, t) for x, t in zip(inputs, input_types)], **attrs, **(kernel_only or {}))
    for name, want in references(m, feeds, **which).items():
        for k, (g, w) in enumerate(zip(ours, want)):
            assert_same(g, w, f"{label} output {k} vs {name}")


def floats(*shape) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# ---- If ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("version", versions("If"))
def test_if_tensors_and_outer_values(version):
    # the branches read x and y of the enclosing graph; cond of shape [] and [1]; in version 1 both
    # branches give one shape, later they may differ (the node's output shape is left unknown)
    # (onnxruntime has no Neg or Abs kernel at opset 1: Identity there)
    then_g = graph([helper.make_node("Identity" if version == 1 else "Neg", ["x"], ["t"])], [],
                   [("t", tensor(TP.FLOAT))], "then")
    else_g = graph([helper.make_node("Identity" if version == 1 else "Abs", ["y"], ["e"])], [],
                   [("e", tensor(TP.FLOAT))], "else")
    node = helper.make_node("If", ["c"], ["out"], then_branch=then_g, else_branch=else_g)
    y_size = 3 if version == 1 else 2
    for shape in ([], [1]):
        m = model([node], [("c", tensor(TP.BOOL, shape)), ("x", tensor(TP.FLOAT, [3])),
                           ("y", tensor(TP.FLOAT, [y_size]))], [("out", tensor(TP.FLOAT))], version)
        for flag in (True, False):
            check_model(m, {"c": np.array(flag).reshape(shape), "x": floats(3), "y": floats(y_size)},
                        f"If@{version} {flag} {shape}")


@pytest.mark.parametrize("version", [v for v in versions("If") if v >= 13])
def test_if_sequences_and_optionals(version):
    seq_then = graph([helper.make_node("SequenceInsert", ["s", "x"], ["st"])], [], [("st", seq(TP.FLOAT))], "then")
    seq_else = graph([helper.make_node("SequenceErase", ["s"], ["se"])], [], [("se", seq(TP.FLOAT))], "else")
    nodes = [helper.make_node("If", ["c"], ["out"], then_branch=seq_then, else_branch=seq_else)]
    inputs = [("c", tensor(TP.BOOL, [])), ("s", seq(TP.FLOAT)), ("x", tensor(TP.FLOAT, [2]))]
    outputs = [("out", seq(TP.FLOAT))]
    if version >= 16:  # an optional output, present in one branch and empty in the other
        opt_then = graph([helper.make_node("Identity", ["p"], ["pt"])], [], [("pt", opt(tensor(TP.FLOAT)))], "t2")
        opt_else = graph([helper.make_node("Identity", ["q"], ["qe"])], [], [("qe", opt(tensor(TP.FLOAT)))], "e2")
        nodes.append(helper.make_node("If", ["c"], ["o2"], then_branch=opt_then, else_branch=opt_else))
        inputs += [("p", opt(tensor(TP.FLOAT))), ("q", opt(tensor(TP.FLOAT)))]
        outputs.append(("o2", opt(tensor(TP.FLOAT))))
    m = model(nodes, inputs, outputs, version)
    for flag in (True, False):
        feeds = {"c": np.array(flag), "s": [floats(2), floats(2)], "x": floats(2)}
        if version >= 16:
            feeds.update(p=floats(4), q=None)
        # onnx.reference's Identity refuses an empty optional (its result check rejects None)
        check_model(m, feeds, f"If@{version} {flag}", ref=flag or version < 16)


def test_if_direct_call_and_types():
    kernel = opgen_ops.get_kernel("onnx", "If", 25)
    bf = np.array([1.5, -0.0], dtype=ml_dtypes.bfloat16)
    (out,) = kernel(np.array([True]), then_branch=lambda: (bf,), else_branch=lambda: (bf[:1],))
    assert out.dtype == bf.dtype and out.tobytes() == bf.tobytes() and out is not bf
    (out,) = kernel(np.array(False), then_branch=lambda: (bf,), else_branch=lambda: (bf[:1],))
    assert out.shape == (1,)
    with pytest.raises(ValueError, match="one element"):
        control_flow.onnx_if(np.array([True, False]), then_branch=lambda: (bf,), else_branch=lambda: (bf,))


# ---- Loop ----------------------------------------------------------------------------------------

def scalar_cond_loop(version: int, m_name: str, cond_name: str) -> onnx.ModelProto:
    """A Loop adding x to a [1] accumulator while the iteration number is below stop, with a [1] scan
    output (the accumulator before each step) and a scalar one (the iteration number). Version 1 keeps
    the accumulator and the condition (opset 1 has no Add or Less kernel)."""
    body_nodes = [helper.make_node("Add", ["acc", "x"], ["acc_out"]),
                  helper.make_node("Identity", ["acc"], ["scan"]),
                  helper.make_node("Identity", ["i"], ["i_out"]),
                  helper.make_node("Less", ["i", "stop"], ["cond_out"])]
    if version == 1:  # no Add or Less kernel at opset 1 (here), no Neg in onnxruntime
        body_nodes = [helper.make_node("Identity", ["acc"], ["acc_out"]), body_nodes[1], body_nodes[2],
                      helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    body = graph(body_nodes, [("i", tensor(TP.INT64, [])), ("cond_in", tensor(TP.BOOL, [])),
                              ("acc", tensor(TP.FLOAT, [1]))],
                 [("cond_out", tensor(TP.BOOL, [])), ("acc_out", tensor(TP.FLOAT, [1])),
                  ("scan", tensor(TP.FLOAT, [1])), ("i_out", tensor(TP.INT64, []))], "body")
    node = helper.make_node("Loop", [m_name, cond_name, "acc0"], ["acc_final", "scans", "iters"], body=body)
    inputs = [("acc0", tensor(TP.FLOAT, [1])), ("x", tensor(TP.FLOAT, [1])), ("stop", tensor(TP.INT64, []))]
    inputs += [(m_name, tensor(TP.INT64, []))] if m_name else []
    inputs += [(cond_name, tensor(TP.BOOL, []))] if cond_name else []
    return model([node], inputs, [("acc_final", tensor(TP.FLOAT)), ("scans", tensor(TP.FLOAT)),
                                  ("iters", tensor(TP.INT64))], version)


@pytest.mark.parametrize("version", versions("Loop"))
def test_loop_trip_count_and_condition(version):
    # the scalar scan output (iteration numbers) is stacked to [N]: onnxruntime agrees, onnx.reference
    # gives [N, 1] (np.vstack) and is compared on the [1] outputs only; with cond absent onnx.reference
    # runs no iteration at all, so those modes are compared with onnxruntime alone
    base = {"acc0": np.array([0.5], np.float32), "x": np.array([1.25], np.float32)}
    for m_name, cond_name, trips, cond, stop in [("M", "cond", 5, True, 3), ("M", "cond", 5, True, 9),
                                                 ("M", "cond", 0, True, 9), ("M", "cond", 4, False, 9),
                                                 ("M", "", 4, None, 9), ("", "cond", None, True, 2)]:
        m = scalar_cond_loop(version, m_name, cond_name)
        feeds = dict(base, stop=np.array(stop, np.int64))
        if m_name:
            feeds["M"] = np.array(trips, np.int64)
        if cond_name:
            feeds["cond"] = np.array(cond)
        label = f"Loop@{version} M={trips} cond={cond} stop={stop}"
        if version == 1 and not m_name:
            continue  # version 1's body keeps its condition: without M it would never stop
        if version > ORT_MAX_OPSET:
            continue
        check_model(m, feeds, label, ref=False)
        if cond_name and m_name and trips and cond:  # (onnx.reference's vstack fails on no iteration)
            got = opgen.run_model(m, feeds)
            want = ReferenceEvaluator(m).run(None, feeds)
            assert_same(got["acc_final"], want[0], label)
            assert_same(got["scans"], want[1], label)
            assert want[2].shape == (got["iters"].shape[0], 1)  # onnx.reference's vstack of scalars


@pytest.mark.parametrize("version", [v for v in versions("Loop") if v >= 11])
def test_loop_carried_shapes_sequences_and_optionals(version):
    # c grows from [1] to [3] in the first iteration (Loop-11 allows a carried value to change shape);
    # from version 13 a carried sequence collects the iteration numbers; from 16 an optional passes through
    body_nodes = [helper.make_node("Add", ["c", "row"], ["c_out"]),
                  helper.make_node("Identity", ["cond_in"], ["cond_out"])]
    body_in = [("i", tensor(TP.INT64, [])), ("cond_in", tensor(TP.BOOL, [])), ("c", tensor(TP.FLOAT))]
    body_out = [("cond_out", tensor(TP.BOOL, [])), ("c_out", tensor(TP.FLOAT))]
    node_in, node_out = ["M", "", "c0"], ["c_final"]
    inputs = [("M", tensor(TP.INT64, [])), ("c0", tensor(TP.FLOAT, [1])), ("row", tensor(TP.FLOAT, [3]))]
    outputs = [("c_final", tensor(TP.FLOAT))]
    feeds = {"M": np.array(3, np.int64), "c0": np.array([2.0], np.float32), "row": floats(3)}
    if version >= 13:
        body_nodes.append(helper.make_node("SequenceInsert", ["s", "i"], ["s_out"]))
        body_in.append(("s", seq(TP.INT64)))
        body_out.append(("s_out", seq(TP.INT64)))
        node_in.append("s0")
        node_out.append("s_final")
        inputs.append(("s0", seq(TP.INT64)))
        outputs.append(("s_final", seq(TP.INT64)))
        feeds["s0"] = [np.array(-1, np.int64)]
    if version >= 16:
        body_nodes.append(helper.make_node("Identity", ["o"], ["o_out"]))
        body_in.append(("o", opt(tensor(TP.FLOAT))))
        body_out.append(("o_out", opt(tensor(TP.FLOAT))))
        node_in.append("o0")
        node_out.append("o_final")
        inputs.append(("o0", opt(tensor(TP.FLOAT))))
        outputs.append(("o_final", opt(tensor(TP.FLOAT))))
        feeds["o0"] = floats(2)
    body = graph(body_nodes, body_in, body_out, "body")
    m = model([helper.make_node("Loop", node_in, node_out, body=body)], inputs, outputs, version)
    check_model(m, feeds, f"Loop@{version}", ref=False)  # onnx.reference: cond absent runs nothing
    if version >= 16:
        check_model(m, dict(feeds, o0=None), f"Loop@{version} empty optional", ref=False)


def test_loop_direct_call_and_errors():
    loop = opgen_ops.get_kernel("onnx", "Loop", 25)
    body = lambda i, c, a: (np.array(int(i) < 2), a * 2, a.copy())  # noqa: E731
    final, scans = loop(None, np.array(True), np.array([1.0, -0.0], np.float32), body=body)
    assert final.tolist() == [8.0, -0.0] and scans.shape == (3, 2)
    bad = lambda i, c, a: (np.array(True), a, np.zeros(int(i) + 1, np.float32))  # noqa: E731
    with pytest.raises(ValueError, match="scan output keeps one type and shape"):
        loop(np.array(3, np.int64), None, np.array(1.0, np.float32), body=bad)
    # no iteration: a Python callable declares no scan outputs, so only the carried values come back
    (final,) = loop(np.array(0, np.int64), None, np.array(1.0, np.float32), body=bad)
    assert final == 1.0


# ---- Scan ----------------------------------------------------------------------------------------

def scan_model(version: int, slice_shapes: list, attrs: dict, state_shape=(3,)):
    """state <- state + x_t (- z_t with a second scan input); outputs the final state, the running states
    and x_t itself. slice_shapes: the shapes of x_t (and z_t), which the body declares (onnxruntime needs
    every body output's shape)."""
    n_inputs = len(slice_shapes)
    nodes = [helper.make_node("Add", ["s", "x_t"], ["s1"])]
    body_in = [("s", tensor(TP.FLOAT, list(state_shape))), ("x_t", tensor(TP.FLOAT, list(slice_shapes[0])))]
    ins = ["s0", "x"]
    if n_inputs == 2:
        nodes.append(helper.make_node("Sub", ["s1", "z_t"], ["s2"]))
        body_in.append(("z_t", tensor(TP.FLOAT, list(slice_shapes[1]))))
        ins.append("z")
    last = "s2" if n_inputs == 2 else "s1"
    nodes += [helper.make_node("Identity", [last], ["s_out"]), helper.make_node("Identity", [last], ["y_t"]),
              helper.make_node("Identity", ["x_t"], ["w_t"])]
    body = graph(nodes, body_in, [("s_out", tensor(TP.FLOAT, list(state_shape))),
                                  ("y_t", tensor(TP.FLOAT, list(state_shape))),
                                  ("w_t", tensor(TP.FLOAT, list(slice_shapes[0])))], "body")
    inputs = [("s0", tensor(TP.FLOAT)), ("x", tensor(TP.FLOAT))] + ([("z", tensor(TP.FLOAT))] if n_inputs == 2 else [])
    if version == 8:
        ins = ["lens"] + ins
        inputs = [("lens", tensor(TP.INT64))] + inputs
    node = helper.make_node("Scan", ins, ["s_final", "y", "w"], body=body, num_scan_inputs=n_inputs, **attrs)
    return model([node], inputs, [("s_final", tensor(TP.FLOAT)), ("y", tensor(TP.FLOAT)), ("w", tensor(TP.FLOAT))],
                 version)


@pytest.mark.parametrize("version", [v for v in versions("Scan") if v >= 9])
def test_scan_axes_and_directions(version):
    check_model(scan_model(version, [(3,)], {}), {"s0": floats(3), "x": floats(4, 3)}, f"Scan@{version}")
    neg = -1 if version >= 11 else 1  # Scan-9 states its axes in [0, r-1]; negative axes come with version 11
    # (attributes, x shape, z shape or None, x_t shape, z_t shape)
    cases = [({"scan_input_axes": [1], "scan_output_axes": [0, 1]}, (3, 5), None, (3,), None),
             ({"scan_input_directions": [1, 0], "scan_output_directions": [1, 0]}, (4, 3), (4, 3), (3,), (3,)),
             ({"scan_input_axes": [neg, 0], "scan_input_directions": [0, 1], "scan_output_axes": [neg, 0],
               "scan_output_directions": [0, 1]}, (3, 2), (2, 3), (3,), (3,)),
             ({"scan_input_axes": [2], "scan_output_axes": [2, 0 if version < 11 else -3]}, (3, 1, 2), None,
              (3, 1), None)]
    for attrs, x_shape, z_shape, x_t, z_t in cases:
        if len(x_t) == 2:  # a [3] state plus [3, 1] slices broadcast to [3, 3]: give the state that shape
            m = scan_model(version, [x_t], attrs, state_shape=(3, 3))
            feeds = {"s0": floats(3, 3), "x": floats(*x_shape)}
        else:
            m = scan_model(version, [x_t] + ([z_t] if z_t else []), attrs)
            feeds = {"s0": floats(3), "x": floats(*x_shape)}
        if z_shape:
            feeds["z"] = floats(*z_shape)
        check_model(m, feeds, f"Scan@{version} {attrs}", ref=False)  # onnx.reference: axis 0, forward only
    # no step: the states come back and the scan outputs are empty, [0, 3] from the body's declarations
    # (onnxruntime fails on a scan axis of size 0, onnx.reference refuses it: no reference)
    s0 = floats(3)
    got = opgen.run_model(scan_model(version, [(3,)], {}), {"s0": s0, "x": floats(0, 3)})
    assert_same(got["s_final"], s0, "no step")
    assert got["y"].shape == (0, 3) and got["w"].dtype == np.float32


def test_scan8_batches_lengths_and_directions():
    # Scan-8 against onnxruntime (onnx.reference runs every Scan as Scan-9): batch axis 0, sequence axis 1,
    # per-batch lengths (the steps after them zeros), reverse scanning within each batch entry's length
    for attrs, lens in [({}, None), ({}, [3, 1]), ({"directions": [1]}, [2, 3]), ({"directions": [1, 0]}, [3, 2])]:
        n_inputs = len(attrs.get("directions", [0]))
        m = scan_model(8, [(3,)] * n_inputs, attrs)
        feeds = {"s0": floats(2, 3), "x": floats(2, 3, 3), "lens": np.array(lens if lens else [3, 3], np.int64)}
        if n_inputs == 2:
            feeds["z"] = floats(2, 3, 3)
        if lens is None:  # sequence_lens absent: a model without it
            m.graph.node[0].input[0] = ""
            del m.graph.input[0]
            del feeds["lens"]
        check_model(m, feeds, f"Scan@8 {attrs} {lens}", ref=False)
    # a length of 0 (onnxruntime refuses it; ONNX only bounds lengths by the sequence axis): the state
    # stays the initial one and the scan outputs are all zeros for that batch entry
    feeds = {"lens": np.array([0, 2], np.int64), "s0": floats(2, 3), "x": floats(2, 3, 3)}
    got = opgen.run_model(scan_model(8, [(3,)], {}), feeds)
    assert_same(got["s_final"][0], feeds["s0"][0], "length 0")
    assert not got["y"][0].any() and got["y"][1, 2].tolist() == [0, 0, 0]
    assert_same(got["y"][1, 1], feeds["s0"][1] + feeds["x"][1, 0] + feeds["x"][1, 1], "length 2")


# ---- SequenceMap ---------------------------------------------------------------------------------

def test_sequence_map():
    add = graph([helper.make_node("Add", ["a", "b"], ["r"])], [("a", tensor(TP.FLOAT)), ("b", tensor(TP.FLOAT))],
                [("r", tensor(TP.FLOAT))], "body")
    for second, feed in [(seq(TP.FLOAT), [floats(2), floats(3)]), (tensor(TP.FLOAT), floats(1))]:
        m = model([helper.make_node("SequenceMap", ["s", "t"], ["out"], body=add)],
                  [("s", seq(TP.FLOAT)), ("t", second)], [("out", seq(TP.FLOAT))], 17)
        check_model(m, {"s": [floats(2), floats(3)], "t": feed}, "SequenceMap")
    two = graph([helper.make_node("Identity", ["a"], ["r1"]), helper.make_node("Neg", ["a"], ["r2"])],
                [("a", tensor(TP.INT32))], [("r1", tensor(TP.INT32)), ("r2", tensor(TP.INT32))], "body")
    m = model([helper.make_node("SequenceMap", ["s"], ["o1", "o2"], body=two)], [("s", seq(TP.INT32))],
              [("o1", seq(TP.INT32)), ("o2", seq(TP.INT32))], 17)
    check_model(m, {"s": [np.arange(3, dtype=np.int32), np.zeros((0, 2), np.int32)]}, "SequenceMap two outputs")
    got = opgen.run_model(m, {"s": []})  # empty: empty sequences of the types the body declares
    assert got["o1"] == [] and got["o2"].elem_type == "tensor(int32)"


# ---- sequence ops --------------------------------------------------------------------------------

def test_sequence_construct_at_length_insert_erase():
    parts = [np.array([1, 2], np.int32), np.array([[3]], np.int32), np.zeros((0,), np.int32)]
    st, it = seq(TP.INT32), tensor(TP.INT32)
    check_node("SequenceConstruct", 11, parts, [it] * 3, [st], {}, "SequenceConstruct")
    for pos in (-3, -1, 0, 2):
        for pdt in (np.int32, np.int64):
            check_node("SequenceAt", 11, [parts, np.array(pos, pdt)], [st, tensor(TP.INT64 if pdt == np.int64
                                                                                  else TP.INT32)], [it], {},
                       f"SequenceAt {pos}", {"tensor_dtype": "int32"})
    check_node("SequenceLength", 11, [parts], [st], [tensor(TP.INT64)], {}, "SequenceLength")
    check_node("SequenceLength", 11, [[]], [st], [tensor(TP.INT64)], {}, "SequenceLength empty")
    new = np.array([[9, 8]], np.int32)
    for pos in (None, -3, -1, 0, 3):
        # position n (the back): onnx.reference computes (position + n) % n and inserts at the front
        ins = [parts, new] + ([] if pos is None else [np.array(pos, np.int64)])
        check_node("SequenceInsert", 11, ins, [st, it, tensor(TP.INT64)], [st], {}, f"SequenceInsert {pos}",
                   ref=pos != 3)
    for pos in (None, -3, -1, 0, 2):
        ins = [parts] + ([] if pos is None else [np.array(pos, np.int64)])
        check_node("SequenceErase", 11, ins, [st, tensor(TP.INT64)], [st], {}, f"SequenceErase {pos}")
    seq_value = SequenceValue(parts, "tensor(int32)")
    out = opgen_ops.get_kernel("onnx", "SequenceInsert", 11)(seq_value, new)[0]
    assert len(seq_value) == 3 and len(out) == 4  # the input sequence is left as it was
    with pytest.raises(ValueError, match=r"outside \[-3, 2\]"):
        call("SequenceAt", 11, seq_value, np.array(3), tensor_dtype="int32")
    with pytest.raises(ValueError, match=r"outside \[0, -1\]"):
        opgen_ops.get_kernel("onnx", "SequenceErase", 11)(SequenceValue([], "tensor(float)"))


def test_sequence_empty_types():
    for code, dtype in [(None, np.float32), (TP.INT64, np.int64), (TP.STRING, object), (TP.BOOL, np.bool_),
                        (TP.FLOAT16, np.float16), (TP.COMPLEX128, np.complex128)]:
        attrs = {} if code is None else {"dtype": code}
        (ours,) = call("SequenceEmpty", 11, **attrs)
        elem = TP.FLOAT if code is None else code
        m = model([helper.make_node("SequenceEmpty", [], ["o"], **attrs)], [], [("o", seq(elem))], 11)
        for name, (want,) in references(m, {}, ort=code != TP.COMPLEX128).items():  # (no complex sequences)
            assert ours == want == [], name
        assert ours.elem_type == f"tensor({opgen.dtypes.elem_of_numpy(np.dtype(dtype))})"


@pytest.mark.parametrize("version", versions("SplitToSequence"))
def test_split_to_sequence(version):
    x = floats(5, 4)
    it, st = tensor(TP.FLOAT), seq(TP.FLOAT)
    cases = [(None, {}), (None, {"axis": 1, "keepdims": 0}), (None, {"axis": -2, "keepdims": 0}),
             (np.array(2, np.int64), {}), (np.array(3, np.int32), {"axis": -1}), (np.array(5, np.int64), {}),
             (np.array([1, 0, 4], np.int64), {"axis": 0}), (np.array([3, 1], np.int64), {"axis": 1, "keepdims": 0})]
    for split, attrs in cases:
        ins = [x] if split is None else [x, split]
        types = [it] if split is None else [it, tensor(TP.INT64 if split.dtype == np.int64 else TP.INT32)]
        check_node("SplitToSequence", version, ins, types, [st], attrs, f"SplitToSequence@{version} {split} {attrs}")
    strings = np.array([["a", "b"], ["c", "d"]], dtype=object)
    (out,) = call("SplitToSequence", version, strings, axis=1, keepdims=0)
    assert [a.tolist() for a in out] == [["a", "c"], ["b", "d"]] and out.elem_type == "tensor(string)"


F32 = {"concat_result_dtype": "float"}  # the output's type, which no tensor input gives (run_model: the declaration)


def test_concat_from_sequence():
    parts = [floats(2, 3), floats(2, 3), floats(2, 3)]
    for axis, new_axis in [(0, 0), (1, 0), (-1, 0), (-2, 0), (0, 1), (2, 1), (-1, 1), (-3, 1)]:
        check_node("ConcatFromSequence", 11, [parts], [seq(TP.FLOAT)], [tensor(TP.FLOAT)],
                   {"axis": axis, "new_axis": new_axis}, f"ConcatFromSequence {axis} {new_axis}", F32)
    ragged = [np.arange(3, dtype=np.int64).reshape(1, 3), np.arange(6, dtype=np.int64).reshape(2, 3)]
    check_node("ConcatFromSequence", 11, [ragged], [seq(TP.INT64)], [tensor(TP.INT64)], {"axis": 0}, "ragged",
               {"concat_result_dtype": "int64"})
    scalars = [np.array(1.5, np.float32), np.array(-0.0, np.float32)]
    check_node("ConcatFromSequence", 11, [scalars], [seq(TP.FLOAT)], [tensor(TP.FLOAT)],
               {"axis": 0, "new_axis": 1}, "scalars stacked", F32)
    with pytest.raises(ValueError, match="empty sequence"):
        call("ConcatFromSequence", 11, SequenceValue([], "tensor(float)"), axis=0, **F32)


# ---- optionals -----------------------------------------------------------------------------------

@pytest.mark.parametrize("version", versions("Optional"))
def test_optional(version):
    # onnx.reference's Optional wraps its input in a list ([x], and [None] without input): it is read
    # through that wrapping here; onnxruntime returns the value itself (None when empty)
    x = floats(2, 2)
    for value, input_type in [(x, tensor(TP.FLOAT)), ([x, x[:1]], seq(TP.FLOAT)), (np.zeros(0, np.int8),
                                                                                     tensor(TP.INT8))]:
        (ours,) = call("Optional", version, ours_value(value, input_type))
        assert isinstance(ours, OptionalValue) and ours.has_element()
        m = model([helper.make_node("Optional", ["i"], ["o"])], [("i", input_type)], [("o", opt(input_type))],
                  version)
        runs = references(m, {"i": value})
        if "onnx.reference" in runs:
            runs["onnx.reference"] = [runs["onnx.reference"][0][0]]
        for name, (want,) in runs.items():
            assert_same(ours, want, f"Optional@{version} vs {name}")
    for inner, spelled in [(tensor(TP.INT64), "tensor(int64)"), (seq(TP.FLOAT), "seq(tensor(float))")]:
        (ours,) = call("Optional", version, type=spelled)
        assert ours.value is None and ours.elem_type == spelled
        m = model([helper.make_node("Optional", [], ["o"], type=inner)], [], [("o", opt(inner))], version)
        for name, (want,) in references(m, {}).items():
            assert want in (None, [None]), name


@pytest.mark.parametrize("version", versions("OptionalGetElement") + versions("OptionalHasElement"))
def test_optional_get_and_has_element(version):
    ot, os_ = opt(tensor(TP.FLOAT)), opt(seq(TP.INT64))
    x, s = floats(3), [np.arange(2, dtype=np.int64)]
    get_v = max(v for v in versions("OptionalGetElement") if v <= version)
    has_v = max(v for v in versions("OptionalHasElement") if v <= version)
    check_node("OptionalGetElement", get_v, [OptionalValue(x)], [ot], [tensor(TP.FLOAT)], {}, "get tensor",
               {"output_dtype": "float"})
    check_node("OptionalGetElement", get_v, [OptionalValue(SequenceValue(s))], [os_], [seq(TP.INT64)], {}, "get seq")
    for value, types in [(OptionalValue(x), [ot]), (OptionalValue(None, "tensor(float)"), [ot]),
                         (OptionalValue(None, "seq(tensor(int64))"), [os_])]:
        check_node("OptionalHasElement", has_v, [value], types, [tensor(TP.BOOL)], {}, f"has {value!r}")
    if version >= 18:  # plain tensors and sequences count as present; an absent input as empty
        check_node("OptionalGetElement", get_v, [x], [tensor(TP.FLOAT)], [tensor(TP.FLOAT)], {}, "get plain",
                   {"output_dtype": "float"})
        check_node("OptionalGetElement", get_v, [SequenceValue(s)], [seq(TP.INT64)], [seq(TP.INT64)], {}, "get plain seq")
        check_node("OptionalHasElement", has_v, [x], [tensor(TP.FLOAT)], [tensor(TP.BOOL)], {}, "has plain")
        check_node("OptionalHasElement", has_v, [None], [], [tensor(TP.BOOL)], {}, "has absent")
    with pytest.raises(ValueError, match="empty"):
        call("OptionalGetElement", get_v, OptionalValue(None, "tensor(float)"), output_dtype="float")


# ---- Identity and Constant -----------------------------------------------------------------------

IDENTITY_TYPES = [(1, np.float32), (1, np.float64), (1, np.float16), (13, ml_dtypes.bfloat16), (1, np.int8),
                  (1, np.uint64), (1, np.bool_), (1, np.complex64), (1, object), (19, ml_dtypes.float8_e4m3fn),
                  (19, ml_dtypes.float8_e5m2fnuz), (21, ml_dtypes.int4), (21, ml_dtypes.uint4),
                  (23, ml_dtypes.float4_e2m1fn), (24, ml_dtypes.float8_e8m0fnu), (25, ml_dtypes.int2)]


@pytest.mark.parametrize("version", versions("Identity"))
def test_identity(version):
    kernel = opgen_ops.get_kernel("onnx", "Identity", version)
    special = np.array([np.nan, -0.0, np.inf, 1.5], np.float32)
    special.view(np.uint32)[0] = 0x7FC00123  # a NaN payload survives the copy
    for since, dtype in IDENTITY_TYPES:
        if since > version:
            continue
        x = special.astype(dtype) if dtype in (np.float32,) else np.array([["a", "é"]], object) if dtype is object \
            else np.arange(4).reshape(2, 2).astype(dtype)
        for value in (x, x.reshape(-1)[:0], x.reshape(-1)[:1].reshape(())):  # empty and rank 0 as well
            (out,) = kernel(value)
            assert out is not value and out.dtype == value.dtype and out.shape == value.shape
            assert out.tobytes() == value.tobytes() if dtype is not object else out.tolist() == value.tolist()
    for v in (1, 13, 14) if version == 14 else ():  # reference and onnxruntime on float data
        check_node("Identity", v, [special], [tensor(TP.FLOAT)], [tensor(TP.FLOAT)], {}, f"Identity@{v}")
    if version >= 14:
        check_node("Identity", version, [[floats(2), floats(0)]], [seq(TP.FLOAT)], [seq(TP.FLOAT)], {},
                   f"Identity@{version} seq")
    if version >= 16:
        for value in (OptionalValue(floats(2)), OptionalValue(None, "tensor(float)")):
            (out,) = kernel(value)
            assert out == value and out is not value and out.elem_type == "tensor(float)"
        m = model([helper.make_node("Identity", ["o"], ["r"])], [("o", opt(tensor(TP.FLOAT)))],
                  [("r", opt(tensor(TP.FLOAT)))], version)
        for feed in (floats(2), None):  # (onnx.reference's Identity refuses an empty optional)
            check_model(m, {"o": feed}, f"Identity@{version} optional", ref=feed is not None)


@pytest.mark.parametrize("version", versions("Constant"))
def test_constant(version):
    kernel = opgen_ops.get_kernel("onnx", "Constant", version)
    values = [np.array([[1.5, -0.0]], np.float32), np.array(2.0, np.float64), np.array([1, 2], np.float16)]
    if version >= 9:
        values += [np.array([[7]], np.int64), np.array([True]), np.zeros((0, 3), np.uint8),
                   np.array(["x", "yé"], object)]
    if version >= 13:
        values.append(np.array([1.0, 2.5], ml_dtypes.bfloat16))
    for value in values:
        elem = opgen.dtypes.elem_of_numpy(value.dtype)
        (out,) = kernel(value=value, output_dtype=elem)
        assert_same(out, value, f"Constant@{version} {elem}")
        m = model([helper.make_node("Constant", [], ["o"], value=numpy_helper.from_array(value))], [],
                  [("o", tensor(helper.np_dtype_to_tensor_dtype(value.dtype)))], version)
        if elem == "bfloat16":  # neither reference returns bfloat16 arrays: the value itself is the reference
            assert_same(opgen.run_model(m, {})["o"], value, f"Constant@{version} bfloat16")
        else:
            check_model(m, {}, f"Constant@{version} {elem}")
    if version >= 12:
        for attrs in [{"value_float": 0.25}, {"value_floats": [1.0, -0.0]}, {"value_int": -3},
                      {"value_ints": [4, 5, 6]}, {"value_string": "héllo"}, {"value_strings": ["a", "b"]},
                      {"value_ints": []}]:
            (name, given), = attrs.items()
            node = helper.make_node("Constant", [], ["o"])  # (make_node cannot type an empty list itself)
            kind = {"value_float": "FLOAT", "value_floats": "FLOATS", "value_int": "INT", "value_ints": "INTS",
                    "value_string": "STRING", "value_strings": "STRINGS"}[name]
            node.attribute.append(helper.make_attribute(name, given, attr_type=getattr(onnx.AttributeProto, kind)))
            elem = {"value_float": TP.FLOAT, "value_floats": TP.FLOAT, "value_int": TP.INT64,
                    "value_ints": TP.INT64}.get(name, TP.STRING)
            check_model(model([node], [], [("o", tensor(elem))], version), {}, f"Constant@{version} {attrs}")
    if version >= 11:
        # sparse_value: the kernel takes it densified (the model reader does not read sparse data yet:
        # test_constant_sparse_value_through_run_model); onnxruntime's densified constant is the reference
        sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.5, -2.0], np.float32), "v"),
                                           numpy_helper.from_array(np.array([1, 5], np.int64), "i"), [2, 3])
        m = model([helper.make_node("Constant", [], ["o"], sparse_value=sparse)], [], [("o", tensor(TP.FLOAT))],
                  version)
        dense = np.array([[0, 1.5, 0], [0, 0, -2.0]], np.float32)
        (out,) = kernel(sparse_value=dense, output_dtype="float")
        if version <= ORT_MAX_OPSET:  # onnxruntime returns a SparseTensor: its COO values put in place
            import onnxruntime

            st = onnxruntime.SparseTensor(ort_session(m).run(None, {})[0])
            want = np.zeros(st.dense_shape(), np.float32)
            want.reshape(-1)[st.as_coo_view().indices().reshape(-1)] = st.values()
            assert_same(out, want, f"Constant@{version} sparse")
    with pytest.raises(ValueError, match="element type"):
        kernel(value=np.array([1.0], np.float64), output_dtype="float")


def test_constant_sparse_value_through_run_model():
    sparse = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.5], np.float32), "v"),
                                       numpy_helper.from_array(np.array([2], np.int64), "i"), [3])
    m = model([helper.make_node("Constant", [], ["o"], sparse_value=sparse)], [], [("o", tensor(TP.FLOAT, [3]))], 13)
    assert opgen.run_model(m, {})["o"].tolist() == [0, 0, 1.5]


# ---- the generated kernels take sequences and optionals ---------------------------------------------

ONES = np.ones(2, np.float32)


@pytest.mark.parametrize("op, version, inputs, attrs, want", [
    ("SequenceConstruct", 11, [ONES], {}, SequenceValue([ONES])),
    ("SequenceEmpty", 11, [], {}, SequenceValue([], "tensor(float)")),
    ("SequenceAt", 11, [SequenceValue([ONES]), np.array(0)], {"tensor_dtype": "float"}, ONES),
    ("SequenceLength", 11, [SequenceValue([ONES, ONES])], {}, np.array(2, np.int64)),
    ("SplitToSequence", 24, [ONES], {}, SequenceValue([ONES[:1], ONES[1:]])),
    ("ConcatFromSequence", 11, [SequenceValue([ONES])], {"axis": 0, "concat_result_dtype": "float"}, ONES),
    ("Optional", 28, [ONES], {}, OptionalValue(ONES)),
    ("OptionalGetElement", 28, [OptionalValue(ONES)], {"output_dtype": "float"}, ONES),
    ("OptionalHasElement", 28, [OptionalValue(ONES)], {}, np.array(True)),
])
def test_generated_kernels_take_sequences_and_optionals(op, version, inputs, attrs, want):
    """The generated kernels (not only their functions) take and return sequences and optionals."""
    (got,) = opgen_ops.get_kernel("onnx", op, version)(*inputs, **attrs)
    assert type(got) is type(want) or isinstance(want, np.ndarray) and isinstance(got, np.ndarray)
    if isinstance(want, SequenceValue):
        assert got.elem_type == want.elem_type and len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    elif isinstance(want, OptionalValue):
        assert got == want and got.elem_type == want.elem_type
    else:
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
