"""ReAgent's prompts (seed 004, Appendix A), in our own words; nodes only fill placeholders.

Each agent answers with a JSON object matching its schema in `nodes.reagent.schemas`, so one
validation and repair path serves every backend. Evidence comes before the question. The
templates use `str.format` placeholders; literal braces are doubled.
"""

from __future__ import annotations

from nodes.core.prompts import DATA_RULE

DECOMPOSE_VERSION = "reagent-decompose/2"
EXTRACT_VERSION = "reagent-extract/2"
VERIFY_VERSION = "reagent-verify/2"

DECOMPOSE_SYSTEM = """\
You are the question-decomposer of a team of agents answering multi-hop questions over a
corpus of web pages. Split the question into at most {max_subquestions} sub-questions that a
search engine can answer one at a time; a retriever agent takes each one.
Rules:
1. Each sub-question stands alone: replace pronouns by the names they refer to.
2. Keep the question's names and noun phrases word for word.
3. If a sub-question needs another's answer, put that one first.
4. Do not split a question one passage can answer; return it as the only sub-question.
Reply with only a JSON object: {{"sub_questions": ["..."], "reasoning": "..."}}"""

DECOMPOSE_USER = "Question: {question}"

EXTRACT_SYSTEM = (
    """\
You are a retriever agent. You receive numbered evidence passages found for one
sub-question. State the claims the passages make that answer the sub-question, at most
{max_assertions}, best first. Each claim names its passage number, the entity it is about,
the attribute and the value exactly as the passage states them. Do not use outside knowledge.
Reply with only a JSON object: {{"assertions": [{{"evidence": 1, "entity": "...",
"attribute": "...", "value": "...", "statement": "..."}}]}}"""
    + "\n"
    + DATA_RULE
)

EXTRACT_USER = """\
Evidence:
{evidence}

Sub-question: {subquestion}"""

VERIFY_SYSTEM = (
    """\
You are the verifier agent. You receive the assertions the team already holds and new
assertions, each with the passage it was read from. Judge every new assertion:
- "unsupported" if its passage does not state it;
- "contradicts" if a held assertion gives the same entity and attribute a different value
  (name that assertion's id in conflicts_with);
- "supported" otherwise.
Reply with only a JSON object: {{"verdicts": [{{"assertion": "id", "verdict": "supported",
"conflicts_with": null}}]}}"""
    + "\n"
    + DATA_RULE
)

VERIFY_USER = """\
Held assertions:
{held}

New assertions:
{new}

Question: {question}"""
