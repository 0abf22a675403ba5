"""The checker's memo of node verdicts, shared by every check against one registry.

A node's verdict (its problems, and the descriptions the specs give its outputs) depends only on the
op version, the attributes and the dtype, shape and value of each input and output: not on the model
it sits in, its name, or the check that asks. So the verdicts found by one check answer the next one:
`opgen run` called again on a model (or on another model built of the same uses) checks every node,
and finds each verdict again by a dictionary lookup instead of the node's validator and shape rules.

The memo lives on the registry (the generated package's registry lives as long as the process; a
`--specs` registry, and its memo, as long as the call that made it). It is bounded: a check that starts
when it holds more than MAX_VERDICTS verdicts gets a fresh memo (a check in progress keeps the one it
started with, whose numbering its keys use), and so does one that starts when the values its keys and
answers hold pass MAX_VALUE_BYTES. Attributes of more than 64 KiB (a Constant holding a large
tensor: opgen.graph.small_key) are not kept: the memo would hold the file's data alive.
"""
from __future__ import annotations

import threading
from typing import Any

import numpy as np

from ..runtime.validation import TensorInfo

MAX_VERDICTS = 200_000
MAX_VALUE_BYTES = 1 << 26  # 64 MiB of values held by keys (values_key) and answers (folded outputs)
_SMALL_VALUE = 4096  # elements: larger values (never kept by the readers' defaults) are not keyed


def info_key(info: TensorInfo) -> tuple[Any, ...]:
    """What a cache key holds of a value's description: dtype, shape and whether a value is known
    (the value itself is keyed only when an answer depended on it: values_key)."""
    return (info.dtype, info.shape, info.value is None)


def values_key(infos: list[Any], outs: list[Any]) -> tuple[Any, ...] | None:
    """The values of a node's inputs and outputs as a cache key holds them: the dtype and bytes of each
    small numeric array, None where no value is known; None (no key) for any other value."""
    parts: list[Any] = []
    for info in (*infos, *outs):
        value = None if info is None else info.value
        if value is None:
            parts.append(None)
        elif type(value) is np.ndarray and value.dtype != object and value.size <= _SMALL_VALUE:
            parts.append((value.dtype.str, value.shape, value.tobytes()))
        else:
            return None
    return tuple(parts)


class VerdictMemo:
    """Verdicts by key, and the numbering of value descriptions the keys use.

    Each distinct value description (info_key) gets a number and the keys hold the numbers (small ints
    hash at once, tuples of tuples do not); complete[n]: description n tells dtype and shape; shapes
    interns the descriptions the specs make (dtype, shape) -> TensorInfo."""

    def __init__(self) -> None:
        self.verdicts: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.serials: dict[tuple[Any, ...], int] = {}
        self.complete: list[bool] = []
        self.shapes: dict[tuple[Any, ...], TensorInfo] = {}
        self.value_bytes = 0  # what the kept keys' values and answers' folded outputs hold (about)
        self._lock = threading.Lock()  # two checks in two threads never give one number to two descriptions

    def serial(self, key: tuple[Any, ...]) -> int:
        found = self.serials.get(key)
        if found is None:
            with self._lock:
                found = self.serials.get(key)
                if found is None:
                    self.complete.append(key[0] is not None and key[1] is not None)
                    found = self.serials[key] = len(self.complete) - 1
        return found

    def intern(self, dtype: str | None, shape: tuple[Any, ...] | None) -> TensorInfo:
        key = (dtype, shape)
        info = self.shapes.get(key)
        if info is None:
            info = self.shapes.setdefault(key, TensorInfo(dtype, shape))
        return info

    def count(self, values: tuple[Any, ...] | None, answer: tuple[Any, ...]) -> None:
        """Add what a kept verdict holds of values: its key's value bytes and its outputs' values."""
        held = 0
        for part in values or ():
            if part is not None:
                held += len(part[2])
        for made in answer[1]:
            if made is not None and type(made[0].value) is np.ndarray:
                held += made[0].value.nbytes
        self.value_bytes += held

    def full(self) -> bool:
        return len(self.verdicts) > MAX_VERDICTS or len(self.complete) > MAX_VERDICTS or \
            self.value_bytes > MAX_VALUE_BYTES


def memo_for(owner: Any) -> VerdictMemo:
    """The memo a check starts with: the owner's (a registry's), or a fresh one when it is full."""
    memo: VerdictMemo | None = getattr(owner, "verdict_memo", None)
    if memo is None or memo.full():
        memo = VerdictMemo()
        owner.verdict_memo = memo
    return memo
