"""Filings FiF has never seen: per-fold page R@5 and right filing first (docs/filings.md).

Usage:
    python benchmarks/filings_bench.py BUNDLE INDEX --raw RAW [--out runs/filings]
        [--systems anchor,dense,pages,extraction-main,extraction-routed,extraction,...]
        [--annotate] [--graph-only]

BUNDLE is `fif convert financebench RAW BUNDLE`, INDEX its `fif build`, RAW the upstream
folder: its `pdfs/` feed the crude anchor and `--annotate` (reads the filing identities of
an index built before they existed into its graph, without re-embedding); its document
table only checks the identities. `--graph-only` needs just the index's graph.json (a build
still embedding): the page ranking runs without its chunk view, and only `pages` is run.

Prints (and writes OUT/filings.md): identity agreement, the three tuning rounds of the page
weights with the held-out view test, then page R@5 per fold of each system in both
settings, the worst fold, and the right filing first in the shared store. Each fold is
scored with the weights tuned on the other two; FiF and the extraction loop run three ways:
`*-main` with routing and page order off, `*-routed` with routing only, and with both.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus_builder.filing_identity import annotate_graph  # noqa: E402
from evals.filing_eval import (  # noqa: E402
    FilingQuestion,
    PageSystem,
    evaluate,
    load_questions,
    table_rows,
)
from evals.filing_tuning import Round, Views, system_rounds, tune, view_test  # noqa: E402
from tools.filing_catalog import filings_of, route_question  # noqa: E402
from tools.filing_identity import FilingIdentity  # noqa: E402
from tools.filing_routing import company_names  # noqa: E402
from tools.layered_graph import LayeredGraph  # noqa: E402
from tools.page_fusion import PageFusion  # noqa: E402
from tools.page_ranking import ChunkScores, PageViews, PageWeights, fuse_views, page_views  # noqa: E402

SETTINGS = (("shared", False), ("single", True))
TABLE_FORMS = {
    "10k": {"10-K", "annual report"},
    "10k_annualreport": {"annual report", "10-K"},
    "10q": {"10-Q"},
    "8k": {"8-K"},
    "earnings": {"earnings release"},
}
"""FinanceBench's doc_type -> the forms the identity reader may call it."""


def agreement(filings: dict[str, FilingIdentity], table: Path) -> list[str]:
    """Compare identities with FinanceBench's document table (it never feeds them)."""
    counts = {"company": 0, "form": 0, "fiscal year": 0, "year (fiscal or published)": 0}
    total, lines = 0, []
    for line in table.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        identity = filings.get(record["doc_name"])
        if identity is None:
            continue
        total += 1
        company = " ".join(str(record["company"]).lower().split())
        names = company_names(identity.registrant)
        year = int(record["doc_period"])
        published = int(identity.published[:4] or 0)
        checks = {
            "company": company in names or company.replace(" ", "") in names,
            "form": identity.form in TABLE_FORMS.get(str(record["doc_type"]).lower(), set()),
            "fiscal year": year == identity.fiscal_year,
            "year (fiscal or published)": year in {identity.fiscal_year, published},
        }
        for name, ok in checks.items():
            counts[name] += ok
            if not ok:
                lines.append(f"- {record['doc_name']}: {name} differs: read {identity}")
    summary = ", ".join(f"{name} {n}/{total}" for name, n in counts.items())
    return [f"Identity agreement with the document table: {summary}", *lines]


def views_of(
    graph: LayeredGraph, questions: list[FilingQuestion], scores: Callable[[str], ChunkScores]
) -> Views:
    """Compute each question's page views in both settings (routing decides shared docs)."""
    filings = list(filings_of(graph))
    out: dict[str, dict[str, PageViews]] = {"shared": {}, "single": {}}
    for q in questions:
        route = route_question(graph, q.question)
        shared = list(route.best()) if route else filings
        out["shared"][q.qid] = page_views(graph, q.question, shared, route, scores(q.question))
        out["single"][q.qid] = page_views(
            graph, q.question, list(q.docs), route, scores(q.question)
        )
    return out


