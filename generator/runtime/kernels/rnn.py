"""ONNX recurrent layers: RNN, GRU and LSTM, every version (1, 3, 7, 14, 22).

The three ops share one scan: the input projection X W^T + Wb is computed for every time step at once,
then each direction runs its cell step by step over the batch. Conventions (spec notes of each op):
- float16/bfloat16 are computed in float32, float and double in their own precision, and the outputs
  are rounded once at the end;
- sequence_lens[b] limits batch entry b to its first sequence_lens[b] steps: a reverse direction runs
  from step sequence_lens[b] - 1 down to 0, Y is zero at the steps past the length, and Y_h (Y_c) is the
  state after the last step that ran, zero for an entry of length 0 (as onnxruntime);
- clip bounds the input of every activation to [-clip, clip];
- activation_alpha / activation_beta are consumed in order by the activations that take a parameter
  (as onnxruntime does); a missing value is the default of the ONNX operator of the same name, and
  ScaledTanh, whose operator has none, needs both given;
- layout = 1 (version 14 on) is batch-major X, Y, initial_h/c and Y_h/c; the versions before 7 take an
  output_sequence flag that only says whether Y is wanted: Y is always computed;
- version 1's "H(t-1) * Ri" (RNN) and GRU-1's default direction "foward" are the document's slips for
  the Ri^T of every later version and "forward" (spec errata).
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ..elementwise import compute_dtype

Activation = Callable[[np.ndarray], np.ndarray]
State = tuple[np.ndarray, ...]
Cell = Callable[[np.ndarray, State], State]          # (input projection of a step, state) -> new state
MakeCell = Callable[[int, np.ndarray, np.ndarray], Cell]   # (direction, R, Rb) -> that direction's cell

# name (lower case) -> (takes alpha, takes beta, default alpha, default beta); None: no default exists
_PARAMETERS: dict[str, tuple[bool, bool, float | None, float | None]] = {
    "relu": (False, False, None, None), "tanh": (False, False, None, None),
    "sigmoid": (False, False, None, None), "softsign": (False, False, None, None),
    "softplus": (False, False, None, None),
    "affine": (True, True, 1.0, 0.0),            # ONNX's (experimental) Affine-1 defaults
    "leakyrelu": (True, False, 0.01, None), "thresholdedrelu": (True, False, 1.0, None),
    "scaledtanh": (True, True, None, None),      # ScaledTanh-1 has no defaults
    "hardsigmoid": (True, True, 0.2, 0.5), "elu": (True, False, 1.0, None),
}


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp of -|x| never overflows: 1/(1+e^-x) for x >= 0, e^x/(1+e^x) for x < 0
    e = np.abs(x)
    np.negative(e, out=e)  # in place: the step's arrays are small, where each allocation shows
    np.exp(e, out=e)
    denominator = 1 + e
    return np.where(x >= 0, 1 / denominator, e / denominator)


def _activation(name: str, alpha: np.floating, beta: np.floating) -> Activation:
    """The activation function of that name (alpha and beta are used by the ones that take them)."""
    kind = name.lower()
    if kind == "relu":
        return lambda x: np.maximum(x, 0)
    if kind == "tanh":
        return np.tanh
    if kind == "sigmoid":
        return _sigmoid
    if kind == "softsign":
        return lambda x: x / (1 + np.abs(x))
    if kind == "softplus":
        return lambda x: np.logaddexp(0, x)
    if kind == "affine":
        return lambda x: alpha * x + beta
    if kind == "leakyrelu":
        return lambda x: np.where(x >= 0, x, alpha * x)
    if kind == "thresholdedrelu":
        return lambda x: np.where(x >= alpha, x, 0)  # the operator text's x >= alpha
    if kind == "scaledtanh":
        return lambda x: alpha * np.tanh(beta * x)
    if kind == "hardsigmoid":
        return lambda x: np.clip(alpha * x + beta, 0, 1)
    if kind == "elu":
        return lambda x: np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0)))
    raise ValueError(f"unknown activation {name!r}")


def _activations(names: Sequence[str], alphas: Sequence[float] | None, betas: Sequence[float] | None,
                 per_direction: int, directions: int, dtype: np.dtype) -> list[list[Activation]]:
    """The activation functions of each direction. A list of one direction's worth serves both
    directions of a bidirectional layer; alphas and betas are consumed in order by the activations
    that take one."""
    names = list(names)
    if len(names) == per_direction and directions == 2:
        names = names * 2
    if len(names) < per_direction * directions:
        raise ValueError(f"activations lists {len(names)} functions; {per_direction} per direction "
                         f"({per_direction * directions}) needed")
    alpha_left, beta_left = list(alphas or []), list(betas or [])
    functions = []
    for name in names[:per_direction * directions]:
        if name.lower() not in _PARAMETERS:
            raise ValueError(f"unknown activation {name!r}")
        takes_alpha, takes_beta, alpha, beta = _PARAMETERS[name.lower()]
        if takes_alpha and alpha_left:
            alpha = alpha_left.pop(0)
        if takes_beta and beta_left:
            beta = beta_left.pop(0)
        if (takes_alpha and alpha is None) or (takes_beta and beta is None):
            raise ValueError(f"activation {name} needs activation_alpha and activation_beta values")
        functions.append(_activation(name, dtype.type(alpha or 0.0), dtype.type(beta or 0.0)))
    return [functions[d * per_direction:(d + 1) * per_direction] for d in range(directions)]


def _clipped(fn: Activation, clip: float | None) -> Activation:
    if clip is None:
        return fn
    return lambda x: fn(np.clip(x, -clip, clip))


def _step_order(seq_length: int, lengths: np.ndarray, reverse: bool) -> tuple[np.ndarray, np.ndarray]:
    """(time index [step, batch], runs [step, batch]): at step s batch entry b reads time index[s, b],
    and runs only while s < lengths[b]; a reverse direction walks each entry's own valid range backwards."""
    steps = np.arange(seq_length)[:, None]
    runs = steps < lengths[None, :]
    if not reverse:
        return np.broadcast_to(steps, runs.shape), runs
    return np.where(runs, lengths[None, :] - 1 - steps, 0), runs


