"""``wmap topology``: show a cluster's topology domains, generate simulated clusters, list presets."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import typer

from workloadmap.errors import TopologyError

from ..printing import output
from ..printing.deferred import deferred
from ..printing.escape import escaped, needs_escaping, shown
from ..printing.files import refuse_input_as_output, write_atomically
from ..printing.terminal import progress
from ..printing.views import Views, dump, human, plain, table, template
from ..render.numa import render_numa_zones
from ..render.topology import render_domain_tree, render_presets, shown_depth
from .common import default_preset, parse_levels, source_forms, stdin_once
from .numa_options import NODE_TOPOLOGY, TM_POLICY, TM_POLICY_OPTIONS, TM_SCOPE, numa_load_options

if TYPE_CHECKING:  # the topology stage loads inside the commands that use it
    from workloadmap.topology import Cluster, Domain, SimulationSpec

SOURCE_HELP = deferred(lambda: f"The cluster: {source_forms()}. `wmap topology presets` lists the presets.")


@dataclass(frozen=True)
class _Shown:
    """What the views of ``topology show`` write: the cluster, its domain tree, and how much of it to show."""

    cluster: Cluster
    root: Domain
    depth: int
    list_nodes: bool


def _domain_tree(shown_tree: _Shown) -> str:
    cluster, root = shown_tree.cluster, shown_tree.root
    names = (node.name for node in cluster.nodes)
    values = (node.labels.get(level) for node in cluster.nodes for level in cluster.levels)
    if needs_escaping([cluster.name, cluster.source, *cluster.levels, *names, *values]):
        cluster, root = escaped((cluster, root))  # a cluster of clean names (most, and large ones) is not copied
    return render_domain_tree(cluster, root, shown=shown_tree.depth, list_nodes=shown_tree.list_nodes)


def _domains(shown_tree: _Shown) -> Any:
    from workloadmap.topology import detect_schemes

    cluster = shown_tree.cluster
    return {
        "cluster": cluster.name,
        "source": cluster.source,
        "levels": cluster.levels,
        "schemes": detect_schemes(cluster.nodes),
        "domains": shown_tree.root.to_dict(max_depth=shown_tree.depth, node_names=shown_tree.list_nodes),
    }


def _numa_zones(cluster: Cluster) -> str:
    # Node names come from the input: escaped line by line (the table's own newlines stay). The
    # table fits itself to the terminal, its node names whole; only the line above it is fitted.
    from ..printing import terminal

    title, _, rest = render_numa_zones(cluster).partition("\n")
    lines = [shown(line) + "\n" for line in (terminal.fit(title, terminal.current().width).splitlines())]
    return "".join(lines + [shown(line) + "\n" for line in rest.splitlines()])


def _numa(cluster: Cluster) -> Any:
    from workloadmap.topology import numa_summary

    return {"cluster": cluster.name, "nodes": numa_summary(cluster)}


def _presets(specs: list[SimulationSpec]) -> list[dict[str, Any]]:
    default = default_preset()
    return [dict(spec.to_dict(), default=spec.name == default) for spec in specs]


def _preset_list(specs: list[SimulationSpec]) -> Any:
    return {"apiVersion": "v1", "kind": "List", "items": _presets(specs)}


SHOW_VIEWS = Views(
    {"tree": human(_domain_tree), "json": dump(_domains), "yaml": dump(_domains), "templates": template(_domains)}
)
"""The views of ``topology show``, on the domain tree."""
NUMA_VIEWS = Views({"tree": table(_numa_zones), "json": dump(_numa), "yaml": dump(_numa), "templates": template(_numa)})
"""The same views of ``topology show --numa``, on the nodes' NUMA zones; a test holds their names equal."""
PRESET_VIEWS = Views(
    {
        "table": table(lambda specs: render_presets(specs, default_preset())),
        "wide": table(lambda specs: render_presets(specs, default_preset(), wide=True)),
        "name": plain(lambda specs: "".join(f"preset:{spec.name}\n" for spec in specs)),
        "json": dump(_presets),
        "yaml": dump(_presets),
        "templates": template(_preset_list),
    }
)
"""The views of ``topology presets``, on the presets (json and yaml a plain list; the templates read a ``List``)."""
GENERATED_VIEWS = Views({"yaml": dump(), "json": dump()})
"""The views of ``topology generate``, on the NodeList."""


