"""A helper process that embeds query texts while the run goes on.

FiF knows many query texts before it scores with them (`tools.query_vectors`). Embedding
them on a thread of the same process does not overlap anything: the run's nodes are Python
and the encoder takes the GIL back dozens of times a pass, so each pass beside a busy node
took 35 times longer on this machine. A child process has its own GIL: the run sends texts
down a pipe and reads the vectors back when it needs them, in the order it sent them.

The child loads the index's query encoder (`tools.saved_encoder.query_embedder`) on one
thread (torch's or ONNX Runtime's), so the run keeps the other core, and says so with its
model id and dimension.
The parent embeds in-process until then, and for good if the child fails to start, answers
with another model, or dies (a warning says why). Requests and answers are frames of a
4-byte length, a kind byte and a payload: JSON texts down, float32 rows or an error back.
"""

from __future__ import annotations

import json
import logging
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from functools import lru_cache
from typing import IO

import numpy as np

logger = logging.getLogger(__name__)

READY, VECTORS, FAILED, TEXTS = b"R", b"V", b"F", b"T"
HEADER = struct.Struct("!Ic")
"""A frame's header: the payload's length and its kind."""
MAX_UNREAD_BYTES = 32 * 1024
"""Answers the child may owe before the parent reads some back (half a Linux pipe): beyond
this the parent reads before it sends, so the two never wait on each other's full pipe."""
READY_POLL_S = 0.02
"""How often `wait_ready` looks whether the child has loaded its encoder."""


class EmbedProcessError(RuntimeError):
    """The helper process is gone or answered out of protocol."""


def write_frame(stream: IO[bytes], kind: bytes, payload: bytes) -> None:
    """Write one frame and flush it."""
    stream.write(HEADER.pack(len(payload), kind) + payload)
    stream.flush()


def read_frame(stream: IO[bytes]) -> tuple[bytes, bytes]:
    """Read one frame: (kind, payload). Raises EmbedProcessError at the end of the stream."""
    header = _read_exactly(stream, HEADER.size)
    if len(header) < HEADER.size:
        raise EmbedProcessError("the embedding process closed its output")
    length, kind = HEADER.unpack(header)
    payload = _read_exactly(stream, length)
    if len(payload) < length:
        raise EmbedProcessError("the embedding process stopped mid-answer")
    return kind, payload


def _read_exactly(stream: IO[bytes], size: int) -> bytes:
    """Read `size` bytes, fewer only at the end of the stream.

    The parent reads an unbuffered pipe, where one read returns what has arrived so far: an
    answer over the pipe's atomic write size may come in parts.
    """
    parts, left = [], size
    while left:
        part = stream.read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


HELPER_ENV = "FIF_EMBED_HELPER"
"""Set to 0 to embed queries in-process only (a one-core machine gains nothing from it)."""


@lru_cache(maxsize=4)
def embed_helper(spec: str, model_id: str, dim: int) -> EmbedProcess | None:
    """Return this process's helper for an st: or onnx: query encoder (None: none).

    One helper per model serves every index and thread of the process; it starts on first
    use. Other backends (hash, CLIP) and POSIX-less systems embed in-process.
    """
    local = not spec.startswith(("st:", "onnx:"))
    if local or os.name != "posix" or os.environ.get(HELPER_ENV) == "0":
        return None
    return EmbedProcess(spec, model_id, dim)


