"""oneDNN Graph Dropout: the library's counter-based random stream (Philox4x32-10) and its threshold.

The stream is reproduced bit for bit as the library's reference implementation draws it (oneDNN's
ref_dropout, which benchdnn's reference mirrors); the element index is the element's row-major
position in src (the library requires a plain dense layout for dropout, where the physical offset is
that position):

- offset != 0: the Philox counter is (offset low, offset high, i & ~3 low, i & ~3 high) and the key
  (seed low, seed high), 64-bit two's complement halves; element i takes word i & 3 of the output, so
  one Philox block serves four consecutive elements.
- offset == 0 (the library's older 32-bit path): with x = uint32(i) & ~3 and s = uint32(seed), the
  counter is (x, x + 1, x, x + 3) and the key (s, s), and element i takes word 2. The four elements
  of a block therefore share one random word (and one mask value): the library's arithmetic, kept.

An element is kept when its word r satisfies r > (2**32 - 1) * p (p clamped to [0, 1], compared in
double precision); a kept element is src * (1 / (1 - p)) in float32 (the inverse formed once in
float32, 0 when p == 1), a dropped one 0. bf16/f16 are rounded once from the float32 result.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..elementwise import finish

_LOW = np.uint64(0xFFFFFFFF)
_MULTIPLIERS = (np.uint64(0xD2511F53), np.uint64(0xCD9E8D57))  # Philox4x32 round multipliers
_KEY_STEPS = (0x9E3779B9, 0xBB67AE85)  # Weyl sequence added to the key after each round
_ROUNDS = 10
_U64 = (1 << 64) - 1


def philox4x32_10(counter: Sequence[np.ndarray | int], key: Sequence[int]) -> tuple[np.ndarray, ...]:
    """The four 32-bit output words of Philox4x32-10 (Salmon et al., 2011) for 128-bit counters given
    as four arrays of 32-bit words (broadcast together) and one 64-bit key as two 32-bit words. The
    words are uint64 arrays holding 32-bit values (products of two 32-bit words need 64 bits)."""
    c0, c1, c2, c3 = (np.asarray(word, np.uint64) & _LOW for word in counter)
    k0, k1 = (int(word) & 0xFFFFFFFF for word in key)
    for round_index in range(_ROUNDS):
        if round_index:
            k0, k1 = (k0 + _KEY_STEPS[0]) & 0xFFFFFFFF, (k1 + _KEY_STEPS[1]) & 0xFFFFFFFF
        p0, p1 = _MULTIPLIERS[0] * c0, _MULTIPLIERS[1] * c2
        c0, c1, c2, c3 = ((p1 >> np.uint64(32)) ^ c1 ^ np.uint64(k0), p1 & _LOW,
                          (p0 >> np.uint64(32)) ^ c3 ^ np.uint64(k1), p0 & _LOW)
    return c0, c1, c2, c3


def _scalar(value: np.ndarray | int, name: str) -> int:
    """seed/offset: an s64 tensor of one element, read as its 64-bit two's complement pattern."""
    flat = np.asarray(value).reshape(-1)
    if flat.size != 1:
        raise ValueError(f"onednn.Dropout: {name} must hold one value, got shape {list(np.shape(value))}")
    return int(flat[0]) & _U64


def dropout_bits(count: int, seed: int, offset: int) -> np.ndarray:
    """The library's random word (uint64 holding 32 bits) for elements 0 .. count-1."""
    blocks = np.arange((count + 3) // 4, dtype=np.uint64) * np.uint64(4)  # i & ~3 for each block of four
    seed, offset = seed & _U64, offset & _U64
    if offset:
        words = philox4x32_10((offset & 0xFFFFFFFF, offset >> 32, blocks & _LOW, blocks >> np.uint64(32)),
                              (seed & 0xFFFFFFFF, seed >> 32))
        return np.stack(words, axis=-1).reshape(-1)[:count]
    x = blocks & _LOW  # uint32(i) & ~3
    s = seed & 0xFFFFFFFF
    shared = philox4x32_10((x, x + np.uint64(1), x, x + np.uint64(3)), (s, s))[2]
    return np.repeat(shared, 4)[:count]


def dropout(src: np.ndarray, seed: np.ndarray, offset: np.ndarray, probability: np.ndarray, *,
            mask_dtype: np.dtype[Any] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(dst, mask): the kept elements scaled by 1 / (1 - p), and the library's keep decision per element
    (u8, the mask's one type)."""
    x = np.asarray(src)
    flat_p = np.asarray(probability, np.float32).reshape(-1)
    if flat_p.size != 1:
        raise ValueError(f"onednn.Dropout: probability must hold one value, got shape {list(np.shape(probability))}")
    p = np.float32(flat_p[0])
    bits = dropout_bits(x.size, _scalar(seed, "seed"), _scalar(offset, "offset")).reshape(x.shape)
    threshold = float(np.iinfo(np.uint32).max) * min(max(float(p), 0.0), 1.0)
    keep = bits.astype(np.float64) > threshold
    inverse = np.float32(0.0) if p == np.float32(1.0) else np.float32(1.0) / (np.float32(1.0) - p)
    with np.errstate(all="ignore"):
        scaled = x.astype(np.float32) * inverse
    dst: np.ndarray[Any, Any] = np.where(keep, scaled, np.float32(0.0))
    return finish(dst, x.dtype), keep.astype(np.uint8 if mask_dtype is None else mask_dtype)
