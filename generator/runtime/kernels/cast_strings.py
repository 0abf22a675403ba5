"""Cast to and from strings (ONNX Cast and CastLike from version 9), as ONNX's Cast text says and, where
it is silent, as the spec's notes decide (specs/onnx/Cast.yaml, notes string_parsing, string_printing).

Parsing: a string holds a decimal number, plain ("3.14", "1000", ".5", "5.") or scientific ("1e-5",
"1E8"), with an optional sign and surrounding blanks, or one of the words INF, +INF, -INF and NaN in
any case. Anything else is refused with a ValueError (ONNX: undefined behaviour). A number is read
exactly and rounded once to the target type; an integer literal is exact for the integer types (its low
bits, like any integer conversion), any other number reaches an integer type through the float
rule (so "100.5" gives 100, as ONNX's text suggests); bool is the number != 0.

Printing: the shortest decimal digits that read back as the same value of the source type, written
plainly (no exponent: ONNX asks for a "plain floating-point representation such as 314.15926");
float8e8m0's powers of two exactly (they read back whatever the round_mode); "-0" for negative zero;
NaN, INF and -INF for the special values (the words parsing reads); integers in decimal; bool as 1
and 0 (which read back as the same bool).
"""
from __future__ import annotations

import re
import struct
from decimal import Decimal
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

_NUMBER = re.compile(r"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|nan)", re.IGNORECASE)
_INTEGER = re.compile(r"[+-]?\d+")
_E8M0 = np.dtype(ml_dtypes.float8_e8m0fnu)


def _clean(text: Any) -> str:
    s = text.decode() if isinstance(text, bytes) else str(text)
    s = s.strip()
    if not _NUMBER.fullmatch(s):
        raise ValueError(f"Cast: {text!r} is not a number ONNX can parse (undefined behaviour)")
    return s


def _round_to_odd(s: str, nearest: float) -> float:
    """The number s as a float64 rounded to odd: truncated toward zero, with its last bit set when
    inexact. Rounding that once more to any narrower format gives s correctly rounded."""
    if not np.isfinite(nearest):
        return nearest  # beyond float64's range (or NaN): beyond every narrower format's too
    exact = Fraction(s)
    if Fraction(nearest) == exact:
        return nearest
    if abs(Fraction(nearest)) > abs(exact):
        nearest = float(np.nextafter(nearest, 0.0))
    bits = struct.unpack("<q", struct.pack("<d", nearest))[0] | 1
    return float(struct.unpack("<d", struct.pack("<q", bits))[0])


def parse_floats(x: np.ndarray, odd: bool = False) -> np.ndarray:
    """Each string's number as float64, correctly rounded (odd=False) or rounded to odd (odd=True, for a
    target narrower than double)."""
    out = np.empty(x.shape, np.float64)
    for index, text in np.ndenumerate(x):
        s = _clean(text)
        value = float(s)  # Python reads decimal text correctly rounded, and INF/NaN in any case
        out[index] = _round_to_odd(s, value) if odd else value
    return out


def parse_integers(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the low 64 bits of each integer literal as int64, which strings are integer literals)."""
    bits = np.zeros(x.shape, np.uint64)
    literal = np.zeros(x.shape, bool)
    for index, text in np.ndenumerate(x):
        s = _clean(text)
        if _INTEGER.fullmatch(s):
            literal[index] = True
            bits[index] = int(s) % (1 << 64)
    return bits.view(np.int64), literal


# ---- printing ----------------------------------------------------------------------------------

def _special(value: float) -> str | None:
    if np.isnan(value):
        return "NaN"
    if np.isinf(value):
        return "INF" if value > 0 else "-INF"
    return None


def _shortest(value: Any, dtype: np.dtype[Any]) -> str:
    """The fewest significant digits that read back (correctly rounded) as the same value of dtype."""
    if dtype in (np.float16, np.float32, np.float64):
        return np.format_float_positional(value, unique=True, trim="-")
    if dtype == _E8M0:  # a power of two, written exactly: it reads back whatever the round_mode
        return format(Decimal(float(value)), "f")
    from .cast import cast_array  # the narrow formats: read back through Cast itself

    exact = float(value)
    target = np.asarray(value, dtype=dtype).reshape(1).view(np.uint8)
    for digits in range(1, 18):
        text = np.format_float_positional(exact, precision=digits, unique=False, fractional=False, trim="-")
        back = cast_array(np.array([text], dtype=object), dtype)
        if np.array_equal(back.view(np.uint8), target):
            return text
    return np.format_float_positional(exact, unique=True, trim="-")  # float64's digits: always exact here


def to_strings(x: np.ndarray, family: str) -> np.ndarray:
    """Each element as text (module docstring); an object array of str."""
    out = np.empty(x.shape, dtype=object)
    if family == "bool":
        for index, value in np.ndenumerate(x):
            out[index] = "1" if value else "0"
    elif family in ("int", "narrow_int"):
        for index, value in np.ndenumerate(x.astype(np.int64) if family == "narrow_int" else x):
            out[index] = str(int(value))
    else:
        for index, value in np.ndenumerate(x):
            special = _special(float(value))
            out[index] = special if special is not None else _shortest(value, x.dtype)
    return out
