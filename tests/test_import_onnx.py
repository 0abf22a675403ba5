"""`opgen import onnx`: specs written from the installed onnx package's schemas.

Importing PRelu and Elu into a scratch folder gives the structure of the hand transcriptions in
specs/onnx (every version, attribute, parameter and type constraint); hand-written specs are never
overwritten; the written specs load, build and validate models."""
from __future__ import annotations

import re
import shutil

import onnx
import pytest
from click.testing import CliRunner
from onnx import TensorProto, helper

from opgen.cli import main
from opgen.parse import load_or_raise, load_specs
from opgen.validate import validate_model

from conftest import SPECS, project_specs


def run(*args):
    return CliRunner().invoke(main, list(args))


def structure(op):
    """Everything about an op version that onnx.defs states, in comparable form."""
    def params(ps):
        return [(p.name, p.type, p.option, p.homogeneous, p.min_arity) for p in ps]

    return [dict(since=v.since_version, support=v.support_level, function=bool(v.function),
                 function_opset=v.function_opset, body=(v.function_body or "").strip(),
                 shape_inference=bool(v.shape_inference),
                 attributes={a.name: (a.type, a.required, a.has_default, a.default) for a in v.attributes},
                 inputs=params(v.inputs), outputs=params(v.outputs),
                 types={t.name: set(t.types) for t in v.type_constraints})
            for v in op.versions]


