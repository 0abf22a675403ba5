"""Spec text never becomes code or markup: formulas are re-emitted from their parsed tree (comments
refused), texts reach Python only as repr() literals, C only inside defused comments, Markdown
only escaped; control characters, unsafe URLs and oversized expressions are located spec errors."""
from __future__ import annotations

import ast
import importlib.util
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from opgen.cli import main

from conftest import empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP

PAYLOADS = [
    '<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '[click](javascript:alert(1))',
    '<javascript:alert(1)>', '![x](javascript:alert(2))', '<a href="javascript:alert(3)">a</a>',
    'ends """ a docstring', "ends ''' another", '*/ closes a C comment', '??/ a trigraph', 'back\\slash',
    '{{ jinja }} {% raw %}', '`code` | pipe', '<!-- comment -->',
]
HOSTILE = " ".join(PAYLOADS)


def build(specs: Path, out: Path):
    return CliRunner().invoke(main, ["build", "--specs", str(specs), "--out", str(out)])


def hostile_op() -> str:
    """GOOD_OP with the hostile text in every free-text field the format has."""
    q = json.dumps(HOSTILE)  # a JSON string is a valid YAML double-quoted scalar
    text = GOOD_OP.replace("{en: Factor., zh: 系数。}", "{en: " + q + ", zh: " + q + "}")
    text = text.replace("summary: {en: Scales X., zh: 缩放 X。}", "summary: {en: " + q + ", zh: " + q + "}")
    text = text.replace("{en: Input., zh: 输入。}", "{en: " + q + ", zh: " + q + "}")
    text = text.replace("    elementwise: {formula: alpha * X}\n", f"""\
    elementwise: {{formula: alpha * X}}
    constraints:
      - id: C1
        description: {{en: {q}, zh: {q}}}
        check: alpha > -1e9
    examples:
      - name: ex
        source: {q}
        inputs: {{X: [1.0, 2.0]}}
        outputs: {{Y: [1.0, 2.0]}}
    notes:
      - id: n1
        kind: erratum
        field: {q}
        document_says: {q}
        text: {{en: {q}, zh: {q}}}
""")
    return text


def _project(tmp: Path, op_text: str) -> Path:
    specs = empty_spec_tree(tmp / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Scale.yaml", op_text)
    return specs


def _ast_without_strings(source: str) -> str:
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            node.value = "<text>"
    return ast.dump(tree)


_C_NOISE = re.compile(r'/\*.*?\*/|"(?:\\.|[^"\\])*"', re.S)


def _c_tokens(source: str) -> list[str]:
    return re.findall(r"[A-Za-z_]\w*|\d[\w.]*|\S", _C_NOISE.sub(" ", source))


@pytest.fixture(scope="module")
def trees(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    plain, hostile = tmp / "plain", tmp / "hostile"
    for folder, text in ((plain, GOOD_OP), (hostile, hostile_op())):
        result = build(_project(folder, text), folder / "out")
        assert result.exit_code == 0, result.output
    return plain / "out", hostile / "out"


def test_hostile_text_changes_no_python_but_its_string_literals(trees, tmp_path, monkeypatch):
    plain, hostile = trees
    module = "python/opgen_ops/demo/scale.py"
    source = (hostile / module).read_text()
    compile(source, module, "exec")
    # The hostile build has a constraint and an example the plain one lacks: compare the kernel.
    kernel_of = lambda text: ast.get_source_segment(text, next(  # noqa: E731
        n for n in ast.parse(text).body if isinstance(n, ast.FunctionDef) and n.name == "kernel_v2"))
    assert _ast_without_strings(kernel_of(source)) == _ast_without_strings(kernel_of((plain / module).read_text()))
    monkeypatch.chdir(tmp_path)
    spec = importlib.util.spec_from_file_location("hostile_scale", hostile / module)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    assert loaded.kernel_v2([1.0, 2.0], alpha=2.0)[0].tolist() == [2.0, 4.0]
    assert HOSTILE in loaded.SIGNATURE_V2.checks[0].message  # carried intact, as data
    assert list(tmp_path.iterdir()) == []  # nothing ran: no file appeared


def test_hostile_text_changes_no_c_but_its_comments(trees, tmp_path):
    plain, hostile = trees
    for rel in ("c/include/opgen/demo/scale.h", "c/src/demo/scale.c"):
        assert _c_tokens((hostile / rel).read_text()) == _c_tokens((plain / rel).read_text()), rel
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-Wtrigraphs", "-c",
                    str(hostile / "c" / "src" / "demo" / "scale.c"), "-I", str(hostile / "c" / "include"),
                    "-o", str(tmp_path / "scale.o")], check=True)


