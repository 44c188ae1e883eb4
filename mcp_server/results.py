"""The typed results of the MCP tools: what an assistant reads back, ids first.

Every result carries `truncated` (and a `note` saying what was cut and how to see more):
a tool result must stay within the caller's `max_chars` (assistants reject very large
tool results), measured as the result's compact JSON.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

PAGES_DESCRIPTION = (
    "First and last PDF page, zero-indexed (page 0 is the first); null outside PDFs."
)


class Budgeted(BaseModel):
    """A result that was fitted into a character budget."""

    truncated: bool = Field(False, description="True when items or text were cut to max_chars.")
    note: str = Field("", description="What was cut and how to see the rest.")


class ComponentHit(BaseModel):
    """One ranked component: its stable id, where it sits, its score and a snippet."""

    rank: int = Field(description="1 for the best component.")
    component_id: str = Field(description="Stable id; pass it to get_component.")
    doc_id: str = Field(description="The document holding it; pass it to get_document.")
    document_title: str
    type: str = Field(description="paragraph | table | image")
    section: list[str] = Field(description="Section titles, outermost first (PDFs; else empty).")
    pages: list[int] | None = Field(description=PAGES_DESCRIPTION)
    score: float = Field(description="The system's score (cosine, BM25, RRF or rerank score).")
    snippet: str = Field(description="The start of the component's content, on one line.")


class SearchResult(Budgeted):
    """Components ranked for a query in one search."""

    query: str
    mode: str
    hits: list[ComponentHit]


class TraceStep(BaseModel):
    """One step of a run's trace, FiF's traversals or another system's node records."""

    step: int | None
    subquery: str = Field(description="The subquery (or query, or sentence) the step worked on.")
    strategy: str = Field(description="FiF: doc_mode/comp_mode/granularity; others: the node.")
    anchor: int | None = Field(None, description="FiF: the step this one started from.")
    success: bool | None = Field(description="Whether the step found what it looked for.")
    reason: str = ""


class AskResult(Budgeted):
    """A registered system's run on a question: ranking, answer, trace and cost."""

    question: str
    system: str
    thread_id: str = Field(description="Checkpointed thread (`fif replay THREAD --index DIR`).")
    ranking: list[ComponentHit]
    answer: str | None = Field(description="The answer when asked for, else null.")
    trace: list[TraceStep]
    cost: dict[str, float] = Field(description="LLM calls, tokens, usd and time split in ms.")
    latency_ms: float


class ComponentDetail(Budgeted):
    """A component (or subcomponent) with its full text and its place in the graph."""

    component_id: str
    doc_id: str
    document_title: str
    type: str = Field(description="paragraph | table | image | sentence | row | region")
    section: list[str]
    pages: list[int] | None = Field(description=PAGES_DESCRIPTION)
    text: str = Field(description="Paragraph text, a table as header and rows, or a caption.")
    parent_id: str = Field(description="The document (for a component) or the component.")
    children_ids: list[str] = Field(description="Sentences, table rows or image regions.")
    children_total: int
    links_to_documents: list[str] = Field(description="Documents this one hyperlinks to.")
    refers_to: list[str] = Field(description="Components of the same document it refers to.")
    referred_by: list[str] = Field(description="Components of the same document referring here.")


class ComponentBrief(BaseModel):
    """A component in a document or page listing: id, type, place and first words."""

    component_id: str
    type: str
    section: list[str]
    pages: list[int] | None = Field(description=PAGES_DESCRIPTION)
    text: str = Field(description="First words (get_document) or the text (get_page).")


class DocumentDetail(Budgeted):
    """A document with its summary and one page of its components, in reading order."""

    doc_id: str
    title: str
    url: str
    summary: str
    page_count: int | None = Field(description="Pages of a PDF document; null otherwise.")
    components_total: int
    offset: int = Field(description="Index of the first component listed.")
    next_offset: int | None = Field(description="Pass as offset to list the next components.")
    components: list[ComponentBrief]
    links_to_documents: list[str] = Field(description="Documents its components link to.")


class PageDetail(Budgeted):
    """The components printed on one page of a PDF document, in reading order."""

    doc_id: str
    title: str
    page: int = Field(description="Zero-indexed page (0 is the first).")
    page_count: int
    components: list[ComponentBrief]
