"""Per-document content hashes, kept beside the index, and what an update changed.

`documents.json` maps each document id to a digest of the document as parsed (title,
url, components with their text, tables, image keys and links). Comparing it with the
corpus being built says which documents `fif build --update` adds, re-embeds and removes;
the embedding itself is decided node by node (corpus_builder.embed_stage), so this file
reports and checks, it does not gate what is written.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
from pathlib import Path

from state.corpus import Document
from tools.atomic_file import write_text_atomically

logger = logging.getLogger(__name__)

DOCUMENTS_FILE = "documents.json"


def document_hash(document: Document) -> str:
    """Return a digest of everything the build indexes from a document.

    Its `source` (file and line, for messages) is left out: a document that moved to
    another line of the corpus file is the same document.
    """
    fields = dataclasses.asdict(document)
    fields.pop("source", None)
    content = json.dumps(fields, sort_keys=True, default=str)
    return hashlib.sha256(content.encode()).hexdigest()[:32]


def load_hashes(path: Path) -> dict[str, str] | None:
    """Return the stored {doc id: hash}, or None when the file is absent or unreadable."""
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        hashes = data["documents"]
        if isinstance(hashes, dict) and all(isinstance(v, str) for v in hashes.values()):
            return {str(k): v for k, v in hashes.items()}
    except (OSError, ValueError, KeyError, TypeError) as err:
        logger.warning("%s is unreadable (%s); counting every document as new", path, err)
    return None


def save_hashes(path: Path, hashes: dict[str, str]) -> None:
    """Write {doc id: hash} atomically, sorted so equal corpora give equal files."""
    data = {"format": "fif-documents", "documents": dict(sorted(hashes.items()))}
    write_text_atomically(path, json.dumps(data, indent=0, ensure_ascii=False))


def changes(before: dict[str, str] | None, after: dict[str, str]) -> dict[str, int]:
    """Count the documents added, changed, removed and unchanged between two hash maps."""
    before = before or {}
    added = sum(1 for doc in after if doc not in before)
    changed = sum(1 for doc, digest in after.items() if doc in before and before[doc] != digest)
    removed = sum(1 for doc in before if doc not in after)
    return {
        "added": added,
        "changed": changed,
        "removed": removed,
        "unchanged": len(after) - added - changed,
    }


def document_changes(
    documents: list[Document], path: Path
) -> tuple[dict[str, str], dict[str, int]]:
    """Return the corpus's document hashes and what changed since those stored at `path`.

    The caller saves the hashes (`save_hashes`) once its build has finished, so a build
    that stopped and resumes still counts the changes against the last finished one.
    """
    hashes = {document.doc_id: document_hash(document) for document in documents}
    counted = changes(load_hashes(path), hashes)
    logger.info("documents: %s", ", ".join(f"{n} {what}" for what, n in counted.items()))
    return hashes, counted
