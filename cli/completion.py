"""Shell completion for ``wmap`` and ``kubectl wmap``: the scripts, and the ``__complete`` protocol they call.

The protocol is Cobra's, the one kubectl speaks to plugins: the shell runs ``wmap __complete
WORD... CURRENT`` and reads one candidate per line, then ``:DIRECTIVE`` (a bit set: 2 no space
after the word, 4 no file names). kubectl runs ``kubectl_complete-wmap WORD... CURRENT`` (installed
with wmap) for ``kubectl wmap <TAB>`` and reads the same lines.

What completes: commands and options; ``-o`` formats; kinds (``get TYPE``), definition names
(``catalog show``), presets and ``cluster:CONTEXT`` topology sources, kubeconfig contexts,
``--emit`` targets and policies; and, where one quick read of the cluster serves, namespaces and
the names of ``get``/``describe`` objects (2 s at most, nothing on any error). Values that are
files fall back to the shell's file completion.

The engine is given the command tree (the click command of the typer app in ``main.py``) and
imports nothing of the app: ``main.py`` answers ``wmap __complete`` with it, ``entry.py`` answers
it before typer parses anything and runs ``kubectl_complete-wmap``. The ``-o`` values are each
command's declared views (``printing/views.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["complete", "complete_command", "script", "SHELLS"]

SHELLS = ("bash", "zsh", "fish")
NO_SPACE = 2
NO_FILE = 4
_LIVE_TIMEOUT = 2.0


# -- values ----------------------------------------------------------------------------------


def _presets(prefix: str = "") -> list[str]:
    from workloadmap.topology import PRESETS

    return [f"{prefix}{name}" for name in PRESETS]


def _contexts() -> list[str]:
    """Context names of the kubeconfig (``$KUBECONFIG`` or ``~/.kube/config``), read as YAML; never the cluster."""
    import yaml

    names: list[str] = []
    paths = os.environ.get("KUBECONFIG") or os.path.join("~", ".kube", "config")
    for path in paths.split(os.pathsep):
        try:
            with open(os.path.expanduser(path), encoding="utf-8") as handle:
                config = yaml.safe_load(handle)
        except (OSError, yaml.YAMLError, UnicodeDecodeError):
            continue
        for entry in (config or {}).get("contexts") or [] if isinstance(config, dict) else []:
            if isinstance(entry, dict) and isinstance(entry.get("name"), str) and entry["name"] not in names:
                names.append(entry["name"])
    return names


def _sources() -> list[str]:
    return _presets("preset:") + ["cluster:"] + [f"cluster:{name}" for name in _contexts()]


def _definitions() -> list[str]:
    from workloadmap.catalog import Catalog

    names: list[str] = []
    for definition in Catalog.load():
        names += [definition.name, definition.kind.lower(), *definition.short_names]
        if definition.group:
            names.append(f"{definition.kind.lower()}.{definition.group}")
    return list(dict.fromkeys(names))


def _kinds() -> list[str]:
    from workloadmap.catalog import Catalog

    return ["all"] + sorted({definition.kind.lower() for definition in Catalog.load()})


def _targets() -> list[str]:
    from workloadmap.exporters import export_targets

    return list(export_targets())


def _policies() -> list[str]:
    from workloadmap.placement import POLICIES

    return list(POLICIES)


_VALUES: dict[str, Callable[[], list[str]]] = {
    "SOURCE": _sources,
    "PRESET": _presets,
    "CONTEXT": _contexts,
    "DEFINITION": _definitions,
    "DEFINITION...": _definitions,
    "TARGET": _targets,
    "POLICY": _policies,
    "SHELL": lambda: list(SHELLS),
    "PHASE": lambda: ["Initializing", "Running", "Completed", "Failed", "Degraded", "Suspended"],
}
"""Value candidates by metavar; metavars naming files (FILE, DIR, PATH ...) complete as files."""

_FILES = ("FILE", "DIR", "PATH", "SOURCE", "DUMP", "NODES", "KUBECONFIG")


def _formats(path: str) -> list[str]:
    from .printing.formats import TEMPLATES
    from .printing.views import declared

    views = declared(path)
    return [f"{name}=" if name in TEMPLATES else name for name in views.names] if views is not None else []


# -- live names ------------------------------------------------------------------------------


def _flag(words: Sequence[str], *names: str) -> str | None:
    """The value given to an option among ``words`` (``--context x`` or ``--context=x``)."""
    for index, word in enumerate(words):
        for name in names:
            if word == name and index + 1 < len(words):
                return words[index + 1]
            if word.startswith(name + "="):
                return word[len(name) + 1 :]
    return None


def _live(words: Sequence[str], read: Callable[[Any, str | None], list[str]]) -> list[str]:
    """Names read from the cluster with one quick request; nothing on any error (no cluster, no access)."""
    try:
        from workloadmap.kube import ClusterClient

        with ClusterClient(
            kubeconfig=_flag(words, "--kubeconfig"), context=_flag(words, "--context"), timeout=_LIVE_TIMEOUT
        ) as client:
            return read(client, _flag(words, "-n", "--namespace") or client.default_namespace)
    except Exception:  # completion must never print a traceback into the user's prompt
        return []


def _object_names(type_token: str, words: Sequence[str]) -> list[str]:
    def read(client: Any, namespace: str | None) -> list[str]:
        resource = client.resolve(type_token)
        scope = client.scope(resource, namespace, "-A" in words or "--all-namespaces" in words)
        items, _ = client.list_with_version(resource, scope, chunk_size=500)
        return [str(item.get("metadata", {}).get("name")) for item in items]

    return _live(words, read)


def _namespaces(words: Sequence[str]) -> list[str]:
    def read(client: Any, _: str | None) -> list[str]:
        items, _version = client.list_with_version(client.resolve("namespaces"), None, chunk_size=500)
        return [str(item.get("metadata", {}).get("name")) for item in items]

    return _live(words, read)


# -- the command tree ------------------------------------------------------------------------


def _subcommands(command: Any) -> dict[str, Any]:
    return {name: sub for name, sub in (getattr(command, "commands", None) or {}).items() if not sub.hidden}


def _takes_value(param: Any) -> bool:
    return not getattr(param, "is_flag", False) and not getattr(param, "count", False)


def _choices(param: Any) -> list[str] | None:
    for holder in (getattr(param, "type", None), getattr(param, "type_descriptor", None)):
        choices = getattr(holder, "choices", None)
        if choices:
            return [str(getattr(choice, "value", choice)) for choice in choices]
    return None


def _walk(root: Any, words: Sequence[str]) -> tuple[Any, str, list[str]]:
    """The command of ``root`` the words lead to, its path (``catalog show``), and the words after it."""
    command, path = root, list[str]()
    rest = list(words)
    while rest and _subcommands(command):
        word = rest[0]
        if word.startswith("-"):
            rest.pop(0)
            continue
        sub = _subcommands(command).get(word)
        if sub is None:
            break
        command, path = sub, path + [word]
        rest.pop(0)
    return command, " ".join(path), rest


def _state(command: Any, rest: Sequence[str]) -> tuple[Any | None, list[str]]:
    """The option waiting for a value after ``rest`` (or None), and the positional words given."""
    options = {name: param for param in command.params if param.param_type_name == "option" for name in param.opts}
    pending, positionals = None, []
    for word in rest:
        if pending is not None:
            pending = None
        elif word.startswith("-") and word != "-":
            param = options.get(word.split("=", 1)[0])
            if param is not None and _takes_value(param) and "=" not in word:
                pending = param
        else:
            positionals.append(word)
    return pending, positionals


def _values(param: Any, path: str, words: Sequence[str], positionals: Sequence[str]) -> tuple[list[str], int]:
    """Candidates for one parameter's value, and whether files may be offered too."""
    word = (getattr(param, "metavar", None) or "").upper()
    if param.opts and "--output" in param.opts and _formats(path):
        return _formats(path), NO_FILE
    if "--namespace" in param.opts:
        return _namespaces(words), NO_FILE
    choices = _choices(param)
    if choices:
        return choices, NO_FILE
    if path in ("get", "describe") and param.param_type_name == "argument":
        return _live_argument(path, positionals, words)
    values = _VALUES.get(word)
    files = any(word.startswith(kind) for kind in _FILES)
    return (values() if values else []), (0 if files else NO_FILE)


