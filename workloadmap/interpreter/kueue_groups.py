"""Kueue's plain-pod groups: the pods of an input that name one group, made the one Workload Kueue composes.

Pods that carry ``kueue.x-k8s.io/pod-group-name`` (an annotation, or the label; Kueue reads the
annotation first since 0.18, ``WorkloadIdentifierAnnotations``) and
``kueue.x-k8s.io/pod-group-total-count`` are admitted by Kueue together, as one Workload named
after the group (kueue ``pkg/controller/jobs/pod/pod_controller.go``). In an input they are one
workload: the first member's document becomes a ``KueuePodGroup`` (``wmap.dev/v1alpha1``,
``catalog/kueue-pod-group.yaml``) holding the PodSets Kueue builds, the other members are folded
into it with a note, as the objects a controller made are folded into their controller
(:mod:`.owned`); :class:`~workloadmap.interpreter.build._Stream` decides both at once.

What Kueue does, step for step (``pod_controller.go``):

* the webhook (``pod_webhook.go`` ``validatePodGroupMetadata``) refuses a member without the
  total count, with one that is not a whole number above zero, or whose group name is no valid
  object name: such a pod never exists, so it is a located error and no member;
* ``constructGroupPodSets``: the runnable pods (not Failed, not deleted before binding:
  ``isPodRunnableOrSucceeded``) of one role hash make one PodSet named by the hash, the PodSets
  sorted by name; with ``pod-group-fast-admission`` (``constructGroupPodSetsFast``) one PodSet of
  the first runnable pod's role, sized by the total count;
* ``validatePodGroupMetadata`` (the controller): members (Failed ones aside) that disagree on the
  total count or on the queue make Kueue compose no Workload at all (an unretryable error): a
  located error at the pod that disagrees;
* ``ConstructComposableWorkload``: runnable pods past the total count are deleted, the youngest
  first (``sortActivePods``: pods with Kueue's finalizer and ungated pods kept first); a warning
  located at each, and they are not counted;
* fewer runnable pods than the total count: Kueue waits (``ErrWorkloadCompose``, "group has fewer
  runnable pods than expected"); the total count still sizes the gang, the pods not yet made
  counted like the first runnable pod (as fast admission counts them), with a warning.

The role hash is the pod's ``kueue.x-k8s.io/role-hash`` annotation (what Kueue's webhook wrote:
a pod read from a cluster has it), else ``utilpod.GenerateRoleHash`` computed here: the sha256
of the JSON of the fields that matter for admission (requests, ports, node selector, affinity,
tolerations, ...), as Go's ``encoding/json`` writes them. The manifest is read as the API server
stores it (requests defaulted from limits) but without admission plugins: a cluster's
``Priority`` plugin sets ``spec.priority`` before Kueue's webhook hashes, so a live pod's hash can
differ from the one computed from its manifest; pods of equal shape share a PodSet either way.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from .. import labels
from ..documents import Document
from ..errors import InputError, QuantityError, WorkloadMapError
from ..quantities import format_quantity, parse_quantity

__all__ = ["group_key", "GroupMember", "decide_groups"]

GroupKey = tuple[str, str]
"""A pod group as Kueue names it: namespace, group name."""

_POD_FINALIZER = "kueue.x-k8s.io/managed"
_SCHEDULING_GATE = "kueue.x-k8s.io/admission"


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _group_name(metadata: Mapping[str, Any]) -> str:
    """``utilpod.GetPodGroupName``: the annotation first (WorkloadIdentifierAnnotations, on since 0.18), else label."""
    for where in ("annotations", "labels"):
        name = _mapping(metadata.get(where)).get(labels.KUEUE_POD_GROUP_NAME)
        if isinstance(name, str) and name:
            return name
    return ""


def group_key(body: Any) -> GroupKey | None:
    """The Kueue pod group a Pod of the input names, if it is one (namespace, name)."""
    if body.__class__ is not dict or body.get("kind") != "Pod" or body.get("apiVersion") != "v1":
        return None
    metadata = body.get("metadata")
    if metadata.__class__ is not dict:
        return None
    name = _group_name(metadata)
    if not name:
        return None
    namespace = metadata.get("namespace")
    return (namespace if isinstance(namespace, str) else "", name)


class GroupMember(NamedTuple):
    """A member of a group: its position in the input and its document."""

    position: int
    document: Document


class GroupDecision(NamedTuple):
    """What becomes of a group's documents: replaced (the group, or an error) and skipped with a note."""

    replaced: dict[int, Document | WorkloadMapError]
    notes: dict[int, str]


