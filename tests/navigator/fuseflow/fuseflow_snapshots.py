"""Recorded FuseFlow navigations: the menus the engine offered before its optimisation.

`harness/data/fuseflow/` holds a snapshot of the FuseFlow library and of the facts of
small-size bundled programs (gzip), so the check does not move when the library or the fact
generator changes. `baseline.json` holds, for each snapshot, walks from `?0` to a complete
schedule: at each round a digest of every menu (options, counts, subtree counts, defaults,
allowed metadata), the total, and the step taken. They were recorded with the unoptimised
engine (naive fixpoint over the whole domain); `record()` rewrites them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random

from navigator.lang import parse_facts, parse_library
from tests.paths import HARNESS_DATA

DATA = HARNESS_DATA / "fuseflow"
LIBRARY = DATA / "fuseflow.hblib.toml"
BASELINE = DATA / "baseline.json"

#: snapshot name -> (bundled program, dims); the facts file is <name>.hb.toml.gz
SNAPSHOTS = {
    "gcn_small": ("gcn", {"N": 8, "F": 8, "H": 4, "C": 2}),
    "spmm_small": ("spmm", {"N": 8}),
    "sddmm": ("sddmm", None),
    "nested_matmul": ("nested_matmul", None),
    "sparse_autoencoder": ("sparse_autoencoder", None),
}

WALKS = ("default", "random_first", "random_any")
SEEDS = (0, 1)


def load(name: str):
    library = parse_library(LIBRARY.read_text(encoding="utf-8"), str(LIBRARY))
    text = gzip.decompress((DATA / f"{name}.hb.toml.gz").read_bytes()).decode("utf-8")
    return library, parse_facts(text, library, f"{name}.hb.toml")


def menus_digest(menus) -> str:
    data = menus.to_dict()
    for hole, menu in zip(data["holes"], menus.holes):
        hole["allowed"] = [[[k, v] for k, v in meta] for meta in menu.allowed_metadata]
        for option in hole["options"]:
            # recorded before options said whether they are aliases; the snapshot has none
            assert option.pop("alias") is False
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def walk(oracle, kind: str, seed: int = 0) -> list[dict]:
    """Rounds of one navigation from ?0; each round records the menus and the step taken."""
    rng = random.Random(seed)
    sketch = oracle.initial_sketch()
    rounds = []
    while True:
        menus = oracle.menus(sketch)
        entry = {"total": menus.total.to_json(), "menus": menus_digest(menus),
                 "options": len(menus)}
        rounds.append(entry)
        if sketch.complete or not menus.completable:
            break
        first = menus.holes[0]
        if kind == "default" or sketch.root == oracle.initial_sketch().root:
            # (the root's other option is the one-node `default_schedule`)
            option = first.default or first.options[0]
        elif kind == "random_first":
            option = rng.choice(first.options)
        else:
            option = rng.choice(list(menus.options()))
        entry["step"] = [option.hole, option.id]
        sketch = oracle.apply(sketch, option)
    return rounds


def record(names=None) -> None:  # pragma: no cover - run by hand against the old engine
    from fuseflow.program.binding import bind
    from fuseflow.program.bundled import resolve_program
    from navigator.fuseflow.facts import program_facts

    from navigator.synth import Oracle

    DATA.mkdir(parents=True, exist_ok=True)
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    for name in names or SNAPSHOTS:
        program, dims = SNAPSHOTS[name]
        p = resolve_program(program)
        text = program_facts(p, bind(p, dims=dims)).to_toml()
        (DATA / f"{name}.hb.toml.gz").write_bytes(gzip.compress(text.encode("utf-8"), mtime=0))
        library, facts = load(name)
        oracle = Oracle(library, facts)
        baseline[name] = {
            "facts": len(facts.facts),
            "count": oracle.count(oracle.initial_sketch()).to_json(),
            "walks": {f"{kind}/{seed}": walk(oracle, kind, seed)
                      for kind in WALKS for seed in (SEEDS if kind != "default" else (0,))},
        }
        BASELINE.write_text(json.dumps(baseline, indent=1, sort_keys=True) + "\n")
        print(name, "recorded", flush=True)


if __name__ == "__main__":  # pragma: no cover
    import sys
    record(sys.argv[1:] or None)
