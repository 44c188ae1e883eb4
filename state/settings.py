"""Run settings every system shares: index, backend and LLM, budgets, the answer reader.

Each system's own Context (its LangGraph context_schema) extends `RunSettings` with its
own fields; no system inherits another's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from state.reader_tuning import ReaderTuning

Backend = Literal["offline", "openai", "local"]
DEFAULT_INDEX_DIR = ".fif/index"
"""Where `fif build` writes and every run reads when no index is named (CLI, Studio, make demo)."""
PriceTable = dict[str, tuple[float, float]]
"""Model name → (USD per million input tokens, USD per million output tokens)."""


class RunSettings(BaseModel):
    """Everything a node may read about how to run; nodes read nothing else."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index_dir: str = Field(
        DEFAULT_INDEX_DIR,
        description="Folder of the index built by `fif build` (relative paths: from the "
        "working directory of the process, e.g. where `langgraph dev` was started).",
    )
    chroma_url: str | None = Field(None, description="Chroma server URL; None = embedded store.")
    doc_scope: tuple[str, ...] | None = Field(
        None,
        description="Search only these documents (a single-document setting: the "
        "question's own filings); None = the whole index.",
    )
    filing_routing: bool = Field(
        True,
        description="With no doc_scope, search only the filings of the company a question "
        "names (registrant, ticker or short name read from each filing's cover) whose "
        "period and form fit it best (ties kept); a question naming no indexed company "
        "searches all. Off: every filing competes, and a company's other years often win.",
    )
    page_ranking: bool = Field(
        True,
        description="Reorder the final ranking of filings page by page: the system's pages "
        "fused with the page ranking (best chunk and passage, words, line items, periods, "
        "statement, filing). Documents without a filing identity keep the system's order. "
        "On: it gained page-R@5 on every held-out company fold for FiF and the extraction "
        "loop (docs/filings.md); off keeps the system's own page order.",
    )
    page_weights: dict[str, float] = Field(
        default_factory=dict,
        description="Weights of the page ranking's views by name (chunk, passage, words, "
        "lines, periods, statement, filing, and system: the system's own page order, 0 to "
        "leave page order to the page ranking); the ones "
        "not given keep tools.page_ranking.PageWeights' defaults.",
    )
    backend: Backend = Field("offline", description="Who makes the reasoning decisions.")
    chat_model: str = Field("gpt-5-mini", description="Model name for the openai backend.")
    base_url: str | None = Field(None, description="OpenAI-compatible server URL (openai backend).")
    api_key_env: str = Field("OPENAI_API_KEY", description="Env var holding the API key.")
    local_model_path: str | None = Field(
        None, description="GGUF file for the local backend; None = packaged SmolLM2-135M."
    )
    vision: bool = Field(False, description="Send images to the chat model as image blocks.")
    temperature: float = Field(0.0, ge=0.0, le=2.0, description="Sampling temperature.")
    llm_timeout_s: float = Field(60.0, gt=0, le=600, description="Timeout of one LLM call.")
    llm_retries: int = Field(2, ge=0, le=6, description="Retries after a failed LLM call.")
    llm_backoff_s: float = Field(1.0, ge=0, le=60, description="First retry delay (doubles).")
    price_table: PriceTable = Field(
        default_factory=dict, description="USD per million (input, output) tokens, by model."
    )

    top_k: int = Field(10, ge=1, le=100, description="Components in the final ranking.")
    shortlist_k: int = Field(30, ge=1, le=200, description="Vector shortlist before LLM selection.")
    max_steps: int = Field(8, ge=1, le=50, description="Budget: traversals per run.")
    max_llm_calls: int = Field(30, ge=0, le=500, description="Budget: LLM calls per run.")
    max_tokens: int = Field(200_000, ge=0, description="Budget: LLM tokens per run.")
    max_seconds: float = Field(
        180.0,
        gt=0,
        description="Budget: the run's working time (wall time inside its nodes); "
        "pauses between checkpoints do not count.",
    )

    max_subqueries: int = Field(5, ge=1, le=10, description="Subqueries in the initial plan.")
    answer: bool = Field(
        False, description="Write a short grounded answer from the top components."
    )
    reader: ReaderTuning = Field(
        default_factory=ReaderTuning,
        description="The offline answer reader's constants (state.reader_tuning), used by "
        "every system that answers through nodes/core/span_reader.py; "
        "`FIF_READER='{\"pivot_bonus\": 2.0}'` sets them from the environment.",
    )

    @classmethod
    def from_env(cls, overrides: Mapping[str, Any] | None = None, prefix: str = "FIF_") -> Self:
        """Build a Context from FIF_* environment variables, then explicit overrides (the CLI).

        Scalars are coerced by the fields; a structured field (`FIF_PRICE_TABLE`) is parsed
        by its `ENV_PARSERS` entry, whose error names the variable.

        Raises:
            ValidationError: If a value is malformed; the location names the variable.
        """
        values: dict[str, Any] = {}
        for name in cls.model_fields:
            variable = f"{prefix}{name.upper()}"
            raw = os.environ.get(variable)
            if raw is not None:
                parse = ENV_PARSERS.get(name)
                values[name] = parse(raw, variable) if parse else raw
        values.update({k: v for k, v in (overrides or {}).items() if v is not None})
        return cls.model_validate(values)


