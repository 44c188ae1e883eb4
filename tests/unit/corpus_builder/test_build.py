import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from corpus_builder import build as build_module
from corpus_builder.build import BuildOptions, build
from tools.corpus_index import CorpusIndex
from tools.embedders import HashEmbedder
from tools.errors import CorpusFormatError, IndexMismatchError
from tools.index import ChromaLayers
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest
from tools.search import dense_search

STAGES = {
    "copy",
    *("parse", "split", "summarize", "graph", "embed", "index"),
    *("sparse", "terms", "vectors", "total"),
}


def layer_counts(index_dir: Path, manifest: Manifest) -> dict[str, int]:
    layers = ChromaLayers.open(index_dir, None, manifest.name)
    return {layer: layers.count(layer) for layer in ("document", "component", "subcomponent")}


def expected_counts(manifest: Manifest) -> dict[str, int]:
    c = manifest.counts
    return {
        "document": c["document"],
        "component": c.get("paragraph", 0) + c.get("table", 0) + c.get("image", 0),
        "subcomponent": c.get("sentence", 0) + c.get("row", 0) + c.get("region", 0),
    }


def test_mini_bundle_manifest(mini_index: Path) -> None:
    manifest = Manifest.load(mini_index)
    assert manifest.complete and manifest.name == mini_index.name
    assert (manifest.corpus.kind, manifest.corpus.files) == ("bundle", 3)
    assert manifest.text_embedder.model_dump() == {
        "spec": "hash:64",
        "model_id": "hash:64",
        "dim": 64,
    }
    assert manifest.counts == LayeredGraph.load(mini_index / GRAPH_FILE).counts()
    assert manifest.counts["document"] == 8 and manifest.counts["edges_links_to"] == 25
    assert set(manifest.timings) == STAGES
    assert all(value >= 0 for value in manifest.timings.values())
    assert manifest.timings["total"] >= max(v for k, v in manifest.timings.items() if k != "total")
    assert manifest.skipped == [] and manifest.repaired == []
    assert manifest.unresolved_links == 1
    assert manifest.images_indexed_via == "caption-text" and manifest.image_embedder is None
    assert set(manifest.options) == {"link_mentions", "summarizer", "regions", "sentence_vectors"}
    assert manifest.embedding["component_written"] == 19
    written = sum(manifest.embedding[f"{layer}_written"] for layer in expected_counts(manifest))
    assert written == sum(expected_counts(manifest).values())
    # four regions share their caption's text: identical texts are embedded once
    assert manifest.embedding["texts_embedded"] + manifest.embedding["texts_reused"] < written
    assert manifest.built_at and manifest.fif_version
    assert layer_counts(mini_index, manifest) == expected_counts(manifest)


def test_a_rerun_on_an_unchanged_corpus_embeds_nothing(
    mini_bundle: Path, tmp_path: Path, hash_build
) -> None:
    first = hash_build(mini_bundle, tmp_path / "index")
    again = hash_build(mini_bundle, tmp_path / "index")
    assert "texts_embedded" not in again.embedding
    assert again.embedding == {
        f"{layer}_{what}": expected_counts(first)[layer] if what == "unchanged" else 0
        for layer in ("component", "subcomponent", "document")
        for what in ("unchanged", "deleted")
    }
    assert again.corpus.sha256 == first.corpus.sha256


def rewrite(bundle: Path, doc_id: str | None, edit=None) -> None:
    lines = (bundle / "corpus.jsonl").read_text(encoding="utf-8").splitlines()
    kept = []
    for line in lines:
        record = json.loads(line)
        if record["doc_id"] == doc_id:
            if edit is None:
                continue
            edit(record)
        kept.append(json.dumps(record, ensure_ascii=False))
    (bundle / "corpus.jsonl").write_text("\n".join(kept) + "\n", encoding="utf-8")


def test_a_removed_document_loses_its_vectors(
    mini_bundle: Path, tmp_path: Path, hash_build
) -> None:
    hash_build(mini_bundle, tmp_path / "index")
    rewrite(mini_bundle, "radium")
    manifest = hash_build(mini_bundle, tmp_path / "index")
    assert "texts_embedded" not in manifest.embedding
    deleted = {k: v for k, v in manifest.embedding.items() if k.endswith("_deleted")}
    assert deleted == {"component_deleted": 2, "subcomponent_deleted": 3, "document_deleted": 1}
    assert layer_counts(tmp_path / "index", manifest) == expected_counts(manifest)
    assert manifest.unresolved_links == 2  # marie_curie::p1 still links to radium