def _scan(x_proj: np.ndarray, state: State, lengths: np.ndarray, reverse: bool, cell: Cell
          ) -> tuple[np.ndarray, State]:
    """Run one direction: x_proj [seq, batch, gates] (the input projection), state a tuple of
    [batch, hidden] arrays whose first is the hidden state. Returns (Y [seq, batch, hidden], final state)."""
    seq_length, batch = x_proj.shape[:2]
    if batch and bool(np.all(lengths == seq_length)):
        return _scan_full(x_proj, state, reverse, cell)
    order, runs = _step_order(seq_length, lengths, reverse)
    columns = np.arange(batch)
    y = np.zeros((seq_length, batch, state[0].shape[-1]), dtype=state[0].dtype)
    for s in range(seq_length):
        active = runs[s]
        if not active.any():
            break
        new = cell(x_proj[order[s], columns], state)
        state = tuple(np.where(active[:, None], n, old) for n, old in zip(new, state))
        y[order[s][active], columns[active]] = state[0][active]
    return y, state


def _scan_full(x_proj: np.ndarray, state: State, reverse: bool, cell: Cell) -> tuple[np.ndarray, State]:
    """_scan when every batch entry runs every step (no shorter sequence_lens): the same values without
    the per-step masks and index gathers, which cost more than a small cell's arithmetic. A new state
    replaces the old one whole, as _scan's selection with an all-true mask does (a state whose type or
    shape would differ goes through that selection, which promotes or broadcasts as it would)."""
    seq_length, batch = x_proj.shape[:2]
    y = np.zeros((seq_length, batch, state[0].shape[-1]), dtype=state[0].dtype)
    for s in range(seq_length):
        t = seq_length - 1 - s if reverse else s
        new = cell(x_proj[t], state)
        state = tuple(n if type(n) is np.ndarray and n.dtype == old.dtype and n.shape == old.shape
                      else np.where(True, n, old) for n, old in zip(new, state))
        y[t] = state[0]
    return y, state


