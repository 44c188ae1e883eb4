"""The retrieval module (seed 003, §3.4): split, search per modality within a radius, examine.

`retrieve` turns one Retrieval node's instruction into the node's content: it splits the
instruction into text and image parts (LLM or `modality.offline_split`), searches the text
KB, the documents of each named identifier and the image KB, keeps each pool's candidates
within its radius, and examines them (LLM or `examination.examine_offline`). No kept
candidate makes a "no result" node.

The text KB is the index's triplet KB when it was built with `fif build --triplets`
(components scored by their best triplet, seed 003 eqs. 1–2), else the sentences and table
rows. The run-time option `MMAPGContext.triplets` (a chat model rewrites the candidates as
triplets) applies only to indices without a built KB: with one it would re-ask the model
for what the build already extracted, so it is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from nodes.core.guards import instruction_like, ungrounded
from nodes.core.reasoning import Decided, decide_within
from nodes.fif.plan_heuristics import named_documents
from nodes.mmapg.examination import (
    Examined,
    apply_verdicts,
    evidence_snippet,
    examine_offline,
)
from nodes.mmapg.llm_steps import examine_with_llm, split_with_llm
from nodes.mmapg.modality import InstructionSplit, offline_split
from nodes.mmapg.radius import RadiusSettings, image_pool, merge_pools, text_pool, within_radius
from nodes.mmapg.triplets import rescored, triplets_of
from state.mmapg_state import Evidence, MMAPGContext, PlanNode
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

MAX_TARGETS = 3
"""Identifiers looked up per instruction; each gets its own pool (and radius)."""
NO_RESULT = "no result"
TextKB = Literal["triplets", "sentences and rows", "sentences and rows, rescored by triplets"]


@dataclass(frozen=True)
class Retrieved:
    """What a Retrieval node found: kept candidates, the others, and how it was decided."""

    split: InstructionSplit
    kept: list[Evidence]
    others: list[Evidence]
    summary: str
    decisions: list[Decided]
    pools: dict[str, int] = field(default_factory=dict)
    text_kb: TextKB = "sentences and rows"
    """What the text pools were scored against."""


def target_docs(index: CorpusIndex, targets: Sequence[str]) -> list[list[str]]:
    """Return the documents each identifier names (identifiers naming none are dropped)."""
    found = [named_documents(index, target) for target in targets]
    return [docs for docs in found if docs][:MAX_TARGETS]


def gather(
    index: CorpusIndex, split: InstructionSplit, settings: RadiusSettings, meter: CostMeter
) -> tuple[list[Evidence], list[Evidence], dict[str, int]]:
    """Search every pool the split asks for; return (inside radii, outside, pool sizes)."""
    k, kb = settings.shortlist_k, settings.triplet_kb
    pools: list[tuple[str, list[Evidence]]] = [
        ("text", text_pool(index, split.text_part, k, meter, None, kb))
    ]
    named = target_docs(index, split.targets)
    for position, docs in enumerate(named):
        pools.append((f"target{position}", text_pool(index, split.text_part, k, meter, docs, kb)))
    cut = [radius_split(name, pool, settings) for name, pool in pools]
    if split.image_mode != "none":
        scope: list[str] | None = None  # descriptive: the whole image KB
        if split.image_mode == "targeted":
            scope = looked_up_docs(named, [near for near, _ in cut])
        query = split.image_question or split.image_part
        images = image_pool(index, query, k, meter, scope) if scope != [] else []
        pools.append(("image", images))
        cut.append(radius_split("image", images, settings))
    inside = merge_pools(*(near for near, _ in cut))
    known = {c["component_id"] for c in inside}
    rest = [c for c in merge_pools(*(far for _, far in cut)) if c["component_id"] not in known]
    return inside, rest, {name: len(pool) for name, pool in pools}


def radius_split(
    name: str, pool: list[Evidence], settings: RadiusSettings
) -> tuple[list[Evidence], list[Evidence]]:
    """Cut one pool at its radius (the image pool at the image radius, others at the text one)."""
    radius = settings.radius("image" if name == "image" else "text")
    return within_radius(pool, radius, settings.max_in_radius, settings.fixed_top_k)


def looked_up_docs(
    named: Sequence[Sequence[str]], found: Sequence[Sequence[Evidence]]
) -> list[str]:
    """Return where targeted images are looked for: named documents, then text-KB finds.

    The identifiers' own documents come first, then the documents of the text-KB candidates
    inside the radius (where the identifier was found in titles and text).
    """
    docs = [doc for group in named for doc in group]
    docs += [c["doc_id"] for pool in found for c in pool]
    return list(dict.fromkeys(docs))


def retrieve(
    index: CorpusIndex,
    instruction: str,
    parents: Sequence[PlanNode],
    context: MMAPGContext,
    meter: CostMeter,
    llm_allowed: bool,
) -> Retrieved:
    """Run the retrieval module for one instruction."""
    split_decided = decide_within(
        llm_allowed,
        context,
        meter,
        None
        if context.no_modality_split
        else lambda c: split_with_llm(c, instruction, parents, meter),
        lambda: offline_split(index, instruction, not context.no_modality_split),
        [lambda split: split_refusal(split, instruction, parents)],
    )
    split: InstructionSplit = split_decided.value
    settings = RadiusSettings.of(context, index)
    inside, outside, sizes = gather(index, split, settings, meter)
    kb: TextKB = "triplets" if settings.triplet_kb else "sentences and rows"
    decisions = [split_decided]
    if not inside:  # nothing within any radius: nothing to rescore or examine
        return Retrieved(split, [], outside, NO_RESULT, decisions, sizes, kb)
    if context.triplets and not settings.triplet_kb:
        by_triplets = triplet_scores(index, split, inside, context, meter, llm_allowed)
        decisions.append(by_triplets)
        if by_triplets.decided_by == "llm":  # new scores: cut the text candidates again
            kb = "sentences and rows, rescored by triplets"
            inside, outside = recut(by_triplets.value, inside, outside, settings)
    inside = sorted(inside, key=lambda c: (-c["score"], c["component_id"]))
    if context.no_examination:
        return Retrieved(split, inside, outside, _listing(index, inside), decisions, sizes, kb)
    phrases = list(split.key_phrases)
    examined = decide_within(
        llm_allowed,
        context,
        meter,
        lambda caller: examined_by_llm(caller, index, inside, split, context, meter),
        lambda: examine_offline(index.graph, inside, phrases),
        [lambda found: examined_refusal(found, len(inside))],
    )
    result: Examined = examined.value
    summary = result.summary if result.kept and result.summary else NO_RESULT
    others = [*result.rejected, *outside]
    return Retrieved(split, result.kept, others, summary, [*decisions, examined], sizes, kb)


def split_refusal(
    split: InstructionSplit, instruction: str, parents: Sequence[PlanNode]
) -> str | None:
    """Refuse a split whose searches leave the instruction (and its parents' findings)."""
    grounds = [instruction, *(p["content"] for p in parents)]
    searched = [split.text_part, *split.key_phrases, *split.targets]
    problem = ungrounded(searched, grounds, "search text")
    if problem is None and instruction_like(split.image_question):
        problem = "the image question reads as an instruction"
    return problem


def examined_refusal(found: Examined, candidates: int) -> str | None:
    """Refuse an examination that keeps nothing of what was retrieved, or is an instruction."""
    if candidates and not found.kept:
        return f"keeps none of {candidates} candidates"
    if instruction_like(found.summary):
        return "its summary reads as an instruction"
    return None


def recut(
    rescored: list[Evidence],
    inside: list[Evidence],
    outside: list[Evidence],
    settings: RadiusSettings,
) -> tuple[list[Evidence], list[Evidence]]:
    """Cut the rescored text candidates at the text radius again; images keep their place."""
    texts = [c for c in rescored if c["pool"] != "image"]
    near, dropped = within_radius(texts, settings.text_radius, len(texts))
    return [*near, *(c for c in inside if c["pool"] == "image")], [*dropped, *outside]


def triplet_scores(
    index: CorpusIndex,
    split: InstructionSplit,
    inside: list[Evidence],
    context: MMAPGContext,
    meter: CostMeter,
    llm_allowed: bool,
) -> Decided:
    """Rescore candidates by their LLM triplets (offline: keep the subcomponent scores)."""

    def with_llm(caller: StructuredCaller) -> list[Evidence]:
        found = triplets_of(caller, index, inside, meter)
        return rescored(index, split.text_part, inside, found, meter)

    return decide_within(llm_allowed, context, meter, with_llm, lambda: inside)


def examined_by_llm(
    caller: StructuredCaller,
    index: CorpusIndex,
    inside: list[Evidence],
    split: InstructionSplit,
    context: MMAPGContext,
    meter: CostMeter,
) -> Examined:
    """Examine the candidates with the model; its notes say what each kept one holds."""
    notes, summary = examine_with_llm(caller, index, inside, split, context, meter)
    kept, rejected = apply_verdicts(inside, notes)
    return Examined(kept, rejected, summary)


def _listing(index: CorpusIndex, found: Sequence[Evidence]) -> str:
    return " | ".join(evidence_snippet(index.graph, c) for c in found[:2]) or NO_RESULT
