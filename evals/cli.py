"""`fif eval`: run systems over a bundle's questions, then print and write the summary.

`fif/cli.py` registers `eval_command` with `app.command("eval")(eval_command)`; FiF
errors raised here end there as a one-line message with exit code 2.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, get_args

import typer
from rich.markdown import Markdown
from rich.table import Table

from evals.regressions import DEFAULT_CANDIDATE
from graph_agent.cli_options import ChromaOpt, RayOpt
from graph_agent.render import make_console
from state.settings import Backend
from tools.ray_cluster import ray_target

if TYPE_CHECKING:
    from evals.judge_run import JudgeSummary
    from evals.report import ReportFiles
    from evals.runner import RunSummary

out = make_console()
logger = logging.getLogger(__name__)


def system_names(system: list[str] | None, compare: str | None) -> list[str]:
    """Return the systems named by repeated --system and by --compare, in order, once each.

    `all` stands for every registered system except ablations and variants.

    Raises:
        typer.BadParameter: If no system is named.
    """
    from evals.systems import every_system

    names = [*(system or []), *(part.strip() for part in (compare or "").split(","))]
    names = [n for name in names for n in (every_system() if name == "all" else [name])]
    names = [name for name in dict.fromkeys(names) if name]
    if not names:
        raise typer.BadParameter("name a system: --system dense, or --compare dense,lilac,fif")
    return names


CandidateOpt = Annotated[
    str, typer.Option(help="System whose regressions against the others are listed.")
]
SingleDocOpt = Annotated[
    bool, typer.Option("--single-doc", help="Search only each question's own documents.")
]
JudgeOpt = Annotated[
    bool,
    typer.Option(
        "--judge/--no-judge",
        help="An LLM judges each answer correct or not (implies --answer); offline, numbers do.",
    ),
]
JudgeBackendOpt = Annotated[
    str | None, typer.Option(help="Backend of the judge (offline|openai|local); default --backend.")
]


def eval_command(
    dataset: Annotated[Path, typer.Option(help="Bundle folder holding questions.jsonl.")],
    index: Annotated[Path, typer.Option("--index", "-i", help="Index built from that bundle.")],
    out_dir: Annotated[Path, typer.Option("--out", "-o", help="Folder for results and summary.")],
    system: Annotated[
        list[str] | None, typer.Option("--system", "-s", help="A system to run (repeatable).")
    ] = None,
    compare: Annotated[
        str | None, typer.Option(help="Comma-separated systems, e.g. dense,lilac,fif, or all.")
    ] = None,
    candidate: CandidateOpt = DEFAULT_CANDIDATE,
    workers: Annotated[int, typer.Option(min=1, help="Questions run concurrently.")] = 1,
    limit: Annotated[int | None, typer.Option(min=1, help="Only the first N questions.")] = None,
    backend: Annotated[str, typer.Option(help="offline|openai|local reasoning.")] = "offline",
    answer: Annotated[bool, typer.Option("--answer/--no-answer", help="Score EM/F1.")] = False,
    langsmith: Annotated[
        bool, typer.Option("--langsmith/--no-langsmith", help="Also run langsmith.evaluate.")
    ] = False,
    chroma_url: ChromaOpt = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
    single_doc: SingleDocOpt = False,
    judge: JudgeOpt = False,
    judge_backend: JudgeBackendOpt = None,
    ray: RayOpt = False,
) -> None:
    """Evaluate systems on one index; resumes an interrupted run in the same --out."""
    from evals.runner import run

    judge_with = _backend(judge_backend or _backend(backend))
    names, answer = system_names(system, compare), answer or judge
    summary = run(
        names,
        dataset,
        index,
        out_dir,
        workers=workers,
        limit=limit,
        backend=backend,  # type: ignore[arg-type]
        answer=answer,
        chroma_url=chroma_url,
        progress=progress,
        single_doc=single_doc,
        ray=ray_target(ray),
    )
    judged = _judge(summary, judge_with, workers) if judge else None
    files = _write_report(summary, dataset, candidate, judge)
    _print_outcome(summary, files, judged)
    if langsmith:
        _langsmith(summary, index, chroma_url, backend, answer, workers)  # type: ignore[arg-type]
    out.print(f"wrote {_written(summary, files)}", highlight=False)


def _write_report(summary: RunSummary, dataset: Path, candidate: str, judge: bool) -> ReportFiles:
    """Write the run's report; each system should have results for the questions it ran.

    Those are the first N with `--limit N`, so the questions left out are not reported
    as missing results.
    """
    from evals.report import write_report

    asked = [example.qid for example in summary.examples]
    questions = dataset / "questions.jsonl"
    return write_report(
        summary.out_dir,
        questions,
        summary.systems,
        candidate=candidate,
        judge=judge,
        expected=asked,
    )


def _backend(name: str) -> str:
    """Return a backend name, or raise typer.BadParameter listing the valid ones."""
    if name not in get_args(Backend):
        raise typer.BadParameter(f"{name!r}: use one of {', '.join(get_args(Backend))}")
    return name


def _print_outcome(summary: RunSummary, files: ReportFiles, judged: JudgeSummary | None) -> None:
    """Print the summary, then what the run skipped, failed on, recomputed, and judged."""
    out.print(Markdown(files.markdown))
    _print_judge(judged)
    if summary.problems:
        out.print(f"[yellow]{len(summary.problems)} question line(s) skipped[/yellow] (see log)")
    if summary.errors:
        out.print(f"[yellow]{summary.errors} failed run(s)[/yellow]; re-run to retry them")
    if summary.discarded:
        why = ", ".join(f"{reason}: {n}" for reason, n in sorted(summary.discarded.items()))
        out.print(
            f"[yellow]{sum(summary.discarded.values())} earlier result(s) recomputed[/yellow]: "
            f"computed under another key ({why})",
            highlight=False,
        )


def _judge(summary: RunSummary, backend: str, workers: int) -> JudgeSummary:
    """Judge the run's answers that have no verdict yet (offline: say why none is asked)."""
    from evals.judge_run import judge_run
    from state.settings import RunSettings

    context = RunSettings.from_env({"backend": backend})
    return judge_run(summary.out_dir, summary.examples, summary.systems, context, workers)