_PRICE_TABLE: TypeAdapter[PriceTable] = TypeAdapter(PriceTable)
PRICE_TABLE_EXAMPLE = '{"gpt-5-mini": [0.25, 2.0]}'


def price_table_from(value: str, source: str) -> PriceTable:
    """Parse a price table given as JSON text or as the path of a JSON file.

    Args:
        value: A JSON object mapping model -> [usd_in_per_million, usd_out_per_million],
            or the path of a file holding one.
        source: Where the value came from (`FIF_PRICE_TABLE`, `--price-table`), for errors.

    Returns:
        The table, model name → (input, output) USD per million tokens.

    Raises:
        ValidationError: One line naming `source`, if the text is not such a JSON object
            or the file cannot be read.
    """
    text = value
    if not value.lstrip().startswith("{"):
        path = Path(value).expanduser()
        if not path.is_file():
            raise setting_error(source, value, "neither a JSON object nor an existing file")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise setting_error(source, value, f"cannot read {path}: {err}") from err
    try:
        return _PRICE_TABLE.validate_python(json.loads(text))
    except json.JSONDecodeError as err:
        problem = f"not JSON ({err.msg} at line {err.lineno} column {err.colno})"
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "top level"
        problem = f"{first['msg']} at {where}"
    raise setting_error(
        source,
        value,
        f"{problem}; expected model -> [usd_in_per_million, usd_out_per_million], "
        f"e.g. {PRICE_TABLE_EXAMPLE}",
    )


def setting_error(source: str, value: str, reason: str) -> ValidationError:
    """Return a one-error ValidationError located at `source` (an env var or a CLI flag)."""
    error = PydanticCustomError("setting", "{reason}", {"reason": reason})
    details = InitErrorDetails(type=error, loc=(source,), input=value)
    return ValidationError.from_exception_data("RunSettings", [details])


def json_object_from(value: str, source: str) -> dict[str, Any]:
    """Parse a structured setting given as a JSON object (`FIF_TUNING='{"chain_margin": 0.1}'`).

    Raises:
        ValidationError: One line naming `source`, if the text is not a JSON object.
    """
    try:
        parsed = json.loads(value)
    except json.JSONDecodeError as err:
        example = '{"chain_margin": 0.1}'
        raise setting_error(source, value, f"not JSON ({err.msg}); e.g. {example}") from err
    if not isinstance(parsed, dict):
        raise setting_error(source, value, "expected a JSON object of the setting's fields")
    return parsed


ENV_PARSERS: dict[str, Callable[[str, str], Any]] = {
    "price_table": price_table_from,
    "reader": json_object_from,
    "tuning": json_object_from,
}
"""Settings fields whose environment value is structured, with their (value, variable) parser."""


def llm_enabled(context: RunSettings) -> bool:
    """Tell whether reasoning decisions go to a chat model."""
    return context.backend != "offline"
