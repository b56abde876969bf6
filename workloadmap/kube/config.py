"""Where the client's connection comes from: a kubeconfig, or the pod's service account.

The kubeconfig is used as kubectl uses it: ``--kubeconfig``, else ``$KUBECONFIG`` (a path list,
merged), else ``~/.kube/config``. When none of these exists and the process runs in a pod (the
``KUBERNETES_SERVICE_HOST``/``PORT`` variables are set), the service account's token, CA
certificate and namespace under :data:`SERVICE_ACCOUNT_DIR` are used instead, as client-go's
``rest.InClusterConfig`` does. Nothing is ever written: the kubeconfig is read with
``persist_config=False``.

Credentials follow kubectl's rules where the Python client's differ (``_StrictLoader``):

* they are applied only when the server is reached over TLS (client-go
  ``tools/clientcmd/client_config.go``: ``ClientConfig`` merges the user's identification only when
  ``isConfigTransportTLS``): with an ``http://`` server no token, password or certificate is sent
  and no exec plugin runs;
* an exec credential plugin that fails (exits non-zero, prints no JSON, the wrong ``apiVersion`` or
  ``kind``, no token or certificate, a missing binary) is an error, never an anonymous request;
* the legacy ``auth-provider`` entries kubectl (1.26) removed (``gcp``, ``azure``) are refused
  rather than run (the ``gcp`` one runs its ``cmd-path``);
* ``insecure-skip-tls-verify`` must be a boolean (kubectl refuses a kubeconfig whose value is a
  string; the Python client reads any non-empty string, ``"false"`` included, as true).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ClusterError, InputError
from ..loader import parse_yaml
from .failures import one_line, redact

__all__ = ["Connection", "connect", "check_kubeconfig", "SERVICE_ACCOUNT_DIR", "in_cluster_available"]

SERVICE_ACCOUNT_DIR = Path("/var/run/secrets/kubernetes.io/serviceaccount")
"""Where Kubernetes mounts a pod's service account: ``token``, ``ca.crt``, ``namespace``."""

_SERVICE_HOST = "KUBERNETES_SERVICE_HOST"
_SERVICE_PORT = "KUBERNETES_SERVICE_PORT"


@dataclass
class Connection:
    """A configured API client and what messages say about it.

    Attributes:
        api: the ``kubernetes.client.ApiClient``.
        context: the kubeconfig context, or ``in-cluster``.
        default_namespace: the context's namespace, the service account's, else ``default``.
        host: the API server URL.
        credentials_withheld: the kubeconfig user has credentials, not sent because the server is
            not reached over TLS (as kubectl withholds them).
        secrets: the credentials in use (token, password), redacted from any server text.
    """

    api: Any
    context: str
    default_namespace: str
    host: str
    credentials_withheld: bool = False
    secrets: tuple[str, ...] = ()


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


