"""`opgen build` treats its committed manifest as untrusted: it never deletes outside its output
folder or a file someone edited, never writes through a symbolic link, serialises concurrent
builds, converges after a crash at any step, and an incremental build is byte-identical to a
clean full build after any edit (spec, generated file, template, generator)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen.build import run
from opgen.cli import main
from opgen.render import manifest as mf
from opgen.render import writer

from conftest import ROOT, empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP


def build(specs: Path, out: Path, *extra: str):
    return CliRunner().invoke(main, ["build", "--specs", str(specs), "--out", str(out), *extra])


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "__pycache__" not in p.parts}


def demo_specs(root: Path, *names: str) -> Path:
    empty_spec_tree(root)
    write(root / "demo" / "domain.yaml", DOMAIN)
    for name in names or ("Scale",):
        write(root / "demo" / f"{name}.yaml", GOOD_OP.replace("name: Scale", f"name: {name}"))
    return root


@pytest.fixture
def built(tmp_path):
    specs = demo_specs(tmp_path / "specs", "Scale", "Twice")
    out = tmp_path / "out"
    result = build(specs, out)
    assert result.exit_code == 0, result.output
    return specs, out


def test_manifest_paths_outside_the_folder_are_never_deleted(built, tmp_path):
    specs, out = built
    victim = tmp_path / "victim" / "x"
    write(victim, "precious\n")
    absolute = tmp_path / "abs-file"
    write(absolute, "precious too\n")
    sha_v, sha_a = mf.digest(victim.read_bytes()), mf.digest(absolute.read_bytes())
    with open(out / mf.MANIFEST, "a", encoding="utf-8") as handle:  # the attack, with real digests
        handle.write(f"{'0' * 64}  ../victim/x\n{'0' * 64}  /abs/file\n")
        handle.write(f"{sha_v}  ../victim/x  *\n{sha_a}  {absolute}  *\n{sha_v}  docs/../../victim/x  *\n")
    result = build(specs, out)
    assert result.exit_code == 0, result.output
    assert victim.read_text() == "precious\n" and absolute.read_text() == "precious too\n"
    assert mf.read(out).files.keys() == {p for p in tree_bytes(out) if p != mf.MANIFEST}


def test_unsafe_paths_are_rejected_by_the_manifest_reader():
    for bad in ("../x", "/etc/passwd", "a/../../x", "a//b", "./a", ".hidden", "a/.b", "a\\b", "a\nb", "",
                mf.MANIFEST, "a/b\x00c"):
        assert not mf.safe_relpath(bad), bad
    assert mf.safe_relpath("python/opgen_ops/demo/scale.py")


def test_a_stale_file_edited_by_hand_is_kept_and_reported(built):
    specs, out = built
    page = out / "docs" / "en" / "demo" / "Twice.md"
    page.write_text(page.read_text() + "my notes\n")
    untouched = out / "python" / "opgen_ops" / "demo" / "twice.py"
    (specs / "demo" / "Twice.yaml").unlink()
    result = build(specs, out)
    assert result.exit_code == 0, result.output
    assert "kept: docs/en/demo/Twice.md" in result.output
    assert page.read_text().endswith("my notes\n")  # edited since opgen wrote it: not opgen's to delete
    assert not untouched.exists()  # unedited and no longer generated: removed
    assert "docs/en/demo/Twice.md" not in mf.read(out).files  # and no longer opgen's to track


def test_no_write_through_a_symlinked_directory(built, tmp_path):
    specs, out = built
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(out / "docs"), elsewhere)
    before = tree_bytes(elsewhere)
    (out / "docs").symlink_to(elsewhere, target_is_directory=True)
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X by alpha."))
    result = build(specs, out)
    assert result.exit_code == 1 and "symbolic link" in result.output and "Traceback" not in result.output
    assert tree_bytes(elsewhere) == before


def _full_build(specs: Path, out: Path) -> dict[str, bytes]:
    result = build(specs, out)
    assert result.exit_code == 0, result.output
    return tree_bytes(out)


class _Killed(BaseException):
    """Stands for kill -9: raised from inside the writer, it bypasses every `except Exception`."""


# 19 steps: the journal, 12 writes, 6 removals, the manifest; 20 runs to the end.
@pytest.mark.parametrize("kill_at", [1, 2, 3, 7, 12, 13, 14, 16, 18, 19, 20])
def test_a_build_killed_at_any_step_converges(tmp_path, monkeypatch, kill_at):
    specs = demo_specs(tmp_path / "specs", "Scale", "Twice", "Thrice")
    out = tmp_path / "out"
    assert build(specs, out).exit_code == 0
    # The next build writes new files, rewrites changed ones and removes a removed op's files.
    (specs / "demo" / "Thrice.yaml").unlink()
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X twice."))
    write(specs / "demo" / "Four.yaml", GOOD_OP.replace("name: Scale", "name: Four"))
    steps = {"n": 0, "killed": False}
    real_write, real_unlink = writer._atomic_write, Path.unlink

    def counted(action):
        def step(*args, **kwargs):
            steps["n"] += 1
            if steps["n"] == kill_at:
                steps["killed"] = True
                raise _Killed()
            return action(*args, **kwargs)
        return step

    monkeypatch.setattr(writer, "_atomic_write", counted(real_write))
    monkeypatch.setattr(Path, "unlink", counted(real_unlink))
    try:
        CliRunner().invoke(main, ["build", "--specs", str(specs), "--out", str(out)], catch_exceptions=False)
    except _Killed:
        pass
    monkeypatch.undo()
    # An interrupted build is visible to --check; a build that ran to its end is not.
    assert build(specs, out, "--check").exit_code == (1 if steps["killed"] else 0)
    after = _full_build(specs, out)
    assert build(specs, out, "--check").exit_code == 0
    assert after == _full_build(specs, tmp_path / "clean")
    assert not (out / "python" / "opgen_ops" / "demo" / "thrice.py").exists()
    assert not [p for p in out.rglob(".*") if p.name != mf.MANIFEST]  # no temporary file left over


def test_concurrent_builds_into_one_folder_leave_one_consistent_tree(tmp_path):
    specs_a = demo_specs(tmp_path / "a" / "specs", "Scale", "Twice")
    specs_b = demo_specs(tmp_path / "b" / "specs", "Scale", "Other", "More")
    out = tmp_path / "out"
    expected = {"a": _full_build(specs_a, tmp_path / "clean-a"), "b": _full_build(specs_b, tmp_path / "clean-b")}
    cmd = [sys.executable, "-m", "opgen.cli", "build", "--out", str(out), "--specs"]
    for _ in range(3):
        procs = [subprocess.Popen(cmd + [str(s)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
                 for s in (specs_a, specs_b)]
        for p in procs:
            assert p.wait(timeout=120) == 0, p.stdout.read().decode() if p.stdout else ""
        assert tree_bytes(out) in (expected["a"], expected["b"])


def test_incremental_builds_equal_a_clean_build_after_each_kind_of_edit(tmp_path):
    """Run opgen from a copy of its own source and templates, so templates and generator code can
    be edited too; after each edit the incremental build must equal a clean build byte for byte."""
    tool = tmp_path / "tool"
    shutil.copytree(ROOT / "generator", tool / "opgen", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "templates", tool / "templates")
    specs = demo_specs(tmp_path / "specs", "Scale", "Twice")
    env = {**os.environ, "PYTHONPATH": str(tool), "OPGEN_CACHE_DIR": str(tmp_path / "cache")}

    def opgen(out: Path, *extra: str) -> str:
        done = subprocess.run([sys.executable, "-m", "opgen.cli", "build", "--specs", str(specs), "--out", str(out),
                               *extra], env=env, capture_output=True, text=True, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    out = tmp_path / "out"
    first = opgen(out)
    assert "2 op(s) rendered" in first
    assert "nothing to do" in opgen(out)

    def same_as_clean(label: str) -> None:
        clean = tmp_path / f"clean-{label}"
        opgen(clean)
        assert tree_bytes(out) == tree_bytes(clean), label
        assert "nothing to do" in opgen(out)

    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X by alpha."))
    assert "1 op(s) rendered, 1 unchanged" in opgen(out)
    same_as_clean("spec")

    page = out / "docs" / "en" / "demo" / "Twice.md"
    page.write_text("hand edit\n")
    assert "1 written" in opgen(out)
    same_as_clean("generated")

    template = tool / "templates" / "docs" / "op.md.j2"
    template.write_text(template.read_text().replace("# {{ op.name }}", "# Operator {{ op.name }}"))
    assert "2 op(s) rendered" in opgen(out)
    assert "\n# Operator Scale\n" in (out / "docs" / "en" / "demo" / "Scale.md").read_text()
    same_as_clean("template")

    source = tool / "opgen" / "render" / "docs.py"
    source.write_text(source.read_text().replace('summary="Summary"', 'summary="Synopsis"'))
    assert "2 op(s) rendered" in opgen(out)
    assert "### Synopsis" in (out / "docs" / "en" / "demo" / "Scale.md").read_text()
    same_as_clean("generator")

    write(specs / "demo" / "domain.yaml", DOMAIN.replace("Demo domain.", "A demo domain."))
    opgen(out)
    same_as_clean("domain")


def test_specs_option_alone_writes_beside_the_spec_folder(tmp_path):
    specs = demo_specs(tmp_path / "mine" / "specs")
    result = CliRunner().invoke(main, ["build", "--specs", str(specs)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "mine" / "generated" / "python" / "opgen_ops" / "demo" / "scale.py").is_file()
    assert not (ROOT / "generated" / "python" / "opgen_ops" / "demo").exists()


@pytest.mark.parametrize("open_at", [1, 2, 5])
def test_an_interrupt_just_after_a_temporary_file_is_created_leaves_none(tmp_path, monkeypatch, open_at):
    """Ctrl-C lands at the first check after the system call that was running, most often the one creating
    a file: the KeyboardInterrupt is raised as os.open returns, before its result is assigned. The writer
    still removes the temporary file, and the next build converges."""
    specs = demo_specs(tmp_path / "specs", "Scale", "Twice")
    out = tmp_path / "out"
    assert build(specs, out).exit_code == 0
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X twice."))
    real_open = os.open
    created = []

    def open_then_interrupt(path, flags, *args, **kwargs):
        fd = real_open(path, flags, *args, **kwargs)
        if flags & os.O_EXCL and os.path.basename(path).startswith("."):
            created.append(path)
            if len(created) == open_at:
                os.close(fd)  # (the real interrupt leaks it: the process is ending)
                raise KeyboardInterrupt
        return fd

    monkeypatch.setattr(os, "open", open_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(specs, out)
    monkeypatch.undo()
    assert len(created) == open_at and not os.path.exists(created[-1])
    assert not [p for p in out.rglob(".*") if p.name != mf.MANIFEST]
    assert _full_build(specs, out) == _full_build(specs, tmp_path / "clean")


def test_ctrl_c_during_a_build_says_so_in_one_line(tmp_path):
    """Ctrl-C in a terminal sends SIGINT to the whole process group, the build's worker processes included:
    `opgen build` then ends with the shell's status for it (130) and one line on stderr, no traceback (from
    it or its workers), and no temporary file in the output folder. A full build of the project's specs
    takes seconds; the signal comes while it parses or renders them."""
    import signal
    import time

    project = tmp_path / "project"
    shutil.copytree(ROOT / "specs", project / "specs")
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache"), "OPGEN_JOBS": "2"}
    console = str(Path(sys.executable).with_name("opgen"))
    process = subprocess.Popen([console, "build"], cwd=project, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(1.5)
    os.killpg(process.pid, signal.SIGINT)
    out, err = process.communicate(timeout=120)
    assert (process.returncode, out, err) == (
        130, "", "opgen build: interrupted; the next `opgen build` completes the output\n")
    out_dir = project / "generated"
    assert not out_dir.exists() or not [p for p in out_dir.rglob(".*") if p.name != mf.MANIFEST]


def test_an_output_that_cannot_be_written_is_a_located_error_and_the_next_build_converges(built, tmp_path):
    """A folder of the output replaced by a file (which stops root as surely as a read-only folder stops
    anyone else): the build says which file it could not write and why, in one line and status 1, and once
    the obstacle is gone the next build gives a clean build's tree. An output folder that cannot be made
    is named the same way."""
    specs, out = built
    write(specs / "demo" / "Scale.yaml", GOOD_OP.replace("Scales X.", "Scales X by alpha."))
    folder = out / "docs" / "en" / "demo"
    shutil.rmtree(folder)
    folder.write_text("in the way\n", encoding="utf-8")
    result = build(specs, out)
    assert result.exit_code == 1 and "Traceback" not in result.output, result.output
    assert f"{folder / 'Scale.md'} cannot be written: " in result.output, result.output
    assert build(specs, out, "--check").exit_code == 1
    folder.unlink()
    assert _full_build(specs, out) == _full_build(specs, tmp_path / "clean")
    blocker = tmp_path / "a-file"
    blocker.write_text("", encoding="utf-8")
    result = build(specs, blocker / "out")
    assert result.exit_code == 1 and f"{blocker / 'out'} cannot be created: " in result.output, result.output


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("name", ["notes.fifo", "Pipe.yaml"])
def test_a_named_pipe_among_the_specs_is_an_error_not_a_wait(tmp_path, name):
    """Opening a named pipe to read it waits for a writer: `opgen build` digested every file of the spec
    tree and `opgen lint` parsed every op file that way, and both hung. Now the pipe is a located error
    (status 1) for the build and its --check, and for lint where it names an op file (lint reads no
    other file)."""
    specs = demo_specs(tmp_path / "specs", "Scale")
    os.mkfifo(specs / "demo" / name)
    env = {**os.environ, "OPGEN_CACHE_DIR": str(tmp_path / "cache")}
    commands = [["build"], ["build", "--check"]] + ([["lint"]] if name.endswith(".yaml") else [])
    for command in commands:
        done = subprocess.run([sys.executable, "-m", "opgen.cli", *command, "--specs", str(specs),
                               *(["--out", str(tmp_path / "out")] if command[0] == "build" else [])],
                              capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
        output = done.stdout + done.stderr
        assert done.returncode == 1 and "Traceback" not in output, (command, output)
        assert f"demo/{name}" in output and "not a regular file" in output, (command, output)
