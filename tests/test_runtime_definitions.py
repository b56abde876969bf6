"""The runtime form of a definition (``workloadmap.runtime_definitions``) and the models it is written from.

The precompiled built-in catalog is stored as instances of the runtime classes, which the
interpreter reads without pydantic; each model inherits its runtime class, whose head (name, base,
summary, fields) the build step writes from the model (``definitions/runtime_source.py``). These
tests check that the shipped file is what the models give, that the generator follows a changed
model, that stored objects hold exactly the declared fields, and that the built-in catalog's path
stays free of pydantic (and of jsonschema and the kubernetes client).
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from pydantic import BaseModel

import workloadmap.definitions as models
from helpers import FIXTURES_DIR
from workloadmap import runtime_definitions as runtime
from workloadmap.catalog import Catalog, builtin_catalog_dir, definition_files
from workloadmap.catalog_cache import read_precompiled
from workloadmap.definitions import runtime_source

MODELS = [
    getattr(models, name)
    for name in models.__all__
    if isinstance(getattr(models, name), type) and issubclass(getattr(models, name), BaseModel)
]


def test_every_model_of_the_format_has_a_runtime_class():
    assert len(MODELS) == 21  # RunDefinition (run order) and CheckDefinition (refused values) added
    for model in MODELS:
        form = runtime.runtime_class(model)
        assert form is not None and form.__name__ == model.__name__, model
        assert issubclass(model, form) and not issubclass(form, BaseModel)


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_the_runtime_class_declares_exactly_the_models_fields(model):
    form = runtime.runtime_class(model)
    assert set(runtime.declared_fields(form)) == set(model.model_fields)


def test_the_runtime_module_is_what_the_models_give():
    # Stale: a model changed and `python -m workloadmap.catalog` (the build step) was not run.
    text = runtime_source.runtime_path().read_text()
    assert runtime_source.runtime_source(text) == text, (
        "runtime_definitions.py is stale: run `python -m workloadmap.catalog`"
    )


def test_the_models_are_the_format_and_each_has_its_runtime_head():
    assert set(runtime_source.MODELS) == set(MODELS)
    text = runtime_source.runtime_path().read_text()
    for model in MODELS:
        head = f"# generated from the model definitions.{model.__name__} by "
        base = "CompiledPart" if issubclass(model, models.base._Compiled) else "DefinitionPart"
        assert f"{head}`python -m workloadmap.catalog`: edit the model\nclass {model.__name__}({base}):" in text


def test_a_head_edited_by_hand_is_written_back_from_the_model():
    text = runtime_source.runtime_path().read_text()
    edited = text.replace("    replicas: CountValue\n", "    replicas: int\n    extra: str\n", 1)
    edited = edited.replace('    """A kind a reference may point at."""', '    """Anything."""', 1)
    assert edited != text and runtime_source.runtime_source(edited) == text


def test_a_field_the_model_no_longer_declares_leaves_the_runtime_class():
    # pydantic reads the annotations of every base, a runtime class's too: the generator must take the
    # model's own, or a field removed from a model would live on through its stale runtime class.
    class Widget(models.base._Strict, runtime.ReferenceKind):
        """A part of a definition."""

        kind: str

    assert "api_version" in Widget.model_fields  # pydantic sees the runtime class's stale annotation
    head = runtime_source._head(Widget)
    assert "    kind: str\n" in head and "api_version" not in head and "namespaced" not in head


def test_a_model_without_a_head_is_refused():
    text = runtime_source.runtime_path().read_text()
    marker = "# generated from the model definitions.SpecBase by `python -m workloadmap.catalog`: edit the model\n"
    with pytest.raises(ValueError, match="SpecBase"):
        runtime_source.runtime_source(text.replace(marker, ""))


@pytest.mark.parametrize(
    ("name", "written"),
    [
        ("ComponentDefinition", "    components: Sequence[ComponentDefinition]\n"),  # parts: read-only sequences
        ("ComponentDefinition", "    min_replicas: CountValue | None\n"),  # a count: its validated value
        ("StatusDefinition", "    rules: Mapping[Phase, Sequence[StatusMatcher]]\n"),
        ("PodFieldsDefinition", "    spec_fields: list[PodSpecField] | None\n"),  # the runtime module's alias
        ("PodFieldsDefinition", "    spec: str | None\n"),  # validators dropped
        ("Definition", '    language: Literal["jmespath", "jsonpath"]\n'),
        ("Definition", "    _source: str | None\n"),  # the model's own private attributes
        ("PodsDefinition", "    _parsed: Selector | None\n"),
    ],
)
def test_types_are_written_as_the_interpreter_reads_them(name, written):
    assert written in runtime_source._head(getattr(models, name))


def test_the_expression_paths_name_keys_as_the_file_writes_them():
    # runtime_definitions spells out the keys of the topology constraints it yields expressions of.
    for pairs, model in (
        (runtime._POD_GROUP_TOPOLOGY, models.PodGroupRule),
        (runtime._SUBGROUP_TOPOLOGY, models.SubGroupRule),
    ):
        for name, key in pairs:
            assert model.model_fields[name].alias == key


def _parts(value):
    if isinstance(value, runtime.DefinitionPart):
        yield value
        for name in runtime.declared_fields(runtime.runtime_class(type(value))):
            yield from _parts(getattr(value, name))
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _parts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _parts(item)


def test_precompiled_objects_are_runtime_instances_holding_exactly_the_declared_attributes():
    directory = builtin_catalog_dir()
    precompiled = read_precompiled(directory, list(definition_files(directory)))
    assert precompiled is not None
    seen = set()
    for definition in precompiled:
        for part in _parts(definition):
            form = type(part)
            assert runtime.runtime_class(form) is form and not isinstance(part, BaseModel)
            private = {name for name in vars(form).get("__annotations__", {}) if name.startswith("_")}
            if isinstance(part, runtime.CompiledPart):
                private.add("_expressions")
            assert set(vars(part)) == set(runtime.declared_fields(form)) | private, form.__name__
            seen.add(form.__name__)
    assert seen == {model.__name__ for model in MODELS}


def test_catalog_entries_of_both_forms_are_runtime_definitions(tmp_path):
    (tmp_path / "widget.yaml").write_text(
        "name: widget\ngroup: example.com\nkind: Widget\nversions: [v1]\n"
        "components: [{name: main, podTemplate: spec.template}]\n"
    )
    catalog = Catalog.load([tmp_path], use_env=False)
    jobset = catalog.lookup("jobset.x-k8s.io/v1alpha2", "JobSet")
    widget = catalog.lookup("example.com/v1", "Widget")
    assert jobset is not None and widget is not None
    assert isinstance(jobset.definition, runtime.Definition) and not isinstance(jobset.definition, BaseModel)
    assert isinstance(widget.definition, runtime.Definition) and isinstance(widget.definition, models.Definition)


def test_the_built_in_catalogs_path_imports_no_pydantic(tmp_path):
    # `wmap inspect` with the built-in catalog: the precompiled definitions are read and interpreted
    # without pydantic; jsonschema and the kubernetes client stay out too.
    code = (
        "import sys\n"
        "from workloadmap import Catalog\n"
        "from workloadmap.interpreter import inspect_file\n"
        f"results = list(inspect_file({str(FIXTURES_DIR / 'jobset-leader-workers.yaml')!r}, "
        "catalog=Catalog.load(use_env=False)))\n"
        "assert results and results[0].tree is not None and results[0].tree.totals.pods > 0, results\n"
        "print(' '.join(sorted(sys.modules)))"
    )
    # Outside the clone, as tests/cli/test_cli.py runs its import check (the installed package).
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True)
    loaded = set(done.stdout.split())
    assert "workloadmap.runtime_definitions" in loaded and "workloadmap.interpreter.build" in loaded
    assert not loaded & {"pydantic", "pydantic_core", "workloadmap.definitions", "jsonschema", "kubernetes"}
