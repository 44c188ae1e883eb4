"""The command-line options several `fif` commands share (build, ask, search, replay, mcp).

One alias per option, so a flag reads and behaves the same wherever it appears.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

IndexOpt = Annotated[Path, typer.Option("--index", "-i", help="Index folder.")]
ChromaOpt = Annotated[str | None, typer.Option(help="Chroma server URL (http://host:port).")]
RayOpt = Annotated[
    bool,
    typer.Option(
        "--ray/--no-ray",
        help="Spread the work over Ray (the ray extra): the cluster $RAY_ADDRESS names "
        "(ray://head:10001), else a local one on this machine's CPUs (docs/ray.md).",
    ),
]
ServerOpt = Annotated[
    str | None,
    typer.Option(
        help="A running `fif serve` URL (http://127.0.0.1:8000[?index=NAME]) to answer instead "
        "of opening --index here: no model or index loads in this process."
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json/--no-json", help="Print JSON for machines.")]
DocOpt = Annotated[
    list[str] | None, typer.Option("--doc", help="Search only this document (repeatable).")
]
AblationOpt = Annotated[
    list[str] | None,
    typer.Option(
        help="FiF: no_backtracking | no_llm_traversal | no_global_hop | fixed_granularity | "
        "no_planner; other systems list theirs on a wrong name (repeatable)"
    ),
]
VisionOpt = Annotated[
    bool | None, typer.Option("--vision/--no-vision", help="Send images to the chat model.")
]
StrictBackendOpt = Annotated[
    bool,
    typer.Option(
        "--strict-backend/--lenient-backend",
        help="Exit with an error when an LLM decision fell back to its offline twin.",
    ),
]
ContinueOpt = Annotated[
    bool, typer.Option("--continue/--no-continue", help="Follow up on --thread's earlier run.")
]
PriceTableOpt = Annotated[
    str | None,
    typer.Option(help="JSON or a JSON file: model -> \\[usd_in, usd_out] per million tokens."),
]
ChatModelOpt = Annotated[str | None, typer.Option(help="Model name (openai backend).")]
BaseUrlOpt = Annotated[str | None, typer.Option(help="OpenAI-compatible server URL.")]
LocalModelOpt = Annotated[str | None, typer.Option(help="GGUF file (local backend).")]
