"""`opgen build` output is independent of the hash seed and of the working directory (issue 11, item 1):
the changelog once listed changed attribute defaults in set order, which PYTHONHASHSEED varies."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from opgen.parse import load_specs
from opgen.render.changelog import changelog

from conftest import SPECS, empty_spec_tree, write
from test_spec_errors import DOMAIN

OPGEN = Path(sys.executable).with_name("opgen")

# Two versions of one op whose four attributes all change their defaults: the changelog of version 3
# has four attr_default entries, which must come in spec order (delta, alpha, gamma, beta).
FOUR = """\
name: Four
domain: demo
category: activation
sources: [{document: demo.txt}]
versions:
%s
"""
VERSION = """\
  - since_version: %d
    summary: {en: Scales X., zh: 缩放 X。}
    attributes:
%s
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
    elementwise: {formula: delta * alpha * gamma * beta * X}
"""
ATTR = """\
      - name: %s
        type: float
        default: %s
        description: {en: Factor., zh: 系数。}"""
NAMES = ("delta", "alpha", "gamma", "beta")


def four_attribute_op() -> str:
    new = "\n".join(ATTR % (n, "2.0") for n in NAMES)
    old = "\n".join(ATTR % (n, "1.0") for n in NAMES)
    return FOUR % (VERSION % (3, new) + VERSION % (2, old))


def demo_tree(root: Path) -> Path:
    """The real specs plus a demo domain holding the four-attribute op."""
    specs = root / "specs"
    shutil.copytree(SPECS, specs)
    write(specs / "sources" / "demo.txt", "A demo source document.\n")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Four.yaml", four_attribute_op())
    return specs


def test_changelog_lists_attribute_changes_in_spec_order(tmp_path):
    specs = empty_spec_tree(tmp_path / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Four.yaml", four_attribute_op())
    loaded, errors = load_specs(specs)
    assert [str(e) for e in errors if e.severity == "error"] == []
    op = next(o for d in loaded.domains for o in d.ops if o.name == "Four")
    [(older, newer, changes)] = changelog(op)
    assert (older, newer) == (2, 3)
    assert [c.text("en") for c in changes] == [f"attribute {n}: default 1.0 -> 2.0" for n in NAMES]


def tree_bytes(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_build_is_independent_of_hash_seed_and_working_directory(tmp_path):
    specs = demo_tree(tmp_path)
    trees = []
    # Seeds chosen so that the four names' set order differs between them (checked below), so a
    # set-ordered changelog would differ between the two builds.
    for seed, cwd in (("1", tmp_path), ("5", specs / "demo")):
        out = tmp_path / f"gen-{seed}"
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run([str(OPGEN), "build", "--specs", str(specs), "--out", str(out)], cwd=cwd, env=env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        trees.append(tree_bytes(out))
    orders = [subprocess.run([sys.executable, "-c", f"print(list(set({list(NAMES)!r})))"], capture_output=True,
                             text=True, env=dict(os.environ, PYTHONHASHSEED=seed)).stdout for seed in ("1", "5")]
    assert orders[0] != orders[1]  # the seeds do disturb set order
    assert trees[0].keys() == trees[1].keys()
    differing = [name for name in trees[0] if trees[0][name] != trees[1][name]]
    assert differing == []
    page = trees[0]["docs/en/demo/Four.md"].decode()
    assert page.index("attribute delta: default") < page.index("attribute alpha: default") \
        < page.index("attribute gamma: default") < page.index("attribute beta: default")


def test_console_build_reports_and_exits_like_sys_exit(tmp_path):
    """The console script leaves `opgen build` without the interpreter's teardown (opgen.entry.console):
    what it printed must still arrive in full, the outputs be complete (a --check afterwards finds them
    fresh), and the exit status be the build's: 0 when built, 1 for a spec error."""
    project = tmp_path / "project"
    specs = empty_spec_tree(project / "specs")
    write(specs / "demo" / "domain.yaml", DOMAIN)
    write(specs / "demo" / "Four.yaml", four_attribute_op())
    env = dict(os.environ, OPGEN_CACHE_DIR=str(tmp_path / "cache"))

    def opgen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(OPGEN), *args], cwd=project, env=env, capture_output=True, text=True, timeout=300)

    built = opgen("build")
    assert built.returncode == 0, built.stdout + built.stderr
    lines = built.stdout.splitlines()
    assert re.match(r"opgen build: \d+ written, 0 unchanged", lines[0]) and lines[-1].startswith("C: 2 have typed C"), lines
    assert opgen("build", "--check").returncode == 0
    write(specs / "demo" / "Four.yaml", four_attribute_op().replace("since_version: 3", "since_version: three"))
    broken = opgen("build")
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "Four.yaml:" in broken.stdout + broken.stderr and "since_version" in broken.stdout + broken.stderr
