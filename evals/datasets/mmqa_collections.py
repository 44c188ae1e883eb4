"""Turn MultimodalQA's texts/tables/images collections into one document per Wikipedia page.

MMQA_texts, MMQA_tables and MMQA_images (allenai/multimodalqa, README "Dataset Format") each
hold one item per line with `id`, `title` and `url`; texts add `text`, images `path`, and tables
`table: {table_name, header: [{column_name, ...}], table_rows: [[{text, links: [{wiki_title,
url}]}]]}`. MMCoQA ships the same collections as plain JSONL, so both adapters use this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.datasets.bundle import CorpusDraft
from evals.datasets.images import ImageCopier, find_image_file
from evals.datasets.job import ConversionJob
from evals.datasets.raw import ProblemLog, doc_id_from_url, find_raw_file, iter_jsonl

_PREFIX = "multimodalqa_final_dataset_pipeline_camera_ready_"
IMAGE_SUBFOLDERS = ("", "final_dataset_images/")
"""Where an item's `path` may sit under the images folder (the zip unpacks to the second)."""


def _names(kind: str) -> tuple[str, ...]:
    return (
        f"MMQA_{kind}.jsonl.gz",
        f"MMQA_{kind}.jsonl",
        f"{_PREFIX}MMQA_{kind}.jsonl",
        f"{_PREFIX}MMQA_{kind}.jsonl.gz",
    )


@dataclass(frozen=True)
class Collections:
    """The three collection files of one MMQA-style download."""

    texts: Path
    tables: Path
    images: Path

    @classmethod
    def locate(cls, raw_dir: Path) -> Collections:
        """Return the collection files found in raw_dir (gzipped or not).

        Raises:
            DatasetFormatError: If one of the three is missing.
        """
        return cls(
            find_raw_file(raw_dir, _names("texts"), "MMQA texts collection"),
            find_raw_file(raw_dir, _names("tables"), "MMQA tables collection"),
            find_raw_file(raw_dir, _names("images"), "MMQA images collection"),
        )


