"""Text as abstracts give it, made plain: LaTeX and markdown rendered, sentences split.

:func:`clean` is what extraction reads, :func:`sentences` splits it, and
:func:`normalise` is the key that says two abstracts are the same.
:func:`printable` drops the characters no output file can carry and
:func:`latex_decoded` renders a BibTeX field.
"""

from kg.text.chars import REPLACED, latex_decoded, printable
from kg.text.clean import PTB, clean, normalise, sentences

__all__ = ["clean", "sentences", "normalise", "PTB", "printable", "latex_decoded", "REPLACED"]
