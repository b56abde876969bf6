"""Nodes and Pods shaped as ``kubectl get nodes,pods -o json`` prints them (about 11 KB a node).

What makes a real Node large is what wmap never reads: ``status.images`` (dozens of images with
digests), ``metadata.managedFields``, annotations written by the CNI, the CSI drivers and the GPU
operator, ``status.nodeInfo``, addresses, ``daemonEndpoints``, and conditions with their messages.
The shapes follow the v1 Node and Pod API (``k8s.io/api/core/v1/types.go``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import IO, Any

GPU = "nvidia.com/gpu"
BLOCK = "nvidia.com/gpu.clique"
RACK = "network.topology.kubernetes.io/rack"
SPINE = "network.topology.kubernetes.io/spine"

_TIME = "2026-11-02T08:14:27Z"
_CONDITIONS = [
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
]


def _image(index: int, node: int) -> dict[str, Any]:
    digest = f"{(index * 7919 + node) % (16**12):012x}" * 5 + "abcd"
    return {
        "names": [
            f"nvcr.io/nvidia/k8s/component-{index}@sha256:{digest}",
            f"nvcr.io/nvidia/k8s/component-{index}:v{index}.{node % 7}.0",
        ],
        "sizeBytes": 100_000_000 + index * 1_234_567,
    }


def kubectl_node(index: int, *, nodes_per_rack: int = 18, racks_per_spine: int = 8, ready: bool = True) -> dict:
    """Node ``gpu-node-<index>``: 8 GPUs, a rack, a spine and an NVLink block label, ~11 KB of JSON."""
    name = f"gpu-node-{index:06d}"
    rack = index // nodes_per_rack
    spine = rack // racks_per_spine
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": "p5.48xlarge",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "p5.48xlarge",
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": "us-east-1a",
        SPINE: f"spine-{spine}",
        RACK: f"rack-{rack}",
        BLOCK: f"block-{rack}",
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
        "nvidia.com/gpu.memory": "81559",
        "nvidia.com/gpu.count": "8",
        "nvidia.com/gpu.family": "hopper",
        "nvidia.com/cuda.driver.major": "550",
        "nvidia.com/cuda.driver.minor": "90",
        "nvidia.com/cuda.runtime.major": "12",
        "nvidia.com/gpu.deploy.driver": "true",
        "nvidia.com/gpu.deploy.device-plugin": "true",
        "nvidia.com/gpu.deploy.dcgm-exporter": "true",
        "nvidia.com/mig.capable": "true",
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "feature.node.kubernetes.io/kernel-version.full": "5.15.0-1051-aws",
    }
    annotations = {
        "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": f"i-0{index:016x}"}),
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
        "nfd.node.kubernetes.io/feature-labels": ",".join(key for key in labels if key.startswith("feature.")),
        "nvidia.com/gpu-driver-upgrade-enabled": "true",
        "projectcalico.org/IPv4Address": f"10.{index // 65536 % 256}.{index // 256 % 256}.{index % 256}/16",
    }
    managed = [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": {f"f:{key}": {} for key in annotations},
                    "f:labels": {f"f:{key}": {} for key in labels},
                }
            },
            "manager": manager,
            "operation": "Update",
            "time": _TIME,
        }
        for manager in ("kubelet", "node-feature-discovery")
    ]
    capacity = {
        "cpu": "192",
        "ephemeral-storage": "7999991032Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "2097152000Ki",
        GPU: "8",
        "vpc.amazonaws.com/efa": "32",
        "pods": "110",
    }
    allocatable = dict(capacity, cpu="191450m", memory="2086564864Ki", **{"ephemeral-storage": "7372631222733"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": annotations,
            "creationTimestamp": _TIME,
            "labels": labels,
            "managedFields": managed,
            "name": name,
            "resourceVersion": str(1_000_000 + index),
            "uid": f"{index:08x}-5b1e-4c2d-9a7f-{index:012x}",
        },
        "spec": {
            "podCIDR": f"100.{index // 256 % 256}.{index % 256}.0/24",
            "podCIDRs": [f"100.{index // 256 % 256}.{index % 256}.0/24"],
            "providerID": f"aws:///us-east-1a/i-0{index:016x}",
            "taints": [{"effect": "NoSchedule", "key": GPU, "value": "present"}],
        },
        "status": {
            "addresses": [
                {"address": f"10.0.{index // 256 % 256}.{index % 256}", "type": "InternalIP"},
                {"address": f"ip-10-0-{index // 256 % 256}-{index % 256}.ec2.internal", "type": "InternalDNS"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": [
                {
                    "lastHeartbeatTime": _TIME,
                    "lastTransitionTime": _TIME,
                    "message": message,
                    "reason": reason,
                    "status": ("True" if ready else "False") if kind == "Ready" else status,
                    "type": kind,
                }
                for kind, status, reason, message in _CONDITIONS
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [_image(image, index) for image in range(5)],
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": f"{index:08x}-0000-4000-8000-{index:012x}",
                "containerRuntimeVersion": "containerd://1.7.11",
                "kernelVersion": "5.15.0-1051-aws",
                "kubeProxyVersion": "v1.30.2",
                "kubeletVersion": "v1.30.2",
                "machineID": f"ec2{index:029x}",
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.4 LTS",
                "systemUUID": f"ec2{index:05x}-0000-0000-0000-{index:012x}",
            },
        },
    }


def kubectl_pod(index: int, node: str | None, *, gpus: int = 8, phase: str = "Running") -> dict:
    """A training pod on ``node`` asking for ``gpus`` GPUs, with the fields kubectl prints."""
    name = f"train-{index:06d}"
    resources = {"limits": {GPU: str(gpus), "memory": "512Gi"}, "requests": {"cpu": "48", GPU: str(gpus)}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "labels": {"jobset.sigs.k8s.io/jobset-name": "train", "batch.kubernetes.io/job-completion-index": "0"},
            "name": name,
            "namespace": "research",
            "uid": f"{index:08x}-aaaa-4bbb-8ccc-{index:012x}",
        },
        "spec": {
            "containers": [
                {
                    "command": ["torchrun", "--nproc-per-node=8", "train.py"],
                    "env": [{"name": "NCCL_DEBUG", "value": "WARN"}],
                    "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                    "name": "trainer",
                    "resources": resources,
                    "volumeMounts": [{"mountPath": "/dev/shm", "name": "dshm"}],
                }
            ],
            "initContainers": [
                {"name": "warmup", "image": "busybox", "resources": {"requests": {"cpu": "64"}}},
                {"name": "sidecar", "image": "x", "restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
            ],
            **({"nodeName": node} if node else {}),
            "overhead": {"cpu": "250m"},
            "schedulerName": "default-scheduler",
            "tolerations": [{"effect": "NoSchedule", "key": GPU, "operator": "Exists"}],
            "volumes": [{"emptyDir": {"medium": "Memory"}, "name": "dshm"}],
        },
        "status": {"phase": phase, "podIP": f"100.64.{index // 256 % 256}.{index % 256}", "qosClass": "Burstable"},
    }


def write_list(handle: IO[str], items: Iterator[dict], *, kind: str = "List") -> None:
    """Write a ``List`` as kubectl does (``apiVersion``, ``items``, ``kind``, ``metadata``), item by item."""
    handle.write('{\n    "apiVersion": "v1",\n    "items": [\n')
    for position, item in enumerate(items):
        if position:
            handle.write(",\n")
        handle.write(json.dumps(item, indent=4))
    handle.write(f'\n    ],\n    "kind": "{kind}",\n    "metadata": {{\n        "resourceVersion": ""\n    }}\n}}\n')