def _live_argument(path: str, positionals: Sequence[str], words: Sequence[str]) -> tuple[list[str], int]:
    """``get TYPE NAME...`` and ``describe TYPE/NAME``: kinds first, then names from the cluster."""
    if not positionals:
        return _kinds(), NO_FILE
    if path == "describe" or "/" in positionals[0]:
        return [], NO_FILE
    return _object_names(positionals[0].split(",")[0], words), NO_FILE


def complete(root: Any, args: Sequence[str]) -> tuple[list[str], int]:
    """The candidates for the last of ``args`` (the words after ``wmap``; the last may be ``""``).

    ``root`` is the command tree (the click command of ``wmap``). Returns the candidates that
    start with the last word, and the Cobra directive.
    """
    words, current = list(args[:-1]), (args[-1] if args else "")
    command, path, rest = _walk(root, words)
    pending, positionals = _state(command, rest)
    if pending is None and current.startswith("--") and "=" in current:
        name, _, typed = current.partition("=")
        param = next((p for p in command.params if name in getattr(p, "opts", ())), None)
        if param is not None and _takes_value(param):
            values, directive = _values(param, path, words, positionals)
            return [f"{name}={value}" for value in values if value.startswith(typed)], directive
    if pending is not None:
        candidates, directive = _values(pending, path, words, positionals)
    elif current.startswith("-"):
        candidates = [name for param in command.params if not getattr(param, "hidden", False) for name in param.opts]
        candidates += [name for param in command.params for name in getattr(param, "secondary_opts", ())]
        candidates, directive = candidates + ["--help"], NO_FILE
    elif _subcommands(command):
        candidates, directive = sorted(_subcommands(command)), NO_FILE
    else:
        arguments = [param for param in command.params if param.param_type_name == "argument"]
        index = min(len(positionals), len(arguments) - 1)
        if index < 0:
            return [], NO_FILE
        candidates, directive = _values(arguments[index], path, words, positionals)
    matching = [candidate for candidate in candidates if candidate.startswith(current)]
    if any(candidate.endswith(("=", ":", "/")) for candidate in matching):
        directive |= NO_SPACE
    return matching, directive


