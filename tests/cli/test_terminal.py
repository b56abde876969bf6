"""What the terminal can show: width, colour, glyphs; lines wrapped under their tree branch; tables fitted."""

from __future__ import annotations

import io
import time

import pytest

from workloadmap.cli.printing import output, terminal
from workloadmap.cli.printing.terminal import Terminal, fit, fit_line, paint, plain_glyphs, progress


class _Stream(io.StringIO):
    def __init__(self, tty: bool, encoding: str = "utf-8") -> None:
        super().__init__()
        self._tty = tty
        self._encoding = encoding

    def isatty(self) -> bool:
        return self._tty

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self._encoding


@pytest.mark.parametrize(
    ("tty", "environ", "width", "color"),
    [
        (False, {}, None, False),  # piped: whole lines for grep, no colour
        (False, {"COLUMNS": "80"}, 80, False),
        (True, {"COLUMNS": "100"}, 100, True),
        (True, {"COLUMNS": "100", "NO_COLOR": "1"}, 100, False),  # https://no-color.org
        (True, {"COLUMNS": "100", "NO_COLOR": ""}, 100, True),  # set but empty does not count
        (True, {"COLUMNS": "100", "TERM": "dumb"}, 100, False),
        (True, {"COLUMNS": "junk"}, None, True),  # a StringIO has no real size
    ],
)
def test_terminal_width_and_colour(tty, environ, width, color):
    screen = Terminal.of(_Stream(tty), environ)
    assert (screen.width, screen.color) == (width, color)


def test_glyphs_fall_back_to_ascii_when_the_encoding_lacks_them():
    assert Terminal.of(_Stream(False, "utf-8"), {}).unicode
    assert not Terminal.of(_Stream(False, "ascii"), {}).unicode
    assert not Terminal.of(_Stream(False, "latin-1"), {}).unicode
    assert plain_glyphs("├── a\n│   └── b …") == "|-- a\n|   `-- b ..."


TREE = [
    "JobSet/x  a header long enough to wrap once it meets a narrow terminal of forty columns",
    "├── leader  replicas 1  = 1 pod  4 GPU/pod, 4 GPUs  cpu 8 memory 64Gi per pod",
    "│   └── sub  minMember 1 of 1 pod  required accelerator.topograph.run/domain",
    "└── workers  replicas 1 x 2 pods  = 2 pods  4 GPU/pod, 8 GPUs",
    "  llm-train  minMember 3 of 3 pods and a reason that goes on and on and on",
]


@pytest.mark.parametrize("width", [40, 60, 80])
def test_fitted_lines_stay_within_the_width_and_lose_nothing(width):
    fitted = fit("\n".join(TREE), width)
    assert all(len(line) <= width for line in fitted.split("\n"))

    def letters(text: str) -> str:
        return "".join(char for char in text if char not in " │├└─\n")

    assert letters(fitted) == letters("\n".join(TREE))


def test_a_wrapped_tree_line_continues_under_its_branch():
    lines = fit_line(TREE[1], 40, following=TREE[2])
    assert lines[0].startswith("├── leader")
    # the node has a child below: the bar runs on from the child's column; the sibling bar stays
    assert all(line.startswith("│   │ ") for line in lines[1:])
    last = fit_line(TREE[3], 40, following=TREE[4])
    assert last[0].startswith("└── workers") and all(line.startswith("      ") for line in last[1:])
    plain = fit_line(TREE[4], 40)
    assert all(line.startswith("      ") for line in plain[1:])  # hanging indent below an indented item


def test_names_are_never_split_at_hyphens():
    line = "└── group: candidates node-001-01 node-001-02 node-001-03 node-001-04 node-001-05"
    words = " ".join(fit_line(line, 30)).split()
    assert "node-001-03" in words and "node-001-05" in words


def test_narrow_or_unknown_widths_leave_lines_alone():
    assert fit("x" * 200, None) == "x" * 200
    assert fit_line("x " * 50, 10) == ["x " * 50]  # below 20 columns wrapping does more harm than good


def test_paint_colours_verdicts_phases_and_glyphs():
    painted = paint("JobSet/x on c: DOES NOT FIT\n└── g (1 pod): fits; phase Running\nwarning: w")
    assert "\033[31mDOES NOT FIT\033[0m" in painted
    assert "\033[32mfits\033[0m" in painted and "\033[32mRunning\033[0m" in painted
    assert "\033[2m└── \033[0m" in painted
    assert "\033[33mwarning:\033[0m" in painted


def test_tables_fit_the_width_by_shortening_cells(monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    rows = [["a-rather-long-name-indeed", "Running", "x" * 60], ["b", "Failed", "short"]]
    text = output.table(["NAME", "PHASE", "MESSAGE"], rows, free_text_last=True)
    assert all(len(line) <= 40 for line in text.splitlines())
    assert "…" in text  # what was cut says so
    whole = output.table(["NAME", "PHASE", "MESSAGE"], rows, free_text_last=True, fit=False)
    assert "x" * 60 in whole and "a-rather-long-name-indeed" in whole
    monkeypatch.delenv("COLUMNS")
    assert output.table(["NAME"], [["n" * 300]]) == "NAME\n" + "n" * 300 + "\n"  # piped: never cut


def test_human_output_is_fitted_and_ascii_on_a_latin1_stream(monkeypatch):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="latin-1")
    monkeypatch.setattr("sys.stdout", stream)
    monkeypatch.setenv("COLUMNS", "30")
    output.human("├── a label long enough to be wrapped twice over here\n└── done — ✓\n")
    text = raw.getvalue().decode("latin-1")
    assert text.startswith("|-- a label")
    assert all(len(line) <= 30 for line in text.splitlines())
    assert "\\u2014" in text and "\\u2713" in text  # what the stream cannot hold is escaped, never a crash


def test_progress_shows_on_a_tty_only_when_the_work_is_slow():
    tty = _Stream(True)
    with progress("reading topology big.json", delay=0.05, stream=tty):
        time.sleep(0.3)
    assert "reading topology big.json ..." in tty.getvalue() and tty.getvalue().endswith("\r\033[K")
    quick = _Stream(True)
    with progress("quick", delay=0.5, stream=quick):
        pass
    assert quick.getvalue() == ""
    piped = _Stream(False)
    with progress("slow", delay=0.0, stream=piped):
        time.sleep(0.1)
    assert piped.getvalue() == ""


def test_current_reads_standard_output(monkeypatch):
    monkeypatch.setattr("sys.stdout", _Stream(False, "ascii"))
    monkeypatch.setenv("COLUMNS", "77")
    assert terminal.current() == Terminal(width=77, color=False, unicode=False)


def test_stderr_prefixes_are_coloured_on_a_tty_only(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert terminal.paint_prefix("error: x", _Stream(True)) == "\033[31merror:\033[0m x"
    assert terminal.paint_prefix("warning: y", _Stream(True)).startswith("\033[33mwarning:")
    assert terminal.paint_prefix("error: x", _Stream(False)) == "error: x"
    monkeypatch.setenv("NO_COLOR", "1")
    assert terminal.paint_prefix("error: x", _Stream(True)) == "error: x"
