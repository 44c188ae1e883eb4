"""Draw docs/figures/architecture.png, the README's picture of FiF's parts.

Run from the repository root: `python docs/draw_architecture.py` (needs matplotlib, in the
`dev` extra). The picture is data below: boxes with their text and arrows between them.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parent / "figures" / "architecture.png"

# name: (x, y, width, height, colour, title, body)
BOXES: dict[str, tuple[float, float, float, float, str, str, str]] = {
    "corpus": (
        0.2,
        6.0,
        3.4,
        1.4,
        "#eeeeee",
        "Corpus",
        "bundle (corpus.jsonl), HTML pages,\nPDFs, image folders",
    ),
    "builder": (
        4.4,
        6.0,
        3.8,
        1.4,
        "#dbe9f6",
        "corpus_builder/  (fif build)",
        "components -> subcomponents ->\nsummaries -> layered graph\n-> embeddings",
    ),
    "index": (
        9.0,
        5.8,
        4.4,
        1.8,
        "#dbe9f6",
        "Index folder",
        "graph.json: V0 documents, V1 components,\nV2 sentences / rows / regions, links;\n"
        "Chroma and BM25 layers, manifest.json",
    ),
    "tools": (
        9.0,
        3.2,
        4.4,
        1.6,
        "#e2f0d9",
        "tools/",
        "layer search (dense | sparse | hybrid),\ngraph navigation, embedders,"
        "\nchat models, cost meter",
    ),
    "core": (
        4.4,
        3.2,
        3.8,
        1.6,
        "#fff2cc",
        "state/core + nodes/core",
        "ranking entry, run settings,\nLLM decision + offline twin + guards,"
        "\nquestion analysis (read once)",
    ),
    "systems": (
        0.2,
        3.0,
        3.4,
        2.0,
        "#fce4d6",
        "One home per system",
        "fif  lilac  ircot  mmapg\nreagent  extraction  dense\n"
        "state/<s>_state.py, nodes/<s>/,\ngraph_agent/<s>_graph.py",
    ),
    "entry": (
        0.2,
        0.4,
        3.4,
        1.8,
        "#ead1f5",
        "Entry points",
        "fif search / ask / replay\nfif serve, fif mcp\nlanggraph dev (Studio), Python",
    ),
    "registry": (
        4.4,
        0.6,
        3.8,
        1.4,
        "#fce4d6",
        "graph_agent/registry.py",
        "SYSTEMS: one SystemSpec each\n(context, graph, ask, stream, replay)",
    ),
    "evals": (
        9.0,
        0.4,
        4.4,
        1.8,
        "#ead1f5",
        "evals/  (fif eval)",
        "adapters, metrics (R@k, all-gold@k,\nMRR, EM/F1, pages), one harness\n"
        "for every system, reports, LangSmith",
    ),
}

ARROWS: tuple[tuple[str, str, str], ...] = (
    ("corpus", "builder", ""),
    ("builder", "index", ""),
    ("index", "tools", "read"),
    ("tools", "core", ""),
    ("core", "systems", "shared by"),
    ("systems", "registry", "listed in"),
    ("registry", "entry", "read by"),
    ("registry", "evals", "read by"),
)


def _centre(name: str) -> tuple[float, float]:
    x, y, width, height, *_ = BOXES[name]
    return x + width / 2, y + height / 2


def _edge(name: str, towards: tuple[float, float]) -> tuple[float, float]:
    """Return the point where the line from a box's centre towards a point leaves the box."""
    x, y, width, height, *_ = BOXES[name]
    cx, cy = _centre(name)
    dx, dy = towards[0] - cx, towards[1] - cy
    scale = min(
        (width / 2) / abs(dx) if dx else float("inf"),
        (height / 2) / abs(dy) if dy else float("inf"),
    )
    return cx + dx * scale, cy + dy * scale


def draw(out: Path = OUT) -> Path:
    """Draw the figure and return where it was written."""
    figure, axes = plt.subplots(figsize=(13, 8))
    axes.set_xlim(0, 13.6)
    axes.set_ylim(0.2, 7.8)
    axes.axis("off")
    for x, y, width, height, colour, title, body in BOXES.values():
        axes.add_patch(
            FancyBboxPatch(
                (x, y), width, height, boxstyle="round,pad=0.05", fc=colour, ec="#555555"
            )
        )
        axes.text(
            x + width / 2,
            y + height - 0.25,
            title,
            ha="center",
            va="top",
            fontsize=11,
            fontweight="bold",
        )
        axes.text(x + width / 2, y + height - 0.6, body, ha="center", va="top", fontsize=9)
    for source, target, label in ARROWS:
        start = _edge(source, _centre(target))
        end = _edge(target, _centre(source))
        axes.annotate(
            "", xy=end, xytext=start, arrowprops={"arrowstyle": "->", "color": "#333333", "lw": 1.4}
        )
        if label:
            axes.text(
                (start[0] + end[0]) / 2,
                (start[1] + end[1]) / 2 + 0.1,
                label,
                ha="center",
                fontsize=8,
                style="italic",
                color="#333333",
            )
    axes.set_title("FiF: one index, seven systems, one harness", fontsize=13)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(figure)
    return out


if __name__ == "__main__":
    draw()
