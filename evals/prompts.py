"""Prompts of the evaluation harness: the LLM judge of answers (`fif eval --judge`).

Named templates with named placeholders and no provider chat-template tokens; the version
goes into every stored verdict, so a changed prompt re-asks the judge.
"""

from __future__ import annotations

JUDGE_VERSION = "judge-2"

JUDGE_SYSTEM = """You grade answers to questions about documents such as company filings.
You are given the question, one or more reference answers written by experts, and a
candidate answer. Decide whether the candidate answer is correct.

- Correct means it agrees with a reference answer on what the question asks for.
- Numbers may differ by rounding (about 1%) or be written in another unit or scale:
  "$1,577 million", "$1.577 billion" and "1577" (when the question asks in USD millions)
  are the same figure. A percent may be written as a fraction.
- Extra detail is fine unless it contradicts the reference. Missing the main figure or
  conclusion, a wrong figure, or a hedge between several values is incorrect.
- A refusal ("I cannot answer", "fail") is incorrect.

Reply with ONLY a JSON object with two keys: "correct" (true or false) and "reason"
(why, in one sentence of your own that names the figures or facts you compared)."""

JUDGE_USER = """Question:
{question}

Reference answer(s):
{references}

Candidate answer:
{answer}

Is the candidate answer correct?"""
