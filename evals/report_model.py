"""The scored form of a run: each system's pooled scores, what report, tables and plots share."""

from __future__ import annotations

from dataclasses import dataclass, field

RETRIEVAL_KEYS = ("R@1", "R@2", "R@5", "R@10", "AllGold@5", "AllGold@10", "MRR@10")


@dataclass(frozen=True)
class SystemReport:
    """One system's pooled scores, efficiency and breakdowns."""

    system: str
    quality: dict[str, float]
    """R@k, AllGold@k, MRR@10 and n; EM, F1, Answered, Correct and n_qa when it answered."""
    efficiency: dict[str, float]
    errors: int
    breakdowns: dict[str, dict[str, dict[str, float]]]
    """Dimension → group → pooled retrieval scores."""
    answer_methods: dict[str, int] = field(default_factory=dict)
    """Rule that decided Correct (number, polarity, text, judge, ...) → answers it decided."""


@dataclass(frozen=True)
class Report:
    """Every system's scores, in report order."""

    systems: tuple[SystemReport, ...]
    provenance: tuple[str, ...] = ()
    """Markdown lines: commit, index, each system's key and lines left out (see freshness)."""

    @property
    def has_answers(self) -> bool:
        """Tell whether any system answered (EM/F1 columns are shown)."""
        return any("EM" in s.quality for s in self.systems)

    @property
    def has_pages(self) -> bool:
        """Tell whether the questions had gold pages (page metric columns are shown)."""
        return any("PageR@1" in s.quality for s in self.systems)

    @property
    def spent_money(self) -> bool:
        """Tell whether any system spent dollars (cost plots are drawn)."""
        return any(s.efficiency.get("usd", 0.0) > 0 for s in self.systems)
