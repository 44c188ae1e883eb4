"""What every system shares: the LLM-decision protocol, guards, lexical matching, the reader."""
