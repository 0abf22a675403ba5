"""The generated C compiles with -Werror and its kernels agree with the NumPy kernels."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest
from c_harness import OPGEN_ERR_ARGUMENT, OPGEN_ERR_NOT_IMPLEMENTED, OPGEN_ERR_SHAPE, OPGEN_OK, call_c
from conftest import project_specs
from onnx_refs import random_input

import opgen_ops
from opgen.dtypes import ELEM_TYPES
from opgen.render.c_code import fixed_inputs, kernel_views


def kernel_cases(specs):
    for domain in ("onnx", "onednn", "hlir"):
        for op in specs.domain(domain).ops:
            for v in op.versions:
                # hlir's XLA broadcasting takes shapes of its own (broadcast_dimensions); its one-input ops and
                # those that take one shape (the StableHLO extensions) run the shapes below
                if domain == "hlir" and (v.elementwise is None or (v.elementwise.broadcast != "none"
                                                                   and len(v.inputs) > 1)):
                    continue
                for view in kernel_views(v):
                    yield pytest.param(v, view["elem"], id=f"{v.key}-{view['elem']}")


def test_every_domain_gets_c_kernels(specs):
    elems = {(v.key, view["elem"]) for op in specs.domain("onnx").ops for v in op.versions for view in kernel_views(v)}
    assert ("onnx.PRelu@16", "bfloat16") in elems and ("onnx.PRelu@16", "uint64") in elems
    assert ("onnx.Elu@22", "float16") in elems and ("onnx.Elu@1", "double") in elems


# Element-wise formula ops not listed in SHAPES take these, by input count: one input of several ranks
# (and empty), or two or three inputs broadcasting both ways (multidirectional), a scalar, and an empty
# result. An input of a single allowed type (Where's condition) takes that type.
GENERIC_SHAPES = {
    1: [((2, 3, 4),), ((),), ((0,),)],
    2: [((2, 3, 4), (4,)), ((3, 1), (1, 4)), ((), (2, 3)), ((2, 3, 4), (2, 3, 4)), ((0, 3), (3,)), ((5,), ())],
    3: [((2, 3, 4),) * 3, ((2, 1, 4), (3, 1), (4,)), ((), (2, 3), (1, 3)), ((0, 3), (3,), ())],
}

# Attribute sets the onnx kernels run with (besides the defaults where {} is listed).
ATTRIBUTE_SETS = {
    "Elu": [{"alpha": 0.0}, {"alpha": 1.7}], "Gelu": [{}, {"approximate": "tanh"}], "Celu": [{}, {"alpha": 0.7}],
    "HardSigmoid": [{}, {"alpha": 0.5, "beta": 0.3}], "LeakyRelu": [{}, {"alpha": 0.3}],
    "Selu": [{}, {"alpha": 1.2, "gamma": 0.8}], "ThresholdedRelu": [{}, {"alpha": -1.0}], "Swish": [{}, {"alpha": 0.5}],
    "Shrink": [{}, {"bias": 0.25, "lambd": 1.0}], "BitShift": [{"direction": "LEFT"}, {"direction": "RIGHT"}],
    "Mod": [{}, {"fmod": 1}], "Clip": [{}, {"min": -1.5, "max": 2.0}, {"max": 0.25}, {"min": 1.0, "max": -1.0}],
}

# The oneDNN element-wise ops whose attributes have no default (required by the library) run with these.
ONEDNN_ATTRIBUTE_SETS = {
    "Clamp": [{"min": -1.5, "max": 2.0}], "Elu": [{"alpha": 1.7}], "HardSigmoid": [{"alpha": 0.5, "beta": 0.3}],
    "LeakyReLU": [{"alpha": 0.3}], "Pow": [{"beta": 2.0}, {"beta": 0.5}],
    # the backward ops: use_dst both ways where they have it, both GELU modes
    "ClampBackward": [{"min": -1.5, "max": 2.0}, {"min": -1.5, "max": 2.0, "use_dst": False}],
    "EluBackward": [{"alpha": 1.7}, {"alpha": 1.7, "use_dst": False}],
    "GELUBackward": [{}, {"mode": "gelu_tanh"}], "HardSigmoidBackward": [{"alpha": 0.5, "beta": 0.3}],
    "ReLUBackward": [{}, {"use_dst": False}], "SigmoidBackward": [{}, {"use_dst": False}],
    "SoftPlusBackward": [{}, {"beta": -2.0}], "SqrtBackward": [{}, {"use_dst": False}],
    "TanhBackward": [{}, {"use_dst": False}],
}


# The hlir element-wise ops whose attributes have no default (document 004 gives none) run with these.
HLIR_ATTRIBUTE_SETS = {
    "Elu": [{"alpha": 1.5}, {"alpha": 0.0}], "Gelu": [{"approximate": False}, {"approximate": True}],
    "HardSigmoid": [{"slope": 0.2, "offset": 0.5}], "LeakyRelu": [{"alpha": 0.1}, {"alpha": -2.0}],
}


def attribute_sets(v, elem: str) -> list[dict]:
    """The attribute sets an op runs with: ATTRIBUTE_SETS of an onnx op, ONEDNN_ATTRIBUTE_SETS and
    HLIR_ATTRIBUTE_SETS of the others (else the defaults), less what the op refuses for the element type:
    Mod before version 28 takes floats with fmod=1 only (C2)."""
    names = {a.name for a in v.attributes}
    sets = [s for s in ATTRIBUTE_SETS.get(v.op, [{}]) if set(s) <= names] if v.domain == "onnx" else \
        ONEDNN_ATTRIBUTE_SETS.get(v.op, [{}]) if v.domain == "onednn" else HLIR_ATTRIBUTE_SETS.get(v.op, [{}])
    if v.op == "Mod" and v.since_version < 28 and ELEM_TYPES[elem].kind == "float":
        sets = [s for s in sets if s.get("fmod") == 1]
    return sets

SHAPES = {
    "onnx.PRelu": [((2, 3, 4), (4,)), ((2, 3, 4), (3, 1)), ((2, 3, 4), (2, 3, 4)), ((5,), ()), ((0, 3), (3,))],
    "onnx.PRelu.legacy": [((2, 3, 4), (1,)), ((2, 3, 4), (3,)), ((2, 3, 4), (4,))],
    "onnx.Elu": [((2, 3, 4),), ((),), ((0,),)],
    # Clip's min and max: scalars, or not given (None).
    "onnx.Clip": [((2, 3, 4), (), ()), ((2, 3, 4), None, ()), ((2, 3, 4), (), None), ((2, 3, 4), None, None),
                  ((), (), ()), ((), None, None), ((0, 3), (), ())],
    "onednn.PReLU": [((2, 3, 4), (3,), {"data_format": "NCX"}), ((2, 3, 4), (4,), {}),
                     ((2, 3, 4), (4,), {"per_channel_broadcast": False}), ((2, 3, 4), (3, 1), {}),
                     # a 1-D slope of length 1 (rule 2 with rule 3), and a 1-D src (no NCX axis 1)
                     ((2, 3, 4), (1,), {"per_channel_broadcast": False}), ((3,), (1,), {"data_format": "NCX"}),
                     ((3,), (3,), {"data_format": "NCX"})],
}


# Folds over a variadic input (elementwise.fold): the tensors of that one input. Several broadcasting
# ways, a scalar, an empty result, more tensors than the iterator's operand limit (OPGEN_MAX_OPERANDS, 8),
# and outputs longer than one block (OPGEN_FOLD_BLOCK, 1024) with a broadcast tensor; with broadcast none
# (versions 1 and 6) every tensor has the same shape.
FOLD_SHAPES = [((2, 3, 4),), ((2, 3, 4),) * 3, ((2, 1, 4), (3, 1), (4,)), ((), (2, 3), (1, 3)), ((0, 3), (3,), ()),
               ((3,),) * 11, ((2, 1300), (1300,), (2, 1)), ((3, 1100), (3, 1100))]
SAME_SHAPES_2 = [((2, 3, 4),) * 2, ((),) * 2, ((0, 3),) * 2, ((2, 1300),) * 2]
FOLD_SAME_SHAPES = [((2, 3, 4),), ((2, 3, 4),) * 3, ((),) * 2, ((0, 3),) * 2, ((3,),) * 11, ((2, 1300),) * 3]


def shape_cases(v) -> list[tuple]:
    key = f"{v.domain}.{v.op}" + (".legacy" if v.op == "PRelu" and v.since_version < 7 else "")
    if v.elementwise is not None and v.elementwise.fold is not None:
        return FOLD_SAME_SHAPES if v.elementwise.broadcast == "none" else FOLD_SHAPES
    if v.elementwise is not None and v.elementwise.broadcast == "none" and len(v.inputs) == 2:
        return SAME_SHAPES_2  # (the oneDNN backward ops: src_or_dst and diff_dst of one shape)
    return SHAPES.get(key) or GENERIC_SHAPES[len(v.inputs)]


def input_params(v, count: int) -> list:
    """The parameter each given tensor is of: a fold's tensors all belong to its variadic input."""
    return list(v.inputs) * count if v.elementwise is not None and v.elementwise.fold is not None else list(v.inputs)


