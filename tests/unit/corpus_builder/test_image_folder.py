import json
import os
from pathlib import Path

import pytest
from PIL import Image

from corpus_builder.image_folder import read_image_folder
from corpus_builder.images import ImageGuard
from state.corpus import Document, IngestReport
from tools.errors import CorpusFormatError


def write_image(path: Path, size: tuple[int, int] = (4, 4), fmt: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (20, 120, 200)).save(path, format=fmt)
    return path


def read(folder: Path, **guard_args: int) -> tuple[dict[str, Document], IngestReport]:
    report = IngestReport()
    documents = read_image_folder(folder, report, ImageGuard(folder, **guard_args))
    return {doc.doc_id: doc for doc in documents}, report


def problems(items: list) -> str:
    return "\n".join(f"{item.where}: {item.problem}" for item in items)


def test_one_document_per_image_with_title_from_stem(tmp_path: Path) -> None:
    write_image(tmp_path / "animals" / "red_fox-cub.jpg")
    write_image(tmp_path / "tower.PNG", fmt="PNG")
    (tmp_path / "notes.md").write_text("not an image")
    docs, report = read(tmp_path)
    assert sorted(docs) == ["animals/red_fox-cub", "tower"]
    fox = docs["animals/red_fox-cub"]
    assert fox.title == "red fox cub" and fox.url == ""
    (component,) = fox.components
    assert component.component_id == "animals/red_fox-cub::i0"
    assert (component.kind, component.order, component.text) == ("image", 0, "")
    assert component.image_path == str((tmp_path / "animals" / "red_fox-cub.jpg").resolve())
    assert report.skipped == []


def test_captions_from_sidecar_json_and_jsonl(tmp_path: Path) -> None:
    for name in ("a.png", "b.png", "c.png", "sub/d.gif", "e.png"):
        write_image(tmp_path / name)
    (tmp_path / "a.txt").write_text("  Sidecar\ncaption  ", encoding="utf-8")
    (tmp_path / "e.png.txt").write_text("Full-name sidecar", encoding="utf-8")
    (tmp_path / "captions.json").write_text(
        json.dumps({"a.png": "loses to the sidecar", "b.png": "From json", "./sub/d.gif": "Nested"})
    )
    lines = [
        json.dumps({"image": "c.png", "caption": "From jsonl", "title": "Sea"}),
        "{not json",
        json.dumps({"caption": "no image field"}),
        json.dumps({"image": "missing.png", "caption": "orphan"}),
        json.dumps({"image": "a.png", "title": "Titled"}),
    ]
    (tmp_path / "captions.jsonl").write_text("\n".join(lines) + "\n")
    docs, report = read(tmp_path)
    assert {doc_id: (d.title, d.components[0].text) for doc_id, d in docs.items()} == {
        "a": ("Titled", "Sidecar caption"),
        "b": ("b", "From json"),
        "c": ("Sea", "From jsonl"),
        "sub/d": ("d", "Nested"),
        "e": ("e", "Full-name sidecar"),
    }
    skipped = problems(report.skipped)
    assert f"{tmp_path / 'captions.jsonl'}:2: malformed JSON" in skipped
    assert f"{tmp_path / 'captions.jsonl'}:3: not a caption record (image:" in skipped
    assert f"{tmp_path / 'captions.jsonl'}:4: caption for 'missing.png': no such image" in skipped
    assert len(report.skipped) == 3


def test_malformed_captions_json_is_reported_and_ignored(tmp_path: Path) -> None:
    write_image(tmp_path / "a.png")
    (tmp_path / "captions.json").write_text('{"a.png": ')
    docs, report = read(tmp_path)
    assert docs["a"].components[0].text == ""
    assert "unreadable captions file (JSONDecodeError" in problems(report.skipped)


def test_bad_images_are_skipped_unless_captioned(tmp_path: Path) -> None:
    (tmp_path / "noise.jpg").write_bytes(os.urandom(300))
    (tmp_path / "noise_captioned.jpg").write_bytes(os.urandom(300))
    (tmp_path / "noise_captioned.txt").write_text("A described photo")
    docs, report = read(tmp_path)
    assert list(docs) == ["noise_captioned"]
    component = docs["noise_captioned"].components[0]
    assert (component.text, component.image_path) == ("A described photo", None)
    assert len(report.skipped) == 2
    assert all("corrupt or unsupported image" in item.problem for item in report.skipped)


def test_decompression_bomb_is_refused(tmp_path: Path) -> None:
    write_image(tmp_path / "huge.png", (300, 300))
    write_image(tmp_path / "small.png", (10, 10))
    docs, report = read(tmp_path, max_pixels=1_000)
    assert list(docs) == ["small"]
    assert "possible decompression bomb" in problems(report.skipped)


def test_symlink_escaping_the_folder_is_refused(tmp_path: Path) -> None:
    outside = write_image(tmp_path / "outside.png")
    folder = tmp_path / "images"
    folder.mkdir()
    (folder / "link.png").symlink_to(outside)
    docs, report = read(folder)
    assert docs == {}
    assert "escapes the corpus folder" in problems(report.skipped)


def test_same_doc_id_from_two_extensions_keeps_the_first(tmp_path: Path) -> None:
    write_image(tmp_path / "cat.jpg")
    write_image(tmp_path / "cat.png")
    docs, report = read(tmp_path)
    assert docs["cat"].components[0].image_path.endswith("cat.jpg")
    assert "doc_id 'cat' already taken" in problems(report.skipped)


def test_missing_folder_is_a_format_error(tmp_path: Path) -> None:
    with pytest.raises(CorpusFormatError, match="not a folder"):
        read_image_folder(tmp_path / "nope", IngestReport(), ImageGuard(tmp_path))


def test_captions_jsonl_without_image_or_given_twice_is_reported(tmp_path: Path) -> None:
    write_image(tmp_path / "a.png")
    lines = [
        json.dumps({"image": "a.png", "caption": "First"}),
        "",
        json.dumps({"image": "  ", "caption": "no path"}),
        json.dumps({"image": "./a.png", "caption": "Second"}),
    ]
    (tmp_path / "captions.jsonl").write_text("\n".join(lines) + "\n")
    docs, report = read(tmp_path)
    assert docs["a"].components[0].text == "First"
    captions = tmp_path / "captions.jsonl"
    assert problems(report.skipped).splitlines() == [
        f"{captions}:3: empty image path",
        f"{captions}:4: second caption for 'a.png' (first at {captions}:1); ignored",
    ]
