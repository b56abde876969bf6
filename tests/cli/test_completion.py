"""Shell completion: Cobra's ``__complete`` protocol (which kubectl speaks to plugins) and the shell scripts."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from workloadmap.cli.completion import NO_FILE, NO_SPACE, script
from workloadmap.cli.completion import complete as complete_in
from workloadmap.cli.completion import complete_command as complete_command_in
from workloadmap.cli.main import app, command_tree

BIN = Path(sys.executable).parent


def complete(words):
    return complete_in(command_tree(), words)


def complete_command(words):
    return complete_command_in(command_tree(), words)


def test_commands_and_options():
    candidates, directive = complete([""])
    assert {"inspect", "place", "get", "describe", "catalog", "topology", "completion"} <= set(candidates)
    assert "__complete" not in candidates and directive & NO_FILE
    assert complete(["catalog", "sh"])[0] == ["show"]
    options, _ = complete(["place", "x.yaml", "--e"])
    assert options == ["--emit", "--each-alone"]


@pytest.mark.parametrize(
    ("words", "expected"),
    [
        (["catalog", "show", "l"], {"lws", "leaderworkerset", "leaderworkerset.leaderworkerset.x-k8s.io"}),
        (["place", "x.yaml", "-t", "preset:"], {"preset:nvl72-4rack", "preset:small-16"}),
        (["topology", "show", "preset:s"], {"preset:small-16"}),
        (["topology", "generate", "--preset", ""], {"nvl72-4rack", "h100-2spine"}),
        (["place", "x.yaml", "--policy", ""], {"kueue", "kai", "kube-scheduler"}),
        (["place", "x.yaml", "--emit", "k"], {"kai", "kai-annotations", "kueue"}),
        (["completion", ""], {"bash", "zsh", "fish"}),
        (["topology", "generate", "--accelerator-labels", ""], {"topograph", "clique", "both"}),
        (["get", "job"], {"job", "jobset"}),
        (["get", "--phase", "R"], {"Running"}),
    ],
)
def test_values(words, expected):
    candidates, _ = complete(words)
    assert expected <= set(candidates), candidates
    assert all(candidate.startswith(words[-1]) for candidate in candidates)


def test_output_formats_per_command():
    candidates, directive = complete(["inspect", "x.yaml", "-o", ""])
    assert {"tree", "wide", "name", "json", "jsonpath=", "custom-columns="} <= set(candidates)
    assert directive & NO_FILE
    assert complete(["inspect", "x.yaml", "-o", "json"])[1] & NO_SPACE  # jsonpath= goes on without a space
    assert "name" not in complete(["describe", "-o", ""])[0]
    assert complete(["inspect", "--output=w"])[0] == ["--output=wide"]


def test_files_fall_back_to_the_shell():
    _, directive = complete(["inspect", ""])
    assert not directive & NO_FILE
    _, directive = complete(["place", "x.yaml", "--pods", ""])
    assert not directive & NO_FILE


def test_contexts_come_from_the_kubeconfig(tmp_path, monkeypatch):
    config = tmp_path / "config"
    config.write_text(
        "apiVersion: v1\nkind: Config\ncontexts:\n- name: prod\n  context: {}\n- name: lab\n  context: {}\n"
    )
    monkeypatch.setenv("KUBECONFIG", str(config))
    assert complete(["get", "jobsets", "--context", ""])[0] == ["prod", "lab"]
    assert {"cluster:prod", "cluster:lab", "cluster:"} <= set(complete(["place", "x", "-t", "cluster:"])[0])


def test_live_names_and_namespaces(fake_cluster):
    server = fake_cluster.server
    for name in ("train-a", "train-b"):
        server.add({"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet",
                    "metadata": {"name": name, "namespace": "default"}, "spec": {}})  # fmt: skip
    server.add({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "research"}})
    kubeconfig = str(fake_cluster.kubeconfig)
    names, _ = complete(["get", "jobsets", "--kubeconfig", kubeconfig, "train-"])
    assert names == ["train-a", "train-b"]
    namespaces, _ = complete(["get", "jobsets", "--kubeconfig", kubeconfig, "-n", "r"])
    assert namespaces == ["research"]
    assert server.methods == {"GET"}


def test_no_cluster_means_no_live_names_and_no_noise(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "missing"))
    assert complete(["get", "jobsets", ""]) == ([], NO_FILE)


def test_protocol_lines():
    text = complete_command(["catalog", "show", "jobse"])
    assert text.splitlines()[-1] == f":{NO_FILE}"
    assert "jobset" in text.splitlines()
    assert CliRunner().invoke(app, ["__complete", "catalog", "show", "jobse"]).stdout == text


def _installed(name: str) -> str:
    path = shutil.which(name, path=str(BIN)) or shutil.which(name)
    if path is None:
        pytest.skip(f"{name} is not installed (pip install the project to get its console scripts)")
    return path


def test_kubectl_complete_script_speaks_the_plugin_protocol():
    # kubectl runs kubectl_complete-wmap with the words after `kubectl wmap`, the last one being completed
    # (k8s.io/kubectl/pkg/cmd/plugin/plugin_completion.go) and reads candidates, then ":<directive>".
    result = subprocess.run([_installed("kubectl_complete-wmap"), "get", "--phase", "Fa"], capture_output=True,
                            text=True, check=True, timeout=60)  # fmt: skip
    assert result.stdout == f"Failed\n:{NO_FILE}\n"


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_scripts_are_printed(shell):
    result = CliRunner().invoke(app, ["completion", shell])
    assert result.exit_code == 0 and result.stdout == script(shell)
    assert "__complete" in result.stdout and "kubectl-wmap" in result.stdout
    assert CliRunner().invoke(app, ["completion", "tcsh"]).exit_code == 2


def test_bash_script_completes_in_a_real_bash():
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("bash is not installed")
    wmap = _installed("wmap")

    def reply(line: str) -> list[str]:
        program = (
            f'{script("bash")}\nCOMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}\n'
            '_wmap_completion\nprintf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        env = dict(os.environ, PATH=f"{Path(wmap).parent}{os.pathsep}{os.environ.get('PATH', '')}")
        result = subprocess.run([bash, "--norc", "-c", program], capture_output=True, text=True, env=env, timeout=60)
        return [line for line in result.stdout.splitlines() if line]

    assert reply("wmap catalog sh") == ["show"]
    assert "small-16" in reply("wmap topology show preset:sm")  # bash splits at ':': the reply is what follows
    assert reply("wmap inspect -o wi") == ["wide"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_other_shells_parse_their_script(shell, tmp_path):
    binary = shutil.which(shell)
    if binary is None:
        if os.environ.get("WMAP_REQUIRE_SHELLS"):  # CI installs them: there a missing shell is a failure
            pytest.fail(f"{shell} is not installed but WMAP_REQUIRE_SHELLS is set")
        pytest.skip(f"{shell} is not installed")
    path = tmp_path / f"wmap.{shell}"
    path.write_text(script(shell))
    check = [binary, "-n", str(path)] if shell == "zsh" else [binary, "--no-execute", str(path)]
    assert subprocess.run(check, capture_output=True, timeout=60).returncode == 0
