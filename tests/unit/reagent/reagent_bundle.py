"""The mini bundle plus hand-made contradicting evidence, shared by the ReAgent tests.

The Curie Museum page states two opening years in two paragraphs (1934 and 1967): the same
slot (Curie Museum, opened) with contradicting values, found by any query about the museum.
"""

from __future__ import annotations

from typing import Any

OPENED_1934 = "curie_museum::p0"
OPENED_1967 = "curie_museum::p1"
MUSEUM_QUESTION = "When was the Curie Museum opened?"
RENOVATION_QUESTION = "Curie Museum renovation opened"

CONTRADICTING_DOCUMENTS: list[dict[str, Any]] = [
    {
        "doc_id": "curie_museum",
        "title": "Curie Museum",
        "components": [
            {
                "component_id": OPENED_1934,
                "type": "paragraph",
                "text": "The Curie Museum was opened in 1934 in the Latin Quarter of Paris.",
            },
            {
                "component_id": OPENED_1967,
                "type": "paragraph",
                "text": "After a long renovation the Curie Museum opened in 1967.",
            },
        ],
    }
]
