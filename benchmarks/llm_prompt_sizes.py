"""The size of the first question of `navigator fill ?0 --auto llm` for every bundled program,
and the context a model server needs for it (docs/llm.md, "Sizing the server").

For each program, on a session as `navigator start NAME` leaves it (the forced steps taken),
the prompt the llm strategy sends first (its system message, the state, the menus of the holes
it asks, its instructions), measured without a model:

- `estimated_tokens`: navigator.llm.tokens' estimate (within ESTIMATE_ERROR of a real tokenizer);
- `max_tokens`: the answer's default limit, sized from the question's schema;
- `context`: prompt (at the estimate's upper bound) + max_tokens, 10% more, rounded up to 1,024:
  the `-c` / `--n_ctx` to start llama-server / llama_cpp.server with.

- `counted_tokens` (with `--tokenize URL`): the same messages counted by a running server's own
  tokenizer (llama.cpp's `/tokenize`, llama-cpp-python's `/extras/tokenize`), and the estimate's
  error against it.

- `seconds` (with `--time URL`): the same question sent once to a running llama.cpp server
  (`llama-server`) as plain text, its prompt not cached, generating `--generate` tokens; from
  the server's own `timings`: prompt tokens/s, generation tokens/s, and the time of an answer of
  ANSWER_TOKENS tokens (a valid answer's length) and of one that runs to `max_tokens`. Plain
  text, because a random-weight model (benchmarks/tiny_gguf.py) rarely proposes a token the
  schema's grammar allows, and the server then checks the whole vocabulary at every step, which
  a real model seldom makes it do: the grammar's cost is not measured here.

    python benchmarks/llm_prompt_sizes.py [--programs gcn,spmm] [--tokenize http://127.0.0.1:8080/v1]
    python benchmarks/llm_prompt_sizes.py --programs spmm,gcn,transformer_block --time http://127.0.0.1:8080/v1
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._util import emit  # noqa: E402


def measure(name: str, client=None, timer=None) -> dict:
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.auto.base import StrategyContext
    from navigator.fuseflow.schedule_space import ScheduleSpace
    from navigator.llm.answer_budget import answer_tokens, question_schema
    from navigator.llm.prompt import build_prompt
    from navigator.llm.strategy import MAX_ASKED, PROPOSALS_ASKED, SYSTEM, instructions
    from navigator.llm.tokens import ESTIMATE_ERROR
    from navigator.navigation.session import Session

    program = resolve_program(name, {})
    space = ScheduleSpace.build(program, bind(program))
    session = Session(space.library, space.facts, oracle=space.oracle, forced_steps=True)
    session.settle()
    context = StrategyContext.of(session, space)
    # `fill ?0`: the scope is ?0; the question asks its holes that offer a choice
    holes = tuple(h.id for h in session.sketch.holes() if h.id == 0
                  and len(context.menu(h.id).options) > 1)[:MAX_ASKED] or (0,)
    prompt = build_prompt(context, holes, instructions=instructions(holes), system=SYSTEM)
    max_tokens = answer_tokens(question_schema(len(holes), PROPOSALS_ASKED))
    high = math.ceil(prompt.estimated_tokens * (1 + ESTIMATE_ERROR))
    context_size = 1024 * math.ceil((high + max_tokens) * 1.1 / 1024)
    result = {"program": name, "holes": list(holes), "characters": sum(len(m["content"]) for m in prompt.messages),
              "estimated_tokens": prompt.estimated_tokens, "estimated_high": high, "max_tokens": max_tokens,
              "context": context_size}
    counted = client.count_tokens(prompt.messages) if client is not None else None
    if counted:
        result["counted_tokens"] = counted
        result["estimate_error"] = round(prompt.estimated_tokens / counted - 1, 3)
    if timer is not None:
        result["seconds"] = timer(prompt.messages, max_tokens)
    return result


#: the tokens of a valid answer to one hole's question: four proposals with a sentence of
#: rationale each and their figures (Llama 3's and Qwen2's tokenizers count 150 to 250)
ANSWER_TOKENS = 250


def time_answer(url: str, messages: list[dict], generate: int, max_tokens: int) -> dict:
    """One uncached request to llama-server's chat endpoint; the speeds from its `timings`."""
    import json
    import urllib.request

    body = {"model": "local", "messages": messages, "max_tokens": generate, "cache_prompt": False,
            "temperature": 0.0, "ignore_eos": True}
    request = urllib.request.Request(url.rstrip("/") + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=3600.0) as response:
        reply = json.loads(response.read())
    timings = reply.get("timings") or {}
    prompt_rate, generate_rate = timings.get("prompt_per_second"), timings.get("predicted_per_second")
    if not prompt_rate or not generate_rate:
        raise SystemExit(f"{url}: the reply has no llama.cpp timings; --time needs llama-server")
    prompt_seconds = timings["prompt_n"] / prompt_rate
    return {"prompt_tokens": timings["prompt_n"], "prompt_tokens_per_second": round(prompt_rate, 1),
            "generated_tokens": timings.get("predicted_n"), "tokens_per_second": round(generate_rate, 2),
            "prompt_seconds": round(prompt_seconds, 1),
            "answer_seconds": round(prompt_seconds + ANSWER_TOKENS / generate_rate, 1),
            "max_tokens_seconds": round(prompt_seconds + max_tokens / generate_rate, 1)}


def tokenizer_client(url: str):
    """A chat client for `url` used only for its count_tokens (no key, no model needed)."""
    from navigator.llm.config import LLMConfig
    from navigator.llm.transport import OpenAIChat

    return OpenAIChat(LLMConfig(base_url=url, model="tokenizer", timeout=30.0, retries=0), None)


def main() -> None:
    from fuseflow.program.bundled import bundled_program_names

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", default=",".join(bundled_program_names()))
    parser.add_argument("--tokenize", metavar="URL", help="also count with this server's own tokenizer")
    parser.add_argument("--time", metavar="URL", help="also time the question on this llama-server")
    parser.add_argument("--generate", type=int, default=64, help="tokens generated when timing (default 64)")
    args = parser.parse_args()
    client = tokenizer_client(args.tokenize) if args.tokenize else None
    timer = ((lambda messages, max_tokens: time_answer(args.time, messages, args.generate, max_tokens))
             if args.time else None)
    results = [measure(name, client, timer) for name in args.programs.split(",")]
    errors = sorted(r["estimate_error"] for r in results if "estimate_error" in r)
    summary = {"estimate_error_median": errors[len(errors) // 2], "estimate_error_min": errors[0],
               "estimate_error_max": errors[-1]} if errors else {}
    emit({"benchmark": "llm_prompt_sizes", "tokenizer": args.tokenize, "timed_on": args.time,
          "answer_tokens": ANSWER_TOKENS if args.time else None, **summary, "results": results})


if __name__ == "__main__":
    main()
