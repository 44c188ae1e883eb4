"""Tuning descriptions say what a knob trades, not its history (that is docs/tuning-log.md)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from state.reader_tuning import ReaderTuning
from state.tuning import FiFTuning

HISTORY = re.compile(
    r"\(was |this release|previous release|tuning halves|reporting half|sweep:"
    r"|\b[0-9a-f]{7,40}\b|ott-?qa|hotpot|financebench|musique|teen vogue",
    re.IGNORECASE,
)
LOG = Path(__file__).resolve().parents[3] / "docs" / "tuning-log.md"


@pytest.mark.parametrize("tuning", [FiFTuning, ReaderTuning])
def test_descriptions_carry_no_history(tuning: type[FiFTuning]) -> None:
    for name, field in tuning.model_fields.items():
        found = HISTORY.search(field.description or "")
        assert found is None, f"{tuning.__name__}.{name}: {found and found.group()!r}"


@pytest.mark.parametrize("tuning", [FiFTuning, ReaderTuning])
def test_every_tuned_value_has_its_evidence_in_the_tuning_log(tuning: type[FiFTuning]) -> None:
    log = LOG.read_text(encoding="utf-8")
    for name in tuning.model_fields:
        if name != "reader":
            assert f"### `{name}`" in log, f"{name} has no entry in docs/tuning-log.md"


def test_the_history_pattern_catches_what_it_should() -> None:
    assert HISTORY.search("0.2 (was 0.3)") and HISTORY.search("commit a77f7ec")
    assert HISTORY.search("OTT-QA 0.864") and not HISTORY.search("0 turns it off")
