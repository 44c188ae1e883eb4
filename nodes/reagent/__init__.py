"""ReAgent (seed 004): decomposer, retriever, verifier, supervisor and assembler nodes."""
