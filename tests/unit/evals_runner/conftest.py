"""Fixtures for the eval harness tests: a tiny hash-embedded index and scripted fake systems."""

from __future__ import annotations

import pytest
from eval_helpers import Corpus, FakeSystem, check_config, write_bundle

from evals.systems import SYSTEMS


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    """Build the tiny bundle's index once per session (hash:64 embedder, embedded Chroma)."""
    from corpus_builder.build import BuildOptions, build

    root = tmp_path_factory.mktemp("eval_corpus")
    bundle = write_bundle(root / "bundle")
    build(bundle, root / "index", BuildOptions(text_embedder="hash:64", show_progress=False))
    return Corpus(bundle, root / "index")


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> dict[str, FakeSystem]:
    """Register fake-a, fake-b and fake-c in SYSTEMS; return their instances."""
    systems = {name: FakeSystem(name) for name in ("fake-a", "fake-b", "fake-c")}
    for name, system in systems.items():
        monkeypatch.setitem(SYSTEMS, name, lambda config, s=system: check_config(config, s))
    return systems
