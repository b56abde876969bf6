"""The options that say how nodes' kubelets align NUMA resources (``place``, ``topology show``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from workloadmap.labels import TOPOLOGY_MANAGER_POLICIES, TOPOLOGY_MANAGER_SCOPES
from workloadmap.numa import TopologyManager, TopologyManagerPolicy, TopologyManagerScope

__all__ = ["NODE_TOPOLOGY", "TM_POLICY", "TM_SCOPE", "TM_POLICY_OPTIONS", "topology_manager", "numa_load_options"]

_OPTIONS = ("prefer-closest-numa-nodes", "max-allowable-numa-nodes")


NODE_TOPOLOGY: Any = typer.Option(
    None,
    "--node-topology",
    help="NodeResourceTopology objects (topology.node.k8s.io) giving nodes their NUMA zones; the kubelet's"
    " topology manager admission is then predicted.",
)


TM_POLICY: Any = typer.Option(
    None,
    "--topology-manager-policy",
    help=f"For nodes whose objects state none: {', '.join(TOPOLOGY_MANAGER_POLICIES)} (kubelet default none).",
)


TM_SCOPE: Any = typer.Option(
    None,
    "--topology-manager-scope",
    help=f"For nodes whose objects state none: {', '.join(TOPOLOGY_MANAGER_SCOPES)} (default container).",
)


TM_POLICY_OPTIONS: Any = typer.Option(
    None,
    "--topology-manager-policy-options",
    help="As the kubelet flag: prefer-closest-numa-nodes=true,max-allowable-numa-nodes=16.",
)


def _options(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, _, value = item.partition("=")
        if key not in _OPTIONS:
            raise typer.BadParameter(f"unknown option {key!r}; known: {', '.join(_OPTIONS)}")
        if key == _OPTIONS[0]:
            if value.lower() not in ("true", "false"):
                raise typer.BadParameter(f"{key} takes true or false, got {value!r}")
            found["prefer_closest_numa_nodes"] = value.lower() == "true"
        else:
            if not value.isdigit():
                raise typer.BadParameter(f"{key} takes a whole number, got {value!r}")
            found["max_allowable_numa_nodes"] = int(value)
    return found


def topology_manager(policy: Optional[str], scope: Optional[str], options: Optional[str]) -> TopologyManager:
    """The settings the options give (the kubelet's defaults for what they leave out).

    Raises:
        typer.BadParameter: an unknown policy, scope or option, or a bad option value.
    """
    try:
        chosen_policy = TopologyManagerPolicy(policy or "none")
    except ValueError:
        raise typer.BadParameter(
            f"{policy!r} is not one of {', '.join(TOPOLOGY_MANAGER_POLICIES)}", param_hint="--topology-manager-policy"
        ) from None
    try:
        chosen_scope = TopologyManagerScope(scope or "container")
    except ValueError:
        raise typer.BadParameter(
            f"{scope!r} is not one of {', '.join(TOPOLOGY_MANAGER_SCOPES)}", param_hint="--topology-manager-scope"
        ) from None
    try:
        return TopologyManager(chosen_policy, chosen_scope, **_options(options or ""))
    except ValueError as error:  # max-allowable-numa-nodes below 8, as the kubelet refuses it
        raise typer.BadParameter(str(error), param_hint="--topology-manager-policy-options") from None


def numa_load_options(
    node_topology: Optional[Path], policy: Optional[str], scope: Optional[str], options: Optional[str]
) -> dict[str, Any]:
    """The ``load_cluster`` keyword arguments of these options."""
    return {"node_topology": node_topology, "topology_manager": topology_manager(policy, scope, options)}
