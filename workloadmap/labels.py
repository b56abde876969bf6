"""The vocabulary: every node label, annotation, label and API group/version wmap reads or writes.

Each key is written here once. Topology detection, the accelerator (NVLink) rule, the
interpreter's topology annotations, the exporters and the simulator import them from here, so
two parts of wmap can never disagree about a key.

Sources: Topograph ``docs/reference/node-labels.md`` (v1 and legacy keys), the cloud label
conventions (GKE, EKS, OCI), the NVIDIA GPU Operator (``nvidia.com/gpu.clique``), KAI Scheduler's
pod-grouper and topology annotations, Kueue's TAS pod-template annotations and Volcano's
HyperNode API (see ``../shared/reference/topology-formats.md`` and ``schedulers.md``).
"""

from __future__ import annotations

import re

# -- Kubernetes well-known node labels ------------------------------------------------------
HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
MANAGED_BY = "app.kubernetes.io/managed-by"

# -- Topograph >= v1.0 ----------------------------------------------------------------------
TOPOGRAPH_TIER = "fabric.topograph.run/tier-{tier}"
"""Switch at tier N; tier 0 is closest to the node, higher tiers are wider."""
TOPOGRAPH_TIER_PATTERN = re.compile(r"^fabric\.topograph\.run/tier-([0-9]+)$")
TOPOGRAPH_ACCELERATOR_DOMAIN = "accelerator.topograph.run/domain"
"""The accelerator (NVLink) domain, e.g. one GB200 NVL72 rack."""
TOPOGRAPH_ACCELERATOR_SUB_DOMAIN = "accelerator.topograph.run/sub-domain"
"""A part of an accelerator domain (written only together with the domain)."""

# -- Topograph <= v0.5 ----------------------------------------------------------------------
TOPOGRAPH_LEGACY_CORE = "network.topology.nvidia.com/core"
TOPOGRAPH_LEGACY_SPINE = "network.topology.nvidia.com/spine"
TOPOGRAPH_LEGACY_LEAF = "network.topology.nvidia.com/leaf"
TOPOGRAPH_LEGACY_ACCELERATOR = "network.topology.nvidia.com/accelerator"

# -- Topograph simulation models (block annotations) ----------------------------------------
MODEL_DOMAIN_ANNOTATION = "accelerator.topology.test/domain"
MODEL_SUB_DOMAIN_ANNOTATION = "accelerator.topology.test/sub-domain"

# -- Clouds ---------------------------------------------------------------------------------
GKE_BLOCK = "cloud.google.com/gce-topology-block"
GKE_SUBBLOCK = "cloud.google.com/gce-topology-subblock"
GKE_HOST = "cloud.google.com/gce-topology-host"
EKS_NETWORK_LAYERS = tuple(f"topology.k8s.aws/network-node-layer-{layer}" for layer in range(1, 5))
"""EKS network layers, layer 1 (the top of the hierarchy) first."""
EKS_ULTRASERVER = "topology.k8s.aws/ultraserver-id"
"""An EKS (HyperPod) UltraServer: one NVLink domain."""
EKS_CAPACITY_BLOCK = "topology.k8s.aws/capacity-block-id"
"""An EC2 Capacity Block reservation; on EKS P6e-GB200 without Topograph it is co-extensive with one
UltraServer, the NVLink domain (Topograph ``docs/reference/node-labels.md``, "Without Topograph")."""
OCI_NETWORK_BLOCK = "oci.oraclecloud.com/host.network_block_id"
OCI_RACK = "oci.oraclecloud.com/host.rack_id"

# -- NVIDIA GPU Operator --------------------------------------------------------------------
GPU_CLIQUE = "nvidia.com/gpu.clique"
"""``<ClusterUUID>.<CliqueID>``: the NVLink partition a node's GPUs belong to."""

