"""Package front doors that cost nothing until a name is used.

A facade that imported its submodules eagerly would load numpy and scipy for a caller that
only wanted one light module beneath it (`navigator show` must not load them). `lazy_exports`
gives a package the module-level `__getattr__` and `__dir__` of PEP 562: each public name is
imported from its own module the first time it is asked for, then kept in the package.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable


def lazy_exports(package: str, modules: dict[str, Iterable[str]]) -> tuple[Callable, Callable, list[str]]:
    """(__getattr__, __dir__, __all__) for `package`, whose public names live in `modules`
    (module path -> the names it provides)."""
    home = {name: module for module, names in modules.items() for name in names}

    def __getattr__(name: str):
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | home.keys())

    return __getattr__, __dir__, sorted(home)
