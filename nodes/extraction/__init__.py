"""Nodes of the iterative extraction loop (seed 002): extractor, synthesizer, ranker."""
