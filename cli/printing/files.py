"""Files a command writes (``--html``, ``--output-file``): never one of its inputs, never half written.

``place job.yaml --html job.yaml`` replaced the manifest with the picture. Every output path goes
through :func:`refuse_input_as_output` before the command reads anything, which compares it by
device and inode (so through symlinks and hard links) with every file the command reads — the files
of an input directory and standard input included — and :func:`write_atomically`, which writes a
temporary file beside it and renames it over the path: a failed write (a full disk, a signal) leaves
the old file whole, never half a page.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

__all__ = ["refuse_input_as_output", "write_atomically"]


def _identity(path: str | os.PathLike) -> tuple[int, int] | None:
    """(device, inode) of the file ``path`` names, through symlinks; None when there is none."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def _stdin_identity() -> tuple[int, int] | None:
    try:
        found = os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):  # closed, or a test's replacement without a descriptor
        return None
    return found.st_dev, found.st_ino


def _read_files(inputs: Iterable[str | os.PathLike | None]) -> Iterable[tuple[str, tuple[int, int] | None]]:
    """Each file the inputs stand for (a directory: every file below it), with its identity."""
    for given in inputs:
        if given is None:
            continue
        name = os.fspath(given)
        if name == "-":
            yield "standard input", _stdin_identity()
        elif os.path.isdir(name):
            for directory, _, files in os.walk(name):
                for file in files:
                    path = os.path.join(directory, file)
                    yield path, _identity(path)
        else:
            yield name, _identity(name)


def refuse_input_as_output(output: Path, inputs: Iterable[str | os.PathLike | None], option: str) -> None:
    """Refuse ``output`` (given with ``option``) when it is a file among ``inputs``: exit 2, nothing written.

    A path that does not exist yet is nobody's input. Sources that are not files (``preset:``,
    ``cluster:``) are passed over.

    Raises:
        typer.BadParameter: ``output`` is one of the inputs, or a file inside an input directory.
    """
    target = _identity(output)
    if target is None:
        return
    for name, identity in _read_files(inputs):
        if identity == target:
            import typer

            same = "" if os.path.abspath(name) == os.path.abspath(output) else f" (the same file as {name})"
            raise typer.BadParameter(
                f"{output} is an input of this command{same}: writing it would replace the input; choose another file",
                param_hint=option,
            )


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file renamed over it (a symlink's target is replaced).

    The new file keeps the mode of the one it replaces (a new one: 0666 less the umask).

    Raises:
        OSError: the directory cannot be written, the disk is full ...; ``path`` is then unchanged.
    """
    target = Path(os.path.realpath(path))
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