def tuning_report(views: Views, questions: list[FilingQuestion], done: list[Round]) -> list[str]:
    """Return the rounds (weights chosen on two folds, hits on the third) and the view test."""
    lines = ["", "| held out | tuned on | weights | held-out hits shared | single |"]
    lines.append("|---|---|---|---|---|")
    for one in done:
        shared, single = one.held_out_hits["shared"], one.held_out_hits["single"]
        weights = ", ".join(f"{k} {v}" for k, v in vars(one.weights).items())
        lines.append(
            f"| {one.held_out} | {'+'.join(one.tuned_on)} | {weights} | {shared} | {single} |"
        )
    gains = view_test(views, questions, done)
    lines += ["", "Held-out hits each view gains (pooled over rounds and settings): " + str(gains)]
    return lines


def page_system(views: Views, by_fold: dict[str, PageWeights]) -> PageSystem:
    """Return the page ranking alone, each fold scored with the weights of its round."""

    def system(q: FilingQuestion, single: bool) -> list[str]:
        ranked = fuse_views(views["single" if single else "shared"][q.qid], by_fold[q.fold])
        return [page.key for page in ranked[:10]]

    return system


class PageOrder:
    """Each system's page_weights per fold: the views' weights and its own order's weight.

    The system weight of a round is chosen on its tuning folds from the system's routed
    run (`<system>-routed`, run first), fused with the page ranking as the system would;
    without that run the default `PageFusion.system` is used.
    """

    def __init__(
        self,
        views: Views,
        questions: list[FilingQuestion],
        by_fold: dict[str, PageWeights],
        own: dict[str, dict[str, dict[str, list[str]]]],
        report: list[str],
    ) -> None:
        self.views, self.questions, self.by_fold, self.own = views, questions, by_fold, own
        self.report = report

    def of(self, system: str) -> Callable[[str], dict[str, float]]:
        """Return fold -> page_weights for one system (its weights chosen on first use)."""
        chosen: dict[str, float] = {}

        def settings(fold: str) -> dict[str, float]:
            routed = self.own.get(f"{system}-routed")
            if not chosen and routed:
                chosen.update(system_rounds(self.views, self.questions, routed, self.by_fold))
                self.report.append(f"\n{system}: weight of its own page order per fold {chosen}")
            weight = chosen.get(fold, PageFusion.system)
            return {**{k: float(v) for k, v in vars(self.by_fold[fold]).items()}, "system": weight}

        return settings


def main() -> None:
    """Run the benchmark and print its markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bundle", type=Path)
    parser.add_argument("index", type=Path)
    parser.add_argument("--raw", type=Path, required=True)
    parser.add_argument("--out", type=Path, default=Path("runs/filings"))
    parser.add_argument(
        "--systems",
        default="anchor,dense,pages,extraction-main,extraction-routed,extraction,"
        "fif-main,fif-routed,fif",
    )
    parser.add_argument("--annotate", action="store_true")
    parser.add_argument("--graph-only", action="store_true")
    args = parser.parse_args()
    if args.annotate:
        annotate_graph(args.index / "graph.json", args.raw / "pdfs")
    questions = load_questions(args.bundle)
    if args.graph_only:
        graph, systems = LayeredGraph.load(args.index / "graph.json"), None
        scores: Callable[[str], ChunkScores] = lambda question: lambda ids, layer: {}  # noqa: E731
    else:
        from filings_systems import index_scores, system_table

        graph, scores = index_scores(args.index)
    report = agreement(filings_of(graph), args.raw / "financebench_document_information.jsonl")
    views = views_of(graph, questions, scores)
    done = tune(views, questions)
    report += tuning_report(views, questions, done)
    by_fold = {one.held_out: one.weights for one in done}
    systems = {"pages": page_system(views, by_fold)}
    own: dict[str, dict[str, dict[str, list[str]]]] = {}
    if not args.graph_only:
        settings = PageOrder(views, questions, by_fold, own, report)
        systems.update(system_table(args.index, args.raw, args.out, settings.of))
    results = []
    args.out.mkdir(parents=True, exist_ok=True)
    for name in [s for s in args.systems.split(",") if s in systems]:
        for setting, single in SETTINGS:
            figures, rankings = evaluate(systems[name], questions, single)
            own.setdefault(name, {})[setting] = rankings
            results.append((name, setting, figures))
            (args.out / f"{name}_{setting}.json").write_text(json.dumps(rankings), encoding="utf-8")
            print(f"{name} {setting}: {figures.recall['all']:.3f}", file=sys.stderr, flush=True)  # noqa: T201
    report += ["", *table_rows(results)]
    (args.out / "filings.md").write_text("\n".join(report) + "\n", encoding="utf-8")
    print("\n".join(report))  # noqa: T201


if __name__ == "__main__":
    main()
