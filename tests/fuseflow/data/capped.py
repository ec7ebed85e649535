"""Run calls in a subprocess whose address space is capped, so that a missing size check
fails there with MemoryError (or a crash) instead of exhausting the machine running the tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from tests.paths import REPO

ADDRESS_SPACE = 1536 << 20

_RUNNER = textwrap.dedent("""
    import importlib, json, resource, sys
    resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
    from fuseflow.support.errors import UserError
    results = []
    for module, function, args, kwargs in json.loads(sys.argv[1]):
        try:
            getattr(importlib.import_module(module), function)(*args, **kwargs)
            results.append(["done", ""])
        except UserError as exc:
            results.append(["refused", str(exc)])
        except BaseException as exc:
            results.append([type(exc).__name__, str(exc)[:300]])
    print(json.dumps(results))
""")


def run_capped(calls: list[tuple[str, str, list, dict]], max_memory: str) -> list[list[str]]:
    """[outcome, message] of each `module.function(*args, **kwargs)`, run in order in one
    capped subprocess: outcome is "done", "refused" (a UserError) or the exception's type."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("NAVIGATOR_")}
    env.update(OPENBLAS_NUM_THREADS="1", NAVIGATOR_MAX_MEMORY=max_memory)
    result = subprocess.run([sys.executable, "-c", _RUNNER.format(cap=ADDRESS_SPACE), json.dumps(calls)],
                            capture_output=True, text=True, timeout=120, cwd=REPO, env=env, check=False)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    return json.loads(result.stdout)


def load_and_preprocess(path: str) -> None:
    """What `bind` does with a GCN's data file: load it, then symmetrize, add self loops and
    normalize (a module-level function, so run_capped can call it by name)."""
    from fuseflow.data.loaders import load_graph
    from fuseflow.data.preprocessing import preprocess_graph

    preprocess_graph(load_graph(path), symmetrize=True, self_loops=True, normalize="sym")
