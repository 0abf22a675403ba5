"""`opgen build`: deterministic, writes only what changed, removes what it no longer generates,
`--check` catches hand edits and spec edits, and hostile text is emitted safely."""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen.cli import main

from conftest import SPECS, empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP


def build(specs: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["build", "--specs", str(specs), "--out", str(out), *extra])


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def real_build(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen")
    first = build(SPECS, out)
    assert first.exit_code == 0, first.output
    return out, first


def test_build_is_deterministic(real_build, tmp_path):
    out, first = real_build
    again = tmp_path / "again"
    assert build(SPECS, again).exit_code == 0
    assert tree_bytes(out) == tree_bytes(again)


def test_rebuild_writes_nothing(real_build):
    out, first = real_build
    assert "written, 0 unchanged, 0 removed" in first.output
    second = build(SPECS, out)
    assert second.output.strip().endswith(f"0 written, {len(tree_bytes(out))} unchanged, 0 removed (nothing to do)")


def test_check_detects_hand_edit_and_spec_edit(tmp_path):
    specs = tmp_path / "specs"
    empty_spec_tree(specs)
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Scale.yaml", GOOD_OP)
    out = tmp_path / "gen"
    assert build(specs, out).exit_code == 0
    assert build(specs, out, "--check").exit_code == 0

    page = out / "docs" / "en" / "demo" / "Scale.md"
    page.write_text(page.read_text() + "hand edit\n")
    result = build(specs, out, "--check")
    assert result.exit_code == 1 and "stale: docs/en/demo/Scale.md" in result.output
    assert page.read_text().endswith("hand edit\n")  # --check changes nothing
    assert build(specs, out).exit_code == 0

    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X by alpha."))
    result = build(specs, out, "--check")
    assert result.exit_code == 1 and "stale: docs/en/demo/Scale.md" in result.output


def test_removed_spec_removes_its_files_only(tmp_path):
    specs = tmp_path / "specs"
    empty_spec_tree(specs)
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Scale.yaml", GOOD_OP)
    write(specs / "demo" / "Twice.yaml", GOOD_OP.replace("name: Scale", "name: Twice"))
    out = tmp_path / "gen"
    assert build(specs, out).exit_code == 0
    mine = out / "notes.txt"
    mine.write_text("not opgen's")
    (specs / "demo" / "Twice.yaml").unlink()
    result = build(specs, out)
    assert result.exit_code == 0 and " removed" in result.output and "0 removed" not in result.output
    assert not (out / "python" / "opgen_ops" / "demo" / "twice.py").exists()
    assert (out / "python" / "opgen_ops" / "demo" / "scale.py").exists()
    assert mine.read_text() == "not opgen's"


HOSTILE = 'Ends """ here */ and {{ not_a_var }} {% raw %} back\\slash ??/ | pipe\nsecond line ``` fence'


def test_hostile_text_is_emitted_safely(tmp_path):
    specs = tmp_path / "specs"
    empty_spec_tree(specs)
    write(specs / "demo" / "domain.yaml", DOMAIN)
    quoted = json.dumps(HOSTILE)  # a JSON string is a valid YAML double-quoted scalar
    text = GOOD_OP.replace("{en: Factor., zh: 系数。}", "{en: " + quoted + ", zh: " + quoted + "}")
    text = text.replace("    summary: {en: Scales X., zh: 缩放 X。}", "    summary: {en: " + quoted + ", zh: 缩放 X。}")
    write(specs / "demo" / "Scale.yaml", text)
    out = tmp_path / "gen"
    result = build(specs, out)
    assert result.exit_code == 0, result.output

    # Python imports and carries the text unchanged.
    path = out / "python" / "opgen_ops" / "demo" / "scale.py"
    spec = importlib.util.spec_from_file_location("hostile_scale", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.validate_v2([("float", (2,))], {}) == []
    assert module.SIGNATURE_V2.attributes[0].name == "alpha"

    # C compiles with -Werror.
    cc = shutil.which("cc") or shutil.which("gcc")
    subprocess.run([cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-c", str(out / "c" / "src" / "demo" / "scale.c"),
                    "-I", str(out / "c" / "include"), "-o", str(tmp_path / "scale.o")], check=True)

    # Markdown keeps the text, table rows stay one line, the code fence is not closed early.
    page = (out / "docs" / "en" / "demo" / "Scale.md").read_text()
    assert "{{ not_a_var }}" in page and '"""' in page
    row = next(line for line in page.splitlines() if line.startswith("| `alpha`"))
    assert "\\|" in row and "<br>" in row


def test_build_says_which_versions_lack_kernels(real_build):
    _, first = real_build
    assert "op versions have a NumPy kernel" in first.output
    # LeakyRelu's float alpha on integers has no C spelling (mul_trunc): said at build time.
    assert "hlir.LeakyRelu@1 lacks uint8" in first.output
    listing = CliRunner().invoke(main, ["list", "--kernels", "--specs", str(SPECS), "--domain", "hlir"])
    assert listing.exit_code == 0
    lines = {line.split("  ")[0]: line for line in listing.output.splitlines()}
    assert "C: stub (OPGEN_ERR_NOT_IMPLEMENTED)" in lines["hlir.Gather@1"]
    assert "numpy: formula" in lines["hlir.Abs@1"] and "int8" in lines["hlir.Abs@1"]


def test_remembered_file_status_never_hides_an_edit(tmp_path, monkeypatch):
    """The no-op path trusts a file's remembered (size, mtime, inode, ctime) instead of reading it; an
    edit that keeps the size and even restores the mtime still changes ctime, and is found."""
    import os

    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    specs = tmp_path / "specs"
    empty_spec_tree(specs)
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Scale.yaml", GOOD_OP)
    out = tmp_path / "gen"
    assert build(specs, out).exit_code == 0
    old = 1_600_000_000
    for path in [*out.rglob("*"), *specs.rglob("*")]:
        if path.is_file():
            os.utime(path, (old, old))  # old enough to be remembered (not racy)
    assert "nothing to do" in build(specs, out).output  # this run reads and remembers them
    assert list((tmp_path / "cache").glob("stats-*.marshal"))
    page = out / "docs" / "en" / "demo" / "Scale.md"
    text = page.read_text()
    page.write_text(text.replace("Scale", "Scalf", 1))  # same size
    os.utime(page, (old, old))  # same mtime
    result = build(specs, out)
    assert "nothing to do" not in result.output
    assert "1 written" in result.output and page.read_text() == text  # found and rewritten


def test_the_console_command_answers_a_no_op_build_without_click_and_says_the_same(tmp_path):
    """`opgen build` (the console script, opgen.entry) answers a build with nothing to do before
    importing click; its line is the one the click command prints. A real build (here: a spec edit)
    and spec errors are reported as the click command reports them (opgen.build_report), without click."""
    import sys

    specs = tmp_path / "specs"
    empty_spec_tree(specs)
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Scale.yaml", GOOD_OP)
    assert build(specs, tmp_path / "generated").exit_code == 0
    script = "import sys; from opgen.entry import main; main(); print(sorted(m for m in sys.modules if m.startswith('click')))"

    def console() -> list[str]:
        done = subprocess.run([sys.executable, "-c", script, "build"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    *lines, modules = console()
    assert modules == "[]" and lines == [build(specs, tmp_path / "generated").output.strip()]
    assert lines[0].endswith("(nothing to do)")
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X by alpha."))
    *lines, modules = console()
    assert any(line.endswith("(1 op(s) rendered, 0 unchanged)") for line in lines), lines
    assert modules == "[]"
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("type: float", "type: flaot", 1))
    done = subprocess.run([sys.executable, "-c", script, "build"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1 and "error(s) in the specs; nothing was generated." in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
