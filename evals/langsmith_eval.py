"""Run the same examples and metrics through `langsmith.evaluate`, offline or uploaded.

Without `LANGSMITH_API_KEY` (or with `upload=False`) nothing leaves the process: the examples
are passed as in-memory `langsmith.schemas.Example` objects, `upload_results=False` keeps runs
and feedback local, and the client is built with `auto_batch_tracing=False` and a preset
`LangSmithInfo`, so it never starts the background thread that would GET `/info`, and the
systems run with tracing off, so LangChain's tracer sends none of their runs. With the key,
the examples are synced into a LangSmith dataset (created if missing, examples keyed by qid) and
the experiment is uploaded. Results already in a run's results.jsonl can be replayed through
`cached` instead of asking the systems again.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import uuid
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from evals.answer_match import match_answer
from evals.datasets.questions import EvalExample
from evals.langsmith_data import sync_dataset, to_langsmith_example
from evals.metrics import exact_match, retrieval_scores, token_f1
from evals.report import ANSWER_KEYS, QA_KEYS, RETRIEVAL_KEYS
from evals.results_log import Key
from evals.systems import RunConfig, make_system
from tools.errors import FiFError

logger = logging.getLogger(__name__)

API_KEY_ENV = "LANGSMITH_API_KEY"
ENDPOINT_ENVS = ("LANGSMITH_ENDPOINT", "LANGCHAIN_ENDPOINT")
DEFAULT_ENDPOINT = "https://api.smith.langchain.com"
MAX_REASON_CHARS = 160
"""A failure's reason is cut to this length: the client's messages repeat the whole request."""
_NAMESPACE = uuid.UUID("5f1e2d4c-7a0b-4c39-9e7e-f1f0e7a1b2c3")
Evaluator = Callable[..., dict[str, Any]]
"""(outputs, reference_outputs) -> {key, score}; answer evaluators also take inputs first
(langsmith passes arguments by these names)."""


def _retrieval_evaluator(key: str) -> Evaluator:
    def evaluate_one(outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> dict[str, Any]:
        gold = frozenset(reference_outputs["gold_components"])
        return {"key": key, "score": retrieval_scores(outputs.get("ranking") or [], gold)[key]}

    evaluate_one.__name__ = key
    return evaluate_one


def _qa_evaluator(key: str) -> Evaluator:
    metric = exact_match if key == "EM" else token_f1

    def evaluate_one(outputs: dict[str, Any], reference_outputs: dict[str, Any]) -> dict[str, Any]:
        answers = reference_outputs.get("answers") or []
        if not answers:
            return {"key": key, "score": None, "comment": "no reference answer"}
        return {"key": key, "score": metric(outputs.get("answer") or "", answers)}

    evaluate_one.__name__ = key
    return evaluate_one


def _answer_evaluator(key: str) -> Evaluator:
    """Answered or Correct by offline matching (`evals.answer_match`), as in the report."""

    def evaluate_one(
        inputs: dict[str, Any], outputs: dict[str, Any], reference_outputs: dict[str, Any]
    ) -> dict[str, Any]:
        answers = reference_outputs.get("answers") or []
        if not answers:
            return {"key": key, "score": None, "comment": "no reference answer"}
        verdict = match_answer(outputs.get("answer"), answers, inputs.get("question", ""))
        score = verdict.answered if key == "Answered" else verdict.correct
        return {"key": key, "score": float(score), "comment": verdict.reason}

    evaluate_one.__name__ = key
    return evaluate_one


def evaluators(want_answer: bool) -> list[Evaluator]:
    """Return one evaluator per metric key, each returning `{"key", "score"}`."""
    found = [_retrieval_evaluator(key) for key in RETRIEVAL_KEYS]
    if want_answer:
        found += [_qa_evaluator(key) for key in QA_KEYS]
        found += [_answer_evaluator(key) for key in ANSWER_KEYS]
    return found


def offline_client() -> Any:
    """Return a langsmith Client that makes no network call (no tracing thread, no /info)."""
    from langsmith import Client
    from langsmith.schemas import LangSmithInfo

    return Client(auto_batch_tracing=False, info=LangSmithInfo())


def _target(
    name: str,
    by_qid: Mapping[str, EvalExample],
    config: RunConfig,
    want_answer: bool,
    cached: Mapping[Key, Mapping[str, Any]] | None,
    upload: bool,
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """Return what `langsmith.evaluate` calls per example; offline, with tracing off.

    (Else LangChain's tracer sends every LangGraph run to the default LangSmith endpoint.)
    """
    from langsmith.run_helpers import tracing_context

    system = None if cached is not None else make_system(name, config)

    def predict(inputs: dict[str, Any]) -> dict[str, Any]:
        qid = inputs["qid"]
        if system is None:
            line = (cached or {}).get((qid, name)) or {}
            return {"ranking": list(line.get("ranking") or []), "answer": line.get("answer")}
        with contextlib.nullcontext() if upload else tracing_context(enabled=False):
            output = system.retrieve(by_qid[qid], want_answer)
        return {"ranking": output.ranking, "answer": output.answer, "cost": output.cost}

    return predict


def _client_and_data(
    upload: bool, dataset_name: str, examples: Sequence[EvalExample]
) -> tuple[Any, list[Any]]:
    """Return a client and the examples: synced to LangSmith, or in memory and offline."""
    if upload:
        from langsmith import Client

        client = Client()
        return client, sync_dataset(client, dataset_name, examples)
    return offline_client(), [to_langsmith_example(ex, _NAMESPACE) for ex in examples]


def aggregate(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Return the mean score per evaluator key over experiment rows (None scores skipped).

    As in the report, EM/F1 are dropped for a system that answered no question at all, and
    count an unanswered question as 0 for one that answered some.
    """
    answered = any((row["run"].outputs or {}).get("answer") is not None for row in rows)
    sums: dict[str, list[float]] = {}
    for row in rows:
        for result in row["evaluation_results"]["results"]:
            answer_key = result.key in QA_KEYS or result.key in ANSWER_KEYS
            if result.score is not None and (answered or not answer_key):
                sums.setdefault(result.key, []).append(float(result.score))
    pooled = {key: sum(values) / len(values) for key, values in sorted(sums.items())}
    pooled["n"] = float(len(rows))
    return pooled


class LangSmithUnavailableError(FiFError):
    """LangSmith could not be reached or refused a request (raised by `run_langsmith`).

    The local report is unaffected: `fif eval --langsmith` logs it as a warning.
    """


@contextlib.contextmanager
def _unreachable_as_error() -> Iterator[None]:
    """Turn a LangSmith connection or API failure into one LangSmithUnavailableError."""
    import requests
    from langsmith.utils import LangSmithError

    try:
        yield
    except (LangSmithError, requests.RequestException, OSError) as error:
        endpoint = next(
            (os.environ[v] for v in ENDPOINT_ENVS if os.environ.get(v)), DEFAULT_ENDPOINT
        )
        reason = " ".join(str(error).split())[:MAX_REASON_CHARS]
        raise LangSmithUnavailableError(
            f"LangSmith at {endpoint} failed ({type(error).__name__}: {reason}); "
            f"check LANGSMITH_ENDPOINT and {API_KEY_ENV}, or run without --langsmith"
        ) from error


@_unreachable_as_error()
def run_langsmith(
    system_names: Sequence[str],
    examples: Sequence[EvalExample],
    config: RunConfig,
    *,
    want_answer: bool = False,
    cached: Mapping[Key, Mapping[str, Any]] | None = None,
    upload: bool | None = None,
    dataset_name: str = "fif-eval",
    max_concurrency: int = 0,
    metadata: Mapping[str, Any] = MappingProxyType({}),
) -> dict[str, dict[str, float]]:
    """Evaluate each system with `langsmith.evaluate` and return its pooled scores.

    Args:
        system_names: Systems from `evals.systems.SYSTEMS`.
        examples: The questions to evaluate.
        config: Index, backend and k shared by the systems.
        want_answer: Ask for answers and add EM/F1 evaluators.
        cached: Result lines by (qid, system) to replay instead of running the systems.
        upload: Upload to LangSmith; None means "if LANGSMITH_API_KEY is set".
        dataset_name: LangSmith dataset the examples are synced into when uploading.
        max_concurrency: Examples evaluated concurrently (0 = sequentially).
        metadata: Extra experiment metadata (run settings).
    """
    upload = bool(os.environ.get(API_KEY_ENV)) if upload is None else upload
    client, data = _client_and_data(upload, dataset_name, examples)
    by_qid = {ex.qid: ex for ex in examples}
    scores: dict[str, dict[str, float]] = {}
    for name in dict.fromkeys(system_names):
        target = _target(name, by_qid, config, want_answer, cached, upload)
        info = {"system": name, "backend": config.backend, "index": config.index_dir, **metadata}
        scores[name] = _experiment(target, data, client, info, want_answer, upload, max_concurrency)
    if upload:  # runs go up from background threads: wait for ours and LangChain's tracer's
        from langchain_core.tracers.langchain import wait_for_all_tracers

        client.flush()
        wait_for_all_tracers()
    return scores


def _experiment(
    target: Callable[[dict[str, Any]], dict[str, Any]],
    data: list[Any],
    client: Any,
    info: dict[str, Any],
    want_answer: bool,
    upload: bool,
    max_concurrency: int,
) -> dict[str, float]:
    """Run one system's experiment through `langsmith.evaluate`; return its pooled scores."""
    from langsmith import evaluate

    with _quiet():
        results = evaluate(
            target,
            data=data,
            evaluators=evaluators(want_answer),
            client=client,
            experiment_prefix=f"fif-{info['system']}",
            metadata=info,
            upload_results=upload,
            max_concurrency=max_concurrency,
        )
        pooled = aggregate(list(results))
    logger.info("langsmith %s (%s): %s", info["system"], results.experiment_name, pooled)
    return pooled


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Send langsmith's stdout banner to the log and mute its beta warning for upload_results."""
    buffer = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(buffer):
        warnings.filterwarnings("ignore", message=".*'upload_results' parameter is in beta")
        yield
    if buffer.getvalue().strip():
        logger.info("langsmith: %s", buffer.getvalue().strip())
