"""The LLM side of MMAPG's retrieval module: instruction split and candidate examination.

Each function makes one structured call through `StructuredCaller` and raises
`LLMFailure` when the model gives no valid answer; `nodes.core.reasoning.decide_within` then
runs the offline twin and records the fallback.
"""

from __future__ import annotations

from collections.abc import Sequence

from nodes.core.prompts import as_data
from nodes.core.reasoning import describe, with_images
from nodes.mmapg.modality import InstructionSplit
from nodes.mmapg.prompts import EXAMINE_SYSTEM, EXAMINE_USER, SPLIT_SYSTEM, SPLIT_USER
from nodes.mmapg.schemas import ExaminationReply, SplitReply
from state.mmapg_state import Evidence, MMAPGContext, PlanNode
from tools.corpus_index import CorpusIndex
from tools.cost import CostMeter
from tools.llm_calls import StructuredCaller

PARENT_CHARS = 400
"""How much of a parent node's content the split prompt shows."""


def parents_text(parents: Sequence[PlanNode]) -> str:
    """Render parent nodes for a prompt, one line each."""
    lines = [
        f"[{p['id']}] {p['type']}: {' '.join(p['content'].split())[:PARENT_CHARS]}" for p in parents
    ]
    return as_data("\n".join(lines), "parent nodes") if lines else "(none)"


def split_with_llm(
    caller: StructuredCaller, instruction: str, parents: Sequence[PlanNode], meter: CostMeter
) -> InstructionSplit:
    """Ask the model to split an instruction into text and image parts (seed eqs. 5–9)."""
    user = SPLIT_USER.format(parents=parents_text(parents), instruction=instruction)
    reply = caller.call(SplitReply, SPLIT_SYSTEM, user, meter)
    text_part = reply.text_part.strip() or instruction
    image_part = reply.image_part.strip()
    mode = reply.image_mode if image_part else "none"
    if mode == "none" and image_part:
        mode = "descriptive"
    if mode == "targeted" and not reply.targets:
        mode = "descriptive"  # a "targeted" part naming nothing is a description
    return InstructionSplit(
        text_part=text_part,
        image_part=image_part,
        image_mode=mode,
        key_phrases=tuple(reply.key_phrases) or (text_part,),
        targets=tuple(reply.targets),
        image_question=reply.image_question.strip() or image_part,
    )


def examine_with_llm(
    caller: StructuredCaller,
    index: CorpusIndex,
    candidates: Sequence[Evidence],
    split: InstructionSplit,
    context: MMAPGContext,
    meter: CostMeter,
) -> tuple[dict[int, str], str]:
    """Ask the model which candidates hold what the instruction asks (seed eqs. 12–14).

    Returns:
        (candidate index → the information it holds, the summary of what was found).
    """
    graph = index.graph
    ids = [c["component_id"] for c in candidates]
    listing = as_data(
        "\n".join(f"{i}: {describe(graph, cid)}" for i, cid in enumerate(ids)), "candidates"
    )
    text = EXAMINE_USER.format(
        candidates=listing,
        instruction=split.text_part,
        image_question=split.image_question or "(none)",
    )
    user = with_images(text, graph, ids, context)

    def valid(reply: ExaminationReply) -> None:
        bad = [r.index for r in reply.relevant if r.index >= len(ids)]
        if bad:
            raise ValueError(f"indices {bad} do not exist; use 0..{len(ids) - 1}")

    reply = caller.call(ExaminationReply, EXAMINE_SYSTEM, user, meter, validate=valid)
    return {r.index: r.information for r in reply.relevant}, reply.summary
