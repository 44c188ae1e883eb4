"""FAILURE IS FEEDBACK (seed 000) as LangGraph nodes: one module per node, plus its rules."""
