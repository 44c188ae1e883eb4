"""What a finished run says about its reasoning backend: unreachable, fell back, or strict.

A run whose model server cannot be reached still ranks (every decision has an offline
twin), and the cost tally records it; this turns the tally into one line for the user and,
under `--strict-backend`, into an error (the CLI exits non-zero).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from state.settings import RunSettings
from tools.errors import ModelUnavailableError
from tools.llm_reach import endpoint_of


def backend_notice(context: RunSettings, cost: Mapping[str, float]) -> str | None:
    """Return one line saying the model's server was unreachable, or None if it was reached."""
    unreachable = int(cost.get("llm_unreachable", 0))
    if context.backend == "offline" or not unreachable:
        return None
    server = endpoint_of(context.base_url) if context.backend == "openai" else "the local model"
    return (
        f"the LLM server ({server}) was unreachable: {unreachable} decisions fell back to "
        "their offline twins (the ranking above is offline)"
    )


def check_strict(
    context: RunSettings, cost: Mapping[str, float], fallbacks: Sequence[str], strict: bool
) -> None:
    """Refuse a run whose decisions fell back, when the backend was required.

    Raises:
        ModelUnavailableError: If `strict` and any decision fell back to its offline twin.
    """
    fell_back = int(cost.get("fallbacks", 0))
    if not strict or context.backend == "offline" or not fell_back:
        return
    first = fallbacks[0] if fallbacks else "no reason recorded"
    raise ModelUnavailableError(
        f"--strict-backend: {fell_back} decisions of the {context.backend} backend fell back to "
        f"offline ones (first: {first}); check the model server, or drop --strict-backend"
    )
