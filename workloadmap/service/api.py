"""The JSON API: the same answers as the command line's ``-o json``, from the cache or a request body.

* ``GET /api/v1/workloads[?namespace=NS&kind=TYPE]`` — ``wmap get all -A -o json``: a ``List`` of
  inspect trees (``TYPE`` as ``wmap get`` takes it: ``jobset``, ``jobsets``, ``JobSet``,
  ``jobsets.jobset.x-k8s.io``);
* ``GET /api/v1/namespaces/NS/workloads/TYPE/NAME`` (``/api/v1/workloads/TYPE/NAME`` for a
  cluster-scoped kind) — ``wmap describe TYPE/NAME -n NS -o json``, Events included;
* ``POST /api/v1/inspect``, ``/api/v1/demand``, ``/api/v1/place`` — a manifest in the body (YAML or
  JSON, one or more documents, ``List`` objects flattened): ``wmap inspect -o json``, ``wmap place
  --emit demand -o json`` and ``wmap place -o json`` on the live cached nodes and pods. Off unless
  the service was started with the POST API enabled.

Errors are a Kubernetes ``Status`` object: ``code`` the HTTP status, ``message`` the located
one-line error, ``details`` its file, document and field. 4xx says the request is at fault (400
bad input, 404 unknown workload or endpoint, 408 a body that stalls, 413 body too large, 422 no definition or a budget
or deadline passed, 429 busy), 5xx the service (500 a bug, 503 not ready or busy).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..budgets import deadline_after
from ..catalog import Catalog
from ..documents import text_objects
from ..errors import (
    BudgetError,
    DeadlineError,
    ExpressionLimitError,
    InternalError,
    NoDefinitionError,
    WorkloadMapError,
    internal_error,
)
from ..interpreter import inspect_documents
from ..tree import WorkloadTree
from .interpret import WorkloadState
from .service import Service
from .snapshot import Snapshot

__all__ = ["ApiError", "ApiOptions", "Api", "status_object", "error_status"]

BODY_SOURCE = "request body"
"""The file name located errors give a request's body."""


class ApiError(Exception):
    """An answer other than 200: its HTTP status and the Status object to send."""

    def __init__(self, status: int, message: str, *, reason: str | None = None, error: WorkloadMapError | None = None):
        super().__init__(message)
        self.status = status
        self.body = status_object(status, message, reason=reason, error=error)


_REASONS = {
    400: "BadRequest",
    404: "NotFound",
    405: "MethodNotAllowed",
    408: "Timeout",
    411: "LengthRequired",
    413: "RequestEntityTooLarge",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
}


def status_object(
    status: int, message: str, *, reason: str | None = None, error: WorkloadMapError | None = None
) -> dict:
    """A Kubernetes ``Status`` for an error answer (``details`` from the error's location)."""
    body: dict[str, Any] = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason or _REASONS.get(status, "Unknown"),
        "code": status,
    }
    if error is not None:
        details = {"file": error.file, "document": error.document, "field": error.field}
        body["details"] = {key: value for key, value in details.items() if value is not None}
    return body


def error_status(error: WorkloadMapError) -> int:
    """The HTTP status of a library error: whose fault it is."""
    if isinstance(error, InternalError):
        return 500
    if isinstance(error, (NoDefinitionError, BudgetError, ExpressionLimitError, DeadlineError)):
        return 422
    return 400


@dataclass(frozen=True)
class ApiOptions:
    """Limits of the API.

    Attributes:
        enable_post: serve the POST endpoints (they run untrusted input).
        max_body: bytes a request body may have.
        request_seconds: the deadline of one request (interpretation and placement stop there).
        gpu_resources: resource names counted as GPUs.
    """

    enable_post: bool = False
    max_body: int = 4 * 1024 * 1024
    request_seconds: float = 10.0
    gpu_resources: tuple[str, ...] = ("nvidia.com/gpu", "amd.com/gpu")


def _json_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": items}


def _as_list(items: list[dict[str, Any]]) -> Any:
    """As the command line prints ``-o json``: one object stays an object, several are a List."""
    return items[0] if len(items) == 1 else {"kind": "List", "apiVersion": "v1", "items": items}


def _resolve_type(catalog: Catalog, type_token: str) -> tuple[str, str]:
    definition = catalog.get(type_token)
    if definition is None:
        raise ApiError(400, f'no definition covers a resource type "{type_token}"; see `wmap catalog list`')
    return definition.group, definition.kind


