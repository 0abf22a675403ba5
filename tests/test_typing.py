"""The generator's sources type-check under `mypy --strict` (configured in pyproject.toml)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_reports_no_errors(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "generator", "--cache-dir", str(tmp_path / "mypy-cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    assert result.returncode == 0, f"mypy --strict generator failed:\n{result.stdout}{result.stderr}"
    assert "Success: no issues found" in result.stdout, result.stdout
