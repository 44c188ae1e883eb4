from pathlib import Path

import pytest

from tools.errors import IndexNotFoundError
from tools.manifest import MANIFEST_FILE, CorpusInfo, EmbedderInfo, Manifest, Problem


def manifest() -> Manifest:
    return Manifest(
        name="mini",
        corpus=CorpusInfo(path="/c", kind="bundle", sha256="ab", files=2, bytes=10),
        text_embedder=EmbedderInfo(spec="hash:64", model_id="hash:64", dim=64),
        skipped=[Problem(where="/c/corpus.jsonl:3", problem="malformed JSON")],
        timings={"total": 0.5},
    )


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    manifest().save(tmp_path)
    assert not list(tmp_path.glob("*.tmp"))
    loaded = Manifest.load(tmp_path)
    assert loaded == manifest()
    assert (loaded.format, loaded.version, loaded.complete) == ("fif-index", 1, False)


def test_missing_manifest_says_how_to_build(tmp_path: Path) -> None:
    with pytest.raises(
        IndexNotFoundError, match=f"build one with `fif build CORPUS --index {tmp_path}`"
    ):
        Manifest.load(tmp_path)


@pytest.mark.parametrize("content", ["{not json", '{"name": "mini"}', "[]"])
def test_broken_manifest_asks_for_a_rebuild(tmp_path: Path, content: str) -> None:
    (tmp_path / MANIFEST_FILE).write_text(content, encoding="utf-8")
    with pytest.raises(IndexNotFoundError, match=r"(?s)unreadable manifest .*; rebuild the index"):
        Manifest.load(tmp_path)