def _where(document: Document) -> str:
    return f"{document.file}: document {document.label}"


_COUNT_FIELD = ("metadata", "annotations", labels.KUEUE_POD_GROUP_TOTAL_COUNT)
_ATOI = re.compile(r"[+-]?[0-9]+")
_DNS_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")


def _total_count(metadata: Mapping[str, Any]) -> int | str:
    """The member's total count, or the webhook's reason for refusing the pod (``groupTotalCount``)."""
    annotations = _mapping(metadata.get("annotations"))
    if labels.KUEUE_POD_GROUP_TOTAL_COUNT not in annotations:
        where = "annotation" if _mapping(metadata.get("annotations")).get(labels.KUEUE_POD_GROUP_NAME) else "label"
        return (
            f"both the '{labels.KUEUE_POD_GROUP_TOTAL_COUNT}' annotation and the "
            f"'{labels.KUEUE_POD_GROUP_NAME}' {where} should be set"
        )
    text = annotations[labels.KUEUE_POD_GROUP_TOTAL_COUNT]
    if not isinstance(text, str) or not _ATOI.fullmatch(text) or len(text) > 19:
        return f'strconv.Atoi: parsing "{text}": invalid syntax'
    count = int(text)
    if count < 1:
        return (
            f"incorrect annotation value '{labels.KUEUE_POD_GROUP_TOTAL_COUNT}={text}': "
            "group total count should be greater than zero"
        )
    return count


def _webhook_error(member: GroupMember) -> WorkloadMapError | None:
    """What Kueue's pod webhook refuses of a member (it is never created), as a located error."""
    document = member.document
    metadata = _mapping(document.body.get("metadata"))
    name = _group_name(metadata)
    if len(name) > 253 or not _DNS_SUBDOMAIN.fullmatch(name):
        where = "annotations" if _mapping(metadata.get("annotations")).get(labels.KUEUE_POD_GROUP_NAME) else "labels"
        return InputError(
            f"Kueue's pod webhook refuses the pod: the group name {name!r} is not a valid object name "
            "(a DNS-1123 subdomain)",
            file=document.file,
            document=document.label,
            field=("metadata", where, labels.KUEUE_POD_GROUP_NAME),
        )
    count = _total_count(metadata)
    if isinstance(count, str):
        return InputError(
            f"Kueue's pod webhook refuses the pod: {count}",
            file=document.file,
            document=document.label,
            field=_COUNT_FIELD,
        )
    return None


def _runnable(body: Mapping[str, Any]) -> bool:
    """``isPodRunnableOrSucceeded``: not Failed, and not deleted before it was bound."""
    metadata, spec = _mapping(body.get("metadata")), _mapping(body.get("spec"))
    if metadata.get("deletionTimestamp") and not spec.get("nodeName"):
        return False
    return _mapping(body.get("status")).get("phase") != "Failed"


def _queue(metadata: Mapping[str, Any]) -> Any:
    return _mapping(metadata.get("labels")).get(labels.KUEUE_QUEUE_NAME)


def _kept_first(member: GroupMember) -> tuple[bool, bool, str, int]:
    """``sortActivePods``: pods with Kueue's finalizer first, then ungated ones, then the oldest (input order)."""
    body = member.document.body
    metadata, spec = _mapping(body.get("metadata")), _mapping(body.get("spec"))
    finalizers = metadata.get("finalizers")
    gates = spec.get("schedulingGates")
    gated = isinstance(gates, list) and any(_mapping(gate).get("name") == _SCHEDULING_GATE for gate in gates)
    created = metadata.get("creationTimestamp")
    return (
        not (isinstance(finalizers, list) and _POD_FINALIZER in finalizers),
        gated,
        created if isinstance(created, str) else "",
        member.position,
    )


def _pod_name(document: Document) -> str:
    name = _mapping(document.body.get("metadata")).get("name")
    return name if isinstance(name, str) else "?"


def decide_groups(groups: Mapping[GroupKey, Sequence[GroupMember]]) -> GroupDecision:
    """Each group's documents: the first runnable member's becomes the group, the others notes (or errors)."""
    replaced: dict[int, Document | WorkloadMapError] = {}
    notes: dict[int, str] = {}
    for key, members in groups.items():
        _decide(key, members, replaced, notes)
    return GroupDecision(replaced, notes)


