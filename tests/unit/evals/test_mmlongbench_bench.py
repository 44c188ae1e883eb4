"""The MMLongBench bench script asks both indices the same questions, limited or not."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "mmlongbench_bench.py"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mmlongbench_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_limit_writes_the_ocr_bundles_first_questions_for_every_index(tmp_path: Path) -> None:
    (tmp_path / "bundle").mkdir()
    lines = [f'{{"qid": "q{n}"}}\n' for n in range(5)]
    (tmp_path / "bundle" / "questions.jsonl").write_text("".join(lines))
    script = bench()
    assert script.asked(tmp_path, None) == tmp_path / "bundle"
    folder = script.asked(tmp_path, 2)
    assert (folder / "questions.jsonl").read_text() == "".join(lines[:2])
    assert script.asked(tmp_path, 2) == folder  # a rerun writes the same file again
