"""`opgen validate` on models exported by torch.onnx.export from small real architectures.

Seven networks with random (seeded) weights are exported once per session with the TorchScript
exporter (`dynamo=False`: the dynamo exporter needs onnxscript, which the test extra does not
install): a ResNet-style CNN, a MobileNet-style net with squeeze-excite, a Transformer encoder
layer over an embedding, an LSTM and a GRU net, a UNet-style decoder and a small CNN with PRelu,
Elu and Softmax. Each must validate (exit 0, every node checked against a spec, none unknown), as
onnx.checker.check_model(full_check=True) — the independent reference — also says.

Broken copies of them (one fault each, made with onnx.helper) must be reported with exit 1 and a
problem that names the op and the attribute, input or constraint at fault. For each, the module
also records whether onnx.checker and onnxruntime reject the same copy.
"""
from __future__ import annotations

import copy

import onnx
import pytest
import torch  # noqa: F401  (a test dependency: missing, it must fail, not skip)
from click.testing import CliRunner
from onnx import AttributeProto, TensorProto, helper
from torch_nets import ARCHITECTURES, export

from opgen.cli import main
from opgen.validate import validate_model

OPSETS = [17, 18]
BROKEN_OPSET = 17


@pytest.fixture(scope="module")
def exported():
    """Each (architecture, opset) exported once for the module; callers get a copy to edit."""
    cache: dict[tuple[str, int], onnx.ModelProto] = {}

    def get(name: str, opset: int = BROKEN_OPSET) -> onnx.ModelProto:
        if (name, opset) not in cache:
            cache[name, opset] = export(name, opset)
        return copy.deepcopy(cache[name, opset])

    return get


# ---- references -------------------------------------------------------------------------------------

def checker_accepts(model: onnx.ModelProto) -> bool:
    try:
        onnx.checker.check_model(model, full_check=True)
        return True
    except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
        return False


