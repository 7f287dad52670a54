"""The quoted outputs of the README and the manual are what the code prints today.

Every fenced block of README.md and of docs/**/*.md whose first line starts with ``$ `` (and
which names no language) is a transcript: each
command in it runs here and must print the lines quoted under it. kg's commands run through
click's runner, their progress lines left out (stdout and kg's own ``kg: `` lines on stderr
are what a transcript quotes); other commands (``grep``) run in a shell. In a quote, a line
``…`` stands for lines left out (those before it begin the output, those after it end it,
those between two come in that order), and ``…`` inside a line for the rest of the line or
a part of it; ``| head -N`` keeps the first N lines, and a line ``(N rows)`` right after the
block is the number of rows of the whole output. ``kg serve`` runs in the background on a free
port, shown as the default 7878, until the transcript ends.

The transcripts run on the seeds built with the real model (the session's ``seed_build``, the
build ``make run`` makes), from a directory where ``output/`` is that build and ``queries/``
the shipped queries; so do the analytics scripts (a ``python`` block followed by "On the seeds
it prints:" and the block it prints). The one transcript of ``kg build`` runs on the small input
written here (the page says what it holds) with the fake embedder: its counts are the real
model's on the page, so they are compared as numbers but not as values; every word and line is
compared as it is. A quote that no longer matches fails with what kg prints now, ready to paste.
"""

from __future__ import annotations

import csv
import io
import re
import shlex
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_analytics import readme_script

from kg.cli import cli

ROOT = Path(__file__).resolve().parents[1]
#: Every page that may quote kg: the README and the manual's pages, by path from the root.
PAGES = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
}
README = PAGES["README.md"]
#: The port kg serve's transcript shows (its default).
SHOWN_PORT = "7878"
_PROGRESS = re.compile(r"\[ *\d+\.\ds\] ")
_ROWS = re.compile(r"\((\d+) rows?\)")


@dataclass(frozen=True)
class Command:
    """One ``$`` line of a transcript and the lines quoted under it."""

    line: int  # in its page
    text: str
    quoted: tuple[str, ...]
    rows: int | None = None  # the "(N rows)" line after the block, for the last command
    page: str = "README.md"


@dataclass(frozen=True)
class Transcript:
    line: int
    commands: tuple[Command, ...]
    page: str = "README.md"

    @property
    def builds(self) -> bool:
        """Whether this is the transcript of ``kg build`` (on an input of its own)."""
        return self.commands[0].text.startswith("kg build")


def blocks(text: str = README) -> list[tuple[int, list[str], str]]:
    """Each fenced block without a language: its first line's number in the page, its lines,
    and the line after its closing fence."""
    lines = text.splitlines() + [""]
    found = []
    start: int | None = None
    language = ""
    for number, line in enumerate(lines, start=1):
        if not line.lstrip().startswith("```"):
            continue
        if start is None:
            start, language = number, line.lstrip()[3:].strip()
        else:
            if not language:
                found.append((start + 1, lines[start : number - 1], lines[number]))
            start = None
    return found


def transcripts(text: str = README, page: str = "README.md") -> list[Transcript]:
    """Every fenced block without a language whose first line is a ``$`` command."""
    found = []
    for start, lines, after in blocks(text):
        if not lines or not lines[0].startswith("$ "):
            continue
        commands: list[Command] = []
        i = 0
        while i < len(lines):
            at, command = i, lines[i][2:]
            while command.endswith("\\"):
                i += 1
                command = command[:-1] + lines[i].strip()
            i += 1
            quoted = []
            while i < len(lines) and not lines[i].startswith("$ "):
                quoted.append(lines[i])
                i += 1
            commands.append(Command(start + at, command, tuple(quoted), page=page))
        rows = _ROWS.fullmatch(after)
        if rows is not None:
            last = commands[-1]
            commands[-1] = Command(last.line, last.text, last.quoted, int(rows.group(1)), page)
        found.append(Transcript(start, tuple(commands), page))
    return found


def all_transcripts() -> list[Transcript]:
    """The transcripts of the README and of every page of the manual."""
    return [t for page, text in PAGES.items() for t in transcripts(text, page)]


def quoted_line(quote: str, line: str) -> bool:
    """Whether ``line`` is the quoted line, ``…`` inside it standing for any text."""
    if "…" not in quote:
        return line == quote
    pattern = ".*".join(re.escape(part) for part in re.split(r"\s*…", quote))
    return re.fullmatch(pattern, line) is not None


