"""Browse `fif eval` output folders: their summaries, per-question results and plots.

Every path a request names is resolved inside the runs folder (symlinks included) before
anything is read, so a request cannot reach a file outside it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evals.report import SUMMARY_MD
from evals.results_log import RESULTS_FILE, parse_lines
from serve.errors import NotFoundError, OutsideFolderError
from tools.errors import ConfigError

RUN_MARKERS = ("run_config.json", SUMMARY_MD, RESULTS_FILE)
SERVED_SUFFIXES = {".png": "image/png", ".md": "text/markdown", ".csv": "text/csv"}
MAX_RESULT_LINES = 5000
MAX_TEXT_BYTES = 2_000_000
SHOWN_RANKS = 5


def inside(base: Path, relative: str) -> Path:
    """Return `base / relative` resolved, refusing anything that leaves `base`.

    Raises:
        OutsideFolderError: If the path is absolute, climbs out, or a symlink points out.
    """
    if not relative or relative.startswith(("/", "\\")) or "\x00" in relative:
        raise OutsideFolderError(f"{relative!r}: give a path relative to the runs folder")
    resolved = (base / relative).resolve()
    if not resolved.is_relative_to(base.resolve()):
        raise OutsideFolderError(f"{relative!r} leaves the runs folder")
    return resolved


def within(base: Path, path: Path) -> Path | None:
    """Return `path` resolved when it stays inside `base` (symlinks followed), else None."""
    resolved = path.resolve()
    return resolved if resolved.is_relative_to(base.resolve()) else None


def _is_run(runs_dir: Path, folder: Path) -> bool:
    """Tell whether a folder inside the runs folder holds a marker file that stays inside."""
    return folder.is_dir() and any(
        (marker := within(runs_dir, folder / name)) is not None and marker.is_file()
        for name in RUN_MARKERS
    )


def list_runs(runs_dir: Path) -> list[dict[str, Any]]:
    """Return the eval output folders at most two levels under `runs_dir`, by name.

    A folder (or a marker file) that is a symlink out of the runs folder is not listed.
    """
    found = []
    for folder in sorted({runs_dir, *runs_dir.glob("*"), *runs_dir.glob("*/*")}):
        if within(runs_dir, folder) is not None and _is_run(runs_dir, folder):
            name = folder.relative_to(runs_dir).as_posix()
            plots = [p for p in folder.glob("*.png") if within(runs_dir, p) is not None]
            found.append({"name": name, "plots": len(plots)})
    return found


def run_detail(runs_dir: Path, name: str) -> dict[str, Any]:
    """Return a run's summary Markdown, regressions, plot names and per-question results.

    Raises:
        OutsideFolderError: If `name` leaves the runs folder.
        NotFoundError: If it is not an eval output folder.
    """
    folder = inside(runs_dir, name) if name != "." else runs_dir.resolve()
    if not _is_run(runs_dir, folder):
        raise NotFoundError(f"{name!r} is not a `fif eval` output folder under the runs folder")
    plots = [p.name for p in folder.glob("*.png") if within(runs_dir, p) is not None]
    return {
        "name": name,
        "summary_md": _text(runs_dir, folder / SUMMARY_MD),
        "regressions_md": _text(runs_dir, folder / "regressions.md"),
        "plots": sorted(plots),
        "results": _results(runs_dir, folder / RESULTS_FILE),
    }


def _readable(runs_dir: Path, path: Path) -> Path | None:
    """Return a run's file resolved inside the runs folder; None if missing.

    Raises:
        OutsideFolderError: If it is a symlink leading out of the runs folder.
    """
    if not path.is_file():
        return None
    resolved = within(runs_dir, path)
    if resolved is None:
        raise OutsideFolderError(f"{path.name!r} of this run leads out of the runs folder")
    return resolved


def _text(runs_dir: Path, path: Path) -> str:
    resolved = _readable(runs_dir, path)
    if resolved is None:
        return ""
    return resolved.read_bytes()[:MAX_TEXT_BYTES].decode("utf-8", errors="replace")


def _results(runs_dir: Path, path: Path) -> list[dict[str, Any]]:
    """Return the latest line of each (question, system), its top ranks and its cost."""
    resolved = _readable(runs_dir, path)
    if resolved is None:
        return []
    path = resolved
    records, _ = parse_lines(path.read_bytes(), path.name)
    latest = {(r["qid"], r["system"]): r for r in records}
    rows = []
    for (qid, system), record in list(latest.items())[:MAX_RESULT_LINES]:
        ranking = record.get("ranking") or []
        rows.append(
            {
                "qid": qid,
                "system": system,
                "top": [_component(entry) for entry in ranking[:SHOWN_RANKS]],
                "latency_ms": record.get("latency_ms"),
                "answer": record.get("answer"),
                "error": record.get("error"),
            }
        )
    return rows


def _component(entry: Any) -> str:
    """Return the id of a ranking entry (results.jsonl stores ids; older lines dicts)."""
    return str(entry.get("component_id", "")) if isinstance(entry, dict) else str(entry)


def run_file(runs_dir: Path, name: str, file: str) -> tuple[Path, str]:
    """Return a served file of a run (plot, Markdown or CSV) and its media type.

    Raises:
        OutsideFolderError: If the path leaves the runs folder.
        NotFoundError: If the file is missing.
        ConfigError: If the file is of a kind that is not served.
    """
    path = inside(runs_dir, f"{name}/{file}" if name != "." else file)
    media = SERVED_SUFFIXES.get(path.suffix.lower())
    if media is None:
        raise ConfigError(f"{file!r}: only {', '.join(SERVED_SUFFIXES)} files are served")
    if not path.is_file():
        raise NotFoundError(f"{file!r}: no such file in run {name!r}")
    return path, media