def _recurrent(X: np.ndarray, W: np.ndarray, R: np.ndarray, B: np.ndarray | None, sequence_lens: np.ndarray | None,
               initial: Sequence[np.ndarray | None], *, gates: int, direction: str, layout: int,
               make_cell: MakeCell) -> tuple[np.ndarray, ...]:
    """The shared frame: layouts, directions, biases, initial states and sequence lengths. make_cell(d,
    R_d, Rb_d) builds direction d's cell (in the compute type); returns (Y, final states...) in the op's
    layout."""
    X = np.asarray(X)
    dtype = X.dtype
    work = compute_dtype(dtype)
    if layout == 1:  # batch-major: X [batch, seq, input], states [batch, directions, hidden]
        X = np.swapaxes(X, 0, 1)
        initial = [None if h is None else np.swapaxes(np.asarray(h), 0, 1) for h in initial]
    seq_length, batch = X.shape[:2]
    directions = 2 if direction == "bidirectional" else 1
    hidden = np.asarray(R).shape[-1]
    x = X.astype(work)
    w, r = np.asarray(W).astype(work), np.asarray(R).astype(work)
    b = np.zeros((directions, 2 * gates * hidden), work) if B is None else np.asarray(B).astype(work)
    lengths = (np.full(batch, seq_length, np.int64) if sequence_lens is None
               else np.asarray(sequence_lens).astype(np.int64))
    if np.any(lengths < 0) or np.any(lengths > seq_length):
        raise ValueError(f"sequence_lens {lengths.tolist()} must lie in [0, seq_length = {seq_length}]")
    ys, finals = [], []
    with np.errstate(all="ignore"):
        for d in range(directions):
            x_proj = x @ w[d].T + b[d, :gates * hidden]
            state = tuple(np.zeros((batch, hidden), work) if h is None else np.asarray(h)[d].astype(work)
                          for h in initial)
            reverse = direction == "reverse" or d == 1
            cell = make_cell(d, r[d], b[d, gates * hidden:])
            y, final = _scan(x_proj, state, lengths, reverse, cell)
            # an entry of length 0 ran no step: its final states are zero, not the initial ones (as onnxruntime)
            final = tuple(np.where(lengths[:, None] > 0, f, 0) for f in final)
            ys.append(y)
            finals.append(final)
    y_all = np.stack(ys, axis=1)                                       # [seq, directions, batch, hidden]
    states = [np.stack([f[k] for f in finals], axis=0) for k in range(len(initial))]  # [dirs, batch, hidden]
    if layout == 1:
        y_all = np.transpose(y_all, (2, 0, 1, 3))
        states = [np.swapaxes(s, 0, 1) for s in states]
    return (y_all.astype(dtype), *(s.astype(dtype) for s in states))


def _direction(direction: str) -> str:
    if direction == "foward":  # GRU-1's default, the document's slip for "forward"
        return "forward"
    if direction not in ("forward", "reverse", "bidirectional"):
        raise ValueError(f"direction must be forward, reverse or bidirectional, got {direction!r}")
    return direction


def onnx_rnn(X: np.ndarray, W: np.ndarray, R: np.ndarray, B: np.ndarray | None = None,
             sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None, *,
             activation_alpha: Sequence[float] | None = None, activation_beta: Sequence[float] | None = None,
             activations: Sequence[str] | None = None, clip: float | None = None, direction: str = "forward",
             hidden_size: int | None = None, layout: int = 0, output_sequence: int = 0
             ) -> tuple[np.ndarray, ...]:
    """ONNX RNN: Ht = f(Xt W^T + Ht-1 R^T + Wb + Rb), f = Tanh by default. Returns (Y, Y_h)."""
    direction = _direction(direction)
    directions = 2 if direction == "bidirectional" else 1
    work = compute_dtype(np.asarray(X).dtype)
    fns = _activations(activations or ["Tanh"], activation_alpha, activation_beta, 1, directions, work)

    def make_cell(d: int, r: np.ndarray, rb: np.ndarray) -> Cell:
        f = _clipped(fns[d][0], clip)
        return lambda xp, state: (f(xp + state[0] @ r.T + rb),)

    return _recurrent(X, W, R, B, sequence_lens, [initial_h], gates=1, direction=direction, layout=layout,
                      make_cell=make_cell)


