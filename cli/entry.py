"""The console-script entry point of ``wmap`` and ``kubectl-wmap``: what it can, it answers without typer.

Building the typer app costs tens of milliseconds on every run (typer itself, and pydantic, which
typer loads to convert option values). ``__complete`` (on every <TAB>, and ``kubectl_complete-wmap``
for ``kubectl wmap <TAB>``) and the command lines of ``wmap inspect``, ``alter`` and ``describe -f`` that
``fast.py`` fully understands are answered without parsing the command line through typer; every other
command line goes to the typer app of ``main.py``. Either way, exceptions end as the typer path
ends them.
"""

from __future__ import annotations

import errno
import gc
import os
import sys
from collections.abc import Callable

from workloadmap.errors import WorkloadMapError

from .printing import output


def run() -> None:
    """Console-script entry point: library errors become one-line messages, never tracebacks.

    The process ends when it returns (or raises ``SystemExit``).
    """
    try:
        _dispatch(sys.argv[1:])
    finally:
        # The interpreter's last collection at exit walks every object left to find garbage that the
        # operating system frees anyway: a tenth of a one-file `wmap inspect`. Frozen, they are skipped.
        gc.freeze()


def _dispatch(arguments: list[str]) -> None:
    if arguments[:1] == ["__complete"]:
        # Completion runs on every <TAB>: answer without parsing the command line through typer.
        output.write(_completions(arguments[1:]))
        return
    command = None
    if arguments[:1] in (["inspect"], ["alter"], ["describe"]):  # FAST_COMMANDS, not imported for the others
        from .commands.fast import fast_command  # the library loads here for these only, not for a completion

        command = fast_command(arguments, os.environ)
    protected(typer_app if command is None else lambda: as_typer_runs(command))


def _completions(words: list[str]) -> str:
    """The ``__complete`` answer for ``words`` (the words after ``wmap``), from the typer app's command tree."""
    from .completion import complete_command
    from .main import command_tree

    return complete_command(command_tree(), words)


def kubectl_complete() -> None:
    """Entry point of ``kubectl_complete-wmap``: kubectl passes the words after ``kubectl wmap``."""
    output.write(_completions(sys.argv[1:]))


def typer_app() -> None:
    """The typer app of ``main.py`` on ``sys.argv``: every command line the fast paths leave."""
    from .main import app

    app(standalone_mode=True)


def as_typer_runs(command: Callable[[], object]) -> None:
    """Run ``command`` outside typer with the endings typer's main gives a command's exceptions.

    Ctrl-C exits 130; end of input says ``Aborted!`` and exits 1; a reader that went away
    (``wmap ... | head``) exits 1 silently; anything else goes on to :func:`protected`.
    """
    try:
        command()
    except EOFError:
        sys.stderr.write("\nAborted!\n")
        sys.stderr.flush()
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
    except OSError as error:
        if error.errno != errno.EPIPE:
            raise
        _quiet_broken_pipes()
        sys.exit(1)


def _quiet_broken_pipes() -> None:
    """Point a broken stdout or stderr at /dev/null, so that the flush at exit does not fail again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except OSError:
            try:
                os.dup2(devnull, stream.fileno())
            except (OSError, ValueError):  # no file descriptor (a test's capture): nothing is flushed at exit
                pass
    os.close(devnull)


def protected(command: Callable[[], object]) -> None:
    """Run ``command``; library errors become one line, Ctrl-C 130, a bug one line (set WMAP_DEBUG=1 to see it)."""
    try:
        command()
    except WorkloadMapError as error:
        output.error(str(error))
        if isinstance(error, output.OutputError):
            _quiet_broken_pipes()  # the interpreter's flush at exit would fail on it again
        sys.exit(error.exit_code)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        # `wmap ... | head`: the reader went away; nothing more to say.
        sys.exit(0)
    except Exception as error:  # a bug: say so in one line unless asked for the traceback
        if os.environ.get("WMAP_DEBUG"):
            raise
        output.error(f"internal error: {type(error).__name__}: {error} (set WMAP_DEBUG=1 for a traceback)")
        sys.exit(1)
