"""The `fif` command line: parse arguments, call one library function, print the result."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from graph_agent import render
from tools.errors import FiFError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="FiF: agentic retrieval over interlinked multimodal documents.",
)
out = Console()
err = Console(stderr=True)
_state = {"debug": False}

IndexOpt = Annotated[Path, typer.Option("--index", "-i", help="Index folder.")]
ChromaOpt = Annotated[str | None, typer.Option(help="Chroma server URL (http://host:port).")]
JsonOpt = Annotated[bool, typer.Option("--json/--no-json", help="Print JSON for machines.")]


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
        Path, typer.Argument(help="Bundle folder, corpus.jsonl, HTML or image folder.")
    ],
    index: IndexOpt,
    embedder: Annotated[str | None, typer.Option(help="Text embedder spec.")] = None,
    image_embedder: Annotated[str | None, typer.Option(help="clip:<local folder>.")] = None,
    chroma_url: ChromaOpt = None,
    link_mentions: Annotated[str, typer.Option(help="auto|on|off: title-mention links.")] = "auto",
    rebuild: Annotated[bool, typer.Option("--rebuild/--no-rebuild")] = False,
    allow_download: Annotated[bool, typer.Option("--allow-download/--offline")] = False,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Build or update the layered graph and Chroma layer indices of a corpus."""
    from corpus_builder.build import BuildOptions
    from corpus_builder.build import build as run_build
    from tools.embedders import DEFAULT_TEXT_EMBEDDER

    options = BuildOptions(
        text_embedder=embedder or DEFAULT_TEXT_EMBEDDER,
        image_embedder=image_embedder,
        chroma_url=chroma_url,
        link_mentions=link_mentions,  # type: ignore[arg-type]
        rebuild=rebuild,
        allow_download=allow_download,
        show_progress=progress,
    )
    manifest = run_build(corpus, index, options)
    render.build_summary(out, err, manifest)


@app.command()
def search(
    question: Annotated[str, typer.Argument(help="The question.")],
    index: IndexOpt,
    granularity: Annotated[str, typer.Option(help="document|component|subcomponent")] = "component",
    k: Annotated[int, typer.Option("-k", min=1, max=200)] = 10,
    chroma_url: ChromaOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Rank components for a question in one dense shot (the baseline)."""
    from tools.corpus_index import open_index
    from tools.search import dense_search

    if granularity not in ("document", "component", "subcomponent"):
        raise typer.BadParameter(f"{granularity!r}: use document, component or subcomponent")
    corpus_index = open_index(str(index), chroma_url)
    results = dense_search(corpus_index, question, granularity, k)  # type: ignore[arg-type]
    if as_json:
        out.print_json(
            json.dumps(
                [
                    {
                        "component_id": r.node_id,
                        "doc_id": r.doc_id,
                        "type": r.kind,
                        "score": round(r.score, 4),
                    }
                    for r in results
                ]
            )
        )
    else:
        render.ranking(out, corpus_index.graph, [(r.node_id, r.score) for r in results])


def main() -> None:
    """Run the CLI; FiF errors end with one line on stderr and exit code 2."""
    try:
        app(standalone_mode=False)
    except FiFError as error:
        if _state["debug"]:
            raise
        message = " ".join(str(error).split())  # one line, even for wrapped causes
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
