"""How many Ray workers `fif eval --ray` starts, without a cluster (a fake `ray`)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from evals import ray_eval
from evals.ray_eval import RayEval, ray_execute
from evals.systems import RunConfig
from tools.ray_cluster import RayTarget


class FakeRay:
    """Records the actors started; each is the tuple of its arguments."""

    def __init__(self) -> None:
        self.started: list[tuple[Any, ...]] = []

    def remote(self, num_cpus: int) -> Any:
        assert num_cpus == 1

        def wrap(cls: type) -> Any:
            return SimpleNamespace(remote=lambda *args: self.started.append(args) or args)

        return wrap


@pytest.mark.parametrize(
    ("workers", "free", "pairs", "started"),
    [(1, 2, 40, 2), (1, 8, 3, 3), (4, 8, 40, 4), (4, 2, 40, 2), (1, 1, 40, 1)],
)
def test_workers_never_outnumber_free_cpus_or_pairs(
    monkeypatch: pytest.MonkeyPatch, workers: int, free: int, pairs: int, started: int
) -> None:
    fake = FakeRay()
    monkeypatch.setattr(ray_eval, "import_ray", lambda: fake)
    monkeypatch.setattr(ray_eval, "cluster_cpus", lambda: free)
    spread = RayEval(("dense",), RunConfig("idx"), False, {}, workers, RayTarget())
    assert len(ray_eval._start_workers(spread, pairs)) == started
    assert all(args[1].index_dir.endswith("idx") and args[1].index_dir != "idx"
               for args in fake.started)  # fmt: skip


def test_nothing_pending_starts_no_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(target: RayTarget) -> Any:
        raise AssertionError("a cluster was started for nothing")

    monkeypatch.setattr(ray_eval, "ray_session", refuse)
    spread = RayEval(("dense",), RunConfig("idx"), False, {}, 1, RayTarget())
    assert ray_execute([], spread, lambda result: True, progress=False) == 0
