"""`opgen validate`: check real model files (ONNX, oneDNN Graph JSON, hlir graphs) against the specs,
through the generated validators.

    >>> from opgen.validate import validate_model
    >>> report = validate_model("model.onnx")
    >>> report.valid, report.summary()
    >>> for record in report.problems: print(record)
"""
from __future__ import annotations

from .api import read_model, validate_model
from .limits import Limits, ModelReadError
from .report import Record, Report

__all__ = ["validate_model", "read_model", "Report", "Record", "ModelReadError", "Limits"]
