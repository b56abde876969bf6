"""Output views are declared once per command (cli/printing/views.py): ``-o`` values, help and completion read them."""

from __future__ import annotations

import json

import pytest
import yaml

from workloadmap.cli.completion import complete
from workloadmap.cli.main import command_tree
from workloadmap.cli.printing.formats import TEMPLATES
from workloadmap.cli.printing.views import Views, declared, dump, human, plain, template


def _commands(command, path=()):
    for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
        if sub.hidden:
            continue
        if getattr(sub, "commands", None):
            yield from _commands(sub, (*path, name))
        else:
            yield " ".join((*path, name)), sub


COMMANDS = dict(_commands(command_tree()))
WITH_OUTPUT = {
    path: command for path, command in COMMANDS.items() if any("--output" in param.opts for param in command.params)
}


def test_every_command_with_an_output_option_declares_its_views():
    assert {"inspect", "place", "get", "describe", "catalog list", "catalog lint", "topology generate"} <= set(
        WITH_OUTPUT
    )
    assert [path for path in WITH_OUTPUT if declared(path) is None] == []


@pytest.mark.parametrize("path", [path for path in WITH_OUTPUT if declared(path) is not None])
def test_help_completion_and_check_read_the_declaration(path, wmap, monkeypatch):
    views = declared(path)
    assert views is not None
    option = next(param for param in WITH_OUTPUT[path].params if "--output" in param.opts)
    assert option.default in (views.default, None)  # None: the command picks (place, by --emit)
    words = path.split()
    candidates, _ = complete(command_tree(), [*words, "x", "-o", ""])
    assert candidates == [f"{name}=" if name in TEMPLATES else name for name in views.names]
    monkeypatch.setenv("COLUMNS", "200")
    help_text = " ".join(wmap(*words, "--help").stdout.split())
    assert views.summary() in help_text
    refused = wmap(*words, "x", "-o", "no-such-view")
    assert refused.exit_code == 2 and f"is not one of {', '.join(views.names[:2])}" in refused.stderr


def test_views_that_stand_for_each_other_have_the_same_names():
    # One -o option serves two kinds of result: its values must mean something for both.
    from workloadmap.cli.commands import place, topology

    assert place.RANKINGS.names == place.PLACEMENTS.names
    assert topology.NUMA_VIEWS.names == topology.SHOW_VIEWS.names


def test_templates_stand_for_every_template_format(capsys):
    views = Views({"name": plain(lambda items: "".join(f"{item['n']}\n" for item in items)), "templates": template()})
    assert views.names == ("name", *TEMPLATES)
    views.write(views.parse("jsonpath={[*].n}"), [{"n": "a"}, {"n": "b"}])
    views.write(views.parse("name"), [{"n": "a"}])
    assert capsys.readouterr().out == "a ba\n"


def test_dump_is_the_machine_contract_and_text_gives_it_as_a_string():
    views = Views({"yaml": dump(), "json": dump(lambda data: {"wrapped": data})})
    assert views.default == "yaml"
    assert yaml.safe_load(views.text(views.parse("yaml"), {"a": 1})) == {"a": 1}
    assert json.loads(views.text(views.parse("json"), {"a": 1})) == {"wrapped": {"a": 1}}


def test_a_view_writing_several_texts_has_no_single_text_and_defaults_are_views():
    views = Views({"tree": lambda chosen, result: None, "table": human(str)})
    with pytest.raises(TypeError):
        views.text(views.parse("tree"), None)
    with pytest.raises(ValueError):
        Views({"json": dump()}, default="tree")
    with pytest.raises(ValueError):
        Views({"json": dump(), "templates": template()}, default="templates")


@pytest.mark.parametrize("kind", ["json", "yaml"])
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_a_streamed_dump_writes_what_the_whole_list_dumped_at_once_gives(kind, count, capsys):
    """``-o json|yaml`` of a list written item by item: the bytes of one item alone, or of a kubectl List."""
    from workloadmap.cli.printing import output
    from workloadmap.cli.printing.views import dump_each

    items = [{"name": f"n{index}", "é": [index, {"x": None}], "empty": {}} for index in range(count)]
    views = Views({"json": dump_each(lambda item: item), "yaml": dump_each(lambda item: item)})
    sink = views.sink(views.parse(kind))
    for item in items:
        sink.add(item)
    sink.close()
    written = capsys.readouterr().out
    expected = output.dump(output.as_list(items), kind) if items else ""
    assert written == expected
    if kind == "json" and items:
        assert written == json.dumps(output.as_list(items), indent=2) + "\n"


def test_a_view_that_needs_every_result_writes_them_at_the_end(capsys):
    views = Views({"plain": plain(lambda items: f"{len(items)} items\n")})
    sink = views.sink(views.parse("plain"))
    sink.add(1)
    sink.add(2)
    assert capsys.readouterr().out == ""
    sink.close()
    assert capsys.readouterr().out == "2 items\n"
