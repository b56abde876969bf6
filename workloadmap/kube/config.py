"""Where the client's connection comes from: a kubeconfig, or the pod's service account.

The kubeconfig is used as kubectl uses it: ``--kubeconfig``, else ``$KUBECONFIG`` (a path list,
merged), else ``~/.kube/config``. When none of these exists and the process runs in a pod (the
``KUBERNETES_SERVICE_HOST``/``PORT`` variables are set), the service account's token, CA
certificate and namespace under :data:`SERVICE_ACCOUNT_DIR` are used instead, as client-go's
``rest.InClusterConfig`` does. Nothing is ever written: the kubeconfig is read with
``persist_config=False``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ClusterError

__all__ = ["Connection", "connect", "SERVICE_ACCOUNT_DIR", "in_cluster_available"]

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where Kubernetes mounts a pod's service account: ``token``, ``ca.crt``, ``namespace``."""

_SERVICE_HOST = "KUBERNETES_SERVICE_HOST"
_SERVICE_PORT = "KUBERNETES_SERVICE_PORT"
_MAX_MESSAGE_CHARS = 300


def _one_line(text: Any, limit: int = _MAX_MESSAGE_CHARS) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


@dataclass
class Connection:
    """A configured API client and what messages say about it.

    Attributes:
        api: the ``kubernetes.client.ApiClient``.
        context: the kubeconfig context, or ``in-cluster``.
        default_namespace: the context's namespace, the service account's, else ``default``.
        host: the API server URL.
    """

    api: Any
    context: str
    default_namespace: str
    host: str


def _kubeconfig_paths(kubeconfig: str | os.PathLike | None) -> str | None:
    """The kubeconfig to read (a path list), or None when there is none to read."""
    if kubeconfig is not None:
        path = os.path.expanduser(os.fspath(kubeconfig))
        if not os.path.isfile(path):
            raise ClusterError(f"kubeconfig {path} does not exist or is not a file")
        return path
    paths = os.environ.get("KUBECONFIG") or os.path.join("~", ".kube", "config")
    if any(os.path.isfile(os.path.expanduser(part)) for part in paths.split(os.pathsep) if part):
        return paths
    return None


def in_cluster_available() -> bool:
    """Whether the process looks like it runs in a pod with a mounted service account."""
    return (
        bool(os.environ.get(_SERVICE_HOST) and os.environ.get(_SERVICE_PORT))
        and (SERVICE_ACCOUNT_DIR / "token").is_file()
    )


def _configuration() -> Any:
    from kubernetes.client import Configuration
    from urllib3.util.retry import Retry

    configuration = Configuration()
    # No retries: they would multiply the timeout and make urllib3 log warnings to stderr.
    # No redirects either: a redirect could carry the credentials elsewhere.
    configuration.retries = Retry(total=0, connect=0, read=0, redirect=0, status=0, other=0)
    return configuration


def _from_kubeconfig(config_file: str, context: str | None) -> Connection:
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import _get_kube_config_loader, new_client_from_config

    configuration = _configuration()
    try:
        # The loader of the client itself, so that the context (and its namespace) is exactly
        # the one the client will use; it reads the files without writing them.
        current = _get_kube_config_loader(filename=config_file, active_context=context).current_context
        if not isinstance(current, dict) or not current.get("name"):
            raise ClusterError(f"kubeconfig {config_file} has no usable context; pass --context")
        api = new_client_from_config(
            config_file=config_file, context=context, persist_config=False, client_configuration=configuration
        )
    except ConfigException as error:
        raise ClusterError(f"cannot use kubeconfig {config_file}: {_one_line(error)}") from None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise ClusterError(f"cannot use kubeconfig {config_file}: {type(error).__name__}: {_one_line(error)}") from None
    details = current.get("context") or {}
    return Connection(api, str(current.get("name", "")), str(details.get("namespace") or "default"), configuration.host)


def _in_cluster() -> Connection:
    from kubernetes.client import ApiClient
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.incluster_config import InClusterConfigLoader

    configuration = _configuration()
    try:
        InClusterConfigLoader(
            token_filename=str(SERVICE_ACCOUNT_DIR / "token"), cert_filename=str(SERVICE_ACCOUNT_DIR / "ca.crt")
        ).load_and_set(configuration)
    except ConfigException as error:
        raise ClusterError(f"cannot use the pod's service account: {_one_line(error)}") from None
    except OSError as error:
        raise ClusterError(f"cannot read the pod's service account: {error.strerror or error}") from None
    namespace_file = SERVICE_ACCOUNT_DIR / "namespace"
    namespace = namespace_file.read_text().strip() if namespace_file.is_file() else ""
    return Connection(ApiClient(configuration), "in-cluster", namespace or "default", configuration.host)


def connect(kubeconfig: str | os.PathLike | None, context: str | None) -> Connection:
    """A client for the kubeconfig (or, without one, the pod's service account).

    Raises:
        ClusterError: no kubeconfig and not in a pod, an unknown context, or an unusable config.
    """
    config_file = _kubeconfig_paths(kubeconfig)
    if config_file is not None:
        return _from_kubeconfig(config_file, context)
    if in_cluster_available():
        if context is not None:
            raise ClusterError(f"--context {context} needs a kubeconfig; in a pod wmap uses the service account")
        return _in_cluster()
    looked = os.environ.get("KUBECONFIG") or os.path.join("~", ".kube", "config")
    raise ClusterError(
        f"no kubeconfig found (looked at {looked}) and not running in a pod; pass --kubeconfig or set KUBECONFIG"
    )
