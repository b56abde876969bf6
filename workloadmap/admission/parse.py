"""Field readers for the queue objects, each failure located (file, document, field).

``cluster_queue``, ``cohort``, ``local_queue``, ``queued_workload`` and ``kai_queue`` read one
object each, normalising Kueue's v1beta1 spellings to v1beta2 (``spec.cohort`` →
``spec.cohortName``, ``spec.admissionChecks`` → ``admissionChecksStrategy``, ``Borrow`` /
``Preempt`` fungibility → ``MayStopSearch``; ``apis/kueue/v1beta1/clusterqueue_conversion.go``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InputError
from ..quantities import parse_quantity
from ..resources import pod_demand
from ..scheduling import Requirement, pod_scheduling
from .amounts import parse_amount, to_amount
from .objects import (
    KAI_RESOURCES,
    AdmittedPodSet,
    ClusterQueue,
    Cohort,
    FlavorQuotas,
    FlavorResource,
    Fungibility,
    KaiQueue,
    KaiResource,
    LabelSelector,
    LocalQueue,
    Preemption,
    QueuedPodSet,
    QueuedWorkload,
    Quota,
    ResourceGroup,
    TopologyAssignment,
    TopologyDomain,
)

__all__ = [
    "Reader",
    "cluster_queue",
    "cohort",
    "local_queue",
    "queued_workload",
    "kai_queue",
    "topology_assignment",
    "workload_status",
]

Path = tuple[str | int, ...]
_STOP_POLICIES = ("None", "Hold", "HoldAndDrain")
_POLICIES = ("Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any")
_FUNGIBILITY = {"MayStopSearch": "MayStopSearch", "TryNextFlavor": "TryNextFlavor", "Borrow": "MayStopSearch",
                "Preempt": "MayStopSearch"}  # fmt: skip
_PREFERENCES = ("BorrowingOverPreemption", "PreemptionOverBorrowing")
_STRATEGIES = ("StrictFIFO", "BestEffortFIFO")
_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


@dataclass(frozen=True)
class Reader:
    """Typed access to one document's fields; every failure names the file, the document and the field."""

    file: str
    document: str

    def fail(self, message: str, path: Path) -> InputError:
        """An error located at ``path`` of this document."""
        return InputError(message, file=self.file, document=self.document, field=list(path))

    def mapping(self, value: Any, path: Path) -> Mapping[str, Any]:
        """``value`` (found at ``path``) as a mapping; absent is empty."""
        if value is None:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(f"expected a mapping, got {type(value).__name__}", path)
        return value

    def child(self, parent: Mapping[str, Any], path: Path) -> Mapping[str, Any]:
        """The mapping at ``parent[path[-1]]`` (``path`` is where it is in the document); absent is empty."""
        return self.mapping(parent.get(str(path[-1])), path)

    def sequence(self, value: Any, path: Path) -> Sequence[Any]:
        """A list field; absent is empty."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(f"expected a list, got {type(value).__name__}", path)
        return value

    def text(self, value: Any, path: Path, *, required: bool = False) -> str:
        """A string field (absent: ``""``, or an error when ``required``)."""
        if value is None or value == "":
            if required:
                raise self.fail("is required", path)
            return ""
        if not isinstance(value, str):
            raise self.fail(f"expected a string, got {type(value).__name__}", path)
        return value

    def choice(self, value: Any, choices: Sequence[str], path: Path, default: str) -> str:
        """A string field that must be one of ``choices``."""
        text = self.text(value, path) or default
        if text not in choices:
            raise self.fail(f"{text!r} is not one of {', '.join(choices)}", path)
        return text

    def integer(self, value: Any, path: Path, *, required: bool = False, default: int = 0) -> int:
        """A whole-number field."""
        if value is None:
            if required:
                raise self.fail("is required", path)
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"expected a whole number, got {value!r}", path)
        return value

    def number(self, value: Any, path: Path, default: float = 0.0) -> float:
        """A (float) number field."""
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(f"expected a number, got {value!r}", path)
        return float(value)

    def amount(self, resource: str, value: Any, path: Path) -> int:
        """A quantity as Kueue's integer for ``resource``."""
        if value is None:
            raise self.fail("is required", path)
        try:
            amount = parse_amount(resource, value)
        except InputError as error:
            raise self.fail(error.message, path) from None
        if amount < 0:
            raise self.fail("must not be negative", path)
        return amount


