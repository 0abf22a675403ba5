"""`make bench`, kernels: opgen's NumPy kernels against onnx.reference and onnxruntime on the ops they
share (1M-element float32 inputs), and the generated C kernels against the NumPy kernels.

Prints one row per op with best times and ratios; an op is measured once its hlir kernel exists.
Ratios < 1 mean opgen is faster than the peer in the same column. The numpy column times the hlir kernel;
onnx/ref times opgen's kernel of the ONNX op itself against onnx.reference, the same op with the same
semantics (hlir Max and Min break signed-zero ties as IEEE 754-2019 says, seed 004; ONNX leaves them open
and onnx.reference follows np.maximum). opgen and onnx.reference are timed round by round (timing.paired),
so that the machine's load weighs on both alike: a ratio against onnx.reference is the median of the
rounds' ratios, marked SLOWER when a sign test over the rounds finds opgen slower (timing.Paired) and ~1
when above 1.0 in the median only (below what the run resolves).
"""
from __future__ import annotations

import math
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import opgen_ops  # noqa: E402
from c_harness import OPGEN_OK, build_library, prepare_c  # noqa: E402
from onnx_refs import node_model  # noqa: E402
from opgen.parse import load_or_raise  # noqa: E402
from opgen.render.c_code import kernel_views  # noqa: E402

N = 1_000_000
SHAPE = (1000, 1000)

# hlir op -> (ONNX op, ONNX opset, ONNX attributes, hlir attributes, inputs: "x" unit / "xy" binary / ..., low, high)
SHARED = {
    "Abs": ("Abs", 13, {}, {}, "x"), "Acos": ("Acos", 7, {}, {}, "u"), "Asin": ("Asin", 7, {}, {}, "u"),
    "Asinh": ("Asinh", 9, {}, {}, "x"), "Atan": ("Atan", 7, {}, {}, "x"), "Atanh": ("Atanh", 9, {}, {}, "u"),
    "Ceil": ("Ceil", 13, {}, {}, "x"), "Cos": ("Cos", 7, {}, {}, "x"), "Erf": ("Erf", 13, {}, {}, "x"),
    "Exp": ("Exp", 13, {}, {}, "x"), "Floor": ("Floor", 13, {}, {}, "x"), "Log": ("Log", 13, {}, {}, "p"),
    "Neg": ("Neg", 13, {}, {}, "x"), "Sign": ("Sign", 13, {}, {}, "x"), "Sin": ("Sin", 7, {}, {}, "x"),
    "Sinh": ("Sinh", 9, {}, {}, "x"), "Sqrt": ("Sqrt", 13, {}, {}, "p"), "Tan": ("Tan", 7, {}, {}, "x"),
    "Tanh": ("Tanh", 13, {}, {}, "x"), "Add": ("Add", 14, {}, {}, "xy"), "Sub": ("Sub", 14, {}, {}, "xy"),
    "Div": ("Div", 14, {}, {}, "xp"), "Max": ("Max", 13, {}, {}, "xy"), "Min": ("Min", 13, {}, {}, "xy"),
    "Pow": ("Pow", 15, {}, {}, "pu"), "Relu": ("Relu", 14, {}, {}, "x"), "Sigmoid": ("Sigmoid", 13, {}, {}, "x"),
    "Elu": ("Elu", 6, {"alpha": 1.0}, {"alpha": 1.0}, "x"),
    "LeakyRelu": ("LeakyRelu", 16, {"alpha": 0.1}, {"alpha": 0.1}, "x"),
    "HardSigmoid": ("HardSigmoid", 6, {"alpha": 0.2, "beta": 0.5}, {"slope": 0.2, "offset": 0.5}, "x"),
    "HardSwish": ("HardSwish", 14, {}, {}, "x"), "Mish": ("Mish", 18, {}, {}, "x"),
    "Softplus": ("Softplus", 1, {}, {}, "x"), "PRelu": ("PRelu", 16, {}, {}, "xy"),
    "Gelu": ("Gelu", 20, {}, {"approximate": False}, "x"),
    "Softmax": ("Softmax", 13, {"axis": -1}, {"axis": -1}, "x"),
    "ArgMax": ("ArgMax", 13, {"axis": 1}, {"axis": 1}, "x"),
    "ArgMin": ("ArgMin", 13, {"axis": 1}, {"axis": 1}, "x"),
    "Select": ("Where", 16, {}, {}, "bxy"),
    "Clamp": ("Clip", 13, {}, {}, "lxh"),
}
from timing import Paired, best_time, paired, paired_times  # noqa: E402

