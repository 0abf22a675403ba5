"""The kernels of ONNX RNN, GRU, LSTM, Attention, LinearAttention, RotaryEmbedding, SwiGLU,
CausalConvWithState, DFT, STFT, the Hann/Hamming/Blackman windows and MelWeightMatrix against
independent references, on random inputs:

- onnxruntime (CPU) where it has the op: RNN/GRU/LSTM 7, 14, 22 (layout 0 only: it rejects layout 1),
  Attention 23-25, RotaryEmbedding, DFT 17/20, STFT, the windows and MelWeightMatrix;
- onnx.reference (ReferenceEvaluator) for every op; its RNN/GRU/LSTM know only the default activations,
  no sequence_lens and no clip, so they check layout 1, float16/bfloat16/double and the defaults;
- the op's ONNX function body (the `_expanded` graph onnx's node tests build), run by onnx.reference,
  for the function ops: Attention, RotaryEmbedding, SwiGLU, LinearAttention, CausalConvWithState;
- the versions no reference implements (RNN-1, GRU-1, GRU-3, LSTM-1) against version 7 through
  onnxruntime, on inputs where the changelog says they agree (linear_before_reset = 0 for GRU-1).

Disagreements, with the evidence:
- onnx.reference's Attention returns the soft-capped scores for qk_matmul_output_mode = 0 when softcap
  > 0; the document ("0 (default): raw QK matmul result"), the function body and onnxruntime give the
  product before the cap, and so does opgen (test_attention_mode0_is_the_product_before_softcap).
- onnxruntime's Attention writes the lowest float, not -inf, at masked scores of qk_matmul_output mode 2;
  the finite scores are compared.
- Attention's function body composes the causal/window/padding bias in the type of an integer attn_mask,
  where -inf becomes -2^31: a row those rules hide entirely is then not "fully masked" and gets a
  uniform softmax instead of zeros. opgen adds -inf (the mask converted to the scores' type first); the
  body is compared for bool and float masks only.
- onnx.reference applies the causal rule, the window and the padding on the mask's own last two
  dimensions: a mask broadcast over the queries (second-last dimension 1, or rank 1) gets the rule of a
  single query row (wrong rows, or a failure), and an integer mask fails (-inf in an integer type). It
  is compared where neither happens; the function body and onnxruntime cover the rest.
- For a batch entry of sequence length 0, onnxruntime's RNN/GRU/LSTM give Y_h = Y_c = 0, and so does
  opgen (spec note recurrent_evaluation); onnx.reference has no sequence_lens.
"""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest
from onnx import helper
from onnx.backend.test.case.node import function_testcase_helper
from onnx.reference import ReferenceEvaluator
from onnx_refs import ort_session

import opgen_ops

BF16 = np.dtype(ml_dtypes.bfloat16)
TOL = {np.dtype(np.float32): (1e-5, 1e-5), np.dtype(np.float64): (1e-10, 1e-10),
       np.dtype(np.float16): (2e-3, 2e-3), BF16: (2e-2, 2e-2)}


# ---- helpers ---------------------------------------------------------------------------------------

def _elem(dtype: np.dtype) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def node_models(op: str, opset: int, inputs: list, attrs: dict, out_types: list, expand: bool = False):
    """(model, feeds, expanded model or None) of one node; None inputs are skipped optionals, out_types
    the element dtypes of the outputs (None: an output not asked for)."""
    names = ["" if v is None else f"in{k}" for k, v in enumerate(inputs)]
    while names and not names[-1]:
        names.pop()
    outs = ["" if t is None else f"out{k}" for k, t in enumerate(out_types)]
    node = helper.make_node(op, names, outs, **attrs)
    ins = [helper.make_tensor_value_info(n, _elem(v.dtype), v.shape) for n, v in zip(names, inputs) if n]
    outputs = [helper.make_tensor_value_info(o, _elem(t), None) for o, t in zip(outs, out_types) if o]
    imports = [helper.make_opsetid("", opset)]
    model = helper.make_model(helper.make_graph([node], "g", ins, outputs), opset_imports=imports, ir_version=10)
    feeds = {n: v for n, v in zip(names, inputs) if n}
    expanded = None
    if expand:
        (nodes, function_imports), *_ = function_testcase_helper(node, [i.type for i in ins], "t", imports)[0]
        expanded = helper.make_model(helper.make_graph(nodes, "g", ins, outputs),
                                     opset_imports=list(function_imports), ir_version=10)
    return model, feeds, expanded


def reference(model, feeds) -> list:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return ReferenceEvaluator(model).run(None, feeds)


def onnxruntime(model, feeds) -> list:
    return ort_session(model).run(None, feeds)


def ours(op: str, opset: int, inputs: list, attrs: dict) -> tuple:
    while inputs and inputs[-1] is None:
        inputs = inputs[:-1]
    return opgen_ops.get_kernel("onnx", op, opset)(*inputs, **attrs)


def close(got, want, label: str = "", tol: tuple[float, float] | None = None) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{label}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{label}: shape {got.shape} != {want.shape}"
    rtol, atol = tol or TOL.get(want.dtype, (0, 0))
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True, err_msg=label)


