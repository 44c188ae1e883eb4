"""Query vectors of one index: cached, and embedded ahead by a helper process.

FiF knows some query texts before it scores with them: the question (from the moment
`ask` receives it, while the graph starts and plans), its clauses (the reranker reads
them at the end of the run), a link hop's residual question (known when the step it
starts from is judged), a bridge subquery (formed after the first hop, searched after the
link hop), the chains' residual questions (declared after each step, read by the
reranker). `prefetch` declares such a batch and sends it to the embedding helper
(`tools.embed_process`), which embeds it on the other core while the run goes on.
`vectors` returns cached vectors, collects declared batches and embeds the rest here: a
text needed now gains nothing from crossing a pipe.

A text's vector never depends on its batch (`tools.embedders.embed_each`: a batch-independent
encoder embeds a batch in one call, torch's int8 one a pass per text), so it is the same
whichever batch declared it and whoever embeds it: the helper, or this process when the
helper is not up (still loading, failed, switched off). A run gives the same rankings with
or without the helper, and declaring a text earlier or later never changes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tools.embed_process import EmbedProcess, EmbedProcessError

CACHE_LIMIT = 4096
"""Cached vectors beyond this many are all dropped (a long-lived server's bound)."""
DECLARED_LIMIT = 256
"""Declared texts beyond this many are settled: a server's runs may leave some unused."""

Embed = Callable[[list[str]], Sequence[np.ndarray]]
"""Embeds a batch of texts in this process with the index's text embedder (`embed_each`)."""


@dataclass(eq=False)  # compared by identity
class Declared:
    """A batch declared ahead of use: its texts, helper ticket if sent, vectors once made."""

    texts: list[str]
    ticket: int | None = None
    claimed: bool = False
    """Set by the run that makes the vectors; any other run needing them waits for `made`."""
    made: threading.Event = field(default_factory=threading.Event)
    vectors: dict[str, np.ndarray] | None = None


class QueryVectors:
    """The vectors of query texts: cached, declared ahead (sent or deferred), or new.

    Thread-safe; no lock is held while a batch is embedded here or awaited from the helper,
    so concurrent runs embed side by side.
    """

    def __init__(self, helper: EmbedProcess | None = None) -> None:
        self.helper = helper
        self._done: dict[str, np.ndarray] = {}
        self._declared: dict[str, Declared] = {}
        """Text -> the batch it was declared in (shared by the batch's texts)."""
        self._lock = threading.Lock()

    def start_helper(self, wait_s: float = 0.0) -> bool:
        """Start the helper now, not at the first declaration; tell whether it is up.

        Waits up to `wait_s` for it to load. False without a helper, or once it failed.
        """
        return self.helper is not None and self.helper.wait_ready(wait_s)

    def prefetch(self, texts: Sequence[str]) -> None:
        """Declare a batch of the texts neither cached nor declared; send it if the helper is up."""
        with self._lock:
            missing = self._missing(texts)
            if not missing:
                return
            if len(self._declared) + len(missing) > DECLARED_LIMIT:
                self._settle()
            batch = Declared(missing)
            if self.helper is not None and self.helper.usable():
                batch.ticket = self._send(missing)
            self._declared.update(dict.fromkeys(missing, batch))

    def vectors(self, texts: Sequence[str], embed: Embed) -> list[np.ndarray]:
        """Return the texts' vectors: cached, from their declared batch, or embedded now."""
        with self._lock:
            found = {text: self._done[text] for text in texts if text in self._done}
            declared = (self._declared.get(text) for text in texts if text not in found)
            batches = list({id(batch): batch for batch in declared if batch}.values())
            mine = [batch for batch in batches if not batch.claimed]
            for batch in mine:
                batch.claimed = True
        for batch in batches:
            if batch in mine:
                self._make(batch, embed)
            batch.made.wait()
            found.update(batch.vectors or {})  # a batch that failed leaves its texts to `rest`
        rest = [text for text in dict.fromkeys(texts) if text not in found]
        if rest:
            made = dict(zip(rest, embed(rest), strict=True))
            with self._lock:
                self._store(made)
            found.update(made)
        return [found[text] for text in texts]

    def cached(self, text: str) -> bool:
        """Tell whether a text's vector is cached (not merely declared)."""
        with self._lock:
            return text in self._done

    def cached_count(self) -> int:
        """Return how many texts have cached vectors (since the last `forget`)."""
        with self._lock:
            return len(self._done)

    def forget(self) -> None:
        """Collect what the helper still owes, then drop every vector and declared batch.

        Collecting first keeps a batch one run sent from taking the helper's core, or
        landing in the cache, after the next run began.
        """
        with self._lock:
            self._settle()
            self._done.clear()

    def _missing(self, texts: Sequence[str]) -> list[str]:
        return [t for t in dict.fromkeys(texts) if t not in self._done and t not in self._declared]

    def _send(self, texts: list[str]) -> int | None:
        assert self.helper is not None
        try:
            return self.helper.send(texts)
        except (OSError, EmbedProcessError) as err:
            self.helper.fail(f"failed: {err}")
            return None  # deferred: embedded here when needed

    def _make(self, batch: Declared, embed: Embed) -> None:
        """Make a claimed batch's vectors (the helper's answer, or embedded here), cache them."""
        try:
            answer = self._answer(batch)
            vectors = embed(batch.texts) if answer is None else answer
            batch.vectors = dict(zip(batch.texts, vectors, strict=True))
            with self._lock:
                self._store(batch.vectors)
        finally:
            with self._lock:
                for text in batch.texts:
                    if self._declared.get(text) is batch:
                        del self._declared[text]
            batch.made.set()

    def _answer(self, batch: Declared) -> list[np.ndarray] | None:
        """Return the helper's vectors for a sent batch (None: not sent, or the helper failed)."""
        if batch.ticket is None or self.helper is None:
            return None
        try:
            return list(self.helper.receive(batch.ticket))
        except (OSError, EmbedProcessError) as err:
            self.helper.fail(f"failed: {err}")
            with self._lock:  # every batch sent to it is lost with it: embedded here
                for declared in self._declared.values():
                    declared.ticket = None
            return None

    def _settle(self) -> None:
        """Drop the batches no run has claimed; cache the helper's answers to those sent.

        The lock is held.
        """
        unclaimed = {id(b): b for b in self._declared.values() if not b.claimed}.values()
        self._declared = {t: b for t, b in self._declared.items() if b.claimed}
        for batch in unclaimed:
            if batch.ticket is None or self.helper is None:
                continue
            try:
                self._store(dict(zip(batch.texts, self.helper.receive(batch.ticket), strict=True)))
            except (OSError, EmbedProcessError) as err:
                self.helper.fail(f"failed: {err}")
                return

    def _store(self, batch: dict[str, np.ndarray]) -> None:
        if len(self._done) + len(batch) > CACHE_LIMIT:
            self._done.clear()
        self._done.update(batch)
