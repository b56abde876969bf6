"""The precompiled built-in catalog (``catalog/compiled.pickle``) matches the definition files.

A definition edited without rebuilding makes this test fail (and wmap fall back to the YAML files,
so it is only slower): rebuild with ``python -m workloadmap.catalog``.
"""

from __future__ import annotations

import marshal
import pickle
import shutil
import zlib

import jmespath

from workloadmap.catalog import builtin_catalog_dir, definition_files, load_definition
from workloadmap.catalog_cache import PRECOMPILED_NAME, fingerprint, read_precompiled, write_precompiled
from workloadmap.documents import load_objects
from workloadmap.errors import ExpressionError
from workloadmap.expressions.compiler import compile_source, generate, stateless
from workloadmap.expressions.expression import (
    _CODE_TAG,
    MAX_STEPS,
    MAX_VALUE_SIZE,
    Expression,
    _WmapFunctions,
    compile_expression,
    interpret,
)
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


def _shipped_expressions():
    """Every JMESPath expression of the shipped catalog, as read from it (each with its stored program)."""
    directory = builtin_catalog_dir()
    precompiled = read_precompiled(directory, list(definition_files(directory)))
    assert precompiled is not None
    found = {}
    for definition in precompiled:
        for _path, model, name, _text in definition.expression_fields():
            expression = model.compiled(name)
            if expression is not None and expression.language == "jmespath":
                found[id(expression)] = expression
    return list(found.values())


def test_shipped_programs_are_what_the_compiler_generates_now():
    # "Each declaration exists once; where speed needs a second form, generate it": the stored program
    # of every built-in expression is the compiler's output for its text, source, constants and code.
    shipped = _shipped_expressions()
    assert len(shipped) > 300
    for expression in shipped:
        assert expression._shipped is not None, expression.source
        generated, is_stateless, tag, code = pickle.loads(zlib.decompress(expression._shipped))
        fresh_tree = compile_expression(expression.source).parsed
        fresh = generate(fresh_tree, MAX_VALUE_SIZE, _WmapFunctions, budget=MAX_STEPS)
        assert generated.source == fresh.source, expression.source
        assert generated.constants == fresh.constants and (generated.limit, generated.budget) == (
            fresh.limit,
            fresh.budget,
        )
        assert is_stateless == stateless(fresh_tree)
        assert tag == _CODE_TAG
        assert marshal.loads(code) == compile_source(fresh.source)
        # what the analysis decided at build time, so interpretation never parses the text
        fresh_expression = Expression(expression.source, "jmespath", jmespath.compile(expression.source))
        assert (expression._builds, expression._builds_truthy, expression._origins) == (
            fresh_expression.builds,
            fresh_expression.builds_when_truthy,
            fresh_expression.origins,
        )
        assert expression._scopeless == fresh_expression._scopeless


def test_shipped_programs_give_what_the_interpreter_gives_on_the_corpus(corpus_dir, fixtures_dir):
    # The reference is jmespath's TreeInterpreter under wmap's bounds (expressions.interpret).
    documents = []
    for directory in (corpus_dir, fixtures_dir):
        for path in sorted(directory.rglob("*.yaml")):
            if not {"recorded", "karta", "bad"} & set(path.parts):
                documents.extend(item.body for item in load_objects(str(path)) if not isinstance(item, Exception))
    assert len(documents) > 80
    refs = {"runtime": {"spec": {"containers": [{"name": "main"}]}}}
    loaded = 0
    for expression in _shipped_expressions():
        tree = compile_expression(expression.source).parsed
        for document in documents:
            try:
                expected = ("value", interpret(tree, document, root=document, refs=refs))
            except Exception as error:
                expected = ("error", type(error).__name__)
            try:
                got = ("value", expression.search(document, root=document, refs=refs))
            except ExpressionError:
                got = ("error", expected[1] if expected[0] == "error" else "ExpressionError")
            assert got == expected, (expression.source, document.get("kind"))
        loaded += expression._program is not None and expression._shipped is None
    assert loaded > 300  # the programs ran as shipped, not interpreted


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
