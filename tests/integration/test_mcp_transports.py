"""`fif mcp` as assistants run it: a real server process, the SDK's own client, stdio and HTTP.

Over stdio the client launches `python -m fif mcp` itself; over streamable HTTP the test
starts the server on a free loopback port. Both serve small hash-embedder indices (the
mini bundle, a synthetic PDF filing), so the run stays within seconds.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from tools.http_limits import MAX_HEAD_BYTES
from tools.manifest import Manifest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
TOOLS = {"search", "ask", "get_component", "get_document", "get_page"}
START_SECONDS = 60
PDF_DOC = "acme_2023_10k"


def server_env() -> dict[str, str]:
    """This checkout first on the path, so the server runs the code under test."""
    path = os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)
    return {"PYTHONPATH": path, "ANONYMIZED_TELEMETRY": "False"}


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def check_listing(client: Client) -> None:
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == TOOLS
    search = listed["search"].input_schema
    assert search["required"] == ["query"]
    assert search["properties"]["k"]["maximum"] == 50
    assert search["properties"]["mode"]["enum"] == ["dense", "sparse", "hybrid"]
    assert listed["get_page"].input_schema["required"] == ["doc_id", "page"]
    assert all(tool.output_schema for tool in listed.values())


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Call a tool that must succeed; return its structured content."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


async def failure(client: Client, tool: str, **arguments: Any) -> str:
    """Call a tool that must fail; return the error text the assistant reads."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, result.structured_content
    return text_of(result)


async def exercise_mini(client: Client) -> None:
    await check_listing(client)
    found = await call(client, "search", query="Who discovered polonium?", k=3)
    assert [hit["rank"] for hit in found["hits"]] == [1, 2, 3]
    top = found["hits"][0]["component_id"]
    component = await call(client, "get_component", component_id=top)
    assert component["component_id"] == top and component["text"]
    document = await call(client, "get_document", doc_id=component["doc_id"])
    assert top in [c["component_id"] for c in document["components"]]
    run = await call(client, "ask", question="Who discovered polonium?", k=5, answer=True)
    assert run["ranking"] and run["trace"] and run["answer"] and run["thread_id"]
    assert "close ids: polonium::p" in await failure(
        client, "get_component", component_id="polonium::p9"
    )
    assert "not built from a PDF" in await failure(client, "get_page", doc_id="polonium", page=0)
    rejected = await failure(client, "search", query="x", k=99)
    assert rejected == "search: argument 'k' must be an integer from 1 to 50 (got 99)"
    assert "query is empty" in await failure(client, "search", query="  ")


async def exercise_pdf(client: Client) -> None:
    await check_listing(client)
    found = await call(client, "search", query="revenue recognition", k=3, mode="sparse")
    assert all(hit["pages"] is not None for hit in found["hits"])
    page = await call(client, "get_page", doc_id=PDF_DOC, page=2)
    assert page["page_count"] == 3 and page["components"]
    assert all(c["pages"][0] <= 2 <= c["pages"][1] for c in page["components"])
    document = await call(client, "get_document", doc_id=PDF_DOC)
    table = next(c["component_id"] for c in document["components"] if c["type"] == "table")
    cut = await call(client, "get_component", component_id=table, max_chars=1000)
    assert cut["truncated"] and "max_chars" in cut["note"] and cut["children_total"] > 1
    run = await call(client, "ask", question="When is revenue recognised?", system="dense", k=3)
    assert run["system"] == "dense" and len(run["ranking"]) == 3
    assert "0..2 (3 pages)" in await failure(client, "get_page", doc_id=PDF_DOC, page=7)


def run_with(server: StdioServerParameters | str, exercise: Callable[[Client], Any]) -> None:
    async def session() -> None:
        with anyio.fail_after(START_SECONDS):
            async with Client(server) as client:
                await exercise(client)

    anyio.run(session)


def test_stdio_server_launched_by_the_client(mini_index: Path, tmp_path: Path) -> None:
    index = shutil.copytree(mini_index, tmp_path / "index")  # ask checkpoints next to it
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "fif", "mcp", "--index", str(index)],
        env=server_env(),
        cwd=str(tmp_path),
    )
    run_with(params, exercise_mini)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def pdf_index(
    tmp_path: Path, filing_writer: Callable[..., Path], hash_build: Callable[..., Manifest]
) -> Path:
    hash_build(filing_writer(tmp_path / f"{PDF_DOC}.pdf"), tmp_path / "pdf-index")
    return tmp_path / "pdf-index"


@pytest.fixture
def http_server(pdf_index: Path, tmp_path: Path) -> Iterator[str]:
    """Start `fif mcp --transport http` on a free loopback port; yield its MCP URL."""
    port = free_port()
    log = tmp_path / "server.log"
    command = [sys.executable, "-m", "fif", "mcp", "--index", str(pdf_index)]
    command += ["--transport", "http", "--port", str(port)]
    with log.open("wb") as sink:
        server = subprocess.Popen(
            command, cwd=tmp_path, env={**os.environ, **server_env()}, stdout=sink, stderr=sink
        )
    try:
        wait_for_port(port, server, log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.terminate()
        server.wait(timeout=20)


def wait_for_port(port: int, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"fif mcp exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    pytest.fail(f"fif mcp did not listen on {port} within {START_SECONDS} s")


def test_streamable_http_server_on_a_loopback_port(http_server: str) -> None:
    run_with(http_server, exercise_pdf)
    port = int(http_server.split(":")[2].split("/")[0])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        head = "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n"
        conn.sendall(head.encode() + b"Content-Length: 0\r\n\r\n")
        assert conn.recv(64).startswith(b"HTTP/1.1 421")  # the SDK's rebinding check stays
    with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
        conn.sendall(b"GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ")
        try:
            for _ in range(16):  # 16 x the head limit, the header never ending
                conn.sendall(b"a" * MAX_HEAD_BYTES)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the server stopped reading: refused
        reply = conn.recv(64)
    assert reply.startswith(b"HTTP/1.1 400") or reply == b""  # fif serve's limit, here too
