"""IRCoT's nodes: retriever, reasoner and ranker, with their prompts and offline twin."""
