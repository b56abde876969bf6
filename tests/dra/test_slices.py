"""ResourceSlices as node capacity; cases of the structured allocator's tests
(kubernetes staging/src/k8s.io/dynamic-resource-allocation/structured/internal/allocatortesting/allocator_testing.go)
and KAI's TestSnapshotNodesWithDRAGPUs (pkg/scheduler/api/cluster_info/cluster_info_test.go)."""

from __future__ import annotations

from fractions import Fraction

from workloadmap.dra import device_resource, read_node_devices

CLASS_A = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "class-a"},
    # allocator_testing.go class(name, driver): a selector on the driver
    "spec": {"selectors": [{"cel": {"expression": 'device.driver == "driver-a"'}}]},
}


def _slice(name, node, pool, devices, *, generation=1, count=1, driver="driver-a"):
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name},
        "spec": {
            "driver": driver,
            "nodeName": node,
            "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
            "devices": [{"name": device} for device in devices],
        },
    }


def _free(objects, node="node-1", device_class="class-a"):
    return read_node_devices(objects).capacity.get(node, {}).get(device_resource(device_class))


def test_simple():
    # "simple": one device-1 in pool-1 of node-1 -> allocatable
    assert _free([CLASS_A, _slice("slice-1", "node-1", "pool-1", ["device-1"])]) == 1


def test_devices_split_across_different_slices():
    # "devices-split-across-different-slices": count 2 from one device in pool-1 and one in pool-2
    objects = [CLASS_A, _slice("s1", "node-1", "pool-1", ["device-1"]), _slice("s2", "node-1", "pool-2", ["device-1"])]
    assert _free(objects) == 2


def test_other_node_and_other_driver():
    # "other-node": node-1's slice is of driver-b, node-2's of driver-a
    objects = [CLASS_A, _slice("s1", "node-1", "pool-1", ["device-1"], driver="driver-b"),
               _slice("s2", "node-2", "pool-2", ["device-1"])]  # fmt: skip
    assert _free(objects, "node-1") == 0
    assert _free(objects, "node-2") == 1


def test_obsolete_slice_the_newest_generation_is_incomplete():
    # "obsolete-slice": generation 1 (device-1) and 2 (device-2), resourceSliceCount 2, one slice
    # each -> no result: only the highest generation counts, and it is incomplete
    objects = [
        CLASS_A,
        _slice("s1", "node-1", "pool-1", ["device-1"], generation=1, count=2),
        _slice("s2", "node-1", "pool-1", ["device-2"], generation=2, count=2),
    ]
    found = read_node_devices(objects)
    assert found.capacity.get("node-1", {}).get(device_resource("class-a"), Fraction(0)) == 0
    assert any("incomplete" in note for note in found.notes)


def test_already_allocated_devices_are_taken():
    # "already-allocated-devices": device-1 is in an allocated claim's results -> nil
    claim = {
        "kind": "ResourceClaim",
        "metadata": {"name": "other", "namespace": "default"},
        "status": {"allocation": {"devices": {"results": [
            {"request": "req-0", "driver": "driver-a", "pool": "pool-1", "device": "device-1"}
        ]}}},
    }  # fmt: skip
    assert _free([CLASS_A, _slice("s", "node-1", "pool-1", ["device-1"]), claim]) == 0
    # an admin-access allocation does not take the device ("all-devices-some-allocated-admin-access")
    claim["status"]["allocation"]["devices"]["results"][0]["adminAccess"] = True
    assert _free([CLASS_A, _slice("s", "node-1", "pool-1", ["device-1"]), claim]) == 1


def _selected(name, pool, selection):
    """allocator_testing.go sliceWithOneDevice(slice, nodeSelection, pool, driver) for a node selection."""
    slice_ = _slice(name, "", pool, ["device-1"])
    del slice_["spec"]["nodeName"]
    slice_["spec"].update(selection)
    return slice_


