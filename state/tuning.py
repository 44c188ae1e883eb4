"""FiF's tuned constants in one object: what each trades, and how it was chosen.

`FiFContext.tuning` holds one (`FiFContext(tuning=FiFTuning(chain_margin=0.1))`, or
`{"tuning": {...}}` from Studio). The protocol for changing a value: choose it on the tuning
halves of both dev bundles (evals/halves.py), keep it only if it holds on both, and quote
the reporting halves (benchmarks/halves_report.py). Each description says what the value
trades and its useful range; the measurements behind each default are in docs/tuning-log.md.

The offline answer reader's constants are not FiF's: they are `RunSettings.reader`
(state/reader_tuning.py), shared by every system that answers through the reader.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from state.core import SearchMode


class FiFTuning(BaseModel):
    """Every constant FiF's offline decisions were tuned with (see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    global_search: SearchMode = Field(
        "hybrid",
        description="How a global document stage ranks documents (found documents keep their dense "
        "scores): dense vectors, BM25, or both fused by reciprocal rank. Trades BM25's "
        "exact names against vectors' paraphrases; hybrid keeps both signals.",
    )
    component_search: SearchMode = Field(
        "dense",
        description="How a component stage after a global document stage ranks the chosen "
        "documents' components: dense (best cosine over a component and its parts), "
        "BM25 over the same parts, or both fused by reciprocal rank. Kept components "
        "keep their dense scores either way. Hybrid helps long filings whose line "
        "items are named exactly, and costs link-rich pages.",
    )
    bridge_hops: int = Field(
        3,
        ge=0,
        le=4,
        description="Orchestrator: how many entity-bridge subqueries a question may add "
        "(nodes/fif/bridge.py: the entity a success's evidence names plus the question's "
        "uncovered words, one global hop each; a bridge's own evidence may name the "
        "next, and the subquery is also a reranker facet). 0 turns bridges off; each "
        "bridge walks one page deeper (a question n pages deep needs n - 1), at the "
        "price of steps on shallow questions.",
    )
    comparison_bridges: bool = Field(
        False,
        description='Bridges: whether a question comparing entities it names ("Are A and B both '
        '...?", "Which came first, A or B?"; an initial plan of one subquery per '
        "entity) reads bridges. Its answer is usually on the entities' own pages, and "
        "the entities those pages mention only spend steps and add facets; on, a "
        "comparison whose answer sits one page further is reached too.",
    )
    bridge_lexical_weight: float = Field(
        0.2,
        ge=0.0,
        description="Bridges: weight of a row's or sentence's BM25 match (among its component's "
        "parts) next to its cosine when choosing the part a bridge entity is read "
        "from. Higher trusts the question's exact values in the row; 0 is cosine "
        "alone.",
    )
    superlative_weight: float = Field(
        0.5,
        ge=0.0,
        description="Rows: added to the score of the table rows holding the value a superlative "
        'picks ("the least capacity", "the second most points"; the question rule '
        '"superlative", nodes/core/question_rules.py) wherever rows are scored: the row a '
        "link hop leaves from, the row a bridge is read from, a chain's path penalty. "
        "Trades the row's words against the order "
        "the question asks for; 0 turns it off, about 0.25 to 2 reorders the rows.",
    )
    bridge_tie_margin: float = Field(
        0.03,
        ge=0.0,
        description="Bridges: components of a step scoring within this margin of its best are a "
        "near tie, and the bridge is read from the one covering most of the question's "
        "terms. Higher lets coverage overrule the ranking more often; 0 always reads "
        "the top component.",
    )
    first_hop_slots: int = Field(
        0,
        ge=0,
        le=10,
        description="Reranker: places of the top k kept for the strongest first-step finds however "
        "many link chains outrank them. Trades chain targets against single hits; 0 "
        "lets chains take every place.",
    )
    keep_subquery_finds: bool = Field(
        True,
        description="Reranker: the top find of each successful global hop on a subquery other than "
        "the question itself (a bridge's page, one entity of a comparison; also a "
        "subquery another step answered on the way) stays in the top k, however many "
        "link chains outrank it (the question's own first hop is first_hop_slots'). "
        "Trades one place of a chain target for the page a subquery was about.",
    )
    rerank_lexical_weight: float = Field(
        0.5,
        ge=0.0,
        description="Reranker: weight of an extra facet, the BM25 match of the question and its "
        "subqueries among the candidate pool (a component's text with its section "
        "headings; IDF within the pool; the best match scores this much), next to the "
        "cosine facets. Trades exact words (names, line items) against paraphrase; 0 "
        "turns it off, about 0.25 to 1 is useful.",
    )
    success_score: float = Field(
        0.45,
        ge=-1.0,
        le=1.0,
        description="Evaluator: best cosine counted as a success. Higher escalates sooner (more "
        "steps, more LLM calls); lower stops on weaker evidence. About 0.4 to 0.5 is "
        "useful with the default embedder.",
    )
    min_coverage: float = Field(
        0.5,
        ge=0.0,
        le=1.0,
        description="Evaluator: share of the subquery's content terms the top components must "
        "contain to count as a success. Higher hops further (more steps); lower "
        "accepts partial matches.",
    )
    link_follow_score: float = Field(
        0.2,
        ge=-1.0,
        le=1.0,
        description="Evaluator: a linked document this relevant to the question means the hop is "
        "not finished. Lower follows more links, for more steps; higher stops at the "
        "first page that answers in part.",
    )
    hop_margin: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="Evaluator: how much lower success_score is for a neighbors hop (its target "
        "need only fit the residual question). Higher accepts weaker link targets; 0 "
        "judges link hops like global ones.",
    )
    also_answers_margin: float = Field(
        0.15,
        ge=0.0,
        le=1.0,
        description="Evaluator: a step's top component also answers another open subquery when it "
        "scores success_score plus this much for it. Lower closes subqueries sooner "
        "(fewer steps, more risk of a wrong close).",
    )
    link_prior: float = Field(
        3.0,
        ge=0.0,
        description="Traversal: weight of the linking row's match when ranking documents a link "
        "reached; high trusts the row that holds the link, low trusts the target's own "
        "fit. 0 ignores the row.",
    )
    lexical_weight: float = Field(
        0.05,
        ge=0.0,
        description="Link hops: weight of a linking row's BM25 match (among the linking rows) next "
        "to its cosine; a row repeating the question's rare values wins. 0 is cosine "
        "alone.",
    )
    chain_margin: float = Field(
        0.05,
        ge=0.0,
        description="Reranker: a chain ranks as a unit only if it beats its better member alone by "
        "this much (summed over facets), so a weak link target cannot ride on a strong "
        "source past the next single hit. Higher ranks fewer chains as units.",
    )
    path_weight: float = Field(
        0.25,
        ge=0.0,
        description="Reranker: weight of how far a chain's linking row trails the best linking "
        "row. Trades chains through the row the question names against rows a linked "
        "page describes; 0 ignores the row.",
    )
    residual_weight: float = Field(
        1.0,
        ge=0.0,
        description="Reranker: weight of how well a chain's target fits what its source leaves of "
        "the question. Higher favours targets that complete the question over targets "
        "that repeat it.",
    )
    co_link_weight: float = Field(
        0.5,
        ge=0.0,
        description="Reranker: weight of a table chain's co-link support, the residual fit of "
        "another entity its row links to (nodes/fif/chain_evidence.py): the row whose one "
        "link fits the question's description lifts its other links. Trades rows found "
        "through a described entity against chains of the single best-matching "
        "passage; 0 turns it off.",
    )
