"""Plots drawn at build time from the reference kernels themselves (`opgen_ops.get_kernel`): every
activation and every unary element-wise function with a formula gets its curve (activations also
their numerical derivative), and an op whose versions compute different curves gets a plot of the
versions side by side. SVGs are cached by a key of what they depend on, so rebuilds are quick."""
from __future__ import annotations

import hashlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import OpSpec, OpVersion

PLOTTED_CATEGORIES = ("activation", "elementwise_math")
X_RANGE = (-4.0, 4.0)
SAMPLES = 801
# Bump when the drawing code changes: it is part of every cache key.
STYLE_VERSION = "2"


@dataclass(frozen=True)
class OpPlots:
    function: str | None = None  # file name (in the plots folder) of f (and f' for activations)
    versions: str | None = None  # file name of the versions' curves, when they differ
    has_derivative: bool = False
    differing: tuple[int, ...] = ()  # the versions whose curves the versions plot shows


def plottable(v: OpVersion) -> bool:
    """One single input, a formula, a float type to draw in."""
    return (v.elementwise is not None and v.elementwise.fold is None and len(v.inputs) == 1
            and v.inputs[0].option == "single" and any(t in v.allowed_types(v.inputs[0])
                                                        for t in ("tensor(double)", "tensor(float)")))


def _curve(v: OpVersion, x: Any) -> Any | None:
    """The kernel's values over x, or None when it cannot be called with the defaults (a required
    attribute) or gives nothing finite."""
    import numpy as np

    import opgen_ops

    dtype = np.float64 if "tensor(double)" in v.allowed_types(v.inputs[0]) else np.float32
    try:
        kernel = opgen_ops.get_kernel(v.domain, v.op, v.since_version)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            y = np.asarray(kernel(x.astype(dtype))[0], dtype=np.float64)
    except Exception:  # noqa: BLE001 - an op the defaults cannot call is simply not plotted
        return None
    if y.shape != x.shape or not np.isfinite(y).any():
        return None
    return y


def _svg(draw: Any) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "opgen", "svg.fonttype": "none", "font.size": 10}):
        fig, ax = plt.subplots(figsize=(5.0, 3.2))
        fig.subplots_adjust(left=0.12, right=0.97, top=0.96, bottom=0.14)  # fixed: tight_layout is slow
        draw(ax)
        ax.axhline(0, color="#999", linewidth=0.6)
        ax.axvline(0, color="#999", linewidth=0.6)
        ax.grid(True, linewidth=0.3)
        ax.set_xlabel("x")
        ax.legend(loc="upper left", fontsize=9)  # "best" searches every point: slow
        out = io.StringIO()
        fig.savefig(out, format="svg", metadata={"Date": None})
        plt.close(fig)
    return out.getvalue()


class Plotter:
    """Draws into `folder` (the site's assets), reusing `cache` SVGs whose key has not changed."""

    def __init__(self, folder: Path, cache: Path, digest: str) -> None:
        self.folder, self.cache, self.digest = folder, cache, digest
        self.drawn = 0
        self.reused = 0

    def _emit(self, name: str, key_text: str, draw: Any) -> str:
        key = hashlib.sha256((self.digest + STYLE_VERSION + key_text).encode()).hexdigest()[:20]
        cached = self.cache / f"{key}.svg"
        if cached.exists():
            self.reused += 1
        else:
            self.cache.mkdir(parents=True, exist_ok=True)
            cached.write_text(_svg(draw), "utf-8")
            self.drawn += 1
        target = self.folder / f"{name}.svg"
        data = cached.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            self.folder.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        return target.name

    def plots(self, op: OpSpec, spec_text: str) -> OpPlots:
        if op.category not in PLOTTED_CATEGORIES:
            return OpPlots()
        import numpy as np

        x = np.linspace(*X_RANGE, SAMPLES)
        curves = {v.since_version: y for v in op.versions if plottable(v) and (y := _curve(v, x)) is not None}
        if not curves:
            return OpPlots()
        newest = max(curves)
        activation = op.category == "activation"
        base = f"{op.domain}-{op.name}"

        def draw_function(ax: Any) -> None:
            ax.plot(x, curves[newest], label=f"{op.name}(x)", linewidth=1.8)
            if activation:
                with np.errstate(all="ignore"):
                    ax.plot(x, np.gradient(curves[newest], x), "--", label=f"d{op.name}/dx", linewidth=1.2)

        function = self._emit(base, spec_text + base, draw_function)
        differing = _differing(curves)
        versions = None
        if len(differing) > 1:
            def draw_versions(ax: Any) -> None:
                # the differences from the newest of them: curves a few parts in 10^5 apart (Selu's
                # constants) would draw as one line
                last = differing[-1]
                for since in differing[:-1]:
                    ax.plot(x, curves[since] - curves[last], label=f"{op.name}-{since} − {op.name}-{last}",
                            linewidth=1.4)
            versions = self._emit(base + "-versions", spec_text + base + "versions", draw_versions)
        return OpPlots(function, versions, activation, tuple(differing))


def _differing(curves: dict[int, Any]) -> list[int]:
    """The versions (oldest first) whose curve differs from the version before it, with that version."""
    import numpy as np

    order = sorted(curves)
    keep: list[int] = []
    for older, newer in zip(order, order[1:]):
        a, b = curves[older], curves[newer]
        if not np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
            keep += [s for s in (older, newer) if s not in keep]
    return keep
