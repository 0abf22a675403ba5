"""Generated Python people can read: ruff (pyproject's [tool.ruff]: E, F, I at 120 columns) finds nothing
in generated/python and generated/tests (no unused import, no line over 120, sorted imports), kernels
call their function directly, and the line wrapper keeps the syntax tree."""
from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from opgen.render.pyformat import wrap_module
from opgen.render.python_imports import kernel_function

from conftest import ROOT


def test_ruff_finds_nothing_in_generated_code():
    run = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "generated/python", "generated/tests"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_kernels_call_their_function_directly():
    text = (ROOT / "generated/python/opgen_ops/hlir/reduce.py").read_text()
    assert "from opgen.runtime.kernels.reduction import reduce\n" in text
    assert "as_outputs(\n        reduce(*split_variadic(variadic, 0, 2), dimensions=dimensions," in text
    assert "_kernels.call" not in text
    # a function named like a builtin is imported under its module's name, so checks still see the builtin
    assert "from opgen.runtime.kernels.binary import pow as binary_pow\n" in \
        (ROOT / "generated/python/opgen_ops/hlir/pow.py").read_text()


@pytest.mark.parametrize("name", ["reduction", "a.b.c", "os.system('x')", "data_movement.import", "x.y z",
                                  "Reduction.reduce", "reduction.__import__('os')"])
def test_kernel_name_must_be_a_module_and_a_function(name):
    with pytest.raises(ValueError):
        kernel_function(name)


LONG = "x" * 30


@pytest.mark.parametrize("source", [
    f"value = f({LONG!r}, {LONG!r}, k={LONG!r}, *args, **{{'a': {LONG!r}, 'b': [1, 2, 3, {LONG!r}]}})\n",
    f"check = lambda c: c.attr({LONG!r}) in ({LONG!r}, {LONG!r}) and (c.rank({LONG!r}) > 1 or not c.x({LONG!r}))\n",
    f"t = all(0 <= d < c.rank({LONG!r}) for d in [c.attr({LONG!r}), c.attr({LONG!r})] + list(c.attr({LONG!r})))\n",
    f"y = (a if c.x({LONG!r}) else b) + max(-c.attr({LONG!r})[i], 0) * (c.shape({LONG!r})[i] - {LONG!r}.count('x'))\n",
    "s = " + repr("word " * 60 + "y" * 150) + "\n",
    f"def kernel_v1(x, y=None, *, {', '.join(f'a{k}={k}' for k in range(30))}):\n    return (x, y)\n",
    f"x = Check('C1', lambda c: c.a({LONG!r}) == c.b({LONG!r}), ({LONG!r} {LONG!r}), when=lambda c: c.n({LONG!r}))\n",
])
def test_wrapping_keeps_the_tree_and_the_width(source):
    wrapped = wrap_module(source, width=60)
    assert ast.dump(ast.parse(wrapped)) == ast.dump(ast.parse(source))
    assert max(len(line) for line in wrapped.splitlines()) <= 60, wrapped


def test_lines_that_fit_are_left_as_written():
    source = "x = {'a': 1,  'b': 2}\n"
    assert wrap_module(source) == source


def _tokenizer_depths(text: str) -> dict[int, int]:
    """The reference: bracket depth at each line start as Python's own tokenizer sees it."""
    import io
    import tokenize

    depths: dict[int, int] = {}
    depth = 0
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        for row in range(1, tok.start[0]):
            depths.setdefault(row, depth)
        if tok.type == tokenize.OP and tok.string in "([{":
            depth += 1
        elif tok.type == tokenize.OP and tok.string in ")]}":
            depth -= 1
    return {row: d for row, d in depths.items() if d}


@pytest.mark.parametrize("source", [
    "x = f(a,\n      b)\ny = [1,\n     {2: (3,\n          4)}]\n",
    "s = ')' + \"(\" + '''[\n]]]\n''' + \"\"\"{\n\"\"\"\nt = (1,\n     2)\n",  # brackets in strings
    "x = (1,  # ) a bracket in a comment\n     2)\n# (\ny = 3\n",
    "s = 'it\\'s (' + \"say \\\"[\\\"\" + r'\\\\' + ('a',\n   'b')\n",  # escaped quotes, a raw string
    "f(f'{x[0]}(', rb'(', '''a\\\\''' + (\n  1))\nz = f(\n  '''\n(\n''',\n)\n",  # prefixes, a string over lines
    "x = 1 + \\\n    (2 +\n     3)\n",  # a backslash continuation
])
def test_bracket_depths_are_the_tokenizers(source):
    from opgen.render.pyformat import _bracket_depths

    ast.parse(source)  # the case is Python
    found = {row: d for row, d in _bracket_depths(source).items() if d}
    assert found == _tokenizer_depths(source)


def test_every_generated_module_keeps_its_tree_when_wrapped(specs, monkeypatch):
    """The build wraps without re-parsing (a second of every build): here every module of the real
    specs is rendered unwrapped and compared, tree for tree, with what the build wrote."""
    from opgen.render import pyformat, render_all

    monkeypatch.setattr(pyformat, "wrap_module", lambda text, width=pyformat.WIDTH, verify=False: text)
    unwrapped = {path: data for path, data in render_all(specs).items() if path.endswith(".py")}
    assert len(unwrapped) > 250
    for path, data in unwrapped.items():
        written = (ROOT / "generated" / path).read_text(encoding="utf-8")
        assert ast.dump(ast.parse(written)) == ast.dump(ast.parse(data.decode("utf-8"))), path