def complete_command(root: Any, args: Sequence[str]) -> str:
    """The ``__complete`` output for the command tree ``root``: one candidate per line, then ``:DIRECTIVE``."""
    candidates, directive = complete(root, list(args) or [""])
    return "".join(f"{candidate}\n" for candidate in candidates) + f":{directive}\n"


# -- scripts ---------------------------------------------------------------------------------

_BASH = r"""# wmap completion for bash: source <(wmap completion bash)
_wmap_completion() {
    local line=${COMP_LINE:0:COMP_POINT} cur="" out directive
    local -a words
    read -r -a words <<< "$line"
    if [[ -n $line && $line != *[[:space:]] ]]; then
        cur=${words[${#words[@]}-1]}
        unset "words[${#words[@]}-1]"
    fi
    out=$("${words[0]}" __complete "${words[@]:1}" "$cur" 2>/dev/null) || return 0
    directive=${out##*:}
    out=${out%:*}
    local IFS=$'\n'
    COMPREPLY=($(compgen -W "$out" -- "$cur"))
    if [[ ${#COMPREPLY[@]} -eq 0 && $(( directive & 4 )) -eq 0 ]]; then
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
    if [[ $cur == *[:=]* ]]; then  # bash splits words at ':' and '=': reply with what follows them
        local prefix=${cur%"${cur##*[:=]}"}
        COMPREPLY=("${COMPREPLY[@]#"$prefix"}")
    fi
    if [[ $(( directive & 2 )) -ne 0 ]]; then compopt -o nospace 2>/dev/null; fi
    return 0
}
complete -o default -F _wmap_completion wmap kubectl-wmap
"""

_ZSH = r"""#compdef wmap kubectl-wmap
# wmap completion for zsh: source <(wmap completion zsh)
_wmap() {
    local -a lines candidates
    local directive
    lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,$((CURRENT - 1))]}" "${words[CURRENT]}" 2>/dev/null)}")
    directive=${lines[-1]#:}
    candidates=("${(@)lines[1,-2]}")
    if (( ${#candidates} )); then
        if (( directive & 2 )); then
            compadd -S '' -- "${candidates[@]}"
        else
            compadd -- "${candidates[@]}"
        fi
    elif (( ! (directive & 4) )); then
        _files
    fi
}
if [ "$funcstack[1]" = "_wmap" ]; then
    _wmap "$@"
else
    compdef _wmap wmap kubectl-wmap
fi
"""

_FISH = r"""# wmap completion for fish: wmap completion fish > ~/.config/fish/completions/wmap.fish
function __wmap_complete
    set -l words (commandline -opc)
    set -l current (commandline -ct)
    set -l out ($words[1] __complete $words[2..-1] "$current" 2>/dev/null)
    set -l directive (string replace ':' '' -- $out[-1])
    set -e out[-1]
    for candidate in $out
        echo $candidate
    end
    if test (count $out) -eq 0; and test (math "bitand($directive, 4)") -eq 0
        __fish_complete_path "$current"
    end
end
complete -c wmap -f -a '(__wmap_complete)'
complete -c kubectl-wmap -f -a '(__wmap_complete)'
"""

_SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}


def script(shell: str) -> str:
    """The completion script for ``shell`` (one of :data:`SHELLS`)."""
    return _SCRIPTS[shell]
