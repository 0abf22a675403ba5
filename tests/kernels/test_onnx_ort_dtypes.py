"""opgen's ONNX kernels against onnxruntime (CPU) for every ai.onnx op version with a kernel and every
element type of its inputs' type constraints (tests/ort_dtypes.py builds and runs the models); for the
sequence and optional ops, every sequence and optional type too (ort_dtypes.VALUE_OPS).

The element-wise ops are compared for every element type by tests/test_onnx_formulas.py and are left
out here, as are the ops of NOT_COMPARED. Inputs are the onnx package's node tests, retyped (see
tests/ort_cases.py), or where none applies small per-op recipes (tests/ort_recipes.py: older layouts,
sequences, optionals, random ops compared on properties; tests/ort_control_flow.py: If, Loop and Scan
with generated bodies, Dropout). Whether onnxruntime implements an (op version, type variable, element
type) is measured: the pairs for which it creates no session, with the reason (ort_dtypes.REFUSALS: no
kernel, no complex type, an opset it does not load, ...), are the lines of
tests/data/ort_not_implemented.txt; a pair that appears there or leaves it fails the test (rewrite the
file with `.venv/bin/python tests/kernels/test_onnx_ort_dtypes.py --record` after checking why; the
script also prints the coverage and the pairs without a case, `--only=Op,Op` for a few ops). A
disagreement, or any other onnxruntime error, fails unless it is an `ort-dtype` line of
tests/known_failures.txt with its reason and evidence; a listed pair that agrees fails too (the list
can only shrink).
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))  # run as a script: the helpers are next to the tests
import ort_cases  # noqa: E402
import ort_control_flow  # noqa: E402
import ort_dtypes  # noqa: E402
import ort_recipes  # noqa: E402

GAPS_FILE = TESTS / "data" / "ort_not_implemented.txt"
KNOWN_FILE = TESTS / "known_failures.txt"
SHARDS = 8  # the versions split into shards, so that pytest-xdist's workers share them
# At most this many node signatures (attribute sets, input types) per (op version, element type), spread
# over the op's node tests: every element type meets several attribute sets, and the run stays short
# (an onnxruntime session costs milliseconds to create and free).
MAX_SIGNATURES = 6
# Ops left out, and why (their outputs cannot be compared value for value, or their inputs are graphs).
NOT_COMPARED = {
    # two type variables that only make sense together (from and to; BitCast: equal widths)
    "Cast": "compared with onnxruntime pair of types by pair in tests/kernels/test_onnx_elem.py",
    "CastLike": "compared with onnxruntime pair of types by pair in tests/kernels/test_onnx_elem.py",
    "BitCast": "compared with onnxruntime pair of types by pair in tests/kernels/test_onnx_elem.py",
}
# Recipes (small generated inputs) for the op versions the node tests leave without a case; the random
# ops take only theirs (compared on properties, not value for value: tests/ort_recipes.py).
RECIPES = {**ort_recipes.RECIPES, **ort_control_flow.RECIPES}


def known() -> dict[str, str]:
    """`ort-dtype <Op>@<versions> <type var>=<dtypes>: reason` lines of tests/known_failures.txt, by pair;
    versions and dtypes are lists separated by commas (every combination is listed)."""
    out = {}
    for line in KNOWN_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("ort-dtype "):
            key, _, reason = line[len("ort-dtype "):].partition(": ")
            op_versions, _, var_dtypes = key.partition(" ")
            op, _, versions_listed = op_versions.partition("@")
            type_var, _, dtypes = var_dtypes.partition("=")
            for version in versions_listed.split(","):
                for dtype in dtypes.split(","):
                    out[pair_key(op, int(version), type_var, dtype)] = reason
    return out


def recorded_gaps() -> set[str]:
    return {line for line in GAPS_FILE.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")}


def pair_key(op: str, version: int, type_var: str, dtype: str) -> str:
    return f"{op}@{version} {type_var}={dtype}"


def versions() -> list:
    return [v for v in ort_dtypes.ai_onnx_versions() if v.op not in NOT_COMPARED]


def measure(version) -> tuple[dict[str, str], dict[str, list[str]], set[str], int]:
    """For one op version: each pair's verdict ("compared", "not implemented", "no case": no node test
    applies or no values survive the cast), the mismatches by pair, the pairs onnxruntime does not
    implement, and how many pairs there are."""
    cases = [] if version.op in ort_recipes.RANDOM else ort_cases.cases_of(version)
    verdicts, mismatches, gaps = {}, {}, set()
    for type_var in ort_dtypes.type_variables(version):
        for dtype in ort_dtypes.dtypes_of(version, type_var):
            key = pair_key(version.op, version.since_version, type_var, dtype)
            sigs = ort_cases.signatures(version.op, version, type_var, dtype, cases)
            sigs = sigs[::-(-len(sigs) // MAX_SIGNATURES)] if sigs else sigs
            if not sigs and version.op in RECIPES:
                sigs = RECIPES[version.op](version, type_var, dtype)
            if version.op == "Dropout":
                sigs = [ort_control_flow.dropout_agree(sig) for sig in sigs]
            outcomes = [ort_dtypes.compare(sig) for sig in sigs]
            if not outcomes:
                verdicts[key] = "no case"
            elif all(o.refused for o in outcomes):
                verdicts[key] = "not implemented"
                gaps.add(f"{key}: {outcomes[0].refused}")
            else:
                verdicts[key] = "compared"
            found = [m for o in outcomes for m in o.mismatches]
            if found:
                mismatches[key] = found
    return verdicts, mismatches, gaps, len(verdicts)


def shard_versions(shard: int) -> list:
    return versions()[shard::SHARDS]


def test_known_differences_have_reasons_and_name_real_pairs():
    listed = known()
    pairs = {pair_key(v.op, v.since_version, var, dtype) for v in versions()
             for var in ort_dtypes.type_variables(v) for dtype in ort_dtypes.dtypes_of(v, var)}
    assert sorted(set(listed) - pairs) == [], "ort-dtype lines naming no (op version, type variable, element type)"
    assert [k for k, reason in listed.items() if len(reason) < 30] == [], "give each its reason and evidence"


@pytest.mark.parametrize("shard", range(SHARDS))
def test_kernels_agree_with_onnxruntime_for_every_dtype(shard):
    listed, gaps_recorded = known(), recorded_gaps()
    mismatched, measured_gaps, keys = {}, set(), set()
    for version in shard_versions(shard):
        verdicts, mismatches, gaps, _ = measure(version)
        mismatched.update(mismatches)
        measured_gaps |= gaps
        keys |= set(verdicts)
    unexpected = {k: m[:3] for k, m in mismatched.items() if k not in listed}
    fixed = sorted(k for k in listed if k in keys and k not in mismatched)
    assert unexpected == {}, "opgen and onnxruntime disagree (fix the kernel, or list it in known_failures.txt)"
    assert fixed == [], "these listed differences are gone: remove their lines from tests/known_failures.txt"
    assert sorted(measured_gaps - gaps_recorded) == [], "onnxruntime lost these kernels (or this is new)"
    assert sorted(g for g in gaps_recorded - measured_gaps if g.partition(":")[0] in keys) == [], \
        "onnxruntime gained these kernels (or refuses them for another reason now)"


def main() -> None:
    """Print the coverage measured and the pairs without a case; with --record, rewrite the file of pairs
    onnxruntime lacks; with --only=Op,Op only those ops (nothing recorded)."""
    totals = {"compared": 0, "not implemented": 0, "no case": 0}
    all_gaps: set[str] = set()
    versions_seen = 0
    listed = known()
    only = next((a.split("=", 1)[1].split(",") for a in sys.argv if a.startswith("--only=")), None)
    for version in versions():
        if only is not None and version.op not in only:
            continue
        verdicts, mismatches, gaps, _ = measure(version)
        versions_seen += 1
        for key, verdict in verdicts.items():
            if verdict == "no case":
                print(f"NO CASE {key}", flush=True)
        all_gaps |= gaps
        for verdict in verdicts.values():
            totals[verdict] += 1
        for key, found in mismatches.items():
            print(f"MISMATCH{' (listed)' if key in listed else ''} {key}: {found[:2]}", flush=True)
    total = sum(totals.values())
    print(f"{versions_seen} op versions, {total} (op version, element type) pairs: {totals['compared']} compared "
          f"with onnxruntime, {totals['not implemented']} not implemented by it, {totals['no case']} without a case")
    if "--record" in sys.argv and only is None:
        GAPS_FILE.write_text("# (op version, type variable, element type) onnxruntime (CPU) has no kernel for,\n"
                             "# measured by tests/kernels/test_onnx_ort_dtypes.py --record\n"
                             + "".join(f"{k}\n" for k in sorted(all_gaps)), encoding="utf-8")


if __name__ == "__main__":
    main()
