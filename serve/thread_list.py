"""List the threads in an index's checkpoint store, newest first, with their questions.

Thread ids and checkpoint counts come from one query on SqliteSaver's `checkpoints` table;
each thread's question from its latest checkpoint through the saver's own API.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from graph_agent.replay import sqlite_checkpointer
from graph_agent.threads import GRAPH_KEY
from tools.manifest import CHECKPOINT_FILE

LATEST_THREADS = """
SELECT thread_id, MAX(checkpoint_id) AS latest, COUNT(*) AS checkpoints
FROM checkpoints GROUP BY thread_id ORDER BY latest DESC LIMIT ?
"""


def list_threads(index_dir: Path, limit: int) -> list[dict[str, Any]]:
    """Return up to `limit` threads: id, question, system (when recorded), checkpoints, time."""
    if not (index_dir / CHECKPOINT_FILE).is_file():
        return []
    with sqlite_checkpointer(index_dir) as saver:
        try:
            rows = saver.conn.execute(LATEST_THREADS, (limit,)).fetchall()
        except sqlite3.OperationalError:  # no run has saved a checkpoint yet: no table
            return []
        return [_thread(saver, row) for row in rows]


def has_checkpoints(index_dir: Path, thread_id: str) -> bool:
    """Tell whether a thread id already has checkpoints in the index's store."""
    if not (index_dir / CHECKPOINT_FILE).is_file():
        return False
    with sqlite_checkpointer(index_dir) as saver:
        try:
            query = "SELECT 1 FROM checkpoints WHERE thread_id = ? LIMIT 1"
            return saver.conn.execute(query, (thread_id,)).fetchone() is not None
        except sqlite3.OperationalError:  # no checkpoint table yet
            return False


def _thread(saver: Any, row: tuple[str, str, int]) -> dict[str, Any]:
    thread_id, _, count = row
    latest = saver.get_tuple({"configurable": {"thread_id": thread_id}})
    values = latest.checkpoint.get("channel_values", {}) if latest else {}
    metadata = latest.metadata if latest else {}
    return {
        "thread_id": thread_id,
        "question": str(values.get("question", "")),
        "system": metadata.get(GRAPH_KEY),
        "checkpoints": int(count),
        "updated": latest.checkpoint.get("ts", "") if latest else "",
        "finished": bool(values.get("ranking") is not None),
    }
