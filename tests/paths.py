"""Where the tests find the repository's files, in one place (a test module moved to another
folder keeps working; none counts parent folders)."""

from pathlib import Path

#: this folder
TESTS = Path(__file__).resolve().parent
#: the repository's root
REPO = TESTS.parent
DOCS = REPO / "docs"
PROGRAMS = REPO / "fuseflow" / "programs"
#: the real graphs (cora.npz, ...), beside the repository; tests that need them skip without them
DATASETS = REPO.parent / "shared" / "datasets"
#: Honeybee libraries and fact programs of the navigator tests (check/, codegen/, fuseflow/)
NAVIGATOR_DATA = TESTS / "navigator" / "data"
#: the example problems the tests share with the fuzz corpus and the benchmarks (sched)
HARNESS_DATA = REPO / "harness" / "data"
