"""What the API server refuses of a Workload, PodGroup or CompositePodGroup, as one located error.

The rules are kubernetes ``pkg/apis/scheduling/validation/validation.go`` and the declarative tags of
kubernetes/api ``scheduling/{v1alpha1,v1alpha2,v1beta1,v1alpha3}/types.go`` (``zz_generated.validations.go``),
in the words ``kubectl`` prints (apimachinery ``field/errors.go``: ``Required value``, ``Invalid value``,
``Too many``, ``Duplicate value``); the cases of ``pkg/registry/scheduling/*/declarative_validation_test.go``
and ``validation_test.go`` ``TestValidateWorkload`` are the tests'. The first error found is raised (the API
server lists them all; one is enough to say the object is refused). Rules an API server applies only with a
feature gate off (``Forbidden`` fields) are not checked: wmap models a cluster with the gates on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ..errors import InputError
from ..labels import NATIVE_COMPOSITE_KIND, NATIVE_POD_GROUP_KIND, NATIVE_WORKLOAD_KIND

__all__ = ["validate_native", "MAX_TEMPLATES", "MAX_TREE_DEPTH"]

MAX_TEMPLATES = 8
"""``WorkloadMaxPodGroupTemplates``: the most templates of one list."""
MAX_TREE_DEPTH = 4
"""``WorkloadMaxTreeDepth``: a template tree's levels, the PodGroupTemplates included."""
_MAX_PRIORITY = 1_000_000_000  # scheduling.HighestUserDefinablePriority
_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_LABEL = re.compile(rf"{_LABEL}\Z")
_DNS_SUBDOMAIN = re.compile(rf"{_LABEL}(\.{_LABEL})*\Z")
_QUALIFIED_NAME = re.compile(r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]\Z")


class _Rejected(Exception):
    def __init__(self, path: str, message: str) -> None:
        self.path, self.message = path, message


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _short_name(path: str, value: Any) -> None:
    """A DNS label (``k8s-short-name``): required, at most 63 characters."""
    if value in (None, ""):
        raise _Rejected(path, "Required value")
    if not isinstance(value, str) or len(value) > 63 or not _DNS_LABEL.match(value):
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: must be a valid DNS label (RFC 1123)")


def _long_name(path: str, value: Any, *, required: bool = True) -> None:
    """A DNS subdomain (``k8s-long-name``): at most 253 characters."""
    if value in (None, ""):
        if required:
            raise _Rejected(path, "Required value")
        return
    if not isinstance(value, str) or len(value) > 253 or not _DNS_SUBDOMAIN.match(value):
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: must be a valid DNS subdomain (RFC 1123)")


def _label_key(path: str, value: Any) -> None:
    """A label key (``k8s-label-key``): an optional DNS-subdomain prefix and ``/``, a name of at most 63."""
    if value in (None, ""):
        raise _Rejected(path, "Required value")
    prefix, slash, name = value.rpartition("/") if isinstance(value, str) else ("", "", "")
    valid = (
        isinstance(value, str)
        and value.count("/") <= 1
        and 0 < len(name) <= 63
        and _QUALIFIED_NAME.match(name) is not None
        and (not slash or (0 < len(prefix) <= 253 and _DNS_SUBDOMAIN.match(prefix) is not None))
    )
    if not valid:
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: must be a valid label key")


def _path_segment(path: str, value: Any) -> None:
    """A name that is a path segment (``k8s-path-segment-name``): no ``/`` or ``%``, not ``.`` or ``..``."""
    if value in (None, ""):
        raise _Rejected(path, "Required value")
    if not isinstance(value, str) or value in (".", "..") or "/" in value or "%" in value:
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: may not contain '/' or '%'")