def check_quote(command: Command, output: list[str]) -> None:
    """The quoted lines are the output's, ``…`` lines standing for lines left out."""
    parts: list[list[str]] = [[]]
    for line in command.quoted:
        if line.strip() == "…":
            parts.append([])
        else:
            parts[-1].append(line)
    where = f"{command.page}:{command.line}: `$ {command.text}` prints\n" + "\n".join(output) + "\n"

    def at(part: list[str], i: int) -> bool:
        window = output[i : i + len(part)]
        return len(window) == len(part) and all(map(quoted_line, part, window))

    if len(parts) == 1:
        assert len(output) == len(parts[0]) and at(parts[0], 0), where + "not the quoted lines"
        return
    first, *middle, last = parts
    assert at(first, 0), where + "which does not begin as quoted"
    i = len(first)
    for part in middle:
        found = next((k for k in range(i, len(output)) if at(part, k)), None)
        assert found is not None, (
            where + "which lacks, after what comes before:\n" + "\n".join(part)
        )
        i = found + len(part)
    end = len(output) - len(last)
    assert end >= i and at(last, end), where + "which does not end as quoted"


class Shell:
    """Runs a transcript's commands in ``directory``, kg serve in the background."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = _free_port()
        self.servers: list[subprocess.Popen[str]] = []

    def run(self, command: str) -> list[str]:
        if not command.startswith("kg "):
            done = subprocess.run(
                command, shell=True, cwd=self.directory, capture_output=True, text=True
            )
            return (done.stdout + done.stderr).splitlines()
        words = shlex.split(command, comments=True)[1:]
        words, pipe = (words, []) if "|" not in words else _split(words)
        if words[0] == "serve":
            lines = self._serve(words)
        else:
            result = CliRunner().invoke(cli, words)
            if result.exception and not isinstance(result.exception, SystemExit):
                raise result.exception
            printed = [line.lstrip("\r") for line in result.output.removesuffix("\n").split("\n")]
            lines = [line for line in printed if not _PROGRESS.match(line)]
        if pipe:
            assert pipe[0] == "head" and re.fullmatch(r"-\d+", pipe[1]), f"cannot run | {pipe}"
            lines = lines[: int(pipe[1][1:])]
        return lines

    def rows(self, command: str) -> int:
        """The rows of the whole output of ``command`` (before ``| head``), as CSV."""
        words = shlex.split(command, comments=True)[1:]
        assert "--format" in words and words[words.index("--format") + 1] == "csv", command
        result = CliRunner().invoke(cli, _split(words)[0] if "|" in words else words)
        return len(list(csv.reader(io.StringIO(result.stdout)))) - 1  # and a header

    def _serve(self, words: list[str]) -> list[str]:
        """Start kg serve; its first line, or everything it printed if it stopped."""
        process = subprocess.Popen(
            [sys.executable, "-m", "kg.cli", *words, "--port", str(self.port)],
            cwd=self.directory,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.servers.append(process)
        assert process.stdout is not None
        first = process.stdout.readline()
        if process.poll() is not None or "serving" not in first:
            first += process.communicate(timeout=60)[0]
        return [line.replace(str(self.port), SHOWN_PORT) for line in first.splitlines()]

    def close(self) -> None:
        for process in self.servers:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
                process.communicate(timeout=60)


def _split(words: list[str]) -> tuple[list[str], list[str]]:
    bar = words.index("|")
    return words[:bar], words[bar + 1 :]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def check_transcript(transcript: Transcript, shell: Shell) -> None:
    try:
        for command in transcript.commands:
            check_quote(command, shell.run(command.text))
            if command.rows is not None:
                rows = shell.rows(command.text)
                assert rows == command.rows, (
                    f"{command.page}:{command.line}: `$ {command.text}` has {rows} rows, not "
                    f"{command.rows} as the line after its block says"
                )
    finally:
        shell.close()


SEED_TRANSCRIPTS = [t for t in all_transcripts() if not t.builds]
#: The line that introduces a script's quoted output, right after its ``python`` block.
PRINTS = "On the seeds it prints:"


@dataclass(frozen=True)
class Script:
    """A ``python`` block of a page, and the block under "On the seeds it prints:" after it."""

    page: str
    line: int  # of the quoted output
    code: str
    quoted: tuple[str, ...]


def scripts() -> list[Script]:
    found = []
    for page, text in PAGES.items():
        # a block of its own: the code holds no fence (an earlier block is not part of it)
        pattern = r"```python\n((?:(?!```).)*)```\s*\n" + re.escape(PRINTS) + r"\n"
        for match in re.finditer(pattern, text, re.S):
            line = text.count("\n", 0, match.end()) + 1
            start, quote, _ = next(b for b in blocks(text) if b[0] > line)
            found.append(Script(page, start, match.group(1), tuple(quote)))
    return found


def test_the_pages_have_a_transcript_of_each_command_they_quote():
    """The transcripts are found (a block the parser missed would go unchecked)."""
    commands = [c.text.split()[:2] for t in all_transcripts() for c in t.commands]
    for name in ("build", "query", "validate", "serve", "stats"):
        assert ["kg", name] in commands, f"no transcript of kg {name} in the README or docs/"
    assert ["kg", "query"] in [c.text.split()[:2] for t in transcripts() for c in t.commands]
    assert sum(1 for t in all_transcripts() if t.builds) == 1
    assert len(SEED_TRANSCRIPTS) >= 20
    assert {s.page for s in scripts()} >= {"README.md", "docs/how-to/analytics.md"}
    assert next(s for s in scripts() if s.page == "README.md").code == readme_script()


@pytest.fixture(scope="module")
def seeds_dir(seed_build, tmp_path_factory) -> Path:
    """A directory as after ``make run``: ``output/`` is the seed build, ``queries/`` kg's."""
    directory = tmp_path_factory.mktemp("readme")
    (directory / "output").symlink_to(seed_build.out)
    (directory / "queries").symlink_to(ROOT / "queries")
    return directory


