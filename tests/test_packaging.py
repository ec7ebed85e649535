"""The source tree has the layout of the installed packages (issue 21: after `pip install .`,
`python -m pytest` stopped at collection with "No module named 'fuseflow.programs'", because
programs/ was mapped into fuseflow only at install time while the checkout, first on sys.path,
had no fuseflow/programs). So: every folder of Python code or package data under the three
packages is a package setuptools finds, and every data file kind it holds ships with it."""

from __future__ import annotations

import tomllib
from importlib import resources

from tests.paths import REPO

PACKAGES = ("fuseflow", "navigator", "simulator")


def _setuptools() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_no_package_is_mapped_to_another_folder():
    config = _setuptools()
    assert "package-dir" not in config, "a mapped folder is missing from a checkout on sys.path"
    assert "packages" not in config or "find" in config["packages"]


def test_every_folder_with_code_or_data_is_a_package_and_ships_its_data():
    package_data = _setuptools()["package-data"]
    for top in PACKAGES:
        for folder in [REPO / top, *(p for p in (REPO / top).rglob("*") if p.is_dir())]:
            if folder.name == "__pycache__":
                continue
            files = [f for f in folder.iterdir() if f.is_file() and not f.name.endswith((".pyc",))]
            if not files:
                continue
            assert (folder / "__init__.py").is_file(), f"{folder.relative_to(REPO)} is not a package"
            name = ".".join(folder.relative_to(REPO).parts)
            data = {f.suffix for f in files if f.suffix not in (".py", ".md")}
            shipped = {pattern.lstrip("*") for pattern in package_data.get(name, [])}
            assert data <= shipped, f"{name}: {sorted(data - shipped)} files are not in [tool.setuptools.package-data]"


def test_the_bundled_programs_and_library_are_read_from_the_packages():
    from fuseflow.program.bundled import bundled_program_names

    assert resources.files("fuseflow.programs").joinpath("gcn.toml").is_file()
    assert resources.files("navigator.library").joinpath("fuseflow.hblib.toml").is_file()
    assert {"gcn", "spmm", "transformer_block"} <= set(bundled_program_names())
