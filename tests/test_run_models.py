"""`opgen.run_model` and `opgen run` on models exported by torch.onnx.export from real architectures
(tests/torch_nets.py: ResNet- and MobileNet-style CNNs, a Transformer encoder, LSTM and GRU nets, a
UNet-style decoder, a detection head with NonMaxSuppression and RoiAlign, a small CNN): every output
equals onnxruntime's within the tolerance table below, at opsets 17 and 18. Also what the command does
with bad input: an invalid model never runs, a failing node is named, no output file is half-written.
"""
from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper
from torch_nets import ARCHITECTURES, example_inputs, export

import opgen
from opgen.cli import main
from opgen.cli_run import file_names
from opgen.run import ModelError, terminal_progress
from opgen.runtime.graph_runner import GraphError

# (rtol, atol) by output dtype: float32 models accumulate in a different order than onnxruntime's
# (blocked GEMM, fused kernels), so the last bits differ; integer outputs (NMS indices) must be equal.
TOLERANCE = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.int64): (0, 0)}


def onnxruntime_outputs(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


@pytest.mark.parametrize("opset", [17, 18])
@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_exported_model_runs_as_onnxruntime_runs_it(name, opset):
    model = export(name, opset)
    feeds = example_inputs(name)
    got = opgen.run_model(model, feeds)
    want = onnxruntime_outputs(model, feeds)
    assert list(got) == [o.name for o in model.graph.output]
    for (out_name, g), w in zip(got.items(), want):
        assert g.dtype == w.dtype and g.shape == w.shape, out_name
        rtol, atol = TOLERANCE[w.dtype]
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"{name} opset {opset} {out_name}")


def test_run_model_takes_a_path_bytes_or_a_model(tmp_path):
    model = export("smallcnn", 17)
    feeds = example_inputs("smallcnn")
    path = tmp_path / "m.onnx"
    onnx.save(model, path)
    results = [opgen.run_model(m, feeds) for m in (model, model.SerializeToString(), path, str(path))]
    for r in results[1:]:
        np.testing.assert_array_equal(next(iter(r.values())), next(iter(results[0].values())))


def two_node_model(second_op: str = "Relu", opset: int = 17) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    nodes = [helper.make_node("Abs", ["x"], ["a"], name="first"),
             helper.make_node(second_op, ["a"], ["y"], name="second")]
    return helper.make_model(helper.make_graph(nodes, "g", [x], [y]), opset_imports=[helper.make_opsetid("", opset)])


def test_an_invalid_model_is_refused_before_any_node_runs():
    bad = two_node_model()
    bad.graph.node[1].attribute.append(helper.make_attribute("alpha", 1.0))  # Relu has no attribute alpha
    with pytest.raises(ModelError) as info:
        opgen.run_model(bad, {"x": np.ones((2, 3), np.float32)})
    assert info.value.exit_code == 1 and info.value.problems
    assert "second" in str(info.value) and "alpha" in str(info.value)


def test_inputs_that_do_not_fit_are_usage_errors():
    model = two_node_model()
    with pytest.raises(ModelError, match=r"no value given for input\(s\) x \(float\[2, 3\]\)") as info:
        opgen.run_model(model, {})
    assert info.value.exit_code == 2
    with pytest.raises(ModelError, match="has no input"):
        opgen.run_model(model, {"x": np.ones((2, 3), np.float32), "z": np.ones(1)})
    with pytest.raises(GraphError, match="argument 'x' has dtype double, the graph declares float"):
        opgen.run_model(model, {"x": np.ones((2, 3))})


def test_a_failing_node_is_named():
    model = two_node_model()

    class Failing:  # a resolver whose second kernel fails: the error names that node and its op
        def get_kernel(self, domain, op, opset=None):
            import opgen_ops

            if op == "Relu":
                def boom(*args, **kwargs):
                    raise ZeroDivisionError("deliberate")
                return boom
            return opgen_ops.get_kernel(domain, op, opset)

        def get_signature(self, domain, op, opset=None):
            import opgen_ops

            return opgen_ops.get_signature(domain, op, opset)

    from opgen.runtime.graph_runner import GraphFunction
    from opgen.validate import read_model

    graph, _ = read_model(model)
    with pytest.raises(GraphError, match=r"node second \(onnx\.Relu\): ZeroDivisionError: deliberate"):
        GraphFunction(graph, Failing()).run({"x": np.ones((2, 3), np.float32)})


