"""A model for the tests and the benchmarks: reads the menus out of the prompt as a real model
would, and answers.

`menus(prompt)` parses the "## Menus of the holes to fill" section (navigator.llm.prompt) into
{hole: [(id, line)]}. `best_answer` proposes, per question, the option with the lowest hinted
cycles at every hole (or the default when no hint is given), then variants that change one
hole; it is deterministic, so recordings replay.
"""

from __future__ import annotations

import json
import re

_HOLE = re.compile(r"^### \?(\d+) ")
_OPTION = re.compile(r"^(\d+\.\d+)\s+(.*)$")
_CYCLES = re.compile(r"best ~([0-9.e+]+) cycles")


def user_text(request: dict) -> str:
    return next(m["content"] for m in request["messages"] if m["role"] == "user")


def menus(prompt: str) -> dict[int, list[tuple[str, str]]]:
    found: dict[int, list[tuple[str, str]]] = {}
    section = prompt.split("## Menus of the holes to fill", 1)[-1].split("\n## ", 1)[0]
    hole = None
    for line in section.splitlines():
        if (match := _HOLE.match(line)) is not None:
            hole = int(match.group(1))
            found[hole] = []
        elif hole is not None and (match := _OPTION.match(line)) is not None:
            found[hole].append((match.group(1), match.group(2)))
    return found


def _rank(line: str) -> tuple[float, int]:
    cycles = _CYCLES.search(line)
    return (float(cycles.group(1)) if cycles else float("inf"), 0 if "(default)" in line else 1)


def proposals(prompt: str, count: int = 3) -> list[dict]:
    asked = menus(prompt)
    best = {hole: min(options, key=lambda o: _rank(o[1]))[0] for hole, options in asked.items() if options}
    found = [{"rank": 1, "choices": sorted(best.values()), "rationale": "the best hinted option at every hole",
              "score": 0.9, "estimated_intensity": 1.5, "fusion_groups": []}]
    for hole, options in sorted(asked.items()):
        for option, _ in options:
            if len(found) >= count:
                break
            if option != best[hole]:
                choices = sorted({**best, hole: option}.values())
                found.append({"rank": len(found) + 1, "choices": choices, "rationale": f"try {option} at ?{hole}",
                              "score": 0.5, "estimated_intensity": 1.0, "fusion_groups": []})
    return found


def best_answer(request: dict) -> str:
    return json.dumps({"proposals": proposals(user_text(request))})