def _read_config(path: str) -> dict[str, Any]:
    try:
        with open(os.path.expanduser(path), encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise ClusterError(f"cannot read kubeconfig {path}: {getattr(error, 'strerror', None) or error}") from None
    try:
        body = parse_yaml(text).body
    except InputError as error:
        raise ClusterError(f"kubeconfig {path} is not a kubeconfig: {error.message}") from None
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise ClusterError(f"kubeconfig {path} is not a kubeconfig: expected a mapping of clusters, users, contexts")
    return body


def _named(config: dict[str, list[Any]], section: str) -> dict[str, Any]:
    return {entry["name"]: entry for entry in config[section] if isinstance(entry, dict) and "name" in entry}


def check_kubeconfig(config_file: str, context: str | None) -> str:
    """Check what the client would trip on, in wmap's words; return the context that will be used.

    The files of a path list merge as kubectl merges them: the first definition of a name wins,
    and the first ``current-context`` set.

    Raises:
        ClusterError: not YAML, not a kubeconfig, no context, an unknown context, or a context
            naming a cluster (or user) the kubeconfig does not define.
    """
    merged: dict[str, list[Any]] = {"clusters": [], "users": [], "contexts": []}
    current = ""
    for path in [part for part in config_file.split(os.pathsep) if part]:
        body = _read_config(path)
        for section in merged:
            entries = body.get(section) or []
            merged[section] += entries if isinstance(entries, list) else []
        current = current or str(body.get("current-context") or "")
    contexts = _named(merged, "contexts")
    listed = ", ".join(contexts) or "none"
    chosen = context or current
    if not chosen:
        raise ClusterError(f"kubeconfig {config_file} sets no current context; pass --context (contexts: {listed})")
    if chosen not in contexts:
        raise ClusterError(f"context {chosen!r} is not in kubeconfig {config_file} (contexts: {listed})")
    details = contexts[chosen].get("context") if isinstance(contexts[chosen].get("context"), dict) else {}
    for section, key in (("clusters", "cluster"), ("users", "user")):
        wanted = details.get(key)
        if wanted and wanted not in _named(merged, section):
            raise ClusterError(
                f"context {chosen!r} names {key} {wanted!r}, which kubeconfig {config_file} does not define"
            )
    cluster = _named(merged, "clusters").get(str(details.get("cluster")), {}).get("cluster")
    if not isinstance(cluster, dict) or not cluster.get("server"):
        raise ClusterError(f"context {chosen!r} of kubeconfig {config_file} has no cluster with a server address")
    skip = cluster.get("insecure-skip-tls-verify")
    if skip is not None and not isinstance(skip, bool):
        raise ClusterError(
            f"cluster {details.get('cluster')!r} of kubeconfig {config_file}: insecure-skip-tls-verify is "
            f"{one_line(repr(skip), 40)}, not a boolean; kubectl refuses it too (write true or false)"
        )
    user = _named(merged, "users").get(str(details.get("user")), {}).get("user")
    provider = user.get("auth-provider") if isinstance(user, dict) else None
    if isinstance(provider, dict) and provider.get("name") in _REMOVED_AUTH_PROVIDERS:
        raise ClusterError(
            f"user {details.get('user')!r} of kubeconfig {config_file} uses the {provider.get('name')} auth-provider, "
            "which kubectl removed in 1.26 (wmap never runs its command): use the provider's exec credential "
            "plugin (gke-gcloud-auth-plugin, kubelogin)"
        )
    return chosen


_REMOVED_AUTH_PROVIDERS = ("gcp", "azure")
"""Legacy in-tree auth-providers kubectl no longer has (client-go removed them in 1.26)."""


class CredentialError(Exception):
    """The kubeconfig user's credentials could not be obtained (a failed exec plugin): never go anonymous."""


def _is_tls(server: str) -> bool:
    return server.strip().lower().startswith("https://")


def _strict_loader(config: Any, context: str | None) -> Any:
    """The Python client's kubeconfig loader, with kubectl's rules for credentials (see the module)."""
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.exec_provider import ExecProvider
    from kubernetes.config.kube_config import FileOrData, KubeConfigLoader

    class StrictLoader(KubeConfigLoader):
        withheld = False

        _user: Any
        _cluster: Any

        def _load_authentication(self) -> None:
            if self._user and not _is_tls(str(self._cluster.safe_get("server") or "")):
                self.withheld = True  # client-go: no user identification unless the transport is TLS
                return
            super()._load_authentication()

        def _load_from_exec_plugin(self) -> bool | None:
            if "exec" not in self._user:
                return None
            command = self._user["exec"].safe_get("command")
            try:
                status = ExecProvider(self._user["exec"], self._get_base_path(self._cluster.path), self._cluster).run()
            except ConfigException as error:
                first = str(error).strip().splitlines()[0] if str(error).strip() else ""  # the stderr's first line
                raise CredentialError(f"the exec credential plugin {command!r} failed: {first}") from None
            except OSError as error:
                raise CredentialError(
                    f"the exec credential plugin {command!r} cannot be run: {error.strerror or error}"
                ) from None
            except Exception as error:  # a malformed exec entry or answer (the client's KeyError, TypeError ...)
                failed = type(error).__name__
                raise CredentialError(f"the exec credential plugin {command!r} failed: {failed}") from None
            if not isinstance(status, dict):
                raise CredentialError(f"the exec credential plugin {command!r} answered no status object")
            token = status.get("token")
            if isinstance(token, str) and token:
                self.token = f"Bearer {token}"
            elif isinstance(status.get("clientCertificateData"), str) and isinstance(status.get("clientKeyData"), str):
                for attribute, key in (("cert_file", "clientCertificateData"), ("key_file", "clientKeyData")):
                    setattr(
                        self,
                        attribute,
                        FileOrData(
                            status, None, data_key_name=key, base64_file_content=False,
                            temp_file_path=self._temp_file_path,
                        ).as_file(),
                    )  # fmt: skip
            else:
                raise CredentialError(
                    f"the exec credential plugin {command!r} gave neither a token nor a client certificate and key"
                )
            if isinstance(status.get("expirationTimestamp"), str):
                from kubernetes.config.dateutil import parse_rfc3339

                self.expiry = parse_rfc3339(status["expirationTimestamp"])
            return True

    return StrictLoader(config_dict=config, config_base_path=None, active_context=context)


def _from_kubeconfig(config_file: str, context: str | None) -> Connection:
    from kubernetes.client import ApiClient
    from kubernetes.config.config_exception import ConfigException
    from kubernetes.config.kube_config import KubeConfigMerger

    chosen = check_kubeconfig(config_file, context)
    configuration = _configuration()
    try:
        # The client's own merging of the files, so that the context (and its namespace) is exactly
        # the one the client will use; it reads the files without writing them.
        merged = KubeConfigMerger(config_file).config
        if merged is None:
            raise ClusterError(f"kubeconfig {config_file} holds no configuration")
        loader = _strict_loader(merged, context)
        current = loader.current_context
        if not isinstance(current, dict) or not current.get("name"):
            raise ClusterError(f"kubeconfig {config_file} has no usable context; pass --context")
        loader.load_and_set(configuration)
        api = ApiClient(configuration)
    except CredentialError as error:
        raise ClusterError(f"cannot get credentials for context {chosen}: {one_line(redact(str(error)))}") from None
    except ConfigException as error:
        raise ClusterError(
            f"cannot use kubeconfig {config_file}: the Kubernetes client refused it ({one_line(error)})"
        ) from None
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        raise ClusterError(
            f"cannot use kubeconfig {config_file}: the Kubernetes client could not read it ({one_line(error)})"
        ) from None
    details = current.get("context") or {}
    return Connection(
        api,
        str(current.get("name", "")),
        str(details.get("namespace") or "default"),
        configuration.host,
        credentials_withheld=loader.withheld,
        secrets=_secrets(configuration),
    )


def _secrets(configuration: Any) -> tuple[str, ...]:
    """The credentials a configuration sends: the bearer token and a basic password, redacted from server text."""
    found = []
    for value in (getattr(configuration, "api_key", None) or {}).values():
        if isinstance(value, str) and value:
            found.append(value)
            found.append(value.split(" ", 1)[-1])  # the token without its "Bearer " scheme
        if isinstance(value, str) and value.lower().startswith("basic "):
            import base64
            import binascii

            try:
                found.append(base64.b64decode(value.split(" ", 1)[1]).decode().partition(":")[2])  # the password
            except (binascii.Error, UnicodeDecodeError):
                pass
    return tuple(dict.fromkeys(secret for secret in found if len(secret) >= 4))


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
        raise ClusterError(f"cannot use the pod's service account: {one_line(error)}") from None
    except OSError as error:
        raise ClusterError(f"cannot read the pod's service account: {error.strerror or error}") from None
    namespace_file = SERVICE_ACCOUNT_DIR / "namespace"
    namespace = namespace_file.read_text().strip() if namespace_file.is_file() else ""
    return Connection(
        ApiClient(configuration), "in-cluster", namespace or "default", configuration.host,
        secrets=_secrets(configuration),
    )  # fmt: skip


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
