"""Per-question rows of an eval run: the question, its gold, and each system's hit and rank.

The run's `run_config.json` names the dataset it evaluated (its `questions.jsonl` gives the
question text and gold components) and the index it ran on, which the page uses to open
components, its traces (`traces.jsonl`: which pairs kept one) and ask again on the right
index (the served index whose folder it is). A
dataset that moved shows the rows without question text, a warning says why.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evals.datasets.questions import load_questions
from evals.results_log import RESULTS_FILE, parse_lines
from evals.run_config import RUN_CONFIG_FILE
from evals.runner import QUESTIONS_FILE, TRACES_FILE
from serve.eval_files import MAX_RESULT_LINES, inside

logger = logging.getLogger(__name__)

RANK_DEPTH = 100
"""Ranks past this are reported as a miss of the ranking shown."""


def question_rows(runs_dir: Path, name: str, indices: Mapping[str, Path]) -> dict[str, Any]:
    """Return one row per question of run `name`: question, gold, systems' hit and rank.

    `indices` maps served index names to their folders; the run's index gets its name.

    Raises:
        OutsideFolderError: If `name` leaves the runs folder.
    """
    folder = inside(runs_dir, name)
    config = _config(folder)
    examples = _examples(Path(str(config.get("dataset", ""))) / QUESTIONS_FILE)
    index = _served_name(config, indices)
    rows: dict[str, dict[str, Any]] = {}
    systems: dict[str, None] = {}
    traced = _traced(folder / TRACES_FILE)
    for record in _latest(folder / RESULTS_FILE):
        qid, system = str(record["qid"]), str(record["system"])
        systems[system] = None
        example = examples.get(qid, {})
        row = rows.setdefault(
            qid,
            {"qid": qid, "question": example.get("question", ""), "gold": example.get("gold", [])},
        )
        outcome = _outcome(record, row["gold"])
        row.setdefault("systems", {})[system] = outcome | {"traced": (qid, system) in traced}
    return {"name": name, "index": index, "systems": list(systems), "rows": list(rows.values())}


def run_index(runs_dir: Path, name: str, indices: Mapping[str, Path]) -> str | None:
    """Return the served name of the index run `name` ran on (None: not served here).

    Raises:
        OutsideFolderError: If `name` leaves the runs folder.
    """
    return _served_name(_config(inside(runs_dir, name)), indices)


def _served_name(config: Mapping[str, Any], indices: Mapping[str, Path]) -> str | None:
    ran_on = Path(str(config.get("index", ""))).resolve() if config.get("index") else None
    return next((n for n, path in indices.items() if path.resolve() == ran_on), None)


def _config(folder: Path) -> dict[str, Any]:
    path = folder / RUN_CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        logger.warning("%s is unreadable (%s); rows show without questions", path, err)
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _examples(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        logger.warning("questions of the run not found at %s; rows show ids only", path)
        return {}
    loaded = load_questions(path)
    return {
        e.qid: {"question": e.question, "gold": list(e.gold_components)} for e in loaded.examples
    }


def _traced(path: Path) -> set[tuple[str, str]]:
    """Return the (qid, system) pairs whose step trace the run kept."""
    if not path.is_file():
        return set()
    records, _ = parse_lines(path.read_bytes(), path.name)
    return {(str(r.get("qid")), str(r.get("system"))) for r in records}


def _latest(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    records, _ = parse_lines(path.read_bytes(), path.name)
    latest = {(r["qid"], r["system"]): r for r in records}
    return list(latest.values())[:MAX_RESULT_LINES]


def _outcome(record: Mapping[str, Any], gold: list[str]) -> dict[str, Any]:
    """Return a system's hit (None without gold or on error), the gold's rank and its top."""
    ranking = [
        str(e.get("component_id", "")) if isinstance(e, dict) else str(e)
        for e in (record.get("ranking") or [])[:RANK_DEPTH]
    ]
    rank = next((n for n, cid in enumerate(ranking, start=1) if cid in set(gold)), None)
    error = record.get("error")
    return {
        "hit": None if error or not gold else rank is not None,
        "rank": rank,
        "top": ranking[:3],
        "answer": record.get("answer"),
        "error": error,
        "latency_ms": record.get("latency_ms"),
    }
