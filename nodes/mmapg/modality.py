"""Split a retrieval instruction into text and image parts and extract its key phrases.

The offline twin of the seed's decomposition and extraction calls (seed 003, §3.4, eqs.
5–9): the image part is the instruction when it asks about looks (LILaC's keyword rule
`guess_modality`); identifiers are document titles the instruction names (the title lookup
FiF's offline planner uses); an image part naming an identifier is targeted image retrieval,
one without is descriptive. Key phrases are the identifiers plus the content words of each
clause, which the offline examination checks candidates against.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nodes.core.lexical import content_words
from nodes.fif.plan_heuristics import named_entities
from nodes.lilac.heuristics import guess_modality, split_clauses
from state.mmapg_state import ImageMode
from tools.corpus_index import CorpusIndex

MAX_KEY_PHRASES = 6
"""Key phrases kept per instruction (the seed's few-shot examples give one to three)."""


@dataclass(frozen=True)
class InstructionSplit:
    """What a Retrieval node searches for: text part, image part and how to find images."""

    text_part: str
    image_part: str
    image_mode: ImageMode
    key_phrases: tuple[str, ...]
    targets: tuple[str, ...]
    """Identifiers (titles) named by the instruction, looked up in the text KB."""
    image_question: str = ""
    """What to check in a candidate image (the seed's I_tgt / I_descr)."""
    notes: dict[str, str] = field(default_factory=dict)

    def as_detail(self) -> dict[str, object]:
        """Return the split as plain data for the node's detail."""
        return {
            "text_part": self.text_part,
            "image_part": self.image_part,
            "image_mode": self.image_mode,
            "key_phrases": list(self.key_phrases),
            "targets": list(self.targets),
            "image_question": self.image_question,
        }


def image_mode_of(image_part: str, targets: tuple[str, ...]) -> ImageMode:
    """Return how an image part is searched: by a named identifier, by description, or not."""
    if not image_part.strip():
        return "none"
    return "targeted" if targets else "descriptive"


def key_phrases(instruction: str, targets: tuple[str, ...]) -> tuple[str, ...]:
    """Return the identifiers, then each clause's content words without the identifiers."""
    named = {word for target in targets for word in content_words(target)}
    phrases = list(targets)
    for clause in split_clauses(instruction):
        words = [w for w in content_words(clause) if w not in named]
        if words:
            phrases.append(" ".join(words))
    return tuple(dict.fromkeys(phrases))[:MAX_KEY_PHRASES]


def offline_split(index: CorpusIndex, instruction: str, split: bool = True) -> InstructionSplit:
    """Split an instruction without a model.

    Args:
        index: The corpus index (its document titles are the identifiers).
        instruction: The Retrieval node's instruction.
        split: False for the no-split ablation: no image part, the text KB only.
    """
    targets = tuple(named_entities(index, instruction))
    image_part = instruction if split and guess_modality(instruction) == "image" else ""
    return InstructionSplit(
        text_part=instruction,
        image_part=image_part,
        image_mode=image_mode_of(image_part, targets),
        key_phrases=key_phrases(instruction, targets),
        targets=targets,
        image_question=image_part,
    )
