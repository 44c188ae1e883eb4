"""The offline answer reader's tuned constants, shared by every system as `RunSettings.reader`.

The reader (nodes/core/span_reader.py, nodes/core/span_shapes.py, nodes/core/cell_reader.py,
nodes/core/choice_reader.py) scores candidate spans with these; nodes/core/answering.py passes
it `RunSettings.reader`, so `RunSettings(reader=ReaderTuning(...))` or
`FIF_READER='{"pivot_bonus": 2.0}'` changes them for a run. The protocol for a change is
FiFTuning's (state/tuning.py).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ReaderTuning(BaseModel):
    """The offline extractive reader's constants: candidate weights and how far it reads.

    Each description says what the value trades; how each default was chosen and what
    halving or doubling it does is in docs/tuning-log.md.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    read_components: int = Field(
        5,
        ge=1,
        description="Top-ranked components whose sentences and table rows give candidate spans. "
        "More finds answers ranked lower but adds more noise than answers.",
    )
    table_rows: int = Field(
        3,
        ge=1,
        description="Best-matching rows of each table whose cells are candidates. More reaches a "
        "row the question matches weakly, at the price of more wrong cells.",
    )
    rank_decay: float = Field(
        0.3,
        ge=0.0,
        description="A component's weight is 1 / (1 + rank_decay * rank): higher trusts the "
        "ranking's order over each candidate's own fit, 0 ignores the order.",
    )
    proximity_scale: float = Field(
        4.0,
        gt=0.0,
        description="Tokens at which a span's nearness to a question word has halved its score: "
        "lower favours the span right next to the relation words, higher lets the "
        "sentence's other spans compete.",
    )
    no_match_proximity: float = Field(
        0.2,
        ge=0.0,
        description="The nearness given to a span in a sentence holding none of the question's "
        "words (a span whose only nearby hit lies inside itself): higher lets "
        "unanchored sentences answer.",
    )
    pivot_bonus: float = Field(
        4.0,
        ge=1.0,
        description="Weight of a span that starts right after the question's pivot words "
        '("founded by" favours what follows it) against a span nearer other question '
        "words; 1 gives the pivot no weight of its own.",
    )
    pivot_reach: int = Field(
        3,
        ge=1,
        description="Tokens after the pivot within which a span still counts as following it: more "
        "tolerates an article or title between, less avoids a later name.",
    )
    modifier_factor: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="Discount of a name followed by a lowercase content word, which it modifies "
        '("South Korean singer", "American basic cable"): lower drops such names, at '
        "the cost of a name that answers before a verb-like word; 1 is no discount.",
    )
    possessive_factor: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description='Discount of a possessive name ("Aristotle\'s"), usually the subject '
        "around the answer rather than the answer; 1 is no discount.",
    )
    acronym_factor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Discount of an all-capitals name (an acronym), rarely the answer a question "
        "asks for; lower also costs answers that are acronyms, 1 is no discount.",
    )
    single_word_person_factor: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Discount of a one-word name for a person question (people are usually named "
        "with first and last name); lower costs mononyms and surnames, 1 is no "
        "discount.",
    )
    own_title_factor: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="Discount of a name that is its own page's subject: what the question asks "
        "about, rarely what it asks for; 1 is no discount.",
    )
    other_title_factor: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Discount of a name that is another top page's subject, often a multi-hop "
        "question's bridge entity (but sometimes its answer); not applied to table "
        "cells. 1 is no discount.",
    )
    joined_place_bonus: float = Field(
        1.2,
        ge=1.0,
        description='Weight of a "City, State" pair over its city alone, for a city question: the '
        "fuller answer without outweighing a better-placed city; 1 is no preference.",
    )
    city_factor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description='Discount of the city of a "City, State" pair (and of the pair) for a state or '
        "country question, so the region wins; 1 is no discount.",
    )
    named_column_bonus: float = Field(
        1.0,
        ge=0.0,
        description="Added to a base of 0.5 for a table cell whose column header shares a word "
        "with the question: higher trusts the named column over the cell's kind and "
        "row, 0 ignores headers.",
    )
    option_share: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="Share of an option's (or a yes/no entity's) words a component's title and "
        "text must contain to be its evidence: higher misses pages naming it in part, "
        "lower takes another page's.",
    )
