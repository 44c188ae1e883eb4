"""Input limits both servers apply (`fif serve` and `fif mcp`): the same request, the same answer.

A question or query longer than this is refused before any model sees it; an id longer
than this cannot name a node of any index (ids are built in `state.ids`).
"""

from __future__ import annotations

MAX_QUESTION_CHARS = 2000
"""Longest question, query or subquery, in characters."""
MAX_ID_CHARS = 512
"""Longest component, document or thread id a request may name."""
