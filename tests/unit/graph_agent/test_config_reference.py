"""docs/configuration.md is generated from the settings models and must stay in step."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from graph_agent.config_reference import (
    OUTPUT,
    field_table,
    main,
    nested_models,
    own_fields,
    render,
    shared_base,
    type_name,
)
from graph_agent.registry import SYSTEMS


def test_the_committed_reference_is_what_the_models_say() -> None:
    assert OUTPUT.read_text(encoding="utf-8") == render(), (
        "docs/configuration.md is stale: run `python -m graph_agent.config_reference`"
    )


def test_every_field_of_every_system_is_documented() -> None:
    text = render()
    for system in SYSTEMS.values():
        for name in system.context_type.model_fields:
            assert f"| `{name}` |" in text, name


def test_check_fails_on_a_stale_file_and_passes_once_written(tmp_path: Path) -> None:
    out = tmp_path / "configuration.md"
    out.write_text("# an old reference\n", encoding="utf-8")
    assert main(["--check", "--out", str(out)]) == 1
    assert main(["--out", str(out)]) == 0
    assert main(["--check", "--out", str(out)]) == 0


class Inner(BaseModel):
    """Inner knobs."""

    weight: float = Field(0.5, ge=0.0, le=1.0, description="Trades a | b.")


class Base(BaseModel):
    """Base settings."""

    mode: Literal["dense", "sparse"] = Field("dense", description="How to search.")
    inner: Inner = Field(default_factory=Inner, description="Nested.")


class Child(Base):
    """Child settings."""

    extra: int | None = Field(None, gt=0, description="Only the child's.")


def test_a_table_row_names_type_default_range_and_escapes_pipes() -> None:
    rows = field_table(Inner, ["weight"])
    assert rows[2] == "| `weight` | float | `0.5` | ≥ 0.0, ≤ 1.0 | Trades a \\| b. |"
    assert field_table(Base, ["inner"])[2].startswith("| `inner` | Inner | [Inner](#inner) |")
    assert type_name(Base.model_fields["mode"].annotation) == "dense | sparse"
    assert type_name(Child.model_fields["extra"].annotation) == "int | None"


def test_own_fields_nested_models_and_the_shared_base() -> None:
    assert own_fields(Child) == ["extra"]
    assert list(nested_models([Child])) == [Inner]
    assert shared_base([Child, Base]) is Base
    assert shared_base([Child]) is Child
