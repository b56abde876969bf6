"""The fast path of `wmap inspect` (cli/commands/fast.py) against the typer command it stands in for.

Both readers are built from one option table (commands/inspect.py's OPTIONS). These tests check
the building: typer's command has exactly the table's options, flag by flag, as the fast reader
reads them; every command line of the table below prints the same stdout and stderr and exits
with the same code through the console script (fast path where it applies) as through the typer
app; and the fast path really runs without typer.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

import pytest
import yaml
from typer.main import get_command
from typer.testing import CliRunner

from helpers import BAD_FIXTURES_DIR, FIXTURES_DIR
from helpers.fastpath import through
from workloadmap.cli import entry
from workloadmap.cli.commands import fast
from workloadmap.cli.commands.inspect import OPTIONS
from workloadmap.cli.main import app

fast_inspect = fast.fast_command


def parse(arguments):
    return fast.parse(arguments, OPTIONS)


JOBSET = str(FIXTURES_DIR / "jobset-leader-workers.yaml")
RAY = str(FIXTURES_DIR / "raycluster.yaml")
APPS = str(FIXTURES_DIR / "apps")
MISSING = str(FIXTURES_DIR / "no-such-file.yaml")


def _inspect_command():
    return get_command(app).commands["inspect"]  # type: ignore[attr-defined]


def _click_options():
    return {param.name: param for param in _inspect_command().params if param.param_type_name == "option"}


# --- 1. typer's declaration is the option table's ----------------------------------------------


def test_the_fast_path_reads_exactly_the_options_typer_declares():
    assert {option.name for option in OPTIONS} == set(_click_options())
    # in the table's order (the help's), each once: the guard adds none the command declares itself
    declared = [param.name for param in _inspect_command().params if param.param_type_name == "option"]
    assert declared == [option.name for option in OPTIONS]
    assert [flag for option in OPTIONS for flag in option.flags] == [
        flag for param in _inspect_command().params if param.param_type_name == "option" for flag in param.opts
    ]


@pytest.mark.parametrize("option", OPTIONS, ids=lambda option: option.name)
def test_each_option_has_typer_flags_multiplicity_default_and_type(option):
    param = _click_options()[option.name]
    assert tuple(param.opts) == option.flags and not param.secondary_opts
    assert param.multiple == option.multiple
    assert param.is_flag == option.is_flag
    assert param.envvar is None  # the fast path reads no environment variable for an option
    if option.multiple:
        assert param.default in (None, ())
    else:
        assert param.default == option.default
    # typer converts values by the parameter's annotation (a list of them when repeatable)
    assert option.value in (str, Path, int, bool)  # what the fast reader converts
    assert param.type_descriptor.annotation == (List[option.value] if option.multiple else option.value)
    assert (param.min, param.max) == (option.minimum, None)
    assert (option.minimum is not None) == (option.value is int)  # every number the fast reader takes is bounded
    assert param.help == option.help and param.metavar == option.metavar


def test_files_are_one_argument_taking_every_word_and_options_mix_with_them():
    command = _inspect_command()
    arguments = [param for param in command.params if param.param_type_name == "argument"]
    assert [(param.name, param.nargs) for param in arguments] == [("files", -1)]
    assert command.allow_interspersed_args and not command.ignore_unknown_options
    assert command.context_settings.get("token_normalize_func") is None  # no case folding, no abbreviations


# --- 2. the same command line gives the same output either way ---------------------------------


@pytest.fixture(scope="module")
def user_catalog(tmp_path_factory) -> str:
    """A catalog directory replacing the built-in JobSet definition (a notice on stderr)."""
    runner = CliRunner()
    definition = yaml.safe_load(runner.invoke(app, ["catalog", "show", "jobset"]).stdout)
    definition["name"] = "my-jobset"
    directory = tmp_path_factory.mktemp("catalog")
    (directory / "jobset.yaml").write_text(yaml.safe_dump(definition))
    return str(directory)


@pytest.fixture(scope="module")
def nested(tmp_path_factory) -> str:
    """A directory with a workload at its top and another in a subdirectory (read with -R only)."""
    directory = tmp_path_factory.mktemp("nested")
    (directory / "sub").mkdir()
    (directory / "jobset.yaml").write_text(Path(JOBSET).read_text())
    (directory / "sub" / "ray.yaml").write_text(Path(RAY).read_text())
    return str(directory)


# (command line after `inspect`, standard input, does the fast path run it?)
CASES = [
    ([JOBSET], None, True),
    ([JOBSET, RAY], None, True),
    ([JOBSET, "-o", "json"], None, True),
    ([JOBSET, "-ojson"], None, True),
    (["--output=yaml", JOBSET], None, True),
    ([JOBSET, "-o", "name", "-o", "wide"], None, True),  # the last value wins
    (["-o", "table", "-f", JOBSET, "--filename", RAY], None, True),
    (["--", JOBSET], None, True),
    (["-o", "name", "--", "-o", JOBSET], None, True),  # after --, `-o` is a FILE (missing: an error line)
    (["-f", "--help"], None, True),  # an option's value is the next word, whatever it looks like
    (["-"], Path(JOBSET).read_text(), True),
    (["-", "-o", "name"], "", True),  # empty input: a note
    ([APPS], None, True),
    (["NESTED", "-o", "name"], None, True),
    (["-R", "NESTED", "-o", "name"], None, True),
    (["--recursive", "NESTED", "-o", "table"], None, True),
    ([JOBSET, "--catalog", "USER_CATALOG", "-o", "json"], None, True),
    ([JOBSET, "--gpu-resource", "example.com/gpu", "--gpu-resource", "nvidia.com/gpu"], None, True),
    ([JOBSET, "--related", APPS, "--runtimes", RAY], None, True),
    ([JOBSET, "--timeout", "1m", "--allow-reference-kind", "ConfigMap"], None, True),
    ([JOBSET, "--max-pods", "2"], None, True),  # over the budget: a one-line error, exit 1
    ([JOBSET, "--max-pods=1000", "--max-pod-groups", "5", "--search-budget", "10"], None, True),
    ([JOBSET, "-o", "jsonpath={.workload.name}"], None, True),
    ([JOBSET, RAY, "-o", "custom-columns=KIND:.workload.kind,PODS:.totals.pods"], None, True),
    ([JOBSET, "-o", "jsonpath={.components[5]}"], None, True),  # the template fails on the data: exit 1
    ([MISSING], None, True),
    ([str(BAD_FIXTURES_DIR / "broken-yaml.yaml"), JOBSET], None, True),
    ([str(BAD_FIXTURES_DIR / "unknown-kind.yaml")], None, True),
    ([], None, False),  # no FILE: typer's usage error
    ([JOBSET, "-o", "bogus"], None, False),
    ([JOBSET, "-o=json"], None, False),  # a short option's value is `=json`
    ([JOBSET, "-o", "jsonpath={.metadata"], None, False),
    ([JOBSET, "-o"], None, False),
    (["--bogus", JOBSET], None, False),
    ([JOBSET, "--catalogue", "x"], None, False),  # no abbreviations or near misses
    (["--help"], None, False),
    ([JOBSET, "-h"], None, False),
    (["-Rf", JOBSET], None, False),  # combined short flags: not modelled
    (["--recursive=yes", "NESTED"], None, False),
    ([JOBSET, "--max-pods", "0"], None, False),
    ([JOBSET, "--max-pods", "many"], None, False),
    ([JOBSET, "--max-pods", "\u0663"], None, False),  # an Arabic-Indic 3: int() reads it, typer does not
    ([JOBSET, "--max-pods", " 7 "], None, False),  # typer reads it: at typer's speed
    ([JOBSET, "--timeout", "soon"], None, False),
    ([JOBSET, "--allow-reference-kind", ""], None, False),
]


@pytest.mark.parametrize(("arguments", "stdin", "fast"), CASES, ids=lambda value: str(value)[:60])
def test_the_fast_path_and_typer_print_and_exit_alike(arguments, stdin, fast, user_catalog, nested):
    arguments = [{"USER_CATALOG": user_catalog, "NESTED": nested}.get(word, word) for word in arguments]
    assert (fast_inspect(["inspect", *arguments], {}) is not None) == fast
    console = through("console", "inspect", arguments, stdin)
    assert console == through("typer", "inspect", arguments, stdin)
    assert console[2] in (0, 1, 2, 4)
    assert console[0] or console[1]  # something said, either way


def test_a_completion_request_goes_to_typer():
    assert fast_inspect(["inspect", JOBSET], {}) is not None
    assert fast_inspect(["inspect", JOBSET], {"_WMAP_COMPLETE": "bash_complete"}) is None
    assert fast_inspect(["inspect", JOBSET], {"_KUBECTL_WMAP_COMPLETE": "zsh_complete"}) is None
    assert fast_inspect(["inspect", JOBSET], {"_WMAP_COMPLETE": ""}) is not None  # empty: typer ignores it too


@pytest.mark.parametrize(
    "argv", [[], ["--version", "inspect", JOBSET], ["place", JOBSET], ["catalog", "list"], ["INSPECT", JOBSET]]
)
def test_other_command_lines_go_to_typer(argv):
    assert fast_inspect(argv, {}) is None


def test_parse_reads_values_as_typer_does():
    files, values = parse(["a", "-fb", "--filename=c", "-o", "-R", "--", "-R", "--max-pods", " 7"]) or ([], {})
    assert files == ["a", "-R", "--max-pods", " 7"]
    assert values["filename"] == ["b", "c"] and values["output_format"] == "-R" and values["recursive"] is False
    assert parse(["-R", "--max-pods", "007"]) == ([], parse([])[1] | {"max_pods": 7, "recursive": True})  # type: ignore[index]
    # forms typer also reads (through pydantic), or rejects, go to typer
    for number in (" 7", "7.0", "+7", "5_000", "\u0663", "0x10", "0"):
        assert parse(["--max-pods", number]) is None


def _typer_ending(exception: BaseException) -> tuple[str, int]:
    """Stderr and exit code when a command raises ``exception`` inside typer's main."""
    import typer

    tiny = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)  # as main.py

    @tiny.command()
    def fail() -> None:
        raise exception

    with CliRunner().isolation() as (_, err, _):
        try:
            get_command(tiny).main(args=[], prog_name="wmap", standalone_mode=True)
        except SystemExit as stop:
            return err.getvalue().decode(), int(stop.code or 0)
    raise AssertionError("typer returned")


