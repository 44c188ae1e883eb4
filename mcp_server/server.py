"""The MCP server: FiF's tools registered on the SDK's `MCPServer`, typed in and out.

Arguments are validated by the SDK against each tool's input schema (a `k` out of
range never reaches the library), and a rejected one comes back as one line naming the
argument and its allowed range (`mcp_server.arguments`); a FiF error (an unknown id, a
blank query, a missing index) becomes a tool error whose text is the error's one-line
message, so the assistant reads what went wrong and what to call instead.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar, cast, get_args

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field, ValidationError

from graph_agent.registry import SYSTEMS
from mcp_server import browse, tools
from mcp_server.arguments import argument_error
from mcp_server.budget import DEFAULT_MAX_CHARS, MAX_MAX_CHARS, MIN_MAX_CHARS, cut
from mcp_server.results import AskResult, ComponentDetail, DocumentDetail, PageDetail, SearchResult
from mcp_server.settings import ServerSettings
from tools.errors import FiFError
from tools.request_limits import MAX_ID_CHARS, MAX_QUESTION_CHARS

logger = logging.getLogger(__name__)
R = TypeVar("R")

INSTRUCTIONS = """FiF retrieves components (paragraphs, tables, images) of interlinked documents.
Start with `search` (one fast search) or `ask` (a registered retrieval agent with its trace);
both return stable component ids. Read a component whole with `get_component`, a document's
summary and component list with `get_document`, and a PDF page with `get_page` (pages are
zero-indexed). Every tool takes `max_chars` and says when it cut its result."""

MaxChars = Annotated[
    int,
    Field(
        ge=MIN_MAX_CHARS,
        le=MAX_MAX_CHARS,
        description="Upper bound on the result's size (its JSON, in characters).",
    ),
]
K = Annotated[int, Field(ge=1, le=50, description="How many components to rank.")]
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)
MAX_ERROR_CHARS = 600
"""A tool error is one line an assistant reads; it never grows with the input it names."""


class FiFServer(MCPServer):
    """The SDK's server, with rejected arguments reported in one line instead of pydantic's."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool; a ToolError for arguments that fail its schema names each argument."""
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            rejected = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(rejected, ValidationError):
                raise
            schemas = {tool.name: tool.input_schema for tool in await self.list_tools()}
            message = argument_error(name, schemas.get(name, {}), rejected)
            raise ToolError(message) from rejected  # the SDK logs the rejected fields


def build_server(settings: ServerSettings) -> MCPServer:
    """Return an MCP server whose tools answer from the settings' index."""
    server = FiFServer("fif", instructions=INSTRUCTIONS, version=_version(), log_level=_log_level())
    _add_retrieval_tools(server, settings)
    _add_browsing_tools(server, settings)
    return server


def _add_retrieval_tools(server: MCPServer, settings: ServerSettings) -> None:
    """Register search (one shot) and ask (a registered system, traced)."""

    @server.tool(annotations=READ_ONLY, structured_output=True)
    def search(
        query: Annotated[
            str,
            Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="What to look for."),
        ],
        k: K = 10,
        mode: Annotated[
            tools.SearchMode,
            Field(description="dense (vectors) | sparse (BM25) | hybrid (both, fused by RRF)"),
        ] = "hybrid",
        max_chars: MaxChars = DEFAULT_MAX_CHARS,
    ) -> SearchResult:
        """Rank the index's components for a query in one search (fast, no agent)."""
        return _answered(lambda: tools.search(settings, query, k, mode, max_chars))

    @server.tool(structured_output=True)
    def ask(
        question: Annotated[
            str, Field(min_length=1, max_length=MAX_QUESTION_CHARS, description="The question.")
        ],
        system: Annotated[
            str,
            Field(
                description=f"Which retrieval system runs: {', '.join(SYSTEMS)}",
                json_schema_extra={"enum": list(SYSTEMS)},
            ),
        ] = "fif",
        k: K = 10,
        answer: Annotated[
            bool, Field(description="Also write an answer from the ranking.")
        ] = False,
        max_chars: MaxChars = DEFAULT_MAX_CHARS,
    ) -> AskResult:
        """Run a retrieval agent (FiF by default) on a question: its ranking, trace and cost.

        The run is checkpointed next to the index; its thread id replays it with `fif replay`.
        """
        return _answered(lambda: tools.ask(settings, question, system, k, answer, max_chars))


def _add_browsing_tools(server: MCPServer, settings: ServerSettings) -> None:
    """Register get_component, get_document and get_page."""

    @server.tool(annotations=READ_ONLY, structured_output=True)
    def get_component(
        component_id: Annotated[
            str, Field(max_length=MAX_ID_CHARS, description="A component or subcomponent id.")
        ],
        max_chars: MaxChars = DEFAULT_MAX_CHARS,
    ) -> ComponentDetail:
        """Read a component whole: text, document, section, pages, parts and links."""
        return _answered(lambda: browse.get_component(settings, component_id, max_chars))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    def get_document(
        doc_id: Annotated[
            str,
            Field(max_length=MAX_ID_CHARS, description="A document id (from any result's doc_id)."),
        ],
        offset: Annotated[
            int, Field(ge=0, description="First component to list (next_offset pages on).")
        ] = 0,
        max_chars: MaxChars = DEFAULT_MAX_CHARS,
    ) -> DocumentDetail:
        """Read a document: title, summary and its components (ids, types, first words)."""
        return _answered(lambda: browse.get_document(settings, doc_id, offset, max_chars))

    @server.tool(annotations=READ_ONLY, structured_output=True)
    def get_page(
        doc_id: Annotated[
            str, Field(max_length=MAX_ID_CHARS, description="A document built from a PDF.")
        ],
        page: Annotated[int, Field(ge=0, description="Zero-indexed page (0 is the first).")],
        max_chars: MaxChars = DEFAULT_MAX_CHARS,
    ) -> PageDetail:
        """Read one page of a PDF document: the components printed on it, in reading order."""
        return _answered(lambda: browse.get_page(settings, doc_id, page, max_chars))


def _answered(call: Callable[[], R]) -> R:
    """Run a tool's body; FiF errors and bad settings become tool errors the assistant reads."""
    try:
        return call()
    except FiFError as error:
        raise ToolError(cut(" ".join(str(error).split()), MAX_ERROR_CHARS)) from error
    except ValidationError as error:  # a malformed FIF_* setting or server option
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise ToolError(f"invalid setting {where!r}: {first['msg']}") from error


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fif")
    except PackageNotFoundError:
        return "0"


LogLevel = Literal["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"]


def _log_level() -> LogLevel:
    """Return the level `fif` logs at, for the SDK's own loggers."""
    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    return cast(LogLevel, level) if level in get_args(LogLevel) else "WARNING"
