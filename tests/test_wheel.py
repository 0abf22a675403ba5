"""opgen as other teams install it: a wheel built from the repository, installed (without a checkout
beside it) into a fresh virtual environment, builds a spec folder of the user's own from any folder,
validates models, lists and shows the bundled ops, and runs as `python -m opgen`.

The fresh environment gets opgen's dependencies (numpy, onnx, ...) from this interpreter's
site-packages through a .pth line, which adds the folder without processing its .pth files, so this
checkout's editable install is not visible there: the test asserts that opgen is imported from the wheel.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from conftest import ROOT

# Left out of the copy the wheel is built from: at the top of the repository, what is not source (the
# virtualenv, build output, the docs site); anywhere, caches.
_SKIP_TOP = {".git", ".venv", "build", "dist", ".pytest_cache", ".hypothesis", "site", "site-screenshots"}
_SKIP_ANYWHERE = {"__pycache__"}


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("wheel")
    # Build from a copy: setuptools writes build/ and *.egg-info into the tree it builds.
    source = base / "source"
    shutil.copytree(ROOT, source, ignore=lambda d, names: [
        n for n in names if n in _SKIP_ANYWHERE or n.endswith(".egg-info") or (Path(d) == ROOT and n in _SKIP_TOP)])
    wheels = base / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(wheels), str(source)], check=True, capture_output=True)
    (wheel,) = wheels.glob("opgen-*.whl")
    env_dir = base / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "opgen-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                    str(wheel)], check=True, capture_output=True)
    user = base / "elsewhere"  # a folder with no specs/ anywhere above it that opgen could find
    user.mkdir()
    return {"wheel": wheel, "python": python, "opgen": env_dir / "bin" / "opgen", "cwd": user}


def _run(installed: dict[str, Path], *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["OPGEN_CACHE_DIR"] = ""
    return subprocess.run([str(a) for a in args], cwd=installed["cwd"], env=env, capture_output=True, text=True,
                          timeout=300)


def test_the_wheel_carries_templates_schemas_specs_and_type_markers(installed):
    names = set(zipfile.ZipFile(installed["wheel"]).namelist())
    assert {"opgen/py.typed", "opgen_ops/py.typed", "opgen/__main__.py", "opgen/templates/docs/op.md.j2",
            "opgen/templates/c/op.c.j2", "opgen/templates/site/op.md.j2", "opgen/templates/site/assets/opgen.css",
            "opgen/templates/site/overrides/partials/alternate.html", "opgen/specs/schema/op.schema.json",
            "opgen/specs/schema/hlir-graph.schema.json", "opgen/specs/onnx/domain.yaml",
            "opgen/specs/hlir/Abs.yaml", "opgen/specs/onednn/PReLU.yaml", "opgen/specs/sources/README.md"} <= names
    bundled = {n for n in names if n.startswith("opgen/specs/") and n.endswith(".yaml")}
    in_repo = {f"opgen/specs/{p.relative_to(ROOT / 'specs').as_posix()}" for p in (ROOT / "specs").rglob("*.yaml")}
    assert bundled == in_repo


def test_opgen_is_imported_from_the_wheel(installed):
    probe = _run(installed, installed["python"], "-c", "import opgen, opgen_ops; print(opgen.__file__); "
                 "print(opgen_ops.__file__)")
    assert probe.returncode == 0, probe.stderr
    env_dir = installed["python"].parent.parent
    assert all(Path(line).is_relative_to(env_dir) for line in probe.stdout.split())


def test_build_of_a_users_own_spec_folder(installed):
    specs = installed["cwd"] / "my_specs"
    shutil.copytree(ROOT / "specs" / "onednn", specs / "onednn")  # no schema/ folder: the wheel's schemas apply
    shutil.copytree(ROOT / "specs" / "sources", specs / "sources")
    built = _run(installed, installed["opgen"], "build", "--specs", "my_specs", "--out", "my_out")
    assert built.returncode == 0, built.stderr
    assert f"{len(list(specs.glob('onednn/[A-Z]*.yaml')))} op(s) rendered" in built.stdout
    kernel = installed["cwd"] / "my_out" / "python" / "opgen_ops" / "onednn" / "prelu.py"
    assert kernel.is_file() and (installed["cwd"] / "my_out" / "docs" / "zh" / "onednn").is_dir()
    assert list((installed["cwd"] / "my_out" / "c").rglob("*prelu*.c"))
    check = _run(installed, installed["opgen"], "build", "--specs", "my_specs", "--out", "my_out", "--check")
    assert check.returncode == 0 and "0 stale" in check.stdout


def test_build_without_a_spec_folder_says_where_it_looked(installed):
    done = _run(installed, installed["opgen"], "build")
    assert done.returncode == 2
    assert "no specs/ folder in the current directory or above it" in done.stderr
    assert "Traceback" not in done.stderr


def test_list_show_and_validate_use_the_bundled_specs(installed):
    listed = _run(installed, installed["opgen"], "list", "--domain", "hlir")
    assert listed.returncode == 0 and "hlir.Abs  [1]" in listed.stdout
    assert len(listed.stdout.splitlines()) == len(list((ROOT / "specs" / "hlir").glob("[A-Z]*.yaml")))
    shown = _run(installed, installed["python"], "-m", "opgen", "show", "onnx.Elu@6")
    assert shown.returncode == 0 and shown.stdout.startswith("onnx.Elu@6")
    for model in ("hlir_map_graph.yaml", "onednn_prelu_f32_nxc.json"):
        checked = _run(installed, installed["opgen"], "validate", "--format", "json", ROOT / "tests" / "data" / model)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        report = json.loads(checked.stdout)
        assert report["valid"] and report["checked"] == report["nodes"] > 0


def test_python_m_opgen_is_the_command_line(installed):
    done = _run(installed, installed["python"], "-m", "opgen", "--help")
    assert done.returncode == 0 and "validate" in done.stdout and "build" in done.stdout
