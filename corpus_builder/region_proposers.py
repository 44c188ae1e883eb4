"""Choose how images are cut into regions: fixed crops, or a user's detector or VLM.

`fif build --regions fixed` tiles every image; `--regions my_pkg.detect:make_proposer`
imports `my_pkg.detect` when the build starts and calls `make_proposer()`, which must
return an object with `propose(path, (width, height)) -> list[Region]` (a RegionProposer).
The module is imported lazily, so its heavy dependencies (torch, a VLM client) load
only when asked for.
"""

from __future__ import annotations

import importlib
import inspect
import logging
from typing import Any

from corpus_builder.splitters import FixedCrops, RegionProposer
from tools.errors import ConfigError, MissingDependencyError

logger = logging.getLogger(__name__)

FIXED = "fixed"
SPEC_HELP = (
    "use 'fixed' or 'module:callable', where the callable takes no arguments and returns "
    "an object with propose(path, (width, height)) -> list[corpus_builder.splitters.Region]"
)


def load_region_proposer(spec: str) -> RegionProposer:
    """Return the region proposer a `--regions` spec names; raise ConfigError when it cannot."""
    spec = spec.strip()
    if spec == FIXED:
        return FixedCrops()
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute or ":" in attribute:
        raise ConfigError(f"--regions {spec!r}: {SPEC_HELP}")
    factory = _attribute(_import(module_name, spec), attribute, spec)
    if not callable(factory):
        raise ConfigError(
            f"--regions {spec!r}: {attribute} is a {type(factory).__name__}, not a callable; "
            f"{SPEC_HELP}"
        )
    _check_takes_no_arguments(factory, spec)
    proposer = factory()
    if not callable(getattr(proposer, "propose", None)):
        raise ConfigError(
            f"--regions {spec!r}: {attribute}() returned a {type(proposer).__name__}, which has "
            f"no propose method; {SPEC_HELP}"
        )
    logger.info("image regions from %s (%s)", spec, type(proposer).__name__)
    return proposer  # type: ignore[no-any-return]


def proposer_id(proposer: RegionProposer) -> str:
    """Name a proposer for the manifest: `fixed-2x2`, or the class a factory returned."""
    if isinstance(proposer, FixedCrops):
        return f"{FIXED}-{proposer.grid}x{proposer.grid}"
    kind = type(proposer)
    return f"{kind.__module__}:{kind.__qualname__}"


def _import(module_name: str, spec: str) -> Any:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        missing = err.name or ""
        if module_name == missing or module_name.startswith(f"{missing}."):
            raise ConfigError(
                f"--regions {spec!r}: no module named {missing!r}; install it or add its "
                "folder to PYTHONPATH"
            ) from err
        raise MissingDependencyError(
            f"--regions {spec!r}: {module_name} needs {missing!r}, which is not installed: "
            f"pip install {missing.split('.')[0]}"
        ) from err


def _attribute(module: Any, attribute: str, spec: str) -> Any:
    value = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            raise ConfigError(
                f"--regions {spec!r}: {module.__name__} has no attribute {attribute!r}; {SPEC_HELP}"
            )
        value = getattr(value, part)
    return value


def _check_takes_no_arguments(factory: Any, spec: str) -> None:
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # some builtins have no signature: let the call decide
        return
    try:
        signature.bind()
    except TypeError as err:
        raise ConfigError(
            f"--regions {spec!r}: the callable must take no arguments ({err}); wrap a "
            "configured detector in a factory function"
        ) from err
