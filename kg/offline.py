"""Keep the model libraries off the network: kg never contacts a model hub."""

from __future__ import annotations

import os

__all__ = ["offline"]


def offline() -> None:
    """Switch the model libraries offline (``kg/__init__.py`` calls this first thing).

    huggingface_hub reads these variables when it is imported, so they must be
    set before anything imports it; no code path then tries the network, even
    for a missing optional file.
    """
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HF_DATASETS_OFFLINE"):
        os.environ[var] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # kg reports its own progress; the libraries' bars would only clutter stderr.
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
