"""Errors for failed requests to the API server, in one line and in kubectl's words.

A connection failure never carries the exception's text (it can name objects and hosts of the
cluster); an error answer keeps the server's ``Status`` message, folded to one short line.
"""

from __future__ import annotations

from typing import Any

from ..errors import ClusterApiError, ClusterError

__all__ = ["connection_error", "status_error", "one_line"]

_MAX_MESSAGE_CHARS = 300


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
    status: int, body: Any, path: str, *, host: str, context: str | None, what: str | None, namespace: str | None
) -> ClusterApiError:
    """The error for an HTTP error answer: kubectl's wording, the server's message on one line."""
    is_status = isinstance(body, dict) and body.get("kind") == "Status"
    reason = str(body.get("reason") or "") if is_status else ""
    server_message = one_line(body.get("message") or "") if is_status else ""
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
