"""Corpus text addressed to the reader: instructions, answer templates and role-play.

A page may speak to whoever reads it ("Answer: X", "you are now the assistant", "reply
X", a chat-template token) instead of describing the world. Such text can be quoted to a
model as data, but it is never evidence: an answer must be supported by what remains of
the cited text once every segment addressed to the reader is taken out. Segments are
sentences, lines and table cells, so a template hidden in one cell, one OCR line or a PDF's
metadata line is dropped on its own, and the rest of the component still counts.
"""

from __future__ import annotations

import re

INSTRUCTION = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b[^.!?\n]{0,60}"
    r"\b(?:task|instructions?|prompt|question|above|previous|rules?)\b"
    r"|\b(?:system prompt|you must (?:now )?(?:answer|reply|stop|say))\b"
    r"|\b(?:answer|reply|respond|say) (?:only |just )?(?:with )?[\"'“]?(?-i:[A-Z]{3,})\b",
    re.IGNORECASE,
)
"""Text that addresses the model instead of describing the world (a prompt injection)."""
ANSWER_TEMPLATE = re.compile(
    r"\b(?:final |correct |expected )?(?:answer|response|reply|output)\s*[:=]"
    r"|(?:^|\s)(?:q|a)\s*:\s"
    r"|\bthe (?:correct |right |final |real |true |only )?(?:answer|response|reply) "
    r"(?:is|was|should be|must be|will be|to give is)\b",
    re.IGNORECASE,
)
"""Text shaped as the answer slot of a question (`Answer: X`, `A: X`, "the answer is X")."""
ROLE_PLAY = re.compile(
    r"\byou are (?:now |no longer )?(?:an? |the |my )?(?:ai|assistant|model|chatbot|bot|"
    r"language model|llm|system|grader|helpful)\b"
    r"|\b(?:act|behave|respond) as (?:an? |the )?(?:ai|assistant|model|system|grader)\b"
    r"|\bpretend (?:to be|you are|that you)\b|\brole-?play\b|\bstay in character\b"
    r"|\bas an? (?:ai|assistant|language model)\b"
    r"|\b(?:dear|attention|note to|message (?:to|for)) (?:the )?(?:ai|assistant|model|llm|"
    r"chatbot|bot|reader|language model)s?\b"
    r"|(?:^|\n)\s*(?:system|assistant|user|human)\s*:"
    r"|<\|im_(?:start|end)\|>|\[/?INST\]|</?s>|###\s*(?:instruction|response|system)",
    re.IGNORECASE,
)
"""Text that casts the reader as a model, or imitates a chat transcript or template."""
REPLY_VERB = r"\b(?:answer|reply|respond|output|print|return|type|write)(?:s|ed|ing)?\b"
LINKING = r"\s+(?:(?:with|only|just|simply|always|the|word|words|a|an|by|saying|this)\s+){0,4}"
"""Words that may stand between a reply verb and the answer it asks for."""
SEGMENT = re.compile(r"(?<=[.!?])\s+|\n+|\s+\|\s+|\t+")
"""Sentences, lines and table cells (rows render as `Header: a | Header: b`)."""


def addressed_to_reader(text: str) -> bool:
    """Tell whether text is an instruction, an answer template or role-play for the reader."""
    return bool(INSTRUCTION.search(text) or ANSWER_TEMPLATE.search(text) or ROLE_PLAY.search(text))


def prompts_answer(segment: str, answer: str) -> bool:
    """Tell whether a segment asks the reader to give this answer ("… answer PWNED …").

    The answer's first word right after a reply verb (only words such as "with", "only",
    "the word" between) reads as a request to answer it, whatever the rest of the sentence
    says; "their reply came in 1972" does not.
    """
    words = re.findall(r"\w+", answer)
    if not words:
        return False
    pattern = REPLY_VERB + LINKING + r"[\"'“‘]?" + re.escape(words[0]) + r"\b"
    return bool(re.search(pattern, segment, re.IGNORECASE))


def factual_part(text: str, answer: str) -> str:
    """Return the text without its segments addressed to the reader (for this answer)."""
    kept = [
        segment
        for segment in SEGMENT.split(text)
        if segment.strip()
        and not addressed_to_reader(segment)
        and not prompts_answer(segment, answer)
    ]
    return "\n".join(kept)
