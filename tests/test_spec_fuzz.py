"""Mutated spec files never crash, hang or pass silently: every outcome is either a clean load or a
located error (file:line, op, field). Nine mutation families, drawn by hypothesis, each found
tracebacks or hangs before the loader and checker were hardened."""
from __future__ import annotations

import re
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opgen.parse import load_specs

from conftest import SPECS, empty_spec_tree, write
from test_spec_errors import DOMAIN, GOOD_OP

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
LOCATED = re.compile(r"^\S+\.yaml(:\d+:\d+)?: ")
REAL = {"onnx/PRelu.yaml": (SPECS / "onnx" / "PRelu.yaml").read_text(encoding="utf-8"),
        "hlir/Abs.yaml": (SPECS / "hlir" / "Abs.yaml").read_text(encoding="utf-8")}


def outcome(tmp: Path, text: str, name: str = "Scale") -> list[str]:
    """Load a demo tree holding `text` as demo/<name>.yaml; every problem must be located; returns them."""
    specs = tmp / "specs"
    if not specs.exists():
        empty_spec_tree(specs)
        write(specs / "demo" / "domain.yaml", DOMAIN)
    for old in (specs / "demo").glob("*.yaml"):
        if old.name != "domain.yaml":
            old.unlink()
    write(specs / "demo" / f"{name}.yaml", text)
    start = time.perf_counter()
    _, errors = load_specs(specs)  # must not raise
    assert time.perf_counter() - start < 5, "loading a mutated spec took more than 5 s"
    lines = [str(e) for e in errors if e.severity == "error"]
    for line in lines:
        assert LOCATED.match(line), line
        assert len(line) < 2000, line[:200]
    return lines


@st.composite
def nesting(draw):
    depth = draw(st.integers(50, 3000))
    flow = draw(st.booleans())
    value = "[" * depth + "1" + "]" * depth if flow else "\n".join("  " * k + "-" for k in range(depth)) + " 1"
    return GOOD_OP + f"examples_extra: {value}\n" if flow else GOOD_OP + "examples_extra:\n" + value + "\n"


@given(text=nesting())
@SETTINGS
def test_deep_nesting_is_a_located_error(tmp_path, text):
    assert outcome(tmp_path, text)


TAGS = ["!!python/object/apply:os.system ['true']", "!!python/name:os.system", "!!null x", "!!bool maybe",
        "!!int abc", "!!float x", "!!timestamp x", "2001-02-30", "2001-02-03", "!!binary aGVsbG8=", "!custom x",
        "!!set {a, b}", "!!omap [a: 1]", "!!str 12"]


@given(tag=st.sampled_from(TAGS), place=st.sampled_from(["default: 1.0", "category: activation",
                                                        "since_version: 2", "Scales X."]))
@SETTINGS
def test_tags_and_dates_are_located_errors(tmp_path, tag, place):
    key = place.split(":")[0] if ":" in place else None
    text = GOOD_OP.replace(place, f"{key}: {tag}" if key else tag, 1)
    assert outcome(tmp_path, text)


@given(depth=st.integers(3, 12), width=st.integers(2, 12))
@SETTINGS
def test_alias_bombs_are_bounded(tmp_path, depth, width):
    lines = ["a0: &a0 [x, x, x]"]
    lines += [f"a{k}: &a{k} [{', '.join(['*a' + str(k - 1)] * width)}]" for k in range(1, depth)]
    text = GOOD_OP + "\n".join(lines) + "\n"
    errors = outcome(tmp_path, text)
    assert errors  # either too many expanded values or an unknown key; never a hang


@given(new=st.sampled_from(["i", "it", "slope_", "X_", "Xin", "status", "np", "compute"]))
@SETTINGS
def test_renaming_an_input_that_is_still_named_elsewhere_is_an_error(tmp_path, new):
    text = GOOD_OP.replace("      - name: X\n", f"      - name: {new}\n")
    assert any("X" in e for e in outcome(tmp_path, text))


@given(check=st.sampled_from(["len([0] * 10**10) > 0", "sum(range(10**12)) > 0", "'a' * 10 ** 9 != ''",
                              "len([0] * rank(X)) >= 0", "alpha ** alpha > 0", "[0] * 99999999999"]))
@SETTINGS
def test_checks_that_would_exhaust_memory_or_time_are_refused(tmp_path, check):
    text = GOOD_OP.replace("    elementwise:", "    constraints:\n      - id: C1\n        description: {en: x, zh: x}\n"
                                               f"        check: \"{check}\"\n    elementwise:")
    assert any("constraints.C1.check" in e for e in outcome(tmp_path, text))


@given(value=st.sampled_from([".nan", ".inf", "-.inf", "9" * 5000, "1e999", "0x" + "f" * 400]),
       place=st.sampled_from(["default: 1.0", "inputs: {X: [1.0, 2.0]}"]))
@SETTINGS
def test_odd_numbers_are_located_errors(tmp_path, value, place):
    text = GOOD_OP + ("    examples:\n      - name: e\n        inputs: {X: [1.0, 2.0]}\n        outputs: {Y: [1.0, 2.0]}\n"
                      if "inputs" in place else "")
    replacement = place.replace("1.0", value, 1)
    text = text.replace(place, replacement, 1)
    assert outcome(tmp_path, text)


@given(data=st.data())
@SETTINGS
def test_control_characters_and_truncation(tmp_path, data):
    name = data.draw(st.sampled_from(sorted(REAL)))
    text = REAL[name]
    if data.draw(st.booleans()):
        cut = data.draw(st.integers(1, len(text) - 1))
        text = text[:cut]
    else:
        at = data.draw(st.integers(0, len(text) - 1))
        char = data.draw(st.sampled_from(["\x00", "\x1b", "\x07", "\ud800", "\t", "\u2028", "\x85"]))
        text = text[:at] + char + text[at:]
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    op = Path(name).stem
    outcome(tmp_path, text.replace(f"domain: {name.split('/')[0]}", "domain: demo"), op)


@given(data=st.data())
@SETTINGS
def test_deleted_and_retyped_keys(tmp_path, data):
    lines = GOOD_OP.splitlines(keepends=True)
    k = data.draw(st.integers(0, len(lines) - 1))
    action = data.draw(st.sampled_from(["delete", "list", "map", "number", "duplicate"]))
    line = lines[k]
    if ":" in line and action != "delete":
        key = line.split(":", 1)[0]
        value = {"list": " [1, [2]]\n", "map": " {a: {b: c}}\n", "number": " 12345678901234567890\n",
                 "duplicate": line.split(":", 1)[1]}[action]
        lines[k] = f"{key}:{value}" + (line if action == "duplicate" else "")
    else:
        del lines[k]
    outcome(tmp_path, "".join(lines))