def outputs_match(got: tuple, want: list, out_types: list, label: str, tol=None) -> None:
    asked = [k for k, t in enumerate(out_types) if t is not None]
    for j, k in enumerate(asked):
        close(got[k], want[j], f"{label} output {k}", tol)


# ---- RNN, GRU, LSTM ----------------------------------------------------------------------------------

GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}
PER_DIRECTION = {"RNN": 1, "GRU": 2, "LSTM": 3}
WITH_ALPHA = {"Affine": 2, "LeakyRelu": 1, "ThresholdedRelu": 1, "ScaledTanh": 2, "HardSigmoid": 2, "Elu": 1}
PLAIN = ["Relu", "Tanh", "Sigmoid", "Softsign", "Softplus"]


def recurrent_case(rng, op: str, dtype=np.float32, direction: str | None = None, layout: int = 0,
                   extras: bool = True):
    """Random inputs and attributes of one RNN/GRU/LSTM node (layout 0 shapes unless layout = 1)."""
    direction = direction or str(rng.choice(["forward", "reverse", "bidirectional"]))
    d = 2 if direction == "bidirectional" else 1
    seq, batch, size, hidden = int(rng.integers(1, 6)), int(rng.integers(1, 4)), int(rng.integers(1, 5)), \
        int(rng.integers(1, 4))
    g = GATES[op]

    def r(*shape):
        return rng.uniform(-1.5, 1.5, shape).astype(dtype)

    x = r(batch, seq, size) if layout else r(seq, batch, size)
    state = (lambda: r(batch, d, hidden)) if layout else (lambda: r(d, batch, hidden))
    inputs = [x, r(d, g * hidden, size), r(d, g * hidden, hidden),
              r(d, 2 * g * hidden) if rng.random() < 0.8 else None, None,
              state() if rng.random() < 0.7 else None]
    attrs = {"hidden_size": hidden, "direction": direction}
    if layout:
        attrs["layout"] = 1
    if extras:
        if rng.random() < 0.6:  # lengths in [0, seq], the full length included
            lengths = rng.integers(0, seq + 1, batch).astype(np.int32)
            lengths[0] = seq
            inputs[4] = lengths
        if rng.random() < 0.4:
            attrs["clip"] = float(rng.uniform(0.5, 2.0))
        if rng.random() < 0.6:  # activations with every alpha/beta given (consumed in order)
            names = [str(rng.choice(PLAIN + list(WITH_ALPHA))) for _ in range(PER_DIRECTION[op] * d)]
            attrs["activations"] = names
            alphas = [float(rng.uniform(0.1, 1.0)) for n in names if n in WITH_ALPHA]
            betas = [float(rng.uniform(0.1, 1.0)) for n in names if WITH_ALPHA.get(n) == 2]
            if alphas:
                attrs["activation_alpha"] = alphas
            if betas:
                attrs["activation_beta"] = betas
    if op == "LSTM":
        inputs.append(state() if rng.random() < 0.7 else None)
        inputs.append(r(d, 3 * hidden) if rng.random() < 0.6 else None)
        if extras and rng.random() < 0.4:
            attrs["input_forget"] = 1
    if op == "GRU" and rng.random() < 0.5:
        attrs["linear_before_reset"] = 1
    return inputs, attrs


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("opset", [7, 14, 22])
@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_recurrent_against_onnxruntime(op, opset, seed):
    """Directions, sequence_lens (0 and full included), clip, every activation with alpha/beta, peepholes,
    input_forget, linear_before_reset, absent optional inputs; float."""
    rng = np.random.default_rng(seed * 31 + opset)
    inputs, attrs = recurrent_case(rng, op)
    out_types = [np.float32] * (3 if op == "LSTM" else 2)
    model, feeds, _ = node_models(op, opset, inputs, attrs, out_types)
    outputs_match(ours(op, opset, inputs, attrs), onnxruntime(model, feeds), out_types, f"{op}-{opset} {attrs}")


@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_recurrent_double_against_onnxruntime_float(op):
    """double with every attribute: onnxruntime computes these ops in float only, so the double result
    is compared with its float result on the same (float-representable) inputs, at float's tolerance."""
    rng = np.random.default_rng(5)
    inputs, attrs = recurrent_case(rng, op, direction="bidirectional")
    out_types = [np.float32] * (3 if op == "LSTM" else 2)
    want = onnxruntime(*node_models(op, 22, inputs, attrs, out_types)[:2])
    got = ours(op, 22, [v if v is None or v.dtype == np.int32 else v.astype(np.float64) for v in inputs], attrs)
    outputs_match([g.astype(np.float32) for g in got], want, out_types, f"{op} double")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, BF16])
