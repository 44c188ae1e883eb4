"""Fit tool results into a character budget: cut text and drop trailing list items.

A result's size is the length of its compact JSON (what the SDK sends as structured
content). Lists are filled in order while they fit; the first item that does not fit
may be kept with its text cut, so a long page still shows its first paragraph.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TypeVar

from pydantic import BaseModel

M = TypeVar("M", bound=BaseModel)

DEFAULT_MAX_CHARS = 8000
MIN_MAX_CHARS = 1000
MAX_MAX_CHARS = 100_000
"""Bounds of every tool's `max_chars`: below 1000 even an id listing hardly fits."""
NOTE_ROOM = 240
"""Characters kept free for the `truncated` flag and the note saying what was cut."""
MIN_CUT = 80
"""A cut text shorter than this is not worth showing; the item is dropped instead."""
ELLIPSIS = "…"


def size(value: BaseModel | str) -> int:
    """Return the length of a model's compact JSON, or of a string as a JSON string."""
    if isinstance(value, BaseModel):
        return len(value.model_dump_json())
    return len(json.dumps(value, ensure_ascii=False))


def cut(text: str, room: int) -> str:
    """Return the longest prefix of text (plus "…" when cut) whose JSON string fits in room."""
    if size(text) <= room:
        return text
    low, high = 0, len(text)
    while low < high:  # the longest prefix whose escaped form fits
        middle = (low + high + 1) // 2
        if size(text[:middle] + ELLIPSIS) <= room:
            low = middle
        else:
            high = middle - 1
    return text[:low].rstrip() + ELLIPSIS if low else ""


def fill(items: Sequence[M], room: int, text_field: str | None = None) -> tuple[list[M], bool]:
    """Keep items in order while their JSON fits in room; return them and whether any was cut.

    With `text_field`, the first item that does not fit is kept with that text cut, when
    at least MIN_CUT characters of it fit or when it would be the only item (so a paging
    caller always moves on, even if that item's text is cut to nothing).
    """
    kept: list[M] = []
    used = 2  # the list's brackets
    for item in items:
        comma = 1 if kept else 0
        item_size = size(item)
        if used + comma + item_size <= room:
            kept.append(item)
            used += comma + item_size
            continue
        if text_field is not None:
            text = getattr(item, text_field)
            left = room - used - comma - (item_size - size(text))
            if left >= MIN_CUT or not kept:
                kept.append(item.model_copy(update={text_field: cut(text, max(left, 0))}))
        return kept, True
    return kept, False


def ids_within(ids: Sequence[str], room: int, most: int) -> list[str]:
    """Return the leading ids (at most `most`) whose JSON list fits in room characters."""
    kept: list[str] = []
    used = 2
    for node_id in ids[:most]:
        used += size(node_id) + (1 if kept else 0)
        if used > room:
            break
        kept.append(node_id)
    return kept


def room_left(result: BaseModel, max_chars: int) -> int:
    """Return the characters left for a result's (still empty) lists and texts."""
    return max_chars - size(result) - NOTE_ROOM
