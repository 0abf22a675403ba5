"""The cases opgen catches beyond onnx.checker, in English and Chinese: the one source of the README's
section "Cases opgen catches beyond onnx.checker" (English) and of the site's page in both languages.

The README cannot include a file, so it holds the English rendering of this module verbatim:
tests/test_site_pages.py checks that it does (and that both languages list the same cases), and
`python -m opgen.site --readme` rewrites the README's section from here after an edit.
tests/test_validate_onnx.py reads the case names of the first table from the README and checks they
are exactly the models opgen rejects and the checker accepts."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

HEADING = "### Cases opgen catches beyond onnx.checker"
COLUMNS = {"en": ("case", "use", "onnx.checker", "opgen"), "zh": ("情况", "用法", "onnx.checker", "opgen")}


@dataclass(frozen=True)
class Case:
    """One table row: the case's name (a test's name, the same in both languages) and its cells."""

    name: str
    use: dict[str, str]
    checker: dict[str, str]
    opgen: dict[str, str]

    def row(self, lang: str) -> str:
        return f"| `{self.name}` | {self.use[lang]} | {self.checker[lang]} | {self.opgen[lang]} |"


@dataclass(frozen=True)
class Paragraph:
    """Prose; the English keeps the README's line breaks so the README's text is this text."""

    text: dict[str, str]


ACCEPTS = {"en": "accepts", "zh": "接受"}

BLOCKS: list[Paragraph | list[Case]] = [
    Paragraph({
        "en": "On the onnx package's node tests for PRelu and Elu, their mutated copies (int8 data, an extra or a\n"
              "missing input, an unknown attribute, `alpha` as INT, a non-broadcastable slope) and a few hand-built\n"
              "uses, opgen matches every verdict of `onnx.checker.check_model(full_check=True)` and rejects these\n"
              "as well (`tests/test_validate_onnx.py` checks that this table is exactly that set):",
        "zh": "在 onnx 包中 PRelu 和 Elu 的节点测试、它们的变异副本 (int8 数据、多一个或少一个输入、未知属性、"
              "INT 类型的 `alpha`、不可广播的 slope) 以及几个手工构造的用例上，opgen 与 "
              "`onnx.checker.check_model(full_check=True)` 的每个判定都一致，此外还拒绝下表中的情况 "
              "(`tests/test_validate_onnx.py` 检查本表恰好列出这些情况)：",
    }),
    [
        Case("slope_not_broadcastable",
             {"en": "PRelu-16, X [3, 4, 5], slope [6]", "zh": "PRelu-16，X [3, 4, 5]，slope [6]"},
             {"en": "accepts (shape inference takes Y from X and never looks at the slope)",
              "zh": "接受 (形状推断由 X 得出 Y，从不查看 slope)"},
             {"en": "constraint C1: slope shape [6] does not broadcast to X shape [3, 4, 5]",
              "zh": "约束 C1：slope 的形状 [6] 不能广播到 X 的形状 [3, 4, 5]"}),
        Case("slope_rank_above_x",
             {"en": "PRelu-16, X [3, 4, 5], slope [1, 3, 4, 5]", "zh": "PRelu-16，X [3, 4, 5]，slope [1, 3, 4, 5]"},
             ACCEPTS,
             {"en": "constraint C1: slope [1, 3, 4, 5] does not broadcast to X",
              "zh": "约束 C1：slope [1, 3, 4, 5] 不能广播到 X"}),
        Case("legacy_slope_not_channels",
             {"en": "PRelu-6, X [2, 3, 4], slope [5]", "zh": "PRelu-6，X [2, 3, 4]，slope [5]"},
             ACCEPTS,
             {"en": "constraint C1: slope is neither of size 1, nor of the channel count, nor broadcastable",
              "zh": "约束 C1：slope 的大小既不是 1，也不等于通道数，也不能广播"}),
    ],
    Paragraph({
        "en": "Among the onnx package's node tests, the checker accepts two models that opgen rejects\n"
              "(`tests/test_onnx_node_tests.py`, `OPGEN_ONLY`):",
        "zh": "在 onnx 包的节点测试中，有两个模型 checker 接受而 opgen 拒绝 (`tests/test_onnx_node_tests.py`，"
              "`OPGEN_ONLY`)：",
    }),
    [
        Case("test_affine_grid_3d[_align_corners]_expanded",
             {"en": "AffineGrid-20's function body: an If whose branches build the 2-D and the 3-D grid",
              "zh": "AffineGrid-20 的函数体：一个 If，两个分支分别构造二维和三维网格"},
             ACCEPTS,
             {"en": "Split-18 C4 in the branch not taken: the 5 values of `size` split into 4 pieces of 2 leave -1 "
                    "for the last one (onnx's shape inference writes that -1). opgen checks both branches of an If, "
                    "as it cannot know the condition",
              "zh": "未执行的分支中 Split-18 的 C4：`size` 的 5 个值按每份 2 个分成 4 份，最后一份只剩 -1 "
                    "(onnx 的形状推断写出的正是这个 -1)。opgen 无法知道条件的取值，因此检查 If 的两个分支"}),
    ],
    Paragraph({
        "en": "On real models the value lists catch what onnx.checker does not look at: exported models with\n"
              "Resize `mode` \"cubicx\", LSTM or GRU `direction` \"sideways\", or Conv `auto_pad` \"SOMETIMES\" pass\n"
              "`onnx.checker.check_model(full_check=True)` and fail only when onnxruntime builds its kernels;\n"
              "opgen reports the attribute and its allowed values (`tests/test_torch_models.py` pins both verdicts).",
        "zh": "在真实模型上，取值列表能发现 onnx.checker 不检查的问题：导出的模型若带有 Resize 的 `mode` "
              "“cubicx”、LSTM 或 GRU 的 `direction` “sideways”，或 Conv 的 `auto_pad` “SOMETIMES”，能通过 "
              "`onnx.checker.check_model(full_check=True)`，直到 onnxruntime 构建内核时才失败；opgen 报告该属性"
              "及其允许的取值 (`tests/test_torch_models.py` 固定了两者的判定)。",
    }),
    Paragraph({
        "en": "Both reject a declared output shape that differs from the one the op gives (an Elu output declared\n"
              "[4] for an input of [3]): onnx.checker through its strict shape inference, opgen because every\n"
              "output states its shape (`outputs[].shape`, or an element-wise formula's broadcasting) and the\n"
              "validator compares the declared one with it. Graphs that do not declare a value's shape take it\n"
              "from the same expressions, so the nodes downstream are checked too. The outputs whose shape depends\n"
              "on tensor values, a graph attribute or the node are listed in `tests/known_failures.txt`.",
        "zh": "两者都拒绝与算子给出的形状不同的已声明输出形状 (例如输入为 [3] 时把 Elu 的输出声明为 [4])："
              "onnx.checker 依靠其严格的形状推断，opgen 则因为每个输出都说明了自己的形状 (`outputs[].shape`，"
              "或逐元素公式的广播)，校验器把声明的形状与之比较。没有声明某个值的形状的图从同样的表达式得到它，"
              "因此下游的节点也会被检查。形状取决于张量取值、图的属性或节点本身的输出列在 "
              "`tests/known_failures.txt` 中。",
    }),
]


def cases() -> list[Case]:
    return [c for block in BLOCKS if isinstance(block, list) for c in block]


def section_body(lang: str) -> str:
    """The section's Markdown (without its heading) in a language."""
    parts = []
    for block in BLOCKS:
        if isinstance(block, Paragraph):
            parts.append(block.text[lang])
        else:
            head = "| " + " | ".join(COLUMNS[lang]) + " |"
            parts.append("\n".join([head, "|---|---|---|---|"] + [c.row(lang) for c in block]))
    return "\n\n".join(parts) + "\n"


_SECTION = re.compile(re.escape(HEADING) + r"\n(.*?)(?=^## )", re.M | re.S)


def readme_body(readme: str) -> str | None:
    """The README's text of the section (without its heading), or None when it has none."""
    m = _SECTION.search(readme)
    return m.group(1).strip() + "\n" if m else None


def update_readme(path: Path) -> bool:
    """Rewrite the README's section from this module; whether the file changed."""
    text = path.read_text("utf-8")
    m = _SECTION.search(text)
    if m is None:
        raise ValueError(f"{path}: no section '{HEADING}' followed by a '## ' heading")
    new = text[:m.start(1)] + "\n" + section_body("en") + "\n" + text[m.end(1):]
    if new == text:
        return False
    path.write_text(new, "utf-8")
    return True
