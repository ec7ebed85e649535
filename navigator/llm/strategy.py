"""The `llm` strategy: a language model proposes, the compiler disposes.

The model sees the program, its data, the sketch and the menus of the holes it is asked about
(navigator.llm.prompt), and answers with ranked proposals of option ids (navigator.llm.answer).
Only offered options can be taken: an answer that names anything else is sent back with the
exact errors, up to `rounds` times.

The search, in the manner of LLM-guided autoscheduling:

1. A *question* asks about the open holes of the scope that have a choice (at most
   MAX_ASKED, lowest first). Each valid proposal takes its options and makes a child plan.
2. Children are ranked by the cost hints (the best estimated cycles beneath each); a beam of
   `beam` is kept, and each member with holes left is asked again, up to `iterations` times.
   Later questions carry feedback: the figures of the proposals evaluated so far.
3. Holes the model was not asked about (beyond the iterations, or with one option) are taken by
   the heuristic's rules; the beam's plans and the rules' own plan are then ranked by the cost
   model and the best `--budget` of them (all, by default) simulated. The fastest simulated plan
   wins (or, with `--top`, the user picks among the ranked plans), so the model's plan is taken
   when it beats the rules, and the provenance says which won.

When the model cannot be reached (timeouts, 429 or 5xx after the retries) or never gives a
valid proposal for the first question, the heuristic fills the scope instead, and the plan
says so in its rationale and provenance. A refused key, an unknown model or nothing listening
at the URL are configuration errors (exit 2): nothing is filled.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from navigator.auto.base import Plan, PlannedStep, Scope, StrategyContext, StrategyError
from navigator.auto.decisions import Candidate, realize
from navigator.auto.scope import ScopeWalk
from navigator.llm.answer import SCHEMA_NAME, AnswerError, Proposal, parse_answer, validate
from navigator.llm.answer_budget import question_schema
from fuseflow.support.numbers import figure

if TYPE_CHECKING:
    from navigator.auto.search import Search
    from navigator.llm.config import LLMConfig
    from navigator.llm.transport import ChatClient
    from navigator.synth import Sketch

#: holes one question asks about at most (the prompt carries each one's menu)
MAX_ASKED = 8
#: proposals asked for per question
PROPOSALS_ASKED = 4

SYSTEM = ("You schedule sparse tensor programs for a streaming-dataflow accelerator. The schedule is a sketch "
          "with holes; each hole offers a menu of options, and every option listed can still be completed "
          "into a valid schedule. Choose options only from the menus you are given, by their ids. Fewer "
          "simulated cycles is better. Answer with JSON only.")


def instructions(holes: tuple[int, ...]) -> str:
    asked = ", ".join(f"?{h}" for h in holes)
    return (f"Propose up to {PROPOSALS_ASKED} ways to fill {asked}, best first. Answer with one JSON object:\n"
            '{"proposals": [{"rank": 1, "choices": ["<hole>.<option>", ...], "rationale": "...", '
            '"score": 0.9, "estimated_intensity": 2.5, "fusion_groups": [{"ops": ["..."], "order": "i k j"}]}]}\n'
            "- choices: one option id per hole you fill (\"3.2\" is option 2 of ?3), only ids of the holes asked "
            "and only options their menus offer; a hole you leave out is decided later.\n"
            "- rationale: one or two sentences; score: your confidence from 0 to 1; estimated_intensity: FLOPs "
            "per DRAM byte you expect; fusion_groups: the regions you have in mind with their loop order "
            "(may be empty).")


@dataclass
class Branch:
    """A plan part-way through the scope: its walk and the proposals that led to it."""

    walk: ScopeWalk
    steps: tuple[PlannedStep, ...] = ()
    proposals: tuple[Proposal, ...] = ()
    by_model: int = 0            # steps the model chose
    #: why earlier questions about this plan gave nothing to take (said when it is asked again)
    failures: tuple[str, ...] = ()


@dataclass
class Ranked:
    """A complete plan of the scope, with its figures."""

    branch: Branch
    candidate: Candidate
    cost: tuple[float, float]             # cost-model (cycles, bytes)
    simulated: float | None = None        # simulated cycles, when confirmed

    @property
    def steps(self) -> tuple[PlannedStep, ...]:
        return self.branch.steps + self.candidate.steps

    @property
    def rationale(self) -> str:
        if not self.branch.proposals:
            return "the heuristic's rules, for comparison"
        said = list(dict.fromkeys(p.rationale for p in self.branch.proposals if p.rationale))
        return " / ".join(said) if said else "(no rationale given)"

    @property
    def key(self) -> tuple[float, ...]:
        return (self.simulated if self.simulated is not None else float("inf"), *self.cost)


@dataclass
class Proposals:
    """What a search gave: the ranked plans, or the fallback plan when the model could not help."""

    ranked: list[Ranked]
    search: "Search"
    tally: Tally
    fallback: Plan | None = None


#: picks one of the ranked plans (index), shown the plans; None: take the best
Chooser = Callable[[list[Ranked]], int]
#: receives a line of progress or a note for the user
Reporter = Callable[[str], None]


@dataclass
class Tally:
    """What the exchange cost and gave, for the plan's figures."""

    questions: int = 0
    requests: int = 0
    received: int = 0
    valid: int = 0
    errors: list[str] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_prompt_tokens: int = 0
    model_seconds: float = 0.0
    simulation_seconds: float = 0.0
    simulations: int = 0
    iterations: int = 0
    started: float = 0.0
    #: when the search ended (a dialog or a prompt that then waits for the user is not the loop's time)
    ended: float | None = None

    @property
    def loop_seconds(self) -> float:
        """The strategy's own time: all but the model's answers and the simulations, from the
        search's start to its end (or to now, while it runs)."""
        end = self.ended if self.ended is not None else time.perf_counter()
        return end - self.started - self.model_seconds - self.simulation_seconds