@pytest.mark.parametrize("op", ["RNN", "GRU", "LSTM"])
def test_recurrent_layouts_and_types_against_reference(op, dtype):
    """layout 1 (batch-major) and 0, every type of version 22, default activations (all onnx.reference
    knows). The low-precision types are compared with the float result rounded once, which is opgen's
    evaluation; onnx.reference computes them in their own type, so it checks float and double only."""
    rng = np.random.default_rng(len(op) * 10 + np.dtype(dtype).itemsize)
    for layout in (0, 1):
        inputs, attrs = recurrent_case(rng, op, direction="bidirectional", layout=layout, extras=False)
        out_types = [np.float32] * (3 if op == "LSTM" else 2)
        typed = [v if v is None or v.dtype.kind == "i" else v.astype(dtype) for v in inputs]
        if np.dtype(dtype) in (np.float32, np.float64):
            want = reference(*node_models(op, 22, typed, attrs, [dtype] * len(out_types))[:2])
        else:  # the float reference of the inputs as they are in dtype, rounded once
            wide = [v if v is None or v.dtype.kind == "i" else v.astype(np.float32) for v in typed]
            want = [w.astype(dtype) for w in reference(*node_models(op, 22, wide, attrs, out_types)[:2])]
        got = ours(op, 22, typed, attrs)
        outputs_match(got, want, out_types, f"{op} layout {layout} {np.dtype(dtype).name}",
                      TOL[np.dtype(dtype)] if np.dtype(dtype) != np.float64 else (1e-9, 1e-9))


def test_recurrent_empty_batch():
    rng = np.random.default_rng(3)
    for op in ("RNN", "GRU", "LSTM"):
        inputs, attrs = recurrent_case(rng, op, direction="bidirectional", extras=False)
        inputs[0] = inputs[0][:, :0]
        inputs[5] = None
        if op == "LSTM":
            inputs[6] = None
        got = ours(op, 22, inputs, attrs)
        seq, hidden = inputs[0].shape[0], inputs[2].shape[-1]
        assert got[0].shape == (seq, 2, 0, hidden) and got[1].shape == (2, 0, hidden)


@pytest.mark.parametrize("op,legacy", [("RNN", 1), ("GRU", 1), ("GRU", 3), ("LSTM", 1)])
def test_legacy_versions_against_version_7(op, legacy):
    """RNN-1, GRU-1, GRU-3 and LSTM-1 (no reference implements them) equal version 7 where the
    changelog says so: version 7 only dropped output_sequence; GRU-3 added linear_before_reset
    (GRU-1 is GRU-3 with linear_before_reset = 0). onnxruntime computes version 7."""
    rng = np.random.default_rng(legacy * 7 + len(op))
    for k in range(2):
        inputs, attrs = recurrent_case(rng, op)
        if legacy == 1:
            attrs.pop("linear_before_reset", None)
        out_types = [np.float32] * (3 if op == "LSTM" else 2)
        model, feeds, _ = node_models(op, 7, inputs, attrs, out_types)
        want = onnxruntime(model, feeds)
        outputs_match(ours(op, legacy, inputs, dict(attrs, output_sequence=k)), want, out_types, f"{op}-{legacy}")
    if op == "GRU" and legacy == 1:  # no direction given: GRU-1's default "foward" is forward
        inputs, attrs = recurrent_case(rng, op, direction="forward", extras=False)
        attrs.pop("direction")
        attrs.pop("linear_before_reset", None)
        got = ours(op, 1, inputs, attrs)
        outputs_match(got, ours(op, 7, inputs, dict(attrs, direction="forward")), [1, 1], "GRU-1 default")


def test_rnn_default_activations_for_one_direction():
    """The schema's default activations [Tanh, Tanh] serve a forward layer (spec note activations_default)."""
    rng = np.random.default_rng(9)
    inputs, attrs = recurrent_case(rng, "RNN", direction="forward", extras=False)
    got = ours("RNN", 22, inputs, dict(attrs, activations=["Tanh", "Tanh"]))
    outputs_match(got, ours("RNN", 22, inputs, dict(attrs, activations=["Tanh"])), [1, 1], "RNN")


# ---- DFT, STFT, windows, MelWeightMatrix ----------------------------------------------------------------

def dft_case(rng, opset: int, dtype=np.float32):
    """Random DFT inputs and attributes: real or complex signal of rank 3 or 4, any valid axis (negative
    ones too), forward/inverse, onesided where the document allows it, dft_length absent, shorter or
    longer than the axis."""
    rank = int(rng.integers(3, 5))
    inverse, onesided = int(rng.integers(0, 2)), int(rng.integers(0, 2))
    parts = 2 if (inverse and onesided) else 1 if (onesided and not inverse) else int(rng.integers(1, 3))
    shape = [int(rng.integers(1, 7)) for _ in range(rank - 1)] + [parts]
    x = rng.uniform(-2, 2, shape).astype(dtype)
    axis = int(rng.choice([a for a in range(-rank, rank) if a not in (-1, rank - 1)]))
    length = None if rng.random() < 0.4 else np.array(int(rng.integers(1, 9)), np.int64)
    attrs = {"inverse": inverse, "onesided": onesided}
    if opset == 17:
        return [x, length], dict(attrs, axis=axis)
    return [x, length, np.array(axis, np.int64)], attrs


