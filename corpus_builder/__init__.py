"""Ingest a corpus and build its layered component graph and Chroma layer indices."""
