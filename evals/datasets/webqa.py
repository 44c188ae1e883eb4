"""Convert WebQA (WebQnA/WebQA) from `WebQA_train_val.json` into a bundle.

The file is one JSON object keyed by guid; each value has `Q`, `A: [str]`, `Qcate`, `topic`,
`split` (train/val), `txt_posFacts`/`txt_negFacts: [{title, fact, url, snippet_id}]` and
`img_posFacts`/`img_negFacts: [{image_id, title, caption, url}]`. Positive facts are the gold
sources; negative facts are each question's distractors. The corpus is the union of the chosen
questions' facts, one document per page (Wikipedia page for snippets, Commons file page for
images). Images come from `imgs.tsv` (`image_id<TAB>base64`, offsets in `imgs.lineidx`) or
from `<image_id>.<ext>` files in the images folder.
"""

from __future__ import annotations

import base64
import binascii
from pathlib import Path
from typing import IO, Any

from evals.datasets.bundle import ConversionReport, CorpusDraft, finish
from evals.datasets.images import ImageCopier, find_image_file, image_suffix
from evals.datasets.job import ConversionJob
from evals.datasets.progress import record_read
from evals.datasets.raw import (
    ProblemLog,
    doc_id_from_url,
    find_raw_file,
    list_field,
    load_json,
    str_field,
)
from tools.errors import DatasetFormatError

SPLITS = {"dev": "val", "val": "val", "train": "train"}
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp")
LINEIDX_MODULUS = 10_000_000
"""WebQA's demo seeks `imgs.lineidx[int(image_id) % 10_000_000]` into imgs.tsv."""


def convert(job: ConversionJob) -> ConversionReport:
    """Convert one WebQA split (dev = val, or train) into a bundle in job.out_dir.

    Args:
        job: raw_dir holds WebQA_train_val.json; split is dev (WebQA's val), val or train
            (the test file has no gold sources); images_dir holds imgs.tsv + imgs.lineidx,
            or `<image_id>.<ext>` files.

    Raises:
        ConfigError: If the split is unknown or limit < 1.
        DatasetFormatError: If the file is missing, not a JSON object, or no question converts.
    """
    job.check("WebQA", list(SPLITS), "the test file has no gold sources")
    path, data = _load_split_file(job.raw_dir)
    problems = ProblemLog()
    draft = CorpusDraft()
    images = ImageCopier(job.out_dir, job.images_dir, problems)
    with _ImageSource(job.images_dir, problems) as source:
        questions = _questions(
            path, data, SPLITS[job.split], job.limit, draft, images, source, problems
        )
    extra = {"source": {"repo": "WebQnA/WebQA", "questions": path.name}, "limit": job.limit}
    return finish(
        job, draft, questions, dataset="webqa", problems=problems, images=images, extra_stats=extra
    )


def _load_split_file(raw_dir: Path) -> tuple[Path, dict[str, Any]]:
    """Return the path and content of WebQA_train_val.json (an object keyed by guid)."""
    path = find_raw_file(raw_dir, ["WebQA_train_val.json"], "WebQA train/val file")
    # One JSON object for the whole split: the stdlib cannot stream it, so it is read at once.
    data = load_json(path)
    if not isinstance(data, dict):
        raise DatasetFormatError(
            f"{path}: expected a JSON object keyed by guid, got "
            f"{type(data).__name__}; download WebQA_train_val.json again"
        )
    return path, data


def _questions(
    path: Path,
    data: dict[str, Any],
    raw_split: str,
    limit: int | None,
    draft: CorpusDraft,
    images: ImageCopier,
    source: _ImageSource,
    problems: ProblemLog,
) -> list[dict[str, Any]]:
    """Return the first `limit` usable questions of a split, adding their facts to the draft."""
    questions: list[dict[str, Any]] = []
    for guid, item in data.items():
        record_read()
        if isinstance(item, dict) and item.get("split") == raw_split:
            where = f"{path} guid {guid}"
            question = _question(str(guid), item, where, draft, images, source, problems)
            if question is not None:
                questions.append(question)
        if limit is not None and len(questions) >= limit:
            break
    return questions


def _strip_quotes(text: str) -> str:
    """Return text without the double quotes WebQA wraps many questions and answers in."""
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1].strip()
    return text


