"""Catalog lint: definitions that validate but cannot be right.

:func:`~workloadmap.catalog.load_definition` already checks the format and compiles every
expression. The lint runs every rule of the table (:data:`RULES`): static rules on the definition
alone (``static``), sample rules on the evidence of evaluating it on sample resources
(``samples``). Samples are read from FILE|DIR arguments (directories recursively); recorded
operator flows (``schemaVersion``/``events`` files) contribute the object of every STATE event.
Objects of other kinds are ignored, but are available as related objects for ``references``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from ..catalog import Catalog, definition_files, load_definition
from ..definitions import Definition
from ..documents import Document, load_objects, load_yaml_text
from ..errors import DefinitionError, InputError, InputNotFoundError, WorkloadMapError
from ..karta import is_karta
from ..loader import field_line
from . import pods as _pods
from . import samples as _samples
from . import static as _static
from .karta import KARTA_RULES, lint_karta
from .rules import RULES, Issue, LintFinding, Rule, has_errors, render_rules_table, rule_rows
from .samples import Sample, SampleRun
from .static import DefinitionView

__all__ = [
    "LintFinding",
    "Rule",
    "RULES",
    "lint_definition",
    "lint_path",
    "load_samples",
    "has_errors",
    "render_rules_table",
    "rule_rows",
    "lint_karta",
    "KARTA_RULES",
]

_REGISTERED = (_static, _samples, _pods)  # importing a rule module registers its rules


def _findings(
    definition: Definition, entry: Rule, issues: Iterable[Issue], seen: set[tuple[str, str | None, str]]
) -> Iterator[LintFinding]:
    for issue in issues:
        key = (entry.id, issue.field, issue.message)
        if key in seen:
            continue
        seen.add(key)
        yield LintFinding(entry.severity, definition.source, definition.name, issue.field, issue.message, entry.id)


def _matches_kind(definition: Definition, obj: Mapping[str, Any]) -> bool:
    api_version = obj.get("apiVersion")
    if not isinstance(api_version, str) or obj.get("kind") != definition.kind:
        return False
    return api_version.rpartition("/")[0] == definition.group


def _sample_label(obj: Mapping[str, Any], fallback: str) -> str:
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    return f"{fallback} ({obj.get('kind')}/{name})" if name else fallback


def _samples_of(samples: Iterable[Mapping[str, Any] | Document]) -> list[Sample]:
    objects: list[Sample] = []
    for position, sample in enumerate(samples, start=1):
        if isinstance(sample, Document):
            body, label = sample.body, f"{sample.file} {sample.label}"
        else:
            body, label = sample, _sample_label(sample, f"#{position}") if isinstance(sample, Mapping) else ""
        if isinstance(body, Mapping):
            objects.append(Sample(body, label))
    return objects


def lint_definition(
    definition: Definition,
    samples: Iterable[Mapping[str, Any] | Document] = (),
    *,
    catalog: Catalog | None = None,
) -> list[LintFinding]:
    """Lint one (already validated) definition.

    Args:
        definition: the definition, as :func:`~workloadmap.catalog.load_definition` returns it.
        samples: Kubernetes objects (mappings, or :class:`~workloadmap.documents.Document` to name
            their file in messages). Objects of the definition's group and kind are the samples;
            all of them can serve as related objects for ``references``.
        catalog: definitions for resources embedded in a sample (AppWrapper); ``definition``
            replaces the catalog's own for its group and kind. Default: ``definition`` alone.

    Returns:
        The findings, static rules first, in rule-table order.
    """
    view = DefinitionView(definition)
    seen: set[tuple[str, str | None, str]] = set()
    findings: list[LintFinding] = []
    for entry in RULES.values():
        if not entry.samples:
            findings.extend(_findings(definition, entry, entry.check(view), seen))
    objects = _samples_of(samples)
    own = [sample for sample in objects if _matches_kind(definition, sample.body)]
    if own:
        scoped = Catalog(list(catalog) if catalog is not None else [])
        scoped.add(definition, replace=True)
        run = SampleRun(view, own, [sample.body for sample in objects], scoped).run()
        for entry in RULES.values():
            if entry.samples:
                findings.extend(_findings(definition, entry, entry.check(run), seen))
    return findings


def _recorded_objects(document: Document) -> Iterator[Document]:
    """The STATE objects of a recorded operator flow, or the document itself."""
    body = document.body
    if (
        isinstance(body, Mapping)
        and "schemaVersion" in body
        and isinstance(body.get("events"), list)
        and "kind" not in body
    ):
        for position, event in enumerate(body["events"], start=1):
            if isinstance(event, Mapping) and event.get("kind") == "STATE" and isinstance(event.get("object"), Mapping):
                # `item` numbers the event, so messages name the frame (``#1 item 7``).
                yield Document(event["object"], document.file, document.index, position)
        return
    yield document


def load_samples(paths: Iterable[str | Path]) -> list[Document]:
    """Sample objects from FILE|DIR paths (directories recursively; recorded flows unpacked).

    Documents that do not parse are skipped: samples are evidence, not the subject of the lint.

    Raises:
        InputNotFoundError: a path does not exist.
    """
    documents: list[Document] = []
    for path in paths:
        for item in load_objects(str(path), recursive=True):
            if isinstance(item, InputNotFoundError):
                raise item
            if isinstance(item, InputError):
                continue
            documents.extend(_recorded_objects(item))
    return documents


def _kartas_in(file: Path) -> list[Mapping[str, Any]]:
    """The Karta objects of a file (none for a wmap definition or an unreadable file)."""
    try:
        bodies = [doc.body for doc in load_yaml_text(file.read_text(encoding="utf-8"), str(file))]
    except (OSError, UnicodeDecodeError, WorkloadMapError):
        return []
    return [body for body in bodies if is_karta(body)]


def lint_path(
    path: str | Path,
    samples_dir: str | Path | Iterable[str | Path] | None = None,
) -> list[LintFinding]:
    """Lint a definition file, or every ``*.yaml``/``*.yml`` file of a directory (Kartas: :mod:`.karta`).

    A file that fails schema validation gives one ``schema`` error finding (the others are still
    linted). ``samples_dir``: FILE|DIR (or several) of sample objects, see :func:`load_samples`.

    Raises:
        DefinitionError: ``path`` does not exist.
        InputNotFoundError: a samples path does not exist.
    """
    path = Path(path)
    if not path.exists():
        raise DefinitionError("no such file or directory", file=str(path))
    if samples_dir is None:
        sample_paths: list[str | Path] = []
    elif isinstance(samples_dir, (str, Path)):
        sample_paths = [samples_dir]
    else:
        sample_paths = list(samples_dir)
    samples = load_samples(sample_paths)
    catalog = None
    if samples:
        try:
            catalog = Catalog.load(use_env=False)
        except WorkloadMapError:
            catalog = None  # a broken built-in only costs embedded-resource samples
    findings: list[LintFinding] = []
    for file in definition_files(path) if path.is_dir() else [path]:
        found: list[LintFinding] = []
        kartas = _kartas_in(file)
        if kartas:
            bodies = [sample.body for sample in samples if isinstance(sample.body, Mapping)]
            found.extend(finding for karta in kartas for finding in lint_karta(karta, str(file), bodies))
        else:
            try:
                definition = load_definition(file)
            except WorkloadMapError as error:
                found.append(
                    LintFinding(
                        "error", error.file or str(file), error.document or file.stem, error.field, error.message,
                        "schema", _line_of(error.message),
                    )
                )  # fmt: skip
            else:
                found.extend(lint_definition(definition, samples, catalog=catalog))
        findings.extend(_with_lines(file, found))
    return findings


_YAML_LINE = re.compile(r"invalid YAML at line (\d+)")


def _line_of(message: str) -> int | None:
    """The line a parse error names (``invalid YAML at line 7 column 3``)."""
    match = _YAML_LINE.search(message)
    return int(match.group(1)) if match else None


def _with_lines(file: Path, findings: list[LintFinding]) -> list[LintFinding]:
    """The findings with the line of their field in ``file`` (the file is read once, only when there are some)."""
    if not findings:
        return findings
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return findings
    return [
        finding
        if finding.line is not None
        else dataclasses.replace(finding, line=field_line(text, finding.field, name=finding.definition))
        for finding in findings
    ]
