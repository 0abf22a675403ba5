"""The site's own words (headings, captions, navigation) in English and Chinese; the spec-field
labels come from the docs renderer (opgen.render.docs.LABELS)."""
from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "en": dict(
        site_name="opgen operators", home="Home", home_title="opgen operator reference",
        home_intro="Every operator opgen generates validators, reference kernels, C kernels and tests for, "
                   "one page per operator with every version. Pages are built from the YAML specs; the "
                   "examples were run against the reference kernels when the site was built.",
        n_ops="{n} operators", search_hint="Search finds operators by English or Chinese words (try "
                                           "“activation” or “激活”).",
        domain_title="{domain} operators", index_intro="{n} operators, grouped by category.",
        back_to_index="{domain} operators", errata="Errata", changelog="Changelog",
        changelog_intro="What changed from each version of an operator to the next, as the specs record it.",
        plot_alt="{op} plotted from its reference kernel", plot_caption="Drawn from the reference kernel",
        plot_caption_derivative="Drawn from the reference kernel, with its numerical derivative (dashed)",
        versions_alt="{op}: the versions whose values differ",
        versions_caption="Versions {versions} compute different values: the difference of each from the last, "
                         "from their reference kernels with default attributes.",
        prints="It prints:", not_runnable="This example did not run", when="when",
        note_erratum="Erratum", note_decision="Decision", note_reference_difference="Difference from a reference",
        note_info="Note", document_says="The source document says",
        checker_title="Cases opgen catches beyond onnx.checker",
        checker_intro="Where opgen's validator reports a problem in a model that "
                      "onnx.checker.check_model(full_check=True) accepts (the same text as the project's README).",
        language_name="English", switch_title="English version",
    ),
    "zh": dict(
        site_name="opgen 算子文档", home="首页", home_title="opgen 算子参考",
        home_intro="opgen 为之生成校验器、参考内核、C 内核和测试的全部算子, 每个算子一页, 包含所有版本。"
                   "页面由 YAML 规格生成; 示例的输出是构建网站时运行参考内核得到的。",
        n_ops="{n} 个算子", search_hint="搜索可用中文或英文词查找算子 (例如 “激活” 或 “activation”)。",
        domain_title="{domain} 算子", index_intro="共 {n} 个算子, 按类别分组。",
        back_to_index="{domain} 算子", errata="勘误", changelog="变更记录",
        changelog_intro="按规格记录的每个算子从一个版本到下一个版本的变化。",
        plot_alt="由参考内核绘制的 {op} 曲线", plot_caption="由参考内核绘制",
        plot_caption_derivative="由参考内核绘制, 虚线为其数值导数",
        versions_alt="{op}: 取值不同的各版本",
        versions_caption="版本 {versions} 的计算结果不同: 图为各版本与最后一个版本之差 (各自的参考内核, 默认属性)。",
        prints="输出:", not_runnable="此示例未能运行", when="当",
        note_erratum="勘误", note_decision="决定", note_reference_difference="与参考实现的差异",
        note_info="说明", document_says="源文档原文",
        checker_title="opgen 能发现而 onnx.checker 不能发现的情况",
        checker_intro="opgen 的校验器报告有问题、而 onnx.checker.check_model(full_check=True) 接受的模型"
                      " (与项目 README 中英文的同一节内容相同)。",
        language_name="中文", switch_title="中文版",
    ),
}
