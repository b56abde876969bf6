"""Admission: would Kueue (or KAI) admit a workload now, with which flavors, and if not why.

``objects`` holds typed models of the queue objects; ``parse`` and ``dump`` read them from what
``kubectl get ... -o yaml`` prints (Kueue v1beta2 and v1beta1, KAI ``scheduling.run.ai/v2``);
``amounts`` is Kueue's integer arithmetic and its way of printing amounts; ``quota`` the cohort
tree's quota math (``resource_node.go``); ``preemption`` classical preemption's candidates and
oracle; ``assigner`` the flavor assigner; ``entries`` the queue order and the pre-checks;
``admit`` the scheduling of Workloads in turn; ``tas`` topology-aware flavors through wmap's
placement; ``kai`` KAI's queue quota checks (the proportion plugin); ``preview`` one call for
workloads of both schedulers; ``capacity`` how many more copies of a workload fit; ``live``
reads the queue objects from a cluster (GET and LIST only); ``report`` the results.
"""

from .admit import admit
from .capacity import capacity, kai_quota, kueue_quota
from .dump import QueueState, read_queue_objects
from .kai import admit_kai
from .live import read_live_queues
from .load import load_queues
from .preview import SCHEDULERS, preview
from .report import (
    AdmissionReport,
    AdmissionVerdict,
    CapacityReport,
    DomainCapacity,
    PodSetAdmission,
    WorkloadAdmission,
)
from .tas import TasPlacer
from .workloads import Submission, submissions, uses_kai

preview_admission = preview
"""The package's public name of :func:`preview` (``workloadmap.preview_admission``)."""

__all__ = [
    "preview",
    "preview_admission",
    "SCHEDULERS",
    "admit",
    "admit_kai",
    "capacity",
    "kueue_quota",
    "kai_quota",
    "uses_kai",
    "load_queues",
    "read_queue_objects",
    "read_live_queues",
    "QueueState",
    "Submission",
    "submissions",
    "TasPlacer",
    "AdmissionReport",
    "AdmissionVerdict",
    "WorkloadAdmission",
    "PodSetAdmission",
    "CapacityReport",
    "DomainCapacity",
]
