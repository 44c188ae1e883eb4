"""Typed values shared by the builder, the tools and the nodes: ids, corpus records, graph state."""
