"""The key a result line is computed under: code, index build and system configuration.

A result is reusable on resume only if it was computed by the same code (git commit plus a
hash of uncommitted changes; outside a git checkout, the installed fif version plus a hash of
the package sources), on the same index build (a hash of the manifest fields that identify
it) and with the same system settings (the Context fields that change results). Every
results line stores its key, so a line computed by other code is never taken for current.
"""

from __future__ import annotations

import hashlib
import json
import logging
import subprocess
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from tools.manifest import MANIFEST_FILE, fif_version

logger = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parents[1]
"""The source tree these modules run from (a git checkout in development)."""
SOURCE_PACKAGES = ("corpus_builder", "evals", "graph_agent", "nodes", "state", "tools")
"""Packages whose sources are hashed when the code is not a git checkout."""
VOLATILE_MANIFEST_FIELDS = (
    "built_at",
    "timings",
    "embedding",
    "summaries",
    "chroma_url",
    "vectors_token",
)
"""Manifest fields that describe how a build ran (when, how long, what it reused, where the
store lives, which build wrote the vector copy), not what it holds; out of the index hash."""
LOCATION_CONTEXT_FIELDS = frozenset({"index_dir", "chroma_url", "api_key_env"})
"""Context fields that say where things are, not how a system ranks; out of the config hash."""
KEY_PARTS = ("code", "dirty", "index", "config")
"""The fields of a stored key, in the order differences are named."""
NO_KEY = "no-key"
"""Why a line without a stored key is not reused: an older harness wrote it."""
HASH_CHARS = 16
"""Hex characters kept of each sha256: plenty to tell builds and configs apart."""


@dataclass(frozen=True)
class RunKey:
    """What a result was computed under; two results are interchangeable iff keys are equal."""

    code: str
    """`git:<commit>` (+ `+dirty:<diff hash>`), or `pkg:<version>+src:<hash>` outside git."""
    dirty: bool
    """The git tree had uncommitted changes (results are allowed but flagged)."""
    index: str
    """Hash of the index manifest fields that identify the build."""
    config: str
    """Hash of the system's name and result-changing settings."""

    def as_dict(self) -> dict[str, Any]:
        """Return the key as stored in a results line."""
        return asdict(self)

    def differences(self, stored: Mapping[str, Any] | None) -> list[str]:
        """Name the parts of a stored key that differ from this one (empty when equal)."""
        return key_differences(self.as_dict(), stored)


def key_differences(current: Mapping[str, Any], stored: Mapping[str, Any] | None) -> list[str]:
    """Name the parts of a stored key that differ from the current one (empty when equal)."""
    if not stored:
        return [NO_KEY]
    return [part for part in KEY_PARTS if stored.get(part) != current.get(part)]


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:HASH_CHARS]


def canonical_hash(value: Any) -> str:
    """Hash a JSON-like value independently of key order."""
    return _sha(json.dumps(value, sort_keys=True, default=str).encode("utf-8"))


def manifest_hash(index_dir: str | Path) -> str:
    """Hash the manifest.json of an index without its volatile fields (or the corpus path)."""
    raw = json.loads((Path(index_dir) / MANIFEST_FILE).read_text(encoding="utf-8"))
    identity = {key: value for key, value in raw.items() if key not in VOLATILE_MANIFEST_FIELDS}
    corpus = dict(identity.get("corpus") or {})
    corpus.pop("path", None)
    identity["corpus"] = corpus
    return canonical_hash(identity)


def config_hash(system: str, settings: Mapping[str, Any]) -> str:
    """Hash a system's name and settings, leaving out the location fields."""
    kept = {key: value for key, value in settings.items() if key not in LOCATION_CONTEXT_FIELDS}
    return canonical_hash({"system": system, "settings": kept})


@dataclass(frozen=True)
class CodeIdentity:
    """Which code computes results in this process."""

    code: str
    dirty: bool
    commit: str | None
    """The git commit, or None outside a git checkout."""


@lru_cache(maxsize=1)
def code_identity() -> CodeIdentity:
    """Return the identity of the running code (computed once per process)."""
    commit = git("rev-parse", "HEAD") if _is_checkout_root(REPO) else None
    if commit:
        status = git("status", "--porcelain")
        if status:  # the changes themselves and the names of untracked files
            changes = f"{git('diff', 'HEAD') or ''}\n{status}"
            return CodeIdentity(f"git:{commit}+dirty:{_sha(changes.encode())}", True, commit)
        return CodeIdentity(f"git:{commit}", False, commit)
    return CodeIdentity(f"pkg:{fif_version()}+src:{source_hash(REPO)}", False, None)


def _is_checkout_root(root: Path) -> bool:
    """Tell whether root is the top of a git checkout (not, say, a venv inside another one)."""
    top = git("rev-parse", "--show-toplevel")
    return top is not None and Path(top).resolve() == root.resolve()


def source_hash(root: Path) -> str:
    """Hash every .py file of the FiF packages under root, by relative path and content."""
    digest = hashlib.sha256()
    for package in SOURCE_PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:HASH_CHARS]


def git(*args: str) -> str | None:
    """Run a git command in the source tree; return its stripped stdout, None on failure."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=REPO, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError) as err:
        logger.info("git %s unavailable: %s", " ".join(args), err)
        return None
    return done.stdout.strip()


def run_key(system: str, settings: Mapping[str, Any], index_hash: str) -> RunKey:
    """Return the key of one system's results in this process, on an index of that hash."""
    code = code_identity()
    return RunKey(code.code, code.dirty, index_hash, config_hash(system, settings))
