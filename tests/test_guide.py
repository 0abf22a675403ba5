"""The spec-authoring guide (docs/<lang>/guide.md) and the schema descriptions it is generated from:
every schema field is described in both languages, the guide lists every field, formula function,
check function and shape rule, and its worked example is a spec that builds and runs."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner

from opgen import expr
from opgen.cli import main
from opgen.formula import FORMULA_FUNCTIONS
from opgen.model import SpecSet
from opgen.render.guide import EXAMPLE_SPEC, guide_page, schema_nodes
from opgen.render.guide_text import BROADCAST_MODES, CHECK_FUNCTIONS
from opgen.runtime.shape_rules import RULES

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = {name: json.loads((ROOT / "specs" / "schema" / f"{name}.schema.json").read_text(encoding="utf-8"))
           for name in ("op", "domain")}
CHECK_NAMES = sorted(expr.SHAPE_FUNCTIONS | expr.MULTI_SHAPE_FUNCTIONS | expr.CHECK_BUILTINS)


@lru_cache(maxsize=None)
def guide(lang: str) -> str:
    return guide_page(SpecSet(()), lang).decode("utf-8")  # no domains: opgen's own schemas


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_every_schema_field_is_described_in_both_languages(name):
    schema = SCHEMAS[name]
    undescribed = [path or "(top level)" for path, node in [("", schema), *schema_nodes(schema)]
                   if not str(node.get("description", "")).strip() or not str(node.get("x-description-zh", "")).strip()]
    assert undescribed == []
    assert len(schema_nodes(schema)) >= (90 if name == "op" else 9)  # the walk reaches the nested fields


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schemas_keep_their_layout(name):
    """json.dumps(indent=2, ensure_ascii=False): the layout every editor of the schemas keeps, so
    parallel edits merge textually."""
    text = (ROOT / "specs" / "schema" / f"{name}.schema.json").read_text(encoding="utf-8")
    assert text == json.dumps(SCHEMAS[name], indent=2, ensure_ascii=False) + "\n"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_guide_names_every_field_function_and_rule(lang):
    text = guide(lang)
    missing = [f"field {path}" for name in SCHEMAS for path, _ in schema_nodes(SCHEMAS[name])
               if f"`{path}`" not in text]
    missing += [f"formula {f}" for f in FORMULA_FUNCTIONS if f"`{f}(" not in text]
    missing += [f"check {f}" for f in CHECK_NAMES if f"| `{f}` |" not in text]
    missing += [f"rule {r}" for r in RULES if f"| `{r}` |" not in text]
    missing += [f"broadcast {m}" for m in BROADCAST_MODES if f"`{m}`" not in text]
    assert missing == []
    assert EXAMPLE_SPEC.read_text(encoding="utf-8") in text
    # the page's language: the descriptions come from description / x-description-zh
    assert SCHEMAS["op"]["properties"]["name"]["description" if lang == "en" else "x-description-zh"] in text


def test_every_check_function_and_broadcast_mode_has_a_meaning():
    assert sorted(CHECK_FUNCTIONS) == CHECK_NAMES
    enum = SCHEMAS["op"]["$defs"]["version"]["properties"]["elementwise"]["properties"]["broadcast"]["enum"]
    assert sorted(BROADCAST_MODES) == sorted(enum)


def test_worked_example_builds_lints_and_runs(tmp_path):
    specs = tmp_path / "specs"
    (specs / "hlir").mkdir(parents=True)
    (specs / "sources").mkdir()
    shutil.copy(ROOT / "specs" / "hlir" / "domain.yaml", specs / "hlir")
    shutil.copy(ROOT / "specs" / "sources" / "004_9a4c3bf01a77ae81.txt", specs / "sources")
    shutil.copy(EXAMPLE_SPEC, specs / "hlir" / "Foo.yaml")
    out = tmp_path / "generated"
    built = CliRunner().invoke(main, ["build", "--specs", str(specs), "--out", str(out)])
    assert built.exit_code == 0, built.output
    linted = CliRunner().invoke(main, ["lint", "--specs", str(specs)])
    assert linted.exit_code == 0 and "0 text problem(s)" in linted.output, linted.output
    assert (out / "docs" / "en" / "guide.md").is_file()
    # The kernel and validator as the guide calls them; expected values: torch (the example's source),
    # 1.5 * torch.tanh(0.5 * x) in float64. A fresh interpreter: the installed opgen_ops would shadow these.
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import numpy as np, opgen_ops\n"
        "(y,) = opgen_ops.get_kernel('hlir', 'Foo', 1)(np.array([-2.0, 0.5]), alpha=1.5, beta=0.5)\n"
        "assert np.allclose(y, [-1.1423912339336473, 0.36737799360556367], rtol=1e-12, atol=0), y\n"
        "problems = [str(p) for p in opgen_ops.get_validator('hlir', 'Foo', 1)([('float', (2, 3))], {'beta': -1.0})]\n"
        "assert problems == ['hlir.Foo@1: constraint C1: beta is positive.'], problems\n")
    run = subprocess.run([sys.executable, "-c", script, str(out / "python")], capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr


def test_the_schemas_a_build_reads_are_inputs_of_the_build(tmp_path):
    """The guide (and every check) depends on the schemas: a spec folder's own schema/ is digested, and
    without one opgen's bundled schemas are, as if the folder held a copy of them."""
    from opgen.build import gather_inputs
    from opgen.paths import BUNDLED_SPECS

    bare, copied = tmp_path / "bare", tmp_path / "copied"
    bare.mkdir()
    shutil.copytree(BUNDLED_SPECS / "schema", copied / "schema")
    assert gather_inputs(bare).environment == gather_inputs(copied).environment
    schema = copied / "schema" / "op.schema.json"
    schema.write_text(schema.read_text(encoding="utf-8").replace("The operator's name", "The op's name"),
                      encoding="utf-8")
    assert gather_inputs(bare).environment != gather_inputs(copied).environment
