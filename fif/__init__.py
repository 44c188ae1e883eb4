"""The `fif` command: one thin entry that joins each package's subcommands."""
