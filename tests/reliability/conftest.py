from tests.cli.conftest import cli, nav  # noqa: F401  (the command-line fixtures)
