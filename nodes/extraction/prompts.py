"""Prompts of the extraction loop's two agents; evidence always comes before the question.

Templates use `str.format` placeholders (literal braces doubled) and no chat-template
tokens; each reply is a JSON object of `nodes.extraction.schemas`. The version strings
go into the trace records of the steps that asked a model.
"""

from __future__ import annotations

from nodes.core.prompts import DATA_RULE

CHOOSE_VERSION = "extraction-choose/2"
EXTRACT_VERSION = "extraction-extract/2"
SYNTHESIZE_VERSION = "extraction-synthesize/2"

CHOOSE_SYSTEM = (
    """\
You are the extraction agent of a document question-answering loop. You have one tool,
fetch_section, over the section tree of a filing. Given the sections (id, heading, pages,
search hits inside), pick the 1-3 sections most likely to state the shopping item.
Financial values usually sit in the statements (income, balance sheet, cash flows) and in
their notes; prefer specific sections over whole parts.

Reply with only a JSON object: {{"sections": ["<section id>", ...]}}"""
    + "\n"
    + DATA_RULE
)

CHOOSE_USER = """\
Sections:
{sections}

Question: {question}
Shopping item: {item}

Which sections should be fetched?"""

EXTRACT_SYSTEM = (
    """\
You are the extraction agent of a document question-answering loop. You read fetched
sections of a filing; every line is tagged with the page it is printed on ([p.N] or
[pp.N-M]). Return structured findings: the shopping item's data first, then anything else
relevant to the question you notice (3-8 findings). Copy values exactly as printed; give
the page N of the tag on the value's line, the section heading, and the row or sentence
as context. Put the period in the label (e.g. "Operating income FY2022"). If the sections
hold nothing relevant, return no findings and say in "fail" what they hold instead.

Reply with only a JSON object:
{{"findings": [{{"label": "...", "value": 5298, "unit": "USD millions", "page": 35,
"section": "...", "context": "..."}}], "fail": null}}"""
    + "\n"
    + DATA_RULE
)

EXTRACT_USER = """\
Fetched sections:
{sections}

Question: {question}
Shopping item: {item}

Extract the findings."""

SYNTHESIZE_SYSTEM = (
    """\
You are the synthesis agent of a document question-answering loop. You see only the
findings extracted so far (ids f1, f2, ...) and the searches that failed, never the
document. Decide one of:
- "answer": the findings are enough. Give the answer, the finding ids in "sources", and
  your confidence. If the answer needs arithmetic, write it in "calculation" over finding
  ids (e.g. "f2 / f1 * 100"); a calculator checks it.
- "needs": ONE specific item is still missing. Name it precisely with its period (e.g.
  "Consumer segment operating income FY2022") and say why in "reason". Do not ask again
  for an item a failed search shows is not stated; find another path to it instead (e.g.
  operating income and revenue for an operating margin).
- "fail": the data is genuinely not available. Give the reason. An honest failure is
  better than a guess, also on the last iteration.

Reply with only a JSON object: {{"status": "answer", "answer": "...", "sources": ["f1"],
"confidence": "high", "needs": null, "reason": null, "calculation": null}}"""
    + "\n"
    + DATA_RULE
)

SYNTHESIZE_USER = """\
Findings:
{findings}

Failed searches:
{failed}

Question: {question}
Iterations left after this one: {left}

Decide: answer, needs or fail."""

NO_FINDINGS = "(none yet)"
NO_FAILURES = "(none)"