@pytest.mark.parametrize("v,elem", list(kernel_cases(project_specs())))
def test_c_matches_numpy(c_library, v, elem):
    kernel = opgen_ops.get_kernel(v.domain, v.op, v.since_version)
    rng = np.random.default_rng(7)
    for case in shape_cases(v):
        shapes = [s for s in case if not isinstance(s, dict)]
        given = next((s for s in case if isinstance(s, dict)), {})
        for extra in attribute_sets(v, elem):
            attrs = {**given, **extra}
            inputs = [None if s is None else random_input(rng, s, fixed_inputs(v).get(p.name, ELEM_TYPES[elem]).name)
                      for p, s in zip(input_params(v, len(shapes)), shapes)]
            (want,) = kernel(*inputs, **attrs)
            out_elem = next(view["out_elem"] for view in kernel_views(v) if view["elem"] == elem)
            status, got = call_c(c_library, v, elem, inputs, attrs, want.shape, out_elem)
            assert status == OPGEN_OK, f"{v.key} {elem} {shapes}: status {status}"
            if ELEM_TYPES[out_elem].kind == "float":
                # Same formula, same single rounding; libm and NumPy may differ by an ulp of float.
                tol = {"float": 2e-7, "double": 1e-15, "float16": 1e-3, "bfloat16": 8e-3}[out_elem]
                if v.op in ("MishBackward", "EluBackward") and out_elem == "float":
                    # mish' as a function of exp(x) has a condition number of about 3 where it turns negative:
                    # NumPy's and libm's float exp, an ulp apart, give results up to ~3 ulps apart. EluBackward's
                    # diff_dst * alpha * exp(x) rounds twice after exp: against a float64 evaluation NumPy's float
                    # result is 2.3 ulps off at worst and libmvec's AVX2 expf (OPGEN_CPU_CLONES) 3.4.
                    tol = 5e-7
                if v.op == "TanhBackward" and out_elem == "float":
                    # 1 / cosh(x)^2 squares cosh's error: on AVX-512 machines NumPy takes SVML's float cosh (up
                    # to 4 ulps), and against a float64 evaluation its results were 5.4 ulps off at worst, the C
                    # kernel's (libm, libmvec) 3.7: 9 ulps apart in the worst case.
                    tol = 1.2e-6
                np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)
            else:
                np.testing.assert_array_equal(got, want)