def _fast_ending(exception: BaseException) -> tuple[str, int]:
    def fail() -> None:
        raise exception

    with CliRunner().isolation() as (_, err, _):
        try:
            entry.protected(lambda: entry.as_typer_runs(fail))
        except SystemExit as stop:
            return err.getvalue().decode(), int(stop.code or 0)
    raise AssertionError("returned")


@pytest.mark.parametrize(
    "exception", [KeyboardInterrupt(), EOFError(), BrokenPipeError(32, "Broken pipe"), SystemExit(3)], ids=repr
)
def test_a_command_ends_on_these_exceptions_as_under_typer(exception):
    assert _fast_ending(exception) == _typer_ending(exception)


def test_a_reader_that_went_away_ends_it_quietly_as_under_typer():
    # `wmap inspect ... | head`: stdout closed before anything is written.
    def closed_stdout(code: str) -> tuple[int, bytes]:
        with subprocess.Popen(
            [sys.executable, "-c", code, "inspect", JOBSET, JOBSET, "-o", "yaml"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=tempfile.gettempdir(),
        ) as child:
            assert child.stdout is not None and child.stderr is not None
            child.stdout.close()
            return child.wait(timeout=60), child.stderr.read()

    console = "import sys; sys.argv[0] = 'wmap'; from workloadmap.cli.entry import run; run()"
    typer_path = "import sys; sys.argv[0] = 'wmap'; from workloadmap.cli import entry; entry.protected(entry.typer_app)"
    assert closed_stdout(console) == closed_stdout(typer_path) == (1, b"")


# --- 3. the fast path runs without typer ---------------------------------------------------------


def test_wmap_inspect_loads_neither_typer_nor_click_and_the_cli_no_pydantic():
    code = (
        f"import sys; sys.argv = ['wmap', 'inspect', {JOBSET!r}]\n"
        "from workloadmap.cli.entry import run\n"
        "try:\n    run()\nexcept SystemExit as stop:\n    assert not stop.code, stop.code\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)"
    )
    # Outside the clone: `python -c` puts the working directory first on sys.path, where the clone's
    # workloadmap/ (without cli/, which the install maps in) would shadow the installed package.
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
        check=True,
    )
    *timings, modules = done.stderr.strip().splitlines()
    loaded = {name.split(".")[0] for name in modules.split()}
    assert not loaded & {"typer", "click", "rich", "shellingham"}
    assert "JobSet/llm-train" in done.stdout
    # Who imported pydantic first, if anyone (the library's definitions may): never a CLI module.
    rows = [
        (len(line.split("|")[2]) - len(line.split("|")[2].lstrip()), line.split("|")[2].strip()) for line in timings[1:]
    ]
    for index, (depth, name) in enumerate(rows):
        if name.split(".")[0] in ("pydantic", "pydantic_core"):
            importer = next(parent for level, parent in rows[index + 1 :] if level < depth)
            assert not importer.startswith("workloadmap.cli"), f"{importer} imports {name}"


def test_console_script_freezes_what_it_built_before_the_process_ends(tmp_path):
    # The interpreter's last collection at exit would walk every object the run built; run() freezes
    # them instead (cli/entry.py), and leaves the collector itself as it found it.
    script = (
        "import gc, sys\n"
        "from workloadmap.cli.entry import run\n"
        f"sys.argv = ['wmap', 'inspect', {str(FIXTURES_DIR / 'jobset-leader-workers.yaml')!r}]\n"
        "try:\n    run()\nexcept SystemExit as end:\n    code = end.code\nelse:\n    code = 0\n"
        "print(code, gc.isenabled(), gc.get_freeze_count() > 1000, file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=tmp_path, check=False)
    assert done.stderr.split() == ["0", "True", "True"]
