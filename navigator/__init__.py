"""Navigator: Programming-by-Navigation scheduling for sparse ML on streaming dataflow."""

__version__ = "0.1.0"
