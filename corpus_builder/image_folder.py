"""Read a folder of images with optional captions into one single-image document per image."""

from __future__ import annotations

import json
import logging
import posixpath
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from corpus_builder.folder_files import folder_files
from corpus_builder.html_pages import decode_legacy
from corpus_builder.images import ImageGuard
from corpus_builder.jsonl_records import jsonl_records
from state.corpus import Component, Document, IngestReport
from state.ids import check_id, component_id

logger = logging.getLogger(__name__)

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".gif", ".webp", ".bmp", ".tif", ".tiff"})
CAPTIONS_JSON = "captions.json"
"""`{"relative/path.jpg": "caption"}` in the folder root."""
CAPTIONS_JSONL = "captions.jsonl"
"""One `{"image": "relative/path.jpg", "caption": "...", "title": "..."}` per line, in the root."""


class CaptionRecord(BaseModel):
    """One line of `captions.jsonl`; unknown extra fields are kept and ignored."""

    model_config = ConfigDict(extra="allow")

    image: str
    caption: str = ""
    title: str = ""


@dataclass(frozen=True)
class Caption:
    """What a captions file says about one image, and where it said it."""

    text: str
    title: str
    where: str


def read_image_folder(folder: Path, report: IngestReport, guard: ImageGuard) -> list[Document]:
    """Read every image under a folder into a one-image document, with its caption if any.

    A caption comes from a sidecar `<name>.txt` (or `<name>.<ext>.txt`) next to the image,
    else from `captions.jsonl`, else from `captions.json` in the folder root; a title only
    from `captions.jsonl`, else the file stem with `_`/`-` read as spaces.

    Args:
        folder: The root folder; doc ids are image paths relative to it, without extension.
        report: Receives bad images, malformed caption lines and captions without an image.
        guard: Checks every image file; a bad image is kept caption-only when it has a caption.

    Returns:
        The documents in path order.

    Raises:
        CorpusFormatError: When the folder does not exist.
    """
    images = {
        path.relative_to(folder).as_posix(): path
        for path in folder_files(folder, IMAGE_SUFFIXES, "images")
    }
    captions = {
        **_read_captions_json(folder / CAPTIONS_JSON, report),
        **_read_captions_jsonl(folder / CAPTIONS_JSONL, report),
    }
    for key, caption in captions.items():
        if key not in images:
            report.skip(caption.where, f"caption for {key!r}: no such image under {folder}")
    documents: list[Document] = []
    taken: dict[str, Path] = {}
    for relative, path in images.items():
        document = _image_document(path, relative, captions.get(relative), taken, report, guard)
        if document is not None:
            taken[document.doc_id] = path
            documents.append(document)
    logger.info("read %d of %d images from %s", len(documents), len(images), folder)
    return documents


def _image_document(
    path: Path,
    relative: str,
    listed: Caption | None,
    taken: dict[str, Path],
    report: IngestReport,
    guard: ImageGuard,
) -> Document | None:
    where = str(path)
    try:
        doc_id = check_id(posixpath.splitext(relative)[0], "doc_id")
    except ValueError as err:
        report.skip(where, str(err))
        return None
    if doc_id in taken:
        report.skip(where, f"doc_id {doc_id!r} already taken by {taken[doc_id]}; rename one")
        return None
    if not path.is_file():
        report.skip(where, "not a regular file")
        return None
    sidecar = _read_sidecar(path, report)
    text = sidecar or (listed.text if listed else "")
    title = (
        (listed.title if listed else "")
        or " ".join(path.stem.replace("_", " ").replace("-", " ").split())
        or doc_id
    )
    image_path = guard.check(str(path.absolute()), where, report)
    if image_path is None and not text:
        return None  # the guard has reported why
    component = Component(
        component_id(doc_id, "image", 0), doc_id, "image", 0, text=text, image_path=image_path
    )
    return Document(doc_id, title, "", (component,), source=where)


def _read_sidecar(image: Path, report: IngestReport) -> str | None:
    """Return the text of `<name>.txt` or `<name>.<ext>.txt`, or None when neither exists."""
    for sidecar in (image.with_suffix(".txt"), image.with_name(f"{image.name}.txt")):
        if not sidecar.is_file():
            continue
        try:
            raw = sidecar.read_bytes()
        except OSError as err:
            report.skip(str(sidecar), f"unreadable caption ({type(err).__name__}: {err})")
            continue
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            text, used = decode_legacy(raw)
            report.repair(str(sidecar), f"not UTF-8: decoded as {used}")
        return " ".join(text.split())
    return None


def _read_captions_json(path: Path, report: IngestReport) -> dict[str, Caption]:
    if not path.is_file():
        return {}
    try:
        payload = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        report.skip(
            str(path),
            f"unreadable captions file ({type(err).__name__}: {err}); no caption taken from it",
        )
        return {}
    if not isinstance(payload, dict):
        report.skip(
            str(path),
            f'expected an object {{"relative/path.jpg": "caption"}}, got {type(payload).__name__}',
        )
        return {}
    captions: dict[str, Caption] = {}
    for key, value in payload.items():
        where = f"{path} [{key!r}]"
        if not isinstance(value, str):
            report.skip(where, f"caption is {type(value).__name__}, expected a string")
            continue
        captions[_image_key(key)] = Caption(" ".join(value.split()), "", where)
    return captions


def _read_captions_jsonl(path: Path, report: IngestReport) -> dict[str, Caption]:
    if not path.is_file():
        return {}
    captions: dict[str, Caption] = {}
    try:
        for where, record in jsonl_records(path, CaptionRecord, report, _not_a_caption):
            if not record.image.strip():
                report.skip(where, "empty image path")
                continue
            key = _image_key(record.image)
            if key in captions:
                report.skip(
                    where, f"second caption for {key!r} (first at {captions[key].where}); ignored"
                )
                continue
            captions[key] = Caption(
                " ".join(record.caption.split()), " ".join(record.title.split()), where
            )
    except OSError as err:
        report.skip(str(path), f"unreadable captions file ({type(err).__name__}: {err})")
    return captions


def _not_a_caption(problem: str) -> str:
    return (
        f"not a caption record ({problem}); expected "
        '{"image": "relative/path.jpg", "caption": "..."}'
    )


def _image_key(name: str) -> str:
    """Return a captions-file image path in the form of the folder's relative posix paths."""
    return posixpath.normpath(name.strip().replace("\\", "/")).lstrip("/")
