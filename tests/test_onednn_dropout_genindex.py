"""oneDNN GenIndex (against np.indices) and Dropout (its Philox4x32-10 stream against Random123's published
known-answer vectors and a scalar Philox written here from the algorithm's definition; the library's
counter layout; the contract's properties), and both run in a graph through `opgen run`."""
from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from click.testing import CliRunner

import opgen_ops
from opgen.cli import main
from opgen.runtime.kernels.onednn_dropout import dropout_bits, philox4x32_10
from conftest import onednn_kernel as kernel

GRAPH = Path(__file__).resolve().parent / "data" / "onednn" / "run_genindex_dropout.json"
RNG = np.random.default_rng(20261126)
MASK32 = 0xFFFFFFFF


# --- GenIndex ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("shape", "axis"), [((5,), 0), ((3, 4), 1), ((3, 4), -2), ((2, 3, 4, 5), 2),
                                             ((2, 1, 3), -1), ((0, 3), 1)])
def test_gen_index_is_each_elements_coordinate_along_axis(shape: tuple[int, ...], axis: int) -> None:
    src = RNG.standard_normal(shape).astype(ml_dtypes.bfloat16)
    (dst,) = kernel("GenIndex")(src, axis=axis)
    want = np.indices(shape)[axis]
    assert dst.dtype == np.int32 and dst.shape == shape
    np.testing.assert_array_equal(dst, want)


def test_gen_index_axis_out_of_range_is_refused_by_the_validator() -> None:
    problems = [str(p) for p in opgen_ops.get_validator("onednn", "GenIndex", 1)([("float", (2, 3))], {"axis": 2})]
    assert problems == ["onednn.GenIndex@1: constraint C1: axis must lie in [-r, r-1], r being the rank of src."]
    assert not opgen_ops.get_validator("onednn", "GenIndex", 1)([("float", (2, 3))], {"axis": -2})


# --- Philox4x32-10 -------------------------------------------------------------------------------------

def reference_philox(counter: tuple[int, int, int, int], key: tuple[int, int]) -> tuple[int, int, int, int]:
    """Philox4x32-10 on Python integers, one block: ten rounds of two 32x32->64 multiplications
    (0xD2511F53 on word 0, 0xCD9E8D57 on word 2), the key bumped by the Weyl constants between rounds."""
    c = list(counter)
    k0, k1 = key
    for r in range(10):
        if r:
            k0, k1 = (k0 + 0x9E3779B9) & MASK32, (k1 + 0xBB67AE85) & MASK32
        p0, p1 = 0xD2511F53 * c[0], 0xCD9E8D57 * c[2]
        c = [(p1 >> 32) ^ c[1] ^ k0, p1 & MASK32, (p0 >> 32) ^ c[3] ^ k1, p0 & MASK32]
    return c[0], c[1], c[2], c[3]


