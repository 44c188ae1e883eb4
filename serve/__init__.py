"""`fif serve`: a web page and a JSON API over one built index (FastAPI, served air-gapped)."""
