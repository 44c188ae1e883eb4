"""The MCP server through the SDK's own in-process client: schemas, results and tool errors."""

from __future__ import annotations

import json
import shutil
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import anyio
import pytest
from mcp import Client
from mcp.types import CallToolResult, TextContent

from mcp_server.results import AskResult, ComponentDetail, DocumentDetail, SearchResult
from mcp_server.server import build_server
from mcp_server.settings import ServerSettings

T = TypeVar("T")
TOOLS = {"search", "ask", "get_component", "get_document", "get_page"}


@pytest.fixture
def client_run(mini_index: Path, tmp_path: Path) -> Callable[..., Any]:
    """Return `run(session)`: run `session(client)` against a server on a copy of the index."""
    index = Path(shutil.copytree(mini_index, tmp_path / "index"))
    server = build_server(ServerSettings(index))

    def run(session: Callable[[Client], Awaitable[T]]) -> T:
        async def connected() -> T:
            async with Client(server) as client:
                return await session(client)

        return anyio.run(connected)

    return run


def text_of(result: CallToolResult) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_tools_are_listed_with_typed_input_and_output_schemas(
    client_run: Callable[..., Any],
) -> None:
    async def session(client: Client) -> Any:
        return (await client.list_tools()).tools

    listed = {tool.name: tool for tool in client_run(session)}
    assert set(listed) == TOOLS
    search = listed["search"].input_schema["properties"]
    assert listed["search"].input_schema["required"] == ["query"]
    assert search["mode"]["enum"] == ["dense", "sparse", "hybrid"]
    assert search["mode"]["default"] == "hybrid"
    assert (search["k"]["minimum"], search["k"]["maximum"], search["k"]["default"]) == (1, 50, 10)
    assert search["max_chars"]["default"] == 8000 and search["max_chars"]["maximum"] == 100_000
    assert "dense" in listed["ask"].input_schema["properties"]["system"]["enum"]
    assert listed["get_page"].input_schema["required"] == ["doc_id", "page"]
    for tool in listed.values():
        assert tool.description and tool.output_schema is not None
        assert "truncated" in tool.output_schema["properties"]
    assert listed["search"].annotations is not None and listed["search"].annotations.read_only_hint


def test_each_tool_returns_structured_content(client_run: Callable[..., Any]) -> None:
    async def session(client: Client) -> list[CallToolResult]:
        return [
            await client.call_tool("search", {"query": "polonium", "k": 3}),
            await client.call_tool("get_component", {"component_id": "polonium::p0"}),
            await client.call_tool("get_document", {"doc_id": "polonium"}),
            await client.call_tool("ask", {"question": "Who discovered polonium?", "k": 3}),
        ]

    search, component, document, ask = client_run(session)
    assert not any(result.is_error for result in (search, component, document, ask))
    found = SearchResult.model_validate(search.structured_content)
    assert len(found.hits) == 3 and found.hits[0].component_id == "polonium::p0"
    assert json.loads(text_of(search)) == search.structured_content
    detail = ComponentDetail.model_validate(component.structured_content)
    assert detail.doc_id == "polonium" and "Marie and Pierre Curie" in detail.text
    listing = DocumentDetail.model_validate(document.structured_content)
    assert [c.component_id for c in listing.components] == ["polonium::p0", "polonium::p1"]
    run = AskResult.model_validate(ask.structured_content)
    assert run.system == "fif" and run.ranking and run.trace and run.thread_id


@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("search", {"query": "x", "k": 0}, "search: argument 'k' must be an integer from 1 to 50"),
        (
            "search",
            {"query": "x", "k": 500},
            "argument 'k' must be an integer from 1 to 50 (got 500)",
        ),
        ("search", {"query": "x", "mode": "fuzzy"}, "must be one of dense, sparse, hybrid"),
        ("search", {"query": ""}, "'query' must be a non-empty string of at most 2000 characters"),
        ("search", {}, "argument 'query' is required: a non-empty string of at most 2000"),
        ("search", {"query": "   "}, "query is empty"),
        ("search", {"query": "x", "max_chars": 10}, "an integer from 1000 to 100000 (got 10)"),
        ("get_component", {"component_id": "polonium::p7"}, "close ids: polonium::p"),
        ("get_document", {"doc_id": "polonum"}, "close ids: polonium"),
        ("get_page", {"doc_id": "polonium", "page": 0}, "not built from a PDF"),
        ("get_page", {"doc_id": "polonium", "page": -1}, "'page' must be an integer of at least 0"),
        ("ask", {"question": "Who?", "system": "hippo"}, "unknown system 'hippo'"),
    ],
)
def test_bad_arguments_come_back_as_tool_errors_that_say_why(
    client_run: Callable[..., Any], tool: str, arguments: dict[str, Any], message: str
) -> None:
    async def session(client: Client) -> CallToolResult:
        return await client.call_tool(tool, arguments)

    result = client_run(session)
    assert result.is_error and message in text_of(result)
    assert "pydantic" not in text_of(result) and "\n" not in text_of(result)


def test_a_missing_index_is_a_tool_error_naming_the_build_command(tmp_path: Path) -> None:
    server = build_server(ServerSettings(tmp_path / "nowhere"))

    async def session() -> CallToolResult:
        async with Client(server) as client:
            return await client.call_tool("search", {"query": "polonium"})

    result = anyio.run(session)
    assert result.is_error and "fif build" in text_of(result)


@pytest.mark.parametrize(
    ("tool", "arguments", "named"),
    [
        ("search", {"query": "stadium " * 250_000}, "'query' must be a non-empty string"),
        ("ask", {"question": "who " * 1000}, "'question' must be a non-empty string"),
        ("get_component", {"component_id": "x" * 1_000_000}, "'component_id' must be a string"),
        ("get_document", {"doc_id": "d" * 1_000_000}, "'doc_id' must be a string"),
        ("get_page", {"doc_id": "d" * 1_000_000, "page": 0}, "'doc_id' must be a string"),
    ],
)
def test_long_inputs_are_refused_in_a_short_line(
    client_run: Callable[..., Any], tool: str, arguments: dict[str, Any], named: str
) -> None:
    async def session(client: Client) -> CallToolResult:
        return await client.call_tool(tool, {**arguments, "max_chars": 1000})

    result = client_run(session)
    assert result.is_error and named in text_of(result)
    assert len(text_of(result)) < 1000  # the limit serve applies, not an echo of the input


def test_a_long_query_within_the_limit_still_fits_max_chars(
    client_run: Callable[..., Any],
) -> None:
    async def session(client: Client) -> CallToolResult:
        return await client.call_tool("search", {"query": "polonium " * 222, "max_chars": 1000})

    result = client_run(session)
    assert not result.is_error
    assert len(json.dumps(result.structured_content, separators=(",", ":"))) <= 1000