def test_hostile_text_is_no_markup_in_the_docs(trees):
    _, hostile = trees
    md = MarkdownIt("commonmark").enable("table")
    pages = sorted((hostile / "docs").rglob("*.md"))
    assert len(pages) == 10  # per language: the op page, the root and domain indexes, the errata page, the guide
    for page in pages:
        html = md.render(page.read_text())
        assert not re.search(r"<(script|img|a\s+href=\"javascript)", html, re.I), page
        assert "javascript:" not in " ".join(re.findall(r'(?:href|src)="([^"]*)"', html)), page
        assert "<!-- comment -->" not in html, page
    scale = (hostile / "docs" / "en" / "demo" / "Scale.md").read_text()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in scale  # shown as text, not dropped


def _errors(tmp: Path, op_text: str) -> str:
    out = tmp / "out"
    result = build(_project(tmp, op_text), out)
    assert result.exit_code == 1, result.output
    assert "Traceback" not in result.output and not out.exists()
    return result.output


def _balanced_sum(depth: int) -> str:
    return "X" if depth == 0 else f"({_balanced_sum(depth - 1)}+{_balanced_sum(depth - 1)})"


@pytest.mark.parametrize("formula, expected", [
    ('(X #"""; open("pwned.txt", "w").write("x"); """\n)', "comments (#) are not allowed"),
    ("X * 1e999", "not finite"),
    ("X * " + "9" * 400, "int64 range"),
    ("-" * 1500 + "X", "nested too deeply"),
    (" + ".join(["X"] * 600), "at most 2000"),
    (_balanced_sum(8), "too large"),  # 511 parts, 8 deep
])
def test_formulas_that_would_smuggle_or_break_code_are_located_errors(tmp_path, formula, expected):
    text = GOOD_OP.replace("formula: alpha * X", "formula: " + json.dumps(formula))
    output = _errors(tmp_path, text)
    assert "Scale.yaml:" in output and "elementwise.formula" in output and expected in output, output


@pytest.mark.parametrize("check, expected", [
    ("len([0] * 10**10) > 0", "** is not allowed"),
    ("len([0] * rank(X)) > 0", "repeating a list"),
    ("alpha > 0 # comment", "comments (#)"),
])
def test_checks_that_would_run_away_are_located_errors(tmp_path, check, expected):
    text = GOOD_OP.replace("    elementwise:", f"    constraints:\n      - id: C1\n        description: {{en: x, zh: x}}\n"
                                               f"        check: {json.dumps(check)}\n    elementwise:")
    output = _errors(tmp_path, text)
    assert "constraints.C1.check" in output and expected in output, output


@pytest.mark.parametrize("edit, expected", [
    (("summary: {en: Scales X.", 'summary: {en: "Scales\\0 X."'), "control character U+0000"),
    (("summary: {en: Scales X.", 'summary: {en: "Scales \\e[31mX."'), "control character U+001B"),
    (("sources: [{document: demo.txt}]", "sources: [{document: demo.txt, url: 'javascript:alert(1)'}]"),
     "not a web address"),
    (("sources: [{document: demo.txt}]", "sources: [{document: ../../etc/passwd}]"), "is not in sources/"),
    (("sources: [{document: demo.txt}]", "sources: [{document: missing.txt}]"), "known: demo.txt"),
    (("since_version: 2", "since_version: 2.0"), "not a whole number"),
    (("- name: X\n", '- name: "X\\n"\n'), "is not an identifier"),
    (("name: Scale\n", "name: Scale" + "e" * 120 + "\n"), "is not an identifier"),
])
def test_bad_text_and_names_are_located_errors(tmp_path, edit, expected):
    old, new = edit
    assert old in GOOD_OP
    text = GOOD_OP.replace(old, new)
    output = _errors(tmp_path, text)
    assert "Scale.yaml:" in output and expected in output, output


