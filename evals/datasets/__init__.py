"""Dataset adapters that turn benchmarks' published files into bundles, and the question loader."""

from __future__ import annotations

from collections.abc import Callable

from evals.datasets import financebench, mmcoqa, mmlongbench, mmqa, ottqa, webqa
from evals.datasets.bundle import ConversionReport
from evals.datasets.job import ConversionJob
from evals.datasets.questions import EvalExample, LoadedQuestions, QuestionRecord, load_questions
from tools.errors import ConfigError

Adapter = Callable[[ConversionJob], ConversionReport]
"""Converts one split of a benchmark's raw files into a bundle folder: writes corpus.jsonl,
questions.jsonl and stats.json into the job's out_dir and reports on them."""


ADAPTERS: dict[str, Adapter] = {
    "mmqa": mmqa.convert,
    "webqa": webqa.convert,
    "mmcoqa": mmcoqa.convert,
    "ottqa": ottqa.convert,
    "hybridqa": ottqa.convert,
    "financebench": financebench.convert,
    "mmlongbench": mmlongbench.convert,
}


def get_adapter(name: str) -> Adapter:
    """Return the adapter registered under a dataset name.

    Raises:
        ConfigError: If no adapter has that name; the message lists the known ones.
    """
    try:
        return ADAPTERS[name]
    except KeyError:
        raise ConfigError(
            f"unknown dataset {name!r}; known datasets: {', '.join(sorted(ADAPTERS))}"
        ) from None


__all__ = [
    "ADAPTERS",
    "Adapter",
    "ConversionJob",
    "ConversionReport",
    "EvalExample",
    "LoadedQuestions",
    "QuestionRecord",
    "get_adapter",
    "load_questions",
]
