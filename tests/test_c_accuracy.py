"""Accuracy of the C kernels, measured rather than assumed: the C kernels call glibc's vector maths
(libmvec, up to 4 ulp, generated/c/include/opgen/vector_math.h) instead of scalar libm, so every float
kernel is run on a dense sweep of its element type (every binade of both signs, subnormals, NaN, +-inf, +-0,
and a fine grid of [-10, 10]) and compared with the NumPy kernel evaluating the same formula in float64.

Each kernel's largest error in ulp of its output type is printed (`pytest -s`) and must stay within the
tolerance table (opgen.testing.TOLERANCES). Where the formula itself loses accuracy in the compute type (an
intermediate that overflows, a cancellation: the NumPy kernel of the same element type misses the float64
value as well), the C result must agree with that NumPy kernel instead.
"""
from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
from c_harness import OPGEN_OK, call_c
from conftest import project_specs
from kernel_refs import edge_values

import opgen_ops
from opgen.dtypes import ELEM_TYPES, tensor_elem
from opgen.formula import formula_to_numpy
from opgen.render.c_code import fixed_inputs, kernel_views
from opgen.runtime import elementwise as _ew
from opgen.testing import TOLERANCES

# Elements per kernel call: about 2**16 (a sweep for one input, a grid for more).
POINTS = 1 << 16


def accuracy_cases():
    """One case per distinct float computation: kernels whose formula, element type and input count are
    the same compute the same values (an op's versions mostly share their formula)."""
    seen = set()
    for domain in ("hlir", "onnx", "onednn"):
        for op in project_specs().domain(domain).ops:
            for v in op.versions:
                ew = v.elementwise
                required = [a for a in v.attributes if a.required and not a.has_default]
                if ew is None or required:
                    continue
                for view in kernel_views(v):
                    if ELEM_TYPES[view["out_elem"]].kind != "float":
                        continue
                    key = (ew.formula, ew.finish, view["elem"], len(v.inputs), ew.broadcast)
                    if key not in seen:
                        seen.add(key)
                        yield pytest.param(v, view["elem"], view["out_elem"], id=f"{v.key}-{view['elem']}")


def sweep(elem: str) -> np.ndarray:
    """Edge values, 4096 bit patterns spread evenly over the whole float32 range (both signs, every binade,
    subnormals, inf and NaN), and 8192 points of [-10, 10], in the element type (rounded there)."""
    bits = np.linspace(0, 2**32 - 1, 4096).astype(np.uint64).astype(np.uint32).view(np.float32)
    dense = np.linspace(-10, 10, 8192)
    values = np.concatenate([edge_values(elem).astype(np.float64), bits.astype(np.float64), dense])
    with np.errstate(over="ignore"):
        return values.astype(ELEM_TYPES[elem].numpy)


def grid_inputs(v, elem: str) -> list[np.ndarray]:
    """A sweep for one input; for n inputs each varies along its own axis of about POINTS ** (1 / n) values
    (every combination is computed; each input is given whole, for ops whose inputs must share a shape), a
    fixed-type input (Where's condition) alternating True and False, and optional inputs (Clip's bounds)
    the scalars -2.5 and 2.5, in order."""
    params = list(v.inputs) * 2 if v.elementwise.fold is not None else list(v.inputs)
    varying = [p for p in params if p.option != "optional"]
    size = int(round(POINTS ** (1 / len(varying))))
    values = sweep(elem)
    picked = values if len(varying) == 1 else values[np.linspace(0, values.size - 1, size).astype(int)]
    shape = (picked.size,) * len(varying)
    arrays, axis, bounds = [], 0, iter((-2.5, 2.5))
    for p in params:
        if p.option == "optional":
            arrays.append(np.array(next(bounds), picked.dtype))
            continue
        column = picked
        if p.name in fixed_inputs(v):
            column = (np.arange(picked.size) % 2 == 0).astype(fixed_inputs(v)[p.name].numpy)
        axes = [1] * len(varying)
        axes[axis] = picked.size
        arrays.append(np.ascontiguousarray(np.broadcast_to(column.reshape(axes), shape)))
        axis += 1
    return arrays


