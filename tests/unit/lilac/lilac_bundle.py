"""The tiny linked bundle of the LILaC tests: a cup table whose rows link to two club pages."""

from __future__ import annotations

TABLE = "Sparrow_Cup::t0"
CUP_PARAGRAPH = "Sparrow_Cup::p0"
LAKESIDE = "Lakeside_Rowing_Club::p0"
RIVER_OARS = "River_Oars::p0"
MILLTOWN = "Milltown::p0"
GRANITE = "Granite_Peak::p0"

DOCUMENTS = [
    {
        "doc_id": "Sparrow_Cup",
        "title": "Sparrow Cup",
        "components": [
            {
                "component_id": CUP_PARAGRAPH,
                "type": "paragraph",
                "text": "The Sparrow Cup is an annual rowing regatta. It is held every summer.",
            },
            {
                "component_id": TABLE,
                "type": "table",
                "caption": "Sparrow Cup winners",
                "table": {
                    "header": ["Year", "Winner", "Club"],
                    "rows": [
                        ["2001", "Anna Berg", "Lakeside Rowing Club"],
                        ["2002", "Tom Reed", "River Oars"],
                    ],
                },
                "cell_links": [
                    [[], [], ["Lakeside_Rowing_Club"]],
                    [[], [], ["River_Oars"]],
                ],
            },
        ],
    },
    {
        "doc_id": "Lakeside_Rowing_Club",
        "title": "Lakeside Rowing Club",
        "components": [
            {
                "component_id": LAKESIDE,
                "type": "paragraph",
                "text": "Lakeside Rowing Club is a boat club. Its boathouse is painted green.",
            }
        ],
    },
    {
        "doc_id": "River_Oars",
        "title": "River Oars",
        "components": [
            {
                "component_id": RIVER_OARS,
                "type": "paragraph",
                "text": "River Oars is a rowing club in Milltown. The club was founded in 1920.",
                "links": ["Milltown"],
            }
        ],
    },
    {
        "doc_id": "Milltown",
        "title": "Milltown",
        "components": [
            {
                "component_id": MILLTOWN,
                "type": "paragraph",
                "text": "Milltown is a market town on the river Mill. Its population is 5000.",
            }
        ],
    },
    {
        "doc_id": "Granite_Peak",
        "title": "Granite Peak",
        "components": [
            {
                "component_id": GRANITE,
                "type": "paragraph",
                "text": "Granite Peak is a mountain with a snowy summit.",
            }
        ],
    },
]