def _quoted(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def _minimum(path: str, value: Any) -> None:
    """A count of at least 1; zero or absent is ``Required`` (an omitted int32 reads as 0)."""
    if value in (None, 0) and not isinstance(value, bool):
        raise _Rejected(path, "Required value")
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: must be an integer")
    if value < 1:
        raise _Rejected(path, f"Invalid value: {value}: must be greater than or equal to 1")


def _union(path: str, value: Any, members: tuple[str, ...]) -> str:
    """The one member a union sets (``validate.Union``)."""
    names = ", ".join(f"`{member}`" for member in members)
    chosen = [member for member in members if _mapping(value).get(member) is not None]
    if not chosen:
        raise _Rejected(path, f'Invalid value: "": must specify one of: {names}')
    if len(chosen) > 1:
        raise _Rejected(
            path, f'Invalid value: "{{{", ".join(f"`{m}`" for m in chosen)}}}": must specify exactly one of: {names}'
        )
    return chosen[0]


def _items(path: str, value: Any, most: int) -> list[Any]:
    if value is not None and not isinstance(value, list):
        raise _Rejected(path, f"Invalid value: {_quoted(value)}: must be a list")
    items = _list(value)
    if len(items) > most:
        raise _Rejected(path, f"Too many: {len(items)}: must have at most {most} item{'s' if most > 1 else ''}")
    return items


def _policy(path: str, policy: Any, count: str) -> None:
    """A ``schedulingPolicy``: ``basic`` or ``gang`` with its count (``minCount``, ``minGroupCount``)."""
    if _union(path, policy, ("basic", "gang")) == "gang":
        _minimum(f"{path}.gang.{count}", _mapping(_mapping(policy).get("gang")).get(count))


def _constraints(path: str, constraints: Any) -> None:
    topology = _items(f"{path}.topology", _mapping(constraints).get("topology"), 1)
    for index, item in enumerate(topology):
        _label_key(f"{path}.topology[{index}].key", _mapping(item).get("key"))


def _priority(path: str, entry: Mapping[str, Any], seen: set[tuple[Any, Any]]) -> None:
    priority = entry.get("priority")
    if isinstance(priority, int) and not isinstance(priority, bool) and priority > _MAX_PRIORITY:
        raise _Rejected(f"{path}.priority", f"Invalid value: {priority}: must be less than or equal to {_MAX_PRIORITY}")
    _long_name(f"{path}.priorityClassName", entry.get("priorityClassName"), required=False)
    seen.add((entry.get("priorityClassName"), priority))


class _Tree:
    """The names and priorities met across a Workload's whole template tree (unique, identical)."""

    def __init__(self, legacy: bool) -> None:
        self.legacy = legacy  # v1alpha1: spec.podGroups[] {name, policy}
        self.names: set[str] = set()
        self.priorities: set[tuple[Any, Any]] = set()

    def name(self, path: str, value: Any) -> None:
        _short_name(f"{path}.name", value)
        if value in self.names:
            raise _Rejected(f"{path}.name", f"Duplicate value: {_quoted(value)}")
        self.names.add(value)

    def pod_groups(self, path: str, value: Any) -> None:
        for index, entry in enumerate(_items(path, value, MAX_TEMPLATES)):
            at, entry = f"{path}[{index}]", _mapping(entry)
            self.name(at, entry.get("name"))
            policy = "policy" if self.legacy else "schedulingPolicy"
            _policy(f"{at}.{policy}", entry.get(policy), "minCount")
            _constraints(f"{at}.schedulingConstraints", entry.get("schedulingConstraints"))
            _priority(at, entry, self.priorities)

    def composites(self, path: str, value: Any, depth: int) -> None:
        for index, entry in enumerate(_items(path, value, MAX_TEMPLATES)):
            at, entry = f"{path}[{index}]", _mapping(entry)
            if depth >= MAX_TREE_DEPTH:
                raise _Rejected(
                    at, f"Invalid value: {_quoted(entry.get('name'))}: maximum template hierarchy depth is 4"
                )
            self.name(at, entry.get("name"))
            _policy(f"{at}.schedulingPolicy", entry.get("schedulingPolicy"), "minGroupCount")
            _constraints(f"{at}.schedulingConstraints", entry.get("schedulingConstraints"))
            _priority(at, entry, self.priorities)
            if not entry.get("podGroupTemplates") and not entry.get("compositePodGroupTemplates"):
                raise _Rejected(
                    at,
                    f"Invalid value: {_quoted(entry.get('name'))}: must have at least one child PodGroupTemplate or"
                    " CompositePodGroupTemplate",
                )
            self.composites(f"{at}.compositePodGroupTemplates", entry.get("compositePodGroupTemplates"), depth + 1)
            self.pod_groups(f"{at}.podGroupTemplates", entry.get("podGroupTemplates"))


def _workload(version: str, spec: Mapping[str, Any]) -> None:
    reference = spec.get("controllerRef")
    if reference is not None:
        reference = _mapping(reference)
        _long_name("spec.controllerRef.apiGroup", reference.get("apiGroup"), required=False)
        _path_segment("spec.controllerRef.kind", reference.get("kind"))
        _path_segment("spec.controllerRef.name", reference.get("name"))
    tree = _Tree(legacy=version == "v1alpha1")
    if version in ("v1alpha1", "v1alpha2"):
        field = "podGroups" if tree.legacy else "podGroupTemplates"
        if not spec.get(field):
            raise _Rejected(f"spec.{field}", "Required value: must have at least one item")
        tree.pod_groups(f"spec.{field}", spec.get(field))
    else:
        if not spec.get("podGroupTemplates") and not spec.get("compositePodGroupTemplates"):
            raise _Rejected(
                "spec", 'Invalid value: "": must specify one of: `podGroupTemplates`, `compositePodGroupTemplates`'
            )
        tree.pod_groups("spec.podGroupTemplates", spec.get("podGroupTemplates"))
        tree.composites("spec.compositePodGroupTemplates", spec.get("compositePodGroupTemplates"), 1)
    if len(tree.priorities) > 1:
        raise _Rejected("spec", "Invalid value: null: detected multiple priority configurations")


def _pod_group(version: str, spec: Mapping[str, Any]) -> None:
    _policy("spec.schedulingPolicy", spec.get("schedulingPolicy"), "minCount")
    _constraints("spec.schedulingConstraints", spec.get("schedulingConstraints"))
    _priority("spec", spec, set())
    if version == "v1alpha2":
        reference = spec.get("podGroupTemplateRef")
        if reference is not None:
            _union("spec.podGroupTemplateRef", reference, ("workload",))
            workload = _mapping(_mapping(reference).get("workload"))
            _short_name("spec.podGroupTemplateRef.workload.podGroupTemplateName", workload.get("podGroupTemplateName"))
            _long_name("spec.podGroupTemplateRef.workload.workloadName", workload.get("workloadName"))
        return
    _workload_ref(spec, required=False)
    parent = spec.get("parentCompositePodGroupName")
    if parent is not None:
        _long_name("spec.parentCompositePodGroupName", parent)
        if spec.get("workloadRef") is None:
            raise _Rejected("spec.workloadRef", "Required value: must be set when parentCompositePodGroupName is set")


def _workload_ref(spec: Mapping[str, Any], *, required: bool) -> None:
    reference = spec.get("workloadRef")
    if reference is None:
        if required:
            raise _Rejected("spec.workloadRef", "Required value")
        return
    _short_name("spec.workloadRef.templateName", _mapping(reference).get("templateName"))
    _long_name("spec.workloadRef.workloadName", _mapping(reference).get("workloadName"))


def _composite(spec: Mapping[str, Any]) -> None:
    _policy("spec.schedulingPolicy", spec.get("schedulingPolicy"), "minGroupCount")
    _constraints("spec.schedulingConstraints", spec.get("schedulingConstraints"))
    _priority("spec", spec, set())
    _workload_ref(spec, required=True)
    _long_name("spec.parentCompositePodGroupName", spec.get("parentCompositePodGroupName"), required=False)


def validate_native(resource: Mapping[str, Any]) -> None:
    """Raise for the first field of a ``scheduling.k8s.io`` object the API server would refuse.

    Raises:
        InputError: located at the field, in kubectl's words, saying the API server rejects the object.
    """
    kind = resource.get("kind")
    version = str(resource.get("apiVersion", "")).rpartition("/")[2]
    spec = _mapping(resource.get("spec"))
    try:
        _long_name("metadata.name", _mapping(resource.get("metadata")).get("name"), required=False)
        if kind == NATIVE_WORKLOAD_KIND:
            _workload(version, spec)
        elif kind == NATIVE_POD_GROUP_KIND:
            _pod_group(version, spec)
        elif kind == NATIVE_COMPOSITE_KIND:
            _composite(spec)
    except _Rejected as rejected:
        raise InputError(f"{rejected.message} (the API server rejects this {kind})", field=rejected.path) from None
