"""Run a kg command or a bench script with the model's linear layers quantised to int8.

    .venv/bin/python bench/int8.py eval ../shared/data/scierc_dev.jsonl
    .venv/bin/python bench/int8.py bench/links_cv.py
    .venv/bin/python bench/int8.py bench/train_fields.py --out /tmp/area_int8.json

The pinned all-MiniLM-L6-v2 is loaded and hash-checked as kg always loads it, then every
``torch.nn.Linear`` is replaced by torch's dynamically quantised int8 version
(``quantize_dynamic``). It measures what int8 would cost in quality and gain in speed; kg
itself never runs it (see "Where the time goes" in docs/explanation/performance.md for why).
"""

from __future__ import annotations

import runpy
import sys
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import kg.extract.embed as embed  # noqa: E402

_load = embed.MiniLM.model.fget


def _quantised(self: embed.MiniLM) -> Any:
    if self._model is None:
        import torch

        model = _load(self)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's notice that this API moves to torchao
            self._model = torch.ao.quantization.quantize_dynamic(
                model, {torch.nn.Linear}, dtype=torch.qint8
            )
    return self._model


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    embed.MiniLM.model = property(_quantised)  # type: ignore[method-assign]
    target, rest = sys.argv[1], sys.argv[2:]
    if target.endswith(".py"):
        sys.argv = [target, *rest]
        runpy.run_path(target, run_name="__main__")
    else:
        from kg.cli.app import main as kg

        sys.argv = ["kg", target, *rest]
        kg()


if __name__ == "__main__":
    main()