# Structured C kernels (opgen.render.c_structured) against the hlir NumPy kernels, float32, about 1M elements:
# label -> (hlir op, input shapes, attributes, output shape given to the kernel (BroadcastInDim) or None).
STRUCTURED = {
    "Reduce ADD d0": ("Reduce", [SHAPE, ()], {"computation": "ADD", "dimensions": [0]}, None),
    "Reduce ADD d1": ("Reduce", [SHAPE, ()], {"computation": "ADD", "dimensions": [1]}, None),
    "Reduce MAX d1": ("Reduce", [SHAPE, ()], {"computation": "MAX", "dimensions": [1]}, None),
    "Reduce MIN all": ("Reduce", [SHAPE, ()], {"computation": "MIN", "dimensions": [0, 1]}, None),
    "Reduce MUL d0": ("Reduce", [SHAPE, ()], {"computation": "MUL", "dimensions": [0]}, None),
    "ArgMax d1": ("ArgMax", [SHAPE], {"axis": 1, "keepdims": False}, None),
    "ArgMin d0": ("ArgMin", [SHAPE], {"axis": 0, "keepdims": False}, None),
    "Softmax d1": ("Softmax", [SHAPE], {"axis": 1, "accurate": True}, None),
    "Softmax d0": ("Softmax", [SHAPE], {"axis": 0, "accurate": True}, None),
    "Transpose 2-D": ("Transpose", [SHAPE], {"permutation": [1, 0]}, None),
    "Transpose 3-D": ("Transpose", [(100, 100, 100)], {"permutation": [2, 0, 1]}, None),
    "Concatenate": ("Concatenate", [(1000, 500), (1000, 500)], {"dimension": 1}, None),
    "Slice": ("Slice", [SHAPE], {"start_indices": [1, 1], "limit_indices": [999, 999], "strides": [1, 2]}, None),
    "Pad": ("Pad", [SHAPE, ()], {"mode": "PAD_VALUE", "edge_padding_low": [2, -1], "edge_padding_high": [3, 4],
                                 "interior_padding": [0, 0]}, None),
    "Pad interior": ("Pad", [(1000, 500), ()], {"mode": "PAD_VALUE", "edge_padding_low": [0, 0],
                                                "edge_padding_high": [0, 0], "interior_padding": [0, 1]}, None),
    "BroadcastInDim": ("BroadcastInDim", [(1000,)], {"broadcast_dimensions": [1]}, SHAPE),
    "Pad REFLECT": ("Pad", [SHAPE, ()], {"mode": "PAD_REFLECT", "edge_padding_low": [2, -1],
                                         "edge_padding_high": [3, 4], "interior_padding": [0, 0]}, None),
    "Pad EDGE": ("Pad", [SHAPE, ()], {"mode": "PAD_EDGE", "edge_padding_low": [2, 3], "edge_padding_high": [3, 4],
                                "interior_padding": [0, 0]}, None),
    "DotGeneral 256": ("DotGeneral", [(256, 256), (256, 256)],
                       {"lhs_batching_dimensions": [], "rhs_batching_dimensions": [],
                        "lhs_contracting_dimensions": [1], "rhs_contracting_dimensions": [0]}, None),
    "DotGeneral batch": ("DotGeneral", [(8, 128, 64), (8, 64, 128)],
                         {"lhs_batching_dimensions": [0], "rhs_batching_dimensions": [0],
                          "lhs_contracting_dimensions": [2], "rhs_contracting_dimensions": [1]}, None),
    "Gemm 256 transB": ("Gemm", [(256, 256), (256, 256), (256,)],
                        {"alpha": 0.5, "beta": 2.0, "transA": 0, "transB": 1}, None),
}