@pytest.mark.parametrize("opset", [17, 20])
def test_dft_against_onnxruntime_and_reference(opset):
    rng = np.random.default_rng(opset)
    for _ in range(12):
        inputs, attrs = dft_case(rng, opset)
        model, feeds, _ = node_models("DFT", opset, inputs, attrs, [np.float32])
        got = ours("DFT", opset, inputs, attrs)
        close(got[0], onnxruntime(model, feeds)[0], f"DFT-{opset} {attrs} {inputs[0].shape}", (1e-4, 1e-4))
        close(got[0], reference(model, feeds)[0], f"DFT-{opset} {attrs} {inputs[0].shape}", (1e-4, 1e-4))


@pytest.mark.parametrize("dtype", [np.float64, np.float16, BF16])
def test_dft_types_against_reference(dtype):
    """double against onnx.reference; float16/bfloat16 against the float result of the same values rounded
    once (onnx.reference converts them through NumPy's FFT as well)."""
    rng = np.random.default_rng(7)
    for _ in range(4):
        inputs, attrs = dft_case(rng, 20, dtype=np.float32)
        typed = [inputs[0].astype(dtype)] + inputs[1:]
        if np.dtype(dtype) == np.float64:
            want = reference(*node_models("DFT", 20, typed, attrs, [dtype])[:2])[0]
        else:
            wide = [typed[0].astype(np.float32)] + inputs[1:]
            want = reference(*node_models("DFT", 20, wide, attrs, [np.float32])[:2])[0].astype(dtype)
        close(ours("DFT", 20, typed, attrs)[0], want, f"DFT {np.dtype(dtype).name} {attrs}",
              (1e-9, 1e-9) if np.dtype(dtype) == np.float64 else TOL[np.dtype(dtype)])


def test_dft_and_stft_of_empty_batches():
    x = np.zeros((0, 5, 2), np.float32)
    for opset, attrs, inputs in ((17, {"axis": -2}, [x]), (20, {"onesided": 0}, [x, None, np.array(1, np.int64)])):
        close(ours("DFT", opset, inputs, attrs)[0], reference(*node_models("DFT", opset, inputs, attrs,
                                                                           [np.float32])[:2])[0], "DFT empty")
    signal = np.zeros((0, 8, 1), np.float32)
    got = ours("STFT", 17, [signal, np.array(2, np.int64), None, np.array(4, np.int64)], {"onesided": 1})[0]
    assert got.shape == (0, 3, 3, 2) and got.dtype == np.float32


def test_stft_against_onnxruntime_and_reference():
    """With and without window and frame_length, onesided on real signals, two-sided on complex ones."""
    rng = np.random.default_rng(11)
    for k in range(8):
        complex_signal = k % 3 == 2
        length = int(rng.integers(4, 20))
        frame = int(rng.integers(1, length + 1))
        signal = rng.uniform(-1, 1, (int(rng.integers(1, 3)), length, 2 if complex_signal else 1)).astype(np.float32)
        window = rng.uniform(0, 1, frame).astype(np.float32) if k % 2 else None
        frame_length = np.array(frame, np.int64) if (window is None or k % 4 == 1) else None
        if window is None and frame_length is None:
            frame_length = np.array(frame, np.int64)
        inputs = [signal, np.array(int(rng.integers(1, 4)), np.int64), window, frame_length]
        attrs = {"onesided": 0 if complex_signal else int(rng.integers(0, 2))}
        model, feeds, _ = node_models("STFT", 17, inputs, attrs, [np.float32])
        got = ours("STFT", 17, inputs, attrs)[0]
        close(got, onnxruntime(model, feeds)[0], f"STFT {attrs} {signal.shape}", (1e-4, 1e-4))
        close(got, reference(model, feeds)[0], f"STFT {attrs} {signal.shape}", (1e-4, 1e-4))
    signal = rng.uniform(-1, 1, (1, 9, 1))  # double
    inputs = [signal, np.array(2, np.int64), rng.uniform(0, 1, 4)]
    close(ours("STFT", 17, inputs, {"onesided": 1})[0],
          reference(*node_models("STFT", 17, inputs, {"onesided": 1}, [np.float64])[:2])[0], "STFT double")


WINDOW_TYPES = {1: np.float32, 11: np.float64, 10: np.float16, 16: BF16, 6: np.int32, 7: np.int64, 2: np.uint8}


