"""The Job controller's own Workload and PodGroup (KEP-5547), where its feature gate is on.

kubernetes ``pkg/controller/job/job_scheduling_manager.go`` makes, for a Job it manages, a
``Workload`` (``spec.controllerRef`` the Job, one template ``<job>-pgt-0``) and a runtime
``PodGroup`` from that template, and creates the Job's pods joined to it. Which Jobs, and with what
policy, depends on the release, told apart here by the gate's name (``--feature-gates``):

* ``EnableWorkloadWithJob`` (1.36): ``shouldManageWorkloadForJob`` =
  ``jobutil.IsGangSchedulingCandidate``: ``parallelism`` > 1, ``completionMode: Indexed``,
  ``completions`` == ``parallelism``, no ``schedulingGroup`` in the pod template; the template's
  policy is ``gang {minCount: parallelism}``.
* ``WorkloadWithJob`` (1.37): every Job without a ``schedulingGroup`` and without a controller
  owner (a parent owns the Workload then; with ``scheduling.k8s.io/group-template-name`` it
  delegates the PodGroup, not modelled here); the policy is ``spec.scheduling.schedulingPolicy``,
  ``basic`` when unset, a gang without ``minCount`` taking ``parallelism`` (``defaultMinCountForJob``),
  and ``spec.scheduling.schedulingConstraints.topology`` is copied.

Objects are created only for a new Job (``isNewJob``: no pods, no ``status.startTime``, nothing
succeeded or failed, never suspended); a Job that has started keeps its gangs as they were. The
names hash the Job's UID (``computeWorkloadName``) and the Workload and template names
(``computePodGroupName``): with a UID the PodGroup is looked for where references are (the input,
``--related``, the cluster) and, found, read as the scheduler reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..budgets import feature_gates
from ..labels import (
    JOB_DELEGATED_TEMPLATE,
    JOB_INDEXED,
    JOB_SUSPENDED_CONDITION,
    JOB_WORKLOAD_GATE,
    JOB_WORKLOAD_GATE_ALPHA,
    NATIVE_POD_GROUP_KIND,
    SCHEDULING_GROUP,
)
from ..tree import GangOrigin, GangSource, object_conditions
from .expand import ExpandedComponent
from .native import NativeGangs, NativeJoin, disagreements, joined_pod_group, read_pod_group, read_policy, topology_key
from .references import RelatedObjects

__all__ = [
    "job_controller_gangs",
    "gang_scheduling_candidate",
    "workload_name",
    "pod_group_name",
    "template_name",
    "job_controller_policy",
]

_DNS1123_SUBDOMAIN_MAX = 253
_SAFE_ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789"  # apimachinery pkg/util/rand SafeEncodeString


def job_controller_policy(gate: str) -> str:
    """The tree's ``gangPolicy`` when the Job controller's PodGroup is the gang."""
    return (
        f"Kubernetes Job controller ({gate}): the Workload and PodGroup it makes for the Job"
        " (kube-scheduler's GangScheduling: gang minCount, basic = no minimum)"
    )


def _fnv1a32(data: bytes) -> int:
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def _safe_encode(text: str) -> str:
    return "".join(_SAFE_ALPHANUMS[ord(char) % len(_SAFE_ALPHANUMS)] for char in text)


def _go_quoted(text: str) -> str:
    """``strconv.Quote`` for the printable ASCII a UID is made of."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def workload_name(job: str, uid: str) -> str:
    """``computeWorkloadName``: ``<job>-<hash>``, the FNV-1a hash of spew's ``%#v`` of the UID, re-spelled."""
    digest = _safe_encode(str(_fnv1a32(f"(types.UID){_go_quoted(uid)}".encode())))
    return f"{job[: _DNS1123_SUBDOMAIN_MAX - len(digest) - 1]}-{digest}"


def pod_group_name(workload: str, template: str) -> str:
    """``computePodGroupName``: ``<workload>-<template>-<hash>``, each part cut to its share of 253 characters."""
    digest = _safe_encode(str(_fnv1a32(workload.encode() + template.encode())))
    available = _DNS1123_SUBDOMAIN_MAX - len(digest) - 2
    if len(workload) + len(template) > available:
        half = available // 2
        if len(workload) <= half:
            template = template[: available - len(workload)]
        elif len(template) <= half:
            workload = workload[: available - len(template)]
        else:
            workload, template = workload[: available - half], template[:half]
    return f"{workload}-{template}-{digest}"


def template_name(job: str) -> str:
    """``podGroupTemplateName``: the one template the controller compiles for a Job."""
    return f"{job}-pgt-0"


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def gang_scheduling_candidate(
    parallelism: int | None, completions: int | None, indexed: bool, has_scheduling_group: bool
) -> bool:
    """1.36 ``jobutil.IsGangSchedulingCandidate``."""
    return (
        parallelism is not None
        and parallelism > 1
        and indexed
        and completions is not None
        and completions == parallelism
        and not has_scheduling_group
    )


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _is_new(resource: Mapping[str, Any]) -> bool:
    """``isNewJob`` on what an object shows (its pods are not counted: a Job with pods has a startTime)."""
    status = _mapping(resource.get("status"))
    if status.get("startTime") or status.get("succeeded") or status.get("failed"):
        return False
    conditions = status.get("conditions")
    return not any(
        isinstance(item, Mapping) and item.get("type") == JOB_SUSPENDED_CONDITION for item in conditions or []
    )


