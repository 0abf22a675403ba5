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
import io
import warnings

import onnx
import pytest
import torch  # a test dependency (pyproject test extra): missing, it must fail, not skip
from click.testing import CliRunner
from onnx import AttributeProto, TensorProto, helper

from opgen.cli import main
from opgen.validate import validate_model

nn = torch.nn
F = torch.nn.functional

OPSETS = [17, 18]
BROKEN_OPSET = 17


# ---- the architectures --------------------------------------------------------------------------------

class ResBlock(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)
        # In eval mode the exporter folds a BatchNorm that follows a Conv into it; this one follows
        # the residual Add, so a BatchNormalization node stays in the graph.
        self.bn_out = nn.BatchNorm2d(c)

    def forward(self, x):
        y = self.bn2(self.conv2(F.relu(self.bn1(self.conv1(x)))))
        return F.relu(self.bn_out(x + y))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8),
                                  nn.ReLU(), nn.MaxPool2d(3, 2, 1))
        self.block = ResBlock(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(8, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.block(self.stem(x))), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, c: int):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(c, c // 2, 1)
        self.fc2 = nn.Conv2d(c // 2, c, 1)

    def forward(self, x):
        return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(self.pool(x)))))


class MobileNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1), nn.Hardswish())
        self.depthwise = nn.Sequential(nn.Conv2d(8, 8, 3, 1, 1, groups=8), nn.BatchNorm2d(8), nn.Hardswish())
        self.se = SqueezeExcite(8)
        self.pointwise = nn.Conv2d(8, 16, 1)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))

    def forward(self, x):
        return self.head(self.pointwise(self.se(self.depthwise(self.stem(x)))))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.encoder = nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.norm = nn.LayerNorm(16)
        self.out = nn.Linear(16, 50)

    def forward(self, tokens):
        return self.out(self.norm(self.encoder(self.embed(tokens))))


class LSTMNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(8, 12, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 3)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


class GRUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 12, batch_first=True)
        self.fc = nn.Linear(12, 3)

    def forward(self, x):
        _, h = self.rnn(x)
        return self.fc(h[-1])


class UNetDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = nn.ConvTranspose2d(16, 8, 2, stride=2)
        self.norm1 = nn.InstanceNorm2d(8, affine=True)
        self.conv1 = nn.Conv2d(16, 8, 3, padding=1)
        self.up2 = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.conv2 = nn.Conv2d(12, 4, 3, padding=1)
        self.norm2 = nn.InstanceNorm2d(4)

    def forward(self, x, skip1, skip2):
        y = F.relu(self.norm1(self.up1(x)))
        y = F.relu(self.conv1(torch.cat([y, skip1], 1)))
        y = torch.cat([self.up2(y), skip2], 1)
        y = F.relu(self.norm2(self.conv2(y)))
        return F.interpolate(y, scale_factor=2.0, mode="nearest")


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3)
        self.prelu = nn.PReLU(4)
        self.conv2 = nn.Conv2d(4, 8, 3)
        self.elu = nn.ELU(0.5)
        self.fc = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x):
        y = self.elu(self.conv2(self.prelu(self.conv1(x))))
        return F.softmax(self.fc(torch.flatten(y, 1)), dim=1)


# name -> (module class, example input shapes/kinds, ops the export must contain)
ARCHITECTURES = {
    "resnet": (ResNet, lambda: (torch.randn(1, 3, 16, 16),),
               {"Conv", "BatchNormalization", "Relu", "MaxPool", "Add", "GlobalAveragePool", "Flatten", "Gemm"}),
    "mobilenet": (MobileNet, lambda: (torch.randn(1, 3, 16, 16),),
                  {"Conv", "HardSwish", "GlobalAveragePool", "Mul", "HardSigmoid", "Flatten", "Gemm"}),
    "transformer": (TinyTransformer, lambda: (torch.randint(0, 50, (2, 7)),),
                    {"Gather", "LayerNormalization", "MatMul", "Softmax", "Transpose", "Reshape", "Gemm"}),
    "lstm": (LSTMNet, lambda: (torch.randn(2, 5, 8),), {"LSTM", "Gemm"}),
    "gru": (GRUNet, lambda: (torch.randn(2, 5, 8),), {"GRU", "Gemm"}),
    "unet": (UNetDecoder, lambda: (torch.randn(1, 16, 4, 4), torch.randn(1, 8, 8, 8), torch.randn(1, 4, 16, 16)),
             {"ConvTranspose", "Resize", "InstanceNormalization", "Concat", "Conv", "Relu"}),
    "smallcnn": (SmallCNN, lambda: (torch.randn(1, 1, 8, 8),), {"Conv", "PRelu", "Elu", "Softmax", "Flatten", "Gemm"}),
}


def export(name: str, opset: int) -> onnx.ModelProto:
    cls, inputs, _ = ARCHITECTURES[name]
    torch.manual_seed(0)
    module = cls().eval()
    args = inputs()
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice, tracer warnings
        torch.onnx.export(module, args, buffer, dynamo=False, opset_version=opset)
    return onnx.load_from_string(buffer.getvalue())


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
