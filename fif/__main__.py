"""`python -m fif`: the same command line as the `fif` console script."""

from fif.cli import main

main()