# Random123's known-answer vectors for Philox4x32-10 (counter, key, output)
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((MASK32,) * 4, (MASK32, MASK32), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize(("counter", "key", "want"), KNOWN_ANSWERS)
def test_philox_matches_random123_known_answers(counter: tuple[int, ...], key: tuple[int, int],
                                                want: tuple[int, ...]) -> None:
    assert reference_philox(counter, key) == want  # the test's own Philox is the algorithm
    assert tuple(int(w) for w in philox4x32_10(counter, key)) == want


def library_word(i: int, seed: int, offset: int) -> int:
    """The random word oneDNN's reference draws for element i (src/common/math_utils.hpp philox4x32 and
    ref_dropout): 64-bit counter/key halves when offset != 0, the 32-bit path of word 2 otherwise."""
    seed, offset = seed & (2**64 - 1), offset & (2**64 - 1)
    if offset:
        x = i & ~3
        return reference_philox((offset & MASK32, offset >> 32, x & MASK32, x >> 32),
                                (seed & MASK32, seed >> 32))[i & 3]
    x, s = (i & MASK32) & ~3, seed & MASK32
    return reference_philox((x, x + 1, x, x + 3), (s, s))[2]


@pytest.mark.parametrize(("seed", "offset"), [(0, 0), (1234, 0), (-7, 0), (42, 5), (-1, -3), (2**40 + 3, 2**33 + 9)])
def test_dropout_stream_is_the_librarys(seed: int, offset: int) -> None:
    got = dropout_bits(23, seed, offset)
    assert [int(w) for w in got] == [library_word(i, seed, offset) for i in range(23)]
    if offset == 0:  # the 32-bit path: four consecutive elements share one draw
        assert all(got[i] == got[i - i % 4] for i in range(23))


# --- Dropout -------------------------------------------------------------------------------------------

def run_dropout(src: np.ndarray, seed: int, offset: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    dst, mask = kernel("Dropout")(src, np.array([seed], np.int64), np.array([offset], np.int64),
                                  np.array([p], np.float32))
    return dst, mask


def test_dropout_keeps_and_scales_as_the_library_decides() -> None:
    src = RNG.standard_normal((3, 5, 7)).astype(np.float32)
    seed, offset, p = 99, 17, 0.3
    dst, mask = run_dropout(src, seed, offset, p)
    keep = np.array([library_word(i, seed, offset) > (2**32 - 1) * np.float64(np.float32(p))
                     for i in range(src.size)]).reshape(src.shape)
    assert mask.dtype == np.uint8 and dst.dtype == np.float32
    np.testing.assert_array_equal(mask, keep.astype(np.uint8))
    scale = np.float32(1) / (np.float32(1) - np.float32(p))
    np.testing.assert_array_equal(dst, np.where(keep, src * scale, np.float32(0)))


def test_dropout_mask_fraction_and_limits() -> None:
    src = np.ones((200, 500), np.float32)
    for offset in (0, 3):
        dst, mask = run_dropout(src, 5, offset, 0.25)
        assert abs(mask.mean() - 0.75) < 0.01  # kept with probability 1 - p
        np.testing.assert_allclose(dst.sum() / src.sum(), 1.0, atol=0.015)  # the expected sum is kept
    dst, mask = run_dropout(src, 5, 3, 0.0)
    assert mask.all() and np.array_equal(dst, src)  # p = 0 is the identity
    dst, mask = run_dropout(src, 5, 3, 1.0)
    assert not mask.any() and not dst.any()  # p = 1 drops everything
    x16 = RNG.standard_normal((4, 9)).astype(np.float16)
    dst16, mask16 = run_dropout(x16, 1, 2, 0.5)
    np.testing.assert_array_equal(dst16, (x16.astype(np.float32) * 2 * mask16).astype(np.float16))


# --- the graph through opgen run -----------------------------------------------------------------------

def test_gen_index_and_dropout_run_in_a_graph(tmp_path: Path) -> None:
    arrays = {"0": RNG.standard_normal((2, 3, 8)).astype(np.float32), "1": np.array([7], np.int64),
              "2": np.array([11], np.int64), "3": np.array([0.5], np.float32)}
    flags = []
    for tid, array in arrays.items():
        np.save(tmp_path / f"in{tid}.npy", array)
        flags += ["--input", f"{tid}={tmp_path / f'in{tid}.npy'}"]
    result = CliRunner().invoke(main, ["run", str(GRAPH), *flags, "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    np.testing.assert_array_equal(np.load(tmp_path / "4.npy"), np.indices((2, 3, 8))[2])
    keep = np.array([library_word(i, 7, 11) > (2**32 - 1) * 0.5 for i in range(48)]).reshape(2, 3, 8)
    np.testing.assert_array_equal(np.load(tmp_path / "6.npy"), keep.astype(np.uint8))
    np.testing.assert_array_equal(np.load(tmp_path / "5.npy"), np.where(keep, arrays["0"] * 2, 0))
