"""Credentials as kubectl applies them, against a hostile or broken server and kubeconfig (issue 26).

* Over plain HTTP kubectl sends no credential and runs no exec plugin (client-go
  ``tools/clientcmd/client_config.go``: ``DirectClientConfig.ClientConfig`` merges the user's
  identification only when ``isConfigTransportTLS``); wmap sent the bearer token on every request.
* A failing exec credential plugin (client-go ``plugin/pkg/client/auth/exec``: a non-zero exit, bad
  JSON, the wrong ``apiVersion``, no token) is an error there; wmap logged its stderr and went on
  anonymously.
* The gcp and azure auth-providers were removed from client-go in 1.26; wmap ran the gcp one's
  ``cmd-path``.
* ``insecure-skip-tls-verify`` is a boolean in kubectl's ``clientcmd/api/v1`` (a string does not
  decode); the Python client read ``"false"`` as true.
* A server that repeats the request's ``Authorization`` header in its ``Status`` message must not
  get the token printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from helpers.apiserver import TEST_TOKEN, TLS_DIR, FakeApiServer
from helpers.hostile import status_message
from workloadmap.errors import ClusterApiError, ClusterError
from workloadmap.kube import ClusterClient

EXEC_API = "client.authentication.k8s.io/v1"


def kubeconfig(path: Path, server: FakeApiServer, user: dict, **cluster: object) -> Path:
    entry: dict = {"server": server.url, **cluster}
    if server.tls and "insecure-skip-tls-verify" not in cluster:
        entry["certificate-authority"] = str(TLS_DIR / "server.crt")
    path.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1", "kind": "Config", "current-context": "fake",
                "clusters": [{"name": "c", "cluster": entry}], "users": [{"name": "u", "user": user}],
                "contexts": [{"name": "fake", "context": {"cluster": "c", "user": "u"}}],
            }
        )
    )  # fmt: skip
    return path


def plugin(tmp_path: Path, *, stdout: str = "", stderr: str = "", code: int = 0) -> tuple[dict, Path]:
    """An exec credential plugin (a Python script) that leaves a marker file when it runs."""
    marker = tmp_path / "plugin-ran"
    script = tmp_path / "plugin.py"
    script.write_text(
        "import pathlib, sys\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        f"sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit({code})\n"
    )
    return {"exec": {"apiVersion": EXEC_API, "command": sys.executable, "args": [str(script)]}}, marker


def credential(token: str = TEST_TOKEN, api_version: str = EXEC_API) -> str:
    return json.dumps({"apiVersion": api_version, "kind": "ExecCredential", "status": {"token": token}})


@pytest.fixture
def plain_server():
    with FakeApiServer(tls=False) as server:
        yield server


@pytest.fixture
def tls_server():
    with FakeApiServer(token=TEST_TOKEN) as server:
        yield server


def test_no_credential_is_sent_over_plain_http(plain_server, tmp_path):
    config = kubeconfig(tmp_path / "config", plain_server, {"token": TEST_TOKEN})
    with ClusterClient(config) as client:
        assert client.credentials_withheld
        client.list("nodes")
    assert plain_server.authorizations and set(plain_server.authorizations) == {None}


def test_no_exec_plugin_runs_for_plain_http(plain_server, tmp_path):
    user, marker = plugin(tmp_path, stdout=credential())
    with ClusterClient(kubeconfig(tmp_path / "config", plain_server, user)) as client:
        client.list("nodes")
    assert not marker.exists()
    assert set(plain_server.authorizations) == {None}


def test_a_401_over_plain_http_says_why_no_credential_was_sent(tmp_path):
    with FakeApiServer(tls=False, token=TEST_TOKEN) as server:
        with ClusterClient(kubeconfig(tmp_path / "config", server, {"token": TEST_TOKEN})) as client:
            with pytest.raises(ClusterApiError, match="were not sent: http://127.0.0.1:[0-9]+ is not reached over TLS"):
                client.list("nodes")


def test_credentials_travel_over_tls(tls_server, tmp_path):
    user, marker = plugin(tmp_path, stdout=credential())
    with ClusterClient(kubeconfig(tmp_path / "config", tls_server, user)) as client:
        assert not client.credentials_withheld
        client.list("nodes")
    assert marker.exists()
    assert set(tls_server.authorizations) == {f"Bearer {TEST_TOKEN}"}


FAILING_PLUGINS = [
    ({"code": 1, "stderr": f"login failed for token {TEST_TOKEN}\nsecond line"}, "failed: exec: process returned 1"),
    ({"stdout": "not json"}, "failed: exec: failed to decode process output"),
    ({"stdout": credential(api_version="client.authentication.k8s.io/v1beta1")}, "plugin api version"),
    ({"stdout": json.dumps({"apiVersion": EXEC_API, "kind": "ExecCredential", "status": {}})},
     "gave neither a token nor a client certificate and key"),
    ({"stdout": json.dumps({"apiVersion": EXEC_API, "kind": "ExecCredential", "status": {"token": ""}})},
     "gave neither a token"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("behaviour", "expected"), FAILING_PLUGINS, ids=["exit-1", "bad-json", "api", "empty", "blank"]
)
def test_a_failing_exec_plugin_fails_closed_in_one_line(tls_server, tmp_path, behaviour, expected):
    user, _ = plugin(tmp_path, **behaviour)
    with pytest.raises(ClusterError) as caught:
        ClusterClient(kubeconfig(tmp_path / "config", tls_server, user))
    message = str(caught.value)
    assert message.startswith("cannot get credentials for context fake: the exec credential plugin")
    assert expected in message and "\n" not in message and TEST_TOKEN not in message
    assert tls_server.requests == []  # nothing sent, anonymously or otherwise


def test_a_missing_exec_plugin_fails_closed(tls_server, tmp_path):
    user = {"exec": {"apiVersion": EXEC_API, "command": str(tmp_path / "no-such-plugin")}}
    with pytest.raises(ClusterError, match="cannot get credentials for context fake: .*cannot be run: No such file"):
        ClusterClient(kubeconfig(tmp_path / "config", tls_server, user))
    assert tls_server.requests == []


def test_the_cli_says_it_in_one_line(tls_server, tmp_path, wmap):
    user, _ = plugin(tmp_path, code=1, stderr="boom")
    result = wmap("get", "jobsets", "--kubeconfig", str(kubeconfig(tmp_path / "config", tls_server, user)))
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"error: cannot get credentials for context fake: the exec credential plugin {sys.executable!r} failed: "
        "exec: process returned 1. boom"
    ]


@pytest.mark.parametrize("name", ["gcp", "azure"])
def test_a_removed_auth_provider_is_refused_and_never_run(tls_server, tmp_path, name):
    marker = tmp_path / "ran"
    user = {"auth-provider": {"name": name, "config": {"cmd-path": f"touch {marker}", "access-token": "x"}}}
    with pytest.raises(ClusterError, match=f"uses the {name} auth-provider, which kubectl removed in 1.26"):
        ClusterClient(kubeconfig(tmp_path / "config", tls_server, user))
    assert not marker.exists() and tls_server.requests == []


@pytest.mark.parametrize("value", ["false", "no", "0", "true", 0, 1])
def test_a_non_boolean_insecure_skip_tls_verify_is_refused(tls_server, tmp_path, value):
    config = kubeconfig(tmp_path / "config", tls_server, {"token": TEST_TOKEN}, **{"insecure-skip-tls-verify": value})
    with pytest.raises(ClusterError, match="insecure-skip-tls-verify is .*, not a boolean; kubectl refuses it too"):
        ClusterClient(config)
    assert tls_server.requests == []


def test_verification_stays_on_without_the_flag(tls_server, tmp_path):
    """No CA and no flag: the self-signed certificate is refused (TLS verified by default)."""
    config = kubeconfig(tmp_path / "config", tls_server, {"token": TEST_TOKEN}, **{"insecure-skip-tls-verify": False})
    with ClusterClient(config) as client, pytest.raises(ClusterError, match="TLS failure|certificate"):
        client.list("nodes")
    assert set(tls_server.authorizations) <= {None}  # the handshake failed before any header was sent


@pytest.mark.parametrize("code", [403, 404, 500])
def test_server_text_repeating_the_credentials_is_redacted(fake_cluster, code):
    echoed = f"request headers: Authorization: Bearer {TEST_TOKEN}; token={TEST_TOKEN} (seen {TEST_TOKEN[::-1]})"
    fake_cluster.server.hostile = status_message("/api/v1/nodes", echoed, code=code)
    with ClusterClient(fake_cluster.kubeconfig) as client, pytest.raises(ClusterError) as caught:
        client.list("nodes")
    assert TEST_TOKEN not in str(caught.value) and "[redacted]" in str(caught.value)