def _question(
    guid: str,
    item: dict[str, Any],
    where: str,
    draft: CorpusDraft,
    images: ImageCopier,
    source: _ImageSource,
    problems: ProblemLog,
) -> dict[str, Any] | None:
    question = item.get("Q", item.get("Question"))
    if not isinstance(question, str) or not question.strip():
        problems.add("bad_raw_record", f"{where}: no question text in 'Q'; skipped")
        return None
    gold: list[str] = []
    for key, positive in (("txt_posFacts", True), ("txt_negFacts", False)):
        for fact in item.get(key) or []:
            cid = _add_snippet(fact, f"{where} {key}", draft, problems)
            if positive and cid is not None:
                gold.append(cid)
    for key, positive in (("img_posFacts", True), ("img_negFacts", False)):
        for fact in item.get(key) or []:
            cid = _add_image(fact, f"{where} {key}", draft, images, source, problems)
            if positive and cid is not None:
                gold.append(cid)
    n_text, n_image = len(item.get("txt_posFacts") or []), len(item.get("img_posFacts") or [])
    if len(gold) != n_text + n_image or not gold:
        problems.add(
            "no_gold",
            f"{where}: {n_text + n_image} positive facts, {len(gold)} usable; question skipped",
        )
        return None
    answers = list_field(item, "A") or [item.get("A")]
    return {
        "qid": guid,
        "question": _strip_quotes(question),
        "answers": [_strip_quotes(str(a)) for a in answers if a is not None and str(a).strip()],
        "gold_components": gold,
        "hops": len(gold),
        "modalities": (["text"] if n_text else []) + (["image"] if n_image else []),
        "answer_source": "image" if n_image else "passage",
        "qcate": item.get("Qcate"),
        "topic": item.get("topic"),
    }


def _add_snippet(fact: object, where: str, draft: CorpusDraft, problems: ProblemLog) -> str | None:
    if not isinstance(fact, dict) or not isinstance(fact.get("fact"), str) or not fact["fact"]:
        problems.add("bad_raw_record", f"{where}: text fact without 'fact' text; skipped")
        return None
    snippet = str(fact.get("snippet_id") or "").strip()
    doc_id = doc_id_from_url(fact.get("url"), fact.get("title"))
    if not snippet or doc_id is None:
        problems.add(
            "bad_raw_record", f"{where}: text fact without 'snippet_id' or 'url'/'title'; skipped"
        )
        return None
    known = draft.lookup("paragraph", snippet)
    if known is not None:
        return known
    draft.document(doc_id, str_field(fact, "title") or doc_id, str_field(fact, "url"))
    return draft.add(doc_id, "paragraph", {"text": fact["fact"].strip()}, source_id=snippet)


def _add_image(
    fact: object,
    where: str,
    draft: CorpusDraft,
    images: ImageCopier,
    source: _ImageSource,
    problems: ProblemLog,
) -> str | None:
    raw_id = fact.get("image_id") if isinstance(fact, dict) else None
    image_id = "" if raw_id is None else str(raw_id).strip()
    if not isinstance(fact, dict) or not image_id:
        problems.add("bad_raw_record", f"{where}: image fact without 'image_id'; skipped")
        return None
    known = draft.lookup("image", image_id)
    if known is not None:
        return known
    url = str_field(fact, "url") or str_field(fact, "imgUrl")
    title = str_field(fact, "title") or f"image {image_id}"
    doc_id = doc_id_from_url(url, title) or f"webqa_image_{image_id}"
    draft.document(doc_id, title, url)
    data = source.find(image_id) if images.enabled else None
    name = image_id + (image_suffix(data) if isinstance(data, bytes) else ".jpg")
    if isinstance(data, Path):
        name = image_id + data.suffix
    caption = str_field(fact, "caption") or title
    return draft.add(
        doc_id,
        "image",
        {"caption": caption.strip(), "image_path": images.place(name, data)},
        source_id=image_id,
    )


class _ImageSource:
    """Find a WebQA image by id in imgs.tsv (via imgs.lineidx) or as a loose file."""

    def __init__(self, images_dir: Path | None, problems: ProblemLog) -> None:
        self.images_dir = images_dir
        self.problems = problems
        self._tsv: IO[bytes] | None = None
        self._offsets: list[int] = []

    def __enter__(self) -> _ImageSource:
        if self.images_dir is None:
            return self
        tsv, lineidx = self.images_dir / "imgs.tsv", self.images_dir / "imgs.lineidx"
        if tsv.is_file() and lineidx.is_file():
            with lineidx.open(encoding="utf-8") as handle:
                self._offsets = [int(line) for line in handle if line.strip()]
            self._tsv = tsv.open("rb")
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._tsv is not None:
            self._tsv.close()

    def find(self, image_id: str) -> Path | bytes | None:
        """Return the image's bytes from imgs.tsv, or its loose file, or None."""
        if self._tsv is not None and image_id.isdigit():
            index = int(image_id) % LINEIDX_MODULUS
            if index < len(self._offsets):
                self._tsv.seek(self._offsets[index])
                key, _, payload = self._tsv.readline().partition(b"\t")
                if key.decode("ascii", "replace").strip() == image_id:
                    try:
                        return base64.b64decode(payload.strip(), validate=True)
                    except binascii.Error as err:
                        self.problems.add(
                            "bad_image_data",
                            f"{self.images_dir}/imgs.tsv: image "
                            f"{image_id} is not valid base64 ({err}); skipped",
                        )
                        return None
        if self.images_dir is None:
            return None
        return find_image_file(self.images_dir, [image_id + s for s in IMAGE_SUFFIXES])
