"""The compiler's front doors (PEP 562 facades): every name they publish resolves, none hides a
submodule, and opening them costs nothing until a name is used."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys

import pytest

from tests.paths import REPO

FACADES = ["fuseflow", "fuseflow.support", "fuseflow.program", "fuseflow.analysis", "fuseflow.schedule",
           "fuseflow.cost", "fuseflow.data", "fuseflow.lower"]


@pytest.mark.parametrize("name", FACADES)
def test_every_published_name_resolves(name):
    package = importlib.import_module(name)
    assert package.__all__, name
    for public in package.__all__:
        assert getattr(package, public) is not None, f"{name}.{public}"
    assert set(package.__all__) <= set(dir(package))


@pytest.mark.parametrize("name", FACADES)
def test_no_published_name_is_a_submodule_name(name):
    """Importing a submodule sets the package attribute of its name, which would then shadow
    a lazily published name of the same spelling."""
    package = importlib.import_module(name)
    submodules = {info.name for info in pkgutil.iter_modules(package.__path__)}
    assert not submodules & set(package.__all__), name


def test_opening_the_front_doors_loads_no_numerical_library():
    code = ("import sys\n" + "".join(f"import {name}\n" for name in FACADES)
            + "print(' '.join(m for m in ('numpy', 'scipy', 'networkx') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == []
