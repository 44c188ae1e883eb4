"""The product's Python entry points: FiF's `ask`, its settings, and every system's result."""

from graph_agent.api import ask
from graph_agent.results import RunResult
from state.fif_context import FiFContext
from state.settings import RunSettings

__all__ = ["FiFContext", "RunResult", "RunSettings", "ask"]