def edge_cases(specs):
    for op in specs.domain("onnx").ops:
        for v in op.versions:
            for view in kernel_views(v):
                if ELEM_TYPES[view["elem"]].kind == "float" and op.name != "PRelu":
                    yield pytest.param(v, view["elem"], id=f"{v.key}-{view['elem']}")


@pytest.mark.parametrize("v,elem", list(edge_cases(project_specs())))
def test_c_matches_numpy_on_edge_values(c_library, v, elem):
    """Signed zeros, infinities, NaN, the extremes and halves, each against each for binary ops: the C
    kernel computes what the NumPy kernel does, NaN where it gives NaN."""
    from kernel_refs import edge_values

    kernel = opgen_ops.get_kernel(v.domain, v.op, v.since_version)
    x = edge_values(elem)
    inputs = [x] if len(v.inputs) == 1 else [x[:, None], x[None, :]]
    if v.elementwise.fold is not None:  # every edge value against each, and a third tensor after them
        pairs = [x[:, None], x[None, :], np.roll(x, 3)[:, None]]
        inputs = [np.ascontiguousarray(np.broadcast_to(a, (x.size, x.size))) for a in pairs] \
            if v.elementwise.broadcast == "none" else pairs
    if v.op == "Where":
        inputs = [(np.arange(x.size)[:, None] + np.arange(x.size)[None, :]) % 3 == 0] + inputs
    cases = [(inputs, attrs) for attrs in attribute_sets(v, elem)]
    if v.op == "Clip" and len(v.inputs) == 3:  # every edge value against each pair of scalar bounds (or none)
        bounds = [None] + [np.array(b, x.dtype) for b in x[:: max(1, x.size // 6)]] + [np.array(np.nan, x.dtype)]
        cases = [([x, lo, hi], {}) for lo in bounds for hi in bounds]
    for inputs, attrs in cases:
        (want,) = kernel(*inputs, **attrs)
        out_elem = next(view["out_elem"] for view in kernel_views(v) if view["elem"] == elem)
        status, got = call_c(c_library, v, elem, inputs, attrs, want.shape, out_elem)
        assert status == OPGEN_OK
        if ELEM_TYPES[out_elem].kind == "float":
            g, w = got.astype(np.float64), want.astype(np.float64)
            np.testing.assert_array_equal(np.isnan(g), np.isnan(w), err_msg=f"{v.key} {elem} {attrs}: NaN positions")
            tol = {"float": 2e-7, "double": 1e-15, "float16": 1e-3, "bfloat16": 8e-3}[out_elem]
            np.testing.assert_allclose(g, w, rtol=tol, atol=tol, err_msg=f"{v.key} {elem} {attrs}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"{v.key} {elem} {attrs}")


def test_c_reports_shape_errors(c_library, specs):
    v = specs.find("onnx", "PRelu").resolve(16)
    status, _ = call_c(c_library, v, "float", [np.ones((2, 3), np.float32), np.ones((4,), np.float32)], {}, (2, 3))
    assert status == OPGEN_ERR_SHAPE
    v = specs.find("onednn", "PReLU").resolve(1)
    status, _ = call_c(c_library, v, "float", [np.ones((2, 3), np.float32), np.ones((2,), np.float32)], {}, (2, 3))
    assert status == OPGEN_ERR_SHAPE


def test_stubs_compile_and_say_not_implemented(c_library):
    fn = c_library.opgen_hlir_Conv_v1
    fn.restype = ctypes.c_int
    assert fn(None, ctypes.c_size_t(0), None, ctypes.c_size_t(0), None) == OPGEN_ERR_NOT_IMPLEMENTED


def test_float16_conversion_matches_numpy_bit_for_bit(c_library, tmp_path):
    """Every float16 value and every rounding tie goes through the C conversions like NumPy's casts."""
    v_halves = np.arange(0, 1 << 16, dtype=np.uint32).astype(np.uint16).view(np.float16)
    finite = v_halves[np.isfinite(v_halves)]
    # Elu with alpha=1 on non-negative inputs is the identity: a round trip through float.
    x = np.abs(finite)
    v = project_specs().find("onnx", "Elu").resolve(6)
    status, got = call_c(c_library, v, "float16", [x], {"alpha": 1.0}, x.shape)
    assert status == OPGEN_OK
    np.testing.assert_array_equal(got.view(np.uint16), x.view(np.uint16))


def test_c_limits_are_the_types_extremes():
    """The constants an absent optional input or attribute takes in C (elementwise.absent: Clip's min and max)
    are the element type's lowest and highest finite values, exactly (float16 and bfloat16 in float)."""
    import ml_dtypes

    from opgen.render.c_code import c_limit

    for name, elem in ELEM_TYPES.items():
        if not elem.c_type or elem.kind not in ("float", "int", "uint"):
            continue
        compute = ELEM_TYPES["float"] if elem.c_compute == "float" else elem
        info = ml_dtypes.finfo(elem.numpy) if elem.kind == "float" else np.iinfo(elem.numpy)
        for which, value in (("lowest", info.min), ("highest", info.max)):
            spelled = c_limit(elem, compute, which)
            assert spelled.startswith(f"(({compute.c_compute})") and spelled.endswith(")"), spelled
            literal = spelled[len(compute.c_compute) + 3:-1]
            if elem.kind == "float":
                assert float.fromhex(literal) == float(value), (name, which, literal)
            else:
                limits = {"0": 0, f"INT{elem.bits}_MIN": -(2 ** (elem.bits - 1)),
                          f"INT{elem.bits}_MAX": 2 ** (elem.bits - 1) - 1, f"UINT{elem.bits}_MAX": 2 ** elem.bits - 1}
                assert limits[literal] == int(value), (name, which, literal)


def test_fold_rounds_float16_once(c_library, specs):
    """A fold accumulates float16 in float: 2048 + 1 + 1 is 2050 (each step rounded to float16 would stay at 2048,
    the tie 2049 going to even), in C as in NumPy; the mean of those is 2050 / 3 rounded once."""
    x = [np.full((3,), 2048, np.float16), np.ones((1,), np.float16), np.ones((3,), np.float16)]
    for op, want in (("Sum", np.float16(2050)), ("Mean", np.float16(np.float32(2050) / np.float32(3)))):
        v = specs.find("onnx", op).resolve(13)
        (numpy_result,) = opgen_ops.get_kernel("onnx", op, 13)(*x)
        status, got = call_c(c_library, v, "float16", x, {}, (3,))
        assert status == OPGEN_OK
        np.testing.assert_array_equal(numpy_result, np.full((3,), want, np.float16))
        np.testing.assert_array_equal(got, numpy_result)


def test_fold_reports_shape_errors(c_library, specs):
    """Tensors that do not broadcast (or, where a version does not broadcast, differ in shape) are OPGEN_ERR_SHAPE,
    also when the output would be empty; no tensor at all is OPGEN_ERR_ARGUMENT."""
    v13, v6 = specs.find("onnx", "Max").resolve(13), specs.find("onnx", "Max").resolve(6)
    ones = np.ones((2, 3), np.float32)
    empty = np.ones((0, 3), np.float32)
    for v, tensors in ((v13, [ones, np.ones((4,), np.float32)]), (v13, [empty, np.ones((2,), np.float32)]),
                       (v6, [ones, np.ones((3,), np.float32)]), (v6, [ones, np.ones((1, 3), np.float32)])):
        status, _ = call_c(c_library, v, "float", tensors, {}, (2, 3))
        assert status == OPGEN_ERR_SHAPE, (v.key, [t.shape for t in tensors])
    status, _ = call_c(c_library, v13, "float", [], {}, (2, 3))
    assert status == OPGEN_ERR_ARGUMENT