@pytest.fixture
def bad_bundle(write_bundle, records, write_png, write_bomb_png, tmp_path: Path) -> Path:
    """A bundle with two good documents and one of every bad input."""
    folder = tmp_path / "bad"
    write_png(folder / "images" / "flag.png")
    write_png(tmp_path / "outside.png")
    write_bomb_png(folder / "images" / "bomb.png")
    (folder / "images" / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\n not really a png")
    p, img, doc = records.paragraph, records.image, records.document
    return write_bundle(
        [
            doc("warsaw", p("warsaw::p0", "Warsaw is the capital of Poland.", ["poland"]),
                img("warsaw::i0", "images/flag.png", "Flag of Warsaw")),
            '{"doc_id": "broken", "components": [',
            doc("krakow", p("krakow::p0", "Kraków is a city in Poland."),
                {"component_id": "krakow::x0", "type": "video", "text": "A film."}),
            doc("gdansk", p("gdansk::p0", "Gdańsk is a port."),
                img("gdansk::i0", "images/missing.png", "Port of Gdańsk")),
            doc("lodz", p("lodz::p0", "Łódź is a city."), img("lodz::i0", "images/corrupt.png")),
            doc("poznan", p("poznan::p0", "Poznań is a city."),
                img("poznan::i0", "images/bomb.png")),
            b'{"doc_id": "caf\xe9", "components": []}',
            doc("empty"),
            doc("warsaw", p("warsaw2::p0", "A second Warsaw.")),
            doc("poland", p("poland::p0", "Poland is a country."), p("warsaw::p0", "Same id.")),
            doc("torun", p("torun::p0", "Toruń is a city."), img("torun::i0", "../outside.png")),
            doc("nobel", records.table("nobel::t0", ["Year", "Laureate"],
                                       [["1903", "Marie Curie"], ["1911", "Marie Curie"]],
                                       cell_links=[[[], ["warsaw"]]])),
        ],
        name="bad",
    )  # fmt: skip


def test_bad_inputs_are_skipped_with_file_and_line_and_the_rest_builds(
    bad_bundle: Path, tmp_path: Path, hash_build
) -> None:
    manifest = hash_build(bad_bundle, tmp_path / "index")
    corpus = str(bad_bundle / "corpus.jsonl")
    skipped = [(s.where, s.problem) for s in manifest.skipped]
    expected = [
        (":2", "malformed JSON"),
        (":3 component 1 (krakow::x0)", "unknown component type 'video'"),
        (":4 component 1 (gdansk::i0)", "image 'images/missing.png': file not found"),
        (":5 component 1 (lodz::i0)", "image 'images/corrupt.png': corrupt or unsupported image"),
        (":6 component 1 (poznan::i0)", "image 'images/bomb.png': decompression bomb"),
        (":7", "not UTF-8"),
        (":8 doc 'empty'", "empty document"),
        (":11 component 1 (torun::i0)", "path escapes the corpus folder"),
        (":12 component 0 (nobel::t0)", "cell_links has 1 rows, table has 2; cell links ignored"),
        (":9", "duplicate doc_id 'warsaw' (first at " + corpus + ":1)"),
        (":10 (warsaw::p0)", "duplicate component_id (first in " + corpus + ":1)"),
    ]
    for where, problem in expected:
        assert any(w == corpus + where and problem in p for w, p in skipped), (where, skipped)
    assert len(skipped) == len(expected) + 3  # caption-less images of lodz, poznan, torun
    graph = LayeredGraph.load(tmp_path / "index" / GRAPH_FILE)
    assert sorted(graph.nodes_at(0)) == sorted(
        ["warsaw", "krakow", "gdansk", "lodz", "poznan", "poland", "torun", "nobel"]
    )
    assert graph.node("gdansk::i0").attrs.get("image_path") is None
    assert graph.children("warsaw::i0") and not graph.children("gdansk::i0")
    assert manifest.complete and manifest.counts["edges_links_to"] == 1
    assert (
        dense_search(CorpusIndex.open(tmp_path / "index"), "Flag of Warsaw")[0].node_id
        == "warsaw::i0"
    )


def test_a_non_utf8_html_page_is_decoded_and_recorded(tmp_path: Path, hash_build) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "cafe.html").write_bytes("<p>Un café à Varsovie – 5 €</p>".encode("cp1252"))
    (site / "warsaw.html").write_text(
        '<p>Warsaw. See <a href="cafe.html">café</a>.</p>', encoding="utf-8"
    )
    manifest = hash_build(site, tmp_path / "index")
    assert manifest.corpus.kind == "html" and manifest.counts["document"] == 2
    assert [(p.where, p.problem) for p in manifest.repaired] == [
        (str(site / "cafe.html"), "not UTF-8: decoded as windows-1252")
    ]
    graph = LayeredGraph.load(tmp_path / "index" / GRAPH_FILE)
    assert graph.node("cafe::p0").text == "Un café à Varsovie – 5 €"


def test_a_corpus_without_usable_documents_is_an_error(
    write_bundle, tmp_path: Path, hash_build
) -> None:
    folder = write_bundle(["{", '{"doc_id": "x", "components": []}'])
    with pytest.raises(
        CorpusFormatError, match=r"no usable documents \(2 inputs skipped: .*:1: malformed"
    ):
        hash_build(folder, tmp_path / "index")