def float64_reference(v, kernel, wide: list[np.ndarray]) -> np.ndarray:
    """The NumPy kernel on the float64 inputs; for an op that does not allow double (onednn's PReLU), the
    same spec formula emitted for NumPy and evaluated on them."""
    if ELEM_TYPES["double"].numpy in [np.dtype(t) for t in _allowed_numpy(v)]:
        (want,) = kernel(*wide)
        return np.asarray(want, np.float64)
    assert v.elementwise.fold is None, v.key
    names = {p.name: f"v_{p.name}" for p in v.inputs}
    names.update({a.name: f"a_{a.name}" for a in v.attributes})  # their defaults (oneDNN SoftPlus's beta)
    source = formula_to_numpy(v.elementwise.formula, names)
    scope = {names[p.name]: a for p, a in zip(v.inputs, wide)}
    scope.update({names[a.name]: a.default for a in v.attributes if a.has_default})
    return np.asarray(eval(source, {"np": np, "_ew": _ew}, scope), np.float64)


def _allowed_numpy(v) -> list:
    types = v.allowed_types(v.formula_input())
    return [ELEM_TYPES[tensor_elem(t)].numpy for t in types if tensor_elem(t) in ELEM_TYPES]


def ulp(values: np.ndarray, elem: str) -> np.ndarray:
    """The spacing of the element type's values at each (float64) value: its ulp, subnormals included."""
    info = ml_dtypes.finfo(ELEM_TYPES[elem].numpy)
    magnitude = np.maximum(np.abs(values), float(info.tiny))
    return np.ldexp(1.0, np.floor(np.log2(magnitude)).astype(int) - int(info.nmant))