def _label_selector(key, value):
    # allocator_testing.go nodeLabelSelector(key, value): one term, key In [value]
    return {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": key, "operator": "In", "values": [value]}]}]}}  # fmt: skip


def _node_free(found, name, node_labels, device_class="class-a"):
    return found.for_node(name, node_labels).get(device_resource(device_class), Fraction(0))


# allocator_testing.go node(name, region): labels region=<region>, planet=earth
NODE_1 = {"region": "region-1", "planet": "earth"}
NODE_2 = {"region": "region-2", "planet": "earth"}


def test_network_attached_device_is_available_to_the_nodes_its_selector_selects():
    # "network-attached-device": a slice with nodeSelector region In [region-1] -> allocated on
    # node-1 (region-1); "unsuccessful-allocation-network-attached-device": node-2 (region-2) -> nil
    found = read_node_devices([CLASS_A, _selected("slice-1", "pool-1", _label_selector("region", "region-1"))])
    assert found.capacity == {}  # no node-local device
    assert _node_free(found, "node-1", NODE_1) == 1
    assert _node_free(found, "node-2", NODE_2) == 0
    assert any("upper bound" in note for note in found.notes)


def test_many_network_attached_devices():
    # "many-network-attached-devices": count 4 on node-1 from a region-1 selector slice, an
    # allNodes slice, a planet=earth selector slice and localNodeSelector(node-1) (matchFields
    # metadata.name In [node-1]) -> all four allocated
    local = {"nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}}  # fmt: skip
    objects = [
        CLASS_A,
        _selected("slice-1", "pool-1", _label_selector("region", "region-1")),
        _selected("slice-1", "pool-2", {"allNodes": True}),
        _selected("slice-1", "pool-3", _label_selector("planet", "earth")),
        _selected("slice-1", "pool-4", local),
    ]
    found = read_node_devices(objects)
    assert _node_free(found, "node-1", NODE_1) == 4
    assert _node_free(found, "node-2", NODE_2) == 2  # allNodes and planet=earth only


def test_local_and_network_attached_devices_add_up():
    # "local-and-network-attached-devices": count 2 from a region-1 selector slice and a node-1 slice
    objects = [CLASS_A, _selected("s1", "pool-1", _label_selector("region", "region-1")),
               _slice("s2", "node-1", "pool-2", ["device-1"])]  # fmt: skip
    assert _node_free(read_node_devices(objects), "node-1", NODE_1) == 2


def test_per_device_node_selection():
    # k8s.io/api resource/v1 ResourceSliceSpec.perDeviceNodeSelection: "NodeName, NodeSelector
    # and AllNodes must be set in each device instead"; a device naming none is left out
    slice_ = _selected("s", "pool-1", {"perDeviceNodeSelection": True})
    slice_["spec"]["devices"] = [
        {"name": "device-1", "nodeName": "node-1"},
        {"name": "device-2", "allNodes": True},
        {"name": "device-3", **_label_selector("region", "region-2")},
        {"name": "device-4"},
    ]
    found = read_node_devices([CLASS_A, slice_])
    assert _node_free(found, "node-1", NODE_1) == 2
    assert _node_free(found, "node-2", NODE_2) == 2
    assert any("device-4" in note for note in found.notes)


def test_a_taken_network_attached_device_is_taken_on_every_node():
    claim = {"kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "default"},
             "status": {"allocation": {"devices": {"results": [
                 {"request": "req-0", "driver": "driver-a", "pool": "pool-2", "device": "device-1"}]}}}}  # fmt: skip
    found = read_node_devices([CLASS_A, _selected("s", "pool-2", {"allNodes": True}), claim])
    assert _node_free(found, "node-1", NODE_1) == _node_free(found, "node-2", NODE_2) == 0


def test_a_slice_naming_no_node_is_left_out_with_a_note():
    found = read_node_devices([CLASS_A, _selected("s", "pool-1", {})])
    assert _node_free(found, "node-1", NODE_1) == 0
    assert any("names no node" in note for note in found.notes)


def _nvidia_gpus(node, count):
    return {
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpu"},
        "spec": {
            "driver": "gpu.nvidia.com",
            "nodeName": node,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": f"gpu-{i}", "attributes": {"type": {"string": "gpu"}}} for i in range(count)],
        },
    }


def test_kai_nodes_with_dra_gpus():
    # KAI TestSnapshotNodesWithDRAGPUs "Multiple nodes with DRA GPUs" (4, 8) with NVIDIA's device
    # shape (type gpu): NVIDIA's chart class gpu.nvidia.com is assumed without a DeviceClass object
    found = read_node_devices([_nvidia_gpus("node-0", 4), _nvidia_gpus("node-1", 8)])
    assert found.capacity["node-0"][device_resource("gpu.nvidia.com")] == 4
    assert found.capacity["node-1"][device_resource("gpu.nvidia.com")] == 8
    assert found.capacity["node-1"][device_resource("mig.nvidia.com")] == 0


def test_mig_devices_are_not_gpus_of_the_gpu_class():
    # NVIDIA's MIG device: type mig (deviceinfo.go); the gpu class selects type == 'gpu' only
    slice_ = _nvidia_gpus("node-0", 1)
    slice_["spec"]["devices"].append({"name": "gpu-0-mig-1g5gb-19-0", "attributes": {"type": {"string": "mig"}}})
    found = read_node_devices([slice_])
    assert found.capacity["node-0"][device_resource("gpu.nvidia.com")] == 1
    assert found.capacity["node-0"][device_resource("mig.nvidia.com")] == 1


def test_v1beta1_devices_under_basic():
    slice_ = _nvidia_gpus("node-0", 0)
    slice_["apiVersion"] = "resource.k8s.io/v1beta1"
    slice_["spec"]["devices"] = [{"name": "gpu-0", "basic": {"attributes": {"type": {"string": "gpu"}}}}]
    assert read_node_devices([slice_]).capacity["node-0"][device_resource("gpu.nvidia.com")] == 1
