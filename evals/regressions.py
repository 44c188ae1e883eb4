"""Per-question regressions: a baseline had a gold component in its top k, the candidate none.

For each (baseline, candidate) pair (by default every other system of the run against `fif`)
the report lists those questions, names each gold component the baseline ranked in its top k
with its rank there (and the candidate's rank, if it ranked it at all), and shows the
candidate's step trace from `OUT/traces.jsonl`: subquery, strategy, anchor, what each step
found (and whether the lost gold was among it), success and the evaluator's reason. The target
count is zero. Written as `OUT/regressions.json` and `OUT/regressions.md`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evals.datasets.questions import EvalExample
from evals.results_log import Key

REGRESSIONS_JSON = "regressions.json"
REGRESSIONS_MD = "regressions.md"
REGRESSION_K = 10
"""A baseline 'had' a gold component when it ranked it in its top REGRESSION_K."""
DEFAULT_CANDIDATE = "fif"
"""The system every other one is compared against unless another is named."""
REASON_CHARS = 90
"""Characters of an evaluator's reason shown per trace step."""


@dataclass(frozen=True)
class LostGold:
    """A gold component the baseline ranked in its top k and the candidate did not."""

    component_id: str
    baseline_rank: int
    """1-based rank in the baseline's ranking."""
    candidate_rank: int | None
    """1-based rank in the candidate's ranking (beyond k), None if it did not rank it."""


@dataclass(frozen=True)
class Regression:
    """One question a baseline hit at k and the candidate missed, with the candidate's trace."""

    qid: str
    question: str
    baseline: str
    candidate: str
    lost: tuple[LostGold, ...]
    trace: tuple[dict[str, Any], ...]
    """The candidate's step records for this question (empty when none were stored)."""


def default_pairs(systems: Sequence[str], candidate: str) -> list[tuple[str, str]]:
    """Return (baseline, candidate) for every other system; none if the candidate did not run."""
    if candidate not in systems:
        return []
    return [(name, candidate) for name in systems if name != candidate]


def _rank(ranking: Sequence[str], component_id: str) -> int | None:
    return ranking.index(component_id) + 1 if component_id in ranking else None


def find_regressions(
    results: Mapping[Key, Mapping[str, Any]],
    examples: Sequence[EvalExample],
    pair: tuple[str, str],
    traces: Mapping[Key, Mapping[str, Any]],
    k: int = REGRESSION_K,
) -> list[Regression]:
    """Return the questions where the baseline has a gold in its top k and the candidate none.

    Questions either system has no line for are left out; a failed line ranks nothing.
    """
    baseline, candidate = pair
    found: list[Regression] = []
    for example in examples:
        base_line = results.get((example.qid, baseline))
        cand_line = results.get((example.qid, candidate))
        if base_line is None or cand_line is None:
            continue
        gold = set(example.gold)
        base = list(base_line.get("ranking") or [])
        cand = list(cand_line.get("ranking") or [])
        hits = [cid for cid in base[:k] if cid in gold]
        if not hits or gold & set(cand[:k]):
            continue
        lost = tuple(LostGold(cid, base.index(cid) + 1, _rank(cand, cid)) for cid in hits)
        trace = (traces.get((example.qid, candidate)) or {}).get("trace") or []
        found.append(
            Regression(example.qid, example.question, baseline, candidate, lost, tuple(trace))
        )
    return found


def regressions_payload(
    pairs: Sequence[tuple[str, str]], regressions: Sequence[Regression], k: int = REGRESSION_K
) -> dict[str, Any]:
    """Return the regressions.json document: k, a count per pair, and every regression."""
    counts = [
        {"baseline": b, "candidate": c, "count": sum(r.baseline == b for r in regressions)}
        for b, c in pairs
    ]
    return {"k": k, "pairs": counts, "regressions": [asdict(r) for r in regressions]}


def regressions_markdown(
    pairs: Sequence[tuple[str, str]], regressions: Sequence[Regression], k: int = REGRESSION_K
) -> str:
    """Return the report section: a count per pair, then each question with the trace."""
    lines = [f"## Regressions: gold in the baseline's top {k}, none in the candidate's", ""]
    lines += ["| baseline | candidate | questions |", "|---|---|---|"]
    lines += [f"| {b} | {c} | {sum(r.baseline == b for r in regressions)} |" for b, c in pairs]
    for regression in regressions:
        lines += ["", *_question_lines(regression, k)]
    return "\n".join(lines) + "\n"


def _question_lines(regression: Regression, k: int) -> list[str]:
    """Return one regression: the question, what was lost at which ranks, the step trace."""
    base, cand = regression.baseline, regression.candidate
    lost = "; ".join(
        f"`{g.component_id}` ({base} rank {g.baseline_rank}, {cand} "
        + (f"rank {g.candidate_rank})" if g.candidate_rank else "not in its ranking)")
        for g in regression.lost
    )
    lines = [f"### {regression.qid} ({base} → {cand}): {regression.question}", "", f"lost: {lost}"]
    if not regression.trace:
        return [*lines, "", f"({cand} stored no step trace)"]
    gold = {g.component_id for g in regression.lost}
    lines += ["", "| step | subquery | strategy | anchor | found | lost gold | success | reason |"]
    lines.append("|---|---|---|---|---|---|---|---|")
    for number, step in enumerate(regression.trace, start=1):
        lines.append(_step_row(number, step, gold))
    return lines


def _step_row(number: int, step: Mapping[str, Any], gold: set[str]) -> str:
    """Return one trace step as a table row (works for FiF steps and, sparsely, others)."""
    strategy = step.get("strategy")
    how = "/".join(map(str, strategy.values())) if isinstance(strategy, Mapping) else ""
    components = [str(c) for c in step.get("components") or []]
    seen = [f"`{c}` @{components.index(c) + 1}" for c in sorted(gold) if c in components]
    cells = [
        str(step.get("step", number)),
        _cell(step.get("subquery", step.get("node", ""))),
        how,
        _cell(step.get("anchor")),
        f"{len(step.get('documents') or [])} docs, {len(components)} comps",
        ", ".join(seen) or "–",
        _cell(step.get("success")),
        _cell(str(step.get("reason", ""))[:REASON_CHARS]),
    ]
    return "| " + " | ".join(cells) + " |"


def _cell(value: Any) -> str:
    return "–" if value is None else str(value).replace("|", "\\|").replace("\n", " ")


def write_regressions(
    out_dir: Path,
    pairs: Sequence[tuple[str, str]],
    regressions: Sequence[Regression],
    k: int = REGRESSION_K,
) -> tuple[Path, Path, str]:
    """Write OUT/regressions.json and OUT/regressions.md; return both paths and the Markdown."""
    markdown = regressions_markdown(pairs, regressions, k)
    json_path, md_path = out_dir / REGRESSIONS_JSON, out_dir / REGRESSIONS_MD
    payload = regressions_payload(pairs, regressions, k)
    json_path.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    md_path.write_text(markdown, encoding="utf-8")
    return json_path, md_path, markdown
