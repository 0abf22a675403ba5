"""Markdown docs in English and Chinese: a page per op, an index per domain grouped by
category, and an errata page listing every recorded slip of the source documents."""
from __future__ import annotations

import re
from functools import partial
from typing import Any, NamedTuple

from .. import expr
from ..dtypes import type_key
from ..model import FOLD_ACCUMULATOR, NONFINITE, Attribute, Domain, Example, Note, OpSpec, OpVersion, Pairs, Parameter, SpecSet
from . import SharedUnit
from .changelog import changelog
from .common import md_cell, md_code
from .common import render as render_template

LANGS = ("en", "zh")

LABELS = {
    "en": dict(
        domain="Domain", category="Category", versions="Versions", version="Version", sources="Sources",
        section="section", summary="Summary", since="since_version", support="Support level",
        function="Function", shape_inference="Shape inference", deprecated="Deprecated", function_body="Function body",
        attributes="Attributes", inputs="Inputs", outputs="Outputs", type_constraints="Type constraints",
        name="Name", type="Type", default="Default", description="Description", option="Option", shape="Shape", shape_open="not stated",
        allowed="Allowed types", allowed_values="Allowed values", required="required", optional="optional",
        formula="Element-wise formula", constraints="Constraints", examples="Examples", notes="Notes",
        changelog="Changelog", no_changes="no change in the spec's fields", errata="Errata",
        undocumented="Undocumented in the source", follows="follows", reference="reference",
        index_title="operators", ops="ops", errata_title="Errata: slips in the source documents",
        errata_intro="Each entry says what the source text says and what the spec does instead, and why.",
        extension="extension", extensions="Extensions", extensions_title="Extension ops: not in the source document",
        extension_note="not part of the source document; added for real programs of this dialect, following its "
                       "published specification. See", specification="Specification",
        extensions_intro="Operations that real programs emit but the source document lacks. Each follows the "
                         "published specification of the dialect named "
                         "(StableHLO: https://openxla.org/stablehlo/spec); its texts are the project's own, "
                         "and the checks against the source document leave it out.",
        document_says="Document says", field="Field", op="Op", yes="yes", no="no", none="none",
        by_category="By category", language_link="中文", guide="Writing a spec: the spec-authoring guide",
        variadic="variadic", single="single", homogeneous="homogeneous", heterogeneous="heterogeneous",
        each="each", example_inputs="inputs", example_outputs="outputs", example_attributes="attributes",
        when_absent="When not given", lowest="the lowest finite value of the element type",
        highest="the highest finite value of the element type",
        fold_each="for each further tensor of {name}, in order; computed in the compute type, rounded once",
    ),
    "zh": dict(
        domain="域", category="类别", versions="版本", version="版本", sources="来源", section="节",
        summary="概要", since="自版本", support="支持级别", function="函数", shape_inference="形状推断", deprecated="已弃用",
        function_body="函数体", attributes="属性", inputs="输入", outputs="输出", type_constraints="类型约束",
        name="名称", type="类型", default="默认值", description="描述", option="选项", shape="形状", shape_open="未给出", allowed="允许的类型",
        allowed_values="允许的取值", required="必需", optional="可选", formula="逐元素公式", constraints="约束",
        examples="示例", notes="说明", changelog="变更记录", no_changes="规格字段无变化", errata="勘误",
        undocumented="源文档中无内容", follows="遵循", reference="参考",
        index_title="算子", ops="个算子", errata_title="勘误: 源文档中的错误",
        errata_intro="每一条说明源文本的写法、规格的处理方式及其理由。",
        extension="扩展", extensions="扩展算子", extensions_title="扩展算子: 源文档中没有的运算",
        extension_note="不属于源文档;为表达该方言的实际程序而添加,遵循其公开规范。参见", specification="规范",
        extensions_intro="实际程序会产生、但源文档中没有的运算。每个运算遵循所注明方言的公开规范 "
                         "(StableHLO: https://openxla.org/stablehlo/spec);文字由本项目自行撰写,与源文档的比对检查不包括它们。",
        document_says="文档原文", field="字段", op="算子", yes="是", no="否", none="无",
        by_category="按类别", language_link="English", guide="编写规格:规格编写指南",
        variadic="可变", single="单个", homogeneous="同质", heterogeneous="异质",
        each="每个", example_inputs="输入", example_outputs="输出", example_attributes="属性",
        when_absent="未给出时", lowest="元素类型的最小有限值", highest="元素类型的最大有限值",
        fold_each="依次对 {name} 的其余每个张量; 以计算类型进行, 最后只舍入一次",
    ),
}

