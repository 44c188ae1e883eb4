"""Assemble converted documents and questions, check them, and write a bundle folder."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evals.datasets.images import ImageCopier
from evals.datasets.job import ConversionJob
from evals.datasets.questions import QuestionRecord
from evals.datasets.raw import ProblemLog
from state.ids import SEPARATOR, ComponentKind, component_id
from tools.atomic_file import atomic_open
from tools.errors import DatasetFormatError

logger = logging.getLogger(__name__)

_OPTIONAL_FIELDS = ("conversation_id", "turn", "history", "gold_pages", "question_docs")
"""Optional fields left out of a question line when empty (not every dataset has them)."""


def keyed_component_id(doc_id: str, kind: str, key: str) -> str:
    """Return a component id that embeds the benchmark's own key, e.g. `<Page>::table::<uid>`.

    OTT-QA bundles name tables this way; keep it so their gold labels stay comparable.
    """
    return f"{doc_id}{SEPARATOR}{kind}{SEPARATOR}{key}"


@dataclass(frozen=True)
class ConversionReport:
    """What one adapter run produced, and what it had to skip."""

    dataset: str
    split: str
    out_dir: Path
    documents: int
    components: int
    questions: int
    problems_by_kind: Mapping[str, int] = field(default_factory=dict)
    problems: tuple[str, ...] = ()
    """The first problem messages (all are counted in problems_by_kind)."""
    stats: Mapping[str, Any] = field(default_factory=dict)
    """The content of the bundle's stats.json."""


class CorpusDraft:
    """Documents under construction, and an index from a benchmark's own ids to component ids."""

    def __init__(self) -> None:
        self.documents: dict[str, dict[str, Any]] = {}
        self._by_source: dict[tuple[str, str], str] = {}
        self._doc_of: dict[str, str] = {}

    def document(self, doc_id: str, title: str, url: str | None = None) -> dict[str, Any]:
        """Return the document with this id, creating it (title, url) when new."""
        doc = self.documents.get(doc_id)
        if doc is None:
            doc = {"doc_id": doc_id, "title": title, "url": url or "", "components": []}
            self.documents[doc_id] = doc
        elif not doc["url"] and url:
            doc["url"] = url
        return doc

    def add(
        self,
        doc_id: str,
        kind: ComponentKind,
        fields: Mapping[str, Any],
        *,
        source_id: str | None = None,
        cid: str | None = None,
    ) -> str:
        """Append a component to an existing document and return its id.

        Args:
            doc_id: A document created with `document` before.
            kind: paragraph, table or image.
            fields: The component's content (text, caption, table, image_path, links, ...).
            source_id: The benchmark's id for this item; kept on the record and indexed.
            cid: A given component id; by default the n-th of its kind (`<doc>::p0`, ...).
        """
        doc = self.documents[doc_id]
        if cid is None:
            count = sum(1 for item in doc["components"] if item["type"] == kind)
            cid = component_id(doc_id, kind, count)
        record: dict[str, Any] = {"component_id": cid, "type": kind, **fields}
        record.setdefault("links", [])
        if source_id is not None:
            record["source_id"] = source_id
            self._by_source[(kind, source_id)] = cid
        doc["components"].append(record)
        self._doc_of[cid] = doc_id
        return cid

    def lookup(self, kind: str, source_id: str) -> str | None:
        """Return the component id given to a benchmark item, if it was added."""
        return self._by_source.get((kind, source_id))

    def doc_of(self, cid: str) -> str | None:
        """Return the document holding a component, if the component exists."""
        return self._doc_of.get(cid)


def finish(
    job: ConversionJob,
    draft: CorpusDraft,
    questions: Iterable[dict[str, Any]],
    *,
    dataset: str,
    problems: ProblemLog,
    images: ImageCopier | None = None,
    extra_stats: Mapping[str, Any] | None = None,
) -> ConversionReport:
    """Check links and gold labels against the corpus, write the bundle and report on it.

    Links to documents outside the corpus are dropped (counted); a question whose gold component
    is not in the corpus is skipped as a problem, so every written gold id exists. `images` is
    the copier that placed the draft's images (None: the set has no image files to copy).

    Raises:
        DatasetFormatError: If no question survives; the message gives the problem counts.
    """
    out_dir, split = job.out_dir, job.split
    images = images or ImageCopier(out_dir, None, problems)
    _drop_empty_documents(draft)
    links, dropped = _restrict_links(draft)
    kept = _usable_questions(questions, draft, problems, dataset, split)
    images.log_summary()
    stats = {
        **_stats(draft, kept, links, dropped, dataset, split),
        **images.stats(),
        **(extra_stats or {}),
        "problems_by_kind": dict(sorted(problems.counts.items())),
    }
    _write(out_dir, draft, kept, stats)
    problems.write(out_dir)
    return _report(out_dir, stats, problems)


