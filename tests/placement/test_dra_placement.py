"""DRA pods placed on nodes with ResourceSlices, and never reported as fitting without them."""

from __future__ import annotations

import json

from helpers import FIXTURES_DIR
from workloadmap import inspect_file, load_cluster, place
from workloadmap.documents import load_objects
from workloadmap.dra import device_resource, read_node_devices
from workloadmap.placement import Verdict, checks_devices, with_devices

DRA = FIXTURES_DIR / "dra"


def _tree(name):
    return next(result.tree for result in inspect_file(str(DRA / name)) if result.tree is not None)


def _cluster():
    cluster = load_cluster(str(DRA / "nodes.yaml"))
    objects = [document.body for document in load_objects(str(DRA / "slices.yaml"))]
    return with_devices(cluster, read_node_devices(objects))


def test_without_resource_slices_a_dra_gang_is_unknown_never_fits():
    report = place(_tree("gpu-test8.yaml"), load_cluster(str(DRA / "nodes.yaml")))
    assert report.verdict is Verdict.UNKNOWN and not report.fits
    assert "ResourceSlices" in report.pod_groups[0].reason


def test_two_gpus_fit_only_the_node_with_two_free():
    # slices.yaml: node-a 3 GPUs, gpu-1 allocated to a bound pod's claim; node-b 1 GPU
    cluster = _cluster()
    assert checks_devices(cluster)
    report = place(_tree("gpu-test8.yaml"), cluster)
    assert report.fits
    assert [node.name for node in report.pod_groups[0].assignment.nodes] == ["node-a"]


def test_four_mig_devices_per_pod_do_not_fit_two():
    # gpu-test4 asks 4 mig.nvidia.com devices per pod; node-b publishes 2
    report = place(_tree("gpu-test4.yaml"), _cluster())
    assert report.verdict is Verdict.DOES_NOT_FIT
    assert "mig.nvidia.com.deviceclass.resource.k8s.io/devices" in report.reason


def test_kai_policy_checks_devices_too():
    report = place(_tree("gpu-test8.yaml"), _cluster(), policy="kai")
    assert report.fits
    assert [node.name for node in report.pod_groups[0].assignment.nodes] == ["node-a"]


def test_a_workload_without_dra_is_placed_as_before():
    from helpers import load_fixture
    from workloadmap import inspect

    tree = inspect(load_fixture("jobset-leader-workers.yaml"))
    cluster = load_cluster("preset:nvl72-4rack")
    assert not checks_devices(cluster)
    devices = with_devices(cluster, read_node_devices([]))  # every node: 0 devices of every chart class
    assert checks_devices(devices)
    before, after = place(tree, cluster), place(tree, devices)
    assert after.verdict is before.verdict is Verdict.FITS
    assert [group.assignment for group in after.pod_groups] == [group.assignment for group in before.pod_groups]


def test_compute_domain_channel_is_counted_and_needs_one_nvlink_domain():
    # fixtures/companions/jobset-computedomain.yaml: the pods reference imex-channel, the template the
    # ComputeDomain controller creates (dra-driver-nvidia-gpu resourceclaimtemplate.go: one request
    # of class compute-domain-default-channel.nvidia.com); the IMEX domain forms per NVLink clique
    # (driver issues #377, #804), so the gang is required to fit one accelerator domain.
    tree = next(r.tree for r in inspect_file(str(FIXTURES_DIR / "companions" / "jobset-computedomain.yaml")) if r.tree)
    assert tree.totals.devices == {"compute-domain-default-channel.nvidia.com": 2}
    assert tree.totals.gpus == 8  # the channel is no GPU; the pods' nvidia.com/gpu are
    assert tree.totals.devices_unknown == []
    report = place(tree, load_cluster("preset:nvl72-4rack"))
    (group,) = report.pod_groups
    assert group.required_source == "computeDomain"
    assert group.required_level == load_cluster("preset:nvl72-4rack").levels[-2]
    assert group.verdict is Verdict.UNKNOWN  # no ResourceSlices: the channel is not checked