def _decide(
    key: GroupKey,
    members: Sequence[GroupMember],
    replaced: dict[int, Document | WorkloadMapError],
    notes: dict[int, str],
) -> None:
    namespace, name = key
    label = f"{namespace}/{name}" if namespace else name
    valid: list[GroupMember] = []
    for member in members:
        error = _webhook_error(member)
        if error is None:
            valid.append(member)
        else:
            replaced[member.position] = error
    if not valid:
        return
    head = valid[0]  # the pod being reconciled: Kueue reads the total count from it
    total = _total_count(_mapping(head.document.body.get("metadata")))
    assert isinstance(total, int)
    refusal = _disagreement(head, valid, total)
    runnable = [member for member in valid if _runnable(member.document.body)]
    warnings: list[str] = []
    if refusal is None and len(runnable) > total:  # ConstructComposableWorkload: the youngest past the count go
        ordered = sorted(runnable, key=_kept_first)
        for member in ordered[total:]:
            warnings.append(
                f"{_where(member.document)}: Kueue deletes this pod, one more than the group's "
                f"{labels.KUEUE_POD_GROUP_TOTAL_COUNT} {total} (the youngest go first: ExcessPodDeleted); not counted"
            )
        kept = {member.position for member in ordered[:total]}
        runnable = [member for member in runnable if member.position in kept]
    first = runnable[0] if runnable else head
    counted = "which Kueue refuses (the error at its first member)" if refusal else "counted there"
    for member in valid:
        if member is not first:
            notes[member.position] = (
                f"{_where(member.document)}: part of Kueue pod group {label} of this input "
                f"({labels.KUEUE_POD_GROUP_KIND}/{name}), {counted}"
            )
    if refusal is not None:  # located at the pod that disagrees, given in the first member's place
        replaced[first.position] = refusal
    elif not runnable:
        notes[first.position] = (
            f"{_where(first.document)}: Kueue pod group {label}: no runnable pod (all Failed or deleted), "
            "nothing to count"
        )
    else:
        replaced[first.position] = _group_document(key, first, runnable, total, warnings)


def _disagreement(head: GroupMember, members: Sequence[GroupMember], total: int) -> WorkloadMapError | None:
    """``validatePodGroupMetadata``: a member (Failed ones aside) with another total count or queue."""
    head_metadata = _mapping(head.document.body.get("metadata"))
    queue = _queue(head_metadata)
    for member in members:
        body = member.document.body
        if _mapping(body.get("status")).get("phase") == "Failed":
            continue
        metadata = _mapping(body.get("metadata"))
        document = member.document
        theirs = _queue(metadata)
        if theirs != queue:
            return InputError(
                f"Kueue composes no Workload for the group: pods '{_pod_name(head.document)}' and "
                f"'{_pod_name(document)}' has different queue names: {queue or ''}!={theirs or ''}",
                file=document.file,
                document=document.label,
                field=("metadata", "labels", labels.KUEUE_QUEUE_NAME),
            )
        count = _total_count(metadata)
        if count != total:
            return InputError(
                f"Kueue composes no Workload for the group: pods '{_pod_name(head.document)}' and "
                f"'{_pod_name(document)}' has different '{labels.KUEUE_POD_GROUP_TOTAL_COUNT}' values: "
                f"{total}!={count}",
                file=document.file,
                document=document.label,
                field=_COUNT_FIELD,
            )
    return None


