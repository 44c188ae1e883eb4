"""The agent's commands (build, search, ask, replay): parse, call one library function, print.

`fif.cli` joins them with the commands other packages own; run `fif` through `fif.cli.main`.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, cast

import typer
from rich.markup import escape

from graph_agent import render
from graph_agent.cli_options import (
    AblationOpt,
    BaseUrlOpt,
    ChatModelOpt,
    ChromaOpt,
    ContinueOpt,
    DocOpt,
    IndexOpt,
    JsonOpt,
    LocalModelOpt,
    PriceTableOpt,
    RayOpt,
    ServerOpt,
    StrictBackendOpt,
    VisionOpt,
)
from graph_agent.cli_remote import ask_on_server, remote_only, search_on_server
from graph_agent.registry import SYSTEMS, get_system
from graph_agent.systems import ablation_switches, run_system
from state.settings import DEFAULT_INDEX_DIR
from tools.errors import FiFError
from tools.questions import require_question

if TYPE_CHECKING:
    from graph_agent.results import RunResult
    from state.settings import RunSettings

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="FiF: agentic retrieval over interlinked multimodal documents.",
)
out = render.make_console()
err = render.make_console(stderr=True)
_state = {"debug": False}

DEFAULT_INDEX = Path(DEFAULT_INDEX_DIR)
SYSTEM_HELP = " | ".join(SYSTEMS)
SEARCH_FIELDS = ("component_id", "doc_id", "type", "score")
EXAMPLE = 'fif {} "Who founded X?" --index DIR'
"""A working call of a command, for the message about an empty question."""


@app.callback()
def _main(
    debug: Annotated[bool, typer.Option("--debug/--no-debug", help="Show tracebacks.")] = False,
    verbose: Annotated[bool, typer.Option("--verbose/--quiet", "-v", help="INFO logs.")] = False,
) -> None:
    _state["debug"] = debug
    level = logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s"
    )


@app.command()
def build(
    corpus: Annotated[
        Path, typer.Argument(help="Bundle, corpus.jsonl, PDF, or folder of HTML, PDFs or images.")
    ],
    index: IndexOpt = DEFAULT_INDEX,
    embedder: Annotated[str | None, typer.Option(help="Text embedder spec.")] = None,
    image_embedder: Annotated[str | None, typer.Option(help="clip:<local folder>.")] = None,
    chroma_url: ChromaOpt = None,
    link_mentions: Annotated[str, typer.Option(help="auto|on|off: title-mention links.")] = "auto",
    rebuild: Annotated[bool, typer.Option("--rebuild/--no-rebuild")] = False,
    update: Annotated[
        bool, typer.Option("--update", help="Update an existing index (docs/updating.md).")
    ] = False,
    allow_download: Annotated[bool, typer.Option("--allow-download/--offline")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
    summaries: Annotated[str, typer.Option(help="extractive | openai | local")] = "extractive",
    triplets: Annotated[
        bool, typer.Option("--triplets/--no-triplets", help="LLM triplet KB for MMAPG (README).")
    ] = False,
    backend: Annotated[str | None, typer.Option(help="openai | local: --triplets' model.")] = None,
    chat_model: ChatModelOpt = None,
    base_url: BaseUrlOpt = None,
    local_model: LocalModelOpt = None,
    regions: Annotated[
        str, typer.Option(help="Image regions: fixed | <module>:<callable> (a proposer factory).")
    ] = "fixed",
    contextual: Annotated[
        bool | None,
        typer.Option(
            "--contextual-sentences/--standalone-sentences",
            help="Pool sentence vectors from their paragraph's pass (faster; see README). "
            "Default: only in PDF documents.",
        ),
    ] = None,
    pdf_max_pages: Annotated[int, typer.Option(min=1, help="Skip longer PDFs.")] = 3000,
    pdf_max_mb: Annotated[int, typer.Option(min=1, help="Skip larger PDF files.")] = 300,
    ocr: Annotated[
        bool, typer.Option("--ocr/--no-ocr", help="OCR text-less PDF pages (needs Tesseract).")
    ] = True,
    ray: RayOpt = False,
) -> None:
    """Build or update the layered graph and Chroma layer indices of a corpus."""
    choices = {k: v for k, v in locals().items() if k not in ("corpus", "index")}  # the options
    from corpus_builder.build import build as run_build
    from graph_agent.build_options import BuildChoices, build_options

    manifest = run_build(corpus, index, build_options(BuildChoices(**choices)))
    render.build_summary(out, err, manifest)


@app.command()
def search(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt = DEFAULT_INDEX,
    granularity: Annotated[
        str, typer.Option(help="document|component|subcomponent")
    ] = "subcomponent",
    k: Annotated[int, typer.Option("-k", min=1, max=200)] = 10,
    mode: Annotated[str, typer.Option(help="dense | sparse (BM25) | hybrid (RRF)")] = "dense",
    rrf_k: Annotated[int, typer.Option(min=0, help="RRF constant of --mode hybrid.")] = 60,
    doc: DocOpt = None,
    chroma_url: ChromaOpt = None,
    as_json: JsonOpt = False,
    server: ServerOpt = None,
) -> None:
    """Rank components for a question in one shot: dense, sparse or hybrid (the baselines)."""
    from typing import get_args

    from state.core import Granularity, SearchMode
    from state.corpus import LAYERS

    question = require_question(question, "the question argument", EXAMPLE.format("search"))
    if granularity not in LAYERS:
        raise typer.BadParameter(f"{granularity!r}: use document, component or subcomponent")
    if mode not in get_args(SearchMode):
        raise typer.BadParameter(f"{mode!r}: use {', '.join(get_args(SearchMode))}")
    if server:
        remote_only(server, {"--doc": doc, "--chroma-url": chroma_url, "--rrf-k": rrf_k != 60})
        options = {"k": k, "mode": mode, "granularity": granularity}
        search_on_server(server, question, options, as_json)
        return
    from tools.corpus_index import open_index
    from tools.search import dense_search

    corpus_index = open_index(str(index), chroma_url, doc)
    at, how = cast(Granularity, granularity), cast(SearchMode, mode)
    exact = granularity in corpus_index.mirrored  # the build's vector copy: no Chroma to open
    results = dense_search(corpus_index, question, at, k, mode=how, rrf_k=rrf_k, exact=exact)
    if as_json:
        rows = [(r.node_id, r.doc_id, r.kind, round(r.score, 4)) for r in results]
        out.print_json(json.dumps([dict(zip(SEARCH_FIELDS, row, strict=True)) for row in rows]))
    else:
        render.ranking(out, corpus_index.graph, [(r.node_id, r.score) for r in results])


@app.command()
def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt = DEFAULT_INDEX,
    thread: Annotated[str | None, typer.Option(help="Thread id (default: a new one).")] = None,
    continue_thread: ContinueOpt = False,
    backend: Annotated[str, typer.Option(help="offline | openai | local")] = "offline",
    chat_model: ChatModelOpt = None,
    base_url: BaseUrlOpt = None,
    local_model: LocalModelOpt = None,
    k: Annotated[int, typer.Option("-k", min=1, max=100)] = 10,
    answer: Annotated[bool, typer.Option("--answer/--no-answer")] = False,
    max_steps: Annotated[int | None, typer.Option(help="Traversal budget.")] = None,
    ablation: AblationOpt = None,
    vision: VisionOpt = None,
    price_table: PriceTableOpt = None,
    doc: DocOpt = None,
    chroma_url: ChromaOpt = None,
    as_json: JsonOpt = False,
    system: Annotated[str, typer.Option("--system", "-s", help=SYSTEM_HELP)] = "fif",
    server: ServerOpt = None,
    strict_backend: StrictBackendOpt = False,
) -> None:
    """Run a system (FiF by default) on a question; print the ranking, the trace and the cost."""
    from graph_agent.filing_scope import routed_context
    from state.settings import price_table_from

    question = require_question(question, "the question argument", EXAMPLE.format("ask"))
    spec = get_system(system)  # an unknown name fails before the index is opened
    overrides = {
        "index_dir": str(index),
        "backend": backend,
        "chat_model": chat_model,
        "base_url": base_url,
        "local_model_path": local_model,
        "top_k": k,
        "answer": answer,
        "max_steps": max_steps,
        "chroma_url": chroma_url,
        "doc_scope": tuple(doc) if doc else None,
        "vision": vision,
        "price_table": price_table_from(price_table, "--price-table") if price_table else None,
        **ablation_switches(system, ablation),
    }
    if server:  # the request takes the run settings; the rest must be unset
        on_thread = (thread, continue_thread)
        return ask_on_server(server, question, system, on_thread, overrides, as_json)
    context = routed_context(spec, overrides, question, err.print)
    result = run_system(system, question, context, thread, continue_thread, one_question=True)
    _report(str(index), chroma_url, result, as_json)
    _check_backend(context, result, strict_backend)


def _check_backend(context: RunSettings, result: RunResult, strict: bool) -> None:
    """Say once that the LLM server could not be reached; fail under --strict-backend."""
    from graph_agent.backend_check import backend_notice, check_strict

    if notice := backend_notice(context, result.cost):
        err.print(notice, highlight=False)
    check_strict(context, result.cost, result.fallbacks, strict)


def _report(index: str, chroma_url: str | None, result: RunResult, as_json: bool) -> None:
    from tools.corpus_index import open_index

    if result.thread_id:
        err.print(f"thread: {result.thread_id}", highlight=False)
    if as_json:
        render.run_json(out, result)
        return
    render.run(out, open_index(index, chroma_url).graph, result)


@app.command()
def replay(
    thread: Annotated[str, typer.Argument(help="Thread id printed by `fif ask`.")],
    index: IndexOpt = DEFAULT_INDEX,
    resume: Annotated[bool, typer.Option("--resume/--list", help="Continue the run.")] = False,
    fork: Annotated[str | None, typer.Option(help="Checkpoint id to fork from.")] = None,
    backend: Annotated[str | None, typer.Option(help="Override the backend for the rerun.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """List a thread's checkpoints (forks marked), or resume it, or fork it (any system)."""
    from graph_agent import replay as replays
    from tools.corpus_index import open_index

    if not resume and fork is None:
        rows = replays.list_checkpoints(index, thread)
        if as_json:
            out.print_json(json.dumps([row.__dict__ for row in rows]))
        else:
            err.print(f"system: {replays.thread_system_of(index, thread)}", highlight=False)
            render.checkpoints(out, rows)
        return
    result = replays.resume(index, thread, fork, {"backend": backend} if backend else None)
    if result.finished:
        err.print(f"thread {thread} had finished: nothing to resume; its result:", highlight=False)
    if as_json:
        render.run_json(out, result)
        return
    render.run(out, open_index(str(index)).graph, result)


def run_app(command: typer.Typer) -> None:
    """Run a command line; FiF errors end with one line on stderr and exit code 2."""
    from pydantic import ValidationError

    try:
        command(standalone_mode=False)
    except (FiFError, ValidationError) as error:
        if _state["debug"]:
            raise
        message = render.error_line(error)
        err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
        sys.exit(2)
    except (typer.Abort, KeyboardInterrupt):
        err.print("aborted")
        sys.exit(130)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except Exception as error:  # click usage errors carry their own exit codes
        import click

        # typer >= 0.24 raises its vendored click's exceptions, which click's base misses
        usage = (click.ClickException, typer.TyperException)
        if isinstance(error, usage) and hasattr(error, "show"):
            error.show()
            sys.exit(error.exit_code)
        raise
