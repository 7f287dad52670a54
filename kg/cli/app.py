"""The ``kg`` command group, how it reports errors and progress, and its entry point.

A user mistake is one line of explanation and a documented exit status
(docs/reference/cli.md, "Exit status"), never a traceback; Ctrl-C and SIGTERM say whether the
previous output was left as it was.
"""

from __future__ import annotations

import math
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click

from kg import defaults
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


class ProgressLine:
    """One stderr line per stage: a bar, the count and the time left, redrawn on a clock.

    On a terminal the line overwrites itself and is redrawn every ``refresh``
    seconds even when no count moved, so a long step never looks frozen. In a
    log (stderr not a TTY) a new line is written at each tenth of a stage and
    at least every ``heartbeat`` seconds while it runs. The time left is what
    remains at the rate since the stage's first count, which leaves out the
    model load before it and the papers found in the cache at once. Reading
    the input shows only once it has taken that long (a second on a terminal,
    10 s in a log): reading is quick for most inputs, and an input error found
    while reading stays the only line.
    """

    def __init__(
        self, meta: dict[str, Any] | None = None, refresh: float = 1.0, heartbeat: float = 10.0
    ) -> None:
        self.tty = sys.stderr.isatty()
        self.start = time.monotonic()
        self.meta = meta if meta is not None else {}
        self.interval = refresh if self.tty else heartbeat
        self._stage: _Stage | None = None
        self._drawn = (0.0, "", -1)  # when, stage, tenth of the last line
        self._width = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._clock: threading.Thread | None = None

    def __call__(self, stage: str, done: int, total: int) -> None:
        if stage == "written":
            self.meta["kg.written"] = True
            return
        with self._lock:
            now = time.monotonic()
            current = self._stage
            if current is None or (current.name, current.total) != (stage, total):
                # Same name, new total: the stage's count became known; it began before.
                begun = current.begun if current is not None and current.name == stage else now
                current = self._stage = _Stage(stage, total, begun)
            current.count(done, now)
            when, name, tenth = self._drawn
            new_tenth = 10 * done // total if total > 1 else -1
            changed = (name, tenth) != (stage, new_tenth) or done == total
            due = changed or now - when >= self.interval or (self.tty and now - when >= 0.1)
            if due and self._shown(now):
                self._draw(now)
        if self._clock is None:
            self._clock = threading.Thread(target=self._tick, name="kg-progress", daemon=True)
            self._clock.start()

    def line(self, now: float | None = None) -> str:
        """The current line, without the carriage return."""
        now = time.monotonic() if now is None else now
        stage = self._stage
        msg = "" if stage is None else stage.message(now)
        return f"[{now - self.start:6.1f}s] {msg}"

    def close(self) -> None:
        self._stop.set()
        if self._clock is not None:
            self._clock.join()
        if self.tty and self._drawn[1]:
            click.echo("", err=True)

    def _shown(self, now: float) -> bool:
        """Whether the stage's line may be drawn: reading only once it has taken a while."""
        stage = self._stage
        return stage is not None and (
            stage.name not in _SHOWN_LATE or now - stage.begun >= self.interval
        )

    def _draw(self, now: float) -> None:
        stage = self._stage
        assert stage is not None
        text = self.line(now)
        if self.tty:  # cover what a longer line before left
            text, self._width = text.ljust(self._width), len(text)
        click.echo("\r" + text + ("" if self.tty else "\n"), err=True, nl=False)
        tenth = 10 * stage.done // stage.total if stage.total > 1 else -1
        self._drawn = (now, stage.name, tenth)

    def _tick(self) -> None:
        while not self._stop.wait(self.interval / 4):
            with self._lock:
                now = time.monotonic()
                stage = self._stage
                unfinished = stage is not None and (stage.total <= 1 or stage.done < stage.total)
                if unfinished and now - self._drawn[0] >= self.interval and self._shown(now):
                    self._draw(now)


#: Characters of the progress bar.
_BAR = 20
#: What a stage counts, where it does not count papers.
_UNITS = {"reading": "records", "validating": "focus nodes"}
#: Stages whose line shows only once they have taken a while.
_SHOWN_LATE = frozenset({"reading"})


class _Stage:
    """A stage's count and the rate since its first count, for the time left."""

    def __init__(self, name: str, total: int, begun: float) -> None:
        self.name = name
        self.total = total
        self.begun = begun
        self.done = 0
        self.first: tuple[float, int] | None = None  # when the first count came, and it
        self.left: tuple[float, float] | None = None  # when estimated, seconds left then

    def count(self, done: int, now: float) -> None:
        self.done = done
        if self.first is None:
            if done > 0:
                self.first = (now, done)
            return
        since, base = self.first
        if done > base and now > since:
            rate = (done - base) / (now - since)
            self.left = (now, (self.total - done) / rate)

    def message(self, now: float) -> str:
        if self.total <= 1:
            return f"{self.name}…"
        unit = _UNITS.get(self.name, "papers")
        full = _BAR * min(self.done, self.total) // self.total
        msg = f"{self.name} [{'#' * full}{'-' * (_BAR - full)}] {self.done:,}/{self.total:,} {unit}"
        if self.left is not None and self.done < self.total:
            when, left = self.left
            msg += f", about {_duration(max(left - (now - when), 0))} left"
        return msg


def _duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``3 h 05 min``: as precise as a rate-based estimate is."""
    if seconds < 90:
        return f"{max(round(seconds), 1)} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


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
        default=defaults.OUT_DIR,
        show_default=True,
        type=click.Path(path_type=Path),
        help=help,
    )


def graph_argument(metavar: str) -> Any:
    """The built graph a reading command opens, default ``output``."""
    return click.argument(
        "graph_path",
        metavar=f"[{metavar}]",
        default=defaults.OUT_DIR,
        type=click.Path(path_type=Path),
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
