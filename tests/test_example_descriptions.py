"""Every spec example says what it shows, in English and Chinese: the specs carry the sentence, lint
checks it like every other text, and the docs pages, the site's example blocks and `opgen show` print
it in the page's language."""
from __future__ import annotations


import pytest
from click.testing import CliRunner

from opgen.cli import main
from opgen.render.docs import op_page as docs_page
from opgen.show import describe, version_view
from opgen.site.examples import RunExample
from opgen.site.pages import OpExtras, op_page as site_page

from conftest import project_specs, write
from test_spec_errors import DOMAIN, GOOD_OP

ABS_EN = "The absolute value drops the sign of negative inputs and keeps zero and positive ones."
ABS_ZH = "绝对值去掉负输入的符号，零和正输入保持不变。"


def test_every_example_of_every_spec_is_described_in_both_languages():
    specs = project_specs()
    examples = [(v.key, e) for op in specs.ops() for v in op.versions for e in v.examples]
    assert len(examples) >= 283  # the hlir, onnx and onednn examples (shared ones counted per version)
    undescribed = [f"{key} {e.name}" for key, e in examples
                   if not (e.description and (e.description.en or "").strip() and (e.description.zh or "").strip())]
    assert undescribed == []


@pytest.mark.parametrize("description, message", [
    ("{en: Doubles X.}", "examples.e.description: warning: missing Chinese (zh) text"),
    ("{en: TODO say what it shows, zh: 把 X 加倍。}", "examples.e.description: warning: the English (en) text is still a placeholder"),
    ("{en: Doubles X., zh: \"把 X 加倍, 输出 Y。\"}", "examples.e.description: warning: the Chinese text has ASCII ','"),
])
def test_lint_checks_an_example_description_like_other_texts(spec_tree, description, message):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Scale.yaml", GOOD_OP.replace("    elementwise: {formula: alpha * X}\n", f"""\
    elementwise: {{formula: alpha * X}}
    examples:
      - name: e
        description: {description}
        attributes: {{alpha: 2.0}}
        inputs: {{X: [1.0]}}
        outputs: {{Y: [2.0]}}
"""))
    result = CliRunner().invoke(main, ["lint", "--specs", str(spec_tree)])
    assert result.exit_code == 1
    assert f"demo.Scale@2: {message}" in result.output


@pytest.mark.parametrize("lang, sentence", [("en", ABS_EN), ("zh", ABS_ZH)])
def test_docs_site_and_show_print_the_description_in_the_page_language(lang, sentence):
    specs = project_specs()
    op = next(o for o in specs.ops() if o.key == "hlir.Abs")
    domain = next(d for d in specs.domains if d.name == "hlir")
    docs = docs_page(op, domain, lang).decode("utf-8")
    assert f"- **mixed_signs** — {sentence} (the summary formula" in docs
    other = ABS_ZH if lang == "en" else ABS_EN
    assert other not in docs
    extras = OpExtras(examples={1: [RunExample("mixed_signs", "print(1)\n", "1\n")]})
    assert f"**mixed_signs** — {sentence} (" in site_page(op, domain, lang, extras)
    # `opgen show`: its text view and its JSON view (the CLI prints these two)
    assert f"\n    {sentence}\n" in describe(op, op.versions[0], lang)
    assert version_view(op, op.versions[0], lang)["examples"][0]["description"] == sentence
