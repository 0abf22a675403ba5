"""opgen: spec-driven code generation for machine-learning operator sets.

The command line is `opgen` (opgen.cli); the pipeline is opgen.parse -> opgen.check -> opgen.render.
`opgen.validate_model(path_or_model)` checks a model file against the specs and `opgen.run_model(model,
inputs)` runs it on the generated kernels (both imported on first use, so `import opgen` stays cheap).
"""
from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: `opgen build`'s no-op does not need it
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"
__all__ = ["validate_model", "run_model", "__version__"]


def __getattr__(name: str) -> Any:
    # Kept as module attributes once imported: `opgen.run_model(...)` in a loop would otherwise import
    # through this function on every call.
    if name == "validate_model":
        from .validate import validate_model

        globals()[name] = validate_model
        return validate_model
    if name == "run_model":
        from .run import run_model

        globals()[name] = run_model
        return run_model
    raise AttributeError(f"module 'opgen' has no attribute {name!r}")
