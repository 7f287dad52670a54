"""kg's command line: thin commands over :mod:`kg.build`, :mod:`kg.query`, :mod:`kg.evaluate`.

The only package that prints or exits. Data goes to stdout; progress, warnings
and errors go to stderr. One module per group of commands:

- ``app``: the command group, errors and exit statuses, progress, ``main``;
- ``build``: ``kg build`` and ``kg view``;
- ``query``: the commands that read a built graph (``query``, ``validate``,
  ``serve``, ``stats``);
- ``eval``: ``kg eval``.
"""

from kg.cli import build, eval, query  # noqa: F401  (each registers its commands)
from kg.cli.app import INTERRUPTED, TERMINATED, UserError, cli, main

__all__ = ["main", "cli", "UserError", "INTERRUPTED", "TERMINATED"]
