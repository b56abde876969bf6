"""``wmap topology``: show a cluster's topology domains, generate simulated clusters, list presets."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Any, Optional

import typer
import yaml

from workloadmap.topology import (
    DEFAULT_PRESET,
    PRESETS,
    SimulationSpec,
    detect_schemes,
    generate_nodelist,
    get_preset,
    load_cluster,
)

from . import output
from .common import parse_levels
from .escape import escaped, needs_escaping
from .output import DumpFormat, TableFormat, TreeFormat
from .render import render_domain_tree, render_presets, shown_depth

SOURCE_HELP = (
    "NodeList YAML/JSON, Slurm topology.conf/.yaml, Topograph model, preset:NAME, cluster:[CONTEXT] "
    "(the live cluster, read-only), or - (standard input)."
)


class AcceleratorStyle(str, Enum):
    """How a generated cluster labels its NVLink domains."""

    topograph = "topograph"
    clique = "clique"
    both = "both"


def show(
    source: str = typer.Argument(..., help=SOURCE_HELP),
    levels: Optional[str] = typer.Option(None, "--levels", help="Comma-separated node-label keys, widest first."),
    topology_object: Optional[Path] = typer.Option(
        None, "--topology-object", help="A KAI (kai.scheduler/v1alpha1) or Kueue Topology object stating the levels."
    ),
    pods: Optional[Path] = typer.Option(None, "--pods", help="Pod/PodList file; running pods use node capacity."),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", help="GPUs per node (Slurm files, models)."),
    cpus_per_node: Optional[str] = typer.Option(None, "--cpus-per-node", help="CPU per node (Slurm files, models)."),
    memory_per_node: Optional[str] = typer.Option(None, "--memory-per-node", help="Memory per node, e.g. 1024Gi."),
    pods_per_node: Optional[int] = typer.Option(None, "--pods-per-node", help="Pod slots per node."),
    slurm_topology: Optional[str] = typer.Option(None, "--slurm-topology", help="Which topology of a topology.yaml."),
    hosts: bool = typer.Option(False, "--hosts", help="Also list the nodes (the hostname level)."),
    depth: Optional[int] = typer.Option(None, "--depth", min=0, help="Show at most this many levels."),
    output_format: TreeFormat = typer.Option(TreeFormat.tree, "-o", "--output", help="tree, json or yaml."),
) -> None:
    """Print the domain tree: nodes, ready nodes and free/total GPUs per topology domain."""
    cluster = load_cluster(
        source,
        levels=parse_levels(levels),
        pods_file=pods,
        topology_object=topology_object,
        gpus_per_node=gpus_per_node,
        cpus_per_node=cpus_per_node,
        memory_per_node=memory_per_node,
        pods_per_node=pods_per_node,
        slurm_topology=slurm_topology,
    )
    root = cluster.domain_tree()
    shown, list_nodes = shown_depth(cluster, hosts=hosts, depth=depth)
    if output_format is TreeFormat.tree:
        names = (node.name for node in cluster.nodes)
        values = (node.labels.get(level) for node in cluster.nodes for level in cluster.levels)
        if needs_escaping([cluster.name, cluster.source, *cluster.levels, *names, *values]):
            cluster, root = escaped((cluster, root))
        output.write(render_domain_tree(cluster, root, shown=shown, list_nodes=list_nodes))
        return
    data = {
        "cluster": cluster.name,
        "source": cluster.source,
        "levels": cluster.levels,
        "schemes": detect_schemes(cluster.nodes),
        "domains": root.to_dict(max_depth=shown, node_names=list_nodes),
    }
    output.write(output.dump(data, output_format.value))


def generate(
    preset: Optional[str] = typer.Option(
        None, "--preset", help=f"Start from a named example (default {DEFAULT_PRESET} when no shape option is given)."
    ),
    name: Optional[str] = typer.Option(None, "--name", help="Cluster name."),
    racks: Optional[int] = typer.Option(None, "--racks", help="Number of racks."),
    nodes_per_rack: Optional[int] = typer.Option(None, "--nodes-per-rack", help="Nodes per rack (18 for NVL72)."),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", help="GPUs per node."),
    racks_per_block: Optional[int] = typer.Option(
        None, "--racks-per-block", help="Racks under one leaf switch (tier 0)."
    ),
    blocks_per_spine: Optional[int] = typer.Option(
        None, "--blocks-per-spine", help="Leaf switches under one spine (tier 1)."
    ),
    core: Optional[bool] = typer.Option(None, "--core/--no-core", help="A core switch (tier 2) over several spines."),
    nvlink: Optional[bool] = typer.Option(None, "--nvlink/--no-nvlink", help="Each rack is one NVLink domain."),
    accelerator_labels: Optional[AcceleratorStyle] = typer.Option(
        None, "--accelerator-labels", help="NVLink domain labels: topograph, clique (nvidia.com/gpu.clique) or both."
    ),
    zone: Optional[str] = typer.Option(None, "--zone", help="A topology.kubernetes.io/zone value for all nodes."),
    output_format: DumpFormat = typer.Option(DumpFormat.yaml, "-o", "--output", help="yaml or json."),
    output_file: Optional[Path] = typer.Option(None, "--output-file", "--file", help="Write here instead of stdout."),
) -> None:
    """Write a simulated cluster as a Kubernetes NodeList (Topograph v1 labels)."""
    overrides: dict[str, Any] = {
        "name": name,
        "racks": racks,
        "nodes_per_rack": nodes_per_rack,
        "gpus_per_node": gpus_per_node,
        "racks_per_block": racks_per_block,
        "blocks_per_spine": blocks_per_spine,
        "core": core,
        "nvlink_domain": nvlink,
        "accelerator_labels": accelerator_labels.value if accelerator_labels else None,
        "zone": zone,
    }
    overrides = {key: value for key, value in overrides.items() if value is not None}
    if preset is not None or not overrides:
        spec = get_preset(preset or DEFAULT_PRESET)
        if overrides:
            overrides.setdefault("name", f"{spec.name}-custom")
            overrides.setdefault("description", "")
    else:
        spec = SimulationSpec()
    nodelist = generate_nodelist(dataclasses.replace(spec, **overrides).validate())
    if output_format is DumpFormat.json:
        text = json.dumps(nodelist, indent=2) + "\n"
    else:
        # The C emitter writes what yaml.safe_dump writes, only fast enough for 100,000 nodes.
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(nodelist, Dumper=dumper, sort_keys=False, default_flow_style=False)
    if output_file is None:
        output.write(text)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as error:
        output.error(f"{output_file}: cannot write: {error.strerror or error}")
        raise typer.Exit(1) from None


def presets(
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
) -> None:
    """List the named example clusters (usable as SOURCE ``preset:NAME``)."""
    if output_format is TableFormat.table:
        output.write(render_presets(list(PRESETS.values()), DEFAULT_PRESET))
        return
    data = [dict(spec.to_dict(), default=spec.name == DEFAULT_PRESET) for spec in PRESETS.values()]
    output.write(output.dump(data, output_format.value))