def _print_judge(judged: JudgeSummary | None) -> None:
    """Print what the judge did, or, in yellow, why no LLM judged."""
    if judged is None:
        return
    if judged.problem:
        out.print(f"[yellow]{judged.problem}[/yellow]", highlight=False)
        return
    cost = judged.cost
    out.print(
        f"judge {judged.model}: {judged.asked} answer(s) judged, {judged.reused} verdict(s) "
        f"reused, {judged.fallbacks} fell back to number matching; "
        f"{int(cost.get('llm_calls', 0))} calls, "
        f"{int(cost.get('input_tokens', 0) + cost.get('output_tokens', 0))} tokens, "
        f"${cost.get('usd', 0.0):.4f}",
        highlight=False,
    )


def _written(summary: RunSummary, files: ReportFiles) -> str:
    """List the files a run wrote: results, run config, summaries and plots."""
    paths = [summary.results_path, summary.run_config_path, files.summary_md, files.summary_csv]
    return ", ".join(str(path) for path in [*paths, *files.regressions, *files.plots])


def _langsmith(
    summary: RunSummary,
    index: Path,
    chroma_url: str | None,
    backend: Backend,
    answer: bool,
    workers: int,
) -> None:
    """Replay the run's result lines through langsmith.evaluate (no system is asked again)."""
    from evals.langsmith_eval import LangSmithUnavailableError, run_langsmith
    from evals.report import ANSWER_KEYS, QA_KEYS, RETRIEVAL_KEYS
    from evals.results_log import read_latest
    from evals.systems import RunConfig
    from evals.tables import fmt

    try:
        scores = run_langsmith(
            summary.systems,
            summary.examples,
            RunConfig(str(index), chroma_url, backend),
            want_answer=answer,
            cached=read_latest(summary.results_path),
            max_concurrency=workers,
            metadata={"out_dir": str(summary.out_dir)},
        )
    except LangSmithUnavailableError as error:  # the local report is written already
        logger.warning("%s", error)
        return
    metrics = (*RETRIEVAL_KEYS, *QA_KEYS, *ANSWER_KEYS, "n")
    keys = [key for key in metrics if key in next(iter(scores.values()))]
    table = Table(title="langsmith.evaluate")
    for column in ["system", *keys]:
        table.add_column(column, no_wrap=True)
    for name, pooled in scores.items():
        table.add_row(name, *(fmt(key, pooled.get(key)) for key in keys))
    out.print(table)
