"""OUT/run_config.json: what a run evaluated (dataset, index, embedder, backend) and its provenance.

Several runners may add systems to one out dir; the file is merged under a lock, and a run
of another dataset or index folder is refused so results never mix. Other changes (code, a
rebuilt index, backend, k, answer) change the systems' run keys, recorded here under
`run_keys`: results under another key are run again, and the report tells which are current.
"""

from __future__ import annotations

import fcntl
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.run_key import RunKey, code_identity, fif_version
from evals.systems import RunConfig
from tools.atomic_file import write_text_atomically
from tools.errors import ConfigError

RUN_CONFIG_FILE = "run_config.json"
_IDENTITY = ("dataset", "index")
"""run_config fields that must match to add results to an existing out dir (the rest of what
decides a result is in the run keys)."""
RUN_KEYS = "run_keys"
"""run_config field: system → the key its current results are computed under."""


def write_run_config(
    out_dir: Path,
    names: Sequence[str],
    dataset_dir: Path,
    config: RunConfig,
    answer: bool,
    keys: Mapping[str, RunKey],
) -> Path:
    """Write OUT/run_config.json: systems, their run keys, dataset, index, commit, date.

    Raises:
        ConfigError: If out_dir already holds results of another dataset or index folder.
    """
    from tools.corpus_index import open_index

    manifest = open_index(config.index_dir, config.chroma_url).manifest
    payload: dict[str, Any] = {
        "dataset": str(dataset_dir.resolve()),
        "index": str(Path(config.index_dir).resolve()),
        "corpus_sha256": manifest.corpus.sha256,
        "text_embedder": manifest.text_embedder.spec,
        "backend": config.backend,
        "top_k": config.top_k,
        "systems": list(names),
        "answer": answer,
        "chroma_url": config.chroma_url,
        "index_manifest": _manifest_summary(manifest),
        RUN_KEYS: {name: key.as_dict() for name, key in keys.items()},
        **_provenance(),
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    path = out_dir / RUN_CONFIG_FILE
    out_dir.mkdir(parents=True, exist_ok=True)
    # Read, merge and replace under one lock so two runners never lose each other's systems.
    with (out_dir / ".run_config.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        previous = read_run_config(out_dir)
        if previous:
            clash = [key for key in _IDENTITY if previous.get(key) != payload[key]]
            if clash:
                raise ConfigError(
                    f"{out_dir} holds results of another run (differs in {clash}); "
                    "pass a new --out, or delete that folder to start over"
                )
            payload["systems"] = list(dict.fromkeys([*previous.get("systems", []), *names]))
            payload[RUN_KEYS] = {**previous.get(RUN_KEYS, {}), **payload[RUN_KEYS]}
        write_text_atomically(path, json.dumps(payload, indent=1, sort_keys=True))
    return path


def read_run_config(out_dir: Path) -> dict[str, Any]:
    """Return OUT/run_config.json, or {} when there is none yet."""
    path = out_dir / RUN_CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")))
    except json.JSONDecodeError as err:
        raise ConfigError(f"{path}: unreadable ({err}); delete it to start over") from err


def _manifest_summary(manifest: Any) -> dict[str, Any]:
    image = manifest.image_embedder
    return {
        "name": manifest.name,
        "corpus": manifest.corpus.model_dump(),
        "text_embedder": manifest.text_embedder.model_dump(),
        "image_embedder": image.model_dump() if image else None,
        "images_indexed_via": manifest.images_indexed_via,
        "counts": manifest.counts,
        "built_at": manifest.built_at,
        "fif_version": manifest.fif_version,
    }


def _provenance() -> dict[str, Any]:
    """Return the fif version, the git commit and whether the tree had changes."""
    code = code_identity()
    dirty = code.dirty if code.commit else None
    return {"fif_version": fif_version(), "git_commit": code.commit, "git_dirty": dirty}