def _groups(reader: Reader, spec: Mapping[str, Any], path: Path) -> tuple[ResourceGroup, ...]:
    groups = []
    for index, raw in enumerate(reader.sequence(spec.get("resourceGroups"), path)):
        where = (*path, index)
        group = reader.mapping(raw, where)
        covered = tuple(
            reader.text(item, (*where, "coveredResources", i), required=True)
            for i, item in enumerate(reader.sequence(group.get("coveredResources"), (*where, "coveredResources")))
        )
        flavors = []
        for f_index, raw_flavor in enumerate(reader.sequence(group.get("flavors"), (*where, "flavors"))):
            at = (*where, "flavors", f_index)
            flavor = reader.mapping(raw_flavor, at)
            name = reader.text(flavor.get("name"), (*at, "name"), required=True)
            quotas: dict[str, Quota] = {}
            for r_index, raw_resource in enumerate(reader.sequence(flavor.get("resources"), (*at, "resources"))):
                spot = (*at, "resources", r_index)
                item = reader.mapping(raw_resource, spot)
                resource = reader.text(item.get("name"), (*spot, "name"), required=True)
                if resource not in covered:
                    raise reader.fail(f"{resource} is not one of the group's coveredResources", (*spot, "name"))
                borrowing, lending = item.get("borrowingLimit"), item.get("lendingLimit")
                quotas[resource] = Quota(
                    reader.amount(resource, item.get("nominalQuota"), (*spot, "nominalQuota")),
                    None if borrowing is None else reader.amount(resource, borrowing, (*spot, "borrowingLimit")),
                    None if lending is None else reader.amount(resource, lending, (*spot, "lendingLimit")),
                )
            flavors.append(FlavorQuotas(name, quotas))
        groups.append(ResourceGroup(covered, tuple(flavors)))
    return tuple(groups)


def _selector(reader: Reader, raw: Any, path: Path) -> LabelSelector | None:
    if raw is None:
        return None
    selector = reader.mapping(raw, path)
    pairs = tuple(sorted((str(k), str(v)) for k, v in reader.child(selector, (*path, "matchLabels")).items()))
    expressions = []
    for index, item in enumerate(reader.sequence(selector.get("matchExpressions"), (*path, "matchExpressions"))):
        at = (*path, "matchExpressions", index)
        entry = reader.mapping(item, at)
        operator = reader.choice(entry.get("operator"), _SELECTOR_OPERATORS, (*at, "operator"), "")
        values = tuple(str(value) for value in reader.sequence(entry.get("values"), (*at, "values")))
        expressions.append(Requirement(reader.text(entry.get("key"), (*at, "key"), required=True), operator, values))
    return LabelSelector(pairs, tuple(expressions))


def _preemption(reader: Reader, raw: Mapping[str, Any]) -> Preemption:
    path: Path = ("spec", "preemption")
    borrow = reader.mapping(raw.get("borrowWithinCohort"), (*path, "borrowWithinCohort"))
    threshold = borrow.get("maxPriorityThreshold")
    return Preemption(
        reader.choice(raw.get("withinClusterQueue"), _POLICIES, (*path, "withinClusterQueue"), "Never"),
        reader.choice(raw.get("reclaimWithinCohort"), _POLICIES, (*path, "reclaimWithinCohort"), "Never"),
        reader.choice(
            borrow.get("policy"), ("Never", "LowerPriority"), (*path, "borrowWithinCohort", "policy"), "Never"
        ),
        None if threshold is None else reader.integer(threshold, (*path, "borrowWithinCohort", "maxPriorityThreshold")),
    )


