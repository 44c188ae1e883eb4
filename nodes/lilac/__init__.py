"""LILaC (seed 001) as LangGraph nodes: decomposer and late-interaction beam-search traverser."""
