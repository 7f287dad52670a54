"""The ``kg`` command group, how it reports errors and progress, and its entry point.

A user mistake is one line of explanation and a documented exit status
(README, "Exit status"), never a traceback; Ctrl-C and SIGTERM say whether the
previous output was left as it was.
"""

from __future__ import annotations

import math
import signal
import sys
import time
from pathlib import Path
from typing import Any

import click

from kg.errors import KGError

#: Exit status of a run stopped by Ctrl-C (128 + SIGINT), as shells report it.
INTERRUPTED = 130
#: Exit status of a run stopped by SIGTERM (128 + 15).
TERMINATED = 143


class UserError(click.ClickException):
    """A :class:`~kg.errors.KGError` at the command line: one line on stderr."""

    def __init__(self, message: str, exit_code: int = 1) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]  # click reads it per instance

    def show(self, file: Any = None) -> None:
        click.echo(f"kg: error: {self.message}", err=True)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised like Ctrl-C so that the same clean-up runs."""


class _Interrupted(click.ClickException):
    def __init__(self, message: str, exit_code: int) -> None:
        super().__init__(message)
        self.exit_code = exit_code  # type: ignore[misc]

    def show(self, file: Any = None) -> None:
        click.echo(f"\nkg: {self.message}", err=True)


class _Group(click.Group):
    """Turns kg's errors into click's, so they print the same however the CLI is run."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KGError as exc:
            raise UserError(str(exc), exc.exit_code) from exc
        except (KeyboardInterrupt, click.exceptions.Abort) as exc:
            how = "terminated" if isinstance(exc, _Terminated) else "interrupted"
            code = TERMINATED if isinstance(exc, _Terminated) else INTERRUPTED
            written = ctx.meta.get("kg.written")
            if written is None:
                state = ""
            elif written:
                state = "; the new output had already been written in full"
            else:
                state = "; the previous output is left exactly as it was"
            raise _Interrupted(how + state, code) from exc


class Progress:
    """One self-overwriting stderr line per stage (plain lines when not a TTY)."""

    def __init__(self, meta: dict[str, Any] | None = None) -> None:
        self.tty = sys.stderr.isatty()
        self.last = ("", -1)
        self.start = time.monotonic()
        self.meta = meta if meta is not None else {}

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "written":
            self.meta["kg.written"] = True
            return
        if total > 1:
            pct = 100 * done // total
            if (stage, pct // 10) == self.last and done != total:
                return
            self.last = (stage, pct // 10)
            unit = "focus nodes" if stage == "validating" else "papers"
            msg = f"{stage}: {done:,}/{total:,} {unit}"
        else:
            msg = f"{stage}…"
        elapsed = time.monotonic() - self.start
        click.echo(f"\r[{elapsed:6.1f}s] {msg}" + ("" if self.tty else "\n"), err=True, nl=False)

    def close(self) -> None:
        if self.tty:
            click.echo("", err=True)


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds, 0 or more (nan, inf and -1 are mistakes)."""

    name = "seconds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not math.isfinite(seconds) or seconds < 0:
            option = param.opts[0] if param is not None and param.opts else "the value"
            raise UserError(
                f"{option} {value}: expected a finite number of seconds, 0 or more (0: no limit)",
                2,
            )
        return seconds


#: The click type of every time limit (``kg query --timeout``, ``kg serve --timeout``).
SECONDS = _Seconds()


def out_option(help: str) -> Any:
    """``--out DIR``, the build directory, default ``output``."""
    return click.option(
        "--out",
        "out_dir",
        default="output",
        show_default=True,
        type=click.Path(path_type=Path),
        help=help,
    )


def graph_argument(metavar: str) -> Any:
    """The built graph a reading command opens, default ``output``."""
    return click.argument(
        "graph_path", metavar=f"[{metavar}]", default="output", type=click.Path(path_type=Path)
    )


def taxonomy_option() -> Any:
    return click.option(
        "--taxonomy",
        type=click.Path(path_type=Path),
        default=None,
        help="SKOS field taxonomy (Turtle); default: ontology/fields.ttl.",
    )


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="kg")
def cli() -> None:
    """Build knowledge graphs of research papers and query them."""


def _terminate(signum: int, frame: Any) -> None:
    raise _Terminated()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``kg`` command: SIGTERM stops a build as cleanly as Ctrl-C."""
    signal.signal(signal.SIGTERM, _terminate)
    cli.main(args=argv, prog_name="kg")
