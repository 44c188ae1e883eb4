"""RunSettings.from_env and the price table parser: env strings become typed settings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from state.settings import RunSettings, price_table_from

TABLE = {"my-model": [1.5, 6.0], "other": [0, 0.5]}
EXPECTED = {"my-model": (1.5, 6.0), "other": (0.0, 0.5)}


def test_from_env_parses_the_price_table_as_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIF_PRICE_TABLE", json.dumps(TABLE))
    monkeypatch.setenv("FIF_VISION", "true")
    monkeypatch.setenv("FIF_MAX_STEPS", "3")
    context = RunSettings.from_env()
    assert context.price_table == EXPECTED
    assert context.vision is True and context.max_steps == 3


def test_overrides_win_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIF_PRICE_TABLE", json.dumps(TABLE))
    context = RunSettings.from_env({"price_table": {"x": (1.0, 2.0)}, "vision": None})
    assert context.price_table == {"x": (1.0, 2.0)} and context.vision is False


def test_a_price_table_file_is_read(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps(TABLE), encoding="utf-8")
    assert price_table_from(str(path), "--price-table") == EXPECTED


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ("{not json", "not JSON"),
        ('{"my-model": 5}', "my-model"),
        ('{"my-model": [1, 2, 3]}', "my-model"),
        ('{"my-model": ["cheap", 2]}', "my-model"),
        ("no/such/prices.json", "neither a JSON object nor an existing file"),
    ],
    ids=["bad-json", "not-a-pair", "three-prices", "not-a-number", "missing-file"],
)
def test_a_malformed_price_table_is_one_line_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, raw: str, reason: str
) -> None:
    monkeypatch.setenv("FIF_PRICE_TABLE", raw)
    with pytest.raises(ValidationError) as caught:
        RunSettings.from_env()
    [error] = caught.value.errors()
    assert error["loc"] == ("FIF_PRICE_TABLE",) and reason in error["msg"]
    assert "\n" not in error["msg"]
    if "file" not in reason:  # a shape problem shows the expected shape
        assert "usd_in_per_million" in error["msg"]