@pytest.fixture
def imported(spec_tree):
    result = run("import", "onnx", "--op", "PRelu", "--op", "Elu", "--category", "activation",
                 "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    return spec_tree


def test_import_gives_the_structure_of_the_hand_transcriptions(imported):
    ours, hand = load_or_raise(imported).domain("onnx"), project_specs().domain("onnx")
    for name in ("PRelu", "Elu"):
        assert structure(ours.op(name)) == structure(hand.op(name)), name
        assert ours.op(name).category == hand.op(name).category
    assert [v.since_version for v in ours.op("PRelu").versions] == [16, 9, 7, 6, 1]
    assert [v.since_version for v in ours.op("Elu").versions] == [22, 6, 1]


def test_imported_texts_are_english_and_lint_lists_the_missing_chinese(imported):
    specs = load_or_raise(imported)
    summary = specs.find("onnx", "PRelu").versions[0].summary
    assert summary.en.startswith("PRelu takes input data") and summary.zh is None
    result = run("lint", "--specs", str(imported))
    assert result.exit_code == 1
    assert "onnx.PRelu@16: summary: warning: missing Chinese (zh) text" in result.output
    assert "missing English (en) text" not in result.output


def test_reimport_refreshes_facts_and_keeps_what_people_added(imported):
    path = imported / "onnx" / "PRelu.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.startswith("# opgen-import: onnx")
    text = text.replace("Input tensor", "Our own words", 1)  # an edited text
    text = text.replace("  type_constraints:", "  constraints:\n  - id: C1\n    description: {en: a kept check, zh: 保留的检查}\n"
                        "    check: rank(X) >= 0\n  type_constraints:", 1)  # an added constraint
    text = text.replace("support_level: COMMON", "support_level: EXPERIMENTAL", 1)  # a wrong fact
    path.write_text(text, encoding="utf-8")
    result = run("import", "onnx", "--op", "PRelu", "--specs", str(imported))  # category kept from the file
    assert result.exit_code == 0, result.output
    again = path.read_text(encoding="utf-8")
    assert "Our own words" in again and "a kept check" in again and "EXPERIMENTAL" not in again
    assert "category: activation" in again
    assert run("import", "onnx", "--op", "PRelu", "--specs", str(imported)).exit_code == 0
    assert path.read_text(encoding="utf-8") == again  # a second import changes nothing


def test_texts_come_from_a_texts_folder(imported, tmp_path):
    texts = tmp_path / "texts"
    texts.mkdir()
    (texts / "PRelu.yaml").write_text(
        "category: activation\n"
        "summary:\n  - versions: [16, 9]\n    en: Leaky rectifier with a learned slope.\n    zh: 斜率可学习的带泄露整流。\n"
        "inputs.X: {en: Data., zh: 数据。}\n", encoding="utf-8")
    result = run("import", "onnx", "--op", "PRelu", "--texts", str(texts), "--specs", str(imported))
    assert result.exit_code == 0, result.output
    versions = {v.since_version: v for v in load_or_raise(imported).find("onnx", "PRelu").versions}
    assert versions[16].summary.zh == "斜率可学习的带泄露整流。" == versions[9].summary.zh
    assert versions[7].summary.zh is None  # not in the texts file: ONNX's English, lint lists it
    assert {versions[v].inputs[0].description.en for v in versions} == {"Data."}
    text = (imported / "onnx" / "PRelu.yaml").read_text(encoding="utf-8")
    assert text.count("Leaky rectifier with a learned slope.") == 1  # shared by an anchor


def test_hand_written_specs_are_never_overwritten(spec_tree):
    shutil.copytree(SPECS / "onnx", spec_tree / "onnx")
    before = (spec_tree / "onnx" / "PRelu.yaml").read_bytes()
    result = run("import", "onnx", "--op", "PRelu", "--category", "activation", "--specs", str(spec_tree))
    assert result.exit_code == 1
    assert "is a hand-written spec; opgen import does not overwrite it" in result.output
    assert (spec_tree / "onnx" / "PRelu.yaml").read_bytes() == before


def test_versions_are_added_to_a_hand_written_domain_file(spec_tree):
    (spec_tree / "onnx").mkdir()
    for name in ("PRelu.yaml", "Elu.yaml"):
        shutil.copy(SPECS / "onnx" / name, spec_tree / "onnx" / name)
    domain = (SPECS / "onnx" / "domain.yaml").read_text(encoding="utf-8")
    domain = re.sub(r"opset_versions: \[[0-9, ]*\]", "opset_versions: [1, 6, 7, 9, 16, 22]", domain)
    (spec_tree / "onnx" / "domain.yaml").write_text(domain, encoding="utf-8")
    shutil.copytree(SPECS / "sources", spec_tree / "sources", dirs_exist_ok=True)
    result = run("import", "onnx", "--op", "Relu", "--category", "activation", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    assert (spec_tree / "sources" / "onnx-1.23.2-defs.md").is_file()  # the source the imported spec cites
    text = (spec_tree / "onnx" / "domain.yaml").read_text(encoding="utf-8")
    assert "opset_versions: [1, 6, 7, 9, 13, 14, 16, 22]" in text
    assert text.replace("opset_versions: [1, 6, 7, 9, 13, 14, 16, 22]", "opset_versions: [1, 6, 7, 9, 16, 22]") == domain
    specs, errors = load_specs(spec_tree)
    assert [e for e in errors if e.severity == "error"] == []
    assert [v.since_version for v in specs.find("onnx", "Relu").versions] == [14, 13, 6, 1]


def test_all_imports_every_operator_and_leaves_hand_written_ones_alone(spec_tree):
    (spec_tree / "onnx").mkdir()
    shutil.copy(SPECS / "onnx" / "PRelu.yaml", spec_tree / "onnx" / "PRelu.yaml")
    shutil.copy(SPECS / "onnx" / "Elu.yaml", spec_tree / "onnx" / "Elu.yaml")
    before = (spec_tree / "onnx" / "PRelu.yaml").read_bytes()
    result = run("import", "onnx", "--all", "--category", "elementwise_math", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    assert "left alone (hand-written): Elu, PRelu" in result.output
    assert (spec_tree / "onnx" / "PRelu.yaml").read_bytes() == before
    # every spec of the default domain (those of other ONNX domains are imported with --onnx-domain)
    default_domain = [p for p in (SPECS / "onnx").glob("*.yaml") if "\nonnx_domain:" not in p.read_text(encoding="utf-8")]
    assert len(list((spec_tree / "onnx").glob("*.yaml"))) == len(default_domain)
    # a type variable the schema declares and types nothing with is written as such (Tile-1's T1), as the
    # hand-kept spec has it
    tile = load_specs(spec_tree)[0].find("onnx", "Tile")  # (the copied PRelu names sources this tree lacks)
    flags = {(v.since_version, t.name): t.unused for v in tile.versions for t in v.type_constraints}
    assert flags[(1, "T1")] and not any(unused for key, unused in flags.items() if key != (1, "T1"))
    assert flags == {(v.since_version, t.name): t.unused for v in project_specs().find("onnx", "Tile").versions
                     for t in v.type_constraints}


def test_ops_of_another_onnx_domain_carry_it_and_its_opsets(spec_tree):
    assert run("import", "onnx", "--op", "Relu", "--category", "activation", "--specs", str(spec_tree)).exit_code == 0
    result = run("import", "onnx", "--onnx-domain", "ai.onnx.ml", "--op", "LabelEncoder", "--category",
                 "data_movement_indexing", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    assert "listed ai.onnx.ml (opset versions 1, 2, 3, 4, 5)" in result.output
    specs, errors = load_specs(spec_tree)
    assert [e for e in errors if e.severity == "error"] == []
    encoder = specs.find("onnx", "LabelEncoder")
    assert encoder.onnx_domain == "ai.onnx.ml" and [v.since_version for v in encoder.versions] == [4, 2, 1]
    assert dict(specs.domain("onnx").onnx_domains) == {"ai.onnx.ml": (1, 2, 3, 4, 5)}
    assert "onnx_aionnxml_LabelEncoder.html" in (spec_tree / "onnx" / "LabelEncoder.yaml").read_text(encoding="utf-8")
    result = run("import", "onnx", "--onnx-domain", "ai.onnx.ml", "--op", "Relu", "--category", "activation",
                 "--specs", str(spec_tree))
    assert result.exit_code != 0 and "has no operator Relu in the 'ai.onnx.ml' domain" in result.output


@pytest.mark.parametrize("args,fragment", [
    (["--op", "Prelu", "--category", "activation"], "has no operator Prelu in the default domain (did you mean PRelu"),
    (["--op", "Relu", "--category", "fun"], "unknown category 'fun'"),
    (["--op", "Relu", "--category", "activation", "--texts", "/no/such/folder"], "texts folder not found"),
    ([], "name the operators with --op NAME, or give --all"),
])
def test_clear_errors(spec_tree, args, fragment):
    result = run("import", "onnx", *args, "--specs", str(spec_tree))
    assert result.exit_code != 0 and fragment in result.output and "Traceback" not in result.output


def test_every_type_onnx_names_is_kept(spec_tree):
    result = run("import", "onnx", "--op", "Concat,SequenceAt,Optional,Cast", "--category", "data_movement_indexing",
                 "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    specs = load_or_raise(spec_tree)
    concat = specs.find("onnx", "Concat").versions[0].type_constraints[0].types
    assert {"tensor(float)", "tensor(string)", "tensor(complex64)"} <= set(concat)
    cast = {t.name: t.types for t in specs.find("onnx", "Cast").versions[0].type_constraints}
    assert {"tensor(float8e4m3fn)", "tensor(float4e2m1)", "tensor(int4)", "tensor(uint2)"} <= set(cast["T1"])
    seq = {t.name: t.types for t in specs.find("onnx", "SequenceAt").versions[0].type_constraints}
    assert "seq(tensor(float))" in seq["S"]
    optional = {t.name: t.types for t in specs.find("onnx", "Optional").versions[0].type_constraints}
    assert "optional(seq(tensor(int64)))" in optional["O"]
    assert specs.find("onnx", "Optional").versions[0].attributes[0].type == "type_proto"


def test_imported_specs_validate_models_with_subgraphs(spec_tree):
    result = run("import", "onnx", "--op", "PRelu,Elu,If", "--category", "control_flow", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    f = TensorProto.FLOAT

    def branch(name, dtype):
        return helper.make_graph([helper.make_node("Elu", ["x"], [f"{name}_y"], name=f"{name}_elu")], name, [],
                                 [helper.make_tensor_value_info(f"{name}_y", dtype, [2])])

    def model(dtype):
        node = helper.make_node("If", ["c"], ["y"], name="choose", then_branch=branch("then", dtype),
                                else_branch=branch("else", dtype))
        graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("c", TensorProto.BOOL, []),
                                                helper.make_tensor_value_info("x", dtype, [2])],
                                  [helper.make_tensor_value_info("y", dtype, [2])])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])

    assert validate_model(model(f), specs=spec_tree).valid  # If is known now, no --allow-unknown-ops
    bad = validate_model(model(TensorProto.INT8), specs=spec_tree)
    assert sorted(r.op for r in bad.problems) == ["onnx.Elu@6"] * 4  # X and Y in both branches; If allows int8
    assert {r.graph for r in bad.problems} == {"node 'choose' (#0).then_branch", "node 'choose' (#0).else_branch"}
    assert validate_model(model(f), specs=spec_tree).context == "onnx opset 21"
    onnx.checker.check_model(model(f), full_check=True)


@pytest.mark.parametrize("texts,spec,fragment", [
    ("summary: {en: a, zh: 甲, versions: 16}\n", None, "versions is 'all' or a list of since_versions"),
    ("summary: [1, 2]\n", None, "each entry has en, zh and optionally versions"),
    (None, "# opgen-import: onnx x\nversions: 3\n", "is not a spec (a mapping with a list of versions)"),
])
def test_broken_texts_or_earlier_spec_are_clear_errors(spec_tree, tmp_path, texts, spec, fragment):
    args = ["import", "onnx", "--op", "PRelu", "--category", "activation", "--specs", str(spec_tree)]
    if texts is not None:
        (tmp_path / "texts").mkdir()
        (tmp_path / "texts" / "PRelu.yaml").write_text(texts, encoding="utf-8")
        args += ["--texts", str(tmp_path / "texts")]
    if spec is not None:
        (spec_tree / "onnx").mkdir()
        (spec_tree / "onnx" / "PRelu.yaml").write_text(spec, encoding="utf-8")
    result = run(*args)
    assert result.exit_code == 1 and fragment in result.output and "Traceback" not in result.output


def test_the_category_follows_the_onnx_group_when_not_given(spec_tree):
    """onnx.defs files Relu under math: in an empty folder the group's own reading (elementwise_math);
    once the folder has specs of that group, the category most of them have."""
    result = run("import", "onnx", "--op", "Relu,Conv,Gather", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    specs = load_or_raise(spec_tree)
    assert {n: specs.find("onnx", n).category for n in ("Relu", "Conv", "Gather")} == {
        "Relu": "elementwise_math", "Conv": "convolution_pooling", "Gather": "data_movement_indexing"}
    assert "Relu: category elementwise_math from its ONNX group 'math'" in result.output
    for name in ("Relu", "Conv", "Gather"):
        (spec_tree / "onnx" / f"{name}.yaml").unlink()
    for name, category in (("Elu", "activation"), ("Selu", "activation"), ("Abs", "elementwise_math")):
        assert run("import", "onnx", "--op", name, "--category", category, "--specs", str(spec_tree)).exit_code == 0
    result = run("import", "onnx", "--op", "Relu", "--specs", str(spec_tree))
    assert result.exit_code == 0, result.output
    assert "Relu: category activation from its ONNX group 'math' (2 of the 3 specs of that group here have it)" \
        in result.output
    assert load_or_raise(spec_tree).find("onnx", "Relu").category == "activation"


def test_the_project_categories_agree_with_the_onnx_groups_mostly():
    """The rule reproduces the project's own categories for most ops (a check that it is a sensible default,
    not a claim that a group decides the category: the project's choices are finer)."""
    from opgen.import_category import category_from_group, existing_categories
    from opgen.importer import onnx_history

    history, existing = onnx_history(), existing_categories(SPECS / "onnx")
    known = sorted(set(existing.values()))
    agree = sum(category_from_group(n, history, {k: v for k, v in existing.items() if k != n}, known)[0] == c
                for n, c in existing.items() if n in history)
    assert agree / len(existing) > 0.55