CHANNEL_WORKLOAD = """
apiVersion: resource.nvidia.com/v1beta1
kind: ComputeDomain
metadata: {name: domain, namespace: ns}
spec:
  channel:
    resourceClaimTemplate: {name: domain-channel}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: imex, namespace: ns}
spec:
  replicas: 2
  selector: {matchLabels: {app: imex}}
  template:
    metadata: {labels: {app: imex}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}, claims: [{name: ch}]}}]
      resourceClaims: [{name: ch, resourceClaimTemplateName: domain-channel}]
"""


def _channels(*nodes):
    return [
        {
            "kind": "ResourceSlice",
            "metadata": {"name": f"{node}-cd"},
            "spec": {
                "driver": "compute-domain.nvidia.com",
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                "devices": [{"name": "channel-0", "attributes": {"type": {"string": "channel"}, "id": {"int": 0}}}],
            },
        }
        for node in nodes
    ]


def test_one_channel_per_node(tmp_path):
    # the ComputeDomain kubelet plugin publishes only channel-0 per node (computeDomainPublishedDevices
    # skips Channel.ID != 0): two pods holding a channel need two nodes
    manifest = tmp_path / "imex.yaml"
    manifest.write_text(CHANNEL_WORKLOAD)
    tree = next(r.tree for r in inspect_file(str(manifest)) if r.tree)
    assert tree.components[0].devices_per_pod == {"compute-domain-default-channel.nvidia.com": 1}
    cluster = load_cluster(str(DRA / "nodes.yaml"))
    one = place(tree, with_devices(cluster, read_node_devices(_channels("node-a"))))
    assert one.verdict is Verdict.DOES_NOT_FIT
    two = place(tree, with_devices(cluster, read_node_devices(_channels("node-a", "node-b"))))
    assert two.fits
    (group,) = two.pod_groups
    assert sorted(node.name for node in group.assignment.nodes) == ["node-a", "node-b"]


def test_a_bad_resource_slice_is_one_line_naming_file_document_and_field(tmp_path, wmap):
    bad = tmp_path / "slices.yaml"
    bad.write_text(
        "kind: ResourceSlice\nmetadata: {name: s}\nspec: {driver: gpu.nvidia.com, nodeName: node-a, "
        "pool: {name: p, generation: 1, resourceSliceCount: 1}, "
        "devices: [{name: d, capacity: {memory: {value: lots}}}]}\n"
    )
    result = wmap("place", str(DRA / "gpu-test8.yaml"), "-t", str(DRA / "nodes.yaml"), "--resource-slices", str(bad))
    assert result.exit_code != 0
    (line,) = [text for text in result.stderr.splitlines() if text.startswith("error:")]
    assert str(bad) in line and "ResourceSlice/s" in line and "spec.devices[0].capacity.memory" in line
    assert "Traceback" not in result.output


def _dump(tmp_path):
    """nodes.yaml and slices.yaml in one file, as `kubectl get nodes,resourceslices,resourceclaims -A -o yaml`."""
    import yaml

    nodes = yaml.safe_load((DRA / "nodes.yaml").read_text())
    slices = yaml.safe_load((DRA / "slices.yaml").read_text())
    dump = tmp_path / "cluster.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": nodes["items"] + slices["items"]}))
    return dump


def test_a_topology_file_that_carries_resource_slices_is_read_as_if_given_with_them(tmp_path, wmap):
    # the same nodes and slices as test_two_gpus_fit_only_the_node_with_two_free, in one -t file
    cluster = load_cluster(str(_dump(tmp_path)))
    assert checks_devices(cluster)
    assert [node.allocatable[device_resource("gpu.nvidia.com")] for node in cluster.nodes] == [2, 1]
    report = place(_tree("gpu-test8.yaml"), cluster)
    assert report.fits and [node.name for node in report.pod_groups[0].assignment.nodes] == ["node-a"]
    both = wmap("place", str(DRA / "gpu-test8.yaml"), "-t", str(_dump(tmp_path)), "-o", "json")
    alone = wmap("place", str(DRA / "gpu-test8.yaml"), "-t", str(DRA / "nodes.yaml"),
                 "--resource-slices", str(DRA / "slices.yaml"), "-o", "json")  # fmt: skip
    assert both.exit_code == alone.exit_code == 0, both.output
    assert json.loads(both.stdout)["podGroups"] == json.loads(alone.stdout)["podGroups"]


