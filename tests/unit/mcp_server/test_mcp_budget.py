"""Fitting tool results into max_chars: text cuts, list fills and id listings."""

from __future__ import annotations

import json

from pydantic import BaseModel

from mcp_server.budget import ELLIPSIS, MIN_CUT, cut, fill, ids_within, size


class Item(BaseModel):
    name: str
    text: str


def test_cut_keeps_text_that_fits_and_cuts_the_rest_within_the_room() -> None:
    assert cut("short", 100) == "short"
    long = "word " * 100
    shown = cut(long, 60)
    assert shown.endswith(ELLIPSIS) and long.startswith(shown[:-1])
    assert size(shown) <= 60 < size(long[: len(shown) + 1] + ELLIPSIS)


def test_cut_counts_json_escapes() -> None:
    quoted = '"' * 50
    shown = cut(quoted, 30)
    assert len(json.dumps(shown, ensure_ascii=False)) <= 30
    assert len(shown) < 15  # each quote costs two characters escaped


def test_fill_keeps_items_in_order_while_they_fit() -> None:
    items = [Item(name=str(n), text="x" * 50) for n in range(10)]
    kept, truncated = fill(items, 3 * size(items[0]) + 4)
    assert [item.name for item in kept] == ["0", "1", "2"] and truncated
    assert fill(items, 10_000) == (items, False)


def test_fill_cuts_the_text_of_the_first_item_that_does_not_fit() -> None:
    items = [Item(name="a", text="y" * 40), Item(name="b", text="z" * 1000)]
    room = size(items[0]) + 3 + 200
    kept, truncated = fill(items, room, "text")
    assert truncated and [item.name for item in kept] == ["a", "b"]
    assert kept[1].text.endswith(ELLIPSIS) and len(kept[1].text) >= MIN_CUT
    assert size(kept[0]) + size(kept[1]) + 3 <= room


def test_fill_keeps_one_item_even_when_its_text_must_go() -> None:
    kept, truncated = fill([Item(name="only", text="w" * 500)], 10, "text")
    assert truncated and kept == [Item(name="only", text="")]


def test_ids_within_stops_at_the_room_or_the_count() -> None:
    ids = [f"doc::r{n}" for n in range(100)]
    assert ids_within(ids, 10_000, 5) == ids[:5]
    kept = ids_within(ids, 40, 100)
    assert kept == ids[: len(kept)]
    assert (
        len(json.dumps(kept, separators=(",", ":")))
        <= 40
        < len(json.dumps(ids[: len(kept) + 1], separators=(",", ":")))
    )