CATEGORIES = {
    "elementwise_math": ("Element-wise math", "逐元素数学运算"),
    "activation": ("Activations", "激活函数"),
    "logic_comparison": ("Logic and comparison", "逻辑与比较"),
    "reduction_normalization": ("Reductions and normalisation", "归约与归一化"),
    "data_movement_indexing": ("Data movement and indexing", "数据搬移与索引"),
    "convolution_pooling": ("Convolution and pooling", "卷积与池化"),
    "linear_algebra": ("Linear algebra", "线性代数"),
    "vision": ("Vision", "视觉"),
    "random": ("Random", "随机数"),
    "control_flow": ("Control flow", "控制流"),
    "quantization": ("Quantization", "量化"),
    "sequence_optional": ("Sequences and optionals", "序列与可选值"),
    "recurrent": ("Recurrent networks", "循环神经网络"),
    "text": ("Text and strings", "文本与字符串"),
    "signal": ("Signal processing", "信号处理"),
}


def category_title(category: str, lang: str) -> str:
    en, zh = CATEGORIES[category]
    return en if lang == "en" else zh


def fence(text: str) -> str:
    """A code fence longer than any backtick run inside `text`."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def default_text(a: Attribute, L: dict[str, str]) -> str:
    if a.required:
        return L["required"]
    if a.has_default:
        return repr(a.default) if isinstance(a.default, str) else str(a.default).lower() \
            if isinstance(a.default, bool) else str(a.default)
    if a.default_each is not None:
        return f"{a.default_each} ({L['each']})"
    return L["optional"]


def param_option(p: Parameter, L: dict[str, str]) -> str:
    text = L[p.option] if p.option in L else p.option
    if p.option == "variadic":
        text += f", {L['homogeneous'] if p.homogeneous else L['heterogeneous']}"
    return text


def formula_lines(v: OpVersion, L: dict[str, str]) -> list[str]:
    """The formula as the docs show it: `output = formula`, or a fold's three steps (first tensor, each further
    one, finish), all re-emitted from the parsed tree."""
    ew = v.elementwise
    if ew is None:
        return []
    if ew.fold is None:
        return [f"{ew.output} = {expr.canonical(ew.formula)}"]
    return [f"{FOLD_ACCUMULATOR} = {ew.fold}[0]",
            f"{FOLD_ACCUMULATOR} = {expr.canonical(ew.formula)}    # {L['fold_each'].format(name=ew.fold)}",
            f"{ew.output} = {expr.canonical(ew.finish_formula())}"]


def version_view(v: OpVersion, lang: str) -> dict[str, Any]:
    L = LABELS[lang]
    meta: list[tuple[str, Any]] = [(L["since"], v.since_version)]
    if v.support_level:
        meta.append((L["support"], v.support_level))
    if v.function is not None:
        meta.append((L["function"], L["yes"] if v.function else L["no"]))
    if v.shape_inference is not None:
        meta.append((L["shape_inference"], L["yes"] if v.shape_inference else L["no"]))
    if v.deprecated:
        meta.append((L["deprecated"], L["yes"]))
    return dict(
        v=v, meta=meta, summary=v.summary.get(lang),
        body_fence=fence(v.function_body or ""),
        formula_lines=formula_lines(v, L),
        absent=[(name, L[which]) for name, which in v.elementwise.absent] if v.elementwise else [],
        attributes=[dict(name=a.name, type=a.type, default=default_text(a, L),
                         values=", ".join(map(str, a.values)), description=a.description.get(lang))
                    for a in v.attributes],
        inputs=[dict(name=p.name, type=p.type, option=param_option(p, L), description=p.description.get(lang))
                for p in v.inputs],
        outputs=[dict(name=p.name, type=p.type, option=param_option(p, L), description=p.description.get(lang),
                      shape=expr.canonical(shape) if (shape := v.output_shape(p)) else "")
                 for p in v.outputs],
        type_constraints=[dict(name=t.name, types=", ".join(t.types), description=t.description.get(lang))
                          for t in v.type_constraints],
        constraints=[dict(id=c.id, code=expr.canonical(c.check) if c.check else
                          f"{c.rule}({', '.join(f'{k}={a}' for k, a in c.args)})",
                          when=expr.canonical(c.when) if c.when else None, description=c.description.get(lang))
                     for c in v.constraints],
        examples=[example_view(v, e, lang) for e in v.examples],
        notes=[note_view(n, lang) for n in v.notes],
    )


def graph_text(graph: Pairs) -> str:
    """A graph attribute of an example as a line a reader follows: `(p) -> r { r = Neg(p) }`."""
    g = graph.as_dict()

    def names(items: Any) -> str:
        return ", ".join(str(i.get("name", "?")) if isinstance(i, dict) else str(i) for i in items or ())

    def attrs(node: dict[str, Any]) -> str:
        given = node.get("attributes") or {}
        return "[" + ", ".join(f"{k}={tensor_text(v)}" for k, v in given.items()) + "]" if given else ""

    steps = "; ".join(f"{names(n.get('outputs'))} = {n.get('op', '?')}{attrs(n)}({names(n.get('inputs'))})"
                      for n in g.get("nodes", ()) if isinstance(n, dict))
    return f"graph ({names(g.get('inputs'))}) -> {names(g.get('outputs'))} {{ {steps} }}"


def tensor_text(value: Any) -> str:
    """An example value as an array literal: nested lists, numbers as written, booleans lower case
    (a graph attribute as its nodes, see graph_text)."""
    if isinstance(value, Pairs):
        return graph_text(value)
    if isinstance(value, (tuple, list)):
        return "[" + ", ".join(tensor_text(x) for x in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value in NONFINITE else repr(value)
    return str(value)


def example_view(v: OpVersion, e: Example, lang: str) -> dict[str, Any]:
    """An example as rows `name = value (element type)`; the element type as the test reads it; its
    description (what it shows) in `lang`, empty when the spec has none."""
    dtypes = dict(e.dtypes)

    def elem(p: Any) -> str:
        return type_key(p.type) if p.is_fixed else dtypes.get(p.name, e.dtype)

    params = {p.name: p for p in v.inputs + v.outputs}
    return dict(name=e.name, source=e.source, description=e.description.get(lang) if e.description else "",
                attributes=[(name, tensor_text(value)) for name, value in e.attributes],
                inputs=[(name, tensor_text(value), elem(params[name])) for name, value in e.inputs],
                outputs=[(name, tensor_text(value), elem(params[name])) for name, value in e.outputs])


def note_view(n: Note, lang: str) -> dict[str, Any]:
    return dict(id=n.id, kind=n.kind, field=n.field, document_says=n.document_says, text=n.text.get(lang))


def op_page(op: OpSpec, domain: Domain, lang: str) -> bytes:
    L = LABELS[lang]
    log = [dict(old=old, new=new, changes=[c.text(lang) for c in changes]) for old, new, changes in changelog(op)]
    other = "zh" if lang == "en" else "en"
    return render_template(
        "docs/op.md.j2", op=op, L=L, lang=lang, category=category_title(op.category, lang),
        versions=[version_view(v, lang) for v in op.versions], changelog=log,
        notes=[note_view(n, lang) for n in op.notes],
        explanation=op.provenance.explanation.get(lang) if op.provenance.explanation else "",
        other_link=f"../../{other}/{domain.name}/{op.name}.md")


class OpListing(NamedTuple):
    """What the pages listing a domain's ops (index, errata, extensions) show of one op: its table
    rows, in each language, as finished Markdown lines. `opgen build` keeps it in the summary of each
    op it caches (opgen.build_cache.LazyOp), so an edit re-renders these pages without unpickling
    an op or laying out any other op's rows."""

    category: str
    index_row: dict[str, str]  # lang -> the op's row in the index
    errata_rows: dict[str, tuple[str, ...]]  # lang -> a row per erratum note (none: not on the errata page)
    extension_row: dict[str, str] | None  # lang -> its row on the extensions page; None: not an extension


