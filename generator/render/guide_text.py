"""The hand-written prose of the spec-authoring guide, in English and Chinese. The tables around it
(fields, formula functions, check functions, shape rules) are generated from the schemas and the
generator's own tables by opgen.render.guide; this module only says what they mean."""
from __future__ import annotations

# What each check-language function does, by name; every name of opgen.expr's tables needs an entry
# (tests/test_guide.py checks it).
CHECK_FUNCTIONS: dict[str, tuple[str, str]] = {
    "rank": ("rank(x): the number of dimensions of input or output x (of a variadic one: of its first tensor "
             "whose shape is known), or of a tensor attribute's value.",
             "rank(x):输入或输出 x 的维数(可变参数取第一个形状已知的张量),或张量属性值的维数。"),
    "shape": ("shape(x): the shape of x as a tuple of sizes, e.g. shape(X)[0].",
              "shape(x):x 的形状，为各维大小组成的元组，例如 shape(X)[0]。"),
    "shapes": ("shapes(x): the shape of each tensor of a variadic x (of a single x: a one-element list).",
               "shapes(x):可变参数 x 中每个张量的形状(单个参数则为只含一项的列表)。"),
    "numel": ("numel(x): the number of elements of x, the product of its shape.",
              "numel(x):x 的元素个数，即形状各维之积。"),
    "count": ("count(x): how many tensors a variadic x holds.",
              "count(x):可变参数 x 含有的张量个数。"),
    "has": ("has(x): true when optional input x is given, or attribute x is set on the node.",
            "has(x):可选输入 x 已给出，或节点上设置了属性 x 时为真。"),
    "dtype": ("dtype(x): the element type name of x, e.g. dtype(X) == 'float'.",
              "dtype(x):x 的元素类型名，例如 dtype(X) == 'float'。"),
    "values": ("values(x): the values of a constant input, flattened, as numbers; the check is skipped when "
               "the model gives no value.",
               "values(x):常量输入的取值，展平为数的序列；模型未给出取值时跳过该检查。"),
    "broadcast_shape": ("broadcast_shape(a, b, ...): the shape NumPy/ONNX broadcasting gives these inputs "
                        "(every tensor of a variadic one).",
                        "broadcast_shape(a, b, ...):这些输入按 NumPy/ONNX 广播规则得到的形状(可变参数计其每个张量)。"),
    "xla_broadcast_shape": ("xla_broadcast_shape(a, b, ...): the shape XLA's element-wise broadcasting gives.",
                            "xla_broadcast_shape(a, b, ...):按 XLA 逐元素广播规则得到的形状。"),
    "len": ("len(s): length of a list, tuple or shape.", "len(s):列表、元组或形状的长度。"),
    "all": ("all(...): every item is true.", "all(...):每一项都为真。"),
    "any": ("any(...): some item is true.", "any(...):至少一项为真。"),
    "range": ("range(n) or range(a, b): integers, bounded in size.", "range(n) 或 range(a, b):整数序列，长度有上限。"),
    "min": ("min(...): the smallest item.", "min(...):最小项。"),
    "max": ("max(...): the largest item.", "max(...):最大项。"),
    "abs": ("abs(v): absolute value.", "abs(v):绝对值。"),
    "sum": ("sum(...): the sum of the items.", "sum(...):各项之和。"),
    "sorted": ("sorted(...): the items in ascending order.", "sorted(...):按升序排列的各项。"),
    "set": ("set(...): the distinct items.", "set(...):互不相同的各项。"),
    "list": ("list(...): the items as a list.", "list(...):各项组成的列表。"),
    "tuple": ("tuple(...): the items as a tuple (compare with a shape).", "tuple(...):各项组成的元组(可与形状比较)。"),
    "unique": ("unique(...): true when no item repeats, e.g. unique(axes).",
               "unique(...):没有重复项时为真，例如 unique(axes)。"),
    "int": ("int(v): v as an integer.", "int(v):把 v 转为整数。"),
    "zip": ("zip(a, b): pairs of items.", "zip(a, b):逐项配对。"),
    "enumerate": ("enumerate(s): (index, item) pairs.", "enumerate(s):(下标，项) 对。"),
    "bits": ("bits(t): the width in bits of the element type named t, e.g. bits(dtype(X)) == 32.",
             "bits(t):名为 t 的元素类型的位宽，例如 bits(dtype(X)) == 32。"),
    "prod": ("prod(s): the product of a few sizes, e.g. prod(shape(X)); exact Python integers.",
             "prod(s):若干大小之积，例如 prod(shape(X));使用精确的 Python 整数。"),
}

