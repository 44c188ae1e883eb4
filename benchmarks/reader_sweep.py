"""Re-read a run's saved rankings with other ReaderTuning values: EM/F1 on the tuning half.

    python benchmarks/reader_sweep.py RUN_DIR [RUN_DIR ...] [--system fif] [--half tune]

Each RUN_DIR is the --out of a `fif eval --answer` run; its run_config.json names the bundle
and the index. Retrieval is not re-run: the offline answerer (the reader, and the best
sentence when it finds no span) reads each question's saved ranking, once with the default
ReaderTuning and once with each constant halved and doubled (integers: two less and two
more), so a constant's effect on answers is seen alone. Choose on `tune`; quote `report`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.datasets.questions import EvalExample, load_questions
from evals.halves import HALVES, half_of
from evals.metrics import exact_match, token_f1
from evals.results_log import read_latest
from nodes.core.answering import answer_text, decide_answer
from state.reader_tuning import ReaderTuning
from state.settings import RunSettings
from tools.corpus_index import CorpusIndex, open_index
from tools.cost import CostMeter

Items = list[tuple[EvalExample, list[str]]]


def saved_rankings(run_dir: Path, system: str, half: str) -> tuple[str, Items]:
    """Return the run's index folder and (question, ranking) of one system on one half."""
    config = json.loads((run_dir / "run_config.json").read_text(encoding="utf-8"))
    loaded = load_questions(Path(config["dataset"]) / "questions.jsonl")
    examples = {ex.qid: ex for ex in loaded.examples}
    items = [
        (examples[qid], list(line["ranking"]))
        for (qid, name), line in read_latest(run_dir / "results.jsonl").items()
        if name == system and qid in examples and half_of(qid) == half and examples[qid].answers
    ]
    return str(config["index"]), items


def scores(index_dir: str, index: CorpusIndex, items: Items, reader: ReaderTuning) -> str:
    """Return 'EM a/n F1 f' of the offline answers to the items with this reader tuning."""
    context = RunSettings(index_dir=index_dir, reader=reader)
    em = f1 = 0.0
    for example, ranking in items:
        decided = decide_answer(index, example.question, ranking, context, CostMeter())
        answer = answer_text(decided)
        em += exact_match(answer or "", example.answers)
        f1 += token_f1(answer or "", example.answers)
    return f"EM {em:.0f}/{len(items)} F1 {f1 / max(len(items), 1):.3f}"


def variants() -> Iterator[tuple[str, ReaderTuning]]:
    """Yield the default and each constant halved and doubled (clipped to its bounds)."""
    yield "default", ReaderTuning()
    default = ReaderTuning()
    for field, info in ReaderTuning.model_fields.items():
        value: Any = getattr(default, field)
        others = (value - 2, value + 2) if isinstance(value, int) else (value / 2, value * 2)
        upper = next((m.le for m in info.metadata if getattr(m, "le", None) is not None), None)
        for other in others:
            other = min(other, upper) if upper is not None else other
            try:
                if other != value:
                    yield f"{field}={other:g}", ReaderTuning(**{field: other})
            except ValidationError:
                continue  # below the constant's lower bound


def main() -> None:
    """Print one line per reader tuning with EM/F1 on each run's chosen half."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="RUN_DIR of fif eval --answer")
    parser.add_argument("--system", default="fif")
    parser.add_argument("--half", choices=HALVES, default="tune")
    args = parser.parse_args()
    runs = []
    for run_dir in args.runs:
        index_dir, items = saved_rankings(run_dir, args.system, args.half)
        runs.append((run_dir.name, index_dir, open_index(index_dir), items))
    for label, reader in variants():
        cells = [f"{name}: {scores(d, i, items, reader)}" for name, d, i, items in runs]
        print(f"{label:32} " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