def _fungibility(reader: Reader, raw: Mapping[str, Any]) -> Fungibility:
    path: Path = ("spec", "flavorFungibility")
    borrow = reader.choice(raw.get("whenCanBorrow"), tuple(_FUNGIBILITY), (*path, "whenCanBorrow"), "MayStopSearch")
    preempt = reader.choice(raw.get("whenCanPreempt"), tuple(_FUNGIBILITY), (*path, "whenCanPreempt"), "TryNextFlavor")
    preference = raw.get("preference")
    if preference is not None:
        preference = reader.choice(preference, _PREFERENCES, (*path, "preference"), "")
    return Fungibility(_FUNGIBILITY[borrow], _FUNGIBILITY[preempt], preference)


def _checks(reader: Reader, spec: Mapping[str, Any]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    checks: list[tuple[str, tuple[str, ...]]] = []
    for index, name in enumerate(reader.sequence(spec.get("admissionChecks"), ("spec", "admissionChecks"))):
        checks.append((reader.text(name, ("spec", "admissionChecks", index), required=True), ()))  # v1beta1
    strategy = reader.mapping(spec.get("admissionChecksStrategy"), ("spec", "admissionChecksStrategy"))
    path: Path = ("spec", "admissionChecksStrategy", "admissionChecks")
    for index, raw in enumerate(reader.sequence(strategy.get("admissionChecks"), path)):
        entry = reader.mapping(raw, (*path, index))
        flavors = tuple(str(f) for f in reader.sequence(entry.get("onFlavors"), (*path, index, "onFlavors")))
        checks.append((reader.text(entry.get("name"), (*path, index, "name"), required=True), flavors))
    return tuple(checks)


def _reserved(reader: Reader, status: Mapping[str, Any]) -> dict[FlavorResource, int] | None:
    raw = status.get("flavorsReservation")
    if raw is None:
        return None
    reserved: dict[FlavorResource, int] = {}
    for index, item in enumerate(reader.sequence(raw, ("status", "flavorsReservation"))):
        at = ("status", "flavorsReservation", index)
        flavor = reader.mapping(item, at)
        name = reader.text(flavor.get("name"), (*at, "name"), required=True)
        for r_index, resource in enumerate(reader.sequence(flavor.get("resources"), (*at, "resources"))):
            entry = reader.mapping(resource, (*at, "resources", r_index))
            resource_name = reader.text(entry.get("name"), (*at, "resources", r_index, "name"), required=True)
            total = entry.get("total", 0)
            reserved[(name, resource_name)] = reader.amount(resource_name, total, (*at, "resources", r_index, "total"))
    return reserved


def cluster_queue(reader: Reader, body: Mapping[str, Any], name: str) -> ClusterQueue:
    """A ClusterQueue (v1beta2, or v1beta1 normalised)."""
    spec = reader.child(body, ("spec",))
    cohort_name = reader.text(spec.get("cohortName"), ("spec", "cohortName")) or reader.text(
        spec.get("cohort"), ("spec", "cohort")
    )
    return ClusterQueue(
        name=name,
        cohort=cohort_name or None,
        resource_groups=_groups(reader, spec, ("spec", "resourceGroups")),
        namespace_selector=_selector(reader, spec.get("namespaceSelector"), ("spec", "namespaceSelector")),
        queueing_strategy=reader.choice(
            spec.get("queueingStrategy"), _STRATEGIES, ("spec", "queueingStrategy"), "BestEffortFIFO"
        ),
        fungibility=_fungibility(reader, reader.child(spec, ("spec", "flavorFungibility"))),
        preemption=_preemption(reader, reader.child(spec, ("spec", "preemption"))),
        stop_policy=reader.choice(spec.get("stopPolicy"), _STOP_POLICIES, ("spec", "stopPolicy"), "None"),
        admission_checks=_checks(reader, spec),
        status_reserved=_reserved(reader, reader.child(body, ("status",))),
        where=(reader.file, reader.document),
    )


def cohort(reader: Reader, body: Mapping[str, Any], name: str) -> Cohort:
    """A Cohort (``spec.parentName``; v1alpha1's ``spec.parent`` too)."""
    spec = reader.child(body, ("spec",))
    parent = reader.text(spec.get("parentName"), ("spec", "parentName")) or reader.text(
        spec.get("parent"), ("spec", "parent")
    )
    groups = _groups(reader, spec, ("spec", "resourceGroups"))
    return Cohort(name, parent or None, groups, (reader.file, reader.document))


def local_queue(reader: Reader, body: Mapping[str, Any], name: str) -> LocalQueue:
    """A LocalQueue (its namespace defaults to ``default``, as kubectl's)."""
    metadata = reader.child(body, ("metadata",))
    spec = reader.child(body, ("spec",))
    return LocalQueue(
        namespace=reader.text(metadata.get("namespace"), ("metadata", "namespace")) or "default",
        name=name,
        cluster_queue=reader.text(spec.get("clusterQueue"), ("spec", "clusterQueue"), required=True),
        stop_policy=reader.choice(spec.get("stopPolicy"), _STOP_POLICIES, ("spec", "stopPolicy"), "None"),
    )


def _conditions(reader: Reader, status: Mapping[str, Any]) -> dict[str, tuple[bool, str]]:
    found: dict[str, tuple[bool, str]] = {}
    for index, raw in enumerate(reader.sequence(status.get("conditions"), ("status", "conditions"))):
        condition = reader.mapping(raw, ("status", "conditions", index))
        kind = str(condition.get("type") or "")
        found[kind] = (str(condition.get("status")) == "True", str(condition.get("lastTransitionTime") or ""))
    return found


def _owner(reader: Reader, metadata: Mapping[str, Any]) -> tuple[str, str] | None:
    for index, raw in enumerate(reader.sequence(metadata.get("ownerReferences"), ("metadata", "ownerReferences"))):
        owner = reader.mapping(raw, ("metadata", "ownerReferences", index))
        if owner.get("controller") is True or index == 0:
            return str(owner.get("kind") or ""), str(owner.get("name") or "")
    return None


def _pod_set(reader: Reader, raw: Any, path: Path, reclaimable: Mapping[str, int]) -> QueuedPodSet:
    entry = reader.mapping(raw, path)
    name = reader.text(entry.get("name"), (*path, "name")) or "main"
    count = reader.integer(entry.get("count"), (*path, "count"), default=1)
    spec = reader.child(reader.mapping(entry.get("template"), (*path, "template")), (*path, "template", "spec"))
    where = ".".join(str(part) for part in (*path, "template", "spec"))
    try:
        demand = pod_demand(spec, where)
        scheduling = pod_scheduling(spec, where)
    except InputError as error:
        raise error.located(file=reader.file, document=reader.document) from None
    request = {resource: to_amount(resource, value) for resource, value in demand.requests.items()}
    topology = reader.mapping(entry.get("topologyRequest"), (*path, "topologyRequest"))
    explicit = any(
        topology.get(key) not in (None, "", [])
        for key in ("required", "preferred", "unconstrained", "podSetSliceRequiredTopology", "podSetSliceSize",
                    "podsetSliceRequiredTopologyConstraints")
    )  # fmt: skip
    level = topology.get("required") or topology.get("preferred")
    group = topology.get("podSetGroupName")
    return QueuedPodSet(
        name,
        max(0, count - reclaimable.get(name, 0)),
        request,
        scheduling,
        explicit,
        str(level) if level else None,
        str(group) if group else None,
    )


def _slice_values(reader: Reader, raw: Any, path: Path, count: int) -> list[str]:
    """One level of a v1beta2 slice: ``universal``, or ``prefix + roots[i] + suffix`` for each domain."""
    values = reader.mapping(raw, path)
    if ("universal" in values) == ("individual" in values):
        raise reader.fail("exactly one of the fields in [universal individual] must be set", path)
    if "universal" in values:
        return [reader.text(values["universal"], (*path, "universal"), required=True)] * count
    individual = reader.mapping(values["individual"], (*path, "individual"))
    prefix = reader.text(individual.get("prefix"), (*path, "individual", "prefix"))
    suffix = reader.text(individual.get("suffix"), (*path, "individual", "suffix"))
    roots = [reader.text(root, (*path, "individual", "roots", i)) for i, root in
             enumerate(reader.sequence(individual.get("roots"), (*path, "individual", "roots")))]  # fmt: skip
    if len(roots) != count:
        raise reader.fail(
            "valuesPerLevel.individual, if set, must have roots of length equal to domainCount of this "
            f"TopologyAssignmentSlice ({len(roots)} roots, domainCount {count})",
            (*path, "individual", "roots"),
        )
    return [prefix + root + suffix for root in roots]


def _slice_counts(reader: Reader, raw: Any, path: Path, count: int) -> list[int]:
    counts = reader.mapping(raw, path)
    if ("universal" in counts) == ("individual" in counts):
        raise reader.fail("exactly one of the fields in [universal individual] must be set", path)
    if "universal" in counts:
        return [reader.integer(counts["universal"], (*path, "universal"), required=True)] * count
    found = [reader.integer(value, (*path, "individual", i), required=True) for i, value in
             enumerate(reader.sequence(counts["individual"], (*path, "individual")))]  # fmt: skip
    if len(found) != count:
        raise reader.fail(
            f"podCounts.individual must have length equal to domainCount ({len(found)} counts, domainCount {count})",
            (*path, "individual"),
        )
    return found


def topology_assignment(reader: Reader, raw: Any, path: Path) -> TopologyAssignment | None:
    """A ``topologyAssignment`` in either encoding (v1beta1 ``domains``, v1beta2 ``slices``); None when absent.

    The v1beta2 form is decoded as ``pkg/util/tas/tas_assignment.go`` ``InternalSeqFrom`` does, and its CEL
    rules (``apis/kueue/v1beta2/workload_types.go``) are checked: a slice that breaks them is an error.
    """
    if raw is None:
        return None
    assignment = reader.mapping(raw, path)
    levels = tuple(reader.text(level, (*path, "levels", i), required=True) for i, level in
                   enumerate(reader.sequence(assignment.get("levels"), (*path, "levels"))))  # fmt: skip
    domains: list[TopologyDomain] = []
    if "slices" in assignment:
        for index, item in enumerate(reader.sequence(assignment.get("slices"), (*path, "slices"))):
            where: Path = (*path, "slices", index)
            piece = reader.mapping(item, where)
            count = reader.integer(piece.get("domainCount"), (*where, "domainCount"), required=True)
            per_level = reader.sequence(piece.get("valuesPerLevel"), (*where, "valuesPerLevel"))
            if len(per_level) != len(levels):
                raise reader.fail(
                    "valuesPerLevel must have the same length as the number of levels in this TopologyAssignment "
                    f"({len(per_level)} values, {len(levels)} levels)",
                    (*where, "valuesPerLevel"),
                )
            columns = [_slice_values(reader, v, (*where, "valuesPerLevel", i), count) for i, v in enumerate(per_level)]
            counts = _slice_counts(reader, piece.get("podCounts"), (*where, "podCounts"), count)
            domains.extend(TopologyDomain(tuple(column[i] for column in columns), counts[i]) for i in range(count))
    else:
        for index, item in enumerate(reader.sequence(assignment.get("domains"), (*path, "domains"))):
            where = (*path, "domains", index)
            domain = reader.mapping(item, where)
            values = tuple(reader.text(value, (*where, "values", i), required=True) for i, value in
                           enumerate(reader.sequence(domain.get("values"), (*where, "values"))))  # fmt: skip
            if len(values) != len(levels):
                raise reader.fail(f"{len(values)} values for {len(levels)} levels", (*where, "values"))
            domains.append(
                TopologyDomain(values, reader.integer(domain.get("count"), (*where, "count"), required=True))
            )
    return TopologyAssignment(levels, tuple(domains))


def _assignments(reader: Reader, status: Mapping[str, Any], counts: Mapping[str, int]) -> tuple[AdmittedPodSet, ...]:
    admission = reader.child(status, ("status", "admission"))
    found = []
    path: Path = ("status", "admission", "podSetAssignments")
    for index, raw in enumerate(reader.sequence(admission.get("podSetAssignments"), path)):
        entry = reader.mapping(raw, (*path, index))
        name = reader.text(entry.get("name"), (*path, index, "name")) or "main"
        flavors = reader.mapping(entry.get("flavors"), (*path, index, "flavors"))
        delayed = entry.get("delayedTopologyRequest")
        found.append(
            AdmittedPodSet(
                name=name,
                count=reader.integer(entry.get("count"), (*path, index, "count"), default=counts.get(name, 1)),
                flavors={str(k): str(v) for k, v in flavors.items()},
                topology=topology_assignment(
                    reader, entry.get("topologyAssignment"), (*path, index, "topologyAssignment")
                ),
                delayed_topology=str(delayed) if delayed else None,
            )
        )
    return tuple(found)


def workload_status(conditions: Mapping[str, tuple[bool, str]]) -> str:
    """Kueue's ``workload.Status`` (``pkg/workload/workload.go``): finished, admitted, quotaReserved or pending."""
    if conditions.get("Finished", (False, ""))[0]:
        return "finished"
    if conditions.get("Admitted", (False, ""))[0]:
        return "admitted"
    if conditions.get("QuotaReserved", (False, ""))[0]:
        return "quotaReserved"
    return "pending"


def _usage(
    reader: Reader, status: Mapping[str, Any], counts: Mapping[str, int], reclaimable: Mapping[str, int]
) -> tuple[dict[FlavorResource, int], tuple[dict[str, str], ...]]:
    """``totalRequestsFromAdmission``: resourceUsage per flavor, scaled down by reclaimable pods."""
    admission = reader.child(status, ("status", "admission"))
    usage: dict[FlavorResource, int] = {}
    flavors: list[dict[str, str]] = []
    path: Path = ("status", "admission", "podSetAssignments")
    for index, raw in enumerate(reader.sequence(admission.get("podSetAssignments"), path)):
        entry = reader.mapping(raw, (*path, index))
        name = reader.text(entry.get("name"), (*path, index, "name")) or "main"
        assigned = {str(k): str(v) for k, v in reader.mapping(entry.get("flavors"), (*path, index, "flavors")).items()}
        flavors.append(assigned)
        count = reader.integer(entry.get("count"), (*path, index, "count"), default=counts.get(name, 1))
        used = reader.mapping(entry.get("resourceUsage"), (*path, index, "resourceUsage"))
        for resource, value in used.items():
            total = reader.amount(resource, value, (*path, index, "resourceUsage", resource))
            if reclaimable.get(name) and count > 0:
                total = total // count * max(0, count - reclaimable[name])
            if resource in assigned and total:
                key = (assigned[resource], resource)
                usage[key] = usage.get(key, 0) + total
    return usage, tuple(flavors)


def queued_workload(reader: Reader, body: Mapping[str, Any], name: str) -> QueuedWorkload:
    """A Kueue Workload: its usage when it holds a quota reservation, else its PodSets."""
    metadata = reader.child(body, ("metadata",))
    spec = reader.child(body, ("spec",))
    status = reader.child(body, ("status",))
    conditions = _conditions(reader, status)
    reclaimable: dict[str, int] = {}
    for index, raw in enumerate(reader.sequence(status.get("reclaimablePods"), ("status", "reclaimablePods"))):
        entry = reader.mapping(raw, ("status", "reclaimablePods", index))
        reclaimable[str(entry.get("name") or "main")] = reader.integer(
            entry.get("count"), ("status", "reclaimablePods", index, "count")
        )
    raw_sets = reader.sequence(spec.get("podSets"), ("spec", "podSets"))
    pod_sets = tuple(_pod_set(reader, raw, ("spec", "podSets", i), reclaimable) for i, raw in enumerate(raw_sets))
    counts = {pod_set.name: pod_set.count + reclaimable.get(pod_set.name, 0) for pod_set in pod_sets}
    reserved, reserved_at = conditions.get("QuotaReserved", (False, ""))
    finished = conditions.get("Finished", (False, ""))[0]
    active = spec.get("active") is not False
    admission = reader.child(status, ("status", "admission"))
    holding = reserved and not finished and active and bool(admission.get("clusterQueue"))
    usage, flavors = _usage(reader, status, counts, reclaimable) if holding else ({}, ())
    return QueuedWorkload(
        namespace=reader.text(metadata.get("namespace"), ("metadata", "namespace")) or "default",
        name=name,
        uid=str(metadata.get("uid") or ""),
        queue_name=reader.text(spec.get("queueName"), ("spec", "queueName")) or None,
        priority=reader.integer(spec.get("priority"), ("spec", "priority")),
        created=str(metadata.get("creationTimestamp") or ""),
        cluster_queue=str(admission["clusterQueue"]) if holding else None,
        usage=usage,
        flavors=flavors,
        reserved_at=reserved_at,
        owner=_owner(reader, metadata),
        pod_sets=pod_sets if not finished and active else (),
        evicted=conditions.get("Evicted", (False, ""))[0],
        where=(reader.file, reader.document),
        status=workload_status(conditions),
        admitted_condition=conditions.get("Admitted", (False, ""))[0],
        reserved_in=reader.text(admission.get("clusterQueue"), ("status", "admission", "clusterQueue")) or None,
        assignments=_assignments(reader, status, counts),
    )


def _kai_value(reader: Reader, raw: Mapping[str, Any], key: str, path: Path, scale: float) -> float:
    value = reader.number(raw.get(key), (*path, key), default=0.0)
    return value if value < 0 else value * scale


def _kai_list(reader: Reader, raw: Any, path: Path) -> dict[str, float] | None:
    if raw is None:
        return None
    found = {"cpu": 0.0, "memory": 0.0, "gpu": 0.0}
    for key, value in reader.mapping(raw, path).items():
        try:
            amount = parse_quantity(value)
        except InputError as error:
            raise reader.fail(error.message, (*path, str(key))) from None
        name = "cpu" if key == "cpu" else "memory" if key == "memory" else "gpu" if "gpu" in str(key) else None
        if name is not None:
            found[name] += float(amount * 1000 if name == "cpu" else amount)
    return found


def kai_queue(reader: Reader, body: Mapping[str, Any], name: str) -> KaiQueue:
    """A KAI Queue: memory quota and limit from megabytes (10^6 bytes) to bytes; -1 stays -1."""
    spec = reader.child(body, ("spec",))
    raw = reader.child(spec, ("spec", "resources"))
    resources = {}
    for resource in KAI_RESOURCES:
        path: Path = ("spec", "resources", resource)
        entry = reader.mapping(raw.get(resource), path)
        scale = 1e6 if resource == "memory" else 1.0
        resources[resource] = KaiResource(
            _kai_value(reader, entry, "quota", path, scale),
            _kai_value(reader, entry, "limit", path, scale),
            reader.number(entry.get("overQuotaWeight"), (*path, "overQuotaWeight"), default=1.0),
        )
    status = reader.child(body, ("status",))
    return KaiQueue(
        name=name,
        parent=reader.text(spec.get("parentQueue"), ("spec", "parentQueue")) or None,
        priority=reader.integer(spec.get("priority"), ("spec", "priority"), default=100),
        resources=resources,
        allocated=_kai_list(reader, status.get("allocated"), ("status", "allocated")),
        allocated_non_preemptible=_kai_list(
            reader, status.get("allocatedNonPreemptible"), ("status", "allocatedNonPreemptible")
        ),
        where=(reader.file, reader.document),
    )