BROADCAST_MODES: dict[str, tuple[str, str]] = {
    "none": ("every input has the output's shape.",
             "每个输入的形状都与输出相同。"),
    "unidirectional": ("the second input broadcasts into the first (ONNX unidirectional broadcasting); the output "
                       "has the first input's shape.",
                       "第二个输入广播到第一个输入(ONNX 单向广播);输出形状与第一个输入相同。"),
    "multidirectional": ("NumPy/ONNX broadcasting among all inputs; the output has broadcast_shape of them.",
                         "所有输入之间按 NumPy/ONNX 规则广播；输出形状为它们的 broadcast_shape。"),
    "xla": ("XLA's element-wise rules: equal shapes, or a lower-rank operand aligned by the broadcast_dimensions "
            "attribute.",
            "XLA 的逐元素规则：形状相同，或由 broadcast_dimensions 属性对齐低维操作数。"),
    "onednn_prelu": ("oneDNN PReLU's weights broadcasting (the slope aligns to the data's channels).",
                     "oneDNN PReLU 的权重广播规则(slope 按数据的通道对齐)。"),
    "onnx_prelu_legacy": ("the slope rule of ONNX PRelu before version 7.",
                          "ONNX PRelu 第 7 版之前的 slope 规则。"),
}

KIND_HEADERS = ("float32", "float64", "int", "uint", "bool")

