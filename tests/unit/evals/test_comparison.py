from pathlib import Path

from evals.comparison import comparison_plot, comparison_table
from evals.report_model import Report, SystemReport


def report(*rows: tuple[str, float, float]) -> Report:
    quality = {"R@1": 0.5, "R@10": 0.9, "MRR@10": 0.6}
    return Report(
        tuple(
            SystemReport(
                name, {**quality, "AllGold@10": ag}, {"latency_p50_ms": ms, "llm_calls": 0.0}, 0, {}
            )
            for name, ag, ms in rows
        )
    )


def test_one_row_per_bundle_and_system(tmp_path: Path) -> None:
    reports = {
        "ottqa": report(("dense", 0.45, 12.0), ("fif", 0.78, 80.0)),
        "hotpot": report(("dense", 0.70, 15.0), ("lilac", 0.72, 40.0)),
    }
    table = comparison_table(reports)
    rows = [
        line
        for line in table.splitlines()
        if line.startswith("| ottqa") or line.startswith("| hotpot")
    ]
    assert len(rows) == 4
    assert "| ottqa | fif | 0.500 | 0.900 | 0.780 | 0.600 | 80.0 | 0.000 | 6.7x |" in table
    assert "| hotpot | lilac | 0.500 | 0.900 | 0.720 | 0.600 | 40.0 | 0.000 | 2.7x |" in table
    path = comparison_plot(reports, tmp_path / "comparison.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 10_000


def test_a_page_bundle_is_compared_by_pages() -> None:
    pages = {"PageR@1": 0.1, "PageR@10": 0.4, "AllPages@10": 0.35, "PageMRR@10": 0.2}
    quality = {"R@1": 0.5, "R@10": 0.9, "AllGold@10": 0.0, "MRR@10": 0.6, **pages}
    report = Report(
        (SystemReport("dense", quality, {"latency_p50_ms": 10.0, "llm_calls": 0.0}, 0, {}),)
    )
    assert "| fb (pages) | dense | 0.100 | 0.400 | 0.350 | 0.200 | 10.0 | 0.000 | 1.0x |" in (
        comparison_table({"fb": report})
    )