class LLMStrategy:
    name = "llm"
    provenance = "strategy:llm"

    def __init__(self, *, base_url: str | None = None, model: str | None = None, timeout: float | None = None,
                 retries: int | None = None, rounds: int | None = None, iterations: int | None = None,
                 beam: int | None = None, response_format: str | None = None, max_tokens: int | None = None,
                 budget: int | None = None, jobs: int | None = None,
                 engine: str = "local", scheduler: str | None = None, replay: str | None = None,
                 record_beside: str | Path | None = None, client: "ChatClient | None" = None,
                 chooser: Chooser | None = None, reporter: Reporter | None = None, verbose: bool = False,
                 environ: dict | None = None, progress: Reporter | None = None):
        from navigator.auto.simulation import check_budget
        from navigator.llm.config import OPENAI_URL, resolve_config

        recorded: dict = {}
        self._replayed = None
        if replay is not None:  # the endpoint and model come from the recording when not given
            from navigator.llm.recording import load_recording

            self._replayed = load_recording(replay)
            recorded = self._replayed[0] if self._replayed else {}
        self.config: "LLMConfig" = resolve_config(
            base_url=base_url or (recorded.get("base_url") or OPENAI_URL if recorded else None),
            model=model or recorded.get("model"), timeout=timeout, retries=retries, rounds=rounds,
            iterations=iterations, beam=beam, response_format=response_format, max_tokens=max_tokens,
            environ=environ)
        self.budget = check_budget(budget)
        self.jobs, self.engine, self.scheduler = jobs, engine, scheduler
        self.replay, self.record_beside = replay, record_beside
        self.recording_path: Path | None = None
        self._client = client
        self.chooser, self.reporter, self.verbose = chooser, reporter, verbose
        #: hears where the exchange is ("question 2, round 1 of 3"), for a screen that shows it
        self.progress = progress

    # ---- the model

    def client(self) -> "ChatClient":
        """The chat client: a replay of a recording, or the endpoint; recorded when asked."""
        if self._client is None:
            from navigator.llm.recording import Recording, RecordingChat, ReplayChat
            from navigator.llm.transport import OpenAIChat

            if self._replayed is not None:
                inner = ReplayChat(self._replayed, str(self.replay))
            else:
                inner = OpenAIChat.from_config(self.config)
                if self.record_beside is not None:
                    recording = Recording.beside(self.record_beside)
                    self.recording_path = recording.path
                    inner = RecordingChat(inner, recording, self.config.model, self.config.base_url)
            self._client = inner
        return self._client

    def _say(self, line: str) -> None:
        if self.reporter is not None:
            self.reporter(line)

    def ask(self, context: StrategyContext, holes: tuple[int, ...], feedback: str | None,
            tally: Tally, problems: list[str] | None = None) -> list[Proposal]:
        """The valid proposals for `holes`, asking again up to `rounds` times while an answer has
        errors; each re-ask says what every earlier round got wrong and what is still open, so
        no two rounds send the same prompt. The valid proposals of every round are kept; the
        last round's errors are added to `problems`. Raises LLMUnavailable when the endpoint
        does not answer."""
        from navigator.llm.prompt import build_prompt, option_ids
        from navigator.llm.transport import AnswerProblem

        offered = option_ids(context.menus, holes)
        schema = question_schema(len(holes), PROPOSALS_ASKED)
        tally.questions += 1
        errors: list[str] = []
        history: list[tuple[int, list[str]]] = []
        valid: dict[tuple[str, ...], Proposal] = {}
        for round_ in range(1, self.config.rounds + 1):
            if self.progress is not None:
                self.progress(f"question {tally.questions}, round {round_} of {self.config.rounds}")
            note = self._round_note(feedback, holes, round_, history, list(valid.values()))
            prompt = build_prompt(context, holes, instructions=instructions(holes), system=SYSTEM, feedback=note)
            tally.estimated_prompt_tokens += prompt.estimated_tokens
            client = self.client()
            if self.verbose:
                self._say(f"llm: question {tally.questions}, round {round_}: prompt "
                          f"{self._prompt_size(client, prompt)}\n{prompt.text}")
            tally.requests += 1
            started = time.perf_counter()
            try:
                reply = client.complete(prompt.messages, schema, SCHEMA_NAME)
            except AnswerProblem as exc:  # an empty answer: ask again
                errors = [str(exc)]
                history.append((round_, errors))
                tally.errors.extend(errors)
                self._record(client, round=round_, iteration=tally.iterations, strategy=self.name, parsed=None,
                             errors=errors)
                self._say_errors(tally, round_, errors)
                continue
            finally:
                tally.model_seconds += time.perf_counter() - started
            usage = reply.usage or {}
            tally.prompt_tokens += int(usage.get("prompt_tokens") or 0)
            tally.completion_tokens += int(usage.get("completion_tokens") or 0)
            kept: list[Proposal] = []
            try:
                raw = parse_answer(reply.text, reply.finish_reason)
            except AnswerError as exc:
                errors = [str(exc)]
            else:
                checked = validate(raw, offered, holes)
                tally.received += len(raw)
                kept, errors = checked.proposals, checked.errors
                for proposal in kept:
                    valid.setdefault(proposal.ids, proposal)
            history.append((round_, errors))
            tally.errors.extend(errors)
            self._record(client, round=round_, iteration=tally.iterations, strategy=self.name,
                         parsed=[p.to_json() for p in kept], errors=errors)
            if valid and not errors:
                break
            self._say_errors(tally, round_, errors)
        if problems is not None:
            problems.extend(errors)
        tally.valid += len(valid)
        return list(valid.values())

    def _round_note(self, feedback: str | None, holes: tuple[int, ...], round_: int,
                    history: list[tuple[int, list[str]]], valid: list[Proposal]) -> str | None:
        """The feedback of a round: the caller's, then, from round 2, every earlier round's
        errors, the proposals already taken and the holes still open."""
        if not history:
            return feedback
        lines = [f"This is round {round_} of at most {self.config.rounds} for {', '.join(f'?{h}' for h in holes)}. "
                 "Your earlier answers had these problems; answer again, all of it, without repeating them:"]
        for number, errors in history:
            lines.append(f"Round {number}:" + ("" if errors else " no problem"))
            lines += [f"- {e}" for e in errors]
        if valid:
            lines.append("Already accepted: " + "; ".join(f"[{', '.join(p.ids)}]" for p in valid)
                         + ". Propose other combinations.")
        covered = {int(i.split(".")[0]) for p in valid for i in p.ids}
        still = [h for h in holes if h not in covered]
        if still:
            lines.append("Still open (no valid choice yet): " + ", ".join(f"?{h}" for h in still) + ".")
        note = "\n".join(lines)
        return f"{feedback}\n\n{note}" if feedback else note

    @staticmethod
    def _prompt_size(client: Any, prompt) -> str:
        """The prompt's size for --verbose: the server's count when it offers a tokenizer, and the estimate."""
        from navigator.llm.tokens import describe_estimate

        count = getattr(client, "count_tokens", None)
        counted = count(prompt.messages) if count is not None else None
        estimate = describe_estimate(prompt.estimated_tokens)
        return f"{counted:,} tokens (counted by the server's tokenizer; {estimate})" if counted else estimate

    def _say_errors(self, tally: Tally, round_: int, errors: list[str]) -> None:
        """With --verbose, what was wrong with an answer (an empty one too), and where it came from."""
        if self.verbose and errors:
            self._say(f"llm: {self.config.url}, question {tally.questions}, round {round_}: " + "; ".join(errors))

    @staticmethod
    def _record(client: Any, **fields: Any) -> None:
        extra = getattr(client, "record_extra", None)
        if extra is not None:
            extra(**fields)

    # ---- the search

    def plan(self, context: StrategyContext, hole: int, scope: Scope) -> Plan:
        from fuseflow.support.errors import UserError

        proposals = self.propose(context, hole, scope)
        if proposals.fallback is not None:
            if self.chooser is not None:
                self._say(f"llm: {getattr(self.chooser, 'flags', '--top')} not applied: the model gave no plans to "
                          "choose among, so the heuristic's plan was taken")
            return proposals.fallback
        chosen = 0
        if self.chooser is not None and proposals.ranked:
            try:
                chosen = self.chooser(proposals.ranked)
            except UserError as exc:
                if exc.where != "--pick" or self.recording_path is None:
                    raise
                # the plans were shown; the answer is kept, so choosing again costs no question
                raise UserError(exc.bare_message, where="--pick",
                                fix=f"{exc.fix}; the model's answer is kept: run the fill again with --replay-llm "
                                    f"{self.recording_path} to choose without asking the model again") from None
        return self.plan_of(proposals, chosen)

    def propose(self, context: StrategyContext, hole: int, scope: Scope) -> "Proposals":
        """Ask, search and rank: the plans to choose from (best first), or the heuristic's plan
        when the model could not be used (`fallback`)."""
        from navigator.auto.heuristic import HeuristicStrategy
        from navigator.auto.search import Search
        from navigator.llm.transport import LLMUnavailable

        started = time.perf_counter()
        search = Search(context, hole, scope, self.name)
        tally = Tally()
        tally.started = started
        try:
            ranked = self._search(context, search, tally)
            last = tally.errors[-1] if tally.errors else "no proposal"
            cut = "cut off at the token limit" in last
            reason = None if ranked is not None else (
                f"the model gave no valid proposal in {self.config.rounds} round{'s' if self.config.rounds != 1 else ''} "
                f"(last: {last})"
                + (f"; its answers stopped at max_tokens ({self.config.max_tokens or 'sized from the schema'}): "
                   "raise --max-tokens (NAVIGATOR_LLM_MAX_TOKENS)" if cut else ""))
        except LLMUnavailable as exc:
            ranked, reason = None, str(exc)
        tally.ended = time.perf_counter()
        if ranked is None:
            fallback = self._fallback(HeuristicStrategy().plan(context, hole, scope), reason, tally)
            return Proposals([], search, tally, fallback)
        if self.recording_path is not None:
            self._say(f"llm: {tally.requests} exchange(s) recorded in {self.recording_path}")
        return Proposals(ranked, search, tally)

    def plan_of(self, proposals: "Proposals", chosen: int) -> Plan:
        """The plan of ranked plan `chosen` (0: the best), with its rationale and figures."""
        ranked, search, tally = proposals.ranked, proposals.search, proposals.tally
        if not 0 <= chosen < len(ranked):
            raise StrategyError(f"there is no plan {chosen + 1}: {len(ranked)} were ranked", where="--pick",
                                fix=f"--pick 1 to {len(ranked)}")
        best = ranked[chosen]
        figures = self._figures(tally, best, ranked, chosen)
        if best.branch.by_model:
            said = f"model {self.config.model}: {best.rationale}"
        else:
            others = [r for r in ranked if r.branch.by_model]
            said = (f"the rules' plan: the model's {len(others)} plan(s) were slower"
                    + (f" (its best: {figure(others[0].simulated)} cycles simulated)"
                       if others and others[0].simulated is not None else ""))
        how = ((f"; {best.branch.by_model} of {len(best.steps)} steps chosen by the model, the rest by the rules"
                if best.branch.by_model else "")
               + (f"; simulated {figure(best.simulated)} cycles" if best.simulated is not None
                  else f"; estimated {figure(best.cost[0])} cycles"))
        return Plan(best.steps, said + how, cost_model_evaluations=search.scorer.evaluations + tally.valid,
                    simulator_evaluations=tally.simulations, compared=figures)

    def _search(self, context: StrategyContext, search: "Search", tally: Tally) -> list[Ranked] | None:
        beam = [self._forced(search, Branch(search.start))]
        feedback: str | None = None
        for iteration in range(1, self.config.iterations + 1):
            asking = [(branch, self._asked_holes(search, branch)) for branch in beam]
            if not any(holes for _, holes in asking):
                break
            tally.iterations = iteration
            children: list[Branch] = [branch for branch, holes in asking if not holes]
            for branch, holes in asking:
                if not holes:
                    continue
                first = tally.questions == 0
                problems: list[str] = []
                proposals = self.ask(context.at(branch.walk.sketch), holes, _joined(feedback, _failures(branch)),
                                     tally, problems)
                if first and not proposals:
                    return None
                grown = [self._take(search, branch, proposal, tally, problems) for proposal in proposals]
                grown = [self._forced(search, child) for child in grown if child is not None]
                if not grown:
                    # a branch the model could not extend stays, for the rules to complete; asked
                    # again, its question says why nothing could be taken this time
                    why = "; ".join(problems) if problems else "no valid proposal"
                    branch = Branch(branch.walk, branch.steps, branch.proposals, branch.by_model,
                                    branch.failures + (f"iteration {iteration}: {why}",))
                children.extend(grown or [branch])
            beam = self._best_branches(search, children)
            feedback = self._feedback(search, beam)
        return self._rank(search, context, beam, tally)

    def _asked_holes(self, search: "Search", branch: Branch) -> tuple[int, ...]:
        walk = branch.walk
        menus = search.oracle.menus(walk.sketch)
        choosing = [h for h in sorted(walk.pending) if len(menus.for_hole(h).options) > 1]
        return tuple(choosing[:MAX_ASKED])

    @staticmethod
    def _forced(search: "Search", branch: Branch) -> Branch:
        """Take the holes of the scope with a single option (nothing to ask)."""
        walk, steps = branch.walk, list(branch.steps)
        while True:
            menus = search.oracle.menus(walk.sketch)
            single = next((h for h in sorted(walk.pending) if len(menus.for_hole(h).options) == 1), None)
            if single is None:
                break
            option = menus.for_hole(single).options[0]
            steps.append(PlannedStep(single, option.id))
            walk = walk.take(search.oracle, option)
        return Branch(walk, tuple(steps), branch.proposals, branch.by_model, branch.failures)

    @staticmethod
    def _take(search: "Search", branch: Branch, proposal: Proposal, tally: Tally,
              problems: list[str] | None = None) -> Branch | None:
        """The branch after the proposal's choices, hole by hole (None when an earlier choice
        withdrew a later one's option)."""
        walk, steps = branch.walk, list(branch.steps)
        for hole, option_id in proposal.choices:
            option = search.oracle.menus(walk.sketch).option(hole, option_id) if walk.sketch.has_hole(hole) else None
            if option is None:
                error = (f"proposal {proposal.rank} [{', '.join(proposal.ids)}]: after its earlier choices ?{hole} "
                         f"no longer offers {option_id}")
                tally.errors.append(error)
                if problems is not None:
                    problems.append(error)
                return None
            steps.append(PlannedStep(hole, option.id))
            walk = walk.take(search.oracle, option)
        return Branch(walk, tuple(steps), branch.proposals + (proposal,), branch.by_model + len(proposal.choices))

    def _best_branches(self, search: "Search", branches: list[Branch]) -> list[Branch]:
        """The `beam` branches with the best cost beneath them (distinct sketches)."""
        seen: set = set()
        ranked = []
        for branch in sorted(branches, key=lambda b: (search.hint_key(b.walk.sketch), -b.by_model)):
            if branch.walk.sketch in seen:
                continue
            seen.add(branch.walk.sketch)
            ranked.append(branch)
        return ranked[:self.config.beam]

    @staticmethod
    def _feedback(search: "Search", beam: list[Branch]) -> str:
        lines = ["Best plans so far, by the cost model's best estimate beneath them:"]
        for number, branch in enumerate(beam, start=1):
            cycles, bytes_, _ = search.hint_key(branch.walk.sketch)
            chosen = ", ".join(i for p in branch.proposals for i in p.ids) or "nothing chosen yet"
            lines.append(f"{number}. {chosen}: est. {figure(cycles)} cycles, {figure(bytes_)} bytes (best completion)")
        return "\n".join(lines)

    def _rank(self, search: "Search", context: StrategyContext, beam: list[Branch], tally: Tally) -> list[Ranked]:
        """Complete each branch with the rules, rank by the cost model, confirm the best with the
        simulator (at most `--budget`, by default the beam's width)."""
        from navigator.auto.simulation import SimulatorEvaluator

        ranked: list[Ranked] = []
        seen: set = set()
        # the rules' own plan competes too: the model's plans are taken when they are faster
        for branch in [*beam, self._forced(search, Branch(search.start))]:
            candidate = realize(search.oracle, branch.walk, {}, search.policy)
            if candidate.sketch in seen:
                continue
            seen.add(candidate.sketch)
            ranked.append(Ranked(branch, candidate, search.score(candidate)))
        ranked.sort(key=lambda r: r.cost)
        budget = self.budget if self.budget is not None else len(ranked)
        if context.evaluation is not None and budget > 0:
            simulating = time.perf_counter()
            with SimulatorEvaluator(search.space, context.evaluation, budget=budget, engine=self.engine,
                                    jobs=self.jobs, scheduler=self.scheduler) as evaluator:
                batch = ranked[:budget]
                results = evaluator.evaluate([search.completed(r.candidate) for r in batch])
                for entry, result in zip(batch, results):
                    if result is not None and result.ok:
                        entry.simulated = result.cycles
                tally.simulations = evaluator.evaluations
            tally.simulation_seconds += time.perf_counter() - simulating
        ranked.sort(key=lambda r: r.key)
        return ranked

    def _figures(self, tally: Tally, best: Ranked, ranked: list[Ranked], chosen: int) -> dict[str, Any]:
        return {"model": self.config.model, "iterations": tally.iterations, "questions": tally.questions,
                "requests": tally.requests, "proposals_received": tally.received, "proposals_valid": tally.valid,
                "validation_errors": len(tally.errors), "prompt_tokens": tally.prompt_tokens,
                "completion_tokens": tally.completion_tokens,
                "estimated_prompt_tokens": tally.estimated_prompt_tokens,
                "model_seconds": round(tally.model_seconds, 3),
                "simulation_seconds": round(tally.simulation_seconds, 3),
                "loop_seconds": round(tally.loop_seconds, 4), "plans_ranked": len(ranked),
                "chosen_rank": chosen + 1, "steps_by_model": best.branch.by_model,
                "best_cost_model_cycles": best.cost[0],
                **({"best_simulated_cycles": best.simulated} if best.simulated is not None else {})}

    def _fallback(self, plan: Plan, reason: str, tally: Tally) -> Plan:
        self._say(f"llm: {reason}; the heuristic filled the scope instead")
        figures = dict(plan.compared)
        figures.update({"fallback": "heuristic", "fallback_reason": reason, "model": self.config.model,
                        "questions": tally.questions, "requests": tally.requests,
                        "validation_errors": len(tally.errors)})
        return Plan(plan.steps, f"fallback to the heuristic ({reason}); {plan.rationale}",
                    cost_model_evaluations=plan.cost_model_evaluations,
                    simulator_evaluations=plan.simulator_evaluations, compared=figures,
                    provenance="strategy:heuristic")


def _failures(branch: Branch) -> str | None:
    """What went wrong when this plan was asked about before, for the question that asks again."""
    if not branch.failures:
        return None
    return ("This plan was asked about before and nothing could be taken:\n"
            + "\n".join(f"- {f}" for f in branch.failures) + "\nChoose differently this time.")


def _joined(*notes: str | None) -> str | None:
    kept = [n for n in notes if n]
    return "\n\n".join(kept) if kept else None