TEXT: dict[str, dict[str, str]] = {
    "en": dict(
        title="Writing an opgen spec",
        other="中文", other_link="../zh/guide.md",
        intro=(
            "An opgen spec describes one operator of one domain in a YAML file, `specs/<domain>/<Op>.yaml`. "
            "From it `opgen build` generates a validator, a NumPy reference kernel, C kernels, these docs and "
            "tests. This guide is generated from the JSON Schemas the specs are checked against and from the "
            "generator's own tables, so it lists exactly what the checker accepts."),
        layout_title="The spec folder",
        layout=(
            "A spec folder holds `schema/` (the JSON Schemas; optional, opgen's own are used without it), "
            "`sources/` (the documents specs cite: `sources[].document` names a file there) and one folder per "
            "domain with a `domain.yaml` and one `<Op>.yaml` per operator. The first line "
            "`# yaml-language-server: $schema=../schema/op.schema.json` lets an editor show the field "
            "descriptions below while you type."),
        fields_title="The spec format, field by field",
        fields_intro=(
            "Each table lists the fields of one object: its path (`[]` is an item of a list, `*` a value under "
            "any key), whether it is required, its type and allowed values, and what it means. Objects of "
            "`$defs` are used wherever a field's type names them."),
        op_file="Operator file (`<domain>/<Op>.yaml`)",
        domain_file="Domain file (`<domain>/domain.yaml`)",
        field="Field", required="Required", type="Type", allowed="Allowed", description="Description",
        yes="yes", no="no", top_level="Top level",
        anchors_title="Shared texts: YAML anchors",
        anchors=(
            "A text used in several places (the same input described in every version) is written once with an "
            "anchor `&name` and repeated with an alias `*name`. The checker reports an error in a shared text "
            "once, at the anchor."),
        formula_title="The formula language (`elementwise`)",
        formula_intro=(
            "An element-wise version gives `elementwise.formula`: the output element as an expression of "
            "input and attribute names. One parsed tree is emitted as NumPy and as C, so the two kernels "
            "cannot drift apart. The table lists every function, its number of arguments and its spelling in "
            "NumPy and in C per operand kind (a dash: no C spelling for that kind, so that type gets a stub)."),
        function="Function", arity="Arguments", numpy="NumPy",
        operators_title="Operators, comparisons and `where`",
        operators=(
            "Arithmetic and bitwise operators: {binops}; unary `-`, `+`, `~` and `not`. Comparisons {cmps} give "
            "booleans; `where(cond, a, b)` chooses element-wise. Numbers are literals (integers fit in int64); an "
            "enum or string attribute may be compared with a word, e.g. `mode == 'linear'`. `and`/`or`, chained "
            "comparisons, conditional expressions and subscripts are not allowed: use `where()` instead."),
        broadcast_title="Broadcast modes (`elementwise.broadcast`)",
        fold_title="Folding a variadic input (`fold`, `finish`)",
        fold=(
            "With `fold: data_0` the formula combines the accumulator `acc` (the first tensor) with each further "
            "tensor, which it reads under the input's name: Sum is `formula: acc + data_0`. `finish` gives the "
            "output from `acc`, the attributes and `count(data_0)`, the number of tensors (Mean: "
            "`finish: acc / count(data_0)`); the default is `acc`. Broadcasting is multidirectional or none."),
        types_title="Restricting the types (`types`) and absent values (`absent`)",
        types=(
            "`types` lists the tensor types the formula holds for; other allowed types get no kernel (say why in "
            "a note). `absent` gives the value an optional input or an attribute without default takes when it "
            "is missing: `lowest` or `highest` of the element type (Clip's min and max)."),
        check_title="The check language (`constraints`, `shape`)",
        check_intro=(
            "A constraint's `check` (and its `when`) is a Python-like expression over attribute names and the "
            "functions below; comprehensions such as `all(0 <= a < rank(X) for a in axes)` are allowed, "
            "assignments and imports are not. A check that needs a shape or value the model does not give is "
            "skipped rather than failed."),
        check_functions_title="Functions a check may call",
        rules_title="Shape rules (`rule:` with `args:`)",
        rules_intro=(
            "A constraint may instead name a rule of `opgen.runtime.shape_rules` and give its arguments by name "
            "in `args`. An argument of kind param names an input or output, params a list of them, attr an "
            "attribute; arguments in brackets are optional. The line is the rule's docstring (in English)."),
        rule="Rule", arguments="Arguments",
        shape_title="Output shapes (`outputs[].shape`)",
        shape=(
            "An output that is not element-wise states its shape in the check language, e.g. `shape(X)`, "
            "`[shape(A)[0], shape(B)[1]]` or `broadcast_shape(A, B)`; a variadic output gives a list of shapes. "
            "The validator compares a declared shape with it."),
        notes_title="Notes",
        notes=(
            "A note records what a reader of the source needs to know. Use `erratum` when the source text is "
            "wrong or garbled as written (quote it in `document_says`; the domain's errata page lists it), "
            "`decision` when the text is correct but silent or ambiguous and the spec chooses, "
            "`reference_difference` when a cited reference behaves otherwise and the spec follows the document, "
            "and `info` for anything else. `field` names the spec field concerned (`inputs.slope.type`)."),
        examples_title="Examples",
        examples=(
            "Each example gives attributes, inputs and the expected outputs; the generated tests run them through "
            "the NumPy and C kernels. Expected values must come from the source document or from an independent "
            "reference (jax.lax, onnx.reference, torch, ...), named in `source` — never from the spec's own "
            "formula, or the test could not fail. `dtype` sets the element type of type-variable parameters, "
            "`dtypes` per name where they differ."),
        versions_title="Versions",
        versions=(
            "`versions` lists the operator's versions, newest first; each `since_version` is an opset version of "
            "the domain, and a version holds until the next one. Mark a withdrawn version `deprecated: true`. A "
            "version the source defines as a function of other operators says `function: true` and copies the "
            "body into `function_body`."),
        example_title="Worked example: adding `hlir.Foo`",
        step_new="Write a starter spec (valid, with TODO texts `opgen lint` reports):",
        step_fill=(
            "Fill in the fields: here a scaled tanh with two attributes, a formula, a constraint, and two examples "
            "whose values torch computed. The finished file:"),
        step_build="Generate and check the texts:",
        step_python="Run the generated kernel and validator from Python:",
    ),
    "zh": dict(
        title="编写 opgen 规格",
        other="English", other_link="../en/guide.md",
        intro=(
            "opgen 规格用一个 YAML 文件 `specs/<domain>/<Op>.yaml` 描述一个域中的一个算子。`opgen build` 由它生成"
            "校验器、NumPy 参考内核、C 内核、本文档以及测试。本指南由检查规格所用的 JSON Schema 和生成器自身的表格"
            "生成，因此所列内容与检查器接受的完全一致。"),
        layout_title="规格文件夹",
        layout=(
            "规格文件夹包含 `schema/`(JSON Schema;可选，缺省时使用 opgen 自带的)、`sources/`(规格引用的文档："
            "`sources[].document` 指明其中的文件),以及每个域一个文件夹，内有 `domain.yaml` 和每个算子一个 "
            "`<Op>.yaml`。首行 `# yaml-language-server: $schema=../schema/op.schema.json` 使编辑器在输入时显示下列"
            "字段说明。"),
        fields_title="规格格式：逐个字段",
        fields_intro=(
            "每个表格列出一个对象的字段：路径(`[]` 表示列表中的一项，`*` 表示任意键下的值)、是否必需、类型和允许"
            "的取值，以及含义。`$defs` 中的对象用于类型指向它们的字段。"),
        op_file="算子文件(`<domain>/<Op>.yaml`)",
        domain_file="域文件(`<domain>/domain.yaml`)",
        field="字段", required="必需", type="类型", allowed="允许的取值", description="说明",
        yes="是", no="否", top_level="顶层",
        anchors_title="共用文本：YAML 锚点",
        anchors=(
            "在多处使用的文本(例如每个版本中相同的输入说明)用锚点 `&name` 写一次，再用别名 `*name` 重复引用。"
            "共用文本中的错误只在锚点处报告一次。"),
        formula_title="公式语言(`elementwise`)",
        formula_intro=(
            "逐元素版本给出 `elementwise.formula`:用输入名和属性名写出的输出元素表达式。同一棵语法树分别生成 NumPy "
            "和 C 代码，因此两种内核不会互相偏离。下表列出每个函数、参数个数，以及按操作数种类给出的 NumPy 和 C 写法"
            "(短横线表示该种类没有 C 写法，该类型只生成桩函数)。"),
        function="函数", arity="参数个数", numpy="NumPy",
        operators_title="运算符、比较与 `where`",
        operators=(
            "算术和位运算符：{binops};一元 `-`、`+`、`~` 和 `not`。比较 {cmps} 得到布尔值；`where(cond, a, b)` 逐元素"
            "选择。数字为字面量(整数须在 int64 范围内);enum 或字符串属性可以与一个单词比较，例如 `mode == 'linear'`。"
            "不允许 `and`/`or`、连续比较、条件表达式和下标：请改用 `where()`。"),
        broadcast_title="广播模式(`elementwise.broadcast`)",
        fold_title="折叠可变输入(`fold`、`finish`)",
        fold=(
            "给出 `fold: data_0` 时，公式把累加值 `acc`(第一个张量)与其后每个张量结合，后者以输入名读取：Sum 为 "
            "`formula: acc + data_0`。`finish` 用 `acc`、属性和张量个数 `count(data_0)` 给出输出(Mean:"
            "`finish: acc / count(data_0)`);默认为 `acc`。广播方式为 multidirectional 或 none。"),
        types_title="限定类型(`types`)与缺省值(`absent`)",
        types=(
            "`types` 列出公式适用的张量类型；其他允许的类型没有内核(在说明中写明原因)。`absent` 给出可选输入或无"
            "默认值的属性缺失时的取值：元素类型的 `lowest` 或 `highest`(如 Clip 的 min 和 max)。"),
        check_title="检查语言(`constraints`、`shape`)",
        check_intro=(
            "约束的 `check`(以及 `when`)是类似 Python 的表达式，可使用属性名和下列函数；允许推导式，如 "
            "`all(0 <= a < rank(X) for a in axes)`,不允许赋值和导入。若检查需要模型未给出的形状或取值，则跳过而"
            "不是判为失败。"),
        check_functions_title="检查可调用的函数",
        rules_title="形状规则(`rule:` 加 `args:`)",
        rules_intro=(
            "约束也可以指定 `opgen.runtime.shape_rules` 中的一条规则，并在 `args` 中按名称给出参数。param 类参数指定"
            "一个输入或输出，params 指定它们的列表，attr 指定一个属性；方括号中的参数可选。说明取自规则的文档字符串"
            "(英文)。"),
        rule="规则", arguments="参数",
        shape_title="输出形状(`outputs[].shape`)",
        shape=(
            "非逐元素的输出用检查语言给出其形状，例如 `shape(X)`、`[shape(A)[0], shape(B)[1]]` 或 "
            "`broadcast_shape(A, B)`;可变输出给出形状列表。校验器将声明的形状与之比较。"),
        notes_title="说明(notes)",
        notes=(
            "说明记录源文档读者需要知道的事项。源文本本身有错或有乱码时用 `erratum`(在 `document_says` 中引用原文；"
            "域的勘误页会列出),文本正确但未说明或有歧义、由规格作出选择时用 `decision`,所引参考实现行为不同而规格"
            "遵循文档时用 `reference_difference`,其他情况用 `info`。"
            "`field` 指明所涉及的规格字段(`inputs.slope.type`)。"),
        examples_title="算例",
        examples=(
            "每个算例给出属性、输入和期望输出；生成的测试用 NumPy 和 C 内核运行它们。期望值必须来自源文档或独立的参考"
            "实现(jax.lax、onnx.reference、torch 等),并在 `source` 中注明，绝不能来自规格自身的公式，否则测试不可能"
            "失败。`dtype` 设定类型变量参数的元素类型，`dtypes` 按名称给出不同之处。"),
        versions_title="版本",
        versions=(
            "`versions` 列出算子的各版本，最新的在前；每个 `since_version` 都是域的 opset 版本，一个版本一直有效到下一"
            "个版本。已撤回的版本标记 `deprecated: true`。源文档以其他算子组成的函数定义的版本写 `function: true`,"
            "并把函数体照录到 `function_body`。"),
        example_title="完整示例：添加 `hlir.Foo`",
        step_new="写出初始规格(合法，含有 `opgen lint` 会报告的 TODO 文本):",
        step_fill=("填写各字段：这里是带两个属性的缩放 tanh,有一个公式、一条约束，"
                   "以及两个由 torch 计算期望值的算例。完成后的文件："),
        step_build="生成代码并检查文本：",
        step_python="在 Python 中运行生成的内核和校验器：",
    ),
}
