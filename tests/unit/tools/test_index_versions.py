"""Index versions: a build stages a copy, publishes it atomically, and old ones go."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tools.atomic_file import write_text_atomically
from tools.errors import IndexNotFoundError
from tools.index_versions import (
    CURRENT,
    check_updatable,
    live_dir,
    publish,
    start_version,
    versions,
)


def write_products(folder: Path, content: str) -> None:
    (folder / "chroma").mkdir(parents=True, exist_ok=True)
    (folder / "chroma" / "data.bin").write_text(content)
    (folder / "graph.json").write_text(content)
    (folder / "manifest.json").write_text('{"complete": true}')


def test_an_unversioned_index_is_read_in_place_and_moved_by_its_first_build(
    tmp_path: Path,
) -> None:
    write_products(tmp_path, "old")
    (tmp_path / "checkpoints.sqlite").write_text("threads")
    assert live_dir(tmp_path) == tmp_path
    staging = start_version(tmp_path)
    assert staging.name == "v000001" and (staging / "graph.json").read_text() == "old"
    assert not (staging / "checkpoints.sqlite").exists()  # the folder's own, never copied
    (staging / "graph.json").write_text("new")
    assert (tmp_path / "graph.json").read_text() == "old"  # readers see the old one meanwhile
    publish(tmp_path, staging)
    assert live_dir(tmp_path) == staging and os.readlink(tmp_path / CURRENT) == "v000001"
    assert (tmp_path / "graph.json").read_text() == "new"  # the top level links through
    assert (tmp_path / "chroma" / "data.bin").read_text() == "old"
    assert (tmp_path / "checkpoints.sqlite").read_text() == "threads"


def test_publishing_keeps_the_previous_version_and_removes_older_ones(tmp_path: Path) -> None:
    for content in ("one", "two", "three"):
        staging = start_version(tmp_path)
        write_products(staging, content)
        publish(tmp_path, staging)
    assert [v.name for v in versions(tmp_path)] == ["v000002", "v000003"]
    assert (tmp_path / "graph.json").read_text() == "three"
    assert not [p for p in tmp_path.iterdir() if "-unversioned." in p.name]


def test_an_unfinished_staging_version_is_taken_up_again(tmp_path: Path) -> None:
    staging = start_version(tmp_path)
    write_products(staging, "one")
    publish(tmp_path, staging)
    stopped = start_version(tmp_path)
    (stopped / "graph.json").write_text("half")
    assert start_version(tmp_path) == stopped  # a killed build resumes its own copy
    assert live_dir(tmp_path) == staging


def test_update_needs_a_finished_index(tmp_path: Path) -> None:
    with pytest.raises(IndexNotFoundError, match="no FiF index"):
        check_updatable(tmp_path)
    (tmp_path / "manifest.json").write_text('{"complete": false}')
    with pytest.raises(IndexNotFoundError):
        check_updatable(tmp_path)


def test_an_atomic_write_to_a_top_level_name_writes_the_live_version(tmp_path: Path) -> None:
    staging = start_version(tmp_path)
    write_products(staging, "one")
    publish(tmp_path, staging)
    write_text_atomically(tmp_path / "manifest.json", '{"complete": false}')
    assert (tmp_path / "manifest.json").is_symlink()
    assert (staging / "manifest.json").read_text() == '{"complete": false}'


def test_a_copy_a_killed_build_left_half_made_is_made_again(tmp_path: Path) -> None:
    staging = start_version(tmp_path)
    write_products(staging, "one")
    publish(tmp_path, staging)
    half = tmp_path / ".v000002.copying"
    half.mkdir()
    (half / "graph.json").write_text("half")
    again = start_version(tmp_path)
    assert again.name == "v000002" and (again / "graph.json").read_text() == "one"
    assert not half.exists()
