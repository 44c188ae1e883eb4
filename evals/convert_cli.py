"""`fif convert`: turn a benchmark's published raw files into a bundle, then summarise it.

`fif/cli.py` registers `convert_command` next to `eval_command`; FiF errors raised here
(an unknown dataset, a missing raw file or folder) end there as one line with exit code 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from graph_agent.render import make_console
from tools.errors import ConfigError

if TYPE_CHECKING:
    from evals.datasets import ConversionReport

out = make_console()

SKIP_REASONS: dict[str, str] = {
    "bad_raw_line": "line is not a UTF-8 JSON object",
    "bad_raw_record": "record lacks a required field (id, question, text, url or title)",
    "no_gold": "question has no gold evidence (supporting context, qrels, positive facts)",
    "gold_not_in_corpus": "question's gold evidence is not an item of the collections",
    "invalid_question": "question record fails the bundle's schema",
    "image_missing": "image file not in the --images folder (component kept, file absent)",
    "bad_image_data": "image bytes in imgs.tsv are not valid base64",
    "answer_nodes=0": "no traced answer node (left out by design)",
    "answer_nodes=2+": "answer node not unique (left out by design)",
    "table_not_found": "question's table file is missing (left out by design)",
    "answer_node_unverifiable": "answer node matches no table cell or linked passage",
    "images_not_copied": "no --images folder given: image components point to absent files",
    "links_dropped": "link target is a page outside the converted corpus",
    "pdf_missing": "the question's PDF is not in the PDF folder",
    "pdf_skipped": "the question's PDF could not be read (see pdf_unreadable)",
    "pdf_unreadable": "PDF encrypted, corrupt, over a limit or without text",
    "ocr_failed": "OCR failed or timed out on a page (page kept without its text)",
}
"""Why items were left out, by the problem kind an adapter counted, OTT-QA's rejection reason,
or the stats' image and link counts."""
MESSAGES_SHOWN = 5


def convert_command(
    dataset: Annotated[
        str,
        typer.Argument(
            help="mmqa | webqa | mmcoqa | ottqa | hybridqa | financebench | mmlongbench"
        ),
    ],
    raw_dir: Annotated[Path, typer.Argument(help="Folder with the benchmark's published files.")],
    out_dir: Annotated[Path, typer.Argument(help="Bundle folder to write.")],
    split: Annotated[
        str, typer.Option(help="dev or train (webqa: also val; mmcoqa: also test).")
    ] = "dev",
    limit: Annotated[
        int | None, typer.Option(min=1, help="Only the first N usable questions.")
    ] = None,
    images: Annotated[
        Path | None, typer.Option(help="Folder with the image files (mmqa, mmcoqa, webqa).")
    ] = None,
    progress: Annotated[bool, typer.Option("--progress/--no-progress")] = True,
) -> None:
    """Convert a benchmark's raw files into a bundle: corpus, questions, stats and images."""
    from evals.datasets import ConversionJob, get_adapter
    from evals.datasets.progress import conversion_progress

    adapter = get_adapter(dataset)
    for folder, what in ((raw_dir, "raw"), (images, "--images")):
        if folder is not None and not folder.is_dir():
            raise ConfigError(f"{what} folder {str(folder)!r} does not exist; give an existing one")
    with conversion_progress(f"convert {dataset}", enabled=progress):
        report = adapter(ConversionJob(raw_dir, out_dir, split, limit, images))
    print_summary(report)


def print_summary(report: ConversionReport) -> None:
    """Print what the bundle holds, then what was skipped and why."""
    stats = report.stats
    from evals.datasets.raw import PROBLEMS_FILE

    table = Table(title=f"{report.dataset} {report.split} → {escape(str(report.out_dir))}")
    table.add_column("written", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_row("documents", str(report.documents))
    by_type = ", ".join(f"{n} {kind}" for kind, n in stats.get("components_by_type", {}).items())
    table.add_row("components", f"{report.components} ({by_type})" if by_type else "0")
    table.add_row("questions", str(report.questions))
    table.add_row("links", str(stats.get("links", 0)))
    table.add_row("images copied", str(stats.get("images_copied", 0)))
    out.print(table)
    skipped = _skipped(stats)
    if skipped:
        out.print(_skipped_table(skipped))
        for message in report.problems[:MESSAGES_SHOWN]:
            out.print(f"  {escape(message)}", highlight=False, soft_wrap=True)
        if len(report.problems) > MESSAGES_SHOWN:
            listed = escape(str(report.out_dir / PROBLEMS_FILE))
            more = sum(report.problems_by_kind.values()) - MESSAGES_SHOWN
            out.print(f"  … {more} more problems: see {listed}", highlight=False, soft_wrap=True)
    else:
        out.print("nothing skipped")
    names = ["corpus.jsonl", "questions.jsonl", "stats.json"]
    if report.problems:
        names.append(PROBLEMS_FILE)
    if stats.get("images_copied"):
        names.append("images/")
    written = ", ".join(str(report.out_dir / name) for name in names)
    out.print(f"wrote {escape(written)}", highlight=False, soft_wrap=True)


def _skipped(stats: Mapping[str, Any]) -> dict[str, int]:
    """Return count by reason of everything left out: problems, rejections, images, links."""
    skipped: dict[str, int] = {}
    for key in ("problems_by_kind", "rejected"):
        found = stats.get(key)
        if isinstance(found, Mapping):
            skipped.update({str(kind): int(n) for kind, n in found.items() if n})
    if stats.get("images_not_copied"):
        skipped["images_not_copied"] = int(stats["images_not_copied"])
    if stats.get("links_dropped_target_not_in_corpus"):
        skipped["links_dropped"] = int(stats["links_dropped_target_not_in_corpus"])
    return skipped


def _skipped_table(skipped: Mapping[str, int]) -> Table:
    """Return a table of what was left out: kind, count and why."""
    table = Table(title="skipped")
    table.add_column("kind", no_wrap=True)
    table.add_column("count", justify="right")
    table.add_column("why")
    for kind, count in sorted(skipped.items()):
        table.add_row(kind, str(count), SKIP_REASONS.get(kind, "see the log"))
    return table
