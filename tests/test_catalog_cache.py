"""The precompiled built-in catalog (``catalog/compiled.pickle``) matches the definition files.

A definition edited without rebuilding makes this test fail (and wmap fall back to the YAML files,
so it is only slower): rebuild with ``python -m workloadmap.catalog``.
"""

from __future__ import annotations

import shutil

from workloadmap.catalog import builtin_catalog_dir, definition_files, load_definition
from workloadmap.catalog_cache import PRECOMPILED_NAME, fingerprint, read_precompiled, write_precompiled
from workloadmap.runtime_definitions import DefinitionPart, declared_fields, runtime_class


def dumped(value):
    """Every field of a definition, in either form, as plain data (with the parsed pod selectors)."""
    if isinstance(value, DefinitionPart):
        form = runtime_class(type(value))
        fields = {name: dumped(getattr(value, name)) for name in declared_fields(form)}
        if hasattr(value, "parsed_selector"):
            fields["parsed_selector"] = value.parsed_selector
        return form.__name__, fields
    if isinstance(value, (list, tuple)):
        return [dumped(item) for item in value]
    if isinstance(value, dict):
        return {key: dumped(item) for key, item in value.items()}
    return value


def test_shipped_precompiled_catalog_is_current():
    directory = builtin_catalog_dir()
    files = list(definition_files(directory))
    precompiled = read_precompiled(directory, files)
    assert precompiled is not None, "catalog/compiled.pickle is stale: run `python -m workloadmap.catalog`"
    from_yaml = [load_definition(path) for path in files]
    assert all(type(definition) is runtime_class(type(definition)) for definition in precompiled)
    assert [dumped(definition) for definition in precompiled] == [dumped(definition) for definition in from_yaml]
    for cached, fresh in zip(precompiled, from_yaml, strict=True):
        assert cached.source == fresh.source
        cached_expressions = [
            (path, model.compiled(name).source)
            for path, model, name, _ in cached.expression_fields()
            if model.compiled(name)
        ]
        fresh_expressions = [
            (path, model.compiled(name).source)
            for path, model, name, _ in fresh.expression_fields()
            if model.compiled(name)
        ]
        assert cached_expressions == fresh_expressions


def test_a_changed_definition_makes_the_precompiled_catalog_stale(tmp_path):
    directory = tmp_path / "catalog"
    shutil.copytree(builtin_catalog_dir(), directory)
    files = list(definition_files(directory))
    write_precompiled(directory, files, [load_definition(path) for path in files])
    assert read_precompiled(directory, files) is not None
    before = fingerprint(files)
    job = directory / "job.yaml"
    job.write_text(job.read_text().replace("description:", "description: edited", 1))
    assert fingerprint(files) != before
    assert read_precompiled(directory, files) is None


def test_an_unreadable_precompiled_catalog_is_ignored(tmp_path):
    directory = tmp_path / "catalog"
    shutil.copytree(builtin_catalog_dir(), directory)
    files = list(definition_files(directory))
    (directory / PRECOMPILED_NAME).write_bytes(b"not a pickle")
    assert read_precompiled(directory, files) is None
    (directory / PRECOMPILED_NAME).unlink()
    assert read_precompiled(directory, files) is None


def test_the_precompiled_catalog_holds_no_path_of_where_it_was_built(tmp_path):
    # The definitions' sources are set where the catalog is read (read_precompiled), never stored.
    directory = tmp_path / "a clone" / "catalog"
    shutil.copytree(builtin_catalog_dir(), directory)
    files = list(definition_files(directory))
    built = write_precompiled(directory, files, [load_definition(path) for path in files]).read_bytes()
    assert str(tmp_path).encode() not in built
    shipped = (builtin_catalog_dir() / PRECOMPILED_NAME).read_bytes()
    assert str(builtin_catalog_dir().parent).encode() not in shipped and b"/catalog/" not in shipped
    assert [definition.source for definition in read_precompiled(directory, files) or []] == [str(f) for f in files]
