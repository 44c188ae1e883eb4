"""`langgraph dev` serves langgraph.json offline: schemas, context errors, and a run of every graph.

The server runs in a temporary folder, not the repository: `langgraph dev` keeps its
in-memory state under `.langgraph_api/` in its working directory and reloads it at start.
Its graph paths are relative to that directory, so the test serves a copy of langgraph.json
whose paths point into the repository; graph ids, env and everything else are unchanged.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from evals.datasets.questions import EvalExample
from tools.errors import install_hint

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
START_SECONDS = 120
FIF_NODES = {"planner", "orchestrator", "traverser", "evaluator", "reranker"}


@dataclass(frozen=True)
class Served:
    """A running `langgraph dev`: its URL and where its output goes."""

    url: str
    stderr: Path

    def log(self, chars: int = 4000) -> str:
        """Return the end of the server's stderr, for failure messages."""
        return self.stderr.read_text(errors="replace")[-chars:]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def served_config(folder: Path) -> Path:
    """Write langgraph.json with its relative paths made absolute (repository root)."""
    config = json.loads((REPO / "langgraph.json").read_text(encoding="utf-8"))
    config["graphs"] = {
        name: str(REPO / spec) if spec.startswith(".") else spec
        for name, spec in config["graphs"].items()
    }
    config["dependencies"] = [
        str((REPO / dep).resolve()) if dep.startswith(".") else dep
        for dep in config.get("dependencies", [])
    ]
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def wait_until_ready(served: Served, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"langgraph dev exited with {server.returncode}:\n{served.log()}")
        try:
            with urllib.request.urlopen(f"{served.url}/ok", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            time.sleep(0.5)
    pytest.fail(f"langgraph dev did not answer /ok within {START_SECONDS} s:\n{served.log()}")


def stop(server: subprocess.Popen[bytes]) -> None:
    """Terminate the server's process group, killing it if it does not stop in time."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait(timeout=10)


@pytest.fixture(scope="module")
def langgraph_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Start `langgraph dev` on a free port with tracing, analytics and version checks off."""
    executable = Path(sys.executable).parent / "langgraph"
    assert executable.is_file(), f"no langgraph next to {sys.executable}: {install_hint('studio')}"
    folder = tmp_path_factory.mktemp("langgraph_dev")
    port = free_port()
    served = Served(f"http://127.0.0.1:{port}", folder / "server.err")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("FIF_")},
        "LANGSMITH_TRACING": "false",
        "LANGCHAIN_TRACING_V2": "false",
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGGRAPH_NO_VERSION_CHECK": "1",
    }
    command = [
        str(executable), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1",
        "--port", str(port), "--config", str(served_config(folder)), "--n-jobs-per-worker", "2",
    ]  # fmt: skip
    with (folder / "server.out").open("wb") as out, served.stderr.open("wb") as err:
        server = subprocess.Popen(
            command, cwd=folder, env=env, stdout=out, stderr=err, start_new_session=True
        )
    try:
        wait_until_ready(served, server)
        yield served
    finally:
        stop(server)


def run(served: Served, client: Any, thread_id: str | None, graph: str, **kwargs: Any) -> dict:
    """Wait for a run; a failed run fails the test with the server's log."""
    output = client.runs.wait(thread_id, graph, raise_error=False, **kwargs)
    if not isinstance(output, dict) or "__error__" in output:
        pytest.fail(f"the {graph} run failed: {output!r}; server log:\n{served.log()}")
    return output


SERVED_GRAPHS = {"fif", "lilac", "ircot", "mmapg", "extraction", "reagent"}


def undescribed(schema: dict[str, Any]) -> list[str]:
    """Return the schema's top-level fields that have no description."""
    return [name for name, field in schema["properties"].items() if not field.get("description")]


def test_every_assistant_serves_input_context_and_output_schemas_with_descriptions(
    langgraph_server: Served,
) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_server.url)
    assistants = client.assistants.search()
    assert {a["graph_id"] for a in assistants} == SERVED_GRAPHS, assistants
    for assistant in assistants:
        schemas = client.assistants.get_schemas(assistant["assistant_id"])
        for kind in ("input_schema", "context_schema", "output_schema"):
            schema = schemas[kind]
            where = f"{assistant['graph_id']} {kind}"
            assert schema and schema.get("properties"), f"{where} is {schema!r}"
            assert undescribed(schema) == [], f"{where}: fields without a description"
        assert "question" in schemas["input_schema"]["properties"]
        assert "ranking" in schemas["output_schema"]["properties"]
        assert "index_dir" in schemas["context_schema"]["properties"]