def ort_accepts(model: onnx.ModelProto) -> bool:
    """Whether onnxruntime builds a session for the model (graph resolution, type and kernel checks)."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        return True
    except Exception:  # noqa: BLE001 - onnxruntime raises several unrelated classes (Fail, InvalidGraph, ...)
        return False


def cli_exit(model: onnx.ModelProto, tmp_path) -> tuple[int, str]:
    path = tmp_path / "model.onnx"
    onnx.save(model, str(path))
    result = CliRunner().invoke(main, ["validate", str(path)])
    return result.exit_code, result.output


# ---- exported models validate -----------------------------------------------------------------------

@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", list(ARCHITECTURES))
def test_exported_model_validates(exported, name, opset, tmp_path):
    model = exported(name, opset)
    ops = {n.op_type for n in model.graph.node}
    assert ARCHITECTURES[name][2] <= ops, f"export lacks {ARCHITECTURES[name][2] - ops}"
    onnx.checker.check_model(model, full_check=True)  # the reference accepts it

    report = validate_model(model)
    assert report.problems == [], "\n".join(map(str, report.problems))
    assert report.valid
    assert report.unchecked == {}
    assert report.nodes == len(model.graph.node) and report.checked == report.nodes
    code, output = cli_exit(model, tmp_path)
    assert code == 0, output


# ---- broken copies ----------------------------------------------------------------------------------

def nodes_of(model: onnx.ModelProto, op_type: str) -> list[onnx.NodeProto]:
    found = [n for n in model.graph.node if n.op_type == op_type]
    assert found, f"no {op_type} node in the export"
    return found


def set_attr(node: onnx.NodeProto, name: str, value, attr_type=None) -> None:
    """Replace (or add) an attribute; attr_type forces the declared type (for wrong-type copies)."""
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept)
    node.attribute.append(helper.make_attribute(name, value, attr_type=attr_type))


def drop_attr(node: onnx.NodeProto, name: str) -> None:
    kept = [a for a in node.attribute if a.name != name]
    del node.attribute[:]
    node.attribute.extend(kept)


def rank_of(model: onnx.ModelProto, tensor: str) -> int:
    inferred = onnx.shape_inference.infer_shapes(model)
    for v in list(inferred.graph.value_info) + list(inferred.graph.input) + list(inferred.graph.output):
        if v.name == tensor:
            return len(v.type.tensor_type.shape.dim)
    for init in inferred.graph.initializer:
        if init.name == tensor:
            return len(init.dims)
    raise AssertionError(f"no shape for {tensor!r}")


def cast_around(op_type: str, elem: int):
    """A mutation: Cast(to=elem) in front of the op's first input and a Cast back to float after its
    first output, so the op alone sees the disallowed type (no fault spreads to the nodes after it)."""
    def mutate(model: onnx.ModelProto) -> onnx.ModelProto:
        target = nodes_of(model, op_type)[0]
        source, result = target.input[0], target.output[0]
        target.input[0], target.output[0] = source + "_as_bad_type", result + "_bad_type"
        position = list(model.graph.node).index(target)
        model.graph.node.insert(position + 1, helper.make_node(
            "Cast", [target.output[0]], [result], to=TensorProto.FLOAT, name="injected_cast_back"))
        model.graph.node.insert(position, helper.make_node(
            "Cast", [source], [target.input[0]], to=elem, name="injected_cast"))
        del model.graph.value_info[:]  # the exporter's shapes/types would now be stale
        return model

    mutate.__name__ = f"{op_type.lower()}_{TensorProto.DataType.Name(elem).lower()}"
    return mutate


# wrong attribute type ---------------------------------------------------------------------------------

def conv_group_float(m):
    conv = [n for n in nodes_of(m, "Conv") if any(a.name == "group" and a.i > 1 for a in n.attribute)][0]
    set_attr(conv, "group", 8.0, AttributeProto.FLOAT)
    return m


def elu_alpha_int(m):
    set_attr(nodes_of(m, "Elu")[0], "alpha", 1, AttributeProto.INT)
    return m


def lstm_hidden_size_float(m):
    set_attr(nodes_of(m, "LSTM")[0], "hidden_size", 12.0, AttributeProto.FLOAT)
    return m


def softmax_axis_string(m):
    set_attr(nodes_of(m, "Softmax")[0], "axis", b"1", AttributeProto.STRING)
    return m


# out-of-range axis (rank + 3) ------------------------------------------------------------------------

def axis_plus_3(op_type, input_index=0):
    def mutate(m):
        node = nodes_of(m, op_type)[0]
        rank = rank_of(m, node.input[input_index])
        set_attr(node, "axis", rank + 3)
        return m

    mutate.__name__ = f"{op_type.lower()}_axis_rank_plus_3"
    return mutate


# unknown enum value -----------------------------------------------------------------------------------

def resize_mode_cubicx(m):
    set_attr(nodes_of(m, "Resize")[0], "mode", "cubicx")
    return m


def lstm_direction_sideways(m):
    set_attr(nodes_of(m, "LSTM")[0], "direction", "sideways")
    return m


def gru_direction_sideways(m):
    set_attr(nodes_of(m, "GRU")[0], "direction", "sideways")
    return m


def conv_auto_pad_sometimes(m):
    conv = nodes_of(m, "Conv")[0]
    drop_attr(conv, "pads")  # pads and auto_pad together would be a second fault
    set_attr(conv, "auto_pad", "SOMETIMES")
    return m


# (id, architecture, mutation, op named, word the record must name (attribute/input/constraint),
#  onnx.checker accepts the copy, onnxruntime accepts the copy)
# The reference verdicts are pinned: a change in ONNX or onnxruntime shows up here.
BROKEN = [
    # wrong attribute type: the spec's attribute types come from onnx.defs
    ("conv-group-float", "mobilenet", conv_group_float, "Conv", "group", False, False),
    ("elu-alpha-int", "smallcnn", elu_alpha_int, "Elu", "alpha", False, False),
    ("lstm-hidden_size-float", "lstm", lstm_hidden_size_float, "LSTM", "hidden_size", False, False),
    ("softmax-axis-string", "smallcnn", softmax_axis_string, "Softmax", "axis", False, False),
    # disallowed dtype: the spec's type constraints come from onnx.defs
    ("softmax-int8", "smallcnn", cast_around("Softmax", TensorProto.INT8), "Softmax", "input", False, False),
    ("conv-string", "smallcnn", cast_around("Conv", TensorProto.STRING), "Conv", "input", False, False),
    ("layernorm-int32", "transformer", cast_around("LayerNormalization", TensorProto.INT32),
     "LayerNormalization", "input", False, False),
    ("hardswish-int64", "mobilenet", cast_around("HardSwish", TensorProto.INT64), "HardSwish", "input", False, False),
    # out-of-range axis (rank + 3): the numbered axis-range constraints of Softmax, Concat, Flatten and
    # Gather. onnx.checker (shape inference) and onnxruntime reject all four.
    ("softmax-axis", "smallcnn", axis_plus_3("Softmax"), "Softmax", "axis", False, False),
    ("concat-axis", "unet", axis_plus_3("Concat"), "Concat", "axis", False, False),
    ("flatten-axis", "resnet", axis_plus_3("Flatten"), "Flatten", "axis", False, False),
    ("gather-axis", "transformer", axis_plus_3("Gather"), "Gather", "axis", False, False),
    # unknown enum value: the attribute value lists of Resize (mode), LSTM/GRU (direction) and Conv
    # (auto_pad). onnx.checker(full_check=True) ACCEPTS all four copies: neither the checker nor shape inference
    # looks at these string values; only onnxruntime rejects them, when it builds its kernels.
    ("resize-mode", "unet", resize_mode_cubicx, "Resize", "mode", True, False),
    ("lstm-direction", "lstm", lstm_direction_sideways, "LSTM", "direction", True, False),
    ("gru-direction", "gru", gru_direction_sideways, "GRU", "direction", True, False),
    ("conv-auto_pad", "smallcnn", conv_auto_pad_sometimes, "Conv", "auto_pad", True, False),
]


def names_fault(record, op_type: str, word: str) -> bool:
    return (record.op.startswith(f"onnx.{op_type}@")
            and (word in record.where or word in record.message))


@pytest.mark.parametrize("name, arch, mutate, op_type, word, checker_ok, ort_ok", BROKEN,
                         ids=[case[0] for case in BROKEN])
def test_broken_copy_is_reported(exported, name, arch, mutate, op_type, word, checker_ok, ort_ok, tmp_path):
    model = mutate(exported(arch))

    report = validate_model(model)
    assert not report.valid, f"{name}: opgen calls the broken copy valid ({report.summary()})"
    assert any(names_fault(r, op_type, word) for r in report.problems), (
        f"{name}: no problem names {op_type} and {word!r}:\n" + "\n".join(map(str, report.problems)))
    # One fault, at one op: nothing spills over onto the nodes around it.
    assert {r.op.split("@")[0] for r in report.problems} == {f"onnx.{op_type}"}, "\n".join(map(str, report.problems))
    code, output = cli_exit(model, tmp_path)
    assert code == 1, output

    assert checker_accepts(model) == checker_ok
    assert ort_accepts(model) == ort_ok