def test_a_different_embedder_needs_rebuild(mini_bundle: Path, tmp_path: Path, hash_build) -> None:
    hash_build(mini_bundle, tmp_path / "index")
    with pytest.raises(IndexMismatchError, match="built with hash:64, not hash:32; pass --rebuild"):
        hash_build(mini_bundle, tmp_path / "index", text_embedder="hash:32")
    manifest = hash_build(mini_bundle, tmp_path / "index", text_embedder="hash:32", rebuild=True)
    assert manifest.text_embedder.dim == 32 and manifest.embedding["component_written"] == 19
    assert CorpusIndex.open(tmp_path / "index").layers.collection("component").metadata["dim"] == 32


def test_mentions_link_a_corpus_without_hyperlinks(
    write_bundle, records, tmp_path: Path, hash_build
) -> None:
    folder = write_bundle(
        [
            records.document(
                "dd", records.paragraph("dd::p0", "Demon Dice names Lilu."), title="Demon Dice"
            ),
            records.document(
                "lilu", records.paragraph("lilu::p0", "A demon."), title="Lilu (mythology)"
            ),
        ]
    )
    auto = hash_build(folder, tmp_path / "auto")
    assert auto.options["link_mentions"] is True and auto.counts["edges_links_to"] == 2
    off = hash_build(folder, tmp_path / "off", link_mentions="off")
    assert off.options["link_mentions"] is False and "edges_links_to" not in off.counts


def test_a_spec_that_now_means_another_model_re_embeds_everything(
    mini_bundle: Path, tmp_path: Path, hash_build, monkeypatch: pytest.MonkeyPatch
) -> None:
    hash_build(mini_bundle, tmp_path / "index")
    upgraded = HashEmbedder(64)
    upgraded.model_id = "hash:64+v2"  # the same spec, computed differently by a new release
    monkeypatch.setattr(build_module, "load_embedder", lambda spec, allow_download=False: upgraded)
    manifest = hash_build(mini_bundle, tmp_path / "index")
    assert manifest.text_embedder.model_id == "hash:64+v2"
    assert manifest.embedding["component_written"] == 19


class FakeImageEmbedder:
    """Implements the ImageEmbedder protocol; records which crops it was asked for."""

    def __init__(self, dim: int) -> None:
        self.model_id, self.dim = f"fakeimage:{dim}", dim
        self.text = HashEmbedder(dim)
        self.crops: list[tuple[str, tuple[int, int, int, int] | None]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self.text.embed(texts)

    def embed_images(self, paths: Sequence[str], boxes) -> np.ndarray:
        self.crops.extend(zip(paths, boxes, strict=True))
        return self.text.embed([f"{Path(p).name} {b}" for p, b in zip(paths, boxes, strict=True)])


@pytest.fixture
def fake_image_embedder(monkeypatch: pytest.MonkeyPatch) -> FakeImageEmbedder:
    fake = FakeImageEmbedder(16)
    real = build_module.load_embedder
    monkeypatch.setattr(
        build_module,
        "load_embedder",
        lambda spec, allow_download=False: fake if spec == fake.model_id else real(spec),
    )
    return fake


def test_an_image_embedder_indexes_images_and_their_regions(
    mini_bundle: Path, tmp_path: Path, fake_image_embedder: FakeImageEmbedder
) -> None:
    flag = mini_bundle / "images" / "warsaw_flag.png"
    flag.rename(flag.with_name("flag|warsaw.png"))  # "|" separates the parts of image keys
    corpus = mini_bundle / "corpus.jsonl"
    corpus.write_text(
        corpus.read_text(encoding="utf-8").replace("warsaw_flag.png", "flag|warsaw.png"),
        encoding="utf-8",
    )
    options = BuildOptions(
        text_embedder="hash:64", image_embedder="fakeimage:16", show_progress=False
    )
    manifest = build(mini_bundle, tmp_path / "index", options)
    assert manifest.images_indexed_via == "image-embedder"
    assert manifest.image_embedder is not None and manifest.image_embedder.dim == 16
    path = str((mini_bundle / "images" / "flag|warsaw.png").resolve())
    assert fake_image_embedder.crops == [
        (path, None),
        (path, (0, 0, 16, 16)),
        (path, (16, 0, 32, 16)),
        (path, (0, 16, 16, 32)),
        (path, (16, 16, 32, 32)),
    ]
    layers = ChromaLayers.open(tmp_path / "index", None, manifest.name)
    layers.collection("image")
    stored = layers.stored_hashes("image")
    assert sorted(stored) == ["warsaw::i0", *(f"warsaw::i0::o{n}" for n in range(4))]
    again = build(mini_bundle, tmp_path / "index", options)
    assert again.embedding["image_unchanged"] == 5 and "texts_embedded" not in again.embedding
