from pathlib import Path

import pytest

from tools.atomic_file import atomic_open, write_text_atomically


def test_write_replaces_content_and_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")
    write_text_atomically(target, "new")
    assert target.read_text(encoding="utf-8") == "new"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_a_failed_write_keeps_the_old_content(tmp_path: Path) -> None:
    target = tmp_path / "a.json"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(RuntimeError), atomic_open(target) as handle:
        handle.write("half")
        raise RuntimeError("crash mid-write")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]
