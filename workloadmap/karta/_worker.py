"""The jq worker: a child process that evaluates jq programs under an address-space limit.

It is started by :mod:`workloadmap.karta.jqengine` as a plain script (``python -I _worker.py``),
so it imports nothing of wmap: only the standard library and the ``jq`` package (libjq). The
parent enforces the time bound by killing this process; the memory bound is ``RLIMIT_AS`` set
here before any program runs; the output bound is enforced here, while results are streamed.

Protocol: one JSON request per line on stdin, one JSON response per line on stdout.
``{"programs": [text, ...], "input": "<json text>", "maxResults": N, "maxBytes": N}`` is
answered by ``{"results": [{"values": [...]} | {"error": "..."}, ...]}``; ``{"compile": [text, ...]}``
compiles (and keeps) programs, answering an empty ``values`` or the compile ``error`` for each.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def _limit_memory(limit: int) -> None:
    try:
        import resource
    except ImportError:  # not POSIX: the time bound still holds
        return
    for name, value in (("RLIMIT_AS", limit), ("RLIMIT_CORE", 0)):
        kind = getattr(resource, name, None)
        if kind is not None:
            try:
                resource.setrlimit(kind, (value, value))
            except (ValueError, OSError):
                pass


def _evaluate(program: Any, text: str, max_results: int, max_bytes: int, budget: list[int]) -> dict[str, Any]:
    values: list[Any] = []
    try:
        for value in program.input_text(text):
            encoded = json.dumps(value, separators=(",", ":"))
            budget[0] -= len(encoded)
            if len(values) >= max_results or budget[0] < 0:
                return {
                    "error": f"output bound exceeded (more than {max_results} results or {max_bytes} bytes)",
                    "limit": True,
                }
            values.append(value)
    except MemoryError:
        return {"error": "memory bound exceeded", "limit": True}
    except (ValueError, TypeError) as error:
        message = " ".join(str(error).split())
        return {"error": message.removeprefix("jq: error: ")}
    return {"values": values}


def main() -> None:
    """Serve requests until stdin closes."""
    _limit_memory(int(sys.argv[1]) if len(sys.argv) > 1 else 512 * 1024 * 1024)
    import jq  # type: ignore[import-not-found]  # the worker runs apart from the package's typing

    programs: dict[str, Any] = {}
    for line in sys.stdin:
        request = json.loads(line)
        results: list[dict[str, Any]] = []
        if "compile" in request:  # libjq folds constants when it compiles, so compiling is bounded too
            for source in request["compile"]:
                try:
                    programs[source] = jq.compile(source)
                    results.append({})
                except ValueError as error:
                    results.append({"error": " ".join(str(error).split())})
            sys.stdout.write(json.dumps({"results": results}) + "\n")
            sys.stdout.flush()
            continue
        budget = [int(request["maxBytes"])]
        for source in request["programs"]:
            try:
                program = programs.get(source)
                if program is None:
                    program = programs[source] = jq.compile(source)
            except ValueError as error:
                results.append({"error": " ".join(str(error).split())})
                continue
            results.append(
                _evaluate(program, request["input"], int(request["maxResults"]), request["maxBytes"], budget)
            )
        sys.stdout.write(json.dumps({"results": results}, separators=(",", ":")) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
