"""Convert OTT-QA or HybridQA (wenhuchen/OTT-QA, wenhuchen/HybridQA) into a bundle.

Questions (`released_data/<split>.traced.json`, HybridQA also `<split>.json`; a JSON list):
`question_id`, `question`, `table_id`, `answer-text` and `answer-node: [[cell_text, [row, col],
"/wiki/Link" | null, "passage" | "table"]]`. Tables (`data/traindev_tables_tok/<table_id>.json`;
HybridQA: `WikiTables-WithLinks/tables_tok/`): `url`, `title`, `header` and `data` as
`[[text, [links]]]`, `section_title`, `section_text`, `uid`, `intro`. Linked passages
(`data/traindev_request_tok/<table_id>.json`): `{"/wiki/Title": passage}`.

Like the shared `ottqa-dev200` bundle: one document per table page (the intro as `<doc>::p0`,
each table as `<doc>::table::<uid>`), one per linked passage (`<Title>::p0`); only questions
whose traced answer node is unique and verifiable are kept; `gold_cells` locate the answer cell.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

from evals.datasets.bundle import ConversionReport, CorpusDraft, finish, keyed_component_id
from evals.datasets.job import ConversionJob
from evals.datasets.progress import record_read
from evals.datasets.raw import (
    ProblemLog,
    doc_id_from_url,
    find_raw_dir,
    find_raw_file,
    load_json,
    str_field,
    title_from_doc_id,
)
from state.ids import component_id
from tools.errors import DatasetFormatError

logger = logging.getLogger(__name__)

TABLE_DIRS = (
    "data/traindev_tables_tok",
    "traindev_tables_tok",
    "WikiTables-WithLinks/tables_tok",
    "tables_tok",
)
REQUEST_DIRS = (
    "data/traindev_request_tok",
    "traindev_request_tok",
    "WikiTables-WithLinks/request_tok",
    "request_tok",
)
WIKI = "https://en.wikipedia.org/wiki/"


class _Store:
    """Read `<folder>/<table_id>.json` files once each."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._cache: dict[str, Any] = {}

    def get(self, table_id: str) -> Any:
        """Return the parsed file of a table id, or None if there is none inside the folder."""
        if table_id not in self._cache:
            path = (self.folder / f"{table_id}.json").resolve()
            inside = path.is_relative_to(self.folder.resolve())
            self._cache[table_id] = load_json(path) if inside and path.is_file() else None
        return self._cache[table_id]


def convert(job: ConversionJob) -> ConversionReport:
    """Convert one OTT-QA/HybridQA split with traced answer nodes into a bundle in job.out_dir.

    Args:
        job: raw_dir is a checkout of the OTT-QA (or HybridQA) repository; split names the
            `<split>.traced.json` file (dev or train); limit keeps the first usable questions
            and the tables they use; images_dir is unused (these sets have no images).

    Raises:
        ConfigError: If limit < 1.
        DatasetFormatError: If a raw file or folder is missing, or no question converts.
    """
    job.check("OTT-QA")
    question_file, entries, tables, requests = _open_raw(job.raw_dir, job.split)
    problems = ProblemLog()
    rejected: Counter[str] = Counter()
    accepted = _accept(entries, question_file, tables, requests, job.limit, problems, rejected)
    if rejected:
        logger.info("%s: questions left out by design: %s", question_file, dict(rejected))
    draft, table_cids = _corpus(accepted, tables, requests)
    questions = [_question(item, table_cids[item["table_id"]]) for item in accepted]
    extra = {
        "source": {"repo": "wenhuchen/OTT-QA", "questions": question_file.name},
        "limit": job.limit,
        "questions_in_file": len(entries),
        "tables": len(table_cids),
        "rejected": dict(sorted(rejected.items())),
    }
    return finish(job, draft, questions, dataset="ottqa", problems=problems, extra_stats=extra)


def _open_raw(raw_dir: Path, split: str) -> tuple[Path, list[Any], _Store, _Store]:
    """Locate the split's question file, read it, and open the tables and passages folders."""
    names = [
        f"released_data/{split}.traced.json",
        f"{split}.traced.json",
        f"released_data/{split}.json",
    ]
    question_file = find_raw_file(raw_dir, names, f"{split} questions with traced answer nodes")
    tables = _Store(find_raw_dir(raw_dir, TABLE_DIRS, "tables"))
    requests = _Store(find_raw_dir(raw_dir, REQUEST_DIRS, "linked passages"))
    entries = load_json(question_file)
    if not isinstance(entries, list):
        raise DatasetFormatError(
            f"{question_file}: expected a JSON list of questions, got "
            f"{type(entries).__name__}; download it again"
        )
    return question_file, entries, tables, requests


def _corpus(
    accepted: list[dict[str, Any]], tables: _Store, requests: _Store
) -> tuple[CorpusDraft, dict[str, str]]:
    """Add the accepted questions' tables and linked passages; return them and table_id → id."""
    draft = CorpusDraft()
    table_ids = list(dict.fromkeys(item["table_id"] for item in accepted))
    table_cids = {tid: _add_table(draft, tid, tables.get(tid)) for tid in table_ids}
    for tid in table_ids:
        _add_passages(draft, requests.get(tid) or {})
    return draft, table_cids


