"""Bad specs: every error class names file:line:column, op@version, field and what was expected;
all errors of a run come together; the CLI exits non-zero without a traceback and writes nothing."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen.cli import main
from opgen.parse import load_specs

from conftest import write

DOMAIN = """\
name: demo
description: {en: Demo domain., zh: 演示域。}
opset_versions: [1, 2, 3]
type_groups:
  float:
    types: [tensor(float), tensor(double)]
    description: {en: Floats., zh: 浮点。}
"""

GOOD_OP = """\
name: Scale
domain: demo
category: activation
sources: [{document: demo.txt}]
versions:
  - since_version: 2
    summary: {en: Scales X., zh: 缩放 X。}
    attributes:
      - name: alpha
        type: float
        default: 1.0
        description: {en: Factor., zh: 系数。}
    inputs:
      - name: X
        type: T
        description: {en: Input., zh: 输入。}
    outputs:
      - name: Y
        type: T
        description: {en: Output., zh: 输出。}
    type_constraints:
      - name: T
        types: ["@float"]
        description: {en: Floats., zh: 浮点。}
    elementwise: {formula: alpha * X}
"""


def errors_for(spec_tree: Path, op_text: str, name: str = "Scale") -> list[str]:
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / f"{name}.yaml", op_text)
    _, errors = load_specs(spec_tree)
    return [str(e) for e in errors if e.severity == "error"]


def test_good_spec_has_no_errors(spec_tree):
    assert errors_for(spec_tree, GOOD_OP) == []


def test_formula_reading_an_optional_input_says_what_it_takes_when_absent(spec_tree):
    with_b = GOOD_OP.replace("        description: {en: Input., zh: 输入。}\n", "        description: {en: Input., zh: 输入。}\n"
                             "      - {name: B, type: T, option: optional, description: {en: Bound., zh: 界。}}\n")
    errors = errors_for(spec_tree, with_b.replace("{formula: alpha * X}", "{formula: 'maximum(X, B)'}"))
    assert any("elementwise.absent: the formula reads optional input 'B'" in e for e in errors), errors
    assert errors_for(spec_tree, with_b.replace("{formula: alpha * X}",
                                                "{formula: 'maximum(X, B)', absent: {B: lowest}}")) == []
    errors = errors_for(spec_tree, with_b.replace("{formula: alpha * X}", "{formula: X, absent: {B: lowest}}"))
    assert any("elementwise.absent.B: the formula does not read it" in e for e in errors), errors


# GOOD_OP with X variadic: a fold of alpha-scaled sums (Sum-like).
VARIADIC_OP = GOOD_OP.replace("        type: T\n        description: {en: Input., zh: 输入。}\n",
                              "        type: T\n        option: variadic\n        description: {en: Input., zh: 输入。}\n") \
    .replace("{formula: alpha * X}", "{formula: acc + alpha * X, fold: X}")


def test_fold_over_a_variadic_input_is_accepted(spec_tree):
    assert "option: variadic" in VARIADIC_OP
    assert errors_for(spec_tree, VARIADIC_OP) == []
    mean = VARIADIC_OP.replace("fold: X}", "fold: X, finish: acc / count(X), broadcast: none}")
    assert errors_for(spec_tree, mean) == []


@pytest.mark.parametrize("change,expected", [
    # a variadic input read without fold
    (("{formula: acc + alpha * X, fold: X}", "{formula: alpha * X}"),
     "demo.Scale@2: elementwise: an element-wise formula reads a variadic input by folding over it: give "
     "elementwise.fold"),
    # fold over an input that does not exist
    (("fold: X}", "fold: Z}"), "demo.Scale@2: elementwise.fold: no input named 'Z'; a fold takes the op's variadic "
                               "input (X)"),
    # the formula of a fold reads the accumulator and the next tensor
    (("{formula: acc + alpha * X,", "{formula: alpha * X,"),
     "demo.Scale@2: elementwise.formula: a fold's formula combines the accumulator acc with the next tensor X; "
     "it does not read acc"),
    # finish reads the accumulator, not the tensors
    (("fold: X}", "fold: X, finish: X / 2}"), "demo.Scale@2: elementwise.finish: unknown name 'X'; expected one of: "
                                             "acc, alpha"),
    # count() takes the folded input
    (("fold: X}", "fold: X, finish: acc / count(alpha)}"),
     "demo.Scale@2: elementwise.finish: count() takes the folded input's name: count(X)"),
    # a fold broadcasts multidirectionally or not at all
    (("fold: X}", "fold: X, broadcast: xla}"),
     "demo.Scale@2: elementwise.broadcast: a fold broadcasts its tensors multidirectionally, or not at all (none); "
     "not xla"),
    # an output shape other than the fold's broadcasting gives
    (("        description: {en: Output., zh: 输出。}\n", "        description: {en: Output., zh: 输出。}\n"
      "        shape: shapes(X)[0]\n"),
     "demo.Scale@2: outputs.Y.shape: the stated shape 'shapes(X)[0]' is not the one the fold's multidirectional "
     "broadcasting gives (broadcast_shape(X))"),
    # a parameter named like the accumulator
    (("name: alpha\n", "name: acc\n"), "demo.Scale@2: elementwise.fold: the accumulator of a fold is named 'acc', "
                                        "as is a parameter or attribute of this version"),
])
def test_fold_misuse_is_located(spec_tree, change, expected):
    old, new = change
    assert old in VARIADIC_OP
    errors = errors_for(spec_tree, VARIADIC_OP.replace(old, new))
    assert any(expected in e for e in errors), errors
    assert all(re.match(r"\S*Scale\.yaml:\d+:\d+: demo\.Scale@2: ", e) for e in errors), errors  # file:line:col


def test_fold_over_a_single_input_or_without_fold(spec_tree):
    """fold names a variadic input; finish and count() belong to a fold."""
    errors = errors_for(spec_tree, GOOD_OP.replace("{formula: alpha * X}", "{formula: acc + X, fold: X}"))
    assert any("demo.Scale@2: elementwise.fold: input 'X' is not variadic; a fold runs over the tensors of a "
               "variadic input" in e for e in errors), errors
    errors = errors_for(spec_tree, GOOD_OP.replace("{formula: alpha * X}", "{formula: alpha * X, finish: acc}"))
    assert any("demo.Scale@2: elementwise.finish: finish applies to a fold: give elementwise.fold too" in e
               for e in errors), errors
    errors = errors_for(spec_tree, GOOD_OP.replace("{formula: alpha * X}", "{formula: X / count(X)}"))
    assert any("elementwise.formula: count() counts the tensors of a folded variadic input; this formula folds none"
               in e for e in errors), errors


@pytest.mark.parametrize("change,expected", [
    # duplicate key
    (("    summary: {en: Scales X., zh: 缩放 X。}\n", "    summary: {en: Scales X., zh: 缩放 X。}\n    summary: {en: again}\n"),
     "specs/demo/Scale.yaml:8:5: duplicate key 'summary' (first given at line 7)"),
    # unknown key
    (("        default: 1.0\n", "        default: 1.0\n        defualt: 2.0\n"),
     "specs/demo/Scale.yaml:12:9: demo.Scale: versions[0].attributes[0].defualt: unknown key 'defualt' (did you mean 'default' or 'default_each'?); allowed keys:"),
    # wrong type
    (("  - since_version: 2\n", "  - since_version: two\n"),
     "specs/demo/Scale.yaml:6:20: demo.Scale: versions[0].since_version: 'two' has the wrong type; expected integer"),
    # a name that is not an identifier / path-like
    (("name: Scale\n", "name: ../Scale\n"),
     "specs/demo/Scale.yaml:1:7: demo.Scale: name: '../Scale' is not allowed here; expected a string matching"),
    # unknown type variable
    (("      - name: X\n        type: T\n", "      - name: X\n        type: U\n"),
     "demo.Scale@2: inputs.X.type: unknown type variable 'U'; declared: T"),
    # default of the wrong type
    (("        default: 1.0\n", "        default: one\n"),
     "demo.Scale@2: attributes.alpha.default: default 'one' is not of the attribute's type float"),
    # unknown element type and unknown group
    (('        types: ["@float"]\n', '        types: ["@floats", tensor(float128)]\n'),
     "demo.Scale@2: type_constraints.T: unknown type group @floats; groups of domain demo: float"),
    # invalid YAML
    (("    summary: {en: Scales X., zh: 缩放 X。}\n", "    summary: {en: Scales X., zh: [缩放\n"),
     "specs/demo/Scale.yaml:"),
    # a formula naming something that does not exist
    (("    elementwise: {formula: alpha * X}\n", "    elementwise: {formula: beta * X}\n"),
     "demo.Scale@2: elementwise.formula: unknown name 'beta'; expected one of: X, alpha"),
    # absent names only optional inputs and attributes without a default
    (("    elementwise: {formula: alpha * X}\n", "    elementwise: {formula: alpha * X, absent: {alpha: lowest}}\n"),
     "demo.Scale@2: elementwise.absent.alpha: not an optional input or an int/float attribute without a default"),
    # count_from_node names a variadic output (Y is a single one)
    (("    elementwise: {formula: alpha * X}\n",
      "    kernel: {function: onnx_shape.onnx_split, count_from_node: [Y]}\n"),
     "demo.Scale@2: kernel.count_from_node: no variadic output named 'Y'; the version has none"),
    # a version that the domain does not have
    (("  - since_version: 2\n", "  - since_version: 5\n"),
     "demo.Scale@5: since_version: since_version 5 is not an opset version of domain demo ([1, 2, 3])"),
])
def test_error_names_place_and_expectation(spec_tree, change, expected):
    old, new = change
    assert old in GOOD_OP
    errors = errors_for(spec_tree, GOOD_OP.replace(old, new))
    assert any(expected in e for e in errors), errors


def test_versions_out_of_order(spec_tree):
    older = GOOD_OP.split("versions:\n")[1].replace("since_version: 2", "since_version: 1")
    text = GOOD_OP + older  # 2 then 1 is fine ...
    assert errors_for(spec_tree, text) == []
    reversed_text = GOOD_OP.split("versions:\n")[0] + "versions:\n" + older + GOOD_OP.split("versions:\n")[1]
    errors = errors_for(spec_tree, reversed_text)
    assert any("versions out of order: since_version must be strictly descending (newest first), found [1, 2]" in e
               for e in errors), errors


def test_file_name_and_domain_must_match(spec_tree):
    errors = errors_for(spec_tree, GOOD_OP, name="Other")
    assert any("op name 'Scale' does not match its file name 'Other'" in e for e in errors), errors


def test_all_errors_reported_together(spec_tree):
    text = GOOD_OP.replace("type: T\n        description: {en: Input.", "type: U\n        description: {en: Input.")
    text = text.replace("default: 1.0", "default: one")
    errors = errors_for(spec_tree, text)
    assert len(errors) >= 2
    assert any("unknown type variable 'U'" in e for e in errors)
    assert any("default 'one'" in e for e in errors)


def test_cli_reports_errors_without_traceback_and_writes_nothing(spec_tree, tmp_path):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Scale.yaml", GOOD_OP.replace("default: 1.0", "default: one"))
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["build", "--specs", str(spec_tree), "--out", str(out)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert "default 'one' is not of the attribute's type float" in result.output
    assert "nothing was generated" in result.output
    assert not out.exists()


def test_lint_reports_missing_translations(spec_tree):
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Scale.yaml", GOOD_OP.replace("{en: Factor., zh: 系数。}", "{en: Factor.}"))
    result = CliRunner().invoke(main, ["lint", "--specs", str(spec_tree)])
    assert result.exit_code == 1
    assert "demo.Scale@2: attributes.alpha.description: warning: missing Chinese (zh) text" in result.output


@pytest.mark.parametrize("variable", ["c", "len", "shape", "values", "l"])
def test_a_comprehension_variable_may_not_shadow_the_checks_context_or_functions(spec_tree, variable):
    """The generated check is `lambda c: ...` calling len(), c.shape(), ...: `[c for c in ...]` made
    the check raise UnboundLocalError at validation time instead of failing the build."""
    text = GOOD_OP.replace("    elementwise: {formula: alpha * X}\n", f"""\
    elementwise: {{formula: alpha * X}}
    constraints:
      - id: C1
        check: all({variable} >= 0 for {variable} in shape(X))
        description: {{en: Sizes., zh: 大小。}}