def onnx_gru(X: np.ndarray, W: np.ndarray, R: np.ndarray, B: np.ndarray | None = None,
             sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None, *,
             activation_alpha: Sequence[float] | None = None, activation_beta: Sequence[float] | None = None,
             activations: Sequence[str] | None = None, clip: float | None = None, direction: str = "forward",
             hidden_size: int | None = None, layout: int = 0, linear_before_reset: int = 0,
             output_sequence: int = 0) -> tuple[np.ndarray, ...]:
    """ONNX GRU, gates in the order z (update), r (reset), h (hidden):
    zt = f(Xt Wz^T + Ht-1 Rz^T + Wbz + Rbz), rt = f(Xt Wr^T + Ht-1 Rr^T + Wbr + Rbr),
    ht = g(Xt Wh^T + (rt * Ht-1) Rh^T + Rbh + Wbh), or with linear_before_reset
    ht = g(Xt Wh^T + rt * (Ht-1 Rh^T + Rbh) + Wbh); Ht = (1 - zt) * ht + zt * Ht-1.
    f = Sigmoid, g = Tanh by default. Returns (Y, Y_h)."""
    direction = _direction(direction)
    directions = 2 if direction == "bidirectional" else 1
    work = compute_dtype(np.asarray(X).dtype)
    fns = _activations(activations or ["Sigmoid", "Tanh"], activation_alpha, activation_beta, 2, directions, work)

    def make_cell(d: int, r: np.ndarray, rb: np.ndarray) -> Cell:
        f, g = (_clipped(fn, clip) for fn in fns[d])
        n = r.shape[-1]
        r_zr, r_h = r[:2 * n], r[2 * n:]
        rb_zr, rb_h = rb[:2 * n], rb[2 * n:]

        def cell(xp: np.ndarray, state: State) -> State:
            h_prev = state[0]
            zr = f(xp[:, :2 * n] + h_prev @ r_zr.T + rb_zr)
            z, reset = zr[:, :n], zr[:, n:]
            if linear_before_reset:
                candidate = g(xp[:, 2 * n:] + reset * (h_prev @ r_h.T + rb_h))
            else:
                candidate = g(xp[:, 2 * n:] + (reset * h_prev) @ r_h.T + rb_h)
            return ((1 - z) * candidate + z * h_prev,)

        return cell

    return _recurrent(X, W, R, B, sequence_lens, [initial_h], gates=3, direction=direction, layout=layout,
                      make_cell=make_cell)


def onnx_lstm(X: np.ndarray, W: np.ndarray, R: np.ndarray, B: np.ndarray | None = None,
              sequence_lens: np.ndarray | None = None, initial_h: np.ndarray | None = None,
              initial_c: np.ndarray | None = None, P: np.ndarray | None = None, *,
              activation_alpha: Sequence[float] | None = None, activation_beta: Sequence[float] | None = None,
              activations: Sequence[str] | None = None, clip: float | None = None, direction: str = "forward",
              hidden_size: int | None = None, input_forget: int = 0, layout: int = 0, output_sequence: int = 0
              ) -> tuple[np.ndarray, ...]:
    """ONNX LSTM, gates in the order i (input), o (output), f (forget), c (cell), peepholes P = [Pi, Po, Pf]:
    it = f(Xt Wi^T + Ht-1 Ri^T + Pi * Ct-1 + Wbi + Rbi), ft likewise with Pf (ft = 1 - it when
    input_forget couples the gates), ct = g(Xt Wc^T + Ht-1 Rc^T + Wbc + Rbc), Ct = ft * Ct-1 + it * ct,
    ot = f(Xt Wo^T + Ht-1 Ro^T + Po * Ct + Wbo + Rbo), Ht = ot * h(Ct). f = Sigmoid, g = h = Tanh by
    default. Returns (Y, Y_h, Y_c)."""
    direction = _direction(direction)
    directions = 2 if direction == "bidirectional" else 1
    work = compute_dtype(np.asarray(X).dtype)
    fns = _activations(activations or ["Sigmoid", "Tanh", "Tanh"], activation_alpha, activation_beta, 3,
                       directions, work)
    hidden = np.asarray(R).shape[-1]
    peep = np.zeros((directions, 3 * hidden), work) if P is None else np.asarray(P).astype(work)

    def make_cell(d: int, r: np.ndarray, rb: np.ndarray) -> Cell:
        # clip bounds the gates' inputs; h applies to the cell state itself, which is not clipped
        f, g, h = _clipped(fns[d][0], clip), _clipped(fns[d][1], clip), fns[d][2]
        p_i, p_o, p_f = peep[d, :hidden], peep[d, hidden:2 * hidden], peep[d, 2 * hidden:]
        n = hidden

        def cell(xp: np.ndarray, state: State) -> State:
            h_prev, c_prev = state
            pre = xp + h_prev @ r.T + rb
            i = f(pre[:, :n] + p_i * c_prev)
            forget = 1 - i if input_forget else f(pre[:, 2 * n:3 * n] + p_f * c_prev)
            c = forget * c_prev + i * g(pre[:, 3 * n:])
            o = f(pre[:, n:2 * n] + p_o * c)
            return o * h(c), c

        return cell

    return _recurrent(X, W, R, B, sequence_lens, [initial_h, initial_c], gates=4, direction=direction,
                      layout=layout, make_cell=make_cell)