class EmbedProcess:
    """The parent's end: send batches of texts, then receive their vectors in order.

    Thread-safe: one lock orders the pipe's frames.
    """

    def __init__(self, spec: str, model_id: str, dim: int) -> None:
        self.spec, self.model_id, self.dim = spec, model_id, dim
        self.lock = threading.RLock()
        self._child: subprocess.Popen[bytes] | None = None
        self._ready = False
        self.failed = False
        """Set for good once the child failed to start, answered another model or died."""
        self._sent: deque[int] = deque()
        """Row counts of the batches sent and not yet received, oldest first."""
        self._received: dict[int, np.ndarray] = {}
        self._next_ticket = 0

    def usable(self) -> bool:
        """Tell whether the child is ready; start it on the first call (never blocks)."""
        with self.lock:
            if self._ready or self.failed:
                return self._ready
            try:
                if self._child is None:
                    self._child = _start_child(self.spec)
                    weakref.finalize(self, _end_child, self._child)
                self._ready = self._poll_ready()
            except (OSError, EmbedProcessError, ValueError) as err:
                self.fail(f"did not start: {err}")
            return self._ready

    def wait_ready(self, timeout_s: float) -> bool:
        """Start the child if need be and wait up to `timeout_s` for it; tell whether it is up."""
        deadline = time.monotonic() + timeout_s
        while not self.usable():
            if self.failed or time.monotonic() >= deadline:
                return False
            time.sleep(READY_POLL_S)
        return True

    def send(self, texts: list[str]) -> int:
        """Send one batch; return its ticket for `receive`."""
        with self.lock:
            child = self._alive()
            while self._sent and (sum(self._sent) + len(texts)) * self.dim * 4 > MAX_UNREAD_BYTES:
                self._read_oldest()
            assert child.stdin is not None
            write_frame(child.stdin, TEXTS, json.dumps(texts).encode())
            ticket = self._next_ticket
            self._next_ticket += 1
            self._sent.append(len(texts))
            return ticket

    def receive(self, ticket: int) -> np.ndarray:
        """Return a batch's vectors (rows in the order sent), reading older answers first."""
        with self.lock:
            while ticket not in self._received:
                self._read_oldest()
            return self._received.pop(ticket)

    def fail(self, reason: str) -> None:
        """Stop using the child for good (the parent embeds in-process from now on)."""
        with self.lock:
            if not self.failed:
                logger.warning("query embedding stays in this process: its helper %s", reason)
            self.close()

    def close(self) -> None:
        """End the child; queries are embedded in this process from now on."""
        with self.lock:
            self.failed, self._ready = True, False
            child, self._child = self._child, None
            if child is not None:
                _end_child(child)

    def _alive(self) -> subprocess.Popen[bytes]:
        if self._child is None or not self._ready:
            raise EmbedProcessError("the embedding process is not running")
        return self._child

    def _read_oldest(self) -> None:
        child = self._alive()
        assert child.stdout is not None
        ticket = self._next_ticket - len(self._sent)  # the oldest batch not yet read
        rows = self._sent.popleft()
        kind, payload = read_frame(child.stdout)
        if kind == VECTORS and len(payload) == rows * self.dim * 4:
            self._received[ticket] = np.frombuffer(payload, dtype=np.float32).reshape(rows, -1)
        elif kind == FAILED:
            raise EmbedProcessError(payload.decode(errors="replace"))
        else:
            raise EmbedProcessError(f"unexpected answer ({kind!r}, {len(payload)} bytes)")

    def _poll_ready(self) -> bool:
        child = self._child
        assert child is not None and child.stdout is not None
        if child.poll() is not None:
            raise EmbedProcessError(f"it exited with status {child.returncode}")
        if not select.select([child.stdout], [], [], 0)[0]:
            return False  # still loading
        try:
            kind, payload = read_frame(child.stdout)
        except EmbedProcessError:
            raise EmbedProcessError(f"it exited with status {child.wait()}") from None
        said = json.loads(payload) if kind == READY else {}
        if said.get("model_id") != self.model_id or said.get("dim") != self.dim:
            raise EmbedProcessError(f"it loaded another model: {payload[:200]!r}")
        return True


def _end_child(child: subprocess.Popen[bytes]) -> None:
    """Kill the child and reap it: it holds nothing to save, and may still be loading."""
    if child.poll() is None:
        child.kill()
    child.wait()
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            pipe.close()


def _start_child(spec: str) -> subprocess.Popen[bytes]:
    """Start the child with this interpreter and this process's import path."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.Popen(
        [sys.executable, "-m", "tools.embed_process", spec],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=env,
        bufsize=0,
    )


def serve(spec: str, requests: IO[bytes], answers: IO[bytes]) -> None:
    """The child's loop: load the encoder, say ready, answer each batch until the pipe ends."""
    from tools.embedders import embed_each
    from tools.saved_encoder import query_embedder

    batch_scheduling()
    if spec.startswith("st:"):  # one core for the child, the other for the run
        import torch

        torch.set_num_threads(1)
    embedder = query_embedder(spec)  # an onnx: one runs on one thread already
    ready = {"model_id": embedder.model_id, "dim": embedder.dim}
    write_frame(answers, READY, json.dumps(ready).encode())
    while True:
        try:
            kind, payload = read_frame(requests)
        except EmbedProcessError:
            return  # the parent closed the pipe: it is done or gone
        try:
            texts = json.loads(payload)
            vectors = np.ascontiguousarray(embed_each(embedder, texts), dtype=np.float32)
        except Exception as err:  # answered, so the parent raises it where it waits
            write_frame(answers, FAILED, f"{type(err).__name__}: {err}".encode())
            continue
        write_frame(answers, VECTORS, vectors.tobytes())


def batch_scheduling() -> bool:
    """Ask Linux not to let this process preempt the run it serves; tell whether it did.

    The run's pipe write wakes the child on the run's own core (a pipe wakes its reader
    there), where it took the core from the run for the whole pass: a send cost a busy
    run 1-3 ms instead of 0.1. A SCHED_BATCH child waits for a free core or the next tick
    instead; its vectors are the same.
    """
    policy = getattr(os, "SCHED_BATCH", None)
    if policy is None:
        return False
    try:
        os.sched_setscheduler(0, policy, os.sched_param(0))
    except OSError:
        return False
    return True


def main() -> None:
    """Run as the helper: answers go to a copy of stdout; anything else printed goes to stderr."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it ends the child
    answers = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        serve(sys.argv[1], sys.stdin.buffer, answers)
    except Exception as err:  # the parent logs that it embeds in-process; say why once
        sys.stderr.write(f"fif embedding helper: {type(err).__name__}: {err}\n")
        sys.exit(1)


if __name__ == "__main__":
    main()
