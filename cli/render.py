"""Human-readable renderings of workload trees and catalogs."""

from __future__ import annotations

from workloadmap.definitions import Definition
from workloadmap.tree import Component, PodGroup, WorkloadTree

from .output import table, tree_lines


def _plural(count: int | float, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _component_label(component: Component) -> str:
    parts = [component.name]
    if component.instance is not None and component.instance != component.role:
        parts.append(f"({component.role})")
    if component.has_pod_template:
        scale = f"replicas {component.replicas}"
        if component.min_replicas is not None or component.max_replicas is not None:
            low = component.min_replicas if component.min_replicas is not None else "-"
            high = component.max_replicas if component.max_replicas is not None else "-"
            scale += f" [min {low}, max {high}]"
        if component.pods_per_replica != 1:
            scale += f" x {component.pods_per_replica} pods"
        if component.parent_replicas != 1:
            scale += f" in each of {component.parent_replicas}"
        parts.append(scale)
        pods = "pod per node" if component.per_node else _plural(component.pods, "pod")
        parts.append(pods if component.per_node else f"= {pods}")
        if component.gpus_per_pod:
            parts.append(f"{component.gpus_per_pod} GPU/pod, {_plural(component.gpus, 'GPU')}")
        shape = {name: value for name, value in component.pod_resources.items() if name in ("cpu", "memory")}
        others = {
            name: value
            for name, value in component.pod_resources.items()
            if name not in ("cpu", "memory", "pods") and not name.endswith("/gpu")
        }
        if shape:
            parts.append(" ".join(f"{name} {value}" for name, value in shape.items()) + " per pod")
        if others:
            parts.append(", ".join(f"{name} {value}" for name, value in others.items()))
        if component.resource_claims:
            parts.append("DRA claims: " + ", ".join(claim.get("name", "?") for claim in component.resource_claims))
    else:
        parts.append(f"replicas {component.replicas}: {_plural(component.pods, 'pod')}")
        if component.gpus:
            parts.append(_plural(component.gpus, "GPU"))
    return "  ".join(parts)


def _group_lines(group: PodGroup) -> list[str]:
    header = f"{group.name}  minMember {group.min_member} of {_plural(group.pods, 'pod')}"
    lines = [f"  {header}"]
    by_parent: dict[str | None, list] = {}
    for subgroup in group.sub_groups:
        by_parent.setdefault(subgroup.parent, []).append(subgroup)
    lines.extend(
        tree_lines(
            by_parent.get(None, []),
            lambda sub: f"subgroup {sub.name}  minMember {sub.min_member} of {_plural(sub.pods, 'pod')}",
            lambda sub: by_parent.get(sub.name, []),
            prefix="  ",
        )
    )
    return lines


_MAX_GROUPS_SHOWN = 8


def render_tree(tree: WorkloadTree) -> str:
    """The default `wmap inspect` view: component tree, totals line, PodGroups."""
    workload = tree.workload
    where = f"  namespace {workload.namespace}" if workload.namespace else ""
    phase = tree.phase if not tree.phases or tree.phases == [tree.phase] else f"{tree.phase} (matched {', '.join(tree.phases)})"
    lines = [f"{workload.kind}/{workload.name}{where}  ({workload.api_version}, definition {tree.definition})  phase {phase}"]
    lines.extend(tree_lines(tree.components, _component_label, lambda component: component.components))
    resources = ", ".join(
        f"{name} {value}" for name, value in tree.totals.resources.items() if not name.endswith("/gpu")
    )
    lines.append(
        f"Totals: {_plural(tree.totals.pods, 'pod')}, {_plural(tree.totals.gpus, 'GPU')}"
        + (f" ({resources})" if resources else "")
    )
    if tree.pod_groups:
        gang = "gang-scheduled together" if len(tree.pod_groups) == 1 else "each gang-scheduled"
        lines.append(f"PodGroups: {len(tree.pod_groups)}, {gang} ({tree.gang_policy})")
        for group in tree.pod_groups[:_MAX_GROUPS_SHOWN]:
            lines.extend(_group_lines(group))
        if len(tree.pod_groups) > _MAX_GROUPS_SHOWN:
            lines.append(f"  ... and {len(tree.pod_groups) - _MAX_GROUPS_SHOWN} more alike (see -o json)")
    else:
        lines.append(f"PodGroups: none, pods are scheduled one by one ({tree.gang_policy})")
    return "\n".join(lines) + "\n"


def render_inspect_table(trees: list[WorkloadTree]) -> str:
    """One row per pod-bearing component."""
    rows = []
    for tree in trees:
        workload = f"{tree.workload.kind.lower()}/{tree.workload.name}"
        for component in tree.walk():
            if not component.has_pod_template:
                continue
            rows.append(
                [
                    component.name,
                    workload,
                    tree.phase,
                    component.replicas,
                    component.pods,
                    component.gpus_per_pod,
                    component.gpus,
                    component.pod_resources.get("cpu", "0"),
                    component.pod_resources.get("memory", "0"),
                ]
            )
    return table(["NAME", "WORKLOAD", "PHASE", "REPLICAS", "PODS", "GPUS-PER-POD", "GPUS", "CPU", "MEMORY"], rows)


def render_definition_table(definitions: list[Definition]) -> str:
    """`wmap catalog list` as a table."""
    rows = []
    for definition in definitions:
        components = [component.name for root in definition.components for component in root.walk()]
        shown = ",".join(components[:3]) + (f",+{len(components) - 3}" if len(components) > 3 else "")
        rows.append(
            [
                definition.name,
                definition.kind,
                definition.group or "core",
                ",".join(definition.versions),
                shown,
                "yes" if definition.gang.pod_groups else "no",
            ]
        )
    return table(["NAME", "KIND", "GROUP", "VERSIONS", "COMPONENTS", "GANG"], rows)
