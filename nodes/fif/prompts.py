"""Every prompt of the FiF nodes, as named templates with named placeholders and a version.

The contracts follow seed 000, Appendix D (fields, rules, JSON shapes); the wording is ours.
Corpus text is always quoted as data inside the user message, never as instructions.
"""

from __future__ import annotations

from nodes.core.prompts import DATA_NOTE

PROMPTS_VERSION = "fif-prompts-3"


PLANNER_SYSTEM = f"""You decompose a question into retrieval tasks over a corpus of pages made of
paragraphs, tables and images.
Return 1 to 5 short tasks, each an imperative retrieval request for ONE component
(a paragraph, table row or image). Keep every named entity of the question in some task,
write entities out instead of pronouns, put prerequisites first, and use a single task
when one component can answer the whole question. {DATA_NOTE}
JSON shape: {{"tasks": ["...", "..."]}}"""

PLANNER_USER = "Question: {question}"

REPLANNER_SYSTEM = f"""You revise a retrieval plan after failed attempts.
Given the question and the memory of what was tried, propose 1 or 2 NEW retrieval tasks
(imperative, one information need each, entities written out) that target what is still
missing. Use only the question and the memory. {DATA_NOTE}
JSON shape: {{"tasks": ["..."]}}"""

REPLANNER_USER = "Question: {question}\n\nSubtasks:\n{subqueries}\n\nMemory:\n{memory}"

ORCHESTRATOR_SYSTEM = f"""You decide the next retrieval action of an agent that searches a graph
of documents, components (paragraphs, tables, images) and subcomponents (sentences, rows).
Actions: "stop" (memory already holds what answers the question), "search" (retrieve more),
"replan" (the subtasks are wrong or exhausted).
For "search" give next_retrieval_subtask (a de-contextualised imperative task),
document_search_mode ("neighbors" = documents linked from the anchor step, "vector search" =
the whole corpus, "llm reasoning" = shortlist then careful selection), component_search_mode
("vector search" or "llm reasoning"), vector_granularity ("document" < "component" <
"subcomponent") and anchor (index of a memory step or null).
Rules: start a new subtask cheap; escalate one rung only after a recorded failure
(neighbors < vector search < llm reasoning; document < component < subcomponent); never repeat
a route that failed (same subtask, anchor, modes, granularity); after two failures in a row,
re-anchor to the best earlier success and rewrite the subtask with what the memory taught.
When the evidence names a bridge entity the question does not (a suggested bridge subtask
is given), search that subtask before stopping unless the memory already answers it.
{DATA_NOTE}
JSON shape: {{"action": {{"next_action": "search", "next_retrieval_subtask": "...",
"document_search_mode": "vector search", "component_search_mode": "vector search",
"vector_granularity": "document", "anchor": null}}}}"""

ORCHESTRATOR_USER = (
    "Question: {question}\n\nSubtasks (status, answer):\n{subqueries}\n\n"
    "Memory (steps, 0-based):\n{memory}\n\nNeighbor documents of the last step:\n{neighbors}"
    "\n\nSuggested bridge subtask (the entity the evidence names, plus what it leaves open):"
    "\n{bridge}"
)

DOC_SELECT_SYSTEM = f"""You select documents worth opening for a retrieval task.
Pick up to {{max_results}} candidates that most directly serve BOTH the original question
and the subtask; score each in [0, 1]; best first; indices refer to the list. {DATA_NOTE}
JSON shape: {{{{"selection": [{{{{"index": 0, "score": 0.9}}}}]}}}}"""

COMPONENT_SELECT_SYSTEM = f"""You select components (paragraphs, tables, images) that answer a
retrieval task. Pick up to {{max_results}} candidates that most directly serve BOTH the original
question and the subtask; include complementary pieces when the evidence is spread; score each
in [0, 1]; best first; indices refer to the list. {DATA_NOTE}
JSON shape: {{{{"selection": [{{{{"index": 0, "score": 0.9}}}}]}}}}"""

SELECT_USER = (
    "Original question: {question}\nSubtask: {subquery}\nGranularity: {granularity}\n\n"
    "Candidates:\n{candidates}"
)

EVALUATOR_SYSTEM = f"""You judge a retrieval step. Say "answerable" when at least one retrieved
component is clearly relevant to the subtask or, combined with the answered subtasks, answers
the question; otherwise "not answerable". Also list the OTHER subtasks (1-based) that the
retrieved components now answer, each with a short answer taken from the components.
Use only the given text. {DATA_NOTE}
JSON shape: {{"status": "answerable", "updated_subtasks": [{{"index": 2, "status":
"answerable", "answer": "..."}}]}}"""

EVALUATOR_USER = (
    "Original question: {question}\nSubtask: {subquery}\n\nRetrieved components:\n"
    "{candidates}\n\nSubtasks (1-based, status, answer):\n{subqueries}"
)

RERANKER_SYSTEM = f"""You rank retrieved components by how directly they help answer the
question, counting components needed to resolve an intermediate entity. Return the top
{{top_k}} indices, best first, each with a score in [0, 1]. {DATA_NOTE}
JSON shape: {{{{"ranking": [{{{{"index": 3, "score": 0.95}}}}]}}}}"""

RERANKER_USER = "Question: {question}\n\nCandidates:\n{candidates}"
