"""Ops of ONNX's ai.onnx.ml domain: ArrayFeatureExtractor, Binarizer, LabelEncoder and TreeEnsemble.

Strings are object arrays of Python str, as the runtime holds every string tensor.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .special_functions import erf_inv


def array_feature_extractor(X: np.ndarray, Y: np.ndarray) -> np.ndarray:
    """Z[..., j] = X[..., Y.flat[j]]: the leading axes kept, the last one indexed. A vector X gives one
    row, as onnxruntime (the operator's own runtime) and onnx.reference read the schema."""
    positions = np.asarray(Y, dtype=np.int64).reshape(-1)
    width = X.shape[-1]
    if positions.size and (positions.min() < 0 or positions.max() >= width):
        raise IndexError(f"positions {positions.tolist()} are out of range for a last axis of {width}")
    picked = np.take(X, positions, axis=-1)
    return picked.reshape(1, positions.size) if X.ndim == 1 else picked


def binarizer(X: np.ndarray, *, threshold: float = 0.0) -> np.ndarray:
    """1 where X > threshold, else 0, in X's type (NaN compares false and gives 0)."""
    return (X > threshold).astype(X.dtype)


# The output types of the values_* list attributes: ONNX stores floats as float32.
_LIST_TYPES = {"floats": np.float32, "int64s": np.int64, "strings": object}


def _first_given(kind: str, given: dict[str, Any]) -> tuple[str, Any]:
    chosen = [(suffix, value) for suffix, value in given.items() if value is not None]
    if len(chosen) != 1:
        raise ValueError(f"exactly one {kind}_* attribute must be given, found {len(chosen)}")
    return chosen[0]


def _key(value: Any) -> Any:
    """A dictionary key under which every NaN is one key (NaN keys match any NaN element)."""
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value


def label_encoder(X: np.ndarray, *, default_float: float = -0.0, default_int64: int = -1,
                  default_string: str = "_Unused", default_tensor: np.ndarray | None = None,
                  keys_floats: Sequence[float] | None = None, keys_int64s: Sequence[int] | None = None,
                  keys_strings: Sequence[str] | None = None, keys_tensor: np.ndarray | None = None,
                  values_floats: Sequence[float] | None = None, values_int64s: Sequence[int] | None = None,
                  values_strings: Sequence[str] | None = None,
                  values_tensor: np.ndarray | None = None, Y_dtype: str | None = None) -> np.ndarray:
    """LabelEncoder 2 and 4: the i-th key maps to the i-th value; other elements get the default of
    the values' type. Of repeated keys the last one counts (a dict built in order). Y_dtype (the
    output's declared type, which the inputs do not decide) is not needed: the values' type is Y's."""
    _, keys = _first_given("keys", {"floats": keys_floats, "int64s": keys_int64s, "strings": keys_strings,
                                    "tensor": keys_tensor})
    kind, values = _first_given("values", {"floats": values_floats, "int64s": values_int64s,
                                           "strings": values_strings, "tensor": values_tensor})
    keys, values = list(np.asarray(keys).reshape(-1).tolist()), list(np.asarray(values).reshape(-1).tolist())
    if len(keys) != len(values):
        raise ValueError(f"{len(keys)} keys but {len(values)} values: they must pair up")
    if kind == "tensor":
        dtype: Any = np.asarray(values_tensor).dtype
        if default_tensor is not None:
            default: Any = np.asarray(default_tensor).reshape(-1)[0].item()
        else:  # the schema's defaults by type: "_Unused", -1, -0.0
            default = "_Unused" if dtype.kind in "OUS" else -1 if dtype.kind in "iu" else -0.0
        if dtype.kind in "US":
            dtype = object
    else:
        dtype = _LIST_TYPES[kind]
        default = {"floats": default_float, "int64s": default_int64, "strings": default_string}[kind]
    table = {_key(k): v for k, v in zip(keys, values)}
    flat = [table.get(_key(x), default) for x in np.asarray(X).reshape(-1).tolist()]
    return np.array(flat, dtype=dtype).reshape(np.shape(X))


def label_encoder_v1(X: np.ndarray, *, classes_strings: Sequence[str] | None = None, default_int64: int = -1,
                     default_string: str = "_Unused", Y_dtype: str | None = None) -> np.ndarray:
    """LabelEncoder 1: strings to their positions in classes_strings, or positions to strings (the
    input's type decides the direction, and so Y's type: Y_dtype is not needed)."""
    classes = list(classes_strings or [])
    flat = np.asarray(X).reshape(-1).tolist()
    if np.asarray(X).dtype.kind in "OUS":
        position = {s: k for k, s in reversed(list(enumerate(classes)))}  # the first occurrence counts
        return np.array([position.get(s, default_int64) for s in flat], dtype=np.int64).reshape(np.shape(X))
    out = [classes[k] if 0 <= k < len(classes) else default_string for k in flat]
    return np.array(out, dtype=object).reshape(np.shape(X))


# TreeEnsemble's node modes (nodes_modes) as comparisons of a feature with the node's split.
_COMPARISONS = {0: np.less_equal, 1: np.less, 2: np.greater_equal, 3: np.greater, 4: np.equal, 5: np.not_equal}
_MEMBER = 6


def _membership_sets(modes: np.ndarray, members: np.ndarray | None) -> dict[int, set[float]]:
    """The set of each membership node: membership_values lists them in node order, each ended by NaN."""
    sets: dict[int, set[float]] = {}
    pending = np.asarray([] if members is None else members, dtype=np.float64).reshape(-1).tolist()
    for node in np.flatnonzero(modes == _MEMBER).tolist():
        end = next((k for k, v in enumerate(pending) if math.isnan(v)), None)
        if end is None:
            raise ValueError("membership_values holds fewer NaN-ended sets than there are membership nodes")
        sets[node], pending = set(pending[:end]), pending[end + 1:]
    return sets


def _post_transform(scores: np.ndarray, post_transform: int) -> np.ndarray:
    """The row transform: none, softmax, logistic, softmax over the non-zero scores, probit."""
    if post_transform == 0:
        return scores
    if post_transform in (1, 3):
        keep = np.ones_like(scores, dtype=bool) if post_transform == 1 else scores != 0
        shifted = np.where(keep, scores - np.max(np.where(keep, scores, -np.inf), axis=1, keepdims=True), -np.inf)
        exp = np.where(keep, np.exp(shifted), 0.0)
        total = exp.sum(axis=1, keepdims=True)
        return np.divide(exp, total, out=np.zeros_like(exp), where=total > 0)
    if post_transform == 2:
        return 1.0 / (1.0 + np.exp(-scores))
    if post_transform == 4:  # the normal distribution's quantile function
        return np.sqrt(2.0) * erf_inv(2.0 * scores - 1.0)
    raise ValueError(f"post_transform {post_transform} is not one of 0-4")


def tree_ensemble(X: np.ndarray, *, tree_roots: Sequence[int], nodes_featureids: Sequence[int],
                  nodes_splits: np.ndarray, nodes_modes: np.ndarray, nodes_truenodeids: Sequence[int],
                  nodes_falsenodeids: Sequence[int], nodes_trueleafs: Sequence[int],
                  nodes_falseleafs: Sequence[int], leaf_targetids: Sequence[int], leaf_weights: np.ndarray,
                  n_targets: int, aggregate_function: int = 1, post_transform: int = 0,
                  nodes_hitrates: np.ndarray | None = None,
                  nodes_missing_value_tracks_true: Sequence[int] | None = None,
                  membership_values: np.ndarray | None = None) -> np.ndarray:
    """Each row walks every tree from its root to one leaf; the leaves' weights aggregate per target
    (average, sum, min, max), then post_transform. Computed in float64, rounded once to X's type.
    A target no leaf of a row reaches scores 0 whatever the aggregation, as in onnxruntime (the schema
    does not say; onnx.reference leaves min's and max's starting values, the largest finite floats)."""
    del nodes_hitrates  # a performance hint only
    modes = np.asarray(nodes_modes).reshape(-1).astype(np.int64)
    splits = np.asarray(nodes_splits, dtype=np.float64).reshape(-1)
    weights = np.asarray(leaf_weights, dtype=np.float64).reshape(-1)
    nan_true = list(nodes_missing_value_tracks_true or [0] * len(modes))
    sets = _membership_sets(modes, membership_values)

    def goes_true(node: int, value: float) -> bool:
        if math.isnan(value) and nan_true[node]:
            return True
        if modes[node] == _MEMBER:
            return value in sets[node]
        return bool(_COMPARISONS[int(modes[node])](value, splits[node]))

    def leaf_of(row: np.ndarray, root: int) -> int:
        node = root
        for _ in range(len(modes) + 1):  # a walk longer than the node count has met a cycle
            true = goes_true(node, float(row[nodes_featureids[node]]))
            target = (nodes_truenodeids if true else nodes_falsenodeids)[node]
            if (nodes_trueleafs if true else nodes_falseleafs)[node]:
                return int(target)
            node = int(target)
        raise ValueError(f"the tree rooted at node {root} has a cycle")

    data = np.asarray(X, dtype=np.float64)
    start = {0: 0.0, 1: 0.0, 2: np.inf, 3: -np.inf}[aggregate_function]
    scores = np.full((data.shape[0], n_targets), start)
    reached = np.zeros(scores.shape, dtype=bool)
    for r, row in enumerate(data):
        for root in tree_roots:
            leaf = leaf_of(row, int(root))
            target, weight = int(leaf_targetids[leaf]), weights[leaf]
            reached[r, target] = True
            if aggregate_function == 2:
                scores[r, target] = min(scores[r, target], weight)
            elif aggregate_function == 3:
                scores[r, target] = max(scores[r, target], weight)
            else:
                scores[r, target] += weight
    if aggregate_function == 0:
        scores /= max(1, len(tree_roots))
    scores[~reached] = 0.0
    return _post_transform(scores, post_transform).astype(X.dtype)
