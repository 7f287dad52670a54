"""Text as abstracts give it, made plain: LaTeX and markdown rendered, sentences split.

:func:`clean` is what extraction reads, :func:`sentences` splits it, and
:func:`normalise` is the key that says two abstracts are the same.
"""

from kg.text.clean import PTB, clean, normalise, sentences

__all__ = ["clean", "sentences", "normalise", "PTB"]
