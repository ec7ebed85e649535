"""The navigator's version: one place, read by the package metadata (pyproject.toml), `--version`,
crash reports, the cache's keys and generated scripts."""

__version__ = "0.1.0"
