import json
from pathlib import Path

import numpy as np
import pytest

from corpus_builder.contextual import ContextualEmbedding, contents_in_context, locate_sentences
from corpus_builder.embed_content import (
    ImageCrop,
    ParagraphInContext,
    SentenceInContext,
    content_key,
    standalone_text,
)
from tools.embedders import HashEmbedder
from tools.span_pooling import ContextRequest, ContextVectors

TITLE = "Polonium"
PARAGRAPH = "Polonium: It was discovered in 1898. It is rare."
SENTENCES = ["It was discovered in 1898.", "It is rare."]
ALONE = [f"Polonium: {s}" for s in SENTENCES]


class CountingEmbedder(HashEmbedder):
    """The hash embedder, counting plain texts and contextual passes."""

    def __init__(self) -> None:
        super().__init__(64)
        self.plain: list[str] = []
        self.passes: list[ContextRequest] = []

    def embed(self, texts):  # type: ignore[no-untyped-def]
        self.plain += list(texts)
        return super().embed(texts)

    def embed_in_context(self, requests):  # type: ignore[no-untyped-def]
        self.passes += list(requests)
        return HashEmbedder(64).embed_in_context(requests)  # span = its prefix + its words


def test_sentences_are_located_in_order_with_the_title_as_prefix() -> None:
    found = locate_sentences(TITLE, PARAGRAPH, [*SENTENCES, "Not in it."], [*ALONE, "x"])
    assert [f.span if f else None for f in found] == [(10, 36), (37, 48), None]
    assert {f.prefix_chars for f in found if f} == {len(TITLE)}
    assert [PARAGRAPH[slice(*f.span)] for f in found if f] == SENTENCES


def test_contents_round_trip_to_their_standalone_texts() -> None:
    paragraph, sentences = contents_in_context(TITLE, PARAGRAPH, SENTENCES, ALONE)
    assert standalone_text(paragraph) == PARAGRAPH
    assert [standalone_text(c) for c in sentences] == ALONE
    assert isinstance(sentences[1], SentenceInContext) and sentences[1].context == PARAGRAPH
    assert standalone_text("a plain row") == "a plain row"


def test_a_paragraph_whose_sentences_are_not_found_stays_plain() -> None:
    assert contents_in_context(TITLE, PARAGRAPH, ["Elsewhere."], ["Polonium: Elsewhere."]) == (
        PARAGRAPH,
        ["Polonium: Elsewhere."],
    )


def test_one_pass_per_paragraph_serves_its_sentences_and_then_the_paragraph() -> None:
    embedder = CountingEmbedder()
    contextual = ContextualEmbedding(embedder)
    paragraph, sentences = contents_in_context(TITLE, PARAGRAPH, SENTENCES, ALONE)
    sentence_vectors = contextual.embed([*sentences, "a plain row"])
    assert [(r.text, r.spans, r.prefix_chars) for r in embedder.passes] == [
        (PARAGRAPH, ((10, 36), (37, 48)), len(TITLE))
    ]
    assert embedder.plain == ["a plain row"]
    expected = HashEmbedder(64).embed(
        ["Polonium It was discovered in 1898.", "Polonium It is rare."]
    )
    assert np.allclose(sentence_vectors[:2], expected)
    paragraph_vector = contextual.embed([paragraph])  # the component layer, after
    assert len(embedder.passes) == 1  # no second pass: the paragraph's vector was kept
    assert np.allclose(paragraph_vector[0], HashEmbedder(64).embed([PARAGRAPH])[0])
    contextual.embed([paragraph])  # asked again (a later build): a fresh pass
    assert len(embedder.passes) == 2


def test_a_sentence_past_the_window_is_embedded_alone() -> None:
    class ShortWindow(CountingEmbedder):
        def embed_in_context(self, requests):  # type: ignore[no-untyped-def]
            results = super().embed_in_context(requests)
            return [ContextVectors(r.text, (r.spans[0], None)) for r in results]

    embedder = ShortWindow()
    _, sentences = contents_in_context(TITLE, PARAGRAPH, SENTENCES, ALONE)
    vectors = ContextualEmbedding(embedder).embed(sentences)
    assert embedder.plain == [ALONE[1]]
    assert np.allclose(vectors[1], HashEmbedder(64).embed([ALONE[1]])[0])


