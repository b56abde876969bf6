"""Every command's --help: examples, values named in words (never Python types), no raw markup; --version."""

from __future__ import annotations

import re

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from workloadmap import __version__
from workloadmap.cli.main import app

runner = CliRunner()


def _paths(command, prefix=()):
    yield prefix
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        if not sub.hidden:
            yield from _paths(sub, (*prefix, name))


PATHS = list(_paths(get_command(app)))


def test_every_command_is_reached():
    names = {" ".join(path) for path in PATHS}
    assert {"inspect", "place", "get", "describe", "completion", "catalog show", "topology show"} <= names


@pytest.mark.parametrize("path", PATHS, ids=lambda path: " ".join(path) or "wmap")
def test_help_has_examples_and_no_python_types_or_markup(path):
    result = runner.invoke(app, [*path, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert "Examples:" in text
    examples = text[text.index("Examples:") :]
    assert re.search(r"^  (# .*|wmap .*|source .*|kubectl .*)$", examples, re.M), "an example shows a command line"
    assert not re.search(r"<(?:list|int|str|path|bool|float|tuple)\b", text), "a Python type leaks into the help"
    assert not re.search(r"\{\w+\}", text.split("\n", 1)[0]), "usage names arguments in capitals"
    assert "``" not in text and ":class:" not in text and ":func:" not in text


@pytest.mark.parametrize("path", [("place",), ("topology", "show")])
def test_topology_source_help_lists_every_form(path):
    text = " ".join(runner.invoke(app, [*path, "--help"], env={"COLUMNS": "200"}).stdout.split())
    for form in ("NodeList", "topology.conf", "topology.yaml", "Topograph simulation model", "preset:NAME",
                 "cluster:[CONTEXT]", "- (standard input)"):  # fmt: skip
        assert form in text, form


def test_options_name_their_values_in_words():
    text = runner.invoke(app, ["place", "--help"], env={"COLUMNS": "120"}).stdout
    assert "Usage: wmap place [OPTIONS] FILE..." in text
    for option in ("-t, --topology SOURCE", "--pods FILE", "--emit TARGET", "-o, --output FORMAT", "--html FILE"):
        assert option in text


def test_version():
    for args in (["--version"], ["version"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and result.stdout == f"wmap {__version__}\n"
