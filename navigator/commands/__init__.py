"""One module per group of `navigator` subcommands."""
