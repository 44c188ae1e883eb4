from pathlib import Path

import pytest

from corpus_builder.images import ImageGuard, byte_size
from state.corpus import IngestReport


@pytest.fixture
def corpus(tmp_path: Path, write_png) -> Path:
    write_png(tmp_path / "corpus" / "images" / "flag.png")
    write_png(tmp_path / "elsewhere.png")
    data = (tmp_path / "corpus" / "images" / "flag.png").read_bytes()
    (tmp_path / "corpus" / "images" / "truncated.png").write_bytes(data[: len(data) // 2])
    return tmp_path / "corpus"


def check(corpus: Path, relative: str) -> tuple[str | None, list[str]]:
    report = IngestReport()
    path = ImageGuard(corpus).check(relative, "corpus.jsonl:4", report)
    assert all(item.where == "corpus.jsonl:4" for item in report.skipped)
    return path, [item.problem for item in report.skipped]


def test_a_good_image_resolves_to_its_absolute_path(corpus: Path) -> None:
    expected = str((corpus / "images" / "flag.png").resolve())
    assert check(corpus, "images/flag.png") == (expected, [])
    assert check(corpus, "./images/../images/flag.png") == (expected, [])
    assert check(corpus, expected) == (expected, [])


@pytest.mark.parametrize(
    ("relative", "problem"),
    [
        ("images", "file not found"),
        ("images/truncated.png", "corrupt or unsupported image (OSError: Truncated"),
        ("../elsewhere.png", "path escapes the corpus folder"),
    ],
)
def test_unusable_paths_are_reported(corpus: Path, relative: str, problem: str) -> None:
    path, problems = check(corpus, relative)
    assert path is None
    assert len(problems) == 1 and problems[0].startswith(f"image {relative!r}: ")
    assert problem in problems[0]


def test_an_absolute_path_outside_the_corpus_is_refused(corpus: Path) -> None:
    outside = str(corpus.parent / "elsewhere.png")
    assert check(corpus, outside)[0] is None


@pytest.mark.parametrize(
    ("count", "text"),
    [
        (0, "0 bytes"),
        (100, "100 bytes"),
        (1024, "1 KiB"),
        (1536, "1.5 KiB"),
        (1024 * 1024 - 1, "1 MiB"),
        (40 * 1024 * 1024, "40 MiB"),
        (3 * 1024**3, "3 GiB"),
    ],
)
def test_byte_sizes_read_in_a_sensible_unit(count: int, text: str) -> None:
    assert byte_size(count) == text


def test_a_small_size_limit_names_its_bytes(corpus: Path) -> None:
    report = IngestReport()
    assert ImageGuard(corpus, max_bytes=10).check("images/flag.png", "x", report) is None
    assert report.skipped[0].problem.endswith("over the 10 bytes limit")
    assert "0 MB" not in report.skipped[0].problem
