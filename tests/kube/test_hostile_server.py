"""The live client against a hostile API server: dripping bytes, endless lists, deep JSON, redirects.

Before these limits a dripping server or endless ``continue`` tokens kept wmap running
indefinitely and deep JSON raised RecursionError; each test bounds its own run so that a
regression fails instead of hanging.
"""

from __future__ import annotations

import time

import pytest

from helpers.hostile import deep_json, drip, endless_list, redirect, status_message
from workloadmap import Budgets, DeadlineError
from workloadmap.budgets import applied, deadline_after
from workloadmap.errors import ClusterError
from workloadmap.kube import ClusterClient
from workloadmap.kube.answers import MAX_JSON_DEPTH

NODES = "/api/v1/nodes"


def test_a_dripping_answer_is_cut_at_the_request_limit(fake_cluster):
    """One byte every 0.2 s arrives well within each socket read's timeout, forever; the request is cut."""
    body = {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [{"metadata": {"name": "x" * 200}}]}
    fake_cluster.server.hostile = drip(NODES, body, every=0.2)
    started = time.monotonic()
    with ClusterClient(fake_cluster.kubeconfig, request_seconds=1.5) as client:
        with pytest.raises(ClusterError, match="took longer than 1.5 s in all"):
            client.nodes()
    assert time.monotonic() - started < 10


def test_a_dripping_answer_is_cut_at_the_command_deadline(fake_cluster):
    body = {"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": [{"metadata": {"name": "x" * 200}}]}
    fake_cluster.server.hostile = drip(NODES, body, every=0.2)
    started = time.monotonic()
    with ClusterClient(fake_cluster.kubeconfig) as client, deadline_after(1.5):
        with pytest.raises(DeadlineError, match="deadline of 1.5 s"):
            client.nodes()
    assert time.monotonic() - started < 10


def test_a_deadline_already_passed_sends_no_request(fake_cluster):
    with ClusterClient(fake_cluster.kubeconfig) as client, deadline_after(0.01):
        time.sleep(0.05)
        sent = len(fake_cluster.server.requests)
        with pytest.raises(DeadlineError):
            client.nodes()
    assert len(fake_cluster.server.requests) == sent


def test_a_repeated_continue_token_ends_the_list(fake_cluster):
    hostile = endless_list(NODES, "NodeList", repeat_token=True)
    fake_cluster.server.hostile = hostile
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterError, match="continue token it gave before"):
            client.nodes()
    assert hostile.pages[0] == 2  # the first page, and the one that repeated its token


def test_ever_new_continue_tokens_stop_at_the_page_cap(fake_cluster, monkeypatch):
    from workloadmap.kube import client as client_module

    monkeypatch.setattr(client_module, "MAX_PAGES", 25)
    hostile = endless_list(NODES, "NodeList", repeat_token=False)
    fake_cluster.server.hostile = hostile
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterError, match="did not finish after 25 pages"):
            client.nodes()
    assert hostile.pages[0] == 25


def test_ever_new_continue_tokens_stop_at_the_command_deadline(fake_cluster):
    fake_cluster.server.hostile = endless_list(NODES, "NodeList", repeat_token=False)
    started = time.monotonic()
    with ClusterClient(fake_cluster.kubeconfig) as client, deadline_after(1.0):
        with pytest.raises(DeadlineError):
            client.nodes()
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 5, 100_000])
def test_deep_json_is_a_clean_error(fake_cluster, depth):
    """Deeper than the limit, and deep enough to exhaust Python's recursion in the JSON parser."""
    fake_cluster.server.hostile = deep_json(NODES, depth)
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterError, match=f"nested deeper than {MAX_JSON_DEPTH} levels"):
            client.nodes()


def test_a_redirect_to_another_host_is_never_followed(fake_cluster):
    fake_cluster.server.hostile = redirect(NODES, "http://203.0.113.7:6443/api/v1/nodes")
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterError, match="never follows redirects"):
            client.nodes()
    assert all(path.startswith(NODES) or not path.startswith("http") for _, path in fake_cluster.server.requests)


def test_listed_nodes_count_against_the_node_budget(fake_cluster):
    for index in range(30):
        fake_cluster.server.add({"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{index}"}})
    with ClusterClient(fake_cluster.kubeconfig) as client, applied(Budgets(nodes=20)):
        with pytest.raises(Exception, match="30 nodes .* limit of 20 nodes"):
            client.nodes()


def test_a_server_message_keeps_its_escape_sequences_out_of_the_error_line(fake_cluster):
    """The message is data: kept one line here, and shown with visible escapes by the command line."""
    fake_cluster.server.hostile = status_message(NODES, "bad\x1b[2J\nTotals: 0 pods")
    with ClusterClient(fake_cluster.kubeconfig) as client:
        with pytest.raises(ClusterError) as caught:
            client.nodes()
    assert "\n" not in str(caught.value)
