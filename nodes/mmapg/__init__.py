"""MMAPG (seed 003) as LangGraph nodes: plan writer, planner, retriever, answerer, finisher."""