def structured_rows(lib, specs, rng: np.random.Generator) -> list[tuple[str, float, float]]:
    """(label, NumPy seconds, C seconds) of each STRUCTURED case, timed in alternation (paired_times). The C
    kernel fills a row-major output buffer, so the NumPy time includes writing its result row-major
    (np.ascontiguousarray: nothing to do for a kernel's own array; for a slice or a transposition, which the
    NumPy kernels return as views (data_movement's rule), the copy the C kernel makes)."""
    from c_harness import prepare_c

    rows = []
    for label, (op, shapes, attrs, out_shape) in STRUCTURED.items():
        kernel = opgen_ops.get_kernel("hlir", op)
        xs = [rng.uniform(-3, 3, s).astype(np.float32) for s in shapes]
        if op == "Reduce" and attrs["computation"] == "MUL":
            xs[0] = (1 + xs[0] / 3000).astype(np.float32)  # products stay finite
        keywords = dict(attrs, **({"output_shape": out_shape} if out_shape else {}))
        (want,) = kernel(*xs, **keywords)
        v = specs.op(op).versions[0]
        out_elem = "int64" if op.startswith("Arg") else None
        fn, args, got, keep = prepare_c(lib, v, "float", xs, attrs, want.shape, out_elem,
                                        variadic=op == "Concatenate", shape_parameter=out_shape is not None)
        assert fn(*args) == OPGEN_OK, label
        t_c, t_np = paired_times(lambda: fn(*args), lambda: np.ascontiguousarray(kernel(*xs, **keywords)[0]))
        rows.append((label, t_np, t_c))
    return rows


# Structured C kernels of other element types and domains (1M-element outputs): label -> (domain, op, version,
# element type, input shapes and kinds ("x" data, "pads" an int64 amount list, None an absent optional input),
# attributes).
STRUCTURED_MORE = {
    "ONNX Pad-19 reflect": ("onnx", "Pad", 19, "float", [SHAPE, "pads", None, None], {"mode": "reflect"}),
    "ONNX Pad-19 wrap": ("onnx", "Pad", 19, "float", [SHAPE, "pads", None, None], {"mode": "wrap"}),
    "ONNX Pad-19 constant": ("onnx", "Pad", 19, "float", [SHAPE, "pads", None, None], {"mode": "constant"}),
    "Gemm 256 int32": ("hlir", "Gemm", 1, "int32", [(256, 256), (256, 256), (256,)],
                       {"alpha": 0.5, "beta": 2.0, "transA": 0, "transB": 0}),
}
PADS = np.array([2, -1, 3, 4], np.int64)  # (begin, begin, end, end) of the Pad rows


def more_rows(lib, all_specs, rng: np.random.Generator) -> list[tuple[str, float, float]]:
    """(label, NumPy seconds, C seconds) of each STRUCTURED_MORE case, timed in alternation."""
    rows = []
    for label, (domain, op, since, elem, shapes, attrs) in STRUCTURED_MORE.items():
        v = all_specs.find(domain, op).resolve(since)
        kernel = opgen_ops.get_kernel(domain, op, since)
        dtype = np.dtype(np.int32) if elem == "int32" else np.dtype(np.float32)
        draw = (lambda s: rng.integers(-100, 100, s)) if dtype.kind == "i" else (lambda s: rng.uniform(-3, 3, s))
        xs = [None if s is None else PADS if s == "pads" else draw(s).astype(dtype) for s in shapes]
        (want,) = kernel(*xs, **attrs)
        fn, args, got, keep = prepare_c(lib, v, elem, xs, attrs, want.shape)
        assert fn(*args) == OPGEN_OK, label
        t_c, t_np = paired_times(lambda: fn(*args), lambda: kernel(*xs, **attrs))
        rows.append((label, t_np, t_c))
    return rows


def print_structured(rows: list[tuple[str, float, float]], more: list[tuple[str, float, float]]) -> None:
    print("structured C kernels against the NumPy kernels, results written row-major (float32, about 1M elements; "
          "best of 15, microseconds)")
    print(f"{'case':<21}{'numpy':>9}{'C':>9}{'C/np':>7}")
    for label, t_np, t_c in rows:
        print(f"{label:<21}{t_np * 1e6:>9.0f}{t_c * 1e6:>9.0f}{t_c / t_np:>7.2f}")
    if rows:
        geomean = math.exp(sum(math.log(t_c / t_np) for _, t_np, t_c in rows) / len(rows))
        print(f"structured C / NumPy geomean over {len(rows)} cases: {geomean:.2f}")
    if more:
        print("other element types and domains (not in the geomean):")
    for label, t_np, t_c in more:
        print(f"{label:<21}{t_np * 1e6:>9.0f}{t_c * 1e6:>9.0f}{t_c / t_np:>7.2f}")


