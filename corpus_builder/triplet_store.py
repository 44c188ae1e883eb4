"""Extracted triplets that outlive a build: one SQLite row per (extractor, unit text hash).

`fif build --triplets` asks a chat model for the triplets of every text unit; each answer
costs a call, so it is committed as soon as its batch returns. A build killed midway, or
a server that fails halfway, loses none of what was already extracted, and the next build
asks only for the units missing here. A unit is keyed by the hash of the text the model
reads, so an edited paragraph is asked again and an unchanged one never is; the extractor
id (prompt version and model) is part of the key, so a new prompt or model re-extracts.
An empty list is stored too ("no fact here" is an answer); a failed call stores nothing.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path

logger = logging.getLogger(__name__)

SCHEMA = """CREATE TABLE IF NOT EXISTS triplets (
    extractor TEXT NOT NULL,
    digest TEXT NOT NULL,
    triplets TEXT NOT NULL,
    PRIMARY KEY (extractor, digest)
)"""
CHUNK = 500
"""Digests per SQL statement (SQLite limits the number of bound parameters)."""


class TripletStore:
    """The triplet store of one index (`triplets.sqlite` beside the manifest)."""

    def __init__(self, path: Path) -> None:
        """Open (or create) the store; an unreadable file is set aside and a new one started."""
        self.path = path
        try:
            self.connection = self._connect()
        except sqlite3.DatabaseError as err:
            aside = path.with_suffix(".sqlite.unreadable")
            logger.warning("%s is unreadable (%s); moved to %s, every unit is asked again",
                           path, err, aside)  # fmt: skip
            os.replace(path, aside)
            self.connection = self._connect()

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self.path)
        connection.execute(SCHEMA)
        connection.commit()
        return connection

    def get(self, extractor: str, digests: Iterable[str]) -> dict[str, list[str]]:
        """Return the stored triplets of those digests an extractor has answered."""
        wanted = list(dict.fromkeys(digests))
        found: dict[str, list[str]] = {}
        for start in range(0, len(wanted), CHUNK):
            chunk = wanted[start : start + CHUNK]
            marks = ",".join("?" * len(chunk))
            # only "?" marks are formatted in; the values are bound parameters
            query = "SELECT digest, triplets FROM triplets WHERE extractor = ? AND digest IN ({})"
            rows = self.connection.execute(query.format(marks), [extractor, *chunk])
            found.update((digest, json.loads(text)) for digest, text in rows)
        return found

    def put(self, extractor: str, answers: Mapping[str, list[str]]) -> None:
        """Store and commit the answers of one call (digest -> triplets)."""
        self.connection.executemany(
            "INSERT OR REPLACE INTO triplets VALUES (?, ?, ?)",
            [(extractor, digest, json.dumps(found)) for digest, found in answers.items()],
        )
        self.connection.commit()

    def keep_only(self, digests: Iterable[str]) -> int:
        """Delete the triplets of units no longer in the corpus (any extractor); return how many."""
        current = set(digests)
        stored = {row[0] for row in self.connection.execute("SELECT DISTINCT digest FROM triplets")}
        stale = sorted(stored - current)
        for start in range(0, len(stale), CHUNK):
            chunk = stale[start : start + CHUNK]
            marks = ",".join("?" * len(chunk))
            self.connection.execute(f"DELETE FROM triplets WHERE digest IN ({marks})", chunk)
        self.connection.commit()
        return len(stale)

    def close(self) -> None:
        """Close the connection (every answer is already committed)."""
        self.connection.close()
