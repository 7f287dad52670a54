"""Reading the shipped models' JSON weights (no pickle): one place that says what a missing or
damaged file means and how to get it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kg.errors import ModelError

__all__ = ["read_weights"]


def read_weights(path: Path, what: str, script: str) -> dict[str, Any]:
    """A shipped model's JSON weights; an unreadable file is a :class:`ModelError` that says
    how to get it back.

    Args:
        path: The JSON file.
        what: What it holds, for the message ("the area model").
        script: The script that trains it ("bench/train_fields.py").
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(
            f"cannot read {what} {path}: {exc}; reinstall kg or retrain it with {script}"
        ) from exc
    if not isinstance(data, dict):
        raise ModelError(f"{path} is not {what}; reinstall kg or retrain it with {script}")
    return data
