import pytest

from corpus_builder.splitters import (
    FixedCrops,
    Region,
    region_subcomponents,
    row_subcomponents,
    sentence_subcomponents,
    split_sentences,
)
from state.corpus import Component, Table


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Dr. Watson met Mr. Holmes in London. They shared rooms in Baker Street.",
            ["Dr. Watson met Mr. Holmes in London.", "They shared rooms in Baker Street."],
        ),
        (
            "Warsaw has a population of about 1.86 million. It lies on the Vistula.",
            ["Warsaw has a population of about 1.86 million.", "It lies on the Vistula."],
        ),
        (
            "J. R. R. Tolkien wrote The Hobbit. It was published in 1937.",
            ["J. R. R. Tolkien wrote The Hobbit.", "It was published in 1937."],
        ),
        (
            "He served in the U.S. Army in Washington, D.C. until 1950. Then he retired.",
            ["He served in the U.S. Army in Washington, D.C. until 1950.", "Then he retired."],
        ),
        (
            "The University of Paris was active from c. 1150 to 1970. It was then divided.",
            ["The University of Paris was active from c. 1150 to 1970.", "It was then divided."],
        ),
        (
            "1 . FC Köln won the title . 1 . FC Nürnberg did not .",
            ["1 . FC Köln won the title .", "1 . FC Nürnberg did not ."],
        ),
        (
            "1 . FC Heidenheim 1846 is a German club . It won promotion to the 2 . Bundesliga "
            "for the first time .",
            [
                "1 . FC Heidenheim 1846 is a German club .",
                "It won promotion to the 2 . Bundesliga for the first time .",
            ],
        ),
        (
            "The club, commonly known as 1. FC Union Berlin, was founded in 1966. It plays in "
            "Berlin.",
            [
                "The club, commonly known as 1. FC Union Berlin, was founded in 1966.",
                "It plays in Berlin.",
            ],
        ),
        (
            "The film stars Robert Downey Jr. , Woody Harrelson and Winona Ryder . It was a hit .",
            [
                "The film stars Robert Downey Jr. , Woody Harrelson and Winona Ryder .",
                "It was a hit .",
            ],
        ),
        (
            # A number really can end a sentence; the next one must not be glued to it.
            "The tournament ended on April 5 . The final drew 48,000 people .",
            ["The tournament ended on April 5 .", "The final drew 48,000 people ."],
        ),
        ("Wait! Really? Yes.", ["Wait!", "Really?", "Yes."]),
        ("A title without a full stop", ["A title without a full stop"]),
        ("  One sentence only.  ", ["One sentence only."]),
        ("   ", []),
    ],
)
def test_split_sentences(text: str, expected: list[str]) -> None:
    assert list(split_sentences(text)) == expected


def test_a_trailing_fragment_without_words_is_glued_to_the_last_sentence() -> None:
    assert split_sentences("It ended 3 : 1 . 2 .") == ("It ended 3 : 1 . 2 .",)


def paragraph(text: str, anchors: tuple[tuple[str, str], ...] = ()) -> Component:
    return Component("marie_curie::p0", "marie_curie", "paragraph", 0, text=text, anchors=anchors)


def test_sentence_subcomponents_have_ids_order_and_links_from_their_anchors() -> None:
    component = paragraph(
        "She was born in Warsaw. She married Pierre Curie in 1895.",
        anchors=(("Warsaw", "warsaw"), ("Pierre Curie", "pierre_curie")),
    )
    subs = sentence_subcomponents(component)
    assert [(s.subcomponent_id, s.order, s.kind, s.links) for s in subs] == [
        ("marie_curie::p0::s0", 0, "sentence", ("warsaw",)),
        ("marie_curie::p0::s1", 1, "sentence", ("pierre_curie",)),
    ]
    assert {(s.component_id, s.doc_id) for s in subs} == {("marie_curie::p0", "marie_curie")}


def laureates(cell_links: tuple = ()) -> Component:
    table = Table(
        ("Year", "Laureate", "Country"),
        (("1903", "Henri Becquerel", "France"), ("", "", ""), ("1903", "Marie Curie", "Poland")),
        cell_links,
    )
    return Component(
        "nobel::t0", "nobel", "table", 1, text="Laureates", table=table, links=("marie_curie",)
    )


def test_row_segments_pair_the_header_with_each_row_and_skip_empty_rows() -> None:
    links = (((), ("henri_becquerel",), ()), ((), (), ()), ((), ("marie_curie",), ("poland",)))
    subs = row_subcomponents(laureates(links))
    assert [(s.subcomponent_id, s.order, s.text, s.links) for s in subs] == [
        ("nobel::t0::r0", 0, "Year: 1903 | Laureate: Henri Becquerel | Country: France",
         ("henri_becquerel",)),
        ("nobel::t0::r2", 2, "Year: 1903 | Laureate: Marie Curie | Country: Poland",
         ("marie_curie", "poland")),
    ]  # fmt: skip


def test_rows_without_cell_links_link_nowhere() -> None:
    assert [s.links for s in row_subcomponents(laureates())] == [(), ()]
    assert row_subcomponents(paragraph("No table.")) == []


@pytest.mark.parametrize(
    ("grid", "size", "boxes"),
    [
        (2, (32, 32), [(0, 0, 16, 16), (16, 0, 32, 16), (0, 16, 16, 32), (16, 16, 32, 32)]),
        (2, (33, 17), [(0, 0, 16, 8), (16, 0, 32, 8), (0, 8, 16, 16), (16, 8, 32, 16)]),
        (3, (90, 30), [(x, y, x + 30, y + 10) for y in (0, 10, 20) for x in (0, 30, 60)]),
        (2, (15, 64), []),
        (2, (64, 15), []),
    ],
)
def test_fixed_crops_tile_the_image_and_skip_tiny_ones(
    grid: int, size: tuple[int, int], boxes: list[tuple[int, int, int, int]]
) -> None:
    assert [r.box for r in FixedCrops(grid).propose("any.png", size)] == boxes
    assert all(r.label == "" for r in FixedCrops(grid).propose("any.png", size))


def flag(path: str | None = "/corpus/flag.png") -> Component:
    return Component("warsaw::i0", "warsaw", "image", 2, text="Flag of Warsaw", image_path=path)


def test_region_subcomponents_carry_boxes_and_the_caption() -> None:
    subs = region_subcomponents(flag(), FixedCrops(), (32, 32))
    assert [s.subcomponent_id for s in subs] == [f"warsaw::i0::o{n}" for n in range(4)]
    assert {s.text for s in subs} == {"Flag of Warsaw"}
    assert subs[3].box == (16, 16, 32, 32) and subs[3].links == ()


class LabelledProposer:
    def propose(self, path: str, size: tuple[int, int]) -> list[Region]:
        width, height = size
        return [Region((0, 0, width, height // 2), "yellow stripe"), Region((0, 0, 1, 1))]


def test_region_labels_replace_the_caption_and_caption_only_images_have_no_regions() -> None:
    subs = region_subcomponents(flag(), LabelledProposer(), (32, 32))
    assert [(s.text, s.box) for s in subs] == [
        ("yellow stripe", (0, 0, 32, 16)),
        ("Flag of Warsaw", (0, 0, 1, 1)),
    ]
    assert region_subcomponents(flag(None), FixedCrops(), (32, 32)) == []
