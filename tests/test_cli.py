"""The CLI's read-only commands and help texts."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen.cli import main

from conftest import ROOT, SPECS


def run(*args: str):
    return CliRunner().invoke(main, [*args])


@pytest.mark.parametrize("command", [[], ["build"], ["list"], ["show"], ["lint"], ["new"]])
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
    assert re.search(r"opgen lint: 0 text problem\(s\) \(missing, placeholder, punctuation\) in \d+ ops",
                     result.output)


def test_list_of_an_unknown_domain_is_an_error_with_a_suggestion():
    result = run("list", "--specs", str(SPECS), "--domain", "onnxx")
    assert result.exit_code == 2
    assert "no domain 'onnxx' (did you mean 'onnx'?)" in result.output and "hlir" in result.output


def test_list_as_json():
    result = run("list", "--specs", str(SPECS), "--domain", "onnx", "--format", "json", "--kernels")
    assert result.exit_code == 0
    rows = {row["op"]: row for row in json.loads(result.output)}
    assert rows["PRelu"]["versions"] == [16, 9, 7, 6, 1] and rows["PRelu"]["category"] == "activation"
    assert {r["domain"] for r in rows.values()} == {"onnx"}
    elu22 = next(k for k in rows["Elu"]["kernels"] if k["version"] == 22)
    assert elu22["numpy"] == "formula" and "float" in elu22["c"]


def test_show_prints_everything_of_a_version():
    text = run("show", "--specs", str(SPECS), "hlir.Abs").output
    for heading in ("inputs:", "outputs:", "type constraints:", "kernel:", "notes:", "examples:", "sources:"):
        assert f"\n{heading}\n" in text, heading
    assert "integer_minimum" in text and "mixed_signs" in text and "004_9a4c3bf01a77ae81.txt §3.1" in text
    gather = run("show", "--specs", str(SPECS), "onnx.Gather@13").output
    assert "constraints:\n  C1:" in gather


def test_show_as_json_holds_what_the_text_holds():
    view = json.loads(run("show", "--specs", str(SPECS), "--format", "json", "--lang", "zh", "onnx.PRelu@16").output)
    assert view["key"] == "onnx.PRelu@16" and view["versions"] == [16, 9, 7, 6, 1]
    assert [p["name"] for p in view["inputs"]] == ["X", "slope"] and view["outputs"][0]["name"] == "Y"
    assert view["constraints"] and all(c["description"] for c in view["constraints"])
    assert {n["kind"] for n in view["notes"]} == {"erratum", "decision"}
    elu = json.loads(run("show", "--specs", str(SPECS), "--format", "json", "onnx.Elu@22").output)
    assert elu["outputs"][0]["shape"] == "shape(X)" and elu["formula"].startswith("Y = where(")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in view["summary"])


@pytest.mark.parametrize("ref,hint", [("onnx.relu", "did you mean 'Relu'?"), ("onnx.Rellu", "did you mean 'Relu'"),
                                      ("hlir.Abz", "did you mean 'Abs'"),
                                      # no domain: the refs of every domain's op of that name, any case
                                      ("relu", "; did you mean hlir.Relu or onednn.ReLU or onnx.Relu?"),
                                      ("PRelu@9", "; did you mean hlir.PRelu@9 or onnx.PRelu@9?")])
def test_show_suggests_the_op_meant(ref, hint):
    result = run("show", "--specs", str(SPECS), ref)
    assert result.exit_code == (2 if "." not in ref else 1) and hint in result.output


def test_show_reads_only_the_op_shown(tmp_path):
    """A broken spec elsewhere does not keep an op from being shown; the op's own problems are reported
    located, and an unknown domain is named with a suggestion."""
    specs = tmp_path / "specs"
    shutil.copytree(SPECS, specs)
    elu = specs / "onnx" / "Elu.yaml"
    elu.write_text(elu.read_text(encoding="utf-8").replace("category:", "categori:", 1), encoding="utf-8")
    assert run("show", "--specs", str(specs), "onnx.PRelu").output.startswith("onnx.PRelu@16")
    broken = run("show", "--specs", str(specs), "onnx.Elu")
    assert broken.exit_code == 1 and "Elu.yaml:" in broken.output and "categori" in broken.output
    assert "Traceback" not in broken.output
    unknown = run("show", "--specs", str(specs), "onnxx.Relu")
    assert unknown.exit_code == 2 and "no domain 'onnxx' (did you mean 'onnx'?)" in unknown.output


def test_lint_as_json():
    result = run("lint", "--specs", str(SPECS), "--format", "json")
    assert result.exit_code == 0
    doc = json.loads(result.output)
    assert doc["problems"] == [] and doc["ops"] > 300


def test_build_check_as_json(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS / "onednn", specs / "onednn")
    shutil.copytree(SPECS / "sources", specs / "sources")
    out = tmp_path / "out"
    stale = json.loads(run("build", "--specs", str(specs), "--out", str(out), "--check", "--format", "json").output)
    assert stale["fresh"] is False and "python/opgen_ops/onednn/prelu.py" in stale["stale"]
    assert run("build", "--specs", str(specs), "--out", str(out)).exit_code == 0
    fresh = run("build", "--specs", str(specs), "--out", str(out), "--check", "--format", "json")
    assert fresh.exit_code == 0 and json.loads(fresh.output)["fresh"] is True


def _spec_folder(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS / "hlir", specs / "hlir", ignore=lambda d, names: [n for n in names if n[0].isupper()
                                                                             and n != "Abs.yaml"])
    (specs / "sources").mkdir()
    shutil.copy(next((SPECS / "sources").glob("004_*")), specs / "sources")
    return specs


def test_new_writes_a_starter_that_builds_and_that_lint_reports(tmp_path):
    specs = _spec_folder(tmp_path)
    made = run("new", "hlir.Frobnicate", "--category", "elementwise_math", "--specs", str(specs))
    assert made.exit_code == 0, made.output
    path = specs / "hlir" / "Frobnicate.yaml"
    assert path.read_text(encoding="utf-8").startswith("# yaml-language-server: $schema=../schema/op.schema.json")
    built = run("build", "--specs", str(specs), "--out", str(tmp_path / "out"))
    assert built.exit_code == 0, built.output
    assert (tmp_path / "out" / "python" / "opgen_ops" / "hlir" / "frobnicate.py").is_file()
    linted = run("lint", "--specs", str(specs))
    assert linted.exit_code == 1
    assert "hlir.Frobnicate@1: summary: warning: the English (en) text is still a placeholder" in linted.output
    assert "the Chinese (zh) text is still a placeholder" in linted.output
    # The commented example block becomes a valid example once the op has a kernel.
    text = path.read_text(encoding="utf-8")
    assert "    # examples:" in text
    lines = [line.replace("    # ", "    ", 1) if line.startswith(("    # examples:", "    #   ")) else line
             for line in text.splitlines()]
    lines.insert(lines.index("    type_constraints:"), "    elementwise: {formula: 'maximum(X, 0)'}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    built = run("build", "--specs", str(specs), "--out", str(tmp_path / "out"))
    assert built.exit_code == 0, built.output
    from opgen.parse import load_or_raise
    (version,) = load_or_raise(specs).find("hlir", "Frobnicate").versions
    assert [e.name for e in version.examples] == ["basic"]


@pytest.mark.parametrize("args,message", [
    (["hlir.Abs", "--category", "elementwise_math"], "hlir.Abs exists already"),
    (["hlir.abs", "--category", "elementwise_math"], "hlir.Abs exists already"),
    (["hlr.Foo", "--category", "elementwise_math"], "no domain 'hlr'"),
    (["hlir.Foo", "--category", "elementwise"], "(did you mean 'elementwise_math'?)"),
    (["hlir.Foo@2", "--category", "elementwise_math"], "without @version"),
    (["hlir.Foo", "--category", "elementwise_math", "--source", "nope.txt"], "'nope.txt' is not in"),
])
def test_new_refuses_what_it_cannot_write(tmp_path, args, message):
    specs = _spec_folder(tmp_path)
    result = run("new", *args, "--specs", str(specs))
    assert result.exit_code != 0 and message in result.output and "Traceback" not in result.output
    assert sorted(p.name for p in (specs / "hlir").iterdir()) == ["Abs.yaml", "domain.yaml"]


def test_error_in_a_shared_anchor_is_reported_once_with_every_version(tmp_path):
    specs = tmp_path / "specs"
    shutil.copytree(SPECS / "onnx", specs / "onnx", ignore=lambda d, names: [
        n for n in names if n[0].isupper() and n != "Relu.yaml"])
    shutil.copytree(SPECS / "sources", specs / "sources")
    path = specs / "onnx" / "Relu.yaml"
    text = path.read_text(encoding="utf-8")
    anchored = text.index("elementwise: &")
    start = text.index("formula:", anchored)
    path.write_text(text[:start] + "formula: maximun(0, X)" + text[text.index("\n", start):], encoding="utf-8")
    result = run("build", "--specs", str(specs), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    lines = [line for line in result.output.splitlines() if "maximun" in line]
    assert len(lines) == 1, result.output
    assert "onnx.Relu@14, @13, @6, @1: elementwise.formula: unknown function maximun() (did you mean 'maximum'" \
        in lines[0]
    assert "1 error(s) in the specs" in result.output


def test_dtype_spellings_and_a_misspelt_dtype():
    import ml_dtypes
    import numpy as np
    import opgen_ops

    validate = opgen_ops.get_validator("onnx", "Elu", 22)
    for spelling in ("float", "float32", np.float32, np.dtype("float32")):
        assert validate([(spelling, (2, 3))]) == [], spelling
    assert validate([(ml_dtypes.bfloat16, (2,))]) == []
    assert "dtype int8 is not allowed" in validate([(np.int8, (2,))])[0].message
    assert "unknown dtype 'flaot' (did you mean 'float'" in validate([("flaot", (2,))])[0].message


def test_lint_catches_ascii_punctuation_after_chinese_text(tmp_path):
    specs = _spec_folder(tmp_path)
    abs_spec = specs / "hlir" / "Abs.yaml"
    text = abs_spec.read_text(encoding="utf-8")
    ours = "最小负整数 (如 int8 的 -128) 的绝对值无法表示；"  # a note: opgen's own words
    assert ours in text
    abs_spec.write_text(text.replace(ours, ours[:-1] + ";"), encoding="utf-8")
    result = run("lint", "--specs", str(specs))
    assert result.exit_code == 1
    assert "hlir.Abs@1: notes.integer_minimum: warning: the Chinese text has ASCII ';' after Chinese text " \
           "(write '；')" in result.output
    # the summary is transcribed from document 004 and keeps its own ASCII comma
    assert "summary" not in result.output and "对输入张量逐元素进行绝对值计算得到输出张量, output" in text


def test_fix_chinese_punctuation():
    from opgen.lint import fix_chinese_punctuation

    assert fix_chinese_punctuation("输入张量, 轴: 1; 是否? 好. x.y 3.5 (见 C1), done") == \
        "输入张量，轴：1; 是否？好。x.y 3.5 (见 C1), done"  # only marks right after Chinese text change


def test_new_names_a_spec_file_it_cannot_write(tmp_path, monkeypatch):
    """A spec folder the user may not write to (simulated: the suite runs as root, whom permissions do not
    stop): one line naming the file and the reason, no traceback."""
    specs = _spec_folder(tmp_path)
    target = specs / "hlir" / "Foo.yaml"
    real_write_text = Path.write_text

    def read_only_folder(self, *args, **kwargs):
        if self == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_write_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", read_only_folder)
    result = run("new", "hlir.Foo", "--category", "elementwise_math", "--specs", str(specs))
    assert result.exit_code == 1, result.output
    assert f"{target} cannot be written: Permission denied" in result.output
    assert "Traceback" not in result.output and not target.exists()


def test_a_specs_folder_without_domains_is_an_error_not_an_empty_build(tmp_path):
    """--specs naming a domain folder (or an empty folder) built "0 ops" and wrote a generated/ folder of
    index pages inside the spec tree. Now it is an error that says what a spec folder holds, and nothing
    is written."""
    specs = _spec_folder(tmp_path)
    domain = specs / "hlir"
    result = run("build", "--specs", str(domain))
    assert result.exit_code == 1, result.output
    assert f"it is a domain folder: give the folder above it (--specs {specs})" in result.output
    assert not (specs / "generated").exists() and "Traceback" not in result.output
    empty = tmp_path / "empty"
    empty.mkdir()
    for command in ("build", "lint", "list"):
        result = run(command, "--specs", str(empty))
        assert result.exit_code != 0 and "no domain folder in this specs folder" in result.output, result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "specs"]


def test_a_plain_validate_runs_without_click_and_says_what_the_command_says(tmp_path):
    """`opgen validate FILE` is answered by the console script without importing the command line
    (opgen.entry; a tenth of a small model's check), and then left without the interpreter's teardown.
    Its output and status are those of the click command (the same call with --format text): for a valid
    model, an invalid one, unreadable files and a name that would forge report lines; a model named like an
    option still goes to click."""
    import subprocess
    import sys

    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    good = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r\nALL GOOD")],
                                               "g", [x], [y]), opset_imports=[helper.make_opsetid("", 17)])
    bad = onnx.ModelProto()
    bad.CopyFrom(good)
    bad.graph.node[0].attribute.append(helper.make_attribute("alpha", 1.0))
    onnx.save(good, tmp_path / "good.onnx")
    onnx.save(bad, tmp_path / "bad.onnx")
    (tmp_path / "junk.json").write_text("{not json", encoding="utf-8")
    opgen = Path(sys.executable).with_name("opgen")
    statuses, outputs = [], {}
    for name in ("good.onnx", "bad.onnx", "junk.json", "missing.onnx", "."):
        fast = subprocess.run([str(opgen), "validate", name], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        full = subprocess.run([str(opgen), "validate", "--format", "text", name], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert (fast.returncode, fast.stdout, fast.stderr) == (full.returncode, full.stdout, full.stderr), name
        assert "Traceback" not in fast.stderr and fast.stdout + fast.stderr, name
        statuses.append(fast.returncode)
        outputs[name] = fast.stdout
    assert statuses == [0, 1, 2, 2, 2]
    assert "r\\nALL GOOD" in outputs["bad.onnx"] and "\nALL GOOD" not in outputs["bad.onnx"]
    script = ("import sys\nfrom opgen.entry import main\ntry:\n    main()\nexcept SystemExit as exc:\n"
              "    print(exc.code, sorted(m for m in sys.modules if m.startswith('click')))")
    for args, uses_click in ((["validate", "good.onnx"], False), (["validate", "--format", "json", "good.onnx"], True),
                             (["validate", "-h"], True)):
        done = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, capture_output=True, text=True,
                              timeout=120)
        code, modules = done.stdout.splitlines()[-1].split(" ", 1)
        assert code == "0" and (modules != "[]") == uses_click, (args, done.stdout, done.stderr)
