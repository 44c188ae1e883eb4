"""MMAPG's prompts (seed 003, Appendix A.3), in our own words; nodes only fill the placeholders.

Every call asks for a JSON object matching a schema of `nodes.mmapg.schemas`, so one
validation and repair path (`tools.llm_calls.StructuredCaller`) serves every backend.
Evidence comes before the question or instruction it serves. Templates use `str.format`
placeholders; literal braces are doubled. The seed's separate decomposition, key-phrase
and image-query calls (eqs. 5–9) are one split call here, and its per-candidate
examinations plus the final extraction (eqs. 12–14) are one examination call per node.
"""

from __future__ import annotations

from nodes.core.prompts import DATA_RULE

PLAN_VERSION = "mmapg-plan/2"
PLANNER_VERSION = "mmapg-planner/2"
SPLIT_VERSION = "mmapg-split/2"
EXAMINE_VERSION = "mmapg-examine/2"
ANSWER_VERSION = "mmapg-answer/2"
TRIPLETS_VERSION = "mmapg-triplets/2"

PLAN_SYSTEM = """\
You prepare the search for a multi-hop question over web pages made of paragraphs, tables
and images. List the pieces of information the question needs, as 1 to {max_subquestions}
self-contained sub-questions (prerequisites first, no pronouns; one if a single fact
answers it), and write a short overall plan saying how the pieces combine into the answer.

Reply with only a JSON object: {{"sub_questions": ["..."], "plan": "..."}}"""

PLAN_USER = "Question: {question}"

PLANNER_SYSTEM = (
    """\
You grow a reasoning graph that answers a question step by step. Each node is a step:
Question (a sub-question to work on), Retrieval (search the knowledge bases and record what
was found, or "no result"), Answer (answer a question from existing nodes) or Stop (end; the
last Answer is the final answer). Study the overall plan and the graph, then choose the next
node(s):
1. Stop: when the answer to the question is already in the graph.
2. Retrieval: when information is missing; the instruction says exactly what to find.
   Several independent Retrieval nodes may be created at once (up to {max_parallel}).
3. Answer: when the nodes hold what a question needs; the instruction names that question.
4. Question: when a new sub-question would help.
Pick as parents the existing node ids the new node builds on. A failed retrieval ("no
result") stays in the graph: try another path from any node instead of repeating it.

Reply with only a JSON object:
{{"analysis": "...", "nodes": [{{"type": "retrieval", "parents": [0], "instruction": "..."}}]}}"""
    + "\n"
    + DATA_RULE
)

PLANNER_USER = """\
Overall plan:
{plan}

The graph so far (id, type, status, parents, instruction, content):
{graph}

Question: {question}
Decide the next node(s)."""

SPLIT_SYSTEM = (
    """\
You prepare one retrieval instruction for two knowledge bases: texts (sentences, table rows,
titles, captions) and images. Split the instruction into its text-related part and its
image-related part (empty if it asks nothing about what something looks like). For the
image part decide the kind of image retrieval: "targeted" when it names a specific image by
an identifier such as a page title ("the flag of Denmark" -> target "Denmark"), or
"descriptive" when it describes the image's content ("a poster with a red car"). Extract
short key phrases for the text search, the targets, and the question to check in a
candidate image.

Reply with only a JSON object: {{"text_part": "...", "image_part": "", "image_mode": "none",
"key_phrases": ["..."], "targets": [], "image_question": ""}}"""
    + "\n"
    + DATA_RULE
)

SPLIT_USER = """\
Parent nodes:
{parents}

Instruction: {instruction}"""

EXAMINE_SYSTEM = (
    """\
You examine search results for one retrieval instruction. For each numbered candidate,
decide whether it holds information the instruction asks for; for those that do, write the
relevant information in one short sentence. Then write what was found overall as a short
answer to the instruction ("no result" if no candidate helps).

Reply with only a JSON object:
{{"relevant": [{{"index": 0, "information": "..."}}], "summary": "..."}}"""
    + "\n"
    + DATA_RULE
)

EXAMINE_USER = """\
Candidates:
{candidates}

Instruction: {instruction}
Image question: {image_question}"""

ANSWER_SYSTEM = (
    """\
You answer a question from the evidence given, as briefly as possible (a name, number,
date, yes/no or short phrase). If the evidence is not enough, give your best short guess.

Reply with only a JSON object: {{"answer": "..."}}"""
    + "\n"
    + DATA_RULE
)

ANSWER_USER = """\
Evidence:
{evidence}

Question: {question}
Instruction: {instruction}"""

TRIPLETS_SYSTEM = (
    """\
You turn passages into relational triplets (subject | relation | object) that keep every
fact, one list per numbered passage, at most {max_triplets} triplets each.

Reply with only a JSON object: {{"passages": [{{"index": 0, "triplets": ["a | b | c"]}}]}}"""
    + "\n"
    + DATA_RULE
)

TRIPLETS_USER = "Passages:\n{passages}"