""")
    errors = errors_for(spec_tree, text)
    assert any(f"constraints.C1.check: comprehension variable {variable!r} is " in e for e in errors), errors
    ok = errors_for(spec_tree, text.replace(f"all({variable} >= 0 for {variable} in", "all(d >= 0 for d in"))
    assert ok == []


UNUSED_T1 = """\
      - name: T1
        types: [tensor(int64)]
{flag}        description: {{en: Declared by the source., zh: 来源声明的。}}
"""


def diagnostics_with_t1(spec_tree: Path, flag: str, typed_with: str = "T") -> list[str]:
    """Every diagnostic (errors and warnings) of GOOD_OP with a second type variable T1, marked `unused:
    true` or not, and the input typed with `typed_with`."""
    op = GOOD_OP.replace('    elementwise: {formula: alpha * X}\n', UNUSED_T1.format(flag=flag)).replace(
        "      - name: X\n        type: T\n", f"      - name: X\n        type: {typed_with}\n")
    write(spec_tree / "demo" / "domain.yaml", DOMAIN)
    write(spec_tree / "demo" / "Scale.yaml", op)
    _, diagnostics = load_specs(spec_tree)
    return [f"{e.severity}: {e}" for e in diagnostics]


def test_a_type_variable_nothing_uses_warns_unless_the_spec_records_it_as_the_sources_fact(spec_tree):
    warned = diagnostics_with_t1(spec_tree, flag="")
    assert len(warned) == 1 and warned[0].startswith("warning: ")
    assert re.search(r"Scale\.yaml:\d+:\d+: demo\.Scale@2: type_constraints\.T1: .*type variable T1 is not used by "
                     r"any parameter \(when the source declares it so, say `unused: true`\)", warned[0]), warned
    assert diagnostics_with_t1(spec_tree, flag="        unused: true\n") == []
    # the flag on a variable something is typed with is a located error
    wrong = diagnostics_with_t1(spec_tree, flag="        unused: true\n", typed_with="T1")
    assert any(d.startswith("error: ") and "type_constraints.T1.unused" in d and "is marked unused, but a parameter "
               "or attribute is typed with it" in d for d in wrong), wrong
    # only `true` means something: false is refused by the schema, located
    refused = diagnostics_with_t1(spec_tree, flag="        unused: false\n")
    assert any(d.startswith("error: ") and "Scale.yaml:" in d and "unused" in d for d in refused), refused


def test_the_project_specs_build_without_warnings():
    """Every warning a spec raises is printed by every `opgen build`: the project's own specs raise none
    (ONNX Tile-1's unused T1 is recorded with `unused: true`)."""
    from conftest import SPECS

    _, diagnostics = load_specs(SPECS)
    assert [str(d) for d in diagnostics] == []