def onnx_elementwise_rows(rng: np.random.Generator) -> list[tuple[str, int, Paired]]:
    """(op, version, opgen seconds, onnx.reference seconds) for every ONNX element-wise op (the newest version
    of each op with an elementwise formula) that takes float tensors: opgen's kernel of the op against
    onnx.reference's, on 1M-element float32 inputs in (0.1, 0.9) (inside every op's domain), attributes at
    their defaults, optional inputs absent, timed in alternation."""
    from onnx.reference import ReferenceEvaluator

    rows = []
    for op in load_or_raise(ROOT / "specs").domain("onnx").ops:
        v = max(op.versions, key=lambda version: version.since_version)
        required = [p for p in v.inputs if p.option != "optional"]
        if v.elementwise is None or any(p.is_fixed or "tensor(float)" not in v.allowed_types(p) for p in required):
            continue  # boolean or integer inputs only (And, BitShift, ...), or a fixed-type input (Where's)
        count = 2 if any(p.option == "variadic" for p in required) else len(required)
        xs = [rng.uniform(0.1, 0.9, SHAPE).astype(np.float32) for _ in range(count)]
        names = [f"i{k}" for k in range(count)]
        evaluator = ReferenceEvaluator(node_model(op.name, v.since_version, "float", names, {}))
        feeds = dict(zip(names, xs))
        kernel = opgen_ops.get_kernel("onnx", op.name, v.since_version)
        rows.append((op.name, v.since_version, paired(lambda: kernel(*xs), lambda: evaluator.run(None, feeds))))
    return rows


def print_onnx_elementwise(rows: list[tuple[str, int, Paired]]) -> None:
    print("every ONNX element-wise op on float tensors: opgen's kernel against onnx.reference's (1M float32 in "
          "(0.1, 0.9), default attributes, optional inputs absent; best of up to 41 rounds in microseconds, "
          "median ratio)")
    print(f"{'op':<18}{'opgen':>9}{'onnx.ref':>10}{'ratio':>7}")
    for name, version, timed in rows:
        note = "  (no bounds: onnx.reference returns its input unclipped; spec note absent_bounds)" \
            if name == "Clip" else ""
        print(f"{name + '-' + str(version):<18}{timed.ours * 1e6:>9.0f}{timed.peer * 1e6:>10.0f}{timed.ratio:>7.2f}"
              f"{timed.flag}{note}")
    if rows:
        geomean = math.exp(sum(math.log(timed.ratio) for _, _, timed in rows) / len(rows))
        slower = [f"{name} {timed.ratio:.2f}" for name, _, timed in rows if timed.consistently_slower]
        print(f"{len(rows)} ops, geomean {geomean:.2f}; slower than onnx.reference: {', '.join(slower) or 'none'}")


def inputs(kind: str, rng: np.random.Generator) -> list[np.ndarray]:
    make = {
        "x": lambda: rng.uniform(-3, 3, SHAPE), "y": lambda: rng.uniform(-3, 3, SHAPE),
        "u": lambda: rng.uniform(-0.99, 0.99, SHAPE), "p": lambda: rng.uniform(0.1, 4, SHAPE),
        "b": lambda: rng.random(SHAPE) < 0.5, "l": lambda: np.array(-1.0), "h": lambda: np.array(1.0),  # scalar bounds
    }
    return [make[c]().astype(np.bool_ if c == "b" else np.float32) for c in kind]


