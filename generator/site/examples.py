"""Runnable examples: each spec example as a Python snippet calling `opgen_ops.get_kernel`, RUN at
build time; the page shows the snippet and what it printed (never a hand-typed output).

Results are cached by the snippet's text and a digest of the kernel sources (generator/runtime and
generated/python), so a rebuild with nothing changed runs nothing."""
from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..dtypes import ELEM_TYPES, type_key
from ..model import Example, OpVersion, Parameter, example_number, plain_value
from ..names import attribute_keyword

# numpy dtypes that live in ml_dtypes (bfloat16, the float8/4/6 and int4/2 types): spelled ml_dtypes.<name>.
_NUMPY_NAMES = {"bool": "np.bool_", "float": "np.float32", "double": "np.float64", "string": "object"}


@dataclass(frozen=True)
class RunExample:
    name: str
    code: str
    output: str  # what the snippet printed; empty when it failed (error says why)
    error: str = ""


def _dtype_code(elem: str) -> tuple[str, bool]:
    """The dtype as code, and whether the snippet needs `import ml_dtypes`."""
    if elem in _NUMPY_NAMES:
        return _NUMPY_NAMES[elem], False
    name = ELEM_TYPES[elem].numpy.name
    if hasattr(__import__("numpy"), name):
        return f"np.{name}", False
    return f"ml_dtypes.{name}", True


def _value_code(value: Any, elem: str) -> str:
    if ELEM_TYPES[elem].kind == "complex":  # written as [real, imaginary] pairs, the innermost lists
        def to_complex(v: Any) -> Any:
            if isinstance(v, (list, tuple)) and len(v) == 2 and all(isinstance(x, (int, float)) for x in v):
                return complex(float(v[0]), float(v[1]))
            return [to_complex(x) for x in v]
        return repr(to_complex(plain_value(value)))
    return _literal(example_number(plain_value(value)))


def _literal(value: Any) -> str:
    """Python source of a nested list of numbers: repr, with infinities and NaN written as floats."""
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, float) and not math.isfinite(value):
        return f'float("{value}")'
    return repr(value)


def _elem(param: Parameter, example: Example) -> str:
    if param.is_fixed:
        return type_key(param.type)
    return dict(example.dtypes).get(param.name, example.dtype)


def snippet(v: OpVersion, example: Example) -> str:
    """The example as a program a reader can paste: inputs as typed arrays, the kernel called with the
    example's attributes, every output printed with its dtype and shape."""
    given = dict(example.inputs)
    lines: list[str] = []
    needs_ml_dtypes = False
    args: list[str] = []
    for p in v.inputs:
        if p.name not in given:
            args.append("None")
            continue
        dtype, extra = _dtype_code(_elem(p, example))
        needs_ml_dtypes |= extra
        value = given[p.name]
        if p.option == "variadic":
            for k, item in enumerate(value):
                lines.append(f"{p.name}_{k} = np.array({_value_code(item, _elem(p, example))}, dtype={dtype})")
                args.append(f"{p.name}_{k}")
        else:
            lines.append(f"{p.name} = np.array({_value_code(value, _elem(p, example))}, dtype={dtype})")
            args.append(p.name)
    while args and args[-1] == "None":
        args.pop()
    inputs = {p.name for p in v.inputs}  # an attribute named like an input: keyword <name>_attr
    keywords = [f"{attribute_keyword(k, inputs)}={_value_code(x, 'double')}" for k, x in example.attributes]
    expected = dict(example.outputs)
    for free in v.free_outputs():
        if free.name in expected:
            keywords.append(f"{free.name}_dtype={_elem(free, example)!r}")
    for output in v.shape_from_node:
        import numpy as np

        keywords.append(f"{output}_shape={tuple(np.asarray(plain_value(expected[output])).shape)!r}")
    for output in v.count_from_node:
        keywords.append(f"{output}_count={len(expected[output])}")
    names: list[str] = []
    for p in v.outputs:
        if p.option == "variadic":
            names += [f"{p.name}[{k}]" for k in range(len(expected.get(p.name, ())))]
        elif p.name in expected or p.option != "optional":
            names.append(p.name)
    head = ["import numpy as np"] + (["import ml_dtypes"] if needs_ml_dtypes else []) + ["import opgen_ops", ""]
    call = f"outputs = kernel({', '.join(args + keywords)})"
    return "\n".join(head + [f"kernel = opgen_ops.get_kernel({v.domain!r}, {v.op!r}, {v.since_version})"]
                     + lines + [call, f"for name, value in zip({names!r}, outputs):",
                                "    print(f'{name}: {value.dtype}, shape {value.shape}')",
                                "    print(value)"]) + "\n"


def run(code: str) -> tuple[str, str]:
    """Execute a snippet; (printed text, error text)."""
    import numpy as np

    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings(), np.printoptions(precision=6):
            warnings.simplefilter("ignore")
            exec(compile(code, "<example>", "exec"), {"__name__": "__example__"})
    except Exception as exc:  # shown as "not runnable" and counted in the build log, never hidden
        return "", f"{type(exc).__name__}: {exc}"
    return out.getvalue(), ""


def kernel_digest(root: Path) -> str:
    """What the example outputs depend on besides their code: the kernel sources."""
    h = hashlib.sha256()
    for folder in (root / "generator" / "runtime", root / "generated" / "python"):
        for path in sorted(folder.rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


class ExampleRunner:
    """Runs snippets through a JSON cache in the site's build folder."""

    def __init__(self, cache_file: Path, digest: str) -> None:
        self.cache_file = cache_file
        self.digest = digest
        self.ran = 0
        self.failed: list[str] = []
        try:
            data = json.loads(cache_file.read_text("utf-8"))
        except (OSError, ValueError):
            data = {}
        self.cache: dict[str, list[str]] = data.get("results", {}) if data.get("digest") == digest else {}

    def examples(self, v: OpVersion) -> list[RunExample]:
        results = []
        for e in v.examples:
            code = snippet(v, e)
            key = hashlib.sha256(code.encode()).hexdigest()
            if key not in self.cache:
                self.cache[key] = list(run(code))
                self.ran += 1
            output, error = self.cache[key]
            if error:
                self.failed.append(f"{v.key} {e.name}: {error}")
            results.append(RunExample(e.name, code, output, error))
        return results

    def save(self) -> None:
        self.cache_file.parent.mkdir(parents=True, exist_ok=True)
        self.cache_file.write_text(json.dumps({"digest": self.digest, "results": self.cache}), "utf-8")
