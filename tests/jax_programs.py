"""Real jax programs for tests/test_stablehlo.py: each is a function and its arguments (NumPy arrays,
float64 with x64 enabled), lowered to StableHLO by the test (jax.jit(f).lower(*args).as_text())."""
from __future__ import annotations

from typing import Any, Callable

import jax
import numpy as np

jax.config.update("jax_enable_x64", True)  # as tests/kernel_refs.py: the programs are float64


# Relative tolerance of a program's results beyond the default (1e-12). bfloat16_activations: XLA on CPU
# evaluates exp and tanh in float32 with its own approximations (not the C library's), and keeps excess
# precision where StableHLO rounds to bfloat16 (softmax: exp's float32 result goes into the float32 sum
# unrounded), so a result may lie two units in the last place (2**-6 relative) from opgen's, which
# rounds each operation's result as the program's types say. bfloat16_layers has none of these: exact.
# linear_algebra's float32 determinant: LAPACK's getrf eliminates in blocks, opgen's LapackGetrf column by column,
# so the products of float32 pivots may differ in the last place (2**-23 relative); its float64 results agree
# to the default tolerance. spectral's float32 transform: NumPy's pocketfft and XLA's DUCC combine the terms
# in other orders, a few float32 units in the last place apart. complex_math's complex64 log, sqrt and quotients:
# XLA computes them in other orders than C's clog, csqrt and Smith's division, a few units in the last place
# apart. attention_heads: jax.nn.dot_product_attention computes its softmax in float32 whatever the inputs' type
# (the program converts), where XLA's exp and opgen's differ by an ulp: weights an ulp apart summed with
# cancellation into small outputs (2e-6 relative measured). series' float32 i1e: XLA approximates the float case
# by polynomials (ChloBesselI1e's note precision), opgen rounds the double value once. A dict gives the tolerance
# by result dtype. float8's dequantized float32 values: XLA's max(|x|) / 448 scale is an ulp off opgen's
# correctly rounded quotient (the 8-bit values themselves are equal). complex_functions' complex64 tanh: NumPy's
# float ctanhf and XLA's float tanh differ by a few units in the last place. log_cosh's float32 cosh: XLA's
# e^(x + log 1/2) + e^(-x + log 1/2) errs in proportion to |x| (12 units in the last place at |x| = 30, measured;
# ChloCosh's note accuracy), the C library's coshf by less than one.
TOLERANCES: dict[str, float | dict[str, float]] = {"bfloat16_activations": 2.0 ** -6,
                                                   "linear_algebra": {"float32": 2.0 ** -22},
                                                   "spectral": {"float32": 2.0 ** -18},
                                                   "complex_math": {"complex64": 2.0 ** -20},
                                                   "attention_heads": 2.0 ** -16, "series": {"float32": 2.0 ** -20},
                                                   "float8": {"float32": 2.0 ** -22},
                                                   "complex_functions": {"complex64": 2.0 ** -20},
                                                   "log_cosh": {"float32": 2.0 ** -18}}


