"""The no-op stamp (opgen.build_stamp): `opgen build` answers "nothing to do" from file statuses alone
only while every input and output has the status it had when a full no-op verified it by digest.
Each kind of change (a spec touched or edited, a template or generator file edited, a generated file
edited by hand with its size and mtime kept, or deleted) sends the build down the full path, whose
result equals a clean build."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from opgen import build as build_module
from opgen import build_stamp
from opgen.build import run
from opgen.paths import TEMPLATES, project_specs

from conftest import ROOT, empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """specs/ and generated/ side by side, the templates and generator source read from copies (so a
    test can edit them), statuses trusted at once (no racy window: the test's files are seconds old)."""
    monkeypatch.setenv("OPGEN_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(build_stamp, "RACY_NS", 0)
    templates = tmp_path / "templates"
    shutil.copytree(TEMPLATES, templates)
    package = tmp_path / "package"
    shutil.copytree(ROOT / "generator", package, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(build_module, "TEMPLATES", templates)
    monkeypatch.setattr(build_module, "PACKAGE_DIR", package)
    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    for name in ("Scale", "Twice"):
        write(specs / "demo" / f"{name}.yaml", GOOD_OP.replace("name: Scale", f"name: {name}"))
    out = tmp_path / "generated"
    assert run(specs, out).outcome is not None
    return specs, out, templates, package


def verified_noop(specs: Path, out: Path) -> str:
    """A full-path no-op (which writes the stamp); returns the line the stamp then answers with."""
    assert run(specs, out).noop
    line = build_stamp.noop_line(str(out))
    assert line is not None and line.endswith("(nothing to do)")
    return line


def assert_same_as_clean(specs: Path, out: Path, tmp_path: Path, monkeypatch, label: str) -> None:
    with monkeypatch.context() as m:
        m.setenv("OPGEN_CACHE_DIR", "")
        assert run(specs, tmp_path / f"clean-{label}").outcome is not None
    assert tree_bytes(out) == tree_bytes(tmp_path / f"clean-{label}"), label


def test_every_kind_of_change_leaves_the_stamp_and_the_full_path_converges(project, tmp_path, monkeypatch):
    specs, out, templates, package = project
    line = verified_noop(specs, out)

    # Touched, unchanged: the full path finds the same digests, a no-op, and stamps again.
    os.utime(specs / "demo" / "Scale.yaml")
    assert build_stamp.noop_line(str(out)) is None
    assert verified_noop(specs, out) == line

    # A generated file edited by hand to the same size, its mtime restored: ctime still moves.
    page = out / "docs" / "en" / "demo" / "Scale.md"
    text, before = page.read_text(encoding="utf-8"), page.stat()
    page.write_text(text.replace("Scale", "Scalf", 1), encoding="utf-8")
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert page.stat().st_size == before.st_size
    assert build_stamp.noop_line(str(out)) is None
    result = run(specs, out)
    assert result.outcome is not None and result.outcome.written and page.read_text(encoding="utf-8") == text
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "hand")
    verified_noop(specs, out)

    # A generated file deleted; then a spec edited.
    page.unlink()
    assert build_stamp.noop_line(str(out)) is None
    assert run(specs, out).outcome is not None and page.is_file()
    verified_noop(specs, out)
    write(specs / "demo" / "Twice.yaml", GOOD_OP.replace("name: Scale", "name: Twice").replace("Scales X.", "Twice X."))
    assert build_stamp.noop_line(str(out)) is None
    assert run(specs, out).rendered_ops == 1
    assert_same_as_clean(specs, out, tmp_path, monkeypatch, "spec")
    verified_noop(specs, out)

    # A file added to the specs, a template edited, a generator file added: each an input.
    write(specs / "demo" / "notes.txt", "not a spec\n")
    assert build_stamp.noop_line(str(out)) is None
    run(specs, out)
    verified_noop(specs, out)
    template = templates / "docs" / "op.md.j2"
    template.write_text(template.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert build_stamp.noop_line(str(out)) is None
    run(specs, out)
    verified_noop(specs, out)
    (package / "extra.py").write_text("\n", encoding="utf-8")
    assert build_stamp.noop_line(str(out)) is None


def test_the_console_command_answers_from_the_stamp_without_importing_the_build(project, tmp_path):
    specs, out, _, _ = project
    line = verified_noop(specs, out)
    script = ("import sys; from opgen.entry import main; main(); "
              "print(sorted(m for m in sys.modules if m in ('opgen.build', 'hashlib', 'click')))")
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script, "build"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [line, "[]"]


def test_recent_files_are_not_stamped_and_a_broken_stamp_is_ignored(project, monkeypatch):
    specs, out, _, _ = project
    monkeypatch.setattr(build_stamp, "RACY_NS", 2_000_000_000)
    assert run(specs, out).noop  # the files were written moments ago: an edit could hide in the same tick
    assert build_stamp.noop_line(str(out)) is None
    monkeypatch.setattr(build_stamp, "RACY_NS", 0)
    verified_noop(specs, out)
    stamp = Path(os.environ["OPGEN_CACHE_DIR"]) / build_stamp.stamp_name(os.path.realpath(out))
    stamp.write_bytes(stamp.read_bytes()[:100])
    assert build_stamp.noop_line(str(out)) is None
    stamp.write_bytes(b"\x00not marshal")
    assert build_stamp.noop_line(str(out)) is None


def test_the_project_is_found_as_the_command_line_finds_it(tmp_path, monkeypatch):
    nested = tmp_path / "specs" / "demo" / "deeper"
    nested.mkdir(parents=True)
    for where in (tmp_path, nested):
        monkeypatch.chdir(where)
        assert build_stamp.project_specs(os.getcwd()) == str(project_specs())


def test_a_build_that_rewrites_the_manifest_removes_the_stamp(project, tmp_path):
    """The stamp records the manifest's status: once a build rewrites the manifest it can never match,
    so the build removes it (the next build does not load it to find that out); a no-op keeps it."""
    specs, out, _, _ = project
    verified_noop(specs, out)
    stamp = tmp_path / "cache" / build_stamp.stamp_name(os.path.realpath(out))
    assert stamp.is_file()
    assert run(specs, out).noop and stamp.is_file()
    write(specs / "demo" / "Twice.yaml", GOOD_OP.replace("name: Scale", "name: Twice").replace("Scales X.", "Doubles X."))
    assert run(specs, out).outcome.written
    assert not stamp.exists()
    assert build_stamp.noop_line(str(out)) is None


@pytest.mark.parametrize("stamped", [True, False], ids=["from the stamp", "after building"])
def test_a_reader_that_stops_early_gets_no_traceback(project, tmp_path, stamped):
    """`opgen build | head -c 0`: the report's reader has gone before the first line. The console command
    ends with status 1 and says nothing on stderr, whether it answers from the stamp or builds first (an
    edit; the build's files are all written)."""
    specs, out, _, _ = project
    verified_noop(specs, out)
    if not stamped:
        write(specs / "demo" / "Twice.yaml", GOOD_OP.replace("name: Scale", "name: Twice").replace(
            "Scales", "Doubles", 1))
    console = str(Path(sys.executable).with_name("opgen"))
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache")}
    reader, writer = os.pipe()
    os.close(reader)  # the reader is gone before opgen writes anything
    try:
        done = subprocess.run([console, "build"], cwd=tmp_path, stdout=writer, stderr=subprocess.PIPE, text=True,
                              timeout=120, env=env)
    finally:
        os.close(writer)
    assert (done.returncode, done.stderr) == (1, "")
    assert run(specs, out).noop  # the build was complete: nothing left to do