@pytest.mark.parametrize(
    ("contextual", "embedded", "sentences"),
    [
        (False, 3, 1),  # the paragraph, its second sentence, the summary
        (True, 4, 2),  # ...and its first sentence too: its context changed
    ],
)
def test_a_changed_paragraph_re_embeds_what_depends_on_it(
    mini_bundle: Path, tmp_path: Path, hash_build, contextual: bool, embedded: int, sentences: int
) -> None:
    hash_build(mini_bundle, tmp_path / "index", contextual_sentences=contextual)
    corpus = mini_bundle / "corpus.jsonl"
    records = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines()]
    for record in records:  # the second sentence of polonium's lead paragraph
        if record["doc_id"] == "polonium":
            lead = record["components"][0]
            lead["text"] = lead["text"].replace("in July 1898", "in 1898")
    corpus.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    manifest = hash_build(mini_bundle, tmp_path / "index", contextual_sentences=contextual)
    embedding = manifest.embedding
    assert manifest.options["sentence_vectors"] == ("contextual" if contextual else "standalone")
    assert embedding["texts_embedded"] == embedded
    assert (embedding["component_written"], embedding["subcomponent_written"]) == (1, sentences)
    assert embedding["document_written"] == 1
    assert embedding["component_unchanged"] == 18


def test_fif_build_takes_contextual_sentences_from_the_command_line(
    mini_bundle: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from fif import cli
    from tools.manifest import Manifest

    args = ["build", str(mini_bundle), "--embedder", "hash:64", "--no-progress"]
    for flag, expected in (("--contextual-sentences", "contextual"), (None, "standalone")):
        index = tmp_path / expected
        result = CliRunner().invoke(cli.app, [*args, "--index", str(index), *filter(None, [flag])])
        assert result.exit_code == 0, result.output
        assert Manifest.load(index).options["sentence_vectors"] == expected


def test_content_keys_keep_the_format_stored_indices_were_hashed_with() -> None:
    # a changed key would make every existing index re-embed all its sentences and images
    sentence = SentenceInContext("P. It is.", (3, 9), 0, "T: It is.")
    assert content_key(sentence) == '\x1es["P. It is.", 3, 9, 0, "T: It is."]'
    assert content_key(ParagraphInContext("P. It is.")) == "\x1epP. It is."
    assert content_key(ImageCrop("ab12", "img/a|b.png")) == "ab12|img/a|b.png|"
    assert content_key(ImageCrop("ab12", "a.png", (0, 0, 5, 7))) == "ab12|a.png|0,0,5,7"
    assert content_key("a plain row") == "a plain row"
    with pytest.raises(TypeError, match="a.png"):
        standalone_text(ImageCrop("ab12", "a.png"))


def test_a_figures_text_lines_are_embedded_in_the_figures_pass() -> None:
    from corpus_builder.layer_items import embed_items
    from state.corpus import Component, Document, Subcomponent

    figure = Component("f::i0", "f", "image", 0, "Revenue 2023 $ 10 Net income 2023 $ 2")
    lines = [
        Subcomponent("f::i0::o0", "f::i0", "f", "region", 0, "Revenue 2023 $ 10", box=(0, 0, 9, 9)),
        Subcomponent("f::i0::o1", "f::i0", "f", "region", 1, "Net income 2023 $ 2"),
        Subcomponent("f::i0::o2", "f::i0", "f", "region", 2, "printed nowhere above"),
    ]
    document = Document("f", "Acme 10-K", components=(figure,))
    parts = {"f::i0": lines}
    _, comps, subs = embed_items([document], parts, {"f": "Acme"}, contextual=True)
    assert isinstance(comps[0].content, ParagraphInContext)
    kinds = [type(item.content) for item in subs]
    assert kinds == [SentenceInContext, SentenceInContext, str]  # a line not found: alone
    embedder = CountingEmbedder()
    ContextualEmbedding(embedder).embed([item.content for item in subs])
    assert len(embedder.passes) == 1 and embedder.plain == ["Acme 10-K: printed nowhere above"]
    _, _, plain = embed_items([document], parts, {"f": "Acme"}, contextual=False)
    assert all(isinstance(item.content, str) for item in plain)
