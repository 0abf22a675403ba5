"""StableHLO's fft (hlir StablehloFft): jnp.fft and jax.scipy.signal.fftconvolve write it.

The transform runs over the last len(fft_length) dimensions (one to three) with NumPy's pocketfft, in
the operand's precision (NumPy 2 transforms float32 and complex64 in single precision, as XLA's DUCC
does): FFT and IFFT (IFFT scaled by 1 / n) from complex to complex, RFFT from real to the n // 2 + 1
non-negative frequencies of the last dimension, IRFFT back from those to fft_length real values (the
imaginary parts of the zero and Nyquist frequencies are ignored, as a real inverse transform does)."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

_COMPLEX_OF: dict[np.dtype[Any], np.dtype[Any]] = {np.dtype(np.float32): np.dtype(np.complex64),
                                                   np.dtype(np.float64): np.dtype(np.complex128)}
_REAL_OF: dict[np.dtype[Any], np.dtype[Any]] = {c: r for r, c in _COMPLEX_OF.items()}


def fft(operand: np.ndarray, *, fft_type: str, fft_length: Sequence[int],
        output_dtype: np.dtype[Any] | None = None) -> np.ndarray:
    """`output_dtype`: the output's type, which the operand's type and fft_type decide (a type the
    validator has checked); without it, that type."""
    axes = tuple(range(-len(fft_length), 0))
    lengths = [int(n) for n in fft_length]
    result: np.ndarray
    dtype: np.dtype[Any]
    if fft_type == "RFFT":
        result, dtype = np.fft.rfftn(operand, s=lengths, axes=axes), _COMPLEX_OF[operand.dtype]
    elif fft_type == "IRFFT":
        result, dtype = np.fft.irfftn(operand, s=lengths, axes=axes), _REAL_OF[operand.dtype]
    else:
        transform = np.fft.fftn if fft_type == "FFT" else np.fft.ifftn
        result, dtype = transform(operand, axes=axes), operand.dtype
    return np.asarray(result).astype(np.dtype(output_dtype) if output_dtype is not None else dtype, copy=False)