@pytest.mark.model
@pytest.mark.timeout(900)
@pytest.mark.parametrize("transcript", SEED_TRANSCRIPTS, ids=lambda t: f"{t.page}:{t.line}")
def test_a_transcript_prints_what_the_page_quotes(transcript, seeds_dir, monkeypatch):
    monkeypatch.chdir(seeds_dir)
    check_transcript(transcript, Shell(seeds_dir))


@pytest.mark.model
@pytest.mark.parametrize("script", scripts(), ids=lambda s: f"{s.page}:{s.line}")
def test_an_analytics_script_prints_what_the_page_quotes(script, seeds_dir):
    run = subprocess.run(
        [sys.executable, "-c", script.code],
        cwd=seeds_dir,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    command = Command(script.line, "python (the script above it)", script.quoted, page=script.page)
    check_quote(command, run.stdout.splitlines())


#: The input the quoted build summary is of: two records of refs.bib without an abstract,
#: a copy in papers.jsonl of an abstract of refs.bib, a NUL and a lone surrogate.
BUILD_INPUTS = {
    "refs.bib": """\
@article{lora,
  title = {LoRA: Low-Rank Adaptation of Large Language Models},
  abstract = {Full fine-tuning of large language models is expensive. We propose Low-Rank
    Adaptation (LoRA), which freezes the pretrained model weights and injects trainable rank
    decomposition matrices into each layer of the Transformer architecture.},
  year = {2022},
}

@article{survey,
  title = {A Survey of Parameter-Efficient Fine-Tuning},
  year = {2024},
}

@inproceedings{dpo,
  title = {Direct Preference Optimization},
  abstract = {Aligning language models with human preferences is unstable. We introduce
    Direct Preference Optimization (DPO), which fine-tunes them without reinforcement learning.},
  year = {2023},
}

@misc{talk,
  title = {Keynote},
}
""",
    "papers.jsonl": "\n".join(
        [
            '{"id": "qlora", "abstract": "We address memory-efficient finetuning. We present'
            ' QLoRA, which finetunes quantized language models with low-rank adapters.\\u0000"}',
            '{"id": "lora-copy", "abstract": "Full fine-tuning of large language models is'
            " expensive. We propose Low-Rank Adaptation (LoRA), which freezes the pretrained"
            " model weights and injects trainable rank decomposition matrices into each layer of"
            ' the Transformer architecture."}',
            '{"id": "ppo", "abstract": "We address sample efficiency in policy gradient methods.'
            ' We propose Proximal Policy Optimization (PPO) \\ud800 with clipped objectives."}',
        ]
    )
    + "\n",
}


def numbers_as_n(lines: list[str] | tuple[str, ...]) -> list[str]:
    """Counts as N, and words without a plural "s" (a count of 1 says "edge", of 3 "edges")."""
    counted = (re.sub(r"\d[\d,.]*", "N", line) for line in lines)
    return [re.sub(r"(\w{3,})s\b", r"\1", line) for line in counted]


def test_the_build_summary_is_what_kg_build_prints(tmp_path, monkeypatch, fake_model):
    """Every word and line as quoted; the counts as numbers (the page's are the real model's)."""
    (transcript,) = [t for t in all_transcripts() if t.builds]
    (command,) = transcript.commands
    for name, content in BUILD_INPUTS.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    output = Shell(tmp_path).run(command.text)
    as_read = Command(
        command.line, command.text, tuple(numbers_as_n(command.quoted)), page=command.page
    )
    check_quote(as_read, numbers_as_n(output))
    # The locations and counts of what was skipped and cleaned are this input's.
    assert output[1:] == list(command.quoted[1:]), output


def test_the_matching_fails_on_a_changed_word_or_line():
    """The checks above can fail: a quote with a changed word, line or order does not match."""
    output = ["a b", "c", "d", "e", "(4 rows)"]
    good = Command(1, "x", ("a b", "…", "e", "(4 rows)"))
    check_quote(good, output)
    check_quote(Command(1, "x", ("a …", "c", "…", "(4 rows)")), output)
    for wrong in (("a c", "…", "(4 rows)"), ("a b", "…", "(5 rows)"), ("a b", "d", "…"),
                  ("…", "e", "c", "…"), ("a b", "c", "d", "e")):  # fmt: skip
        with pytest.raises(AssertionError):
            check_quote(Command(1, "x", wrong), output)