def op_listing(op: OpSpec) -> OpListing:
    """The op's OpListing: the one an op from the build cache carries, else computed from the op.
    The rows are the table lines the templates (docs/index.md.j2, errata.md.j2, extensions.md.j2)
    once wrote cell by cell, with the same filters."""
    carried: OpListing | None = getattr(op, "listing", None)  # a LazyOp's summary field; an OpSpec has none
    if carried is not None:
        return carried
    errata = [n for n in op.all_notes() if n.kind == "erratum"]
    versions = ", ".join(str(v.since_version) for v in op.versions)
    index_row, errata_rows, extension_row = {}, {}, {}
    for lang in LANGS:
        L = LABELS[lang]
        summary = md_cell(_first_sentence(op.versions[0].summary.get(lang)))
        marks = ("" if op.provenance.documented else f" ({L['undocumented']})") + \
            (f" ({L['extension']})" if op.extension else "")
        index_row[lang] = f"| [{op.name}]({op.name}.md){marks} | {versions} | {summary} |"
        errata_rows[lang] = tuple(
            f"| [{op.name}]({op.name}.md) | {_version_of(op, n)} | {md_cell(n.field)} | {md_cell(n.document_says)} "
            f"| {md_cell(n.text.get(lang))} |" for n in errata)
        sections = ", ".join(s.section or s.url or "" for s in op.sources)
        extension_row[lang] = f"| [{op.name}]({op.name}.md) | {md_code(op.extension)} | {md_cell(sections)} | {summary} |"
    return OpListing(op.category, index_row, errata_rows, extension_row if op.extension else None)