def _group_document(
    key: GroupKey, first: GroupMember, runnable: Sequence[GroupMember], total: int, warnings: list[str]
) -> Document | WorkloadMapError:
    """The ``KueuePodGroup`` that stands for the group, in the first runnable member's place."""
    namespace, name = key
    head_metadata = _mapping(first.document.body.get("metadata"))
    fast = _mapping(head_metadata.get("annotations")).get(labels.KUEUE_POD_GROUP_FAST_ADMISSION) == "true"
    try:
        roles = [(role_hash(member.document.body), member) for member in runnable]
    except QuantityError as error:
        document = first.document
        return error.located(file=document.file, document=document.label)
    pod_sets: dict[str, dict[str, Any]] = {}
    for role, member in roles[:1] if fast else roles:
        if role in pod_sets:
            pod_sets[role]["count"] += 1
            pod_sets[role]["pods"].append(_pod_name(member.document))
            continue
        body = member.document.body
        metadata = _mapping(body.get("metadata"))
        template_metadata = {key: metadata[key] for key in ("labels", "annotations") if key in metadata}
        pod_sets[role] = {
            "name": role,
            "count": 1,
            "pods": [_pod_name(member.document)],
            "template": {"metadata": template_metadata, "spec": body.get("spec")},
        }
    first_role = roles[0][0]
    if fast:  # constructGroupPodSetsFast: the first runnable pod's role, sized by the total count
        pod_sets[first_role]["count"] = total
    elif len(runnable) < total:
        missing = total - len(runnable)
        pod_sets[first_role]["count"] += missing
        warnings.append(
            f"'{name}' group has fewer runnable pods than expected ({len(runnable)} of "
            f"{labels.KUEUE_POD_GROUP_TOTAL_COUNT} {total}): Kueue composes no Workload until all exist "
            f"(ErrWorkloadCompose); the gang is sized by the total count, the {missing} missing counted "
            f"like pod {_pod_name(first.document)}"
        )
    group_metadata: dict[str, Any] = {"name": name}
    if namespace:
        group_metadata["namespace"] = namespace
    queue = _queue(head_metadata)
    if queue is not None:
        group_metadata["labels"] = {labels.KUEUE_QUEUE_NAME: queue}
    body = {
        "apiVersion": labels.KUEUE_POD_GROUP_API_VERSION,
        "kind": labels.KUEUE_POD_GROUP_KIND,
        "metadata": group_metadata,
        "spec": {
            "totalCount": total,
            "fastAdmission": fast,
            "podSets": sorted(pod_sets.values(), key=lambda pod_set: pod_set["name"]),
        },
    }
    document = first.document
    return Document(body, document.file, document.index, document.item, [*document.warnings, *warnings])


# -- the role hash -------------------------------------------------------------------------------

_Schema = Mapping[str, tuple[bool, Any]]
"""A Go struct as encoding/json writes it: each JSON field, in declaration order, with whether it is
``omitempty`` and the schema of its value (a schema, ``"list"`` of one, ``"quantities"``, or None)."""

_LABEL_SELECTOR: _Schema = {
    "matchLabels": (True, None),
    "matchExpressions": (True, [{"key": (False, None), "operator": (False, None), "values": (True, None)}]),
}
_NODE_SELECTOR_TERM: _Schema = {
    "matchExpressions": (True, [{"key": (False, None), "operator": (False, None), "values": (True, None)}]),
    "matchFields": (True, [{"key": (False, None), "operator": (False, None), "values": (True, None)}]),
}
_POD_AFFINITY_TERM: _Schema = {
    "labelSelector": (True, _LABEL_SELECTOR),
    "namespaces": (True, None),
    "topologyKey": (False, None),
    "namespaceSelector": (True, _LABEL_SELECTOR),
    "matchLabelKeys": (True, None),
    "mismatchLabelKeys": (True, None),
}
_POD_AFFINITY: _Schema = {
    "requiredDuringSchedulingIgnoredDuringExecution": (True, [_POD_AFFINITY_TERM]),
    "preferredDuringSchedulingIgnoredDuringExecution": (
        True,
        [{"weight": (False, None), "podAffinityTerm": (False, _POD_AFFINITY_TERM)}],
    ),
}
_AFFINITY: _Schema = {  # core/v1 types.go Affinity, NodeAffinity, PodAffinity, PodAntiAffinity
    "nodeAffinity": (
        True,
        {
            "requiredDuringSchedulingIgnoredDuringExecution": (
                True,
                {"nodeSelectorTerms": (False, [_NODE_SELECTOR_TERM])},
            ),
            "preferredDuringSchedulingIgnoredDuringExecution": (
                True,
                [{"weight": (False, None), "preference": (False, _NODE_SELECTOR_TERM)}],
            ),
        },
    ),
    "podAffinity": (True, _POD_AFFINITY),
    "podAntiAffinity": (True, _POD_AFFINITY),
}
_TOLERATION: _Schema = {
    "key": (True, None),
    "operator": (True, None),
    "value": (True, None),
    "effect": (True, None),
    "tolerationSeconds": (True, None),
}
_SPREAD: _Schema = {
    "maxSkew": (False, None),
    "topologyKey": (False, None),
    "whenUnsatisfiable": (False, None),
    "labelSelector": (True, _LABEL_SELECTOR),
    "minDomains": (True, None),
    "nodeAffinityPolicy": (True, None),
    "nodeTaintsPolicy": (True, None),
    "matchLabelKeys": (True, None),
}
_PORT: _Schema = {
    "name": (True, None),
    "hostPort": (True, None),
    "containerPort": (False, None),
    "protocol": (True, None),
    "hostIP": (True, None),
}
_CLAIM: _Schema = {"name": (False, None), "resourceClaimName": (True, None), "resourceClaimTemplateName": (True, None)}