def test_slices_in_the_topology_file_and_given_apart_are_read_together(tmp_path):
    # the topology file carries node-a's slice, --resource-slices node-b's: neither hides the other
    import yaml

    dump = tmp_path / "cluster.yaml"
    nodes = yaml.safe_load((DRA / "nodes.yaml").read_text())["items"]
    slices = yaml.safe_load((DRA / "slices.yaml").read_text())["items"]
    dump.write_text(yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": nodes + slices[:1]}))
    other = tmp_path / "node-b.yaml"
    other.write_text(yaml.safe_dump(slices[1]))
    cluster = load_cluster(str(dump), resource_slices=[str(other)])
    assert [node.allocatable[device_resource("gpu.nvidia.com")] for node in cluster.nodes] == [3, 1]


def test_a_bad_resource_slice_in_the_topology_file_names_its_document(tmp_path, wmap):
    dump = tmp_path / "cluster.yaml"
    dump.write_text(
        (DRA / "nodes.yaml").read_text() + "---\nkind: ResourceSlice\napiVersion: resource.k8s.io/v1\n"
        "metadata: {name: s}\nspec: {driver: gpu.nvidia.com, nodeName: node-a, "
        "pool: {name: p, generation: 1, resourceSliceCount: 1}, "
        "devices: [{name: d, capacity: {memory: {value: lots}}}]}\n"
    )
    result = wmap("place", str(DRA / "gpu-test8.yaml"), "-t", str(dump))
    assert result.exit_code != 0
    (line,) = [text for text in result.stderr.splitlines() if text.startswith("error:")]
    assert str(dump) in line and "#2 (ResourceSlice/s)" in line and "spec.devices[0].capacity.memory" in line


def test_network_attached_gpus_are_capacity_of_every_node_they_select():
    # allocator_testing.go "network-attached-device": a slice with a nodeSelector is available to
    # every node it selects; here zone-1 holds both nodes, so each may use the two shared GPUs
    shared = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": "fabric"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "pool": {"name": "fabric", "generation": 1, "resourceSliceCount": 1},
            "nodeSelector": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-1"]}
                        ]
                    }
                ]
            },  # fmt: skip
            "devices": [{"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}}} for i in range(2)],
        },
    }
    cluster = with_devices(load_cluster(str(DRA / "nodes.yaml")), read_node_devices([shared]))
    assert [node.allocatable[device_resource("gpu.nvidia.com")] for node in cluster.nodes] == [2, 2]
    assert any("upper bound" in note for note in cluster.notes)
    assert place(_tree("gpu-test8.yaml"), cluster).fits


def test_a_live_cluster_gives_its_resource_slices(tmp_path, monkeypatch):
    # `-t cluster:` reads the ResourceSlices, DeviceClasses and ResourceClaims with the nodes (GET
    # only): the same capacity as nodes.yaml with --resource-slices slices.yaml
    import yaml

    from helpers.apiserver import DEFAULT_RESOURCES, FakeApiServer, FakeResource

    for variable in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    slices = FakeResource("resource.k8s.io", "v1", "resourceslices", "resourceslice", "ResourceSlice", namespaced=False)
    nodes = yaml.safe_load((DRA / "nodes.yaml").read_text())["items"]
    objects = yaml.safe_load((DRA / "slices.yaml").read_text())["items"]
    for obj in objects:  # the API server serves every stored version as v1: v1beta1's `basic` is flattened
        obj["apiVersion"] = "resource.k8s.io/v1"
        if obj["kind"] == "ResourceSlice":
            obj["spec"]["devices"] = [{"name": d["name"], **d.get("basic", d)} for d in obj["spec"]["devices"]]
    with FakeApiServer([*DEFAULT_RESOURCES, slices]) as server:
        server.add_all([*nodes, *objects])
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig")))
        cluster = load_cluster("cluster:")
        assert {method for method, _ in server.requests} == {"GET"}
    assert [node.allocatable[device_resource("gpu.nvidia.com")] for node in cluster.nodes] == [2, 1]
    assert place(_tree("gpu-test8.yaml"), cluster).fits
    with FakeApiServer() as server:  # no ResourceSlice type served: no device capacity, DRA unchecked
        server.add_all(nodes)
        monkeypatch.setenv("KUBECONFIG", str(server.write_kubeconfig(tmp_path / "kubeconfig2")))
        assert not checks_devices(load_cluster("cluster:"))
