"""The KAI Scheduler releases wmap models, and the changes between them that alter a gang's shape.

KAI's pod-grouper made different PodGroups for the same workload from one release to the next (a batch
Job's pods one PodGroup each before v0.14.1, a JobSet flat before v0.16, ...). The catalog does not
branch on a version: a gang rule names the change it belongs to (``kaiSince: jobset-subgroups``, or
``kaiBefore:`` for the shape it replaced) and this module's tables say which releases have which change.
:func:`with_kai_release` chooses the release for the work in progress (the command line's
``--kai-version``, ``WMAP_KAI_VERSION``); the newest is the default.

A change first released on the main line (``since``) may also have been backported to an older
release line (``backports``: the first patch of that line that has it); each row cites the pull
request and the tag where the pod-grouper's code changed (docs/kai-releases.md lists them).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = [
    "KaiChange",
    "KaiRelease",
    "KAI_CHANGES",
    "KAI_RELEASES",
    "DEFAULT_KAI_RELEASE",
    "kai_release",
    "kai_has",
    "parse_kai_version",
    "with_kai_release",
]

Version = tuple[int, int, int]


def _version(text: str) -> Version:
    major, minor, patch = (int(part) for part in text.split("."))
    return major, minor, patch


@dataclass(frozen=True, slots=True)
class KaiRelease:
    """A KAI release wmap models: ``name`` as the user gives it (``0.16`` or ``0.16.3``), the tag it stands for."""

    name: str
    version: Version
    date: str = ""

    @property
    def tag(self) -> str:
        """The git tag of the release in kai-scheduler/KAI-Scheduler (``v0.16.8``)."""
        return "v" + ".".join(str(part) for part in self.version)


@dataclass(frozen=True, slots=True)
class KaiChange:
    """A change of KAI's pod-grouper (or scheduler) that changes a gang wmap reports.

    ``since``: the first release of the main line with it (None: not in a release yet); ``backports``:
    the first patch of each older line it was backported to. ``modelled``: whether wmap's answer
    follows the chosen release for this change (else the docs say the newest form is given).
    """

    name: str
    summary: str
    pull: str
    since: str | None
    backports: tuple[str, ...] = ()
    modelled: bool = True

    def in_release(self, version: Version) -> bool:
        """Whether the release ``version`` has this change."""
        if self.since is not None and version >= _version(self.since):
            return True
        for backport in self.backports:
            first = _version(backport)
            if version[:2] == first[:2] and version >= first:
                return True
        return False


KAI_LINES: dict[str, tuple[int, str]] = {
    "0.14": (7, "2026-07-08"),
    "0.15": (3, "2026-06-17"),
    "0.16": (8, "2026-07-29"),
    "0.17": (0, "2026-08-03"),
}
"""Each release line wmap models: its newest patch tag (what the line's name stands for) and that tag's date."""

KAI_RELEASES: dict[str, KaiRelease] = {
    line: KaiRelease(line, _version(f"{line}.{patch}"), date) for line, (patch, date) in KAI_LINES.items()
}
"""The release lines by name, oldest first; a line's patches (``0.14.0`` ... ``0.14.7``) are accepted too."""

DEFAULT_KAI_RELEASE = next(reversed(KAI_RELEASES))
"""The newest release line: the model of a command not told otherwise."""

KAI_CHANGES: dict[str, KaiChange] = {
    change.name: change
    for change in (
        KaiChange(
            "job-podgroup",
            "a batch Job's pods share one PodGroup pg-<job>-<uid> (before: one PodGroup of minMember 1 per pod)",
            "#1443 (v0.14 backport #1444)",
            "0.15.0",
            ("0.14.1",),
        ),
        KaiChange(
            "batch-min-member",
            "kai.scheduler/batch-min-member on a batch Job or a JobSet sets the PodGroup's minMember",
            "#1308 (v0.14 backport #1381)",
            "0.15.0",
            ("0.14.1",),
        ),
        KaiChange(
            "jobset-min-member-one",
            "a flat JobSet PodGroup's minMember is 1 unless batch-min-member says otherwise (before: replicas x "
            "min(parallelism, completions), summed over the PodGroup's replicatedJobs)",
            "v0.15.0 CHANGELOG (Breaking)",
            "0.15.0",
        ),
        KaiChange(
            "skip-podgrouper",
            "kai.scheduler/skip-podgrouper on a pod or an owner: no PodGroup from the grouper, the pods join the "
            "PodGroup the user made",
            "#1552",
            "0.15.0",
        ),
        KaiChange(
            "grove-parent-min-subgroup",
            "a Grove topology-group parent SubGroup is gated by minSubGroup = its cliques (before: minMember 0)",
            "#1642 (v0.15 backport #1676)",
            "0.16.0",
            ("0.15.2",),
            modelled=False,
        ),
        KaiChange(
            "jobset-subgroups",
            "a JobSet is one PodGroup gated by minSubGroup, a SubGroup per replicatedJob and a leaf per replica "
            "(before: flat, one PodGroup per replicatedJob for InOrder)",
            "#1617",
            "0.16.0",
        ),
        KaiChange(
            "segment-parent-min-subgroup",
            "a segmented PyTorchJob's worker SubGroup and an LWS segment 0 with the leader are gated by minSubGroup "
            "(before: minMember, which KAI's v0.15+ webhook refuses on a parent); a PyTorchJob with no worker "
            "segments keeps its worker leaf",
            "#1960",
            "0.16.6",
            modelled=False,
        ),
        KaiChange(
            "elastic-segments",
            "an elastic PyTorchJob's segments past minReplicas get minMember 0",
            "#1974",
            "0.16.7",
            modelled=False,
        ),
        KaiChange(
            "topology-level-aliases",
            "a KAI Topology's levels[].alias may stand for the level's node label in a constraint",
            "#1788",
            "0.17.0",
            modelled=False,
        ),
        KaiChange(
            "dynamo-every-version",
            "DynamoGraphDeployment's plugin for every served version (v1beta1 too; before: v1alpha1 only)",
            "#1870",
            "0.17.0",
            modelled=False,
        ),
        KaiChange(
            "karta-fallback",
            "the Karta fallback grouper for kinds without a plugin",
            "#1877",
            "0.17.0",
            modelled=False,
        ),
        KaiChange(
            "min-member-zero",
            "a PodGroup of minMember 0 is valid (Knative min-scale 0; the CRD's minimum was 1)",
            "#1989 (on main after v0.17.0)",
            None,
            modelled=False,
        ),
    )
}
"""Every change wmap knows of, oldest first; the catalog's ``kaiSince``/``kaiBefore`` name one of these."""

_RELEASE: ContextVar[KaiRelease] = ContextVar("wmap_kai_release", default=KAI_RELEASES[DEFAULT_KAI_RELEASE])


def parse_kai_version(text: str) -> KaiRelease:
    """The release a ``--kai-version`` value names: a line (``0.16``: its newest patch) or a patch (``0.16.3``).

    Raises:
        ValueError: a version wmap has no model of (one line naming the known ones).
    """
    given = text.strip().removeprefix("v")
    if given in KAI_RELEASES:
        return KAI_RELEASES[given]
    line, _, patch = given.rpartition(".")
    if line in KAI_LINES and patch.isdigit() and int(patch) <= KAI_LINES[line][0]:
        return KaiRelease(given, _version(f"{line}.{int(patch)}"))
    known = ", ".join(f"{name} (..{name}.{last})" for name, (last, _) in KAI_LINES.items())
    raise ValueError(f"unknown KAI version {text!r}: wmap models {known}")


def kai_release() -> KaiRelease:
    """The KAI release the work in progress models (:func:`with_kai_release`; the newest by default)."""
    return _RELEASE.get()


def kai_has(change: str) -> bool:
    """Whether the modelled release has the named change of :data:`KAI_CHANGES`."""
    return KAI_CHANGES[change].in_release(_RELEASE.get().version)


@contextmanager
def with_kai_release(release: KaiRelease | str | None) -> Iterator[KaiRelease]:
    """Model this KAI release (a :class:`KaiRelease` or its name; None: the default) inside the ``with`` block.

    Raises:
        ValueError: a name :func:`parse_kai_version` refuses.
    """
    chosen = parse_kai_version(release) if isinstance(release, str) else release
    token = _RELEASE.set(chosen or KAI_RELEASES[DEFAULT_KAI_RELEASE])
    try:
        yield _RELEASE.get()
    finally:
        _RELEASE.reset(token)
