"""Navigator: Programming-by-Navigation scheduling for sparse ML on streaming dataflow."""

from navigator.version import __version__

__all__ = ["__version__", "main"]


def main() -> int:
    """The `navigator` command (console script and `python -m navigator`): see navigator.launcher.

    It lives here, in the module Python imports first, so that a Ctrl-C while the launcher
    itself is being imported is caught too."""
    try:
        from navigator.launcher import main as launch
    except KeyboardInterrupt:
        import sys

        sys.stderr.write("navigator: interrupted\n")  # as navigator.launcher.interrupted() says it
        return 130
    return launch()