def _accept(
    entries: list[Any],
    path: Path,
    tables: _Store,
    requests: _Store,
    limit: int | None,
    problems: ProblemLog,
    rejected: Counter[str],
) -> list[dict[str, Any]]:
    """Return the usable questions, each with its single verified answer node resolved."""
    accepted: list[dict[str, Any]] = []
    for index, entry in enumerate(entries):
        record_read()
        where = f"{path} item {index}"
        fields = ("question_id", "question", "table_id", "answer-text")
        if not isinstance(entry, dict) or not all(isinstance(entry.get(f), str) for f in fields):
            problems.add("bad_raw_record", f"{where}: not a question with string {fields}; skipped")
            continue
        nodes = entry.get("answer-node")
        if not isinstance(nodes, list) or len(nodes) != 1:
            rejected["answer_nodes=0" if not nodes else "answer_nodes=2+"] += 1
            continue
        table = tables.get(entry["table_id"])
        if not isinstance(table, dict) or not isinstance(table.get("data"), list):
            rejected["table_not_found"] += 1
            continue
        node = _verified_node(nodes[0], table, requests.get(entry["table_id"]) or {})
        if node is None:
            rejected["answer_node_unverifiable"] += 1
            continue
        accepted.append({**entry, **node})
        if limit is not None and len(accepted) >= limit:
            break
    return accepted


def _verified_node(
    node: object, table: dict[str, Any], passages: dict[str, Any]
) -> dict[str, Any] | None:
    """Return row, col, cell text and link of an answer node that matches the table, else None."""
    if not (
        isinstance(node, list)
        and len(node) == 4
        and isinstance(node[1], list)
        and len(node[1]) == 2
    ):
        return None
    text, (row, col), link, source = node[0], node[1], node[2], node[3]
    data = table["data"]
    if not (
        isinstance(row, int)
        and isinstance(col, int)
        and 0 <= row < len(data)
        and isinstance(data[row], list)
        and 0 <= col < len(data[row])
    ):
        return None
    cell_text, cell_links = _cell(data[row][col])
    found = {
        "row": row,
        "col": col,
        "cell_text": cell_text,
        "node_text": str(text),
        "source": source,
    }
    if source == "table" and cell_text.strip() == str(text).strip():
        return {**found, "link": None}
    if source == "passage" and link in cell_links and passages.get(link):
        return {**found, "link": doc_id_from_url(link)}
    return None


def _cell(cell: object) -> tuple[str, list[str]]:
    if isinstance(cell, list) and cell:
        links = cell[1] if len(cell) > 1 and isinstance(cell[1], list) else []
        return str(cell[0]), [str(link) for link in links]
    return str(cell), []


def _add_table(draft: CorpusDraft, table_id: str, table: dict[str, Any]) -> str:
    doc_id = doc_id_from_url(table.get("url"), table.get("title")) or table_id
    title = str_field(table, "title") or title_from_doc_id(doc_id)
    doc = draft.document(doc_id, title, str_field(table, "url") or WIKI + doc_id)
    intro = table.get("intro")
    if isinstance(intro, str) and intro.strip() and not _has_paragraph(doc):
        draft.add(doc_id, "paragraph", {"text": intro.strip()})
    rows = [[_cell(cell) for cell in row] for row in table["data"] if isinstance(row, list)]
    cell_links = [
        [[d for d in map(doc_id_from_url, links) if d] for _, links in row] for row in rows
    ]
    section = table.get("section_title")
    fields: dict[str, Any] = {
        "caption": f"{title} -- {section}" if isinstance(section, str) and section else title,
        "table": {
            "header": [_cell(h)[0] for h in table.get("header") or []],
            "rows": [[text for text, _ in row] for row in rows],
        },
        "links": list(dict.fromkeys(d for row in cell_links for cell in row for d in cell)),
        "cell_links": cell_links,
        "table_uid": table.get("uid") or table_id,
    }
    if isinstance(table.get("section_text"), str) and table["section_text"].strip():
        fields["text"] = table["section_text"].strip()
    cid = keyed_component_id(doc_id, "table", table_id)
    return draft.add(doc_id, "table", fields, source_id=table_id, cid=cid)


def _has_paragraph(doc: dict[str, Any]) -> bool:
    return any(comp["type"] == "paragraph" for comp in doc["components"])


def _add_passages(draft: CorpusDraft, passages: dict[str, Any]) -> None:
    """Add each linked passage as its page's `p0`, unless the page already has a paragraph."""
    for link, text in passages.items():
        doc_id = doc_id_from_url(link)
        if doc_id is None or not isinstance(text, str) or not text.strip():
            continue
        doc = draft.document(doc_id, title_from_doc_id(doc_id), WIKI + doc_id)
        if not _has_paragraph(doc):
            draft.add(doc_id, "paragraph", {"text": text.strip()}, source_id=link)


def _question(item: dict[str, Any], table_cid: str) -> dict[str, Any]:
    gold = [table_cid]
    if item["source"] == "passage":
        gold.append(component_id(item["link"], "paragraph", 0))
    # cell_text is the table cell's text; node_text is the traced node's (for passage nodes
    # the linked page's title, which the shared ottqa-dev200 bundle stored as cell_text).
    cell = {
        "component_id": table_cid,
        "row": item["row"],
        "col": item["col"],
        "cell_text": item["cell_text"],
        "node_text": item["node_text"],
        "link": item["link"],
    }
    return {
        "qid": item["question_id"],
        "question": item["question"],
        "answers": [item["answer-text"]],
        "gold_components": gold,
        "hops": 2 if item["source"] == "passage" else 1,
        "modalities": ["table", "text"] if item["source"] == "passage" else ["table"],
        "answer_source": item["source"],
        "gold_cells": [cell],
        "table_id": item["table_id"],
    }
