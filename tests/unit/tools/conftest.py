"""A fake CLIP (hash vectors of what each picture shows) and a tiny corpus indexed with it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from PIL import Image

from corpus_builder.build import BuildOptions, build
from tools.embedders import EMBEDDER_BACKENDS, HashEmbedder

FAKE_CLIP = "fakeclip:256"
VISUALS = {
    "zebra.png": "a striped zebra grazing in the tall grass",
    "tower.png": "a tall stone tower under a blue sky",
}
"""What each test picture shows; the fake CLIP embeds these words instead of pixels."""


class FakeClip:
    """Implements ImageEmbedder: texts and pictures share one bag-of-words space."""

    def __init__(self, dim: int) -> None:
        self.model_id, self.dim = f"fakeclip:{dim}", dim
        self.words = HashEmbedder(dim)

    def embed(self, texts: Sequence[str]):
        return self.words.embed(texts)

    def embed_images(self, paths: Sequence[str], boxes):
        # a region shows the picture plus its own position words
        return self.words.embed(
            [
                VISUALS[Path(path).name] + (f" part {box[0]} {box[1]}" if box else "")
                for path, box in zip(paths, boxes, strict=True)
            ]
        )


def _doc(doc_id: str, title: str, *components: dict) -> dict:
    return {"doc_id": doc_id, "title": title, "components": list(components)}


def _para(cid: str, text: str) -> dict:
    return {"component_id": cid, "type": "paragraph", "text": text, "links": []}


def _image(cid: str, path: str, caption: str) -> dict:
    return {"component_id": cid, "type": "image", "caption": caption, "image_path": path}


DOCUMENTS = [
    _doc(
        "savanna",
        "Savanna",
        _para("savanna::p0", "The savanna is a grassland of the tropics. Rain falls in a season."),
        _image("savanna::i0", "images/zebra.png", "Figure 1"),
    ),
    _doc(
        "warsaw",
        "Warsaw",
        _para("warsaw::p0", "Warsaw is the capital of Poland. The city lies on the Vistula river."),
        _image("warsaw::i0", "images/tower.png", "The Palace of Culture in Warsaw"),
    ),
    _doc("curie", "Marie Curie", _para("curie::p0", "Marie Curie found polonium in 1898.")),
    _doc("ocean", "Ocean", _para("ocean::p0", "The ocean covers most of the planet.")),
]


@pytest.fixture(scope="session")
def fake_clip() -> Iterator[str]:
    """Register the `fakeclip:<dim>` embedder backend for the session; yield its spec."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(EMBEDDER_BACKENDS, "fakeclip", lambda model, _: FakeClip(int(model)))
        yield FAKE_CLIP


@pytest.fixture(scope="session")
def picture_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Write the tiny corpus: two images whose captions do not say what they show."""
    folder = tmp_path_factory.mktemp("pictures")
    (folder / "images").mkdir()
    for name, color in (("zebra.png", "white"), ("tower.png", "gray")):
        Image.new("RGB", (32, 32), color).save(folder / "images" / name)
    lines = [json.dumps(document) for document in DOCUMENTS]
    (folder / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def picture_index(
    picture_bundle: Path, fake_clip: str, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """Index the tiny corpus with hash:64 texts and the fake CLIP images (read only)."""
    index_dir = tmp_path_factory.mktemp("picture_index")
    options = BuildOptions(text_embedder="hash:64", image_embedder=fake_clip, show_progress=False)
    build(picture_bundle, index_dir, options)
    return index_dir


@pytest.fixture(scope="session")
def caption_index(picture_bundle: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Index the same corpus with hash:64 texts only: images are found by their captions."""
    index_dir = tmp_path_factory.mktemp("caption_index")
    build(picture_bundle, index_dir, BuildOptions(text_embedder="hash:64", show_progress=False))
    return index_dir
