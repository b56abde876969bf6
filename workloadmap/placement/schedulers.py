"""The scheduler policies: one row per scheduler whose choice rule wmap applies, by name.

``--policy`` offers the names of :data:`POLICIES` and its help lists their summaries;
:class:`~.schedule.Options` accepts only these names. A new scheduler is one module with its rule
(a :class:`~.rules.SchedulerRule`) and one row here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .kai_rule import assign_kai
from .kube_scheduler_rule import assign_kube_scheduler
from .kueue_rule import assign_kueue
from .rules import SchedulerRule

__all__ = ["SchedulerPolicy", "POLICIES", "DEFAULT_POLICY"]


@dataclass(frozen=True)
class SchedulerPolicy:
    """One scheduler's choice rule, with how it chooses in a few words (for ``--policy``'s help)."""

    summary: str
    assign: SchedulerRule


POLICIES: dict[str, SchedulerPolicy] = {
    "kueue": SchedulerPolicy("topology-aware BestFit", assign_kueue),
    "kai": SchedulerPolicy("the most packed domain first", assign_kai),
    "kube-scheduler": SchedulerPolicy(
        "native PodGroup placement: a domain per topology value, the most pods and most allocated first",
        assign_kube_scheduler,
    ),
}
"""The schedulers whose choice rule a placement applies, by name, the default first."""

DEFAULT_POLICY = "kueue"
"""The policy a placement uses unless told otherwise."""
