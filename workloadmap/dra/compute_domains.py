"""NVIDIA ComputeDomains (``resource.nvidia.com/v1beta1``): the channel claim template their controller creates.

A ComputeDomain names a ResourceClaimTemplate (``spec.channel.resourceClaimTemplate.name``) that
workload pods reference; the template is not in the user's manifests: the ComputeDomain controller
creates it in the domain's namespace (dra-driver-nvidia-gpu
``cmd/compute-domain-controller/resourceclaimtemplate.go``, template file
``templates/compute-domain-workload-claim-template.tmpl.yaml``) with one request ``channel`` of
class ``compute-domain-default-channel.nvidia.com`` (ExactCount 1 once defaulted); the domain's
``allocationMode`` travels in the request's opaque config, not in the count. wmap makes the same
template from a ComputeDomain found with the workload, so its pods' channel is counted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .. import labels
from ..values import mapping_at

__all__ = ["channel_template"]


def channel_template(domain: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ResourceClaimTemplate the controller creates for ``domain``, or None when it names none."""
    if domain.get("kind") != labels.NVIDIA_COMPUTE_DOMAIN_KIND:
        return None
    api_version = domain.get("apiVersion")
    if not isinstance(api_version, str) or api_version.partition("/")[0] != labels.NVIDIA_COMPUTE_DOMAIN_GROUP:
        return None
    name = mapping_at(mapping_at(mapping_at(domain, "spec"), "channel"), "resourceClaimTemplate").get("name")
    if not isinstance(name, str) or not name:
        return None
    metadata: dict[str, Any] = {"name": name}
    namespace = mapping_at(domain, "metadata").get("namespace")
    if isinstance(namespace, str):
        metadata["namespace"] = namespace
    request = {"name": "channel", "exactly": {"deviceClassName": labels.NVIDIA_CHANNEL_CLASS}}
    return {
        "apiVersion": f"{labels.DRA_GROUP}/v1",
        "kind": labels.DRA_CLAIM_TEMPLATE_KIND,
        "metadata": metadata,
        "spec": {"spec": {"devices": {"requests": [request]}}},
    }
