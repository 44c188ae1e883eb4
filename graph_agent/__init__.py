"""graph_agent package."""