# -- wmap's own labels ----------------------------------------------------------------------
SIMULATED = "wmap.dev/simulated"
CLUSTER_NAME = "wmap.dev/cluster"
"""On generated nodes: the simulated cluster's name (``topology generate --name``), read back as the cluster name."""
SLURM_SWITCH_TIER = "slurm.wmap.dev/switch-tier-{tier}"
SLURM_BLOCK = "slurm.wmap.dev/block"
SLURM_BLOCK_GROUP = "slurm.wmap.dev/block-group-{size}"
WMAP_API_GROUP = "wmap.dev"
DEMAND_API_VERSION = "wmap.dev/v1alpha1"
WMAP_EXPORTED_FROM_LABEL = "wmap.dev/exported-from"
"""On an exported Karta: the wmap definition it was written from."""
WMAP_EXPORT_LOSSES_ANNOTATION = "wmap.dev/karta-export-losses"
"""On an exported Karta: what the wmap definition says that the Karta cannot."""
WMAP_CLIQUE_GROUP = "wmap.dev/clique-group"
"""The pod label `wmap alter --clique-affinity` writes: the workload's pods, which its required
podAffinity selects (topologyKey ``nvidia.com/gpu.clique``) so they land in one NVLink clique."""
WMAP_INSTANCE_LABEL = "wmap.dev/instance"
"""The pod label an exported Karta's instance selector names (no operator sets it: listed as a loss)."""

# -- NVIDIA Workload Map (Karta) -------------------------------------------------------------
KARTA_GROUP = "run.ai"
KARTA_API_VERSION = "run.ai/v1alpha1"
KARTA_KIND = "Karta"
KARTA_RESOURCE = "kartas"

TRAINER_GROUP = "trainer.kubeflow.org"
KSERVE_GROUP = "serving.kserve.io"
ARGO_GROUP = "argoproj.io"
TEKTON_GROUP = "tekton.dev"
VOLCANO_FLOW_GROUP = "flow.volcano.sh"
DYNAMO_GROUP = "nvidia.com"

# -- Kubernetes' own workload-aware scheduling (KEP-4671 Workload API, KEP-5732 topology, KEP-6012) --
SCHEDULING_GROUP = "scheduling.k8s.io"
NATIVE_WORKLOAD_KIND = "Workload"
NATIVE_POD_GROUP_KIND = "PodGroup"
NATIVE_COMPOSITE_KIND = "CompositePodGroup"
NATIVE_VERSIONS = ("v1beta1", "v1alpha3", "v1alpha2", "v1alpha1")
"""The served versions of the Workload API, newest first: v1alpha1 (1.35), v1alpha2 (1.36), v1beta1 and
v1alpha3 (1.37: v1alpha3 alone serves CompositePodGroup); kubernetes/api ``scheduling/*/register.go``."""
NATIVE_DEFAULT_VERSION = "v1beta1"
"""The version ``--emit workload`` writes unless told: the newest that serves Workload and PodGroup."""
KAI_IGNORE_WORKLOAD_API = "kai.scheduler/ignore-workload-api"
"""KAI's design opt-out (docs/developer/designs/k8s-workload-api): "true" on a pod or its top owner keeps
KAI's own grouping and ignores the pod's Workload reference."""

BATCH_GROUP = "batch"
JOB_KIND = "Job"
JOB_WORKLOAD_GATE_ALPHA = "EnableWorkloadWithJob"
"""1.36's feature gate of the Job controller's own Workload and PodGroup (alpha, off by default; kubernetes.io
feature-gates/EnableWorkloadWithJob.md, kubernetes pkg/controller/job/job_scheduling_manager.go)."""
JOB_WORKLOAD_GATE = "WorkloadWithJob"
"""The same gate renamed in 1.37, where every Job gets the objects, ``basic`` unless ``spec.scheduling`` says
``gang`` (KEP-5547 second alpha; kubernetes.io workload-api/_index.md "Gang scheduling with Jobs")."""
JOB_DELEGATED_TEMPLATE = "scheduling.k8s.io/group-template-name"
"""1.37: on a Job whose parent owns the Workload, the template the Job controller makes the Job's PodGroup from
(kubernetes pkg/apis/scheduling ``GroupTemplateNameAnnotation``)."""
JOB_SUSPENDED_CONDITION = "Suspended"
JOB_INDEXED = "Indexed"
POD_GROUP_SCHEDULED = "PodGroupScheduled"
"""The condition kube-scheduler sets on a PodGroup (kubernetes/api scheduling/v1alpha2 types.go)."""

