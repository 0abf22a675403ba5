"""Every generated C header compiles as C11 and as C++17 (issue 11, item 3): `restrict` is spelled
OPGEN_RESTRICT, which is `__restrict` in C++; header comments are well formed."""
from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from opgen.render.c_code import OPTIMISATION_FLAGS

from c_harness import C_DIR

INCLUDE = C_DIR / "include"
HEADERS = sorted(p.relative_to(INCLUDE).as_posix() for p in INCLUDE.rglob("*.h"))
COMPILERS = [("gcc", "c", ["-std=c11"]), ("g++", "cpp", ["-std=c++17"])]


def test_there_are_typed_headers():
    assert "opgen/runtime.h" in HEADERS and len(HEADERS) > 100


@pytest.mark.parametrize("compiler,suffix,std", COMPILERS, ids=["c11", "c++17"])
def test_every_header_compiles(compiler, suffix, std, tmp_path):
    exe = shutil.which(compiler)
    assert exe, f"{compiler} is needed"
    # One file including every header, twice (the include guards must hold): one compiler process per
    # language keeps the test fast.
    source = tmp_path / f"all.{suffix}"
    source.write_text("".join(f'#include "{h}"\n' for h in HEADERS * 2) + "int main(void) { return 0; }\n")
    run = subprocess.run([exe, *std, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", str(INCLUDE),
                          str(source)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[:4000]


def test_cplusplus_sees_the_kernels_with_c_linkage(tmp_path):
    """A C++ caller can take a kernel's address through the header: the declaration has C linkage
    and __restrict pointer parameters."""
    source = tmp_path / "use.cpp"
    source.write_text('#include "opgen/hlir/add.h"\n'
                      'extern "C" { typedef opgen_status (*add_fn)(const float *, const int64_t *, size_t,\n'
                      '    const float *, const int64_t *, size_t, const int64_t *, size_t, float *); }\n'
                      'add_fn f = &opgen_hlir_Add_v1_float;\n'
                      'static_assert(sizeof(f) > 0, "");\n')
    run = subprocess.run(["g++", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I", str(INCLUDE),
                          str(source)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[:4000]


def test_header_comments_are_well_formed():
    for name in HEADERS:
        text = (INCLUDE / name).read_text()
        assert not re.search(r"\w: \* ", text), f"{name}: stray '*' inside a comment line"
        assert "shape of ." not in text, f"{name}: output shape names no parameter"
        if name != "opgen/runtime.h" and "OPGEN_RESTRICT" in text:
            assert "must not overlap" in text, f"{name}: the no-aliasing requirement is not stated"


def test_prototypes_fit_in_120_columns():
    """Declarations and definitions are wrapped (formula bodies may still be longer)."""
    files = sorted(INCLUDE.rglob("*.h")) + sorted((C_DIR / "src").rglob("*.c"))
    for path in files:
        text = path.read_text()
        for match in re.finditer(r"^opgen_status \w+\([^;{]*[;{]", text, re.M):
            assert max(len(line) for line in match.group(0).splitlines()) <= 120, f"{path}: {match.group(0)}"


def test_build_flags_are_documented_not_pragmas():
    flags = " ".join(OPTIMISATION_FLAGS)
    assert flags == "-O2 -ftree-vectorize -fvect-cost-model=dynamic -fno-trapping-math -fno-math-errno"
    assert flags in (C_DIR / "README.md").read_text()
    for path in sorted((C_DIR / "src").rglob("*.c")):
        text = path.read_text()
        assert "#pragma" not in text, path
        if "OPGEN_RESTRICT" in text:
            assert f"Build with: {flags}" in text, path
