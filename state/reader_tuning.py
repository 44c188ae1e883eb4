"""The offline answer reader's tuned constants, nested in FiFTuning as `FiFTuning.reader`.

The reader (nodes/core/span_reader.py, nodes/core/span_shapes.py, nodes/core/cell_reader.py,
nodes/core/choice_reader.py) scores candidate spans with these; nodes/fif/answerer.py passes it
`Context.tuning.reader`, so `Context(tuning=FiFTuning(reader=ReaderTuning(...)))` or
`FIF_TUNING='{"reader": {"pivot_bonus": 2.0}}'` changes them for a run. The protocol for a
change is FiFTuning's (state/tuning.py). Kept apart from state/tuning.py for its size.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

READER_HALVES = "the tuning halves of HotpotQA-train100 and OTT-QA dev200"
"""Where the reader's constants were chosen (evals/halves.py)."""


class ReaderTuning(BaseModel):
    """The offline extractive reader's constants: candidate weights and how far it reads.

    All were chosen on READER_HALVES when the reader was written (commits a77f7ec, aa9db49,
    db4701e), without per-value figures. Each description's "Sweep" re-checks the value
    alone: benchmarks/reader_sweep.py re-reads FiF's saved rankings (its offline eval of
    both bundles) with the constant halved and doubled and counts exact matches on the
    tuning halves: 18/39 on HotpotQA and 14/110 on OTT-QA at these defaults; "x -> HotpotQA
    16" means value x gives 16 there, and the other half is unchanged unless named.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    read_components: int = Field(
        5,
        ge=1,
        description="Top-ranked components whose sentences and table rows give candidate "
        "spans. More finds answers ranked lower but adds more noise than answers; chosen on "
        f"{READER_HALVES}. "
        "Sweep: 3 -> OTT-QA 13; 7 changes nothing.",
    )
    table_rows: int = Field(
        3,
        ge=1,
        description="Best-matching rows of each table whose cells are candidates. More reaches "
        f"a row the question matches weakly at the price of more wrong cells; chosen on "
        f"{READER_HALVES}. "
        "Sweep: 1 or 5 change no answer on either half.",
    )
    rank_decay: float = Field(
        0.3,
        ge=0.0,
        description="A component's weight is 1 / (1 + rank_decay * rank): higher trusts the "
        "ranking's order over each candidate's own fit, 0 ignores the order. Chosen on "
        f"{READER_HALVES}. "
        "Sweep: 0.15 -> HotpotQA 16, OTT-QA 13; 0.6 -> OTT-QA 13.",
    )
    proximity_scale: float = Field(
        4.0,
        gt=0.0,
        description="Tokens at which a span's nearness to a question word has halved its "
        "score: lower favours the span right next to the relation words, higher lets the "
        f"sentence's other spans compete. Chosen on {READER_HALVES}. "
        "Sweep: 2 changes no exact match; 8 -> HotpotQA 17.",
    )
    no_match_proximity: float = Field(
        0.2,
        ge=0.0,
        description="The nearness given to a span in a sentence holding none of the "
        "question's words (a span whose only nearby hit lies inside itself): higher lets "
        f"unanchored sentences answer. Chosen on {READER_HALVES}. "
        "Sweep: 0.1 or 0.4 change no answer on either half.",
    )
    pivot_bonus: float = Field(
        4.0,
        ge=1.0,
        description="Weight of a span that starts right after the question's pivot words "
        '("founded by" favours what follows it) against a span nearer other question '
        f"words. Raised from 2 to 4 on {READER_HALVES} (aa9db49). "
        "Sweep: 2 -> HotpotQA 16; 8 changes nothing.",
    )
    pivot_reach: int = Field(
        3,
        ge=1,
        description="Tokens after the pivot within which a span still counts as following it: "
        f"more tolerates an article or title between, less avoids a later name. Chosen on "
        f"{READER_HALVES}. "
        "Sweep: 1 -> HotpotQA 16; 5 -> OTT-QA 15 (one question).",
    )
    modifier_factor: float = Field(
        0.4,
        ge=0.0,
        le=1.0,
        description="Discount of a name followed by a lowercase content word, which it "
        'modifies ("South Korean singer", "American basic cable"): lower drops such '
        f"names, at the cost of a name that answers before a verb-like word. Chosen on "
        f"{READER_HALVES}. "
        "Sweep: 0.2 changes nothing; 0.8 -> HotpotQA 17.",
    )
    possessive_factor: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description='Discount of a possessive name ("Aristotle\'s"), usually the subject '
        f"around the answer rather than the answer. Chosen on {READER_HALVES}. "
        "Sweep: 0.15 or 0.6 change no answer on either half.",
    )
    acronym_factor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Discount of an all-capitals name (an acronym), rarely the answer a "
        "question asks for; lower also costs answers that are acronyms. Chosen on "
        f"{READER_HALVES}. "
        "Sweep: 0.25 changes nothing; 1 -> HotpotQA 17.",
    )
    single_word_person_factor: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Discount of a one-word name for a person question (people are usually "
        "named with first and last name); lower costs mononyms and surnames. Chosen on "
        f"{READER_HALVES}. "
        "Sweep: 0.3 changes nothing; 1 keeps the exact matches (HotpotQA F1 0.489 -> 0.502).",
    )
    own_title_factor: float = Field(
        0.3,
        ge=0.0,
        le=1.0,
        description="Discount of a name that is its own page's subject: what the question "
        f"asks about, rarely what it asks for. Chosen on {READER_HALVES}. "
        "Sweep: 0.15 or 0.6 change no answer on either half.",
    )
    other_title_factor: float = Field(
        0.6,
        ge=0.0,
        le=1.0,
        description="Discount of a name that is another top page's subject, often a "
        "multi-hop question's bridge entity (but sometimes its answer). Not applied to table "
        f"cells (on OTT-QA's tuning half that cost answers). Chosen on {READER_HALVES}. "
        "Sweep: 0.3 changes nothing; 1 (no discount) -> HotpotQA 20, OTT-QA 14: the first "
        "value to re-check on both halves.",
    )
    joined_place_bonus: float = Field(
        1.2,
        ge=1.0,
        description='Weight of a "City, State" pair over its city alone, for a city '
        f"question: the fuller answer without outweighing a better-placed city. Chosen on "
        f"{READER_HALVES} (db4701e). "
        "Sweep: 2.4 changes no exact match.",
    )
    city_factor: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description='Discount of the city of a "City, State" pair (and of the pair) for a '
        f"state or country question, so the region wins. Chosen on {READER_HALVES} "
        "(db4701e). "
        "Sweep: 0.25 changes nothing; 1 -> HotpotQA 17.",
    )
    named_column_bonus: float = Field(
        1.0,
        ge=0.0,
        description="Added to a base of 0.5 for a table cell whose column header shares a word "
        "with the question: higher trusts the named column over the cell's kind and row. "
        f"Chosen on {READER_HALVES}. "
        "Sweep: 0.5 or 2 change no exact match (OTT-QA F1 0.150 -> 0.148 / 0.142).",
    )
    option_share: float = Field(
        0.5,
        gt=0.0,
        le=1.0,
        description="Share of an option's (or a yes/no entity's) words a component's title "
        "and text must contain to be its evidence: higher misses pages naming it in part, "
        f"lower takes another page's. Chosen on {READER_HALVES}. "
        "Sweep: 0.25 or 1 change no answer on either half.",
    )
