"""Recorded-phase conformance: every STATE frame of the recorded operator flows maps to its recorded state.

The recordings (``../shared/corpus/recorded/<operator>/<version>/<karta>/<flow>.yaml``, described in its
FORMAT.md) are real custom resources watched on live clusters, each STATE frame labelled by the recorder
with ``phases`` and ``state`` (the last entry of ``phases``). wmap gives one phase, so the check is
``tree.phase == state``; where the recorder listed two phases (older fixtures, e.g.
``[Initializing, Running]``) ``state`` is its pick, and wmap's precedence must agree with it.

A frame whose kind has no catalog definition fails (NoDefinitionError), so missing coverage shows.
Frames wmap deliberately classifies differently are listed in ``_DISAGREEMENTS`` with the reason.
Test ids are ``<operator>/<kind>/<flow>#<n>`` with n the 0-based index among the file's STATE frames;
``@<version>`` is added where one operator/kind/flow was recorded under several versions.
"""

from __future__ import annotations

from collections import Counter

import pytest
import yaml

from helpers import CORPUS_DIR, require_shared, shared_missing
from workloadmap.catalog import Catalog
from workloadmap.interpreter import inspect

RECORDED_DIR = CORPUS_DIR / "recorded"

_NO_STATUS = (
    "the frame has no status at all: the controller has not seen the object yet, and wmap's contract is that a "
    "resource with no status is Undefined. The recorder judged it from the spec ({what}), a test-flow "
    "predicate rather than anything the operator reported"
)
_RAYJOB_SUBMITTED = (
    "jobDeploymentStatus Running with no jobStatus: KubeRay has the cluster up and the job submitted, but Ray "
    "has not reported the job yet. wmap says Initializing; the recorder's predicates covered no such frame "
    "(Undefined), which tells a user nothing"
)
_RAYJOB_SUSPENDING = (
    "jobDeploymentStatus Suspending: KubeRay is tearing the cluster down after suspend: true. wmap says "
    "Suspending, the phase made for it; the recording leaves it Undefined"
)
_RAYJOB_RESUMING = (
    "spec.suspend is false but jobDeploymentStatus is still Suspended: the user asked to resume and the "
    "controller has not acted yet. wmap says Resuming; the recording still says Suspended"
)
_ISVC_READY_UNKNOWN = (
    "Ready=Unknown (RevisionMissing / Uninitialized / IngressNotConfigured) while the predictor revision and "
    "route come up: Knative's convention, which KServe follows, is that Unknown means in progress, and the "
    "Knative recordings map the same condition to Initializing. wmap says Initializing; this recording says Undefined"
)
_NIM_PVC_CREATED = (
    "state PVC-Created: the NIM operator has created the model-cache PVC and is still setting the service up. "
    "wmap says Initializing; the recording leaves it Undefined"
)

# (path relative to recorded/, STATE index) -> why wmap's phase differs from the recorded state.
_DISAGREEMENTS: dict[tuple[str, int], str] = {
    ("grove/v1.34.0/grove-io-podcliqueset-v1alpha1/running.yaml", 0): _NO_STATUS.format(
        what="availableReplicas < replicas -> Initializing"
    ),
    ("grove/v1.34.0/grove-io-podcliqueset-v1alpha1/scaled.yaml", 0): _NO_STATUS.format(
        what="availableReplicas < replicas -> Initializing"
    ),
    ("kuberay/v1.34.0/ray-io-raycluster-v1/suspended.yaml", 0): _NO_STATUS.format(
        what="spec.suspend: true -> Suspended"
    ),
    ("kuberay/v1.34.0/ray-io-rayjob-v1/completed.yaml", 5): _RAYJOB_SUBMITTED,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/failed.yaml", 5): _RAYJOB_SUBMITTED,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/resumed.yaml", 10): _RAYJOB_SUBMITTED,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/running.yaml", 6): _RAYJOB_SUBMITTED,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/resumed.yaml", 2): _RAYJOB_SUSPENDING,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/suspended.yaml", 2): _RAYJOB_SUSPENDING,
    ("kuberay/v1.34.0/ray-io-rayjob-v1/resumed.yaml", 4): _RAYJOB_RESUMING,
    ("kserve/v0.20.0/serving-kserve-io-inferenceservice-v1beta1/failed.yaml", 1): _ISVC_READY_UNKNOWN,
    **{
        ("kserve/v0.20.0/serving-kserve-io-inferenceservice-v1beta1/running.yaml", index): _ISVC_READY_UNKNOWN
        for index in (1, 2, 3, 4, 5)
    },
    **{
        ("kserve/v1.34.0/serving-kserve-io-inferenceservice-v1beta1/running.yaml", index): _ISVC_READY_UNKNOWN
        for index in (2, 3, 4)
    },
    ("nim/v1.34.0/apps-nvidia-com-nimservice-v1alpha1/initializing.yaml", 1): _NIM_PVC_CREATED,
    ("nim/v1.34.0/apps-nvidia-com-nimservice-v1alpha1/running.yaml", 1): _NIM_PVC_CREATED,
}


def _frames() -> list:
    if not RECORDED_DIR.is_dir():
        return [
            pytest.param(
                None,
                None,
                marks=pytest.mark.skip(reason=shared_missing(RECORDED_DIR)),
                id="no-recordings",
            )
        ]
    files = sorted(path for path in RECORDED_DIR.rglob("*.yaml") if path.name != "FORMAT.md")
    loaded = []
    for path in files:
        recording = yaml.safe_load(path.read_text())
        states = [event for event in recording.get("events") or [] if event.get("kind") == "STATE"]
        if not states:
            continue
        kind = str(states[0]["object"].get("kind", "unknown")).lower()
        loaded.append((path, recording, kind, states))
    # An operator/kind/flow recorded under several versions (kserve) gets the version in its id.
    seen = Counter((recording["operator"], kind, recording["flow"]) for _, recording, kind, _ in loaded)
    params = []
    for path, recording, kind, states in loaded:
        relative = path.relative_to(RECORDED_DIR).as_posix()
        stem = f"{recording['operator']}/{kind}/{recording['flow']}"
        if seen[(recording["operator"], kind, recording["flow"])] > 1:
            stem += f"@{recording['version']}"
        for index, frame in enumerate(states):
            reason = _DISAGREEMENTS.get((relative, index))
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(relative, frame, marks=marks, id=f"{stem}#{index}"))
    return params


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load(use_env=False)


@pytest.mark.parametrize(("relative", "frame"), _frames())
def test_recorded_state(catalog, relative, frame):
    tree = inspect(frame["object"], catalog=catalog, source=relative)
    assert tree.phase == frame["state"], f"recorded phases {frame['phases']}, wmap phases {tree.phases}"
    # The engine's own invariant: Undefined means nothing matched, otherwise phase is the first match.
    if tree.phase == "Undefined":
        assert tree.phases == []
    else:
        assert tree.phases[0] == tree.phase


def test_disagreements_name_real_frames():
    """Every listed disagreement points at an existing STATE frame (a renamed file must not hide one)."""
    require_shared(RECORDED_DIR)
    for relative, index in _DISAGREEMENTS:
        path = RECORDED_DIR / relative
        assert path.is_file(), relative
        states = [event for event in yaml.safe_load(path.read_text())["events"] if event.get("kind") == "STATE"]
        assert index < len(states), (relative, index)
