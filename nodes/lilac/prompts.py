"""LILaC's prompts (seed 001, §4.2.1 and Appendix F), reworded; nodes only fill the placeholders.

The paper asks for a bare JSON array of strings and, per subquery, a bare label. We
ask for JSON objects matching the schemas in `nodes.lilac.schemas`, so one validation
and repair path serves every backend. Templates use `str.format` placeholders; literal
braces are doubled.
"""

from __future__ import annotations

DECOMPOSE_VERSION = "lilac-decompose/1"
MODALITY_VERSION = "lilac-modality/1"

DECOMPOSE_RULES = """\
Rules:
1. Cover the question: every named entity and noun phrase of the question appears, word for
   word, in at least one subquery (spread them over subqueries as needed).
2. One component per subquery: put facts in the same subquery only if one component (a
   sentence, a paragraph, a table row, an image) is likely to state them together.
3. Do not split for the sake of it: if one component can answer the whole question, return
   exactly one subquery.
4. Make each subquery stand alone: replace pronouns and vague references with what they mean.
5. No duplicates or paraphrases of another subquery.
6. If a subquery needs the answer of another, put the other one first."""

MODALITY_RULES = """\
Modalities:
- text: prose (definitions, roles, biographies, events, causes, quotes)
- table: rows and columns (numbers, totals, percentages, rankings, dates by year, lists of
  results or members)
- image: what something looks like (colours, shapes, logos, photos, posters)
If two fit, choose the one that gives the answer most directly."""

_TASK = """\
You turn a question into search queries for a retriever over web pages made of paragraphs,
tables and images. Write the smallest set (1 to {max_subqueries}) of subqueries; each one
describes a single component whose embedding should match it, and together they supply
everything needed to answer the question."""

DECOMPOSE_JOINT_SYSTEM = (
    _TASK
    + " Label each subquery with the modality of the component it targets.\n\n"
    + DECOMPOSE_RULES
    + "\n\n"
    + MODALITY_RULES
    + '\n\nReply with only a JSON object: {{"subqueries": [{{"text": "...", "modality": "text"}}]}}'
)
"""System prompt of the joint call: subqueries and their modalities at once."""

DECOMPOSE_LIST_SYSTEM = (
    _TASK
    + "\n\n"
    + DECOMPOSE_RULES
    + '\n\nReply with only a JSON object: {{"subqueries": ["...", "..."]}}'
)
"""System prompt of the paper's first call (separate mode): subqueries only."""

DECOMPOSE_USER = "Question: {question}"

MODALITY_SYSTEM = (
    "You pick the modality of the web-page component most likely to answer one search query."
    "\n\n"
    + MODALITY_RULES
    + '\n\nReply with only a JSON object: {{"modality": "text"}} (or "table" or "image").'
)
"""System prompt of the paper's second call (separate mode), one per subquery."""

MODALITY_USER = "Subquery: {subquery}"
