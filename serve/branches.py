"""A thread's checkpoints as a tree of branches: the original run and every fork made from it.

LangGraph keeps a fork inside its thread: re-running from a checkpoint writes new
checkpoints whose parent is that checkpoint. Each leaf of the parent links is a branch's
head; the branch is the path from the thread's first checkpoint to it. Branches are
numbered in the order they left the tree (branch 0 is the original run), and a fork names
the branch it left and the trace step it re-ran (a step is a node that ran, numbered from
1 as the page prints them), so the page can draw the tree and replay each branch alone.
Pure functions over snapshots (anything with `config`, `parent_config`, `metadata`,
`values`, `tasks`), so they are tested without a graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Branch:
    """One branch of a thread: its checkpoints from the first to its head."""

    number: int
    """0: the original run; forks count up in the order they were made."""
    path: tuple[Any, ...]
    """Its snapshots, oldest first; the last is the head."""
    fork_of: int | None = None
    """The branch this one left (None for the original)."""
    fork_checkpoint: str | None = None
    """The checkpoint it left from: the one before the step it re-ran."""

    @property
    def head(self) -> Any:
        """Return the branch's newest snapshot: its final state."""
        return self.path[-1]

    @property
    def head_id(self) -> str:
        """Return the checkpoint id of the branch's head."""
        return checkpoint_of(self.head)


def checkpoint_of(snapshot: Any) -> str:
    """Return a snapshot's checkpoint id."""
    return str(snapshot.config["configurable"]["checkpoint_id"])


def parent_of(snapshot: Any) -> str | None:
    """Return the id of the checkpoint a snapshot follows; None for the thread's first."""
    parent = snapshot.parent_config
    return str(parent["configurable"]["checkpoint_id"]) if parent else None


def branches(history: Sequence[Any]) -> list[Branch]:
    """Split a thread's snapshots (any order) into branches, oldest branch first.

    Checkpoint ids grow with time, so the oldest child of a checkpoint continues the
    branch that wrote it and each later child starts a new branch.
    """
    by_id = {checkpoint_of(s): s for s in history}
    children: dict[str | None, list[str]] = {}
    for checkpoint_id, snapshot in by_id.items():
        parent = parent_of(snapshot)
        children.setdefault(parent if parent in by_id else None, []).append(checkpoint_id)
    roots = children.get(None, [])  # several: unrelated runs on one thread id, each a branch
    starts: list[tuple[str, int | None, str | None]] = [(root, None, None) for root in roots]
    found: list[Branch] = []
    while starts:
        starts.sort()  # the oldest pending fork is the next branch
        first, fork_of, fork_point = starts.pop(0)
        number, path, at = len(found), [], first
        while True:
            path.append(by_id[at])
            later = sorted(children.get(at, []))
            if not later:
                break
            starts.extend((child, number, at) for child in later[1:])
            at = later[0]
        prefix = _prefix(found, fork_of, fork_point)
        found.append(Branch(number, (*prefix, *path), fork_of, fork_point))
    return found


def _prefix(found: list[Branch], fork_of: int | None, fork_point: str | None) -> tuple[Any, ...]:
    """Return the snapshots a fork shares with its parent branch, up to the fork point."""
    if fork_of is None or fork_point is None:
        return ()
    parent = found[fork_of].path
    ids = [checkpoint_of(s) for s in parent]
    return tuple(parent[: ids.index(fork_point) + 1])


def fork_step(branch: Branch, parent: Branch, steps: Sequence[dict[str, Any]]) -> int | None:
    """Return the step number (from 1) of `parent`'s trace that `branch` re-ran, if shown.

    `steps` are the parent's step summaries, each with the checkpoint it ran from.
    """
    for number, step in enumerate(steps, start=1):
        if step.get("checkpoint_id") == branch.fork_checkpoint:
            return number
    return None