REFERENCE_KINDS: frozenset[tuple[str, str]] = frozenset(
    {
        (SCHEDULING_GROUP, NATIVE_WORKLOAD_KIND),
        (SCHEDULING_GROUP, NATIVE_POD_GROUP_KIND),
        (SCHEDULING_GROUP, NATIVE_COMPOSITE_KIND),
        (TRAINER_GROUP, "TrainingRuntime"),
        (TRAINER_GROUP, "ClusterTrainingRuntime"),
        (KSERVE_GROUP, "LLMInferenceServiceConfig"),
        (KSERVE_GROUP, "ServingRuntime"),
        (KSERVE_GROUP, "ClusterServingRuntime"),
        (ARGO_GROUP, "WorkflowTemplate"),
        (ARGO_GROUP, "ClusterWorkflowTemplate"),
        (TEKTON_GROUP, "Pipeline"),
        (TEKTON_GROUP, "Task"),
        (TEKTON_GROUP, "ClusterTask"),
        (VOLCANO_FLOW_GROUP, "JobTemplate"),
        # Dynamo's scaling adapter: a component's replica count (spec.replicas, spec.dgdRef), no secrets.
        (DYNAMO_GROUP, "DynamoGraphDeploymentScalingAdapter"),
        # KAI's own PodGroup: scheduling state, no secrets; KAI's jobset grouper reads it to pick a shape.
        ("scheduling.run.ai", "PodGroup"),
    }
)
"""(group, kind) a definition's ``references`` may name: the runtime templates workloads are built from,
the scaling adapters that own a component's replicas, and the native Workload API's objects a pod template
joins (``spec.schedulingGroup``, ``spec.workloadRef``).
KAI's PodGroup too (whether KAI already grouped a JobSet the legacy way).

Anything else (Secrets and ConfigMaps above all) only with ``--allow-reference-kind``: a definition
is untrusted input and must not read more of the cluster than the workload it describes."""

# -- GPU resources --------------------------------------------------------------------------
NVIDIA_GPU = "nvidia.com/gpu"
AMD_GPU = "amd.com/gpu"
NVIDIA_MIG_PREFIX = "nvidia.com/mig-"
"""MIG slices: ``nvidia.com/mig-1g.5gb`` and the like (the device plugin's mixed strategy)."""
GOOGLE_TPU = "google.com/tpu"
AWS_NEURON = "aws.amazon.com/neuron"
AWS_NEURON_CORE = "aws.amazon.com/neuroncore"
AWS_NEURON_DEVICE = "aws.amazon.com/neurondevice"
HABANA_GAUDI = "habana.ai/gaudi"
INTEL_GPU_I915 = "gpu.intel.com/i915"
INTEL_GPU_XE = "gpu.intel.com/xe"
ACCELERATORS: tuple[str, ...] = (
    NVIDIA_GPU, AMD_GPU, GOOGLE_TPU, AWS_NEURON, AWS_NEURON_CORE, AWS_NEURON_DEVICE, HABANA_GAUDI,
    INTEL_GPU_I915, INTEL_GPU_XE,
)  # fmt: skip
"""Extended resources that are accelerators, as their device plugins name them (MIG slices by prefix)."""

