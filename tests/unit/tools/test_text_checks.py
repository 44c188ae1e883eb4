import pytest

from tools.fragments import merge_fragments
from tools.not_blank import not_blank


def short(piece: str) -> bool:
    return len(piece.split()) < 3


@pytest.mark.parametrize(
    ("pieces", "merged"),
    [
        ([], []),
        (["when was", "the bridge built"], ["when was the bridge built"]),
        (["the bridge was built", "in 1990"], ["the bridge was built in 1990"]),
        (["one", "two"], ["one two"]),
        (["a b c", "d", "e f g", "h"], ["a b c", "d e f g h"]),
    ],
)
def test_small_pieces_join_the_next_and_a_leftover_the_last(
    pieces: list[str], merged: list[str]
) -> None:
    assert merge_fragments(pieces, short) == merged


def test_a_continuation_joins_the_last_piece_whatever_its_size() -> None:
    def lower_start(previous: str, piece: str) -> bool:
        return piece[0].islower()

    pieces = ["It rose by 5 percent", "in the first half of the year", "Sales fell sharply"]
    assert merge_fragments(pieces, short, lower_start) == [
        "It rose by 5 percent in the first half of the year",
        "Sales fell sharply",
    ]


def test_not_blank_refuses_white_space_and_strips_on_request() -> None:
    with pytest.raises(ValueError, match="^the reason is blank$"):
        not_blank("the reason is blank")(" \n\t")
    assert not_blank("blank")(" kept ") == " kept "
    assert not_blank("blank", strip=True)(" kept ") == "kept"
