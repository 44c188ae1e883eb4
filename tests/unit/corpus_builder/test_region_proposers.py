"""`--regions fixed|<module>:<callable>`: a user's detector, imported lazily, checked for shape.

The detectors below are what a user would write: this module is importable as
`test_region_proposers` (pytest puts the test folder on sys.path), so the specs name it.
"""

from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from corpus_builder.build import BuildOptions, build
from corpus_builder.region_proposers import load_region_proposer, proposer_id
from corpus_builder.splitters import FixedCrops, Region, checked_regions
from fif import cli
from tools.errors import ConfigError, MissingDependencyError
from tools.layered_graph import LayeredGraph
from tools.manifest import GRAPH_FILE, Manifest

HERE = "test_region_proposers"


class StripeDetector:
    """Finds the top and bottom halves of a flag, and names them."""

    def propose(self, path: str, size: tuple[int, int]) -> list[Region]:
        width, height = size
        return [
            Region((0, 0, width, height // 2), "upper stripe"),
            Region((0, height // 2, width, height), "lower stripe"),
        ]


def make_detector() -> StripeDetector:
    return StripeDetector()


def needs_weights(weights: str) -> StripeDetector:
    return StripeDetector()


def not_a_proposer() -> object:
    return object()


class TupleDetector:
    """Returns bare tuples instead of Region objects."""

    def propose(self, path: str, size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
        return [(0, 0, 4, 4)]


NOT_CALLABLE = 42


@pytest.fixture(autouse=True)
def importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).parent))


def test_fixed_is_the_default_grid() -> None:
    proposer = load_region_proposer("fixed")
    assert proposer == FixedCrops() and proposer_id(proposer) == "fixed-2x2"


@pytest.mark.parametrize("attribute", ["make_detector", "StripeDetector"])
def test_a_factory_or_a_class_names_the_proposer(attribute: str) -> None:
    proposer = load_region_proposer(f"{HERE}:{attribute}")
    assert type(proposer).__name__ == "StripeDetector"
    assert proposer_id(proposer) == f"{HERE}:StripeDetector"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("detector", "use 'fixed' or 'module:callable'"),
        (f"{HERE}:", "use 'fixed' or 'module:callable'"),
        ("no_such_detector_pkg.sub:make", "no module named 'no_such_detector_pkg'; install it"),
        (f"{HERE}:missing", f"{HERE} has no attribute 'missing'"),
        (f"{HERE}:NOT_CALLABLE", "NOT_CALLABLE is a int, not a callable"),
        (f"{HERE}:needs_weights", "the callable must take no arguments"),
        (f"{HERE}:not_a_proposer", "not_a_proposer() returned a object, which has no propose"),
    ],
)
def test_a_bad_spec_says_what_to_do(spec: str, message: str) -> None:
    with pytest.raises(ConfigError, match="--regions") as raised:
        load_region_proposer(spec)
    assert message in str(raised.value)


def test_a_detector_missing_its_own_dependency_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "yolo_regions.py").write_text("import ultralytics_not_here\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(MissingDependencyError, match="pip install ultralytics_not_here"):
        load_region_proposer("yolo_regions:make")


def test_boxes_are_rounded_clipped_and_empty_ones_dropped() -> None:
    regions = [
        Region((np.float32(-3.4), 2.6, 40, 16), "overhanging"),  # type: ignore[arg-type]
        Region((10, 10, 10, 20)),
        Region((40, 0, 50, 8)),
    ]
    kept = checked_regions(regions, StripeDetector(), "flag.png", (32, 32))
    assert kept == [Region((0, 3, 32, 16), "overhanging")]


def test_a_proposer_of_the_wrong_shape_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match=r"TupleDetector returned a list of tuple for f\.png"):
        checked_regions(TupleDetector().propose("f.png", (8, 8)), TupleDetector(), "f.png", (8, 8))
    bad = [Region(("a", 0, 1, 1))]  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="a box is four numbers"):
        checked_regions(bad, StripeDetector(), "f.png", (8, 8))


def test_build_indexes_the_detector_regions(mini_bundle: Path, tmp_path: Path) -> None:
    options = BuildOptions(
        text_embedder="hash:64",
        show_progress=False,
        region_proposer=load_region_proposer(f"{HERE}:make_detector"),
    )
    manifest = build(mini_bundle, tmp_path / "index", options)
    assert manifest.options["regions"] == f"{HERE}:StripeDetector"
    graph = LayeredGraph.load(tmp_path / "index" / GRAPH_FILE)
    regions = [graph.node(f"warsaw::i0::o{n}") for n in range(2)]
    assert [r.text for r in regions] == ["upper stripe", "lower stripe"]
    assert not graph.g.has_node("warsaw::i0::o2")


def test_fif_build_takes_regions_from_the_command_line(mini_bundle: Path, tmp_path: Path) -> None:
    index = tmp_path / "idx"
    args = ["build", str(mini_bundle), "--index", str(index), "--embedder", "hash:64"]
    result = CliRunner().invoke(
        cli.app, [*args, "--no-progress", "--regions", f"{HERE}:StripeDetector"]
    )
    assert result.exit_code == 0, result.output
    assert Manifest.load(index).options["regions"] == f"{HERE}:StripeDetector"
    bad = CliRunner().invoke(cli.app, [*args, "--regions", "nowhere"])
    assert isinstance(bad.exception, ConfigError) and "nowhere" in str(bad.exception)
