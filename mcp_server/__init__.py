"""`fif mcp`: FiF's retrieval tools for assistants, served over the Model Context Protocol."""
