"""Errors for failed requests to the API server, in one line and in kubectl's words.

A connection failure never carries the exception's text (it can name objects and hosts of the
cluster); an error answer keeps the server's ``Status`` message, folded to one short line, with
credentials redacted (:func:`redact`): a server (or a proxy) that repeats the request's
``Authorization`` header in its message must not get the token printed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..errors import ClusterApiError, ClusterError

__all__ = ["connection_error", "status_error", "one_line", "redact"]

_MAX_MESSAGE_CHARS = 300
REDACTED = "[redacted]"
# Credentials by their shape, whoever's they are: an Authorization scheme and its value, a key or
# token given as name=value / "name": "value", a JWT (service account and OIDC tokens), a PEM
# private key (a client key).
_CREDENTIALS = [
    re.compile(r"(?i)\b(bearer|basic|negotiate)(\s+)[A-Za-z0-9._~+/=-]{6,}"),
    re.compile(
        r"(?i)\b(authorization|proxy-authorization|x-auth-token|access[_-]?token|id[_-]?token|refresh[_-]?token|"
        r"token|password|passwd|secret|client[_-]?key(?:[_-]?data)?|api[_-]?key)"
        r"(\\?[\"']?\s*[:=]\s*\\?[\"']?)(?!\[redacted\])(?:bearer\s+|basic\s+)?[^\s\"',;}]{4,}"
    ),
    re.compile(r"\beyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]*"),
    # "token <value>" in prose: a value of 12 or more token characters holding a digit, not a word
    re.compile(r"(?i)\b(token|password|secret|key)(\s+)(?=[A-Za-z0-9._~+/=-]*[0-9])[A-Za-z0-9._~+/=-]{12,}"),
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)", re.DOTALL),
]


def redact(text: Any, secrets: Sequence[str] = ()) -> str:
    """``text`` without credentials: the client's own ``secrets`` wherever they appear, and anything shaped like one.

    Applied to every text a server sends that wmap prints (``Status`` messages, watch errors) and
    to an exec plugin's error output, before it is cut to one line.
    """
    result = str(text)
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            result = result.replace(secret, REDACTED)
    result = _CREDENTIALS[0].sub(lambda found: f"{found.group(1)}{found.group(2)}{REDACTED}", result)
    result = _CREDENTIALS[1].sub(lambda found: f"{found.group(1)}{found.group(2)}{REDACTED}", result)
    result = _CREDENTIALS[2].sub(REDACTED, result)
    result = _CREDENTIALS[3].sub(lambda found: f"{found.group(1)}{found.group(2)}{REDACTED}", result)
    return _CREDENTIALS[4].sub(REDACTED, result)


def one_line(text: Any, limit: int = _MAX_MESSAGE_CHARS) -> str:
    """``text`` on one line, at most ``limit`` characters."""
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def connection_error(
    error: BaseException, path: str, *, host: str, context: str | None, timeout: float
) -> ClusterError:
    """A one-line error for a failed connection; never the exception text, which names objects."""
    import urllib3

    if isinstance(error, urllib3.exceptions.MaxRetryError) and isinstance(
        error.reason, urllib3.exceptions.ResponseError
    ):
        return ClusterError(
            f"the API server at {host} answered GET {path} with a redirect; wmap never follows redirects, "
            "which could carry the credentials to another host"
        )
    if isinstance(error, urllib3.exceptions.MaxRetryError) and error.reason is not None:
        error = error.reason
    if isinstance(error, urllib3.exceptions.ReadTimeoutError):
        return ClusterError(f"the Kubernetes API server at {host} did not answer GET {path} within {timeout:g} s")
    if isinstance(error, urllib3.exceptions.NameResolutionError):
        why = "host name not resolved"
    elif isinstance(error, urllib3.exceptions.NewConnectionError):
        why = _os_reason(error)
    elif isinstance(error, urllib3.exceptions.ConnectTimeoutError):
        why = f"no connection within {timeout:g} s"
    elif isinstance(error, urllib3.exceptions.SSLError):
        why = "TLS failure"
    elif isinstance(error, urllib3.exceptions.ProxyError):
        why = "proxy error"
    else:
        why = _os_reason(error)
    return ClusterError(f"cannot reach the Kubernetes API server at {host} (context {context}): {why}")


def _os_reason(error: BaseException) -> str:
    cause: BaseException | None = error
    for _ in range(5):
        if cause is None:
            break
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror.lower()
        cause = cause.__cause__ or cause.__context__
    text = str(error)
    for known in ("Connection refused", "Connection reset", "No route to host", "Network is unreachable"):
        if known in text:
            return known.lower()
    return type(error).__name__


def status_error(
    status: int,
    body: Any,
    path: str,
    *,
    host: str,
    context: str | None,
    what: str | None,
    namespace: str | None,
    secrets: Sequence[str] = (),
) -> ClusterApiError:
    """The error for an HTTP error answer: kubectl's wording, the server's message on one line, credentials redacted."""
    is_status = isinstance(body, dict) and body.get("kind") == "Status"
    reason = one_line(redact(body.get("reason") or "", secrets), 60) if is_status else ""
    server_message = one_line(redact(body.get("message") or "", secrets)) if is_status else ""
    if status == 401:
        message = (
            f"Unauthorized (401): the API server at {host} rejected the credentials of context "
            f"{context}; check the kubeconfig user or log in again"
        )
    elif status == 403:
        message = f"Forbidden (403): {server_message or f'access to GET {path} denied'}"
    elif status == 404 and what is not None:
        where = f" in namespace {namespace}" if namespace else ""
        message = f"{what} not found{where}"
    else:
        message = f"Error from server ({reason or status}): {server_message or f'GET {path} failed with HTTP {status}'}"
    return ClusterApiError(message, status_code=status, reason=reason or str(status))