@pytest.mark.parametrize("op", ["HannWindow", "HammingWindow", "BlackmanWindow"])
def test_windows_against_onnxruntime_and_reference(op):
    """Sizes 1..9 (the symmetric window of one point is NaN for all three: a division by N - 1 = 0),
    periodic and symmetric, float and integer output types (integers truncate, as the body's Cast).
    The function body computes in float and gives Blackman's peak (exactly 1) as 0.99999994, which
    truncates to 0 where onnxruntime, onnx.reference and opgen give 1 (spec note window_evaluation):
    the body is compared for the float types only."""
    for code, dtype in WINDOW_TYPES.items():
        for size in (1, 2, 9):
            for periodic in (0, 1):
                n = np.array(size, np.int64 if size % 2 else np.int32)
                attrs = {"output_datatype": code, "periodic": periodic}
                model, feeds, _ = node_models(op, 17, [n], attrs, [dtype])
                got = ours(op, 17, [n], dict(attrs, output_dtype=np.dtype(dtype)))[0]
                label = f"{op} {attrs} size {size}"
                if np.dtype(dtype).kind in "iu" and size == 1 and not periodic:
                    continue  # NaN converted to an integer: undefined
                tol = TOL.get(np.dtype(dtype), (0, 0)) if np.dtype(dtype) != np.float64 else (1e-12, 1e-12)
                close(got, reference(model, feeds)[0], label, tol)
                if code in (1, 11):  # onnxruntime's float/double windows; the body computes in float
                    close(got, onnxruntime(model, feeds)[0], label, (1e-6, 1e-6))
                    body = node_models(op, 17, [n], attrs, [dtype], expand=True)[2]
                    close(got, reference(body, feeds)[0].astype(dtype), label + " body", (1e-6, 1e-6))


def test_mel_weight_matrix_against_onnxruntime_and_reference():
    rng = np.random.default_rng(13)
    for code, dtype in ((1, np.float32), (11, np.float64), (10, np.float16), (6, np.int32)):
        for _ in range(3):
            n_fft = int(rng.integers(8, 300))
            rate = int(rng.integers(1000, 16000))
            low = float(rng.uniform(0, rate / 8))
            high = float(rng.uniform(low + 1, rate / 2 * n_fft / (n_fft + 1)))
            inputs = [np.array(int(rng.integers(0, 12)), np.int64), np.array(n_fft, np.int64),
                      np.array(rate, np.int64), np.array(low, np.float32), np.array(high, np.float32)]
            attrs = {"output_datatype": code}
            model, feeds, _ = node_models("MelWeightMatrix", 17, inputs, attrs, [dtype])
            got = ours("MelWeightMatrix", 17, inputs, dict(attrs, output_dtype=np.dtype(dtype)))[0]
            values = [int(v) if v.dtype.kind == "i" else float(v) for v in inputs]
            close(got, reference(model, feeds)[0], f"Mel {code} {values}")
            if code == 1:
                close(got, onnxruntime(model, feeds)[0], "Mel onnxruntime")


# ---- Attention ---------------------------------------------------------------------------------------

def attention_case(rng, opset: int, dtype=np.float32):
    """Random inputs and attributes of one Attention node: 3-D or 4-D, MHA/GQA/MQA, a head size of V
    that may differ, a past cache or (24+) nonpad_kv_seqlen, bool/float/int masks of rank 1 to 4, maybe
    shorter than the keys, is_causal, scale, softcap, every qk_matmul_output_mode, softmax_precision,
    (25) the sliding window."""
    batch, kv_heads = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    heads = kv_heads * int(rng.integers(1, 3))
    q_len, kv_len, size, v_size = (int(rng.integers(1, 5)), int(rng.integers(1, 6)), int(rng.integers(1, 5)),
                                   int(rng.integers(1, 5)))
    rank = int(rng.integers(3, 5))

    def r(*shape):
        return rng.uniform(-2, 2, shape).astype(dtype)

    attrs: dict = {}
    if rank == 4:
        q, k, v = r(batch, heads, q_len, size), r(batch, kv_heads, kv_len, size), r(batch, kv_heads, kv_len, v_size)
    else:
        q, k, v = r(batch, q_len, heads * size), r(batch, kv_len, kv_heads * size), r(batch, kv_len, kv_heads * v_size)
        attrs.update(q_num_heads=heads, kv_num_heads=kv_heads)
    past = int(rng.integers(0, 4)) if rng.random() < 0.35 else None
    nonpad = None
    if past is None and opset >= 24 and rng.random() < 0.4:
        nonpad = rng.integers(0, kv_len + 1, batch).astype(np.int64)
    total = kv_len + (past or 0)
    mask = None
    if rng.random() < 0.6:
        mask_rank = int(rng.integers(1, 5))
        kind = rng.choice(["bool", "float", "int"])
        # shorter masks (padded with -inf) from version 24 on; onnx.reference cannot pad an integer mask
        keys = total - int(rng.integers(0, 2)) if total > 1 and opset >= 24 and kind != "int" else total
        shape = ([batch, heads, q_len, keys] if mask_rank == 4 else [heads, q_len, keys] if mask_rank == 3
                 else [q_len, keys] if mask_rank == 2 else [keys])
        shape = [d if rng.random() < 0.7 else 1 for d in shape[:-1]] + [shape[-1]]
        mask = (rng.random(shape) < 0.8 if kind == "bool" else r(*shape) if kind == "float"
                else rng.integers(-3, 3, shape).astype(np.int32))
    if rng.random() < 0.5:
        attrs["is_causal"] = 1
    if rng.random() < 0.3:
        attrs["scale"] = float(rng.uniform(0.1, 1.0))
    if rng.random() < 0.3:
        attrs["softcap"] = float(rng.uniform(0.5, 3.0))
    attrs["qk_matmul_output_mode"] = int(rng.integers(0, 4))
    if rng.random() < 0.2:
        attrs["softmax_precision"] = int(rng.choice([1, 11]))
    if opset >= 25 and rng.random() < 0.6:
        attrs["left_window_size"] = int(rng.integers(-1, 3))
        attrs["right_window_size"] = int(rng.integers(-1, 3))
    inputs = [q, k, v, mask, None if past is None else r(batch, kv_heads, past, size),
              None if past is None else r(batch, kv_heads, past, v_size), nonpad]
    return inputs, attrs