class Api:
    """The API's answers, each as ``(status, JSON body)``; an :class:`ApiError` for the others."""

    def __init__(
        self, service: Service, options: ApiOptions, list_item: Callable[[Any], dict[str, Any]] | None = None
    ) -> None:
        self.service = service
        self.options = options
        # ``wmap get -o json``'s item for a row (the tree, the object's metadata, the live columns in
        # the command line's words): given by the command line, which owns that wording.
        self.list_item = list_item or (lambda row: row.tree.to_dict())

    def _snapshot(self) -> Snapshot:
        snapshot = self.service.snapshot
        if not snapshot.ready:
            raise ApiError(503, "the cache is not synced yet; see /readyz")
        return snapshot

    # -- GET -------------------------------------------------------------------------------------

    def workloads(self, query: Mapping[str, str]) -> dict[str, Any]:
        """``wmap get all -A -o json`` from the cache, optionally one namespace and one kind."""
        snapshot = self._snapshot()
        wanted = _resolve_type(snapshot.catalog or Catalog(), query["kind"]) if query.get("kind") else None
        namespace = query.get("namespace")
        items = [
            self.list_item(state.row)
            for state in snapshot.workloads
            if state.report is not None
            and state.row is not None
            and (not namespace or state.namespace == namespace)
            and (wanted is None or (state.group, state.kind) == wanted)
        ]
        return _json_list(items)

    def _state(self, namespace: str, type_token: str, name: str) -> WorkloadState:
        snapshot = self._snapshot()
        group, kind = _resolve_type(snapshot.catalog or Catalog(), type_token)
        state = snapshot.find(namespace, group, kind, name)
        if state is None:
            qualified = f"{kind}.{group}" if group else kind
            where = f" in namespace {namespace}" if namespace else ""
            raise ApiError(404, f'{qualified} "{name}" not found{where}')
        if state.error is not None:
            raise ApiError(422, state.error)
        return state

    def describe(self, namespace: str, type_token: str, name: str) -> dict[str, Any]:
        """``wmap describe TYPE/NAME -n NS -o json`` from the cache, Events included."""
        state = self._state(namespace, type_token, name)
        try:
            report = self.service.describe(state, self.options.request_seconds)
        except KeyError:
            raise ApiError(404, f'{state.kind} "{name}" is gone') from None
        except TimeoutError as error:
            raise ApiError(503, str(error)) from None
        return report.to_dict()

    def describe_report(self, namespace: str, type_token: str, name: str) -> Any:
        """The :class:`~workloadmap.live.DescribeReport` itself (for the page)."""
        state = self._state(namespace, type_token, name)
        try:
            return self.service.describe(state, self.options.request_seconds)
        except KeyError:
            raise ApiError(404, f'{state.kind} "{name}" is gone') from None
        except TimeoutError as error:
            raise ApiError(503, str(error)) from None

    # -- POST ------------------------------------------------------------------------------------

    def post(self, endpoint: str, body: bytes, query: Mapping[str, str]) -> Any:
        """The answer of ``POST /api/v1/{endpoint}`` for a manifest ``body``."""
        if not self.options.enable_post:
            raise ApiError(404, "the POST API is off; start wmap serve with --enable-api to use it")
        if endpoint not in ("inspect", "demand", "place"):
            raise ApiError(404, f"no such endpoint: POST /api/v1/{endpoint}")
        snapshot = self.service.snapshot
        catalog = snapshot.catalog or Catalog()
        try:
            with deadline_after(self.options.request_seconds):
                trees = self._trees(body, catalog)
                if endpoint == "inspect":
                    return _as_list([tree.to_dict() for tree in trees])
                return self._placed(endpoint, trees, query)
        except WorkloadMapError as error:
            raise ApiError(error_status(error), str(error), error=error) from None
        except ApiError:
            raise
        except (RecursionError, MemoryError) as error:
            located = internal_error(error).located(file=BODY_SOURCE)
            raise ApiError(422, str(located), error=located) from None

    def _trees(self, body: bytes, catalog: Catalog) -> list[WorkloadTree]:
        try:
            text = body.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ApiError(400, f"{BODY_SOURCE}: not UTF-8 text (byte {error.start})") from None
        if not text.strip():
            raise ApiError(400, f"{BODY_SOURCE}: empty; send a manifest (YAML or JSON)")
        trees = []
        for result in inspect_documents(text_objects(text, BODY_SOURCE), catalog=catalog,
                                        gpu_resources=self.options.gpu_resources):  # fmt: skip
            if result.error is not None:
                raise result.error
            if result.tree is not None:
                trees.append(result.tree)
        if not trees:
            raise ApiError(422, f"{BODY_SOURCE}: no workload in it (every object is of a kind that runs no pods)")
        return trees

    def _placed(self, endpoint: str, trees: list[WorkloadTree], query: Mapping[str, str]) -> Any:
        from ..exporters import export
        from ..placement import POLICIES, place, place_together

        policy = query.get("policy", "kueue")
        if policy not in POLICIES:
            raise ApiError(400, f"policy {policy!r} is not one of {', '.join(POLICIES)}")
        if not self.service.snapshot.ready:
            raise ApiError(503, "the cache is not synced yet; see /readyz")
        try:
            cluster = self.service.live_cluster(self.options.request_seconds)
        except TimeoutError as error:
            raise ApiError(503, str(error)) from None
        except WorkloadMapError as error:
            raise ApiError(503, f"the cached nodes make no cluster: {error}") from None
        if cluster is None:
            if endpoint == "demand":
                from ..exporters import demand

                return _as_list([document for tree in trees for document in demand(tree)])
            raise ApiError(503, "no nodes are cached: nothing to place on")
        if len(trees) > 1:
            reports = place_together(trees, cluster, policy=policy).reports
        else:
            reports = [place(trees[0], cluster, policy=policy)]
        if endpoint == "place":
            return _as_list([report.to_dict() for report in reports])
        return _as_list(
            [
                document
                for tree, report in zip(trees, reports, strict=True)
                for document in export("demand", tree, report)
            ]
        )