# -- KAI Scheduler --------------------------------------------------------------------------
KAI_TOPOLOGY = "kai.scheduler/topology"
KAI_TOPOLOGY_REQUIRED = "kai.scheduler/topology-required-placement"
KAI_TOPOLOGY_PREFERRED = "kai.scheduler/topology-preferred-placement"
KAI_SEGMENT_PREFIX = "kai.scheduler/segment"
KAI_TOPOLOGY_API_VERSION = "kai.scheduler/v1alpha1"
KAI_PODGROUP_API_VERSION = "scheduling.run.ai/v2alpha2"
KAI_SEGMENT_TOPOLOGY_REQUIRED = "kai.scheduler/segment-topology-required-placement"
KAI_SEGMENT_TOPOLOGY_PREFERRED = "kai.scheduler/segment-topology-preferred-placement"
KAI_QUEUE = "kai.scheduler/queue"
KAI_NODE_POOL = "kai.scheduler/node-pool"
KAI_PROJECT = "project"
KAI_PRIORITY_CLASS = "priorityClassName"
KAI_PREEMPTIBILITY = "kai.scheduler/preemptibility"
KAI_DEFAULT_QUEUE = "default-queue"
KAI_POD_GROUP_NAME = "pod-group-name"
KAI_SUBGROUP_NAME = "kai.scheduler/subgroup-name"
KAI_SKIP_PODGROUPER = "kai.scheduler/skip-podgrouper"
"""``"true"`` on a pod or any owner: KAI's pod-grouper leaves its pods alone (KAI v0.15, #1552); they join the
PodGroup their ``pod-group-name`` annotation names (``pkg/common/constants/constants.go`` SkipPodGrouperAnnotation)."""
KAI_PRIORITY_VALUES = {"train": 50, "build-preemptible": 75, "build": 100, "inference": 125}
"""Values of the PriorityClasses KAI installs (``deployments/kai-scheduler/templates/priorityclasses``)."""
KAI_NON_PREEMPTIBLE_PRIORITY = 100
"""KAI's ``PriorityBuildNumber``: a PodGroup at this priority or above is non-preemptible unless labelled."""