def _finite(x: np.ndarray) -> np.ndarray:
    """Masked scores as the lowest finite value of their type: the references write -inf or the lowest
    float there."""
    wide = np.asarray(x).astype(np.float64)
    return np.where(wide < -1e30, float(ml_dtypes.finfo(x.dtype).min), wide).astype(x.dtype)


@pytest.mark.parametrize("opset", [23, 24, 25])
def test_attention_against_references(opset):
    """Y, present_key/value and qk_matmul_output against onnx.reference, the function body and
    onnxruntime (where it runs the configuration)."""
    rng = np.random.default_rng(opset)
    for k in range(11):
        inputs, attrs = attention_case(rng, opset)
        past = inputs[4] is not None
        out_types = [np.float32, np.float32 if past else None, np.float32 if past else None, np.float32]
        model, feeds, body = node_models("Attention", opset, inputs, attrs, out_types, expand=True)
        got = list(ours("Attention", opset, inputs, attrs))
        got[3] = _finite(got[3])
        label = f"Attention-{opset} case {k} {attrs}"
        checks = [("onnxruntime", onnxruntime, model)]
        q_len = inputs[0].shape[2 if inputs[0].ndim == 4 else 1]
        mask = inputs[3]
        rules = bool(attrs.get("is_causal") or attrs.get("left_window_size", -1) >= 0
                     or attrs.get("right_window_size", -1) >= 0 or inputs[6] is not None)
        integer_mask = mask is not None and mask.dtype.kind == "i"
        if not (rules and mask is not None and (integer_mask or mask.ndim < 2 or mask.shape[-2] != q_len)):
            checks.append(("reference", reference, model))
        if not integer_mask:
            checks.append(("body", reference, body))
        for name, run, want_model in checks:
            try:
                want = run(want_model, feeds)
            except Exception as exc:  # onnxruntime rejects rank-1 masks, masks broadcast over the queries
                assert name == "onnxruntime", exc
                continue
            want[-1] = _finite(want[-1])
            if name == "reference" and attrs["qk_matmul_output_mode"] == 0 and attrs.get("softcap", 0) > 0:
                want[-1] = got[3]  # onnx.reference caps mode 0 (module docstring); checked below
            outputs_match(got, want, out_types, f"{label} vs {name}", (1e-4, 1e-4))


def test_attention_mode0_is_the_product_before_softcap():
    rng = np.random.default_rng(2)
    q, k, v = (rng.uniform(-2, 2, (1, 2, 3, 4)).astype(np.float32) for _ in range(3))
    attrs = {"softcap": 0.7, "qk_matmul_output_mode": 0}
    out_types = [np.float32, None, None, np.float32]
    model, feeds, body = node_models("Attention", 23, [q, k, v], attrs, out_types, expand=True)
    got = ours("Attention", 23, [q, k, v], attrs)[3]
    close(got, reference(body, feeds)[1], "mode 0 vs body", (1e-5, 1e-5))
    close(got, onnxruntime(model, feeds)[1], "mode 0 vs onnxruntime", (1e-5, 1e-5))
    close(got, (q / 2) @ np.swapaxes(k, -1, -2), "mode 0 = Q K^T / sqrt(4)", (1e-5, 1e-5))
    assert np.abs(reference(model, feeds)[1] - got).max() > 0.1  # onnx.reference: the capped scores


@pytest.mark.parametrize("dtype", [np.float64, np.float16, BF16])
def test_attention_types_against_reference(dtype):
    """double against the function body in double; float16/bfloat16 against the body in float on the same
    values, rounded once."""
    rng = np.random.default_rng(np.dtype(dtype).itemsize)
    for opset in (23, 24, 25):
        for _ in range(3):
            inputs, attrs = attention_case(rng, opset)
            attrs.pop("softmax_precision", None)
            if inputs[3] is not None and inputs[3].dtype.kind == "i":
                inputs[3] = inputs[3].astype(np.float32)
            typed = [v if v is None or v.dtype.kind in "bi" else v.astype(dtype) for v in inputs]
            wide_type = np.float64 if np.dtype(dtype) == np.float64 else np.float32
            wide = [v if v is None or v.dtype.kind in "bi" else v.astype(wide_type) for v in typed]
            past = inputs[4] is not None
            out_types = [wide_type, wide_type if past else None, wide_type if past else None, wide_type]
            _, feeds, body = node_models("Attention", opset, wide, attrs, out_types, expand=True)
            want = [_finite(w.astype(dtype)) for w in reference(body, feeds)]
            got = [_finite(g) for g in ours("Attention", opset, typed, attrs)]
            # the body computes the default scale in float (a Cast to float of the head size), hence 1e-6
            tol = (1e-6, 1e-6) if np.dtype(dtype) == np.float64 else TOL[np.dtype(dtype)]
            outputs_match(got, want, out_types, f"Attention-{opset} {np.dtype(dtype).name} {attrs}", tol)


