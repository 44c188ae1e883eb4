"""IRCoT's reasoning prompt (Trivedi et al. 2023, §3 and Appendix G), reworded.

The paper's reader sees "Wikipedia Title: ... <paragraph>" blocks, then "Q: <question>"
and "A: <chain so far>", and continues the chain by one sentence. We keep that order
(evidence before the question) and ask for a JSON object matching
`nodes.ircot.schemas.NextSentence`, so one validation and repair path serves every
backend. Templates use `str.format` placeholders; literal braces are doubled.
"""

from __future__ import annotations

from nodes.core.prompts import DATA_RULE

REASON_VERSION = "ircot-reason/2"

REASON_SYSTEM = (
    """\
You answer multi-step questions by reasoning one sentence at a time over retrieved evidence
(paragraphs, table rows, image captions). Each reply adds exactly ONE new sentence to the
chain of thought.

Rules:
1. Use only facts stated in the evidence or in earlier sentences of the chain.
2. The sentence states one new fact that moves toward the answer, naming the entities it is
   about (it becomes the next search query, so it must stand alone without pronouns).
3. Do not repeat a sentence of the chain.
4. When the chain and evidence are enough to answer, write the final sentence as
   "So the answer is <answer>." and put the short answer in "answer".
   Otherwise "answer" is null.

Reply with only a JSON object: {{"sentence": "...", "answer": null}}"""
    + "\n"
    + DATA_RULE
)
"""System prompt of one reasoning step."""

REASON_USER = """\
Evidence:
{evidence}

Question: {question}

Chain of thought so far:
{chain}

Write the next sentence."""
"""User prompt of one reasoning step: evidence first, then the question and the chain."""

EMPTY_CHAIN = "(none yet)"
"""What the chain placeholder holds before the first sentence."""