def test_model_local_functions_run_inlined():
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 17)])
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    graph = helper.make_graph([helper.make_node("Twice", ["x"], ["t"], domain="local"),
                               helper.make_node("Neg", ["t"], ["y"])], "g", [x], [y])
    model = helper.make_model(graph, functions=[fn], opset_imports=[helper.make_opsetid("", 17),
                                                                    helper.make_opsetid("local", 1)])
    out = opgen.run_model(model, {"x": np.array([1, -2, 3], np.float32)})
    np.testing.assert_array_equal(out["y"], [-2, 4, -6])


def test_initializers_listed_as_inputs_default_to_their_values():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    w = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    init = helper.make_tensor("w", TensorProto.FLOAT, [2], [10.0, 20.0])
    model = helper.make_model(helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g", [x, w], [y], [init]),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    feeds = {"x": np.array([1, 2], np.float32)}
    np.testing.assert_array_equal(opgen.run_model(model, feeds)["y"], [11, 22])
    feeds["w"] = np.array([0.5, 0.5], np.float32)  # given: the input wins over the initializer
    np.testing.assert_array_equal(opgen.run_model(model, feeds)["y"], [1.5, 2.5])


# ---- the command ------------------------------------------------------------------------------------

def test_opgen_run_writes_one_npy_per_output(tmp_path):
    model = export("detection", 17)
    onnx.save(model, tmp_path / "m.onnx")
    args = ["run", str(tmp_path / "m.onnx"), "--output-dir", str(tmp_path / "out")]
    for name, value in example_inputs("detection").items():
        np.save(tmp_path / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp_path / f'{name}.npy'}"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    want = onnxruntime_outputs(model, example_inputs("detection"))
    for out, w in zip(model.graph.output, want):
        got = np.load(tmp_path / "out" / f"{file_names([out.name])[out.name]}.npy")
        np.testing.assert_allclose(got, w, rtol=1e-4, atol=1e-5)
    assert len(result.output.strip().splitlines()) == len(model.graph.output)


def test_opgen_run_exit_codes_and_no_partial_output(tmp_path):
    bad = two_node_model()
    bad.graph.node[1].attribute.append(helper.make_attribute("alpha", 1.0))
    onnx.save(bad, tmp_path / "bad.onnx")
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    out = tmp_path / "out"
    runner = CliRunner()
    invalid = runner.invoke(main, ["run", str(tmp_path / "bad.onnx"), "--input", f"x={tmp_path / 'x.npy'}",
                                   "--output-dir", str(out)])
    assert invalid.exit_code == 1 and "alpha" in invalid.output and not out.exists()
    (tmp_path / "junk.onnx").write_bytes(b"\x00not a model")
    unreadable = runner.invoke(main, ["run", str(tmp_path / "junk.onnx"), "--output-dir", str(out)])
    assert unreadable.exit_code == 2 and "cannot read the model" in unreadable.output and not out.exists()
    onnx.save(two_node_model(), tmp_path / "ok.onnx")
    missing = runner.invoke(main, ["run", str(tmp_path / "ok.onnx"), "--output-dir", str(out)])
    assert missing.exit_code == 2 and "no value given for input(s) x" in missing.output
    usage = runner.invoke(main, ["run", str(tmp_path / "ok.onnx"), "--input", "x", "--output-dir", str(out)])
    assert usage.exit_code == 2 and "NAME=FILE.npy" in usage.output
    np.save(tmp_path / "x64.npy", np.ones((2, 3)))
    wrong = runner.invoke(main, ["run", str(tmp_path / "ok.onnx"), "--input", f"x={tmp_path / 'x64.npy'}",
                                 "--output-dir", str(out)])
    assert wrong.exit_code == 1 and "dtype double" in wrong.output and not out.exists()
    assert "Traceback" not in invalid.output + unreadable.output + missing.output + usage.output + wrong.output


def test_output_file_names_are_safe_and_distinct():
    names = file_names(["y", "../etc/passwd", "a/b", "a_b", "Y", ""])
    assert len(set(v.lower() for v in names.values())) == 6
    assert all(os.sep not in v and not v.startswith(".") for v in names.values())


def test_the_progress_bar_is_drawn_on_a_terminal_only():
    assert terminal_progress(io.StringIO()) is None

    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    show = terminal_progress(stream)
    assert show is not None
    for k in range(1, 201):
        show(k, 200)
    text = stream.getvalue()
    assert text.endswith("] 200/200 nodes\n") and text.count("\r") == 100


def test_a_prepared_graph_gives_every_run_its_own_constant():
    # A Constant node runs once per graph; its value must not leak between runs: a caller changing
    # the output of one run in place (here the Constant's own value, a graph output) must not change
    # the next run. Expected values: onnx.reference.
    from onnx.reference import ReferenceEvaluator

    import opgen_ops
    from opgen.runtime.graph_runner import GraphFunction
    from opgen.validate import read_model

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("c", "y")]
    nodes = [helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.FLOAT, [2], [1.5, -2])),
             helper.make_node("Add", ["x", "c"], ["y"])]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], outs), opset_imports=[helper.make_opsetid("", 17)])
    feeds = {"x": np.array([1, 2], np.float32)}
    want = ReferenceEvaluator(model).run(None, feeds)
    function = GraphFunction(read_model(model)[0], opgen_ops)
    for _ in range(3):
        env = function.run(feeds)
        for name, w in zip(("c", "y"), want):
            np.testing.assert_array_equal(env[name], w)
        env["c"][:] = 99  # the caller's own copy


