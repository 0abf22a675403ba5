"""The CLI's read-only commands and help texts."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from opgen.cli import main

from conftest import SPECS


def run(*args: str):
    return CliRunner().invoke(main, [*args])


@pytest.mark.parametrize("command", [[], ["build"], ["list"], ["show"], ["lint"]])
def test_help(command):
    result = run(*command, "--help")
    assert result.exit_code == 0 and "Usage:" in result.output


def test_list_names_every_op_with_versions():
    result = run("list", "--specs", str(SPECS))
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert "onnx.PRelu  [16, 9, 7, 6, 1]  activation" in lines
    assert "onednn.PReLU  [1]  activation" in lines
    assert sum(1 for line in lines if line.startswith("hlir.") and "(extension: " not in line) == 141
    assert "hlir.Multiply  [1]  elementwise_math  (extension: stablehlo)" in lines
    assert any(line.startswith("hlir.Erf ") and "undocumented in source" in line for line in lines)


@pytest.mark.parametrize("ref,fragment", [
    ("onnx.PRelu@9", "onnx.PRelu@9"),
    ("onnx.PRelu@8", "onnx.PRelu@7"),   # resolves like an opset
    ("onnx.Elu", "onnx.Elu@22"),        # newest
])
def test_show_resolves_versions(ref, fragment):
    result = run("show", "--specs", str(SPECS), ref)
    assert result.exit_code == 0 and result.output.startswith(fragment)


def test_show_in_chinese():
    result = run("show", "--specs", str(SPECS), "--lang", "zh", "hlir.Abs")
    assert "对输入张量逐元素进行绝对值计算得到输出张量" in result.output


@pytest.mark.parametrize("ref,message", [("PRelu", "is not of the form domain.Op"),
                                         ("onnx.Rectifier", "no op onnx.Rectifier"),
                                         ("onnx.PRelu@0", "has no version <= 0")])
def test_show_bad_reference_is_a_clear_error(ref, message):
    result = run("show", "--specs", str(SPECS), ref)
    assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output


def test_lint_is_clean_on_the_project():
    result = run("lint", "--specs", str(SPECS))
    assert result.exit_code == 0, result.output
    assert "0 missing translation(s) in 345 ops" in result.output
