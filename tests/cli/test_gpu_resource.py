"""``--gpu-resource`` reaches every stage: the tree, placement, cluster ranking and the exports (issue 7).

GPU resource names used to be hard-coded in placement, the demand export and the renderer, so a
TPU or Gaudi cluster counted 0 GPUs everywhere but ``inspect``'s totals.
"""

from __future__ import annotations

import json

import yaml

TPU = "google.com/tpu"

# A batch Job of 2 pods (parallelism 2), each asking 4 TPUs.
JOB = """\
apiVersion: batch/v1
kind: Job
metadata: {name: tpu-train, namespace: ml}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: train
          image: x
          resources: {limits: {google.com/tpu: 4, cpu: "8"}}
"""


def _nodes(count: int) -> dict:
    items = []
    for index in range(count):
        name = f"tpu-{index}"
        labels = {"kubernetes.io/hostname": name, "example.com/rack": f"r{index // 2}"}
        allocatable = {"cpu": "32", "memory": "256Gi", TPU: "4", "pods": "110"}
        items.append(
            {"kind": "Node", "metadata": {"name": name, "labels": labels}, "status": {"allocatable": allocatable}}
        )
    return {"apiVersion": "v1", "kind": "NodeList", "items": items}


def _files(tmp_path):
    job = tmp_path / "job.yaml"
    job.write_text(JOB)
    small = tmp_path / "small.yaml"
    small.write_text(yaml.safe_dump(_nodes(2)))
    big = tmp_path / "big.yaml"
    big.write_text(yaml.safe_dump(_nodes(6)))
    return str(job), str(small), str(big)


def test_tree_counts_and_renders_the_named_resource_as_gpus(wmap, tmp_path):
    job, _, _ = _files(tmp_path)
    result = wmap("inspect", job, "--gpu-resource", TPU)
    assert result.exit_code == 0, result.output
    assert "4 GPU/pod, 8 GPUs" in result.stdout
    assert "Totals: 2 pods, 8 GPUs (cpu 16)" in result.stdout  # the TPUs are the GPUs, not listed again
    assert TPU not in result.stdout


def test_demand_export_counts_the_named_resource(wmap, tmp_path):
    job, small, _ = _files(tmp_path)
    counted = wmap("place", job, "-t", small, "--gpu-resource", TPU, "--emit", "demand", "-o", "json")
    assert counted.exit_code == 0, counted.output
    document = json.loads(counted.stdout)
    assert document["totals"]["gpus"] == 8  # 2 pods x 4
    assert [gang["gpus"] for gang in document["gangs"]] == [8]
    default = json.loads(wmap("place", job, "-t", small, "--emit", "demand", "-o", "json").stdout)
    assert default["totals"]["gpus"] == 0  # without the flag a TPU is not a GPU


def test_ranking_leftover_counts_the_named_resource(wmap, tmp_path):
    job, small, big = _files(tmp_path)
    result = wmap("place", job, "-t", small, "-t", big, "--gpu-resource", TPU, "-o", "json")
    assert result.exit_code == 0, result.output
    ranked = {fit["cluster"]: fit["leftoverGpus"] for fit in json.loads(result.stdout)["ranked"]}
    assert ranked == {"small": 0, "big": 16}  # 2 x 4 - 8 and 6 x 4 - 8 free TPUs left