def test_constants_kept_across_models_are_exact_and_every_run_owns_its_value():
    # run_model reads each model anew; a Constant's value is kept by its exact attributes for the models
    # read later (runtime.graph_constants). Constants that compare equal as numbers but not bit for bit
    # (-0.0 and 0.0, float and int) must stay apart, and no run may see another run's changes to its
    # outputs. Expected values: onnx.reference, bit for bit.
    from onnx.reference import ReferenceEvaluator

    def model_of(**attribute: object) -> onnx.ModelProto:
        out = helper.make_tensor_value_info("c", TensorProto.UNDEFINED, None)
        node = helper.make_node("Constant", [], ["c"], **attribute)
        return helper.make_model(helper.make_graph([node], "g", [], [out]), opset_imports=[helper.make_opsetid("", 17)])

    attributes = [{"value_float": 0.0}, {"value_float": -0.0}, {"value_int": 0}, {"value_floats": [0.0, -0.0]},
                  {"value_ints": [0, 0]}, {"value": helper.make_tensor("v", TensorProto.FLOAT, [2], [0.0, -0.0])},
                  {"value": helper.make_tensor("v", TensorProto.FLOAT16, [2], [0.0, -0.0])}]
    for _ in range(2):  # the second round answers from the kept values
        for attribute in attributes:
            model = model_of(**attribute)
            got = opgen.run_model(model)["c"]
            (want,) = ReferenceEvaluator(model).run(None, {})
            assert got.dtype == want.dtype and got.shape == want.shape and got.tobytes() == want.tobytes(), attribute
            got[...] = 7  # changes this run's output only


def test_views_given_to_the_user_are_writable_arrays_of_their_own():
    # A split part, a slice, a transposition and a reshape are read-only views of their input inside the run
    # (data_movement's rule); the user gets every output as a writable array that shares no memory
    # with the inputs, whether the view is a graph output directly, also feeds another node, or sits
    # in a sequence. Expected values: onnx.reference.
    from onnx.reference import ReferenceEvaluator

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 3])
    outs = [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3]),
            helper.make_tensor_value_info("t", TensorProto.FLOAT, [3, 4]),
            helper.make_tensor_value_info("c", TensorProto.FLOAT, [3, 2]),
            helper.make_tensor_value_info("n", TensorProto.FLOAT, [3, 2]),
            helper.make_tensor_value_info("f", TensorProto.FLOAT, [12]),
            helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, None)]
    nodes = [helper.make_node("Split", ["x"], ["a", "b"], axis=0, num_outputs=2),
             helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
             helper.make_node("Slice", ["t", "starts", "ends", "axes", "steps"], ["c"]),
             helper.make_node("Neg", ["c"], ["n"]),
             helper.make_node("Reshape", ["x", "flat"], ["f"]),
             helper.make_node("SplitToSequence", ["x"], ["s"], axis=1, keepdims=0)]
    one = [helper.make_tensor(name, TensorProto.INT64, [1], [value])
           for name, value in (("starts", -1), ("ends", -5), ("axes", 1), ("steps", -2), ("flat", -1))]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], outs, initializer=one),
                              opset_imports=[helper.make_opsetid("", 18)])
    feeds = {"x": np.arange(-6, 6, dtype=np.float32).reshape(4, 3)}
    want = ReferenceEvaluator(model).run(None, feeds)
    got = opgen.run_model(model, feeds)
    arrays = [got["a"], got["b"], got["r"], got["t"], got["c"], got["n"], got["f"], *got["s"]]
    for g, w in zip(arrays, [*want[:7], *want[7]], strict=True):
        np.testing.assert_array_equal(g, w)
        assert g.flags.writeable and not np.shares_memory(g, feeds["x"])
    got["a"][...] = 99  # the user's own array: the input and the other outputs keep their values
    np.testing.assert_array_equal(feeds["x"], np.arange(-6, 6, dtype=np.float32).reshape(4, 3))
    np.testing.assert_array_equal(got["r"], want[2])


