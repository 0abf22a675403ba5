"""ONNX signal processing: DFT (versions 17 and 20), STFT, the Hann, Hamming and Blackman windows and
MelWeightMatrix.

Complex values are held as ONNX holds them, in a trailing axis of size 2 (real, imaginary); a real
signal has a trailing axis of size 1. Every transform is computed in the input's precision (complex64
for float, float16 and bfloat16, complex128 for double; NumPy's FFT keeps single precision) and rounded
once to the element type at the end. The windows and the mel matrix are computed in float64
and converted to the type output_datatype names (a TensorProto code); to an integer type the conversion
truncates toward zero, as Cast does (their function bodies end with a Cast).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from ..elementwise import compute_dtype

# TensorProto data type codes of the element types these ops may produce
ONNX_DTYPES: dict[int, np.dtype] = {
    1: np.dtype(np.float32), 2: np.dtype(np.uint8), 3: np.dtype(np.int8), 4: np.dtype(np.uint16),
    5: np.dtype(np.int16), 6: np.dtype(np.int32), 7: np.dtype(np.int64), 10: np.dtype(np.float16),
    11: np.dtype(np.float64), 12: np.dtype(np.uint32), 13: np.dtype(np.uint64),
    16: np.dtype(ml_dtypes.bfloat16),
}


def onnx_dtype(code: int) -> np.dtype:
    """The NumPy dtype of a TensorProto data type code (one these ops allow)."""
    if int(code) not in ONNX_DTYPES:
        raise ValueError(f"output_datatype {code} is not one of the allowed TensorProto codes {sorted(ONNX_DTYPES)}")
    return ONNX_DTYPES[int(code)]


def _scalar(value: np.ndarray | None) -> int | None:
    """A scalar input (rank 0, or one element) as a Python int; None when absent."""
    if value is None:
        return None
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"expected a scalar, got shape {np.asarray(value).shape}")
    return int(flat[0])


def _as_complex(x: np.ndarray) -> np.ndarray:
    """[..., 1] (real) or [..., 2] (real, imaginary) as complex numbers of the compute precision,
    without the trailing axis."""
    x = np.asarray(x)
    x = x.astype(compute_dtype(x.dtype))
    z = np.zeros(x.shape[:-1], np.result_type(x.dtype, np.complex64))
    if x.shape[-1] in (1, 2):
        z.real = x[..., 0]
        if x.shape[-1] == 2:
            z.imag = x[..., 1]
        return z
    raise ValueError(f"the last dimension must be 1 (real) or 2 (complex), got {x.shape[-1]}")


def _as_pairs(z: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """complex [...] as [..., 2] (real, imaginary) in dtype."""
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _fitted(z: np.ndarray, length: int, axis: int) -> np.ndarray:
    """z truncated to, or zero-padded up to, `length` along axis."""
    have = z.shape[axis]
    if have >= length:
        return np.take(z, np.arange(length), axis=axis)
    pad = [(0, 0)] * z.ndim
    pad[axis] = (0, length - have)
    return np.pad(z, pad)


def _dft(z: np.ndarray, length: int, axis: int, inverse: bool) -> np.ndarray:
    """The DFT of `length` points along axis (inverse: divided by length), the signal fitted first."""
    z = _fitted(z, length, axis)
    return np.fft.ifft(z, axis=axis) if inverse else np.fft.fft(z, axis=axis)


def onnx_dft(input: np.ndarray, dft_length: np.ndarray | None = None, axis: np.ndarray | int | None = None, *,
             inverse: int = 0, onesided: int = 0) -> np.ndarray:
    """ONNX DFT. axis is the attribute of version 17 (default 1) or the input of version 20 (default -2);
    it may be negative but never the last (complex) axis.
    - forward (inverse = 0): the DFT of dft_length points (default: the axis length; the signal is
      truncated or zero-padded to it), y[k] = sum_n x[n] e^(-2 pi i k n / N); with onesided only the bins
      0 .. N // 2 are returned (RFFT of a real signal);
    - inverse, onesided = 0: x[n] = 1/N sum_k y[k] e^(2 pi i k n / N), a complex result;
    - inverse with onesided (IRFFT): the input holds bins 0 .. N // 2 of a Hermitian spectrum (default N =
      2 * (axis length - 1)); the result is the real signal of N points, shape [..., 1]."""
    x = np.asarray(input)
    rank = x.ndim
    a = _scalar(axis) if isinstance(axis, np.ndarray) else axis
    a = -2 if a is None else int(a)
    if not (-rank <= a <= -2 or 0 <= a <= rank - 2):
        raise ValueError(f"axis {a} is out of range for rank {rank} (the last axis holds the complex parts)")
    a %= rank
    z = _as_complex(x)
    n = _scalar(dft_length)
    if inverse and onesided:
        n = 2 * (x.shape[a] - 1) if n is None else n
        if n <= 0:
            raise ValueError(f"the inverse one-sided DFT needs a positive length, got {n}")
        # bins 0 .. n // 2 of the Hermitian spectrum (fitted), the real signal of n points
        real = np.fft.irfft(_fitted(z, n // 2 + 1, a), n=n, axis=a)
        return real[..., None].astype(x.dtype)
    n = x.shape[a] if n is None else n
    if n <= 0:
        raise ValueError(f"dft_length must be positive, got {n}")
    y = _dft(z, n, a, bool(inverse))
    if onesided:
        y = np.take(y, np.arange(n // 2 + 1), axis=a)
    return _as_pairs(y, x.dtype)


def onnx_stft(signal: np.ndarray, frame_step: np.ndarray, window: np.ndarray | None = None,
              frame_length: np.ndarray | None = None, *, onesided: int = 1) -> np.ndarray:
    """ONNX STFT of signal [batch, length, 1 or 2]: frame f covers samples f * frame_step .. f * frame_step
    + frame_length - 1, multiplied by the window (all ones when absent), and its DFT of frame_length points
    is row f of the result [batch, frames, bins, 2]; frames = (length - frame_length) // frame_step + 1,
    bins = frame_length // 2 + 1 when onesided, else frame_length. frame_length defaults to the window's
    length, or the signal's when there is no window either."""
    x = np.asarray(signal)
    step = _scalar(frame_step)
    length = _scalar(frame_length)
    if length is None:
        length = np.asarray(window).shape[0] if window is not None else x.shape[1]
    if step is None or step <= 0 or length <= 0:
        raise ValueError(f"frame_step ({step}) and frame_length ({length}) must be positive")
    z = _as_complex(x)                                                   # [batch, length]
    w = np.ones(length, z.dtype) if window is None else _as_complex(np.asarray(window)[..., None])
    if w.shape != (length,):
        raise ValueError(f"the window has {w.shape[0]} points; frame_length is {length}")
    frames = (z.shape[1] - length) // step + 1
    if frames <= 0:
        raise ValueError(f"the signal ({z.shape[1]} samples) is shorter than one frame ({length})")
    starts = np.arange(frames) * step
    framed = z[:, starts[:, None] + np.arange(length)[None, :]] * w     # [batch, frames, length]
    y = np.fft.fft(framed, axis=-1)
    if onesided:
        y = y[..., :length // 2 + 1]
    return _as_pairs(y, x.dtype)


# ---- windows --------------------------------------------------------------------------------------

def _cosine_window(size: np.ndarray, coefficients: tuple[float, float, float], periodic: int,
                   output_datatype: int) -> np.ndarray:
    """w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), n = 0 .. size - 1, N = size when periodic
    else size - 1. A symmetric window of one point has N = 0: its function body divides by zero, and the
    point is NaN (an integer output type gets what the conversion of NaN gives)."""
    count = _scalar(size)
    if count is None or count < 0:
        raise ValueError(f"size must be a non-negative scalar, got {count}")
    a0, a1, a2 = coefficients
    period = count if periodic else count - 1
    with np.errstate(all="ignore"):
        angle = np.arange(count, dtype=np.float64) * (2 * np.pi / np.float64(period))
        w = a0 - a1 * np.cos(angle) + a2 * np.cos(2 * angle)
        dtype = onnx_dtype(output_datatype)
        if dtype.kind in "iu":
            # to float (the function body's type) before truncating: Blackman's peak, exactly 1, is
            # 0.9999999999999999 in float64 and must stay 1 (spec note window_evaluation)
            w = w.astype(np.float32)
        return w.astype(dtype)


def onnx_hann_window(size: np.ndarray, *, output_datatype: int = 1, periodic: int = 1,
                     output_dtype: object = None) -> np.ndarray:
    """ONNX HannWindow: 0.5 - 0.5 cos(2 pi n / N)."""
    return _cosine_window(size, (0.5, 0.5, 0.0), periodic, output_datatype)


def onnx_hamming_window(size: np.ndarray, *, output_datatype: int = 1, periodic: int = 1,
                        output_dtype: object = None) -> np.ndarray:
    """ONNX HammingWindow: 25/46 - 21/46 cos(2 pi n / N) (the coefficients of its function body, whose
    float constants 0.54347825 and 0.45652175 are these fractions rounded to float)."""
    return _cosine_window(size, (25 / 46, 21 / 46, 0.0), periodic, output_datatype)


def onnx_blackman_window(size: np.ndarray, *, output_datatype: int = 1, periodic: int = 1,
                         output_dtype: object = None) -> np.ndarray:
    """ONNX BlackmanWindow: 0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)."""
    return _cosine_window(size, (0.42, 0.5, 0.08), periodic, output_datatype)


# ---- mel weight matrix ----------------------------------------------------------------------------

def onnx_mel_weight_matrix(num_mel_bins: np.ndarray, dft_length: np.ndarray, sample_rate: np.ndarray,
                           lower_edge_hertz: np.ndarray, upper_edge_hertz: np.ndarray, *,
                           output_datatype: int = 1, output_dtype: object = None) -> np.ndarray:
    """ONNX MelWeightMatrix [dft_length // 2 + 1, num_mel_bins] (spec note mel_construction): the mel
    range mel(lower) .. mel(upper), mel(f) = 2595 log10(1 + f / 700), is cut into num_mel_bins + 2 steps;
    the points mel(lower) + k * step, k = 0 .. num_mel_bins + 1, are turned back into hertz and into
    spectrogram bins floor((dft_length + 1) * hz / sample_rate). Band m is the triangle on the bins
    (left, center, right) = points m, m + 1, m + 2: rising (j - left) / (center - left) from left to
    center, falling (right - j) / (right - center) from center to right, 1 at center."""
    mels, n_fft, rate = _scalar(num_mel_bins), _scalar(dft_length), _scalar(sample_rate)
    low = float(np.asarray(lower_edge_hertz, dtype=np.float64).reshape(-1)[0])
    high = float(np.asarray(upper_edge_hertz, dtype=np.float64).reshape(-1)[0])
    if mels is None or n_fft is None or rate is None or mels < 0 or n_fft <= 0 or rate <= 0:
        raise ValueError(f"num_mel_bins ({mels}) must be >= 0, dft_length ({n_fft}) and sample_rate ({rate}) > 0")
    spectrogram_bins = n_fft // 2 + 1
    low_mel, high_mel = 2595 * np.log10(1 + low / 700), 2595 * np.log10(1 + high / 700)
    step = (high_mel - low_mel) / (mels + 2)
    hz = 700 * (10 ** ((low_mel + np.arange(mels + 2) * step) / 2595) - 1)
    points = np.floor((n_fft + 1) * hz / rate).astype(np.int64)
    if mels and (points.min() < 0 or points.max() >= spectrogram_bins):
        raise ValueError(f"the band edges fall on bins {points.min()} .. {points.max()}, outside the "
                         f"{spectrogram_bins} spectrogram bins")
    j = np.arange(spectrogram_bins)[:, None]                                 # [bins, 1]
    left, center, right = points[None, :-2], points[None, 1:-1], points[None, 2:]
    with np.errstate(divide="ignore", invalid="ignore"):
        rising = np.where((j >= left) & (j <= center),
                          np.where(center > left, (j - left) / np.maximum(center - left, 1), 1.0), 0.0)
        falling = np.where((j >= center) & (j < right), (right - j) / np.maximum(right - center, 1), 0.0)
    weights = np.where(j == center, 1.0, np.maximum(rising, falling))
    return weights.astype(onnx_dtype(output_datatype))
