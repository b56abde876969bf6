"""jq, the expression language of Karta definitions: safety rules, compilation and bounded evaluation.

Evaluation uses libjq (the ``jq`` package). A jq program can loop forever (a self-recursive
``def``), build a value of any size, or stream millions of results, and libjq runs in C where
Python can neither interrupt nor limit it. So programs run in a child process
(:mod:`._worker`) with an address-space limit; the parent waits at most ``timeout`` seconds for
an answer and kills the child when it does not come. The child caps the results of each
program (count and bytes). Any bound crossed raises :class:`~workloadmap.errors.ExpressionLimitError`
and the next evaluation starts a fresh child.

Before anything runs, every program passes :func:`check_safety`: upstream Workload Map's rules
(no assignment or update operators, no ``del``, no recursive descent ``..``, no ``range``,
``paths``, ``recurse``, ``walk``, ``repeat``) plus wmap's own (no ``$ENV``/``env``, no
``input``/``inputs``, no module ``import``/``include``, no ``halt``, nothing that writes to
stderr or reads the file system). The check works on jq's tokens, so it also sees inside string
interpolation and ``def`` bodies, which upstream's AST walk skips.

Objects are handed to jq with their keys sorted: upstream evaluates with gojq, which iterates
object keys in sorted order, so ``.spec.services[]`` and ``keys_unsorted`` stream in the same
order as upstream's and positional zipping (instance ids with templates) agrees.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import ExpressionError, ExpressionLimitError

__all__ = [
    "JqLimits",
    "JqProgram",
    "JqEngine",
    "compile_jq",
    "compile_many",
    "check_safety",
    "default_engine",
    "FORBIDDEN_FUNCTIONS",
    "MAX_JQ_LENGTH",
]

MAX_JQ_LENGTH = 262_144

# Upstream (skill cheatsheet "jq safety rules"): mutation and unbounded output.
_UPSTREAM_FORBIDDEN = {
    "del": "del mutates the input",
    "range": "range may produce excessive output",
    "paths": "paths may produce excessive output",
    "recurse": "recurse may produce excessive output",
    "walk": "walk may produce excessive output",
    "repeat": "repeat may produce excessive output",
}
# wmap's own: the environment, further inputs, the file system, stderr, halting the process, and the
# aliases of the upstream functions above.
_WMAP_FORBIDDEN = {
    "env": "env reads the process environment",
    "input": "input reads further inputs",
    "inputs": "inputs reads further inputs",
    "halt": "halt stops the process",
    "halt_error": "halt_error stops the process",
    "debug": "debug writes to stderr",
    "stderr": "stderr writes to stderr",
    "input_filename": "input_filename reads the host",
    "input_line_number": "input_line_number reads the host",
    "get_search_list": "get_search_list reads the host",
    "get_jq_origin": "get_jq_origin reads the host",
    "get_prog_origin": "get_prog_origin reads the host",
    "modulemeta": "modulemeta reads the file system",
    "setpath": "setpath is an update",
    "delpaths": "delpaths mutates the input",
    "leaf_paths": "leaf_paths may produce excessive output",
    "recurse_down": "recurse_down may produce excessive output",
    "tostream": "tostream may produce excessive output",
}
FORBIDDEN_FUNCTIONS = {**_UPSTREAM_FORBIDDEN, **_WMAP_FORBIDDEN}
_FORBIDDEN_KEYWORDS = {"import": "module imports are not allowed", "include": "module includes are not allowed"}
_FORBIDDEN_VARIABLES = {"$ENV": "$ENV reads the process environment", "$__prog_args": "program arguments"}
_ASSIGNMENTS = {"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="}

_TOKEN = re.compile(
    r"""
    (?P<space>\s+|\#[^\n]*)
    |(?P<string>")
    |(?P<format>@[A-Za-z0-9_]+)
    |(?P<variable>\$[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)
    |(?P<number>(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*)
    |(?P<op>\?//=|\?//|//=|\|=|\+=|-=|\*=|/=|%=|==|!=|<=|>=|//|\.\.|[.\[\]{}()|,:;=<>+\-*/%?$])
    """,
    re.VERBOSE,
)


def _string_end(text: str, start: int, interpolations: list[str]) -> int:
    """The index after the string starting at ``start`` (its opening quote); collects interpolated code."""
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return index + 1
        if char == "\\" and index + 1 < len(text):
            if text[index + 1] == "(":
                depth, inner = 1, index + 2
                while inner < len(text) and depth:
                    if text[inner] == '"':
                        inner = _string_end(text, inner, interpolations)
                        continue
                    depth += {"(": 1, ")": -1}.get(text[inner], 0)
                    inner += 1
                interpolations.append(text[index + 2 : inner - 1])
                index = inner
                continue
            index += 2
            continue
        index += 1
    raise ExpressionError(f"unterminated string in jq {text!r}")


def _tokens(text: str) -> list[tuple[str, str]]:
    """``(kind, text)`` tokens of a jq program; string contents are dropped, interpolations lexed."""
    tokens: list[tuple[str, str]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            raise ExpressionError(f"invalid jq {text!r}: unexpected character {text[position]!r}")
        kind = match.lastgroup or ""
        if kind == "string":
            interpolations: list[str] = []
            position = _string_end(text, position, interpolations)
            tokens.append(("string", ""))
            for code in interpolations:
                tokens.extend(_tokens(code))
            continue
        if kind != "space":
            tokens.append((kind, match.group()))
        position = match.end()
    return tokens


def check_safety(text: str) -> None:
    """Reject a jq program that breaks the safety rules (see the module docstring).

    Raises:
        ExpressionError: naming the rule broken.
    """
    tokens = _tokens(text)
    for index, (kind, value) in enumerate(tokens):
        following = tokens[index + 1][1] if index + 1 < len(tokens) else ""
        if kind == "op" and value in _ASSIGNMENTS:
            raise ExpressionError(f"jq {text!r}: assignment and update operators ({value}) are not allowed")
        if kind == "op" and value == "..":
            raise ExpressionError(f"jq {text!r}: recursive descent '..' is not allowed")
        if kind == "variable" and value in _FORBIDDEN_VARIABLES:
            raise ExpressionError(f"jq {text!r}: {_FORBIDDEN_VARIABLES[value]} is not allowed")
        if kind != "ident":
            continue
        if value in _FORBIDDEN_KEYWORDS:
            raise ExpressionError(f"jq {text!r}: {_FORBIDDEN_KEYWORDS[value]}")
        name = value.rpartition("::")[2]
        previous = tokens[index - 1][1] if index else ""
        is_key = following == ":" and previous in ("{", ",")  # an object key such as {range: 1}
        if name in FORBIDDEN_FUNCTIONS and not is_key:
            raise ExpressionError(f"jq {text!r}: {name} is not allowed ({FORBIDDEN_FUNCTIONS[name]})")


@dataclass(frozen=True)
class JqLimits:
    """Bounds of one evaluation batch.

    Attributes:
        timeout: seconds the batch may take, wall clock.
        memory: bytes of address space the evaluating process may use.
        max_results: results one program may stream.
        max_bytes: bytes of JSON all results of a batch may add up to.
    """

    timeout: float = 2.0
    memory: int = 768 * 1024 * 1024
    max_results: int = 1000  # upstream runner's defaultMaxResults (pkg/jq/execution/runner.go)
    max_bytes: int = 16 * 1024 * 1024


class JqProgram:
    """A jq program that passed the safety rules and compiles.

    Attributes:
        source: the program text.
    """

    __slots__ = ("source",)

    def __init__(self, source: str) -> None:
        self.source = source

    def __repr__(self) -> str:
        return f"JqProgram({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, JqProgram) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def stream(self, data: Any, *, engine: JqEngine | None = None) -> list[Any]:
        """Every result of the program on ``data`` (one bounded evaluation; see :meth:`JqEngine.run`)."""
        return (engine or default_engine()).run([self], data)[self]


_COMPILED: dict[str, JqProgram] = {}


def compile_jq(source: str) -> JqProgram:
    """Check a jq program against the safety rules and compile it (once per text).

    Raises:
        ExpressionError: the program is empty, too long, unsafe or does not compile.
    """
    return compile_many([source])[source]


def compile_many(sources: Iterable[str], *, engine: JqEngine | None = None) -> dict[str, JqProgram]:
    """Check and compile several programs in one bounded round trip (see :func:`compile_jq`).

    libjq folds constant expressions while compiling (``"x" * 2000000000`` builds its string),
    so compilation runs in the bounded child process too.

    Raises:
        ExpressionError: the first program that is empty, too long, unsafe or does not compile.
    """
    wanted = list(dict.fromkeys(sources))
    for source in wanted:
        if not isinstance(source, str) or not source.strip():
            raise ExpressionError("empty jq expression")
        if len(source) > MAX_JQ_LENGTH:
            raise ExpressionError(f"jq expression longer than {MAX_JQ_LENGTH} characters")
        if source not in _COMPILED:
            check_safety(source)
    missing = [source for source in wanted if source not in _COMPILED]
    if missing:
        errors = (engine or default_engine()).compile(missing)
        for source in missing:
            if errors[source] is not None:
                message = str(errors[source]).replace("jq: error: ", "")
                raise ExpressionError(f"invalid jq {source!r}: {message}")
            _COMPILED[source] = JqProgram(source)
    return {source: _COMPILED[source] for source in wanted}


class JqEngine:
    """Evaluates jq programs in a bounded child process, restarted after any bound is crossed."""

    def __init__(self, limits: JqLimits | None = None) -> None:
        self.limits = limits or JqLimits()
        self._process: subprocess.Popen[str] | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen[str]:
        if self._process is None or self._process.poll() is not None:
            script = Path(__file__).with_name("_worker.py")
            self._process = subprocess.Popen(
                [sys.executable, "-I", str(script), str(self.limits.memory)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                encoding="utf-8",
                bufsize=1,
            )
        return self._process

    def close(self) -> None:
        """Stop the child process (a later evaluation starts a new one)."""
        process, self._process = self._process, None
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                try:
                    stream.close()
                except OSError:  # the child is gone: nothing was left to flush
                    pass
        if process.poll() is None:
            process.kill()
            # A child that filled its address space takes seconds to unmap it; reap it aside.
            threading.Thread(target=process.wait, daemon=True).start()

    def compile(self, sources: Sequence[str]) -> dict[str, str | None]:
        """Compile programs in the child: each source's compile error, or None when it compiles.

        Raises:
            ExpressionLimitError: compiling crossed the time or memory bound.
        """
        with self._lock:
            answer = self._exchange(json.dumps({"compile": list(sources)}) + "\n", sources)
        return {source: result.get("error") for source, result in zip(sources, answer["results"], strict=True)}

    def run(self, programs: Sequence[JqProgram], data: Any) -> dict[JqProgram, list[Any]]:
        """Every result of each program on ``data``, in one bounded round trip.

        Raises:
            ExpressionError: a program failed on this input (the first failure, naming its program).
            ExpressionLimitError: the batch crossed the time, memory or output bound.
        """
        unique = list(dict.fromkeys(programs))
        if not unique:
            return {}
        request = {
            "programs": [program.source for program in unique],
            "input": json.dumps(data, sort_keys=True, separators=(",", ":"), default=str),
            "maxResults": self.limits.max_results,
            "maxBytes": self.limits.max_bytes,
        }
        with self._lock:
            answer = self._exchange(json.dumps(request) + "\n", unique)
        results: dict[JqProgram, list[Any]] = {}
        for program, result in zip(unique, answer["results"], strict=True):
            if "error" in result:
                error_class = ExpressionLimitError if result.get("limit") else ExpressionError
                raise error_class(f"jq {program.source!r} failed: {result['error']}")
            results[program] = result["values"]
        return results

    def _exchange(self, line: str, programs: Iterable[JqProgram | str]) -> dict[str, Any]:
        process = self._start()
        assert process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(line)
            process.stdin.flush()
            answer = _read_line(process.stdout, time.monotonic() + self.limits.timeout)
        except (BrokenPipeError, OSError):
            answer = ""
        if answer is None:
            self.close()
            shown = ", ".join(repr(getattr(program, "source", program)) for program in programs)
            raise ExpressionLimitError(f"jq evaluation exceeded the time bound of {self.limits.timeout:g}s ({shown})")
        if not answer:
            self.close()
            raise ExpressionLimitError(
                f"jq evaluation exceeded the memory bound of {self.limits.memory // (1024 * 1024)} MiB "
                "(the evaluating process ended)"
            )
        return dict(json.loads(answer))


def _read_line(stream: IO[str], deadline: float) -> str | None:
    """One line from the child before ``deadline``; None on timeout, "" at end of file."""
    chunks: list[bytes] = []
    descriptor = stream.fileno()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        ready, _, _ = select.select([descriptor], [], [], remaining)
        if not ready:
            return None
        chunk = os.read(descriptor, 1 << 16)
        if not chunk:
            return ""
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks).decode("utf-8")


_DEFAULT: JqEngine | None = None


def default_engine() -> JqEngine:
    """The process-wide engine with the default limits, started on first use."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = JqEngine()
        atexit.register(_DEFAULT.close)
    return _DEFAULT