def test_attention_fully_masked_rows_are_zero():
    """A bool mask that hides every key of a row, and a causal block with a negative offset
    (nonpad_kv_seqlen < q length), give zero rows for Y and for the mode-3 probabilities, not NaN."""
    rng = np.random.default_rng(4)
    q, k, v = (rng.uniform(-1, 1, (1, 1, 3, 2)).astype(np.float32) for _ in range(3))
    mask = np.array([[True, True, False], [False, False, False], [True, False, True]])
    y, _, _, p = ours("Attention", 24, [q, k, v, mask], {"qk_matmul_output_mode": 3})
    assert np.all(y[0, 0, 1] == 0) and np.all(p[0, 0, 1] == 0) and not np.isnan(y).any()
    y = ours("Attention", 24, [q, k, v, None, None, None, np.array([1])], {"is_causal": 1})[0]
    assert np.all(y[0, 0, :2] == 0) and np.any(y[0, 0, 2] != 0)


# ---- RotaryEmbedding, SwiGLU ---------------------------------------------------------------------------

def rotary_case(rng, dtype=np.float32):
    batch, seq, heads, half = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 4)), \
        int(rng.integers(1, 4))
    size = 2 * half + 2 * int(rng.integers(0, 2))         # the head may be longer than the rotated part
    dim = 2 * half if size != 2 * half or rng.random() < 0.5 else 0
    rank = int(rng.integers(3, 5))
    x = rng.uniform(-2, 2, (batch, heads, seq, size) if rank == 4 else (batch, seq, heads * size)).astype(dtype)
    attrs = {"interleaved": int(rng.integers(0, 2)), "rotary_embedding_dim": dim}
    if rank == 3:
        attrs["num_heads"] = heads
    if rng.random() < 0.5:
        positions = int(rng.integers(seq, seq + 6))
        angles = rng.uniform(0, 6, (positions, half))
        ids = rng.integers(0, positions, (batch, seq)).astype(np.int64)
    else:
        angles, ids = rng.uniform(0, 6, (batch, seq, half)), None
    return [x, np.cos(angles).astype(dtype), np.sin(angles).astype(dtype), ids], attrs


def test_rotary_embedding_against_references():
    """3-D and 4-D input, with and without position_ids, interleaved or halves, partial rotation:
    onnxruntime, onnx.reference and the function body; float16/bfloat16 against the float references of
    the same values, rounded once."""
    rng = np.random.default_rng(17)
    for k in range(10):
        inputs, attrs = rotary_case(rng)
        model, feeds, body = node_models("RotaryEmbedding", 23, inputs, attrs, [np.float32], expand=True)
        got = ours("RotaryEmbedding", 23, inputs, attrs)[0]
        label = f"RotaryEmbedding {attrs} {inputs[0].shape} ids {inputs[3] is not None}"
        close(got, onnxruntime(model, feeds)[0], label)
        close(got, reference(model, feeds)[0], label)
        close(got, reference(body, feeds)[0], label)
    for dtype in (np.float16, BF16):
        inputs, attrs = rotary_case(rng, dtype)
        wide = [v if v is None or v.dtype.kind == "i" else v.astype(np.float32) for v in inputs]
        want = reference(*node_models("RotaryEmbedding", 23, wide, attrs, [np.float32])[:2])[0].astype(dtype)
        close(ours("RotaryEmbedding", 23, inputs, attrs)[0], want, f"RotaryEmbedding {np.dtype(dtype).name}")


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16, BF16])
def test_swiglu_against_reference_and_body(dtype):
    """Random values with 0, -0.0, +-inf and NaN; rank 0, empty and rank 3; alpha 1 and another.
    onnxruntime has no SwiGLU (opset 28). The low-precision types are compared with the float result
    rounded once (onnx.reference rounds the sigmoid to the type first)."""
    rng = np.random.default_rng(19)
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 30.0, -30.0])
    for shape in [(), (0, 3), (2, 3, 4), (7,)]:
        a, b = rng.uniform(-4, 4, shape), rng.uniform(-4, 4, shape)
        if shape == (7,):
            a, b = specials, rng.permutation(specials)
        for alpha in (1.0, float(np.float32(1.702))):  # attributes are floats
            attrs = {"alpha": alpha}
            typed = [a.astype(dtype), b.astype(dtype)]
            got = ours("SwiGLU", 28, typed, attrs)[0]
            wide = np.float64 if np.dtype(dtype) == np.float64 else np.float32
            model, feeds, body = node_models("SwiGLU", 28, [t.astype(wide) for t in typed], attrs, [wide],
                                             expand=True)
            label = f"SwiGLU {np.dtype(dtype).name} {shape} alpha {alpha}"
            close(got, reference(model, feeds)[0].astype(dtype), label)
            close(got, reference(body, feeds)[0].astype(dtype), label + " body")