def _report(out_dir: Path, stats: dict[str, Any], problems: ProblemLog) -> ConversionReport:
    """Log what was written and return the report of a written bundle."""
    logger.info(
        "%s %s: wrote %d documents, %d components and %d questions to %s",
        stats["dataset"],
        stats["split"],
        stats["documents"],
        stats["components"],
        stats["questions"],
        out_dir,
    )
    return ConversionReport(
        dataset=stats["dataset"],
        split=stats["split"],
        out_dir=out_dir,
        documents=stats["documents"],
        components=stats["components"],
        questions=stats["questions"],
        problems_by_kind=dict(problems.counts),
        problems=tuple(problems.messages),
        stats=stats,
    )


def _drop_empty_documents(draft: CorpusDraft) -> None:
    """Remove documents left without components (all their items were skipped)."""
    for doc_id in [d for d, doc in draft.documents.items() if not doc["components"]]:
        del draft.documents[doc_id]


def _usable_questions(
    questions: Iterable[dict[str, Any]],
    draft: CorpusDraft,
    problems: ProblemLog,
    dataset: str,
    split: str,
) -> list[dict[str, Any]]:
    """Return the questions whose gold exists and that validate; log the problem summary.

    Raises:
        DatasetFormatError: If none is usable; the message gives the problem counts.
    """
    kept = [q for q in (_checked(q, draft, problems) for q in questions) if q is not None]
    problems.log_summary(dataset)
    if not kept:
        counts = dict(problems.counts) or "none"
        raise DatasetFormatError(
            f"{dataset} {split}: no usable question was converted (problems: "
            f"{counts}); check the raw files and the split"
        )
    return kept


def _restrict_links(draft: CorpusDraft) -> tuple[int, int]:
    kept = dropped = 0
    docs = draft.documents
    for doc in docs.values():
        for comp in doc["components"]:
            wanted = list(dict.fromkeys(comp.get("links", [])))
            comp["links"] = [d for d in wanted if d in docs and d != doc["doc_id"]]
            kept += len(comp["links"])
            dropped += len(wanted) - len(comp["links"])
            if "cell_links" in comp:
                comp["cell_links"] = [
                    [[d for d in cell if d in docs and d != doc["doc_id"]] for cell in row]
                    for row in comp["cell_links"]
                ]
    return kept, dropped


def _checked(
    question: dict[str, Any], draft: CorpusDraft, problems: ProblemLog
) -> dict[str, Any] | None:
    qid = question.get("qid")
    gold = list(dict.fromkeys(question.get("gold_components", [])))
    missing = [cid for cid in gold if draft.doc_of(cid) is None]
    if missing:
        problems.add(
            "gold_not_in_corpus",
            f"question {qid!r}: gold components {missing} are "
            "not in the converted corpus; question skipped",
        )
        return None
    docs = [draft.doc_of(cid) for cid in gold]
    payload = {**question, "gold_components": gold, "gold_docs": list(dict.fromkeys(docs))}
    try:
        record = QuestionRecord.model_validate(payload)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        problems.add(
            "invalid_question",
            f"question {qid!r}: field {where!r}: {first['msg']}; question skipped",
        )
        return None
    dumped = record.model_dump()
    for key in _OPTIONAL_FIELDS:
        if dumped.get(key) in (None, []):
            dumped.pop(key, None)
    return dumped


def _stats(
    draft: CorpusDraft,
    questions: list[dict[str, Any]],
    links: int,
    dropped: int,
    dataset: str,
    split: str,
) -> dict[str, Any]:
    comps = [c for doc in draft.documents.values() for c in doc["components"]]
    by_type = Counter(c["type"] for c in comps)
    gold_docs = {d for q in questions for d in q["gold_docs"]}
    return {
        "dataset": dataset,
        "split": split,
        "questions": len(questions),
        "questions_by_hops": _count(str(q.get("hops")) for q in questions),
        "questions_by_answer_source": _count(str(q.get("answer_source")) for q in questions),
        "questions_by_modalities": _count("+".join(q.get("modalities", [])) for q in questions),
        "documents": len(draft.documents),
        "components": len(comps),
        "components_by_type": dict(sorted(by_type.items())),
        "gold_documents_union": len(gold_docs),
        "gold_components_union": len({c for q in questions for c in q["gold_components"]}),
        "links": links,
        "links_dropped_target_not_in_corpus": dropped,
    }


def _count(values: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


def _write(
    out_dir: Path, draft: CorpusDraft, questions: list[dict[str, Any]], stats: dict[str, Any]
) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_lines(out_dir / "corpus.jsonl", (draft.documents[d] for d in sorted(draft.documents)))
    _write_lines(out_dir / "questions.jsonl", questions)
    _write_lines(out_dir / "stats.json", [stats], indent=1)


def _write_lines(
    path: Path, records: Iterable[Mapping[str, Any]], indent: int | None = None
) -> None:
    with atomic_open(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False, indent=indent) + "\n")