def main() -> None:
    import onnxruntime as ort
    from onnx.reference import ReferenceEvaluator

    specs = load_or_raise(ROOT / "specs").domain("hlir")
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        lib = build_library(Path(tmp))
        rows = []
        for op, (onnx_op, opset, onnx_attrs, attrs, kind) in SHARED.items():
            try:
                kernel = opgen_ops.get_kernel("hlir", op)
            except NotImplementedError:
                continue
            xs = inputs(kind, rng)
            names = [f"i{k}" for k in range(len(xs))]
            model = node_model(onnx_op, opset, "float", names, onnx_attrs)
            if onnx_op == "Where":
                model.graph.input[0].type.tensor_type.elem_type = 9  # BOOL condition
            if onnx_op in ("ArgMax", "ArgMin"):
                model.graph.output[0].type.tensor_type.elem_type = 7  # INT64
            onnx_xs = [xs[1], xs[0], xs[2]] if onnx_op == "Clip" else xs  # Clip(x, min, max); Clamp(min, x, max)
            feeds = dict(zip(names, onnx_xs))
            evaluator = ReferenceEvaluator(model)
            options = ort.SessionOptions()
            options.log_severity_level = 3
            session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
            hlir_timed = paired(lambda: kernel(*xs, **attrs), lambda: evaluator.run(None, feeds))
            # opgen's kernel of the same ONNX op (the op both implement, same inputs), timed against the
            # reference again: the hlir kernel above computes the hlir semantics, which for Max and Min
            # (IEEE 754-2019 signed-zero ties, seed 004) are not what onnx.reference computes
            onnx_kernel = opgen_ops.get_kernel("onnx", onnx_op, opset)
            onnx_timed = paired(lambda: onnx_kernel(*onnx_xs, **onnx_attrs), lambda: evaluator.run(None, feeds))
            t_ort = best_time(lambda: session.run(None, feeds))
            v = specs.op(op).versions[0]
            t_c = None
            if any(view["elem"] == "float" for view in kernel_views(v)):
                out_shape = kernel(*xs, **attrs)[0].shape
                fn, args, _, keep = prepare_c(lib, v, "float", xs, attrs, out_shape)
                if fn(*args) == OPGEN_OK:  # time the C call itself, not the ctypes marshalling
                    t_c = best_time(lambda: fn(*args))
            rows.append((op, hlir_timed, t_ort, t_c, onnx_timed))
        structured = structured_rows(lib, specs, rng)
        more = more_rows(lib, load_or_raise(ROOT / "specs"), rng)
    print(f"kernels on {N:,} float32 elements (microseconds: best of up to 41 paired rounds for numpy and onnx.ref, "
          "of 15 runs for ort and C; ratio = opgen / peer, < 1 is faster)")
    print("numpy: the hlir kernel; onnx/ref: opgen's kernel of the ONNX op against onnx.reference's, paired again;"
          " np/ref and onnx/ref: median ratio of the rounds")
    print(f"{'op':<13}{'numpy':>9}{'onnx.ref':>10}{'np/ref':>8}{'ort':>9}{'np/ort':>8}{'C':>9}{'C/np':>7}"
          f"{'onnx/ref':>10}")
    for op, hlir_timed, t_ort, t_c, onnx_timed in rows:
        us, t_np = 1e6, hlir_timed.ours
        c = f"{t_c * us:>9.0f}{t_c / t_np:>7.2f}" if t_c is not None else f"{'-':>9}{'-':>7}"
        # one mark per row: that of the worse of the two comparisons (a significant one first)
        mark = max((hlir_timed, onnx_timed), key=lambda timed: (timed.consistently_slower, timed.ratio)).flag
        print(f"{op:<13}{t_np * us:>9.0f}{hlir_timed.peer * us:>10.0f}{hlir_timed.ratio:>8.2f}{t_ort * us:>9.0f}"
              f"{t_np / t_ort:>8.2f}{c}{onnx_timed.ratio:>10.2f}{mark}")
    slower = [f"{r[0]} {r[1].ratio:.2f}" for r in rows if r[1].consistently_slower]
    print(f"hlir NumPy kernels slower than onnx.reference: {', '.join(slower) or 'none'} (Max and Min compute IEEE "
          "754-2019 signed-zero ties, which onnx.reference does not: one more read of the result)")
    slower = [f"{SHARED[r[0]][0]} {r[4].ratio:.2f}" for r in rows if r[4].consistently_slower]
    print(f"ONNX NumPy kernels slower than onnx.reference on the same op: {', '.join(slower) or 'none'}")
    # Goal (issue 18): C <= 1.0x NumPy in geometric mean over the element-wise ops, <= 1.5x on each.
    c_ratios = {r[0]: r[3] / r[1].ours for r in rows if r[3] is not None}
    if c_ratios:
        geomean = math.exp(sum(math.log(x) for x in c_ratios.values()) / len(c_ratios))
        over = [f"{op} {x:.2f}" for op, x in c_ratios.items() if x > 1.5]
        print(f"C / NumPy geomean over {len(c_ratios)} ops: {geomean:.2f}; over 1.5x: {', '.join(over) or 'none'}")
    print()
    print_onnx_elementwise(onnx_elementwise_rows(rng))
    print()
    print_structured(structured, more)


if __name__ == "__main__":
    main()
