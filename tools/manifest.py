"""The index manifest: what was built from which corpus, with which embedders, and how fast."""

from __future__ import annotations

import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from tools.atomic_file import write_text_atomically
from tools.calibration import ScoreCalibration
from tools.errors import IndexNotFoundError

MANIFEST_FILE = "manifest.json"
GRAPH_FILE = "graph.json"
SUMMARIES_FILE = "summaries.json"
"""Document summaries kept between builds, so an unchanged corpus is not summarized again."""
TRIPLETS_FILE = "triplets.sqlite"
"""Triplets extracted by `fif build --triplets`, kept between builds (see triplet_store)."""
CHECKPOINT_FILE = "checkpoints.sqlite"


class EmbedderInfo(BaseModel):
    """An embedder as the index records it."""

    spec: str
    model_id: str
    dim: int


class CorpusInfo(BaseModel):
    """Where the corpus came from and a hash of its files."""

    path: str
    kind: Literal["bundle", "html", "images", "pdf"]
    sha256: str
    files: int
    bytes: int


class Problem(BaseModel):
    """A skipped or repaired input, with where it was."""

    where: str
    problem: str


class TripletKB(BaseModel):
    """How the triplet text KB was built (`fif build --triplets`; seed 003, §3.2).

    Every text unit (a paragraph, or a table row) is in the KB: by the triplets the model
    extracted from it, or by its own text when it has none (the model found no fact, its
    call failed, or the build stopped asking after repeated failures).
    """

    extractor: str = Field(description="Prompt version and chat model of the extraction")
    units: int = 0
    with_triplets: int = 0
    as_text: int = Field(0, description="Units embedded as their own text (no triplets)")
    triplets: int = 0
    reused: int = Field(0, description="Units whose stored triplets an earlier build extracted")
    asked: int = Field(0, description="Units sent to the model by this build")
    empty: int = Field(0, description="Units the model answered with no triplet")
    failed: int = Field(0, description="Units whose call failed or whose passage was missing")
    not_asked: int = Field(0, description="Units left out after repeated failures in a row")
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    usd: float = 0.0
    llm_seconds: float = 0.0
    problems: list[str] = Field(default_factory=list, description="The first failure reasons")


class Manifest(BaseModel):
    """Everything needed to open an index and to judge a build."""

    format: Literal["fif-index"] = "fif-index"
    version: int = 1
    name: str = Field(description="Chroma collection prefix of this index")
    complete: bool = False
    corpus: CorpusInfo
    text_embedder: EmbedderInfo
    image_embedder: EmbedderInfo | None = None
    images_indexed_via: Literal["image-embedder", "caption-text", "none"] = "none"
    image_calibration: ScoreCalibration | None = Field(
        default=None,
        description="How image-embedder scores map onto the text scale (tools.calibration); "
        "None without image vectors",
    )
    chroma_url: str | None = None
    collections: str = Field(
        default="",
        description="Collection prefix of this version's vectors on its Chroma server ('': "
        "`name`); each version has its own (tools.server_versions)",
    )
    options: dict[str, str | int | float | bool] = Field(default_factory=dict)
    summaries: dict[str, int] = Field(
        default_factory=dict,
        description="How the document summaries were obtained: written, reused (stored by an "
        "earlier build), fallback (extractive after a failed LLM summary), and for an LLM "
        "summarizer its llm_calls and tokens",
    )
    counts: dict[str, int] = Field(default_factory=dict)
    sparse: dict[str, str] = Field(
        default_factory=dict,
        description="What the last build did to each layer's BM25 index: kept or indexed",
    )
    triplets: TripletKB | None = Field(
        default=None,
        description="The triplet text KB (collection `<name>_triplets`); None: not built",
    )
    documents: dict[str, int] = Field(
        default_factory=dict,
        description="What the last build changed, by document (documents.json): added, "
        "changed, removed, unchanged",
    )
    embedding: dict[str, int] = Field(default_factory=dict)
    vectors_token: str | None = Field(
        default=None,
        description="The token of the build's numpy copy of the vectors (tools.vector_mirror); "
        "None: read them from Chroma",
    )
    timings: dict[str, float] = Field(default_factory=dict)
    skipped: list[Problem] = Field(default_factory=list)
    repaired: list[Problem] = Field(default_factory=list)
    unresolved_links: int = 0
    unresolved_examples: list[str] = Field(default_factory=list)
    built_at: str = ""
    fif_version: str = ""

    @property
    def prefix(self) -> str:
        """Return the collection prefix this version's vectors are stored under."""
        return self.collections or self.name

    def save(self, index_dir: Path) -> None:
        """Write the manifest atomically."""
        path = index_dir / MANIFEST_FILE
        write_text_atomically(path, self.model_dump_json(indent=1))

    @classmethod
    def load(cls, index_dir: Path) -> Manifest:
        """Read the manifest of an index, with a clear error when it is missing or broken."""
        path = index_dir / MANIFEST_FILE
        if not path.is_file():
            raise IndexNotFoundError(
                f"{index_dir}: no FiF index here (no {MANIFEST_FILE}); "
                f"build one with `fif build CORPUS --index {index_dir}`"
            )
        try:
            return cls.model_validate(json.loads(path.read_text(encoding="utf-8")))
        except (json.JSONDecodeError, ValidationError) as err:
            raise IndexNotFoundError(
                f"{path}: unreadable manifest ({err}); rebuild the index"
            ) from err


def fif_version() -> str:
    """Return the installed fif version, or 'unknown'."""
    try:
        return version("fif")
    except PackageNotFoundError:
        return "unknown"
