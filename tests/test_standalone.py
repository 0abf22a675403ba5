"""The repository stands alone: a clone with nothing beside it builds and passes the fidelity tests,
which read the source documents from specs/sources/ inside the repository."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

from opgen.parse import load_specs

from conftest import ROOT, SPECS


def test_every_cited_document_is_in_the_repository(specs):
    cited = {s.document for op in specs.ops() for s in op.sources if s.document is not None}  # extensions cite urls
    present = {p.name for p in (SPECS / "sources").iterdir() if p.name != "README.md"}
    assert cited == present  # every source is cited, and every citation is present
    readme = (SPECS / "sources" / "README.md").read_text(encoding="utf-8")
    assert all(name in readme for name in present)


def test_no_project_file_reads_outside_the_repository():
    beside = "sha" "red"  # the folder beside the repository, spelled so this file does not match itself
    pattern = re.compile(rf"\.\./{beside}|/{beside}/seeds|parents\[[2-9]\][^\n]*{beside}")
    offenders = [str(p.relative_to(ROOT)) for folder in ("tests", "generator", ".ci")
                 for p in (ROOT / folder).rglob("*") if p.is_file() and p.suffix in (".py", "", ".sh")
                 and pattern.search(p.read_text(encoding="utf-8", errors="ignore"))]
    offenders += [name for name in ("Makefile", "pyproject.toml") if pattern.search((ROOT / name).read_text())]
    assert offenders == []


def test_a_clone_with_nothing_beside_it_passes_the_fidelity_tests(tmp_path):
    """`git clone` into an empty folder, then the fidelity tests and a build check run there, with
    the clone's own generator (not this checkout's) first on the import path."""
    lonely = tmp_path / "empty-folder"
    lonely.mkdir()
    clone = lonely / "opgen"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(clone)], check=True)
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "opgen").symlink_to(clone / "generator", target_is_directory=True)
    (shim / "opgen_ops").symlink_to(clone / "generated" / "python" / "opgen_ops", target_is_directory=True)
    # the caller's pytest options (PYTEST_ADDOPTS: plugins from its own path) do not reach the clone's run
    env = {**{k: v for k, v in os.environ.items() if k != "PYTEST_ADDOPTS"}, "PYTHONPATH": str(shim),
           "OPGEN_CACHE_DIR": ""}
    probe = subprocess.run([sys.executable, "-c", "import opgen, opgen_ops; print(opgen.__file__)"], env=env,
                           capture_output=True, text=True, check=True)
    assert probe.stdout.strip().startswith(str(shim))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider",
                           "tests/test_hlir_fidelity.py", "tests/test_onnx_fidelity.py"],
                          cwd=clone, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]  # 0: tests ran and passed (5: none)
    check = subprocess.run([sys.executable, "-m", "opgen.cli", "build", "--check"], cwd=clone, env=env,
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stdout[-2000:] + check.stderr[-2000:]
    _, errors = load_specs(clone / "specs")
    assert [e for e in errors if e.severity == "error"] == []
    shutil.rmtree(clone)