# -- Kueue ----------------------------------------------------------------------------------
KUEUE_PODSET_PREFIX = "kueue.x-k8s.io/podset-"
KUEUE_REQUIRED = "kueue.x-k8s.io/podset-required-topology"
KUEUE_PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
KUEUE_UNCONSTRAINED = "kueue.x-k8s.io/podset-unconstrained-topology"
KUEUE_SLICE_REQUIRED = "kueue.x-k8s.io/podset-slice-required-topology"
KUEUE_SLICE_SIZE = "kueue.x-k8s.io/podset-slice-size"
KUEUE_SLICE_CONSTRAINTS = "kueue.x-k8s.io/podset-slice-required-topology-constraints"
"""Multi-layer slices: a JSON list of ``{"topology": <level>, "size": <pods>}``, outermost first."""
KUEUE_GROUP_NAME = "kueue.x-k8s.io/podset-group-name"
KUEUE_TOPOLOGY_API_VERSION = "kueue.x-k8s.io/v1beta2"
KUEUE_TOPOLOGY_API_VERSIONS = ("kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
KUEUE_GROUP = "kueue.x-k8s.io"
"""Kueue's API group: ClusterQueue, LocalQueue, ResourceFlavor, Cohort, Topology, Workload ..."""
KUEUE_API_VERSION = "kueue.x-k8s.io/v1beta2"
KUEUE_PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"
"""The job label naming its WorkloadPriorityClass (``controllerconstants.WorkloadPriorityClassLabel``)."""
KUEUE_DEFAULT_LOCAL_QUEUE = "default"
"""The LocalQueue a job without a queue label gets, when its namespace has one of that name."""
KUEUE_DEFAULT_PRIORITY_CLASS = "default"
"""The WorkloadPriorityClass a job without the label gets, when one of that name exists."""
KUEUE_DEFAULT_POD_SET = "main"
"""``kueue.DefaultPodSetName``: the PodSet of a Job, a Pod, a StatefulSet, an LWS without a leader."""
SCHEDULING_GROUP = "scheduling.k8s.io"
"""Kubernetes' PriorityClass group."""
KAI_QUEUE_GROUP = "scheduling.run.ai"
"""KAI's Queue group (``scheduling.run.ai/v2`` Queue)."""
KAI_QUEUE_API_VERSION = "scheduling.run.ai/v2"
KAI_SCHEDULER_NAME = "kai-scheduler"
"""The ``schedulerName`` of pods KAI Scheduler places."""

# -- Volcano --------------------------------------------------------------------------------
VOLCANO_HYPERNODE_API_VERSION = "topology.volcano.sh/v1alpha1"
VOLCANO_PODGROUP_API_VERSION = "scheduling.volcano.sh/v1beta1"

# -- Grove ----------------------------------------------------------------------------------
GROVE_TOPOLOGY_API_VERSION = "grove.io/v1alpha1"
GROVE_TOPOLOGY_KIND = "ClusterTopologyBinding"
"""Grove's topology (renamed from ClusterTopology, ai-dynamo/grove #616): ``spec.levels[] {domain, key}``."""

TOPOLOGY_OBJECT_API_VERSIONS = (KAI_TOPOLOGY_API_VERSION, *KUEUE_TOPOLOGY_API_VERSIONS)
"""``Topology`` objects whose ``spec.levels[].nodeLabel`` wmap reads."""

TOPOLOGY_ANNOTATION_PREFIXES = ("kai.scheduler/topology", KAI_SEGMENT_PREFIX, KUEUE_PODSET_PREFIX)
"""Topology annotations a user may already have written on a workload or its pod templates."""

# -- Queues (what `wmap alter --queue` writes on the workload object) -------------------------
KAI_QUEUE = "kai.scheduler/queue"
"""KAI's queue label, read from the top owner, else the pod (pod-grouper ``CalcPodGroupQueue``)."""
KUEUE_QUEUE_NAME = "kueue.x-k8s.io/queue-name"
"""Kueue's LocalQueue label on the workload (``controllerconstants.QueueLabel``)."""

# -- Tolerations (Kubernetes core/v1 Toleration) --------------------------------------------
TOLERATION_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
TOLERATION_EXISTS = "Exists"
TOLERATION_EQUAL = "Equal"
NODE_SELECTOR_IN = "In"
"""The node-selector requirement operator pinned placements use (``key In [value]``)."""

# -- Live workloads: the gang a running pod joined, and the objects describe reads ---------------
KAI_POD_GROUP_ANNOTATION = "pod-group-name"
"""Pod annotation KAI's pod-grouper writes: the PodGroup the pod belongs to."""
KAI_SUBGROUP_LABEL = "kai.scheduler/subgroup-name"
"""Pod label KAI's pod-grouper writes: the SubGroup the pod belongs to."""
VOLCANO_GROUP_NAME_ANNOTATION = "scheduling.k8s.io/group-name"
"""Pod annotation of Volcano (``KubeGroupNameAnnotationKey``): the PodGroup the pod belongs to."""
VOLCANO_TASK_SPEC = "volcano.sh/task-spec"
"""Pod label of a Volcano Job's pods: the task (Volcano's unit below the PodGroup)."""
KUEUE_POD_GROUP_NAME = "kueue.x-k8s.io/pod-group-name"
"""Pod label of Kueue's plain-pod groups: the group the pod belongs to."""
KUEUE_PODSET = "kueue.x-k8s.io/podset"
"""Pod label Kueue sets when it admits a workload: the PodSet of the pod's template."""
KUEUE_POD_GROUP_TOTAL_COUNT = "kueue.x-k8s.io/pod-group-total-count"
"""Pod annotation of Kueue's plain-pod groups: the group's size, equal on every member (``pkg/controller/jobs/pod``)."""
KUEUE_POD_GROUP_FAST_ADMISSION = "kueue.x-k8s.io/pod-group-fast-admission"
"""Pod annotation ``"true"``: Kueue admits the group by its total count before all pods exist (``pod/constants``)."""
KUEUE_ROLE_HASH = "kueue.x-k8s.io/role-hash"
"""Pod annotation Kueue's webhook writes: the hash of the pod's role, the name of its PodSet in a group."""
KUEUE_POD_GROUP_KIND = "KueuePodGroup"
"""wmap's kind for a Kueue plain-pod group read from an input (group ``wmap.dev``): the Workload Kueue composes."""
KUEUE_POD_GROUP_API_VERSION = "wmap.dev/v1alpha1"
KUEUE_WORKLOAD = "kueue.x-k8s.io/workload"
"""Pod annotation Kueue writes: the Kueue Workload the pod belongs to (``apis/kueue/v1beta2/topology_types.go``)."""
KUEUE_WORKLOAD_KIND = NATIVE_WORKLOAD_KIND
"""Kind of Kueue's own Workload objects (group ``kueue.x-k8s.io``, v1beta2 and v1beta1)."""
KUEUE_WORKLOADS_RESOURCE = "workloads.kueue.x-k8s.io"
"""The resource type of Kueue's Workloads, as kubectl names it."""
COSCHEDULING_POD_GROUP = "scheduling.x-k8s.io/pod-group"
"""Pod label of the scheduler-plugins coscheduling plugin: the PodGroup the pod belongs to."""

POD_GROUP_KEYS: tuple[tuple[str, str], ...] = (
    ("annotations", KAI_POD_GROUP_ANNOTATION),
    ("annotations", VOLCANO_GROUP_NAME_ANNOTATION),
    ("labels", KUEUE_POD_GROUP_NAME),
    ("labels", COSCHEDULING_POD_GROUP),
)
"""Where a pod names the PodGroup a scheduler put it in, first found wins: (metadata field, key)."""
SUBGROUP_KEYS: tuple[tuple[str, str], ...] = (
    ("labels", KAI_SUBGROUP_LABEL),
    ("labels", KUEUE_PODSET),
    ("labels", VOLCANO_TASK_SPEC),
)
"""Where a pod names the SubGroup (KAI), PodSet (Kueue) or task (Volcano) it joined, first found wins."""

POD_READY = "Ready"
POD_SCHEDULED = "PodScheduled"
EVENTS_API_VERSION = "events.k8s.io/v1"
"""The Events API describe prefers; the core ``v1`` Event is the fallback."""
CORE_EVENTS_API_VERSION = "v1"

# NUMA: NodeResourceTopology objects (noderesourcetopology-api, as NFD's topology-updater and the
# topology-aware scheduler plugins publish them) and the kubelet's topology manager vocabulary.
NRT_GROUP = "topology.node.k8s.io"
NRT_API_VERSION = "topology.node.k8s.io/v1alpha2"
NRT_API_VERSIONS = ("topology.node.k8s.io/v1alpha2", "topology.node.k8s.io/v1alpha1")
NRT_KIND = "NodeResourceTopology"
NRT_PLURAL = "noderesourcetopologies"
NRT_ZONE_TYPE = "Node"  # a zone of this type is one NUMA node (NFD names it node-<id>)
NRT_POLICY_ATTRIBUTE = "topologyManagerPolicy"
NRT_SCOPE_ATTRIBUTE = "topologyManagerScope"
NRT_LEGACY_POLICY_PREFIX = "SingleNUMANodeContainerLevel"  # v1alpha1 topologyPolicies values
TOPOLOGY_MANAGER_POLICIES = ("none", "best-effort", "restricted", "single-numa-node")
TOPOLOGY_MANAGER_SCOPES = ("container", "pod")
QOS_GUARANTEED = "Guaranteed"
QOS_BURSTABLE = "Burstable"
QOS_BEST_EFFORT = "BestEffort"
HUGEPAGES_PREFIX = "hugepages-"

# -- wmap serve's RBAC --------------------------------------------------------------------------
RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
SERVE_NAME = "wmap-serve"
"""The name of the service's ClusterRole, ServiceAccount, Deployment and Service (``deploy/``)."""
SERVE_READ_VERBS = ("get", "list", "watch")
"""The only verbs the service's ClusterRole grants."""

# Dynamic Resource Allocation (resource.k8s.io, k8s.io/api/resource/v1/types.go) and NVIDIA's DRA
# driver (kubernetes-sigs/dra-driver-nvidia-gpu: its DeviceClasses and ResourceSlice attributes).
DRA_GROUP = "resource.k8s.io"
DRA_CLAIM_KIND = "ResourceClaim"
DRA_CLAIM_TEMPLATE_KIND = "ResourceClaimTemplate"
DRA_DEVICE_CLASS_KIND = "DeviceClass"
DRA_SLICE_KIND = "ResourceSlice"
DRA_EXACT_COUNT = "ExactCount"
DRA_ALL = "All"
DRA_EXTENDED_RESOURCE_CLAIM = "resource.kubernetes.io/extended-resource-claim"
"""On the synthetic claim KEP-5004 creates for a pod's DRA-backed extended resources (value "true")."""
DRA_DEVICE_CLASS_RESOURCE_PREFIX = "deviceclass.resource.kubernetes.io/"
"""KEP-5004's implicit extended resource name of every DeviceClass (``ResourceDeviceClassPrefix``)."""
NVIDIA_GPU_DRIVER = "gpu.nvidia.com"
NVIDIA_COMPUTE_DOMAIN_DRIVER = "compute-domain.nvidia.com"
NVIDIA_COMPUTE_DOMAIN_GROUP = "resource.nvidia.com"
NVIDIA_COMPUTE_DOMAIN_KIND = "ComputeDomain"
DRA_KINDS = (DRA_CLAIM_KIND, DRA_CLAIM_TEMPLATE_KIND, DRA_DEVICE_CLASS_KIND, NVIDIA_COMPUTE_DOMAIN_KIND)
"""The objects a pod's DRA claims are resolved through (the input, --related, the cluster); a
ComputeDomain for the channel template its controller creates."""
NVIDIA_DEVICE_TYPE_ATTRIBUTE = "type"
"""The attribute NVIDIA's DeviceClasses select on (``device.attributes['gpu.nvidia.com'].type``)."""
NVIDIA_DEVICE_TYPES = {
    "gpu": NVIDIA_GPU_DRIVER,
    "mig": NVIDIA_GPU_DRIVER,
    "vfio": NVIDIA_GPU_DRIVER,
    "channel": NVIDIA_COMPUTE_DOMAIN_DRIVER,
    "daemon": NVIDIA_COMPUTE_DOMAIN_DRIVER,
}
"""Each ``type`` NVIDIA's kubelet plugins publish, with the driver that publishes it."""
KAI_GPU_CLASS_MARK = "gpu"
"""KAI's rule (pkg/common/resources/dra.go ``IsGPUDeviceClass``): a class whose name contains it is a GPU class."""
MIG_CLASS_MARK = "mig"
NVIDIA_MIG_CLASS = "mig.nvidia.com"
NVIDIA_VFIO_CLASS = "vfio.gpu.nvidia.com"
NVIDIA_CHANNEL_CLASS = "compute-domain-default-channel.nvidia.com"
NVIDIA_DAEMON_CLASS = "compute-domain-daemon.nvidia.com"
"""NVIDIA's chart's DeviceClasses (deployments/helm/.../deviceclass-*.yaml); gpu.nvidia.com is also the driver."""
DRA_DEVICES_RESOURCE_SUFFIX = ".deviceclass.resource.k8s.io/devices"
"""KEP-5004's quota name of a class's devices (``<class>.deviceclass.resource.k8s.io/devices``)."""
DRA_LOOKUP_KINDS: frozenset[tuple[str, str]] = frozenset(
    (DRA_GROUP, kind) for kind in (DRA_CLAIM_KIND, DRA_CLAIM_TEMPLATE_KIND, DRA_DEVICE_CLASS_KIND)
)
"""(group, kind) wmap itself GETs from a cluster to count pods' DRA devices (not a definition's reference)."""