class AcceleratorStyle(str, Enum):
    """How a generated cluster labels its NVLink domains."""

    topograph = "topograph"
    clique = "clique"
    both = "both"


def show(
    source: str = typer.Argument(..., metavar="SOURCE", help=SOURCE_HELP),
    levels: Optional[str] = typer.Option(
        None, "--levels", metavar="KEY,KEY...", help="Comma-separated node-label keys, widest first."
    ),
    topology_object: Optional[Path] = typer.Option(
        None,
        "--topology-object",
        metavar="FILE",
        help="A KAI (kai.scheduler/v1alpha1) or Kueue Topology object, or a Grove ClusterTopologyBinding, stating "
        "the levels (and their aliases).",
    ),
    pods: Optional[Path] = typer.Option(
        None, "--pods", metavar="FILE", help="Pod/PodList file; running pods use node capacity."
    ),
    gpus_per_node: Optional[int] = typer.Option(
        None, "--gpus-per-node", metavar="N", help="GPUs per node (Slurm files, models; default 8, with a note)."
    ),
    cpus_per_node: Optional[str] = typer.Option(
        None, "--cpus-per-node", metavar="CPU", help="CPU per node (Slurm files, models)."
    ),
    memory_per_node: Optional[str] = typer.Option(
        None, "--memory-per-node", metavar="MEMORY", help="Memory per node, e.g. 1024Gi."
    ),
    pods_per_node: Optional[int] = typer.Option(None, "--pods-per-node", metavar="N", help="Pod slots per node."),
    slurm_topology: Optional[str] = typer.Option(
        None, "--slurm-topology", metavar="NAME", help="Which topology of a topology.yaml."
    ),
    hosts: bool = typer.Option(False, "--hosts", help="Also list the nodes (the hostname level)."),
    depth: Optional[int] = typer.Option(None, "--depth", metavar="N", min=0, help="Show at most this many levels."),
    output_format: str = SHOW_VIEWS.option("topology show"),
    html: Optional[Path] = typer.Option(
        None, "--html", metavar="FILE", help="Also write the cluster as a picture: self-contained HTML, no script."
    ),
    numa: bool = typer.Option(False, "--numa", help="Show each node's NUMA zones with free/allocatable resources."),
    node_topology: Optional[Path] = NODE_TOPOLOGY,
    tm_policy: Optional[str] = TM_POLICY,
    tm_scope: Optional[str] = TM_SCOPE,
    tm_options: Optional[str] = TM_POLICY_OPTIONS,
) -> None:
    """Print the domain tree: nodes, ready nodes and free/total GPUs per topology domain (--numa: NUMA zones)."""
    from workloadmap.topology import load_cluster

    chosen = SHOW_VIEWS.parse(output_format)
    stdin_once(
        {"SOURCE": source, "--pods": pods, "--topology-object": topology_object, "--node-topology": node_topology}
    )
    if html is not None:
        refuse_input_as_output(html, [source, pods, topology_object, node_topology], "--html")
    with progress(f"reading topology {source}"):
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
            **numa_load_options(node_topology, tm_policy, tm_scope, tm_options),
        )
    for note in cluster.notes:
        output.warn(f"note: {cluster.name}: {note}")
    if numa:
        NUMA_VIEWS.write(chosen, cluster)
        return
    levels_shown, list_nodes = shown_depth(cluster, hosts=hosts, depth=depth)
    SHOW_VIEWS.write(chosen, _Shown(cluster, cluster.domain_tree(), levels_shown, list_nodes))
    if html is not None:
        from ..render.html import write_topology_html  # drawing code loads only when a picture is asked for

        write_topology_html(html, cluster)