def _items(
    path: Path, kind: str, problems: ProblemLog
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Yield `(where, doc_id, record)` for items with a string id and a page."""
    for where, record in iter_jsonl(path, problems):
        item_id = record.get("id")
        doc_id = doc_id_from_url(record.get("url"), record.get("title"))
        if not isinstance(item_id, str) or not item_id or doc_id is None:
            problems.add(
                "bad_raw_record",
                f"{where}: {kind} item without a string 'id' or without 'url'/'title'; skipped",
            )
            continue
        yield where, doc_id, record


def select_pages(collections: Collections, wanted_ids: set[str]) -> set[str]:
    """Return the pages holding any wanted item, plus the pages their tables link to.

    A first, silent pass: problems are reported by `load_pages`.
    """
    quiet = ProblemLog(silent=True)
    pages: set[str] = set()
    for path, kind in ((collections.texts, "text"), (collections.images, "image")):
        pages.update(doc for _, doc, rec in _items(path, kind, quiet) if rec["id"] in wanted_ids)
    for _, doc_id, record in _items(collections.tables, "table", quiet):
        if record["id"] in wanted_ids:
            pages.add(doc_id)
            fields = table_fields(record, "", quiet)
            pages.update(fields["links"] if fields else [])
    return pages


def load_corpus(
    job: ConversionJob, collections: Collections, wanted: set[str], problems: ProblemLog
) -> tuple[CorpusDraft, ImageCopier]:
    """Load a new draft: every page, or with a limit the pages `select_pages` picks for wanted.

    Returns:
        The draft and the image copier that copied its images (for `finish`).
    """
    pages = None if job.limit is None else select_pages(collections, wanted)
    draft = CorpusDraft()
    images = ImageCopier(job.out_dir, job.images_dir, problems)
    load_pages(collections, draft, pages, images, problems)
    return draft, images


def load_pages(
    collections: Collections,
    draft: CorpusDraft,
    pages: set[str] | None,
    images: ImageCopier,
    problems: ProblemLog,
) -> None:
    """Add every item of the given pages (all pages when None) to the draft, page by page.

    Components keep the MMQA item id as `source_id`; look them up with
    `draft.lookup(kind, mmqa_id)` for kind paragraph, table or image.
    """
    for where, doc_id, record in _items(collections.texts, "text", problems):
        if pages is not None and doc_id not in pages:
            continue
        text = record.get("text")
        if not isinstance(text, str) or not text.strip():
            problems.add(
                "bad_raw_record", f"{where}: text item {record['id']!r} has no text; skipped"
            )
            continue
        _document(draft, doc_id, record)
        draft.add(doc_id, "paragraph", {"text": text.strip()}, source_id=record["id"])
    for where, doc_id, record in _items(collections.tables, "table", problems):
        if pages is not None and doc_id not in pages:
            continue
        fields = table_fields(record, where, problems)
        if fields is not None:
            _document(draft, doc_id, record)
            draft.add(doc_id, "table", fields, source_id=record["id"])
    for where, doc_id, record in _items(collections.images, "image", problems):
        if pages is None or doc_id in pages:
            _add_image(draft, doc_id, record, where, images, problems)


def _document(draft: CorpusDraft, doc_id: str, record: dict[str, Any]) -> None:
    title = record.get("title") if isinstance(record.get("title"), str) else None
    url = record.get("url") if isinstance(record.get("url"), str) else None
    draft.document(doc_id, title or doc_id.replace("_", " "), url)


def _add_image(
    draft: CorpusDraft,
    doc_id: str,
    record: dict[str, Any],
    where: str,
    images: ImageCopier,
    problems: ProblemLog,
) -> None:
    path = record.get("path")
    if not isinstance(path, str) or not path.strip():
        problems.add(
            "bad_raw_record", f"{where}: image item {record['id']!r} has no 'path'; skipped"
        )
        return
    source = None
    if images.enabled and images.images_dir is not None:
        source = find_image_file(images.images_dir, [f"{sub}{path}" for sub in IMAGE_SUBFOLDERS])
    _document(draft, doc_id, record)
    title = draft.documents[doc_id]["title"]
    # MMQA images have no captions; the page title keeps them findable (and the corpus builder
    # keeps an image without a file only if it has some text).
    draft.add(
        doc_id,
        "image",
        {"caption": title, "image_path": images.place(path, source)},
        source_id=record["id"],
    )


def table_fields(record: dict[str, Any], where: str, problems: ProblemLog) -> dict[str, Any] | None:
    """Return a bundle table component's fields (caption, table, links, cell_links), or None."""
    table = record.get("table")
    rows_raw = table.get("table_rows") if isinstance(table, dict) else None
    if not isinstance(table, dict) or not isinstance(rows_raw, list) or not rows_raw:
        problems.add(
            "bad_raw_record",
            f"{where}: table item {record.get('id')!r} has no 'table.table_rows'; skipped",
        )
        return None
    header = [_column_name(column) for column in table.get("header") or []]
    rows: list[list[str]] = []
    cell_links: list[list[list[str]]] = []
    for row in rows_raw:
        cells = row if isinstance(row, list) else []
        rows.append([_cell_text(cell) for cell in cells])
        cell_links.append([_cell_links(cell) for cell in cells])
    name = table.get("table_name")
    title = record.get("title") if isinstance(record.get("title"), str) else ""
    caption = f"{title} -- {name}" if isinstance(name, str) and name.strip() else title
    links = list(dict.fromkeys(d for row in cell_links for cell in row for d in cell))
    return {
        "caption": caption,
        "table": {"header": header, "rows": rows},
        "links": links,
        "cell_links": cell_links,
    }


def _column_name(column: object) -> str:
    if isinstance(column, dict):
        return str(column.get("column_name", ""))
    return str(column)


def _cell_text(cell: object) -> str:
    if isinstance(cell, dict):
        return str(cell.get("text", ""))
    return str(cell)


def _cell_links(cell: object) -> list[str]:
    if not isinstance(cell, dict):
        return []
    raw = cell.get("links")
    if raw is None and cell.get("link"):  # MMCoQA's README describes a single `link`
        raw = [cell["link"]]
    targets: list[str] = []
    for link in raw if isinstance(raw, list) else []:
        if isinstance(link, dict):
            target = doc_id_from_url(link.get("url"), link.get("wiki_title"))
        else:
            target = doc_id_from_url(link)
        if target:
            targets.append(target)
    return list(dict.fromkeys(targets))