def _controller_owner(resource: Mapping[str, Any]) -> str | None:
    for owner in _mapping(resource.get("metadata")).get("ownerReferences") or []:
        if isinstance(owner, Mapping) and owner.get("controller") is True:
            return f"{owner.get('kind')} {owner.get('name')}"
    return None


def _policy(gate: str, spec: Mapping[str, Any]) -> tuple[dict[str, Any], Any] | None:
    """The template's (schedulingPolicy, schedulingConstraints); None when the controller manages nothing."""
    parallelism = _count(spec.get("parallelism"))
    if gate == JOB_WORKLOAD_GATE_ALPHA:
        if not gang_scheduling_candidate(
            parallelism, _count(spec.get("completions")), spec.get("completionMode") == JOB_INDEXED, False
        ):
            return None
        return {"gang": {"minCount": parallelism}}, None
    scheduling = _mapping(spec.get("scheduling"))
    policy = _mapping(scheduling.get("schedulingPolicy"))
    gang = policy.get("gang")
    if isinstance(gang, Mapping):
        count = _count(gang.get("minCount"))
        # defaultMinCountForJob: ptr.Deref(job.Spec.Parallelism, 1)
        return {"gang": {"minCount": count if count is not None else (parallelism or 1)}}, scheduling.get(
            "schedulingConstraints"
        )
    return {"basic": {}}, scheduling.get("schedulingConstraints")


def job_controller_gangs(
    resource: Mapping[str, Any],
    roots: Sequence[ExpandedComponent],
    related: RelatedObjects,
    namespace: str | None,
    own: Sequence[Any],
    own_policy: str,
) -> tuple[NativeGangs, str] | None:
    """The Job's gang as the Job controller makes it, and the tree's ``gangPolicy``; None when it makes none.

    ``resource`` is a ``batch/v1`` Job; the gate turned on (:func:`~workloadmap.budgets.feature_gates`)
    chooses the release's rule (the module docstring).
    """
    gates = feature_gates()
    # 1.37's rule where both are on: a cluster has one release
    gate = next((name for name in (JOB_WORKLOAD_GATE, JOB_WORKLOAD_GATE_ALPHA) if name in gates), None)
    if gate is None:
        return None
    spec = _mapping(resource.get("spec"))
    if _mapping(_mapping(_mapping(spec.get("template")).get("spec")).get("schedulingGroup")):
        return None  # the user's own PodGroup: the native reading takes it
    result = NativeGangs()
    if gate == JOB_WORKLOAD_GATE:
        owner = _controller_owner(resource)
        annotations = _mapping(_mapping(resource.get("metadata")).get("annotations"))
        if owner is not None:
            if JOB_DELEGATED_TEMPLATE in annotations:
                result.warnings.append(
                    f"{JOB_DELEGATED_TEMPLATE}: the Job controller makes this Job's PodGroup from its parent's"
                    f" ({owner}) Workload template, which wmap does not model; the gangs shown are the definition's"
                )
                return result, own_policy
            return None  # the parent owns the Workload (KEP-5547; TestShouldManageWorkloadForJob)
    chosen = _policy(gate, spec)
    if chosen is None:
        return None
    join = _join(resource, gate, chosen, roots, related, namespace, result.warnings)
    if join is None:
        return result, own_policy
    result.pod_groups = [joined_pod_group(join, result.warnings)]
    result.warnings.extend(disagreements(result.pod_groups, own, own_policy, resource))
    return result, job_controller_policy(gate)


def _join(
    resource: Mapping[str, Any],
    gate: str,
    chosen: tuple[dict[str, Any], Any],
    roots: Sequence[ExpandedComponent],
    related: RelatedObjects,
    namespace: str | None,
    warnings: list[str],
) -> NativeJoin | None:
    """The Job's one group: its PodGroup as read where it exists, else as the controller would make it.

    None when the controller makes none (a Job that has started) and none was found.
    """
    policy, constraints = chosen
    metadata = _mapping(resource.get("metadata"))
    job, uid = str(metadata.get("name") or ""), metadata.get("uid")
    template = template_name(job)
    join = NativeJoin(template)
    join.members = [leaf for root in roots for leaf in root.leaves() if leaf.demand is not None]
    found = None
    if isinstance(uid, str) and uid:
        join.name = pod_group_name(workload_name(job, uid), template)
        found = related.find(f"{NATIVE_POD_GROUP_KIND}.{SCHEDULING_GROUP}", join.name, namespace, True)
        if found is not None and str(found.get("apiVersion", "")).split("/")[0] != SCHEDULING_GROUP:
            found = None
    if found is not None:
        read_pod_group(join, found)
        api_version = found.get("apiVersion")
        join.source = GangSource(
            GangOrigin.JOB_CONTROLLER,
            api_version=api_version if isinstance(api_version, str) else None,
            kind=NATIVE_POD_GROUP_KIND,
            name=join.name,
            feature_gate=gate,
            conditions=object_conditions(found),
        )
    elif not _is_new(resource):
        warnings.append(
            f"{gate}: the Job has started (status), so the Job controller makes no Workload or PodGroup for it"
            " (isNewJob) and none was found; the gangs shown are the definition's"
        )
        return None
    else:
        read_policy(join, policy)
        join.key = topology_key(constraints)
        join.source = GangSource(
            GangOrigin.JOB_CONTROLLER,
            kind=NATIVE_POD_GROUP_KIND,
            name=join.name if uid else None,
            feature_gate=gate,
            created=False,
        )
        if not uid:
            warnings.append(
                f"{gate}: the Job has no metadata.uid, which the names of its Workload and PodGroup hash"
                f" (computeWorkloadName); the gang is named after its template {template}"
            )
    return join
