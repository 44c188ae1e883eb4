"""Where `--ray` work runs: a Ray cluster joined (or a local one started) for one build or eval.

Ray is an optional extra (`ray`); it is imported only here and by the modules that hand it
work (corpus_builder.ray_embed, corpus_builder.ray_parse, evals.ray_eval). A local cluster
has no dashboard, gives 127.0.0.1 as its node address, and its workers import the same code
as the process that started it. Ray's own servers (GCS, raylet) still bind every interface
in Ray 2.60 (we found no setting that narrows them); Ray's token authentication, on by
default, guards them. Joining an existing cluster (an address, or `RAY_ADDRESS`) assumes
its nodes run the same FiF and reach the same corpus and index paths.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from tools.errors import ConfigError, MissingDependencyError, install_hint

logger = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
PROJECT_ROOT = str(Path(__file__).resolve().parents[1])
"""The folder holding FiF's packages, put on a local cluster's workers' import path."""


@dataclass(frozen=True)
class RayTarget:
    """Which Ray cluster to use: an address to join, or None to start a local one."""

    address: str | None = None
    """`ray://head:10001` (Ray Client), `head:6379` (on a cluster node), `auto`; None: the
    cluster `RAY_ADDRESS` names, else a new local one."""
    num_cpus: int | None = None
    """CPUs of a local cluster (None: all of this machine's); ignored when joining one."""

    def joins(self) -> bool:
        """Return True when this target names an existing cluster rather than a new one."""
        return bool(self.address or os.environ.get("RAY_ADDRESS"))


def ray_target(use: bool) -> RayTarget | None:
    """Return the target of `--ray`: the cluster `RAY_ADDRESS` names, else a local one."""
    return RayTarget() if use else None


def import_ray() -> ModuleType:
    """Return the `ray` module, or raise MissingDependencyError saying how to install it."""
    try:
        import ray
    except ImportError as err:
        raise MissingDependencyError(f"--ray needs the ray extra: {install_hint('ray')}") from err
    return ray


@contextmanager
def ray_session(target: RayTarget | None) -> Iterator[None]:
    """Hold a Ray connection for the block (nothing with no target).

    A connection already open in this process (a test's, a notebook's) is used as it is
    and left open; one opened here is closed at the end of the block.

    Raises:
        ConfigError: If the cluster cannot be reached or started.
    """
    if target is None:
        yield
        return
    ray = import_ray()
    if ray.is_initialized():
        yield
        return
    _start(ray, target)
    try:
        yield
    finally:
        ray.shutdown()


def _start(ray: ModuleType, target: RayTarget) -> None:
    """Join the target's cluster, or start a local one on loopback."""
    from ray.job_config import JobConfig

    settings: dict[str, object] = {"include_dashboard": False, "logging_level": logging.WARNING}
    if not target.joins():
        settings.update(
            num_cpus=target.num_cpus,
            _node_ip_address=LOOPBACK,
            job_config=JobConfig(code_search_path=[PROJECT_ROOT]),
        )
    try:
        ray.init(address=target.address, **settings)
    except (ConnectionError, RuntimeError, ValueError) as err:
        where = target.address or os.environ.get("RAY_ADDRESS") or "a local cluster"
        raise ConfigError(
            f"Ray: cannot use {where} ({err}); check the address (ray://HEAD:10001 from "
            "outside the cluster, HEAD:6379 on one of its nodes), or drop it to run locally"
        ) from err
    logger.info("Ray: %s CPUs at %s", cluster_cpus(), target.address or "a local cluster")


def cluster_cpus() -> int:
    """Return the CPUs free in the connected cluster now (at least 1).

    Workers each hold one CPU for their lifetime, so starting more than are free would
    leave some waiting for CPUs that other jobs hold.
    """
    ray = import_ray()
    return max(1, int(ray.available_resources().get("CPU", 0)))
