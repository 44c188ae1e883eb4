"""Which result lines are current: computed under the key each system runs under now.

`OUT/run_config.json` records every system's current run key (`evals.run_key`). A report
scores only lines under that key; lines under another key (older code, a rebuilt index,
other settings) were superseded on resume, or are waiting for it, and are counted by what
differed. Lines computed from a dirty git tree are allowed and counted, so the report says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.results_log import KEY_FIELD, Key
from evals.run_key import key_differences


@dataclass(frozen=True)
class Freshness:
    """The current lines of a results file, and what was left out and why."""

    current: dict[Key, dict[str, Any]]
    """Latest line per (qid, system) under the system's current key."""
    other_key: dict[str, Counter[str]] = field(default_factory=dict)
    """System → what differed ('code', 'config+index', ...) → lines not used."""
    dirty: Counter[str] = field(default_factory=Counter)
    """System → current lines computed from a git tree with uncommitted changes."""


def split_by_key(
    records: Sequence[Mapping[str, Any]], keys: Mapping[str, Mapping[str, Any]]
) -> Freshness:
    """Keep the latest current line per pair; count the others by what differed.

    A system with no recorded key (a run_config written by an older harness) keeps all its
    lines, latest first, as before.
    """
    current: dict[Key, dict[str, Any]] = {}
    other: dict[str, Counter[str]] = {}
    for record in records:
        system = str(record["system"])
        wanted = keys.get(system)
        stored = record.get(KEY_FIELD)
        if wanted is not None and stored != wanted:
            why = "+".join(key_differences(wanted, stored))
            other.setdefault(system, Counter())[why] += 1
            continue
        current[(str(record["qid"]), system)] = dict(record)
    dirty = Counter(
        system for (_, system), line in current.items() if (line.get(KEY_FIELD) or {}).get("dirty")
    )
    return Freshness(current, other, dirty)


def provenance_markdown(
    run_config: Mapping[str, Any], freshness: Freshness, systems: Sequence[str]
) -> list[str]:
    """Return the Markdown lines of the report's provenance section."""
    keys: Mapping[str, Mapping[str, Any]] = run_config.get("run_keys", {})
    lines = [
        f"- commit: `{run_config.get('git_commit')}`"
        + (" (dirty tree: uncommitted changes)" if run_config.get("git_dirty") else ""),
        f"- index: `{run_config.get('index')}`",
        "",
        "| system | code | index | config | dirty lines | lines under another key (why) |",
        "|---|---|---|---|---|---|",
    ]
    for name in systems:
        key = keys.get(name, {})
        other = freshness.other_key.get(name, Counter())
        why = ", ".join(f"{reason}: {n}" for reason, n in sorted(other.items()))
        cells = [key.get("code", "–"), key.get("index", "–"), key.get("config", "–")]
        counts = f"{freshness.dirty[name]} | {sum(other.values())}" + (f" ({why})" if why else "")
        lines.append(f"| {name} | " + " | ".join(f"`{c}`" for c in cells) + f" | {counts} |")
    return lines
