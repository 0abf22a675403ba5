"""Small real architectures built in torch, exported with torch.onnx.export: the models the
validator tests (tests/test_torch_models.py), the runner tests (tests/test_run_models.py) and the
runner benchmark (tests/benchmarks/run_models_bench.py) share.

Random (seeded) weights; the TorchScript exporter (`dynamo=False`: the dynamo exporter needs
onnxscript, which the test extra does not install).
"""
from __future__ import annotations

import io
import warnings

import onnx
import torch

nn = torch.nn
F = torch.nn.functional

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


class _NonMaxSuppression(torch.autograd.Function):
    """torchvision's NMS is not installed: the exporter writes ONNX's NonMaxSuppression from this
    symbolic (what torchvision's own export does); forward only gives the tracer a value of the right kind."""

    @staticmethod
    def forward(ctx, boxes, scores, max_per_class, iou_threshold, score_threshold):
        return torch.zeros((1, 3), dtype=torch.int64)

    @staticmethod
    def symbolic(g, boxes, scores, max_per_class, iou_threshold, score_threshold):
        return g.op("NonMaxSuppression", boxes, scores, max_per_class, iou_threshold, score_threshold)


class _RoiAlign(torch.autograd.Function):
    @staticmethod
    def forward(ctx, features, rois, batch_indices):
        return features.new_zeros((rois.shape[0], features.shape[1], 3, 3))

    @staticmethod
    def symbolic(g, features, rois, batch_indices):
        return g.op("RoiAlign", features, rois, batch_indices, output_height_i=3, output_width_i=3,
                    sampling_ratio_i=2, spatial_scale_f=0.5, mode_s="avg")


class DetectionHead(nn.Module):
    """A one-stage detector's head (boxes and scores per anchor, NMS over them) and a second stage that
    pools the given regions (RoiAlign) and classifies them."""

    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2))
        self.box = nn.Conv2d(8, 4, 1)
        self.score = nn.Conv2d(8, 2, 1)
        self.classify = nn.Linear(8 * 3 * 3, 5)
        # anchor centres drawn once (seeded) as a buffer: a torch.rand in forward() is exported as an
        # unseeded RandomUniform node at some opsets, and the outputs then differ from run to run
        self.register_buffer("centers", torch.rand(1, 64, 2) * 16)

    def forward(self, image, rois, batch_indices):
        features = self.backbone(image)  # [1, 8, 8, 8]
        deltas = self.box(features).flatten(2).transpose(1, 2)  # [1, 64, 4]
        centers = self.centers
        boxes = torch.cat([centers - deltas[..., :2].exp() * 2, centers + deltas[..., 2:].exp() * 2], -1)
        scores = torch.sigmoid(self.score(features).flatten(2))  # [1, 2 classes, 64]
        keep = _NonMaxSuppression.apply(boxes, scores, torch.tensor([5]), torch.tensor([0.5]), torch.tensor([0.3]))
        pooled = _RoiAlign.apply(features, rois, batch_indices)
        return keep, self.classify(pooled.flatten(1))


REGIONS = torch.tensor([[0.0, 0.0, 8.0, 8.0], [4.0, 2.0, 15.0, 11.0], [1.0, 5.0, 6.0, 14.0]])  # x1, y1, x2, y2

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
    "detection": (DetectionHead, lambda: (torch.randn(1, 3, 16, 16), REGIONS, torch.tensor([0, 0, 0])),
                  {"Conv", "NonMaxSuppression", "RoiAlign", "Sigmoid", "Gemm"}),
    "smallcnn": (SmallCNN, lambda: (torch.randn(1, 1, 8, 8),), {"Conv", "PRelu", "Elu", "Softmax", "Flatten", "Gemm"}),
}


def example_inputs(name: str) -> dict[str, object]:
    """The inputs the model was exported with, as NumPy arrays by the exported model's input names."""
    model = export(name, 17)
    _, args = _module_and_args(name)
    return {i.name: a.numpy() for i, a in zip(model.graph.input, args)}


def _module_and_args(name: str) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
    cls, inputs, _ = ARCHITECTURES[name]
    torch.manual_seed(0)
    module = cls().eval()
    return module, inputs()


def export(name: str, opset: int) -> onnx.ModelProto:
    module, args = _module_and_args(name)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notice, tracer warnings
        torch.onnx.export(module, args, buffer, dynamo=False, opset_version=opset)
    return onnx.load_from_string(buffer.getvalue())


