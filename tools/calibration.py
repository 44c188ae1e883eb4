"""Put CLIP text→image similarities on the text model's scale, by moment matching.

A text model's query→text cosines and a CLIP model's query→image cosines live on
different scales: CLIP ViT-B/32 puts nearly every text–image pair in a narrow band
(about 0.15–0.35), while a sentence model spreads query–passage cosines over roughly
−0.1–0.8. Taking the max of two raw scores would let images always lose (or always win).

The calibration estimates both distributions on the corpus itself, cheaply and without
re-parsing it: a fixed-seed sample of corpus texts (sentences and rows, from the layered
graph) stands in for queries. Each probe is embedded by both text towers; its cosines
to a fixed-seed sample of the text layers' stored vectors (components and
subcomponents, its own node excluded) give the text distribution (μ_t, σ_t), and its
CLIP cosines to the image layer's stored vectors (images and regions) give the image
distribution (μ_i, σ_i). A CLIP score s is then moved to the text scale by matching the
first two moments, i.e. by keeping its z-score:

    s' = μ_t + σ_t · (s − μ_i) / σ_i

The map is affine and increasing, then clipped to the cosine range [-1, 1], so the
ranking of images among themselves is kept inside that range; an image match as unusual
(in standard deviations) as a text match scores the same. It matches means and spreads
only, not the tails. The builder stores the result in the manifest
(`image_calibration`); an index built before that is calibrated once when it is opened,
in memory.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict

from tools.embedders import Embedder
from tools.index import ChromaLayers, IndexLayer
from tools.layered_graph import LayeredGraph

logger = logging.getLogger(__name__)

PROBES = 64
"""How many corpus texts stand in for queries."""
REFERENCE_NODES = 2048
"""At most this many text-layer (and image-layer) vectors are compared with the probes."""
SEED = 0
MIN_STD = 1e-6
"""Below this spread the image distribution is degenerate and no calibration is made."""
IMAGE_KINDS = ("image", "region")


class ScoreCalibration(BaseModel):
    """Moments of the text and image similarity distributions, and the map between them."""

    model_config = ConfigDict(frozen=True)

    text_mean: float
    text_std: float
    image_mean: float
    image_std: float
    text_pairs: int = 0
    image_pairs: int = 0

    def to_text_scale(self, scores: np.ndarray) -> np.ndarray:
        """Map CLIP text→image cosines onto the text model's scale (same z-score).

        Results are clipped to [-1, 1], the range of the cosines they compete with.
        """
        scale = self.text_std / self.image_std
        mapped = self.text_mean + (np.asarray(scores) - self.image_mean) * scale
        return np.asarray(np.clip(mapped, -1.0, 1.0))


def calibration_from_sims(text_sims: np.ndarray, image_sims: np.ndarray) -> ScoreCalibration | None:
    """Return the calibration of two samples of similarities (NaN entries are ignored).

    Args:
        text_sims: Probe→text-node cosines of the text model (NaN marks a skipped pair).
        image_sims: Probe→image-node cosines of the image model.

    Returns:
        The population means and standard deviations, or None when either sample is
        empty or the image sample has no spread.
    """
    text = np.asarray(text_sims, dtype=np.float64).ravel()
    image = np.asarray(image_sims, dtype=np.float64).ravel()
    text, image = text[np.isfinite(text)], image[np.isfinite(image)]
    if not text.size or not image.size or float(image.std()) < MIN_STD:
        return None
    return ScoreCalibration(
        text_mean=float(text.mean()),
        text_std=float(text.std()),
        image_mean=float(image.mean()),
        image_std=float(image.std()),
        text_pairs=int(text.size),
        image_pairs=int(image.size),
    )


def estimate_calibration(
    graph: LayeredGraph,
    layers: ChromaLayers,
    text: Embedder,
    image: Embedder,
    image_nodes: Sequence[str] | None = None,
) -> ScoreCalibration | None:
    """Estimate the calibration of an index from fixed-seed samples (see the module doc).

    Costs one batch of PROBES texts per text tower and reading at most 2 × REFERENCE_NODES
    stored vectors; returns None when the index holds no image vectors.

    Args:
        graph: The index's graph (probe texts, text nodes).
        layers: Its stored vectors.
        text: The text embedder.
        image: The image embedder.
        image_nodes: The nodes with image vectors, when the builder knows them (a PDF
            page's vector may sit on a paragraph); else the graph's images and regions.
    """
    rng = np.random.default_rng(SEED)
    nodes = sorted(n for layer in (1, 2) for n in graph.nodes_at(layer))
    if image_nodes is None:
        images = [n for n in nodes if graph.node(n).kind in IMAGE_KINDS]
    else:
        images = sorted(set(image_nodes))
    image_ids, image_matrix = _stored(layers, ["image"], _sample(rng, images, REFERENCE_NODES))
    written = [n for n in nodes if graph.node(n).text.strip()]
    probes = _sample(rng, [n for n in written if n not in set(images)] or written, PROBES)
    if not image_ids or not probes:
        return None
    text_ids, text_matrix = _stored(
        layers, ["component", "subcomponent"], _sample(rng, nodes, REFERENCE_NODES)
    )
    texts = [graph.node(n).text for n in probes]
    text_sims = text.embed(texts) @ text_matrix.T
    text_sims[np.equal.outer(np.array(probes), np.array(text_ids))] = np.nan
    calibration = calibration_from_sims(text_sims, image.embed(texts) @ image_matrix.T)
    logger.info("image score calibration: %s", calibration)
    return calibration


def _sample(rng: np.random.Generator, ids: Sequence[str], size: int) -> list[str]:
    if len(ids) <= size:
        return list(ids)
    return [ids[i] for i in sorted(rng.choice(len(ids), size=size, replace=False))]


def _stored(
    layers: ChromaLayers, names: Sequence[IndexLayer], ids: Sequence[str]
) -> tuple[list[str], np.ndarray]:
    """Return (ids found, their stored vectors) over some layers (an id lives in one layer)."""
    found: dict[str, np.ndarray] = {}
    for name in names:
        found.update(layers.vectors(name, [i for i in ids if i not in found]))
    present = [i for i in ids if i in found]
    if not present:
        return [], np.zeros((0, 1), dtype=np.float32)
    return present, np.stack([found[i] for i in present])
