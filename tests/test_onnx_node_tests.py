"""Every model of the onnx package's node tests (1 884 with onnx 1.23.2) through `opgen validate`,
with onnx.checker.check_model(full_check=True) as the reference: no crash on any; every model of
the default domain the checker accepts, opgen accepts; models of other domains (ai.onnx.ml, the
preview and training domains) have no specs and are reported as such, by op."""
from __future__ import annotations

import warnings

import onnx
import onnx.checker
import onnx.shape_inference
import pytest

from opgen.validate import validate_model

DEFAULT = {"", "ai.onnx"}


@pytest.fixture(scope="module")
def verdicts():
    import onnx.backend.test.case.node as node_cases

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the case generators compute their expected outputs noisily
        cases = node_cases.collect_testcases()  # once, unfiltered (with an op it repeats its first answer)
    out = []
    for case in cases:
        model = case.model
        try:
            onnx.checker.check_model(model, full_check=True)
            checker_ok = True
        except (onnx.checker.ValidationError, onnx.shape_inference.InferenceError):
            checker_ok = False
        domains = {n.domain for n in model.graph.node} | {
            n.domain for f in model.functions for n in f.node}
        out.append((case.name, model, checker_ok, domains <= DEFAULT, validate_model(model)))
    return out


def test_all_node_tests_are_read(verdicts):
    assert len(verdicts) >= 1884


# opgen rejects these models the checker accepts (README, "Cases opgen catches beyond onnx.checker"):
# AffineGrid's function body computes both the 2-D and the 3-D grid in the branches of an If; for a
# 3-D grid, the branch for 2-D splits `size` (5 values) into 4 pieces of ceil(5 / 4) = 2, which leaves
# the last piece at -1 (onnx's own shape inference writes that -1). Only the branch the condition
# takes ever runs, so the results are right, but the branch not taken holds an impossible Split
# (Split-18 C4). (For a 2-D grid the other branch splits 4 values into 5: the last piece is empty,
# which is valid.)
OPGEN_ONLY = {f"test_affine_grid_3d{corners}_expanded": "onnx.Split@18" for corners in ("", "_align_corners")}


def test_opgen_accepts_every_default_domain_model_the_checker_accepts(verdicts):
    rejected = [(name, report.to_text().splitlines()[:3]) for name, _, ok, default, report in verdicts
                if ok and default and not report.valid and name not in OPGEN_ONLY]
    assert rejected == []


def test_the_models_only_opgen_rejects_are_rejected_for_their_reason(verdicts):
    found = {name: sorted({r.op for r in report.problems}) for name, _, ok, default, report in verdicts
             if name in OPGEN_ONLY}
    assert found == {name: [op] for name, op in OPGEN_ONLY.items()}
    for name, _, ok, _, report in verdicts:
        if name in OPGEN_ONLY:
            assert ok and all("else_branch" in r.graph or "then_branch" in r.graph for r in report.problems), name


def test_every_default_domain_node_is_checked(verdicts):
    unchecked = {name: report.unchecked for name, _, _, default, report in verdicts if default and report.unchecked}
    assert unchecked == {}


def test_node_tests_of_the_other_onnx_domains_are_checked_whole(verdicts):
    """ai.onnx.ml, ai.onnx.preview and ai.onnx.preview.training: the onnx spec domain holds the ops their
    node tests use (op-level onnx_domain), so each model the checker accepts, opgen accepts too, with
    every node checked (none left unchecked); a domain without specs keeps its "no spec for" problem
    (tests/kernels/test_onnx_more_domains.py)."""
    others = [(name, report) for name, model, ok, default, report in verdicts if ok and not default]
    assert len(others) >= 20
    for name, report in others:
        assert [str(p) for p in report.problems] == [] and not report.unchecked, name


# The checker rejects test_mvn (one MeanVarianceNormalization node, opset 13) for a Constant without a
# value attribute inside MeanVarianceNormalization's own function body, which the checker expands: a
# slip in onnx's function definition, not in the model. opgen checks the model's node against its
# spec and accepts it.
CHECKER_ONLY = {"test_mvn"}


def test_what_the_checker_rejects_opgen_rejects_too(verdicts):
    missed = {name for name, _, ok, default, report in verdicts if not ok and default and report.valid}
    assert missed == CHECKER_ONLY
