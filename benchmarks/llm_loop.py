"""The `llm` strategy's own overhead per round, against the test server on 127.0.0.1.

A round is one request to the model: the prompt is built, sent, the answer parsed, validated
and its proposals applied and ranked. The server answers at once with the tests' fake model
(harness/fake_model.py: it reads the menus out of the prompt), so what is measured is the
loop, not a model. For each fill:

- `loop_seconds_per_round` = (wall time of the plan - time inside the chat client - time
  simulating) / requests: the strategy's own work per round (target on gcn: <= 50 ms);
- `client_seconds_per_round`: time inside the openai client and the local server per request
  (HTTP round trip, JSON, the fake model), for scale;
- `first_fill` pays for describing the program and measuring its data once per space; the
  median is over the `--runs` fills that follow on the same space.

Cases: gcn (Cora preset) at its fusion hole (scope: the hole) and from ?0 with `--all`
(3 iterations, beam 3).

    python benchmarks/llm_loop.py [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._util import emit  # noqa: E402

CASES = {"gcn-fusion-hole": ("gcn", ((0, 1),), 1, "hole"), "gcn-all": ("gcn", (), 0, "all")}


def one_fill(spec, space, picks, hole: int, scope: str, url: str) -> dict:
    from navigator.auto import Scope, fill, get_strategy
    from navigator.evaluation.tasks import EvalConfig
    from navigator.navigation.session import Session

    session = Session(space.library, space.facts, oracle=space.oracle)
    for at, number in picks:
        session.apply(at, session.menus().for_hole(at).options[number - 1].id)
    strategy = get_strategy("llm", base_url=url, model="fake", budget=1,
                            environ={"OPENAI_API_KEY": "sk-bench", "HOME": "/nonexistent"})
    started = time.perf_counter()
    records = fill(session, hole, strategy, Scope(scope), space=space, evaluation=EvalConfig(spec))
    wall = time.perf_counter() - started
    figures = records[0].figures["compared"]
    requests = figures["requests"]
    return {"wall_seconds": wall, "requests": requests, "loop_seconds": figures["loop_seconds"],
            "loop_seconds_per_round": figures["loop_seconds"] / requests,
            "client_seconds_per_round": figures["model_seconds"] / requests,
            "simulation_seconds": figures["simulation_seconds"], "prompt_tokens": figures["prompt_tokens"]}


def main() -> None:
    from navigator.workspace.spec import ProgramSpec
    from harness.fake_model import best_answer
    from harness.llm_server import Behaviour, ChatServer

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    server = ChatServer().start()
    server.responder = lambda request: Behaviour(content=best_answer(request))
    results = {}
    try:
        for name, (program, picks, hole, scope) in CASES.items():
            spec = ProgramSpec.from_user(program, None)
            space = spec.load().space
            first = one_fill(spec, space, picks, hole, scope, server.url)
            runs = [one_fill(spec, space, picks, hole, scope, server.url) for _ in range(args.runs)]
            results[name] = {
                "first_fill": first,
                "median_loop_seconds_per_round": statistics.median(r["loop_seconds_per_round"] for r in runs),
                "median_client_seconds_per_round": statistics.median(r["client_seconds_per_round"] for r in runs),
                "median_wall_seconds": statistics.median(r["wall_seconds"] for r in runs),
                "requests": runs[0]["requests"], "prompt_tokens": runs[0]["prompt_tokens"], "runs": args.runs,
            }
    finally:
        server.stop()
    results["target_loop_seconds_per_round"] = 0.050
    results["met"] = all(r["median_loop_seconds_per_round"] <= 0.050 for k, r in results.items() if isinstance(r, dict))
    emit(results)


if __name__ == "__main__":
    main()