def generate(
    preset: Optional[str] = typer.Option(
        None,
        "--preset",
        metavar="PRESET",
        help=deferred(
            lambda: f"Start from a named example (default {default_preset()} when no shape option is given)."
        ),
    ),
    name: Optional[str] = typer.Option(
        None, "--name", metavar="NAME", help="Cluster name (kept on the nodes; `topology show` reads it back)."
    ),
    racks: Optional[int] = typer.Option(None, "--racks", metavar="N", help="Number of racks."),
    nodes_per_rack: Optional[int] = typer.Option(
        None, "--nodes-per-rack", metavar="N", help="Nodes per rack (18 for NVL72)."
    ),
    gpus_per_node: Optional[int] = typer.Option(None, "--gpus-per-node", metavar="N", help="GPUs per node."),
    racks_per_block: Optional[int] = typer.Option(
        None, "--racks-per-block", metavar="N", help="Racks under one leaf switch (tier 0)."
    ),
    blocks_per_spine: Optional[int] = typer.Option(
        None, "--blocks-per-spine", metavar="N", help="Leaf switches under one spine (tier 1)."
    ),
    core: Optional[bool] = typer.Option(None, "--core/--no-core", help="A core switch (tier 2) over several spines."),
    nvlink: Optional[bool] = typer.Option(None, "--nvlink/--no-nvlink", help="Each rack is one NVLink domain."),
    accelerator_labels: Optional[AcceleratorStyle] = typer.Option(
        None,
        "--accelerator-labels",
        metavar="STYLE",
        help="NVLink domain labels: topograph, clique (nvidia.com/gpu.clique) or both.",
    ),
    zone: Optional[str] = typer.Option(
        None, "--zone", metavar="ZONE", help="A topology.kubernetes.io/zone value for all nodes."
    ),
    output_format: str = GENERATED_VIEWS.option("topology generate"),
    output_file: Optional[Path] = typer.Option(
        None, "--output-file", "--file", metavar="FILE", help="Write here instead of stdout."
    ),
    numa_nodes: Optional[int] = typer.Option(
        None,
        "--numa-nodes",
        metavar="N",
        help="NUMA nodes per node: also write NodeResourceTopology objects (cpu, memory, GPUs split).",
    ),
    tm_policy: Optional[str] = typer.Option(
        None, "--topology-manager-policy", metavar="POLICY", help="The topology manager policy those objects state."
    ),
    tm_scope: Optional[str] = typer.Option(
        None, "--topology-manager-scope", metavar="SCOPE", help="The scope they state."
    ),
) -> None:
    """Write a simulated cluster as a Kubernetes NodeList (Topograph v1 labels), with --numa-nodes also NUMA zones."""
    from workloadmap.topology import DEFAULT_PRESET, SimulationSpec, generate_nodelist, get_preset

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
        "numa_nodes": numa_nodes,
        "topology_manager_policy": tm_policy,
        "topology_manager_scope": tm_scope,
    }
    overrides = {key: value for key, value in overrides.items() if value is not None}
    shape = {key: value for key, value in overrides.items() if key != "name"}
    if preset is not None or not shape:
        spec = get_preset(preset or DEFAULT_PRESET)
        if shape:
            overrides.setdefault("name", f"{spec.name}-custom")
            overrides.setdefault("description", "")
    else:
        spec = SimulationSpec()
    chosen = GENERATED_VIEWS.parse(output_format)
    nodelist = generate_nodelist(_validated(dataclasses.replace(spec, **overrides)))
    text = GENERATED_VIEWS.text(chosen, nodelist)  # the C emitter: fast enough for 100,000 nodes
    if output_file is None:
        output.write(text)
        return
    try:
        write_atomically(output_file, text)
    except OSError as error:
        output.error(f"{output_file}: cannot write: {error.strerror or error}")
        raise typer.Exit(1) from None


_SPEC_OPTIONS = {"nvlink_domain": "--nvlink", "name": "--name"}


def _validated(spec: SimulationSpec) -> SimulationSpec:
    """The spec checked; a bad shape is a usage error naming the option (``--nodes-per-rack``), not the field."""
    try:
        return spec.validate()
    except TopologyError as error:
        field = error.field or ""
        option = _SPEC_OPTIONS.get(field, "--" + field.replace("_", "-")) if field else None
        raise typer.BadParameter(error.message, param_hint=option) from None


def presets(
    output_format: str = PRESET_VIEWS.option("topology presets"),
) -> None:
    """List the named example clusters (usable as SOURCE `preset:NAME`)."""
    from workloadmap.topology import PRESETS

    PRESET_VIEWS.write(PRESET_VIEWS.parse(output_format), list(PRESETS.values()))
