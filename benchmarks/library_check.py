"""Time of `navigator library check` (navigator.honeybee.library_check.check_library) and of the code
generator (navigator.honeybee.codegen), printed as JSON:

- the shipped FuseFlow library alone, and with the facts of each snapshot program in
  harness/data/fuseflow (the oracle, the per-function applicability and the count);
- a hostile library: functions with the largest condition allowed (1,024 comparisons), a
  chain `x0 < x1 < ... ` closed into a contradiction, so the contradiction search runs in
  full;
- the Python program and the notebook of an expression with 256 applications.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import emit, stopwatch, summary

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "harness" / "data" / "fuseflow"


def hostile_library(functions: int, formulas: int = 1024) -> str:
    fields = 256  # MAX_FIELDS
    lines = ["[Type.Wide]"] + [f'params.x{i} = "Int"' for i in range(fields)]
    for f in range(functions):
        chain = [f'"ret.x{i} < ret.x{i + 1}"' for i in range(fields - 1)]
        chain += [f'"ret.x{i % fields} != ret.x{(i * 7 + 1) % fields}"' for i in range(formulas - len(chain) - 1)]
        chain.append(f'"ret.x{fields - 1} <= ret.x0"')
        lines += [f"[Function.f{f}]", "params = {}", 'ret = "Wide"', f"condition = [{', '.join(chain)}]"]
    return "\n".join(lines) + "\n"


def deep_pipeline(depth: int) -> tuple[str, dict]:
    library = "\n".join([
        "[[Preamble]]", "content = '''", "class Dir:", "    @staticmethod",
        "    def make(name):", "        return name", "'''",
        "[Type.Step]", 'params.label = "Str"',
        "info.code = '''\nclass Step:\n    def __init__(self, path, label):\n        self.label = label\n'''",
        "[Function.start]", "params = {}", 'ret = "Step"', "condition = []", "info.code = 'print(__hb_ret.label)'",
        "[Function.next]", 'params.previous = "Step"', 'ret = "Step"', "condition = []",
        "info.code = 'print(__hb_previous.label, __hb_ret.label)'",
    ]) + "\n"
    expression: dict = {"App": [{"name": "start", "metadata": {"label": "s0"}, "arity": []}, {}]}
    for i in range(1, depth):
        expression = {"App": [{"name": "next", "metadata": {"label": f"s{i}"}, "arity": ["previous"]},
                              {"previous": expression}]}
    return library, expression


def main() -> dict:
    from navigator.honeybee import codegen
    from navigator.lang import parse_library
    from navigator.honeybee.library_check import check_library

    figures: dict = {"benchmark": "library_check"}
    library = str(SNAPSHOTS / "fuseflow.hblib.toml")
    times = []
    for _ in range(5):
        with stopwatch() as t:
            report = check_library(library)
        times.append(t[0])
    figures["fuseflow_library_alone_seconds"] = summary(times)
    figures["fuseflow_library_alone_problems"] = len(report.problems)
    with tempfile.TemporaryDirectory() as folder:
        per_program = {}
        for snapshot in sorted(SNAPSHOTS.glob("*.hb.toml.gz")):
            facts = Path(folder) / snapshot.name[:-3]
            facts.write_bytes(gzip.decompress(snapshot.read_bytes()))
            with stopwatch() as t:
                report = check_library(library, str(facts))
            per_program[facts.name] = {"seconds": round(t[0], 4), "problems": len(report.problems),
                                       "programs": report.goal["programs"]}
        figures["fuseflow_with_facts"] = per_program
        for count in (1, 20):
            hostile = Path(folder) / f"hostile{count}.hblib.toml"
            hostile.write_text(hostile_library(count), encoding="utf-8")
            with stopwatch() as t:
                report = check_library(str(hostile))
            figures[f"hostile_{count}_functions_1024_formulas"] = {
                "seconds": round(t[0], 3), "problems": len(report.problems),
                "bytes": hostile.stat().st_size}
    text, expression = deep_pipeline(256)
    pipeline = parse_library(text, "pipeline.hblib.toml")
    with stopwatch() as t:
        program = codegen.python_program(pipeline, expression)
    with stopwatch() as t2:
        codegen.notebook(pipeline, expression)
    figures["codegen_256_steps"] = {"python_seconds": round(t[0], 4), "notebook_seconds": round(t2[0], 4),
                                    "python_bytes": len(program)}
    return figures


if __name__ == "__main__":
    emit(main())
