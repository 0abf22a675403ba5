"""ONNX string operators: StringConcat, StringSplit, StringNormalizer, RegexFullMatch and TfIdfVectorizer.

Strings are object arrays of Python str (bytes are read as UTF-8). Choices the texts leave open are spec
notes of each operator:
- StringSplit without a delimiter (or with ""): runs of whitespace (Python's str.isspace: space, tab,
  newline, ...) separate, and leading and trailing whitespace is dropped, from the remainder that maxsplit
  leaves too. With a delimiter, an empty string is one empty piece (as "a," is "a" and "").
- StringNormalizer: stop words match whole elements; case-insensitive matching compares Unicode case
  folds (str.casefold); LOWER/UPPER apply Unicode's default case mappings (str.lower/str.upper), whatever
  the locale attribute says.
- RegexFullMatch: RE2 syntax run by Python's re after translating what differs (re2_to_python).
"""
from __future__ import annotations

import re
from typing import Any

import numpy as np


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _strings(values: list[str], shape: tuple[int, ...]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out.reshape(shape)


def string_concat(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """ONNX StringConcat: x + y element by element, with multidirectional (NumPy) broadcasting."""
    a, b = np.broadcast_arrays(np.asarray(x, dtype=object), np.asarray(y, dtype=object))
    return _strings([_text(p) + _text(q) for p, q in zip(a.flat, b.flat)], a.shape)


def string_split(x: np.ndarray, *, delimiter: str | None = None, maxsplit: int | None = None,
                 Y_dtype: Any = None, Z_dtype: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """ONNX StringSplit: Y = the pieces of each element (a last dimension as long as the most pieces, padded
    with ""), Z = the number of pieces (int64). An unset or negative maxsplit splits everywhere."""
    x = np.asarray(x, dtype=object)
    limit = -1 if maxsplit is None or maxsplit < 0 else int(maxsplit)
    if delimiter:
        pieces = [_text(s).split(delimiter, limit) for s in x.flat]
    else:  # "" means whitespace, as unset; the text drops leading and trailing whitespace from the output
        pieces = [_text(s).strip().split(None, limit) for s in x.flat]
    width = max((len(p) for p in pieces), default=0)
    padded = [piece for p in pieces for piece in p + [""] * (width - len(p))]
    counts = np.array([len(p) for p in pieces], np.int64).reshape(x.shape)
    return _strings(padded, x.shape + (width,)), counts


def string_normalizer(x: np.ndarray, *, case_change_action: str = "NONE", is_case_sensitive: int = 0,
                      locale: str | None = None, stopwords: list[str] | None = None) -> np.ndarray:
    """ONNX StringNormalizer on a [C] or [1, C] tensor: drop the elements equal to a stop word, then change case.
    When every element is dropped the result is one empty string, of shape [1] or [1, 1]."""
    x = np.asarray(x, dtype=object)
    if case_change_action not in ("NONE", "LOWER", "UPPER"):
        raise ValueError(f"case_change_action must be NONE, LOWER or UPPER, got {case_change_action!r}")
    words = [_text(w) for w in (stopwords or [])]
    def key(s: str) -> str:
        return s if is_case_sensitive else s.casefold()

    stop = {key(w) for w in words}
    kept = [s for s in (_text(v) for v in x.flat) if key(s) not in stop]
    if case_change_action == "LOWER":
        kept = [s.lower() for s in kept]
    elif case_change_action == "UPPER":
        kept = [s.upper() for s in kept]
    if not kept:
        kept = [""]
    return _strings(kept, (len(kept),) if x.ndim == 1 else (1, len(kept)))


# ---- RE2 ----------------------------------------------------------------------------------------

def _ascii_set(spec: str) -> set[int]:
    """Code points of an ASCII class written as ranges, e.g. "0-9A-Z_" (no escapes)."""
    points: set[int] = set()
    k = 0
    while k < len(spec):
        if k + 2 < len(spec) and spec[k + 1] == "-":
            points.update(range(ord(spec[k]), ord(spec[k + 2]) + 1))
            k += 3
        else:
            points.add(ord(spec[k]))
            k += 1
    return points


_CLASSES = {  # RE2's POSIX classes and (ASCII-only) Perl classes, as sets of code points
    "alnum": _ascii_set("0-9A-Za-z"), "alpha": _ascii_set("A-Za-z"), "ascii": set(range(128)),
    "blank": {9, 32}, "cntrl": set(range(32)) | {127}, "digit": _ascii_set("0-9"), "graph": _ascii_set("!-~"),
    "lower": _ascii_set("a-z"), "print": _ascii_set(" -~"), "punct": _ascii_set("!-/:-@[-`{-~"),
    "space": {9, 10, 11, 12, 13, 32}, "upper": _ascii_set("A-Z"), "word": _ascii_set("0-9A-Za-z_"),
    "xdigit": _ascii_set("0-9A-Fa-f"),
}
_PERL = {"d": ("digit", False), "D": ("digit", True), "s": ("perl_space", False), "S": ("perl_space", True),
         "w": ("word", False), "W": ("word", True)}
_CLASSES["perl_space"] = {9, 10, 12, 13, 32}  # RE2's \s has no \v
_WORD = "[0-9A-Za-z_]"
_BOUNDARY = f"(?:(?<={_WORD})(?!{_WORD})|(?<!{_WORD})(?={_WORD}))"  # RE2's \b: ASCII word characters


def _class_body(points: set[int], negate: bool) -> str:
    """The inside of a bracket expression matching these code points (or every other one)."""
    ranges: list[tuple[int, int]] = []
    for p in sorted(points):
        if ranges and ranges[-1][1] == p - 1:
            ranges[-1] = (ranges[-1][0], p)
        else:
            ranges.append((p, p))
    if negate:
        gaps, start = [], 0
        for lo, hi in ranges:
            if lo > start:
                gaps.append((start, lo - 1))
            start = hi + 1
        ranges = gaps + ([(start, 0x10FFFF)] if start <= 0x10FFFF else [])
    return "".join(f"\\U{lo:08x}" + (f"-\\U{hi:08x}" if hi > lo else "") for lo, hi in ranges)


def _octal(pattern: str, i: int) -> tuple[str, int] | None:
    """RE2's octal escape at pattern[i] (a backslash): \\0 with up to two more octal digits, or \\1-\\7 followed by
    one or two octal digits; None for \\1-\\9 alone (a backreference, which RE2 rejects) and \\8, \\9."""
    digits = ""
    for ch in pattern[i + 1:i + 4]:
        if ch not in "01234567":
            break
        digits += ch
    if not digits or (digits[0] != "0" and len(digits) < 2):
        return None
    return f"\\U{int(digits, 8):08x}", i + 1 + len(digits)


def re2_to_python(pattern: str) -> str:
    """An RE2 pattern as a Python re pattern of the same meaning. Translated: the Perl classes \\d \\s \\w and \\b
    (ASCII in RE2, Unicode in Python), [[:class:]] and [[:^class:]], octal escapes, \\x{...}, \\Q...\\E, \\z,
    (?<name>...). Rejected (ValueError): what RE2 rejects too (backreferences, lookaround, \\Z, repetition counts
    over 1000) and the RE2 features not translated (\\p{...} Unicode classes, \\C, the U flag)."""
    out: list[str] = []
    i, n, in_class = 0, len(pattern), False

    def reject(what: str) -> ValueError:
        return ValueError(f"pattern {pattern!r}: {what}")

    while i < n:
        c = pattern[i]
        if c == "\\" and i + 1 < n:
            e = pattern[i + 1]
            if e == "Q":  # \Q...\E: literal text
                end = pattern.find("\\E", i + 2)
                literal = pattern[i + 2:] if end < 0 else pattern[i + 2:end]
                out.append(re.escape(literal))
                i = n if end < 0 else end + 2
                continue
            if e.isdigit():
                octal = _octal(pattern, i)
                if octal is None:
                    raise reject(f"\\{e} is a backreference or an invalid escape, which RE2 rejects")
                out.append(octal[0])
                i = octal[1]
                continue
            if e == "x" and pattern.startswith("{", i + 2):
                end = pattern.find("}", i + 3)
                out.append(f"\\U{int(pattern[i + 3:end], 16):08x}")
                i = end + 1
                continue
            if e in _PERL:
                name, negate = _PERL[e]
                body = _class_body(_CLASSES[name], negate)
                out.append(body if in_class else f"[{body}]")
            elif e == "b" and not in_class:
                out.append(_BOUNDARY)
            elif e == "B" and not in_class:
                out.append(f"(?!{_BOUNDARY})")
            elif e == "z":
                out.append("\\Z")
            elif e in "ZCpPXRKgkN":
                raise reject(f"\\{e} is not RE2 syntax, or an RE2 feature the reference kernel does not translate")
            else:
                out.append(c + e)
            i += 2
            continue
        if in_class:
            if pattern.startswith("[:", i):
                end = pattern.find(":]", i + 2)
                name = pattern[i + 2:end] if end > 0 else ""
                negate = name.startswith("^")
                if name.lstrip("^") not in _CLASSES or name.lstrip("^") == "perl_space":
                    raise reject(f"[:{name}:] is not a POSIX class RE2 knows")
                out.append(_class_body(_CLASSES[name.lstrip("^")], negate))
                i = end + 2
                continue
            if c == "]":  # a leading ] was taken as literal when the class opened
                in_class = False
            elif c == "[":
                out.append("\\")  # a literal [ inside a class (Python would warn of a nested set)
            out.append(c)
            i += 1
            continue
        if c == "[":
            in_class = True
            negated = pattern.startswith("[^", i)
            out.append("[^" if negated else "[")
            i += 2 if negated else 1
            if i < n and pattern[i] == "]":  # a leading ] is literal
                out.append("\\]")
                i += 1
            continue
        if pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), i):
            raise reject("lookaround, which RE2 does not support")
        if pattern.startswith("(?<", i):
            out.append("(?P<")
            i += 3
            continue
        if pattern.startswith("(?", i):
            flags = re.match(r"\(\?([a-zA-Z-]*)[:)]", pattern[i:])
            if flags and "U" in flags.group(1):
                raise reject("the U (ungreedy) flag is not translated")
        if c == "{":
            counts = re.match(r"\{(\d*)(?:,(\d*))?\}", pattern[i:])
            if counts and any(g and int(g) > 1000 for g in counts.groups()):
                raise reject("a repetition count over 1000, which RE2 rejects")
        out.append(c)
        i += 1
    return "".join(out)


def regex_full_match(x: np.ndarray, *, pattern: str | None = None, Y_dtype: Any = None) -> np.ndarray:
    """ONNX RegexFullMatch: whether each element matches the RE2 pattern as a whole."""
    if pattern is None:
        raise ValueError("RegexFullMatch needs a pattern")
    try:
        regex = re.compile(re2_to_python(pattern))
    except re.error as exc:
        raise ValueError(f"invalid pattern {pattern!r}: {exc}") from None
    x = np.asarray(x, dtype=object)
    return np.array([regex.fullmatch(_text(s)) is not None for s in x.flat], dtype=bool).reshape(x.shape)


# ---- TfIdfVectorizer ----------------------------------------------------------------------------

def _pool_ngrams(pool: list[Any], ngram_counts: list[int]) -> dict[tuple[Any, ...], int]:
    """n-gram -> its position in the pool (counting n-grams): pool[ngram_counts[n-1]:ngram_counts[n]] holds the
    n-grams of length n, each as n consecutive items."""
    grams: dict[tuple[Any, ...], int] = {}
    bounds = list(ngram_counts) + [len(pool)]
    position = 0
    for n in range(1, len(ngram_counts) + 1):
        for at in range(bounds[n - 1], bounds[n], n):
            grams.setdefault(tuple(pool[at:at + n]), position)  # a repeated n-gram counts at its first place
            position += 1
    return grams


def tfidf_vectorizer(x: np.ndarray, *, max_gram_length: int, max_skip_count: int, min_gram_length: int, mode: str,
                     ngram_counts: list[int], ngram_indexes: list[int], pool_int64s: list[int] | None = None,
                     pool_strings: list[str] | None = None, weights: list[float] | None = None,
                     Y_dtype: Any = None) -> np.ndarray:
    """ONNX TfIdfVectorizer: for each row of x ([C] or [N, C]) the count of each pool n-gram of length
    min_gram_length..max_gram_length whose items lie skip + 1 apart for skip = 0..max_skip_count (a 1-gram
    counts once per position, whatever the skips), at output coordinate ngram_indexes[i]; then TF: the counts,
    IDF: min(count, 1) * weight, TFIDF: count * weight (weights default to 1). float32."""
    if mode not in ("TF", "IDF", "TFIDF"):
        raise ValueError(f"mode must be TF, IDF or TFIDF, got {mode!r}")
    x = np.asarray(x)
    strings = pool_strings is not None
    pool: list[Any] = [_text(s) for s in pool_strings or []] if strings else [int(v) for v in pool_int64s or []]
    grams = _pool_ngrams(pool, ngram_counts)
    rows = x.reshape(1, -1) if x.ndim == 1 else x
    width = max(ngram_indexes) + 1
    counts = np.zeros((rows.shape[0], len(ngram_indexes)), np.float64)
    for r, row in enumerate(rows):
        items = [_text(v) for v in row] if strings else [int(v) for v in row]
        for n in range(min_gram_length, max_gram_length + 1):
            for skip in range(max_skip_count + 1 if n > 1 else 1):
                step = skip + 1
                for start in range(len(items) - (n - 1) * step):
                    found = grams.get(tuple(items[start:start + (n - 1) * step + 1:step]))
                    if found is not None:
                        counts[r, found] += 1
    scale = np.ones(len(ngram_indexes)) if weights is None or mode == "TF" else np.asarray(weights, np.float64)
    values = (np.minimum(counts, 1) if mode == "IDF" else counts) * scale
    out = np.zeros((rows.shape[0], width), np.float64)
    for i, column in enumerate(ngram_indexes):
        out[:, column] += values[:, i]
    out = out.astype(np.float32)
    return out[0] if x.ndim == 1 else out