def _empty(value: Any) -> bool:
    return value is None or value is False or value == 0 or value == "" or value == [] or value == {}


def _go(value: Any, schema: Any) -> Any:
    """``value`` as Go decodes and re-encodes it: struct fields in order, omitempty ones left out, maps sorted."""
    if value is None:
        return None
    if schema == "quantities":
        return {key: format_quantity(parse_quantity(amount), binary=_binary(amount)) for key, amount in value.items()}
    if isinstance(schema, list):  # a nil slice is null, an empty one [] (omitempty drops both in a struct)
        return [_go(item, schema[0]) for item in value] if isinstance(value, list) else None
    if isinstance(schema, Mapping):
        if not isinstance(value, Mapping):
            return None
        out: dict[str, Any] = {}
        for field, (omitempty, inner) in schema.items():
            item = _go(value.get(field), inner)
            if not (omitempty and _empty(item)):
                out[field] = item
        return _Ordered(out)
    return value


def _binary(amount: Any) -> bool:
    # Quantity keeps the format it was written in: BinarySI for Ki, Mi, ... (resource.Quantity.CanonicalizeBytes)
    return isinstance(amount, str) and amount.rstrip().endswith("i")


class _Ordered(dict[str, Any]):
    """A Go struct: its fields in declaration order (encoding/json does not sort them, as it sorts maps)."""


def _encode(value: Any) -> str:
    if isinstance(value, _Ordered):
        return "{" + ",".join(f"{json.dumps(key)}:{_encode(item)}" for key, item in value.items()) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{json.dumps(key)}:{_encode(value[key])}" for key in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_encode(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _requests(container: Mapping[str, Any]) -> Any:
    """The container's requests as the API server stores them: a limit without a request is its request."""
    resources = _mapping(container.get("resources"))
    requests = resources.get("requests")
    limits = resources.get("limits")
    merged = dict(limits) if isinstance(limits, Mapping) else {}
    if isinstance(requests, Mapping):
        merged.update(requests)
    return _go(merged, "quantities") if merged else None


def _containers(containers: Any) -> Any:
    """``utilpod.ContainersShape``: each container's requests and ports."""
    if not isinstance(containers, list) or not containers:
        return None
    return [
        {
            "resources": {"requests": _requests(_mapping(container))},
            "ports": _go(_mapping(container).get("ports"), [_PORT]),
        }
        for container in containers
    ]


def role_hash(body: Mapping[str, Any]) -> str:
    """A pod's role hash: its ``kueue.x-k8s.io/role-hash`` annotation, else ``utilpod.GenerateRoleHash`` of its spec."""
    annotation = _mapping(_mapping(body.get("metadata")).get("annotations")).get(labels.KUEUE_ROLE_HASH)
    if isinstance(annotation, str):
        return annotation
    spec = _mapping(body.get("spec"))
    shape: dict[str, Any] = {  # utilpod.SpecShape
        "initContainers": _containers(spec.get("initContainers")),
        "containers": _containers(spec.get("containers")),
        "nodeSelector": spec.get("nodeSelector"),
        "affinity": _go(spec.get("affinity"), _AFFINITY),
        "tolerations": _go(spec.get("tolerations"), [_TOLERATION]),
        "runtimeClassName": spec.get("runtimeClassName"),
        "priority": spec.get("priority"),
        "topologySpreadConstraints": _go(spec.get("topologySpreadConstraints"), [_SPREAD]),
        "overhead": _go(spec.get("overhead"), "quantities") if isinstance(spec.get("overhead"), Mapping) else None,
        "resourceClaims": _go(spec.get("resourceClaims"), [_CLAIM]),
    }
    resources = spec.get("resources")  # pod-level resources (KEP-2837) count only when set
    if isinstance(resources, Mapping):
        requests = resources.get("requests")
        shape["resources"] = _go(requests, "quantities") if isinstance(requests, Mapping) else None
    return hashlib.sha256(_encode({"spec": shape}).encode()).hexdigest()[:8]