def programs() -> dict[str, tuple[Callable[..., Any], tuple[np.ndarray, ...]]]:
    import jax.numpy as jnp
    from jax import lax

    rng = np.random.default_rng(14)

    def normal(*shape: int) -> np.ndarray:
        return rng.normal(size=shape)

    w1, b1, w2, b2 = normal(4, 8), normal(8), normal(8, 3), normal(3)

    def mlp(x: Any) -> Any:
        return jnp.maximum(x @ w1 + b1, 0.0) @ w2 + b2

    def mlp_grad(x: Any, y: Any) -> Any:
        def loss(w: Any) -> Any:
            return jnp.mean((jnp.maximum(x @ w + b1, 0.0) @ w2 - y) ** 2)
        return jax.grad(loss)(w1)

    kernel, mean, var, scale, bias = normal(4, 3, 3, 3), normal(4), rng.random(4) + 0.5, normal(4), normal(4)

    def cnn_block(x: Any) -> Any:
        y = lax.conv_general_dilated(x, kernel, (1, 1), "SAME", dimension_numbers=("NCHW", "OIHW", "NCHW"))
        y = (y - mean[:, None, None]) / jnp.sqrt(var[:, None, None] + 1e-5) * scale[:, None, None] + bias[:, None, None]
        y = jnp.maximum(y, 0.0)
        return lax.reduce_window(y, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def attention(q: Any, k: Any, v: Any, mask: Any) -> Any:
        scores = q @ k.T / np.sqrt(q.shape[-1])
        scores = jnp.where(mask, scores, -1e9)
        return jax.nn.softmax(scores, axis=-1) @ v

    def layer_norm(x: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        return (x - mu) / jnp.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)

    def fori_dynamic_slice(x: Any) -> Any:
        return lax.fori_loop(0, x.shape[0], lambda i, acc: acc + lax.dynamic_slice(x, (i, 0), (1, x.shape[1])),
                             jnp.zeros((1, x.shape[1])))

    def while_update(x: Any) -> Any:
        def body(state: Any) -> Any:
            i, acc = state
            return i + 1, lax.dynamic_update_slice(acc, lax.dynamic_slice(x, (i, 0), (1, 4)) - 1.0, (i, 0))
        return lax.while_loop(lambda s: s[0] < 3, body, (0, jnp.zeros_like(x)))[1]

    def scan_sum(x: Any) -> Any:
        return lax.scan(lambda c, row: (c + row, c - row), jnp.zeros(x.shape[1]), x)

    def sorting(x: Any) -> Any:
        return jnp.sort(x, axis=1), jnp.argsort(x, axis=1), lax.top_k(x, 2)[0], jnp.argmax(x, axis=1)

    def sort_only(x: Any) -> Any:
        return jnp.sort(x, axis=0), jnp.sort(x, axis=1, descending=True)

    index = np.array([2, 0, 3])

    def gather_scatter(x: Any) -> Any:
        return x[index], x.at[index].set(0.0), x.at[index].add(1.0)

    def cumsum(x: Any) -> Any:
        return jnp.cumsum(x, axis=1)

    def data_movement(x: Any, y: Any) -> Any:
        z = jnp.concatenate([jnp.pad(x, ((1, 0), (0, 2))), y], axis=0)
        return jnp.flip(z, axis=1).T, z[1:4:2, ::2]

    def maxpool_grad(x: Any) -> Any:
        def pooled(v: Any) -> Any:
            return lax.reduce_window(v, -jnp.inf, lax.max, (2, 2), (2, 2), "VALID").sum()
        return jax.grad(pooled)(x)

    def integer_ops(a: Any, b: Any) -> Any:
        return a << 2, a >> 1, lax.shift_right_logical(a, b), a % b, a // b

    def conditionals(x: Any, k: Any) -> Any:
        c = lax.cond(x.sum() > 0, lambda v: v + 1.0, lambda v: v - 1.0, x)
        s = lax.switch(k, [lambda v: v, lambda v: -v, jnp.exp], x)
        return c, s

    def conversions(x: Any) -> Any:
        return (x.astype(jnp.float32), x.astype(jnp.int32), lax.bitcast_convert_type(x, jnp.int64),
                (x > 0).astype(jnp.int64))

    def elementwise(x: Any, y: Any) -> Any:
        return (jnp.exp(x) - jnp.log1p(jnp.abs(y)), jnp.tanh(x) / (jnp.cos(y) + 2.0), jnp.clip(x, -0.5, 0.5),
                jnp.floor(x) + jnp.ceil(y), jnp.minimum(x, y), jnp.arctan2(x, y), lax.rsqrt(jnp.abs(x) + 1.0))

    def conv_pool(x: Any) -> Any:
        y = lax.conv_general_dilated(x, kernel, (1, 1), ((1, 1), (1, 1)), rhs_dilation=(1, 1),
                                     dimension_numbers=("NCHW", "OIHW", "NCHW")) + bias[:, None, None]
        return lax.reduce_window(jnp.maximum(y, 0.0), -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    def math(x: Any, y: Any) -> Any:
        return (jnp.exp(x) - jnp.log1p(jnp.abs(y)), jnp.tanh(x) / (jnp.cos(y) + 2.0), jnp.clip(x, -0.5, 0.5),
                jnp.floor(x) + jnp.ceil(y), jnp.minimum(x, y), jnp.arctan2(x, y), jnp.sqrt(jnp.abs(x)) ** y)

    def shifts(a: Any, b: Any) -> Any:
        return a >> 1, lax.shift_right_logical(a, b), lax.rem(a, b), lax.div(a, b), jnp.max(a, axis=0)

    def special(x: Any, y: Any, m: Any, n: Any) -> Any:
        return (lax.erf(x), jnp.sinh(x), jnp.arcsin(x), jnp.arccos(x), jnp.arctan(x), jnp.arcsinh(x), jnp.arctanh(x),
                jnp.expm1(x), jnp.cbrt(x), jnp.isfinite(x / x), lax.round(y), jnp.round(y), jax.nn.sigmoid(x),
                jnp.tan(x), jnp.sin(x), m & n, m | n, m ^ n, ~m, lax.clamp(-0.2, x, 0.3))

    def random_uniform(key: Any) -> Any:  # threefry: xor, and, or and shifts on unsigned integers
        k = jax.random.wrap_key_data(key)
        return jax.random.uniform(k, (3, 4)), jax.random.bits(jax.random.fold_in(k, 7), (5,), jnp.uint32)

    def variance(x: Any) -> Any:  # chlo.square, through jnp.var and jnp.std
        return jnp.var(x, axis=0), jnp.std(x, axis=1), jnp.square(x)

    def gelu_exact(x: Any) -> Any:  # chlo.erfc
        return jax.nn.gelu(x, approximate=False), jax.scipy.special.erfc(x)

    def bitwise(a: Any, b: Any, u: Any) -> Any:
        return a & b, a | b, a ^ b, ~a, u & 0x0F, u | 0x80, u ^ u[::-1], ~u, jnp.logical_not(a > b)

    def reduce_precision(x: Any) -> Any:
        return lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10), lax.reduce_precision(x, 8, 7)

    def any_all_bfloat16(x: Any) -> Any:  # reductions of booleans and of bfloat16
        b = x.astype(jnp.bfloat16)
        return jnp.any(x > 1.0), (x > 0).all(axis=1), jnp.isnan(x).any(), b.max(axis=0), b.min(axis=1)

    def take_along_axis(x: Any, i: Any) -> Any:  # gathers with batching dimensions: two, then one
        return jnp.take_along_axis(x, i, axis=2), jnp.take_along_axis(x[0], i[0, :, :2], axis=1)

    def cross_entropy(logits: Any, labels: Any) -> Any:
        return -jnp.take_along_axis(jax.nn.log_softmax(logits), labels[:, None], axis=1).mean()

    def cross_entropy_grad(logits: Any, labels: Any) -> Any:  # a scatter with batching dimensions
        return jax.grad(cross_entropy)(logits, labels)

    def searchsorted(a: Any, v: Any) -> Any:  # compares in total order (compare_type TOTALORDER)
        # one query alone: a loop of dynamic slices at uint32 start indices
        return jnp.searchsorted(a, v), jnp.searchsorted(a, v, side="right"), jnp.digitize(v, a), \
            jnp.searchsorted(a, v[0]), jnp.searchsorted(a, v[-1], side="right")

    def popcount(a: Any, b: Any, u: Any) -> Any:  # stablehlo.popcnt: signed integers in two's complement
        return lax.population_count(a), lax.population_count(b), lax.population_count(u)

    bf16 = jnp.bfloat16

    def bfloat16_layers(x: Any, y: Any) -> Any:  # arithmetic 004 gives no bfloat16: XLA computes it in float32
        a, b = x.astype(bf16), y.astype(bf16)
        h = jnp.maximum(a @ w1.astype(bf16) + b1.astype(bf16), 0)
        mu = h.mean(-1, keepdims=True)
        norm = (h - mu) / jnp.sqrt(((h - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        return a + b, a - b, a * b, a / b, jnp.sqrt(jnp.abs(a)), -a, jnp.maximum(a, b), a > b, h, norm

    def bfloat16_activations(x: Any) -> Any:
        h = jnp.maximum(x.astype(bf16) @ w1.astype(bf16) + b1.astype(bf16), 0)
        return jax.nn.softmax(h, axis=-1), jax.nn.gelu(h), jnp.tanh(h), jax.nn.sigmoid(h), jnp.exp(h)

    def bfloat16_train_step(x: Any, y: Any) -> Any:  # a mixed-precision gradient: bfloat16 weights, float32 loss
        def loss(w: Any) -> Any:
            h = jnp.maximum(x.astype(bf16) @ w + b1.astype(bf16), 0)
            return jnp.mean((h.astype(jnp.float32) - y) ** 2)
        return jax.grad(loss)(w1.astype(bf16))

    def causal_attention(q: Any, k: Any, v: Any) -> Any:  # jnp.tril of a bool matrix: a Select of bools
        mask = jnp.tril(jnp.ones((q.shape[0], k.shape[0]), bool))
        return jax.nn.softmax(jnp.where(mask, q @ k.T, -jnp.inf), axis=-1) @ v, jnp.triu(mask, 1)

    def bool_masks(p: Any, a: Any, b: Any, i: Any) -> Any:  # Select, Pad, Max, Min, Clamp, Gather, Sort, Scatter: bools
        return jnp.where(p, a, b), jnp.pad(a, ((1, 0), (0, 2))), jnp.pad(a, 1, constant_values=True), \
            jnp.maximum(a, b), jnp.minimum(a, b), lax.clamp(p, a, b), a[i], jnp.concatenate([a, b[::-1]], 1), \
            jnp.sort(a, axis=1), jnp.argsort(p.ravel(), stable=True), lax.sort((a[0], b[0]), num_keys=1), \
            jnp.unique(i, size=3, fill_value=0)  # a scatter of bools

    def gamma_family(k: Any, mu: Any, x: Any, key: Any) -> Any:  # chlo.lgamma, chlo.digamma and chlo.next_after
        from jax.scipy import special, stats
        return stats.poisson.logpmf(k, mu), stats.gamma.logpdf(x, 2.5), special.digamma(x), special.betaln(x, mu), \
            jax.random.truncated_normal(jax.random.wrap_key_data(key), -2.0, 2.0, (3, 4)), jnp.nextafter(x, mu)

    def linear_algebra(a: Any, b: Any, batch: Any) -> Any:  # LAPACK custom calls: potrf, trsm, getrf, geqrf, orgqr
        spd = a @ a.T + jnp.eye(3)
        not_definite = jnp.linalg.cholesky(spd - 10 * jnp.eye(3))  # info > 0: NaN, as jax makes it
        return jnp.linalg.cholesky(spd), not_definite, jnp.linalg.solve(a, b), jnp.linalg.inv(a), \
            jnp.linalg.slogdet(a), jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(spd), b), \
            jax.scipy.linalg.solve_triangular(a, b, lower=False, trans=1, unit_diagonal=True), \
            jax.scipy.linalg.lu(a[:, :2]), jnp.linalg.det(batch.astype(jnp.float32)), jnp.linalg.qr(a[:, :2]), \
            jnp.linalg.qr(a[:2], mode="complete"), jax.nn.initializers.orthogonal()(jax.random.key(0), (4, 3))

    def spectral(x: Any, h: Any, m: Any) -> Any:  # stablehlo.fft; complex constants, arithmetic, moduli, pads
        from jax.scipy import signal
        low = jnp.fft.irfft(jnp.fft.rfft(x.astype(jnp.float32)) * (jnp.fft.rfftfreq(8) < 0.3))
        return signal.fftconvolve(x, h), jnp.fft.irfftn(jnp.fft.rfftn(m) * (1 + 2j), m.shape), \
            jnp.fft.ifft2(jnp.fft.fft2(m)), low, jnp.real(jnp.fft.fft(x) * 2j), jnp.imag(jnp.fft.fft(x)), \
            jnp.conj(jnp.fft.fft(x)) + jnp.fft.fft(x[::-1]) - 1, -jnp.fft.rfft(x), jnp.abs(jnp.fft.rfft(x)) ** 2, \
            jnp.real(jnp.exp(1j * x) * jnp.fft.fft(x))

    def general_eigen(a: Any, batch: Any) -> Any:  # LAPACK custom call geev: complex eigenvalues and vectors
        values, vectors = jnp.linalg.eig(a)
        return values, vectors, jnp.linalg.eigvals(batch.astype(jnp.float32)), \
            jnp.max(jnp.abs(jnp.linalg.eigvals(a))), \
            jax.lax.linalg.eig(batch, compute_left_eigenvectors=True)

    def decompositions(a: Any, b: Any, batch: Any) -> Any:  # LAPACK custom calls: syevd, gesdd (modes A, S, N)
        spd = a @ a.T + jnp.eye(4)
        values, vectors = jnp.linalg.eigh(spd)
        whitened = b.T @ vectors / jnp.sqrt(values)  # PCA whitening
        u, s, vt = jnp.linalg.svd(b)
        return values, vectors, whitened, jnp.linalg.eigvalsh(batch + jnp.swapaxes(batch, -1, -2)), u, s, vt, \
            jnp.linalg.svd(b.T, full_matrices=False), jnp.linalg.pinv(b), jnp.linalg.lstsq(b, a[:, :2])[0], \
            jnp.linalg.norm(batch, ord=2, axis=(-2, -1)), jnp.linalg.matrix_rank(b @ b.T), \
            jnp.linalg.svd(batch.astype(jnp.float32), compute_uv=False), jnp.linalg.cond(a), \
            jnp.linalg.svd(b, compute_uv=False), jnp.linalg.svd(b.T, full_matrices=False, compute_uv=False)

    def complex_math(x: Any, h: Any) -> Any:  # divide, log, sqrt, dot_general, reduce and cumsum of complex values
        spectrum, response = jnp.fft.fft(x), jnp.fft.fft(h, 8)
        deconvolved = jnp.real(jnp.fft.ifft(spectrum / (response + 0.1)))  # a regularized inverse filter
        dft = jnp.exp(-2j * jnp.pi * jnp.outer(jnp.arange(8), jnp.arange(8)) / 8)  # a complex matrix product
        return deconvolved, jnp.log(spectrum), jnp.sqrt(spectrum), jnp.log(spectrum.astype(jnp.complex64)), \
            jnp.sqrt(spectrum.astype(jnp.complex64)) / (response.astype(jnp.complex64) + 1), dft @ x, \
            jnp.einsum("ij,kj->ki", dft, jnp.stack([spectrum, response])), jnp.sum(spectrum), \
            jnp.mean(jnp.stack([spectrum, response]), axis=0), jnp.cumsum(spectrum)  # complex sums

    def complex_functions(z: Any, w: Any) -> Any:  # complex forms of element-wise functions (ComplexTanh, ...)
        return jnp.tanh(z), jnp.tan(z), jnp.sinh(z), jnp.cosh(z), jnp.arcsin(z), jnp.arccos(z), jnp.arctan(z), \
            jnp.arcsinh(z), jnp.arccosh(z), jnp.arctanh(z), jnp.log1p(1e-3 * z), jnp.expm1(1e-3 * z), \
            jnp.sign(z), lax.rsqrt(z), jnp.square(z), z ** 2.5, z ** w, jnp.tanh(z.astype(jnp.complex64))

    def log_cosh(x: Any, y: Any) -> Any:  # the log-cosh regression loss and its gradient; chlo.cosh and acosh
        def loss(p: Any) -> Any:
            return jnp.mean(jnp.log(jnp.cosh(p - y)))
        return loss(x), jax.grad(loss)(x), jnp.arccosh(1 + jnp.abs(x)), jnp.cosh(x.astype(jnp.float32))

    def sort_keys(a: Any, b: Any, z: Any) -> Any:  # comparators of several keys, and of complex values
        return jnp.lexsort((a, b)), lax.sort((b, a.astype(jnp.uint8), a > 2), num_keys=2), jnp.sort(z), \
            jnp.argsort(z), jnp.sort(z.reshape(3, 4), axis=1), \
            jnp.roots(jnp.array([1.0, -2.0, 2.0, -1.0]) * a[0], strip_zeros=False)

    def schur_sqrtm(a: Any) -> Any:  # lapack_?gees_ffi: real and complex Schur forms, and sqrtm built on the latter
        from jax.scipy import linalg
        return linalg.schur(a), linalg.schur(a.astype(jnp.complex128), output="complex"), linalg.sqrtm(a @ a.T)

    def complex_control_flow(z: Any, i: Any) -> Any:  # complex values captured by branches and loop bodies,
        # gathered there and scattered (x.at[k].set, .add: ScatterND on the parts)
        picked = lax.cond(i > 0, lambda: z[i] * 2, lambda: z[0])
        filled = lax.fori_loop(0, 3, lambda k, acc: acc.at[k].set(z[k] * z[i]), jnp.zeros(4, z.dtype))
        return picked, filled, z.at[jnp.array([0, 2, 0])].add(1j), z.at[1].set(-z[3])

    def quantized(a: Any, b: Any, x: Any, k: Any) -> Any:  # products into a wider type (preferred_element_type)
        scale = 0.05
        int_product = lax.dot(a, b, preferred_element_type=jnp.int32)
        return int_product, int_product.astype(jnp.float32) * scale, \
            lax.conv_general_dilated(x, k, (1, 1), "SAME", preferred_element_type=jnp.int32), \
            lax.dot(a.astype(jnp.float16), b.astype(jnp.float16), preferred_element_type=jnp.float32)

    def float8(x: Any) -> Any:  # stablehlo.convert to and from the 8-bit float types (FP8 quantization)
        scale = jnp.max(jnp.abs(x)) / 448.0
        quantized = (x / scale).astype(jnp.float8_e4m3fn)
        return quantized, quantized.astype(jnp.float32) * scale, x.astype(jnp.float8_e5m2), \
            x.astype(jnp.bfloat16).astype(jnp.float8_e4m3fnuz).astype(jnp.float16), \
            quantized.astype(jnp.float8_e5m2fnuz)

    def series(x: Any, q: Any) -> Any:  # chlo.bessel_i1e, zeta and polygamma
        from jax.scipy import special
        return special.i1e(x), special.i1(x), special.zeta(q + 1.5, q), special.polygamma(1, q), \
            special.polygamma(3, x), special.i1e(x.astype(jnp.float32))

    def attention_heads(q: Any, k: Any, v: Any) -> Any:  # dot_general batching dimensions numbered differently
        return jax.nn.dot_product_attention(q, k, v, is_causal=True), \
            jax.nn.dot_product_attention(q.astype(jnp.float32), k.astype(jnp.float32), v.astype(jnp.float32))

    ints = rng.integers(1, 100, size=(3, 4)).astype(np.int32)
    return {
        "mlp": (mlp, (normal(5, 4),)),
        "mlp_grad": (mlp_grad, (normal(5, 4), normal(5, 3))),
        "cnn_block": (cnn_block, (normal(2, 3, 6, 6),)),
        "attention": (attention, (normal(4, 8), normal(4, 8), normal(4, 8), np.tril(np.ones((4, 4), dtype=bool)))),
        "layer_norm": (layer_norm, (normal(3, 5),)),
        "fori_dynamic_slice": (fori_dynamic_slice, (normal(3, 4),)),
        "while_update": (while_update, (normal(3, 4),)),
        "scan": (scan_sum, (normal(3, 4),)),
        "sorting": (sorting, (normal(3, 5),)),
        "sort": (sort_only, (normal(3, 5),)),
        "gather_scatter": (gather_scatter, (normal(5, 3),)),
        "cumsum": (cumsum, (normal(3, 4),)),
        "data_movement": (data_movement, (normal(2, 3), normal(4, 5))),
        "maxpool_grad": (maxpool_grad, (normal(4, 6),)),
        "integer_ops": (integer_ops, (ints, (ints % 7 + 1).astype(np.int32))),
        "conditionals": (conditionals, (normal(3,), np.int32(2))),
        "conversions": (conversions, (normal(2, 3),)),
        "elementwise": (elementwise, (normal(3, 4), normal(3, 4))),
        "conv_pool": (conv_pool, (normal(2, 3, 6, 6),)),
        "math": (math, (normal(3, 4), normal(3, 4))),
        "special": (special, (rng.uniform(-0.9, 0.9, size=(3, 4)), 3 * normal(3, 4), rng.random((3, 4)) > 0.5,
                              rng.random((3, 4)) > 0.5)),
        "shifts": (shifts, (ints, (ints % 7 + 1).astype(np.int32))),
        "random_uniform": (random_uniform, (np.array([0, 42], np.uint32),)),
        "variance": (variance, (normal(4, 5),)),
        "gelu_exact": (gelu_exact, (3 * normal(3, 4),)),
        "bitwise": (bitwise, (rng.integers(-2**31, 2**31, (3, 4)).astype(np.int32),
                              rng.integers(-2**31, 2**31, (3, 4)).astype(np.int32),
                              rng.integers(0, 256, (6,)).astype(np.uint8))),
        "reduce_precision": (reduce_precision, (normal(3, 4) * 1e3,)),
        "any_all_bfloat16": (any_all_bfloat16, (normal(4, 5),)),
        "take_along_axis": (take_along_axis, (normal(2, 3, 6), rng.integers(0, 6, size=(2, 3, 4)))),
        "cross_entropy": (cross_entropy, (normal(4, 5), rng.integers(0, 5, size=(4,)))),
        "cross_entropy_grad": (cross_entropy_grad, (normal(4, 5), rng.integers(0, 5, size=(4,)))),
        "searchsorted": (searchsorted, (np.array([-np.inf, -1.0, -0.0, 0.0, 0.5, 2.0, np.inf, np.nan]),
                                        np.concatenate([normal(4), [-0.0, 0.0, 2.0, np.inf, -np.inf, np.nan,
                                                                    -np.float64("nan")]]))),
        "popcount": (popcount, (rng.integers(-2**31, 2**31, (3, 4)).astype(np.int32),
                                np.array([-128, -1, 0, 1, 127, -8], np.int8),
                                rng.integers(0, 2**16, (5,)).astype(np.uint16))),
        "bfloat16_layers": (bfloat16_layers, (normal(5, 4), normal(5, 4))),
        "bfloat16_activations": (bfloat16_activations, (normal(5, 4),)),
        "bfloat16_train_step": (bfloat16_train_step, (normal(5, 4), normal(5, 8))),
        "causal_attention": (causal_attention, (normal(5, 4), normal(5, 4), normal(5, 3))),
        "bool_masks": (bool_masks, (rng.random((3, 4)) > 0.5, rng.random((3, 4)) > 0.5, rng.random((3, 4)) > 0.5,
                                    np.array([2, 0, 2, 1]))),
        "gamma_family": (gamma_family, (np.array([0, 1, 3, 7, 20]), rng.uniform(0.1, 9, 5),
                                        np.array([-2.5, 0.3, 1.0, 4.5, 30.0]), np.array([0, 5], np.uint32))),
        "linear_algebra": (linear_algebra, (normal(3, 3), normal(3, 2), normal(4, 3, 3))),
        "spectral": (spectral, (normal(8), normal(3), normal(3, 4, 6))),
        "quantized": (quantized, (rng.integers(-128, 128, (4, 6)).astype(np.int8),
                                  rng.integers(-128, 128, (6, 3)).astype(np.int8),
                                  rng.integers(-128, 128, (1, 2, 5, 5)).astype(np.int8),
                                  rng.integers(-128, 128, (3, 2, 3, 3)).astype(np.int8))),
        "float8": (float8, (100 * normal(4, 5).astype(np.float32),)),
        "series": (series, (3 * normal(3, 4), rng.uniform(0.1, 6, (3, 4)))),
        "attention_heads": (attention_heads, (normal(2, 5, 3, 4), normal(2, 5, 3, 4), normal(2, 5, 3, 4))),
        "complex_math": (complex_math, (normal(8), normal(3))),
        "complex_functions": (complex_functions, (normal(3, 4) + 1j * normal(3, 4), normal(3, 4) + 1j * normal(3, 4))),
        "log_cosh": (log_cosh, (3 * normal(4, 5), 3 * normal(4, 5))),
        "schur_sqrtm": (schur_sqrtm, (normal(4, 4),)),
        "complex_control_flow": (complex_control_flow, (normal(4) + 1j * normal(4), np.int32(2))),
        # ties, signed zeros and NaN among the keys and the parts (jax compares -0.0 and +0.0 equal, NaN last)
        "sort_keys": (sort_keys, (np.array([3, 1, 2, 3, 1, 2, 0, 3]),
                                  np.array([0.5, -0.0, 0.5, np.nan, 0.0, -1.0, 0.5, -0.0]),
                                  np.array([1 + 2j, 1 - 1j, -0.0 + 1j, 1 + 2j, np.nan + 0j, 0j, -2 + 0j,
                                            1 + np.nan * 1j, 1 - 1j, 0.5 + 0j, -0.0 - 0.0j, 3j]))),
        "general_eigen": (general_eigen, (normal(4, 4), normal(2, 3, 3))),
        "decompositions": (decompositions, (normal(4, 4), normal(4, 3), normal(2, 3, 3))),
    }
