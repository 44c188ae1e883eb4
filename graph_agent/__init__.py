"""FiF's graphs and entry points: `ask`, its `RunResult`, and the `Context` it runs with."""

from graph_agent.api import RunResult, ask
from state.context import Context

__all__ = ["Context", "RunResult", "ask"]