@pytest.mark.parametrize("name", ["np", "compute", "_ew", "float", "i", "status", "int64_t", "NULL", "_Bool",
                                  "X_shape", "X_", "X_rank", "has_X", "opgen_x", "kernel_v2"])
def test_names_that_would_clash_in_generated_code_are_refused(tmp_path, name):
    text = GOOD_OP.replace("      - name: alpha\n", f"      - name: '{name}'\n").replace("alpha * X", f"{name} * X")
    output = _errors(tmp_path, text)
    assert f"attributes.{name}" in output and "choose another name" in output, output


def test_c_library_names_are_renamed_in_c(tmp_path):
    """An attribute named like a C library function (ONNX Mod's `fmod`) is accepted: the typed C kernel
    spells it with a trailing "_", so the function stays visible in the body, and the result compiles."""
    text = GOOD_OP.replace("      - name: alpha\n", "      - name: expf\n").replace("alpha * X", "expf * exp(X)")
    out = tmp_path / "out"
    result = build(_project(tmp_path, text), out)
    assert result.exit_code == 0, result.output
    source = (out / "c" / "src" / "demo" / "scale.c").read_text()
    assert "double expf_," in source and "(float)expf_;" in source and "expf(X_v)" in source
    cc = shutil.which("cc") or shutil.which("gcc")
    done = subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(out / "c" / "include"), "-c",
                           str(out / "c" / "src" / "demo" / "scale.c"), "-o", str(tmp_path / "scale.o")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("names, expected", [(("And", "and_"), "same file names"), (("Scale", "__init__"), "overwrite")])
def test_op_names_that_would_share_a_generated_file_are_refused(tmp_path, names, expected):
    specs = _project(tmp_path, GOOD_OP)
    for name in names:
        write(specs / "demo" / f"{name}.yaml", GOOD_OP.replace("name: Scale", f"name: {name}"))
    result = build(specs, tmp_path / "out")
    assert result.exit_code == 1 and expected in result.output and "Traceback" not in result.output, result.output


def test_a_broadcast_mode_needs_its_rule(tmp_path):
    text = GOOD_OP.replace("elementwise: {formula: alpha * X}", "elementwise: {formula: alpha * X, broadcast: unidirectional}")
    output = _errors(tmp_path, text)
    assert "elementwise.broadcast" in output and "unidirectional_broadcast" in output, output


def test_a_runaway_range_in_a_check_fails_fast_instead_of_hanging(tmp_path):
    text = GOOD_OP.replace("    elementwise:", "    constraints:\n      - id: C1\n        description: {en: x, zh: x}\n"
                                               "        check: sum(range(1000000000000)) >= 0\n    elementwise:")
    out = tmp_path / "out"
    result = build(_project(tmp_path, text), out)
    assert result.exit_code == 0, result.output
    spec = importlib.util.spec_from_file_location("runaway_scale", out / "python" / "opgen_ops" / "demo" / "scale.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    problems = module.validate_v2([("float", (2,))], {})
    assert len(problems) == 1 and "C1" in str(problems[0]) and "at most 1000000" in str(problems[0]), problems


@pytest.mark.parametrize("formula, types, refused", [
    ("maximum(0, minimum(1, alpha * X + alpha))", "[tensor(int8), tensor(float)]", True),  # the case
    ("maximum(0, minimum(1, alpha * X + alpha))", '["@float"]', False),
    ("where(X < 0, mul_trunc(alpha, X), X)", "[tensor(int8), tensor(float)]", False),  # defined truncation
    ("where(X < 0, mul_trunc(alpha, X) * alpha, X)", "[tensor(int32)]", True),
])
def test_a_float_attribute_may_not_meet_integer_element_types(tmp_path, formula, types, refused):
    """One typing rule for both emitters: the formula computes in the input's element type, so over
    integers a float attribute would be truncated (C) or promote the result (NumPy): refused."""
    text = GOOD_OP.replace("formula: alpha * X", f"formula: {json.dumps(formula)}").replace(
        'types: ["@float"]', f"types: {types}")
    result = build(_project(tmp_path, text), tmp_path / "out")
    if refused:
        assert result.exit_code == 1 and "elementwise.formula" in result.output and "meet integer element types" \
            in result.output and "alpha" in result.output, result.output
    else:
        assert result.exit_code == 0, result.output
