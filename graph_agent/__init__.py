"""FiF's graphs and entry points: `ask`, its `RunResult`, and the `RunSettings` it runs with."""

from graph_agent.api import ask
from graph_agent.results import RunResult
from state.settings import RunSettings

__all__ = ["RunSettings", "RunResult", "ask"]