def run_error(client: Any, graph: str, context: dict[str, Any] | None) -> str:
    """Run a graph expecting it to fail; return the error message the server reports."""
    output = client.runs.wait(
        None, graph, input={"question": "Which club is the oldest?"}, context=context,
        raise_error=False,
    )  # fmt: skip
    assert isinstance(output, dict) and "__error__" in output, f"{graph} ran: {output!r}"
    return str(output["__error__"]["message"])


def test_a_run_with_a_missing_or_bad_context_names_the_field(
    langgraph_server: Served, tmp_path: Path
) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_server.url)
    nowhere = tmp_path / "no-index-here"
    for graph in sorted(SERVED_GRAPHS):
        message = run_error(client, graph, {"index_dir": str(nowhere)})
        assert message.startswith("context.index_dir: ") and str(nowhere) in message, message
        assert "fif build" in message, message
    # No context at all: the default index_dir, relative to the server's folder, is empty.
    message = run_error(client, "fif", None)
    assert message.startswith("context.index_dir: .fif/index: "), message
    assert "top_k" in run_error(client, "fif", {"top_k": 0})


def test_the_sdk_runs_fif_and_lilac_on_the_served_graphs(
    langgraph_server: Served, sample_index: Path, sample_examples: tuple[EvalExample, ...]
) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_server.url)
    assistants = client.assistants.search()
    assert {a["graph_id"] for a in assistants} == SERVED_GRAPHS, assistants

    question = sample_examples[0].question
    context = {"index_dir": str(sample_index), "top_k": 10}
    thread_id = client.threads.create()["thread_id"]
    output = run(
        langgraph_server, client, thread_id, "fif", input={"question": question}, context=context
    )
    ranking = output.get("ranking", [])
    assert len({r["component_id"] for r in ranking}) == len(ranking) == 10, output
    assert output["history"] and output["cost"]["llm_calls"] == 0

    state = client.threads.get_state(thread_id)
    assert state["next"] == [] and state["values"]["ranking"] == ranking
    assert client.threads.get(thread_id)["status"] == "idle"
    history = client.threads.get_history(thread_id, limit=100)
    assert history[-1]["next"] == ["__start__"] and history[0]["next"] == []
    assert FIF_NODES <= {node for snapshot in history for node in snapshot["next"]}

    lilac = run(
        langgraph_server, client, None, "lilac", input={"question": question}, context=context
    )
    assert len(lilac["ranking"]) == 10, lilac


def test_the_sdk_runs_ircot_mmapg_and_extraction_on_the_served_graphs(
    langgraph_server: Served, sample_index: Path, sample_examples: tuple[EvalExample, ...]
) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_server.url)
    question = sample_examples[0].question
    context = {"index_dir": str(sample_index), "top_k": 10}
    ircot = run(
        langgraph_server, client, None, "ircot", input={"question": question}, context=context
    )
    assert len(ircot["ranking"]) == 10, ircot
    nodes = [step["node"] for step in ircot["history"]]
    assert nodes[0] == "retriever" and nodes[-1] == "ranker", nodes
    assert ircot["history"][0]["query"] == question and ircot["cost"]["llm_calls"] == 0
    mmapg = run(
        langgraph_server, client, None, "mmapg", input={"question": question}, context=context
    )
    assert mmapg["ranking"] and mmapg["graph_text"].startswith("flowchart TD"), mmapg
    assert mmapg["nodes"][-1]["type"] == "stop", mmapg
    extraction = run(
        langgraph_server, client, None, "extraction", input={"question": question}, context=context
    )
    assert len(extraction["ranking"]) == 10, extraction
    steps = [step["node"] for step in extraction["trace"]]
    assert steps[0] == "extractor" and steps[-1] == "ranker", steps
    assert extraction["verdicts"] and extraction["cost"]["llm_calls"] == 0


def test_the_sdk_runs_reagent_on_the_served_graph(
    langgraph_server: Served, sample_index: Path, sample_examples: tuple[EvalExample, ...]
) -> None:
    from langgraph_sdk import get_sync_client

    client = get_sync_client(url=langgraph_server.url)
    assert "reagent" in {a["graph_id"] for a in client.assistants.search()}
    context = {"index_dir": str(sample_index), "top_k": 10}
    thread_id = client.threads.create()["thread_id"]
    question = sample_examples[0].question
    output = run(
        langgraph_server, client, thread_id, "reagent", input={"question": question},
        context=context,
    )  # fmt: skip
    assert len(output["ranking"]) == 10 and output["subquestions"], output
    assert output["trace"] and output["cost"]["llm_calls"] == 0
    assert output["outcome"] and output.get("rollback") is None  # offline: no global fork asked
    history = client.threads.get_history(thread_id, limit=100)
    assert history[0]["next"] == [] and len(history) > 3  # checkpointed by the server
