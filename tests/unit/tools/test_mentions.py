from state.corpus import Subcomponent
from tools.mentions import mention_links, mentioned_docs, title_index


def test_title_index_strips_parentheticals_and_drops_unusable_titles() -> None:
    index = title_index(
        [
            ("lilu", "Lilu (mythology)"),
            ("marie_curie", "Marie Curie"),
            ("iron", "iron"),  # one lowercase word: too common to link
            ("po", "Po"),  # too short
            ("long", "One Two Three Four Five Six Seven Eight Nine"),
            ("empty", "(disambiguation)"),
        ]
    )
    assert index == {("Lilu",): ["lilu"], ("Marie", "Curie"): ["marie_curie"]}


def test_a_base_title_shared_by_too_many_documents_is_ambiguous() -> None:
    three = [(f"curie_{n}", f"Curie ({kind})") for n, kind in enumerate(["unit", "crater", "film"])]
    assert title_index(three) == {("Curie",): ["curie_0", "curie_1", "curie_2"]}
    four = [*three, ("curie_3", "Curie (band)")]
    assert title_index(four) == {}


def test_mentions_match_whole_words_case_sensitively_longest_first() -> None:
    index = title_index(
        [("paris", "Paris"), ("new_york", "New York"), ("nyc", "New York City"), ("ra", "Radium")]
    )
    assert mentioned_docs("She moved from Paris to New York City.", index) == ["paris", "nyc"]
    assert mentioned_docs("A Parisian in New York; paris.", index) == ["new_york"]
    assert mentioned_docs("Radium-226 is not Radium.", index) == ["ra"]


def sentence(sid: str, doc_id: str, text: str) -> Subcomponent:
    return Subcomponent(sid, sid.rsplit("::", 1)[0], doc_id, "sentence", 0, text)


def test_mention_links_skip_a_document_naming_itself() -> None:
    index = title_index([("lilu", "Lilu (mythology)"), ("demon", "Demon Dice")])
    pairs = mention_links(
        [
            sentence("demon::p0::s0", "demon", "Demon Dice features Lilu, a demon."),
            sentence("lilu::p0::s0", "lilu", "Lilu is not Demon Dice."),
        ],
        index,
    )
    assert pairs == [("demon::p0::s0", "lilu"), ("lilu::p0::s0", "demon")]
