"""``wmap topology``: show a cluster's topology domains, generate simulated clusters, list presets."""

from __future__ import annotations

import dataclasses
import json
from enum import Enum
from pathlib import Path
from typing import Optional

import typer
import yaml

from workloadmap.errors import WorkloadMapError
from workloadmap.quantities import format_quantity
from workloadmap.simulation import DEFAULT_PRESET, PRESETS, SimulationSpec, generate_nodelist, get_preset
from workloadmap.topology import HOSTNAME_LABEL, Domain
from workloadmap.topology_sources import detect_schemes, load_cluster

from . import output
from .options import parse_levels
from .output import DumpFormat, TableFormat, TreeFormat

app = typer.Typer(
    help="Read cluster topology (NodeList, Slurm topology.conf/yaml, Topograph model, preset) and simulate clusters.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)








class AcceleratorStyle(str, Enum):
    topograph = "topograph"
    clique = "clique"
    both = "both"


def _fail(error: WorkloadMapError) -> typer.Exit:
    output.error(str(error))
    return typer.Exit(error.exit_code)


def _summary(domain: Domain) -> str:
    return (
        f"{domain.node_count} nodes ({domain.ready_nodes} ready), "
        f"GPUs {format_quantity(domain.gpus_free)}/{format_quantity(domain.gpus_total)} free"
    )


def _children(domain: Domain, depth: int) -> list[Domain]:
    return list(domain.children.values()) if len(domain.path) < depth else []


def _label(domain: Domain) -> str:
    value = "<none>" if domain.value is None else domain.value
    return f"{domain.level}={value}: {_summary(domain)}"


@app.command()
def show(
    source: str = typer.Argument(..., help="NodeList YAML/JSON, Slurm topology.conf/.yaml, Topograph model, "
                                 "preset:NAME, or - (standard input)."),
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
    level_list = parse_levels(levels)
    try:
        cluster = load_cluster(
            source,
            levels=level_list,
            pods_file=pods,
            topology_object=topology_object,
            gpus_per_node=gpus_per_node,
            cpus_per_node=cpus_per_node,
            memory_per_node=memory_per_node,
            pods_per_node=pods_per_node,
            slurm_topology=slurm_topology,
        )
        root = cluster.domain_tree()
    except WorkloadMapError as error:
        raise _fail(error) from None
    host_level = bool(cluster.levels) and cluster.levels[-1] == HOSTNAME_LABEL
    shown = len(cluster.levels) - (1 if host_level and not hosts else 0)
    if depth is not None:
        shown = min(shown, depth)
    # Without a hostname level, --hosts lists the nodes under the deepest domains shown.
    list_nodes = hosts and not (host_level and shown == len(cluster.levels))
    if output_format is TreeFormat.tree:
        lines = [
            f"cluster {cluster.name} ({cluster.source}): {_summary(root)}",
            f"levels: {' > '.join(cluster.levels)}",
        ]

        def children(item):
            if isinstance(item, Domain):
                below = _children(item, shown)
                return below if below or not list_nodes else item.nodes
            return []

        def label(item):
            if isinstance(item, Domain):
                return _label(item)
            state = "ready" if item.ready else "not ready"
            return f"node {item.name} ({state}), GPUs {format_quantity(item.free_gpus())}/{format_quantity(item.gpus())} free"

        lines += output.tree_lines(children(root), label, children)
        typer.echo("\n".join(lines))
        return
    data = {
        "cluster": cluster.name,
        "source": cluster.source,
        "levels": cluster.levels,
        "schemes": detect_schemes(cluster.nodes),
        "domains": root.to_dict(max_depth=shown, node_names=list_nodes),
    }
    typer.echo(output.dump(data, output_format.value), nl=False)


@app.command()
def generate(
    preset: Optional[str] = typer.Option(
        None, "--preset", help=f"Start from a named example (default {DEFAULT_PRESET} when no shape option is given)."
    ),
    name: Optional[str] = typer.Option(None, "--name", help="Cluster name."),
    racks: Optional[int] = typer.Option(None, "--racks", help="Number of racks."),
    nodes_per_rack: Optional[int] = typer.Option(None, "--nodes-per-rack", help="Nodes per rack (18 for NVL72)."),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", help="GPUs per node."),
    racks_per_block: Optional[int] = typer.Option(None, "--racks-per-block", help="Racks under one leaf switch (tier 0)."),
    blocks_per_spine: Optional[int] = typer.Option(None, "--blocks-per-spine", help="Leaf switches under one spine (tier 1)."),
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
    overrides = {
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
    try:
        if preset is not None or not overrides:
            spec = get_preset(preset or DEFAULT_PRESET)
            if overrides:
                overrides.setdefault("name", f"{spec.name}-custom")
                overrides.setdefault("description", "")
        else:
            spec = SimulationSpec()
        spec = dataclasses.replace(spec, **overrides).validate()
        nodelist = generate_nodelist(spec)
    except WorkloadMapError as error:
        raise _fail(error) from None
    if output_format is DumpFormat.json:
        text = json.dumps(nodelist, indent=2) + "\n"
    else:
        # The C emitter writes what yaml.safe_dump writes, only fast enough for 100,000 nodes.
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        text = yaml.dump(nodelist, Dumper=dumper, sort_keys=False, default_flow_style=False)
    if output_file is None:
        typer.echo(text, nl=False)
        return
    try:
        output_file.write_text(text, encoding="utf-8")
    except OSError as error:
        output.error(f"{output_file}: cannot write: {error.strerror or error}")
        raise typer.Exit(1) from None


@app.command()
def presets(
    output_format: TableFormat = typer.Option(TableFormat.table, "-o", "--output", help="table, json or yaml."),
) -> None:
    """List the named example clusters (usable as SOURCE ``preset:NAME``)."""
    if output_format is TableFormat.table:
        rows = [
            (
                spec.name + (" (default)" if spec.name == DEFAULT_PRESET else ""),
                spec.node_count,
                spec.node_count * spec.gpus_per_node,
                spec.description,
            )
            for spec in PRESETS.values()
        ]
        # Descriptions keep their spaces: output.table would hyphenate them.
        width = max(len(row[0]) for row in rows)
        lines = [f"{'NAME'.ljust(width)}   NODES   GPUS   DESCRIPTION"]
        lines += [f"{row[0].ljust(width)}   {str(row[1]).ljust(5)}   {str(row[2]).ljust(4)}   {row[3]}" for row in rows]
        typer.echo("\n".join(lines))
        return
    data = [dict(spec.to_dict(), default=spec.name == DEFAULT_PRESET) for spec in PRESETS.values()]
    typer.echo(output.dump(data, output_format.value), nl=False)
