"""Join pieces of text too small to stand alone (a sentence fragment, a clause's lead-in)."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def merge_fragments(
    pieces: Iterable[str],
    too_small: Callable[[str], bool],
    continues: Callable[[str, str], bool] | None = None,
) -> list[str]:
    """Return the pieces with each one too small to stand alone joined to the next.

    A small piece is carried into the next one (and the result judged again); a piece left
    over at the end joins the last kept piece, or stands alone when there is none.

    Args:
        pieces: Stripped, non-empty pieces in text order.
        too_small: Whether a piece, with what it carries, is too small to stand alone.
        continues: Whether a piece continues the last kept one, which it then joins
            whatever its size (None: no piece does).
    """
    merged: list[str] = []
    carry = ""
    for piece in pieces:
        piece = f"{carry} {piece}".strip()
        if merged and continues is not None and continues(merged[-1], piece):
            merged[-1], carry = f"{merged[-1]} {piece}", ""
            continue
        carry = piece if too_small(piece) else ""
        if not carry:
            merged.append(piece)
    if carry:
        if merged:
            merged[-1] = f"{merged[-1]} {carry}"
        else:
            merged.append(carry)
    return merged