@pytest.mark.parametrize("v,elem,out_elem", list(accuracy_cases()))
def test_c_kernel_accuracy(c_library, v, elem, out_elem):
    kernel = opgen_ops.get_kernel(v.domain, v.op, v.since_version)
    inputs = grid_inputs(v, elem)
    wide = [a if a.dtype == np.bool_ else a.astype(np.float64) for a in inputs]
    with np.errstate(all="ignore"):
        want64 = float64_reference(v, kernel, wide)
        (same_type,) = kernel(*inputs)  # the NumPy kernel in the C kernel's types
    status, got = call_c(c_library, v, elem, inputs, {}, want64.shape, out_elem)
    assert status == OPGEN_OK
    got, same_type = got.astype(np.float64), np.asarray(same_type).astype(np.float64)
    with np.errstate(all="ignore"):
        rounded = want64.astype(ELEM_TYPES[out_elem].numpy).astype(np.float64)  # overflow to inf is right

    rtol, atol = TOLERANCES[out_elem]

    def agree(a: np.ndarray, b: np.ndarray, b_rounded: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            close = np.abs(a - b) <= atol + rtol * np.abs(b)
        return close | (a == b_rounded) | (np.isnan(a) & np.isnan(b))

    formula_exact = agree(same_type, want64, rounded)  # where the formula holds in the compute type
    ok = np.where(formula_exact, agree(got, want64, rounded), agree(got, same_type, same_type))
    measured = formula_exact & np.isfinite(want64) & np.isfinite(got)
    with np.errstate(all="ignore"):
        spacing = ulp(want64[measured], out_elem)
        errors = np.abs(got - want64)[measured] / spacing
        numpy_errors = np.abs(same_type - want64)[measured] / spacing
    worst = float(errors.max()) if errors.size else 0.0
    # The NumPy kernel's error in the same types, for scale: a formula that cancels (exp(x) - 1 near 0) has
    # results of many ulp within the absolute tolerance in both.
    print(f"{v.key} {elem}: max {worst:.2f} ulp of {out_elem} (NumPy in {elem}: "
          f"{float(numpy_errors.max()) if numpy_errors.size else 0.0:.2f}) over {int(measured.sum())} points; "
          f"{int((~formula_exact).sum())} where the formula misses float64 in {elem}")
    bad = np.flatnonzero(~ok.ravel())
    points = [tuple(float(np.broadcast_to(a, want64.shape).ravel()[k]) for a in wide) for k in bad[:5]]
    assert bad.size == 0, (f"{v.key} {elem}: {bad.size} results outside {rtol, atol} (max {worst:.2f} ulp); "
                           f"inputs {points}, C {got.ravel()[bad[:5]]}, float64 {want64.ravel()[bad[:5]]}")


def test_libm_calls_vectorise_with_the_documented_flags(tmp_path):
    """Built as generated/c/README.md says, the loops call libmvec's 4-float and 2-double variants (glibc 2.35 or
    later on x86-64; elsewhere vector_math.h declares nothing and the scalar calls stay), and floor needs no libm
    call at all. On x86-64 with glibc each floating kernel is also compiled for AVX2, which calls the 8-float and
    4-double variants, and an ifunc resolver picks one at load time (OPGEN_CPU_CLONES, GCC only); OPGEN_NO_CPU_DISPATCH
    leaves the baseline function alone, and kernels of other types (integers, float16) are never cloned."""
    import platform
    import shutil
    import subprocess

    from c_harness import C_DIR, CFLAGS

    def assembly(source: str, *flags: str) -> str:
        out = tmp_path / "out.s"
        cc = shutil.which("cc") or shutil.which("gcc")
        subprocess.run([cc, *CFLAGS, *flags, "-I", str(C_DIR / "include"), "-S", str(C_DIR / "src" / source), "-o",
                        str(out)], check=True)
        return out.read_text()

    tanh = assembly("hlir/tanh.c")
    glibc = platform.libc_ver()
    if platform.machine() == "x86_64" and glibc[0] == "glibc" and tuple(map(int, glibc[1].split("."))) >= (2, 35):
        assert "_ZGVbN4v_tanhf" in tanh and "_ZGVbN2v_tanh" in tanh
        assert "_ZGVdN8v_tanhf" in tanh and "_ZGVdN4v_tanh" in tanh
        assert re.search(r"\.type\s+opgen_hlir_Tanh_v1_float,\s*@gnu_indirect_function", tanh)
        assert "opgen_hlir_Tanh_v1_float.avx2" in tanh
        single = assembly("hlir/tanh.c", "-DOPGEN_NO_CPU_DISPATCH")
        assert "gnu_indirect_function" not in single and ".avx2" not in single and "_ZGVbN4v_tanhf" in single
        # Clang (its macro set here) gets the baseline alone: Clang 14 exports the clones' resolver as
        # `<name>.ifunc`, so a caller of <name> could not link
        assert "gnu_indirect_function" not in assembly("hlir/tanh.c", "-D__clang__=1")
        abs_ = assembly("hlir/abs.c")
        assert "opgen_hlir_Abs_v1_int32:" in abs_ and "opgen_hlir_Abs_v1_int32.avx2" not in abs_
        assert "opgen_hlir_Tanh_v1_float16:" in tanh and "opgen_hlir_Tanh_v1_float16.avx2" not in tanh
    else:
        assert "tanhf" in tanh and "_ZGV" not in tanh
    assert not re.search(r"call\s+floor", assembly("hlir/floor.c"))


@pytest.mark.parametrize("op", ["floor", "ceil"])
def test_floor_and_ceil_give_the_same_bits_with_and_without_the_run_time_choice(tmp_path, op):
    """Floor and Ceil's dense loops take SSE4.1's roundps where the processor has it (runtime.h's
    opgen_<op>_array_*), and the branch-free helpers otherwise (OPGEN_NO_CPU_DISPATCH forces them): both
    builds give NumPy's bits on edge values (±0, halves, 2^23 and 2^52 neighbours, ±inf, NaN, subnormals)."""
    import ctypes
    import shutil
    import subprocess

    from c_harness import C_DIR, CFLAGS

    cc = shutil.which("cc") or shutil.which("gcc")
    values32 = np.concatenate([edge_values("float"), np.float32([0.5, -0.5, 1.5, -1.5, 2.0**23 - 0.5, -(2.0**23) + 0.5,
                                                                  2.0**23, 2.0**31, -(2.0**31) - 1024, 1e-45, -1e-45])])
    values64 = np.concatenate([edge_values("double"), [0.5, -0.5, 2.0**52 - 0.5, -(2.0**52) + 0.5, 2.0**52, 2.0**63,
                                                        -5e-324, 4503599627370495.5]])
    source = C_DIR / "src" / "hlir" / f"{op}.c"
    for flags in ([], ["-DOPGEN_NO_CPU_DISPATCH"]):
        lib_path = tmp_path / f"lib{op}{len(flags)}.so"
        subprocess.run([cc, *CFLAGS, *flags, "-shared", "-I", str(C_DIR / "include"), str(source), "-o", str(lib_path),
                        "-lm"], check=True)
        lib = ctypes.CDLL(str(lib_path))
        for values, suffix in ((values32, "float"), (values64, "double")):
            x = np.ascontiguousarray(values)
            y = np.empty_like(x)
            shape = np.array([x.size], np.int64)
            fn = getattr(lib, f"opgen_hlir_{op.capitalize()}_v1_{suffix}")
            assert fn(ctypes.c_void_p(x.ctypes.data), ctypes.c_void_p(shape.ctypes.data), ctypes.c_size_t(1),
                      ctypes.c_void_p(y.ctypes.data)) == OPGEN_OK
            want = getattr(np, op)(x)
            same = (y.view(np.uint64 if suffix == "double" else np.uint32) ==
                    want.view(np.uint64 if suffix == "double" else np.uint32)) | (np.isnan(y) & np.isnan(want))
            assert same.all(), (flags, suffix, x[~same], y[~same], want[~same])


@pytest.mark.parametrize("elem", ["float", "double"])
def test_clamp_between_single_bounds_gives_the_general_formulas_bits(c_library, elem):
    """hlir Clamp over a dense input with one value per bound takes runtime.h's opgen_clamp_array_* (one
    compare-and-select per bound) when the bounds are ordered non-zero numbers, and the general IEEE
    maximum/minimum loop otherwise: both give the NumPy kernel's bits on edge inputs (NaN, ±0, ±inf,
    subnormals) for bounds on each side of that condition, including NaN, ±0 and crossed bounds."""
    dtype = ELEM_TYPES[elem].numpy
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.concatenate([edge_values(elem), np.array([-1.0, 1.0, 0.5, -0.5, 3.0, -3.0, tiny, -tiny], dtype),
                        np.random.default_rng(3).uniform(-4, 4, 3000).astype(dtype)]).astype(dtype)
    v = project_specs().domain("hlir").op("Clamp").versions[0]
    kernel = opgen_ops.get_kernel("hlir", "Clamp")
    bounds = [(-1.0, 1.0), (-np.inf, 0.5), (tiny, 2.0), (-3.0, -2.0), (1.0, 1.0), (-np.inf, np.inf),  # one pass
              (0.0, 1.0), (-0.0, 1.0), (-1.0, -0.0), (np.nan, 1.0), (-1.0, np.nan), (2.0, 1.0), (0.0, -0.0)]
    for low, high in bounds:
        low_, high_ = np.array(low, dtype), np.array(high, dtype)
        (want,) = kernel(low_, x, high_)
        status, got = call_c(c_library, v, elem, [low_, x, high_], {}, want.shape)
        assert status == OPGEN_OK
        unsigned = np.uint32 if elem == "float" else np.uint64
        same = (got.view(unsigned) == want.view(unsigned)) | (np.isnan(got) & np.isnan(want))
        assert same.all(), (low, high, x[~same], got[~same], want[~same])
