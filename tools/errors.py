"""FiF's error types: each message says what failed, the value seen and what to do next."""

from __future__ import annotations


class FiFError(Exception):
    """Base class for errors the CLI reports as one line with exit code 2."""


class ConfigError(FiFError):
    """A setting is missing, malformed or contradicts another one."""


class ContextError(ConfigError, ValueError):
    """A run's Context names something that is not there; the message starts `context.<field>`.

    Also a ValueError, the kind of error LangGraph's server reports with its message (it
    shows other exceptions as "An internal error occurred").
    """


class MissingDependencyError(FiFError):
    """An optional package is not installed; the message names the install command."""


class ModelUnavailableError(FiFError):
    """A model cannot be loaded offline (not packaged, not at the given local path)."""


class IndexMismatchError(FiFError):
    """An index was built with other settings (embedder, dimension) than the ones in use."""


class IndexNotFoundError(FiFError):
    """No complete index exists at the given location."""


class CorpusFormatError(FiFError):
    """A corpus file cannot be read at all (as opposed to one bad record, which is skipped)."""


class DatasetFormatError(FiFError):
    """A question file or raw benchmark file is malformed."""


class InputError(FiFError, ValueError):
    """A run's input (the question) is missing or empty."""


def install_hint(extra: str) -> str:
    """Return how to install an extra, as the Makefile does: PyPI's `fif` is another project."""
    return f"pip install -c constraints.txt -e '.[{extra}]' in the FiF checkout"


class IndexBusyError(FiFError):
    """Another build is writing the index folder (tools.index_lock)."""
