"""Run a system on a checkpointed thread and SIGKILL the process once a node's writes are saved.

Usage: python killed_run.py INDEX SYSTEM THREAD KILL_AT. The process dies right after the
KILL_AT-th `put_writes` of the SQLite saver: a node has saved its result, the checkpoint
that would follow it is not written yet, as when a server is killed mid-run.
"""

from __future__ import annotations

import os
import signal
import sys

from langgraph.checkpoint.sqlite import SqliteSaver

from graph_agent.registry import get_system
from graph_agent.systems import run_system

QUESTION = "What colours are the stripes on the flag of the city where Marie Curie was born?"


def main(index: str, system: str, thread: str, kill_at: int) -> None:
    saved = SqliteSaver.put_writes
    calls = [0]

    def put_writes_then_die(self: SqliteSaver, *args: object, **kwargs: object) -> None:
        saved(self, *args, **kwargs)  # type: ignore[arg-type]
        calls[0] += 1
        if calls[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    SqliteSaver.put_writes = put_writes_then_die  # type: ignore[method-assign]
    spec = get_system(system)
    run_system(system, QUESTION, spec.context_type(index_dir=index, top_k=3, max_steps=2), thread)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