def index_page(domain: Domain, lang: str, listings: list[OpListing] | None = None) -> bytes:
    listings = [op_listing(o) for o in domain.ops] if listings is None else listings
    groups = []
    for cat in CATEGORIES:
        rows = [entry.index_row[lang] for entry in listings if entry.category == cat]
        if rows:
            groups.append(dict(title=category_title(cat, lang), rows=rows))
    errata = sum(len(entry.errata_rows[lang]) for entry in listings)
    return render_template("docs/index.md.j2", domain=domain, L=LABELS[lang], lang=lang, groups=groups,
                           description=domain.description.get(lang),
                           versioning=domain.versioning.get(lang) if domain.versioning else "",
                           n_errata=errata, n_extensions=sum(1 for entry in listings if entry.extension_row))


def extensions_page(domain: Domain, lang: str, listings: list[OpListing] | None = None) -> bytes:
    """The ops a domain adds beyond its source document (`extension`), with the sections of the
    specification each one follows."""
    listings = [op_listing(o) for o in domain.ops] if listings is None else listings
    rows = [entry.extension_row[lang] for entry in listings if entry.extension_row]
    return render_template("docs/extensions.md.j2", domain=domain, L=LABELS[lang], rows=rows)


def errata_page(domain: Domain, lang: str, listings: list[OpListing] | None = None) -> bytes:
    # The page lists the notes of kind erratum, by one rule (the schema's description of `kind`): an
    # erratum is text that is wrong or garbled as written (a typo, a wrong type spelling, a missing or
    # duplicated word, text run onto the wrong heading); a decision is correct text that is silent or
    # ambiguous, where the spec chooses. Decisions are not slips and stay on the op pages only.
    listings = [op_listing(o) for o in domain.ops] if listings is None else listings
    rows = [row for entry in listings for row in entry.errata_rows[lang]]
    return render_template("docs/errata.md.j2", domain=domain, L=LABELS[lang], rows=rows)


def _version_of(op: OpSpec, note: Note) -> str:
    """The versions a note concerns: those that hold it; for an op-level note whose field names a
    version (versions.<since_version>.…), that version; otherwise every version."""
    owners = [v.since_version for v in op.versions if note in v.notes]
    if owners:
        return ", ".join(map(str, owners))
    m = re.match(r"versions\.(\d+)(\.|$)", note.field or "")
    if m and int(m.group(1)) in {v.since_version for v in op.versions}:
        return m.group(1)
    return ", ".join(str(v.since_version) for v in op.versions)


def _first_sentence(text: str) -> str:
    text = text.strip().split("\n")[0]
    m = re.match(r"(.+?[.。])(\s|$)", text)
    return (m.group(1) if m else text)[:160]


OP_TEMPLATES = ("docs/op.md.j2",)  # what op_files renders (compiled before a build forks)


def op_files(op: OpSpec, domain: Domain) -> dict[str, bytes]:
    return {f"docs/{lang}/{domain.name}/{op.name}.md": op_page(op, domain, lang) for lang in LANGS}


def shared_units(specs: SpecSet) -> list[SharedUnit]:
    """The pages that list several ops: the root index, each domain's index, errata page and, where it
    has extension ops, extensions page; and the spec-authoring guide (it depends on the schemas and the
    generator's tables, not on one op)."""
    root_fingerprint = tuple((d.name, len(d.ops), d.description) for d in specs.domains)
    # The guide reads the spec folder's own schemas only when it has domains (opgen's otherwise).
    units = [SharedUnit("docs-guide", None, bool(specs.domains), lambda: _guide_files(specs)),
             SharedUnit("docs-root", None, root_fingerprint, lambda: _root_files(specs))]
    units += [SharedUnit(f"docs-domain-{d.name}", d.name, None, partial(_domain_files, d)) for d in specs.domains]
    return units


def _guide_files(specs: SpecSet) -> dict[str, bytes]:
    from .guide import guide_files  # imports the shape rules (and NumPy): only when the guide is rendered

    return guide_files(specs)


def _root_files(specs: SpecSet) -> dict[str, bytes]:
    return {f"docs/{lang}/index.md": render_template(
        "docs/root.md.j2", L=LABELS[lang], domains=[dict(name=d.name, n=len(d.ops), description=d.description.get(lang))
                                                    for d in specs.domains])
            for lang in LANGS}


def _domain_files(domain: Domain) -> dict[str, bytes]:
    listings = [op_listing(o) for o in domain.ops]  # from the ops' cached summaries: no op is unpickled
    files: dict[str, bytes] = {}
    for lang in LANGS:
        files[f"docs/{lang}/{domain.name}/index.md"] = index_page(domain, lang, listings)
        files[f"docs/{lang}/{domain.name}/errata.md"] = errata_page(domain, lang, listings)
        if any(entry.extension_row for entry in listings):
            files[f"docs/{lang}/{domain.name}/extensions.md"] = extensions_page(domain, lang, listings)
    return files