def test_opgen_run_names_an_output_it_cannot_write(tmp_path):
    """An output folder below a file, an output whose name a folder takes: status 2, the path and the reason
    in one line, no traceback and no temporary file left beside the outputs."""
    onnx.save(two_node_model(), tmp_path / "ok.onnx")
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    runner = CliRunner()
    args = ["run", str(tmp_path / "ok.onnx"), "--input", f"x={tmp_path / 'x.npy'}", "--output-dir"]
    below_a_file = runner.invoke(main, [*args, str(blocker / "out")])
    assert below_a_file.exit_code == 2, below_a_file.output
    assert f"--output-dir {blocker / 'out'} cannot be created: " in below_a_file.output
    out = tmp_path / "out"
    (out / "y.npy").mkdir(parents=True)  # a folder where the output file goes
    taken = runner.invoke(main, [*args, str(out)])
    assert taken.exit_code == 2 and f"{out / 'y.npy'} cannot be written: " in taken.output, taken.output
    assert [p.name for p in out.iterdir()] == ["y.npy"]
    assert "Traceback" not in below_a_file.output + taken.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_opgen_run_refuses_a_named_pipe_as_its_model_or_an_input(tmp_path):
    """Reading a named pipe waits for a writer: `opgen run` given one as the model or as an input waited
    forever. Now each is refused at once: status 2 and the reason."""
    onnx.save(two_node_model(), tmp_path / "ok.onnx")
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    os.mkfifo(tmp_path / "pipe.onnx")
    os.mkfifo(tmp_path / "pipe.npy")
    for model, given in (("pipe.onnx", "x.npy"), ("ok.onnx", "pipe.npy")):
        done = subprocess.run([sys.executable, "-m", "opgen.cli", "run", str(tmp_path / model), "--input",
                               f"x={tmp_path / given}", "--output-dir", str(tmp_path / "out")],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and "not a regular file" in done.stderr, (model, given, done.stderr)
        assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


# ---- weights in external data files -------------------------------------------------------------------

def _save_with_external_weights(model: onnx.ModelProto, folder, location: str = "weights.bin") -> None:
    onnx.save(model, folder / "m.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location=location, size_threshold=0)


def test_weights_saved_beside_the_model_are_read_from_there(tmp_path):
    """torch and onnx.save write a large model's weights to a file beside it (external data): `opgen run`
    reads them from the model's folder, whatever the current directory, and computes what onnxruntime does."""
    model = export("smallcnn", 17)
    feeds = example_inputs("smallcnn")
    _save_with_external_weights(model, tmp_path)
    stored = onnx.load(tmp_path / "m.onnx", load_external_data=False)
    assert all(t.data_location == TensorProto.EXTERNAL for t in stored.graph.initializer)
    got = opgen.run_model(tmp_path / "m.onnx", feeds)
    want = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"]).run(None, feeds)
    for g, w in zip(got.values(), want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


def test_external_weights_that_cannot_be_read_are_one_line_errors(tmp_path):
    """A weights file that is missing, a symbolic link, a named pipe, or named by a path leading out of the
    model's folder: status 2 and the reason (onnx's loader refused the link, the pipe and the path with a
    ValidationError that was a traceback; a pipe never waits)."""
    model = two_node_model()
    model.graph.node[1].CopyFrom(helper.make_node("Add", ["a", "w"], ["y"], name="second"))
    model.graph.initializer.append(onnx.numpy_helper.from_array(np.ones((2, 3), np.float32), "w"))
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    out = tmp_path / "out"

    def run() -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "opgen.cli", "run", str(tmp_path / "m.onnx"), "--input",
                               f"x={tmp_path / 'x.npy'}", "--output-dir", str(out)],
                              capture_output=True, text=True, timeout=120)

    _save_with_external_weights(model, tmp_path)
    assert run().returncode == 0 and np.array_equal(np.load(out / "y.npy"), np.full((2, 3), 2, np.float32))
    weights = tmp_path / "weights.bin"
    weights.rename(tmp_path / "real.bin")
    cases = {"missing": lambda: None, "a symbolic link": lambda: weights.symlink_to(tmp_path / "real.bin")}
    if hasattr(os, "mkfifo"):
        cases["a named pipe"] = lambda: os.mkfifo(weights)
    for case, make in cases.items():
        shutil.rmtree(out, ignore_errors=True)
        make()
        done = run()
        assert done.returncode == 2 and "cannot read the model's external data" in done.stderr, (case, done.stderr)
        assert "Traceback" not in done.stderr and not out.exists(), case
        weights.unlink(missing_ok=True)
    (tmp_path / "inner").mkdir()
    for location in ("../real.bin", str(tmp_path / "real.bin")):  # out of the folder; an absolute path
        _save_with_external_weights(model, tmp_path / "inner", "w.bin")
        stored = onnx.load(tmp_path / "inner" / "m.onnx", load_external_data=False)
        for entry in stored.graph.initializer[0].external_data:
            if entry.key == "location":
                entry.value = location
        onnx.save(stored, tmp_path / "m.onnx")
        done = run()
        assert done.returncode == 2 and "cannot read the model's external data" in done.stderr, (location,
                                                                                                  done.stderr)
        assert "Traceback" not in done.stderr and not out.exists(), location


def test_external_data_in_a_model_given_in_memory_is_named():
    """A model given as bytes or a ModelProto has no folder to find its weights in: the tensor that keeps
    its data elsewhere is named (here a Constant inside an If branch), rather than a run failing later on
    a constant with no value."""
    const = TensorProto(name="c", data_type=TensorProto.FLOAT, dims=[2, 3])
    const.data_location = TensorProto.EXTERNAL
    const.external_data.add(key="location", value="consts.bin")
    branch = helper.make_graph([helper.make_node("Constant", [], ["k"], value=const)], "then", [],
                               [helper.make_tensor_value_info("k", TensorProto.FLOAT, [2, 3])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["k2"])], "else", [],
                              [helper.make_tensor_value_info("k2", TensorProto.FLOAT, [2, 3])])
    graph = helper.make_graph([helper.make_node("If", ["b"], ["y"], then_branch=branch, else_branch=other)], "g",
                              [helper.make_tensor_value_info("b", TensorProto.BOOL, []),
                               helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    for given in (model, model.SerializeToString()):
        with pytest.raises(ModelError) as info:
            opgen.run_model(given, {"b": np.array(True), "x": np.ones((2, 3), np.float32)})
        assert info.value.exit_code == 2
        assert "tensor 'c' keeps its data in the external file 'consts.bin'" in str(info.value)


def test_an_input_given_twice_is_a_usage_error(tmp_path):
    """Two files for one input: which was meant is not guessed (the last one was taken silently)."""
    onnx.save(two_node_model(), tmp_path / "ok.onnx")
    np.save(tmp_path / "a.npy", np.ones((2, 3), np.float32))
    np.save(tmp_path / "b.npy", -np.ones((2, 3), np.float32))
    out = tmp_path / "out"
    twice = CliRunner().invoke(main, ["run", str(tmp_path / "ok.onnx"), "--input", f"x={tmp_path / 'a.npy'}",
                                      "--input", f"x={tmp_path / 'b.npy'}", "--output-dir", str(out)])
    assert twice.exit_code == 2 and "--input x: given more than once" in twice.output, twice.output
    assert not out.exists()
    once = CliRunner().invoke(main, ["run", str(tmp_path / "ok.onnx"), "--input", f"x={tmp_path / 'b.npy'}",
                                     "--output-dir", str(out)])
    assert once.exit_code == 0 and np.array_equal(np.load(out / "y.npy"), np.ones((2, 3), np.float32))