# ---- LinearAttention, CausalConvWithState ----------------------------------------------------------------

def linear_attention_case(rng, rule: str, dtype=np.float32):
    batch, steps, kv_heads = int(rng.integers(1, 3)), int(rng.integers(1, 5)), int(rng.integers(1, 3))
    heads = kv_heads * int(rng.integers(1, 3))
    d_k, d_v = int(rng.integers(1, 4)), int(rng.integers(1, 4))

    def r(*shape, low=-1.0, high=1.0):
        return rng.uniform(low, high, shape).astype(dtype)

    key = r(batch, steps, kv_heads, d_k)
    key = (key / np.maximum(np.linalg.norm(key, axis=-1, keepdims=True), 1e-3)).reshape(batch, steps, -1)
    inputs = [r(batch, steps, heads * d_k), key.astype(dtype), r(batch, steps, kv_heads * d_v),
              r(batch, kv_heads, d_k, d_v) if rng.random() < 0.5 else None, None, None]
    if rule in ("gated", "gated_delta"):
        inputs[4] = r(batch, steps, kv_heads * (d_k if rng.random() < 0.5 else 1), low=-1.0, high=0.0)
    if rule in ("delta", "gated_delta"):
        inputs[5] = r(batch, steps, kv_heads if rng.random() < 0.6 else 1, low=0.0, high=1.0)
    attrs = {"update_rule": rule, "q_num_heads": heads, "kv_num_heads": kv_heads}
    if rng.random() < 0.3:
        attrs["scale"] = float(rng.uniform(0.2, 1.0))
    return inputs, attrs


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
def test_linear_attention_against_reference_and_body(rule):
    """GQA/MQA, with and without past_state, per-head and per-key decay, per-head and shared beta,
    explicit scale; onnxruntime has no LinearAttention (opset 27)."""
    rng = np.random.default_rng(len(rule))
    for k in range(4):
        inputs, attrs = linear_attention_case(rng, rule)
        model, feeds, body = node_models("LinearAttention", 27, inputs, attrs, [np.float32] * 2, expand=True)
        got = ours("LinearAttention", 27, inputs, attrs)
        outputs_match(got, reference(model, feeds), [1, 1], f"LinearAttention {attrs}")
        outputs_match(got, reference(body, feeds), [1, 1], f"LinearAttention {attrs} body")
    for dtype in (np.float16, BF16):
        inputs, attrs = linear_attention_case(rng, rule, dtype)
        wide = [v if v is None else v.astype(np.float32) for v in inputs]
        want = reference(*node_models("LinearAttention", 27, wide, attrs, [np.float32] * 2)[:2])
        got = ours("LinearAttention", 27, inputs, attrs)  # present_state: past_state's type, else the query's
        close(got[0], want[0].astype(dtype), f"LinearAttention {np.dtype(dtype).name}")
        close(got[1], want[1].astype(dtype), f"LinearAttention {np.dtype(dtype).name} state")


def test_causal_conv_with_state_against_reference_and_body():
    """Bias, past_state, silu/swish, kernel size 1, inputs shorter than the carried state; onnxruntime has
    no CausalConvWithState (opset 27)."""
    rng = np.random.default_rng(23)
    for k in range(10):
        batch, channels, length, taps = (int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 6)),
                                         int(rng.integers(1, 5)))
        inputs = [rng.uniform(-2, 2, (batch, channels, length)).astype(np.float32),
                  rng.uniform(-1, 1, (channels, 1, taps)).astype(np.float32),
                  rng.uniform(-1, 1, channels).astype(np.float32) if k % 2 else None,
                  rng.uniform(-2, 2, (batch, channels, taps - 1)).astype(np.float32) if k % 3 else None]
        attrs = {"activation": ["none", "silu", "swish"][k % 3]}
        model, feeds, body = node_models("CausalConvWithState", 27, inputs, attrs, [np.float32] * 2, expand=True)
        got = ours("CausalConvWithState", 27, inputs, attrs)
        label = f"CausalConvWithState {attrs} {[None if v is None else v.shape for v in inputs]}"
        outputs_match(got, reference(model, feeds), [1, 1], label)
        outputs_match(got, reference(body, feeds), [1, 1], label + " body")
    for dtype in (np.float16, BF16):
        typed = [v if v is None else v.astype(dtype) for v in inputs]
        wide = [v if v is None else v.astype(np.float32) for v in typed]
        want = reference(*node_models("CausalConvWithState", 27, wide, attrs, [np.float32] * 2)[:2])
        outputs_match(ours("CausalConvWithState", 27, typed, attrs), [w.astype(dtype) for w in want], [1, 1],
                      f"CausalConvWithState {np.dtype(dtype).name}")
