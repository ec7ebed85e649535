"""Reference semantics for checking the oracle, written without any navigator.synth code.

Everything here is the definition, computed the slow, obvious way:
- metadata ranges over every tuple of literal values (per field type);
- a (type, metadata) pair is inhabited if some function instance derives it from inhabited
  children (naive fixpoint over all instances);
- a sketch is completable iff some assignment of inhabited metadata to ALL its holes at
  once satisfies every application's condition and the goal (no per-parent reasoning);
- counts come from a DP over tree depth: a finite pair has no tree deeper than the number
  of inhabited pairs (a deeper path would repeat a pair and could be pumped), and a pair is
  unbounded iff it has a tree of depth greater than that number;
- counts leave out every tree that uses an alias function (`alias = true`), except that an
  alias's own subtree count (and an option's count after an alias step) is its trees with
  the alias at the root and none below; `count_all` counts every tree;
- programs up to a size bound are enumerated explicitly.

Only navigator.lang (the input model) and the sketch data classes are shared.
"""

from __future__ import annotations

import itertools
from collections import defaultdict

from navigator.lang import Comparison, Literal, ParamField, RetField
from navigator.synth.sketch import App, Hole

INF = None  # an unbounded count


def _add(a, b):
    return INF if a is INF or b is INF else a + b


def _mul(a, b):
    if a == 0 or b == 0:
        return 0
    return INF if a is INF or b is INF else a * b


def _value(atom, ret, args):
    if isinstance(atom, Literal):
        return atom.value
    if isinstance(atom, RetField):
        return ret[atom.field]
    assert isinstance(atom, ParamField)
    return args[atom.param][atom.field]


def condition_holds(decl, ret: dict, args: dict, facts, library) -> bool:
    for formula in decl.condition:
        if isinstance(formula, Comparison):
            a = _value(formula.left, ret, args)
            b = _value(formula.right, ret, args)
            ok = {"=": a == b, "!=": a != b}.get(formula.op)
            if ok is None:
                ok = a < b if formula.op == "<" else a <= b
            if not ok:
                return False
        else:
            wanted = [(name, _value(atom, ret, args)) for name, atom in formula.args
                      if atom is not None]
            fields = library.props[formula.prop].field_names
            if not any(fact.prop == formula.prop and all(
                    dict(zip(fields, fact.values))[name] == value for name, value in wanted)
                    for fact in facts.facts):
                return False
    return True


class Reference:
    def __init__(self, library, facts):
        self.library = library
        self.facts = facts
        values = {"Int": set(), "Str": set(), "Bool": {True, False}}
        for decl in library.functions.values():
            for formula in decl.condition:
                atoms = [formula.left, formula.right] if isinstance(formula, Comparison) else \
                    [a for _, a in formula.args if a is not None]
                for atom in atoms:
                    if isinstance(atom, Literal):
                        values[_kind(atom.value)].add(atom.value)
        for fact in facts.facts:
            for v in fact.values:
                values[_kind(v)].add(v)
        for _, v in facts.goal.args:
            values[_kind(v)].add(v)
        self.values = {k: sorted(v) for k, v in values.items()}
        #: every metadata tuple of every type
        self.metas = {
            name: [tuple(c) for c in itertools.product(*(self.values[f.type] for f in t.fields))]
            for name, t in library.types.items()}
        self.aliases = {name for name, decl in library.functions.items() if decl.alias}
        self._fixpoint()
        self._counts()

    def as_dict(self, type_name, meta):
        return dict(zip(self.library.types[type_name].field_names, meta))

    def _instances_over(self, S):
        for decl in self.library.functions.values():
            for children in itertools.product(*(sorted(S[p.type]) for p in decl.params)):
                args = {p.name: self.as_dict(p.type, m) for p, m in zip(decl.params, children)}
                for ret in self.metas[decl.ret]:
                    if condition_holds(decl, self.as_dict(decl.ret, ret), args, self.facts, self.library):
                        yield decl, ret, children

    def _fixpoint(self):
        S = {t: set() for t in self.library.types}
        while True:
            new = {t: set(ms) for t, ms in S.items()}
            for decl, ret, _ in self._instances_over(S):
                new[decl.ret].add(ret)
            if new == S:
                break
            S = new
        self.inhabited = S
        self.instances = list(self._instances_over(S))

    def _counts(self):
        labels = [(t, m) for t, ms in self.inhabited.items() for m in ms]
        self.depth_bound = len(labels)
        by_label = defaultdict(list)
        for decl, ret, children in self.instances:
            by_label[(decl.ret, ret)].append((decl, children))
        self.by_label = by_label
        self.count_all = self._tree_counts(labels, lambda decl: True)
        self.count = self._tree_counts(labels, lambda decl: decl.name not in self.aliases)

    def _tree_counts(self, labels, allowed):
        """Trees per label built from the instances of `allowed` functions only."""
        instances = {x: [(decl, children) for decl, children in self.by_label[x] if allowed(decl)]
                     for x in labels}
        # N[x]: trees of depth <= d, after d rounds, saturated at SATURATED: a label on a cycle
        # can double its count's digits every round (a hang on one random library), and its
        # count is INF below anyway; every finite count the engine keeps is below MAX_COUNT.
        N = {x: 0 for x in labels}
        for _ in range(self.depth_bound):
            N = {x: min(SATURATED, sum(_prod(N[(p.type, c)] for p, c in zip(decl.params, children))
                                       for decl, children in instances[x])) for x in labels}
        # a label with no tree of depth <= the bound has none at all
        built = {x for x in labels if N[x] > 0}
        # deep[x]: some tree of depth >= d (its children must all have trees)
        deep = {x: x in built for x in labels}
        for _ in range(self.depth_bound):
            deep = {x: any(all((p.type, c) in built for p, c in zip(decl.params, children))
                           and any(deep[(p.type, c)] for p, c in zip(decl.params, children))
                           for decl, children in instances[x]) for x in labels}
        return {x: (INF if deep[x] else N[x]) for x in labels}

    def value_count(self, type_name, meta):
        return self.count.get((type_name, meta), 0)

    def value_count_all(self, type_name, meta):
        return self.count_all.get((type_name, meta), 0)

    def subtree_count(self, function, meta, count=None):
        """Trees rooted at (function, meta), their children counted by `count` (default:
        without aliases)."""
        count = count or self.value_count
        decl = self.library.functions[function]
        total = 0
        for d, children in self.by_label[(decl.ret, meta)]:
            if d.name == function:
                term = 1
                for p, c in zip(decl.params, children):
                    term = _mul(term, count(p.type, c))
                total = _add(total, term)
        return total

    def subtree_count_all(self, function, meta):
        return self.subtree_count(function, meta, self.value_count_all)

    # -- sketches -------------------------------------------------------------------

    def completable(self, sketch):
        """Whether some complete program, aliases allowed, extends the sketch."""
        return self.completions(sketch, lambda t, m: 1) != 0

    def completions(self, sketch, weight=None):
        """How many complete programs extend the sketch (INF if unbounded), without aliases in
        its holes; `weight(type, meta)` counts a hole's fills instead."""
        weight = weight or self.value_count
        holes = []
        apps = []

        def walk(node):
            if isinstance(node, Hole):
                holes.append(node)
            else:
                apps.append(node)
                for _, child in node.args:
                    walk(child)

        walk(sketch.root)
        goal = self.facts.goal
        position = {h.id: i for i, h in enumerate(holes)}

        def ready_at(app):
            ids = [position[c.id] for _, c in app.args if isinstance(c, Hole)]
            return max(ids) if ids else -1

        checks = defaultdict(list)
        for app in apps:
            checks[ready_at(app)].append(app)
        assignment = {}

        def meta_of(node):
            return assignment[node.id] if isinstance(node, Hole) else node.meta

        def root_ok():
            root = sketch.root
            meta = meta_of(root)
            if root.type != goal.type:
                return False
            d = self.as_dict(root.type, meta)
            return all(d[k] == v and type(d[k]) is type(v) for k, v in goal.args)

        def app_ok(app):
            decl = self.library.functions[app.function]
            if any(v not in self.values[f.type] for v, f in
                   zip(app.meta, self.library.types[decl.ret].fields)):
                return False
            args = {p: self.as_dict(c.type, meta_of(c)) for p, c in app.args}
            return condition_holds(decl, self.as_dict(app.type, app.meta), args, self.facts, self.library)

        for app in checks[-1]:
            if not app_ok(app):
                return 0
        if not holes and not root_ok():
            return 0

        def search(i):
            if i == len(holes):
                if not root_ok():
                    return 0
                term = 1
                for h in holes:
                    term = _mul(term, weight(h.type, assignment[h.id]))
                return term
            total = 0
            hole = holes[i]
            for meta in sorted(self.inhabited[hole.type]):
                assignment[hole.id] = meta
                if all(app_ok(app) for app in checks[i]):
                    total = _add(total, search(i + 1))
            assignment.pop(hole.id, None)
            return total

        return search(0)

    # -- explicit enumeration -------------------------------------------------------

    def programs(self, type_name, size, _memo=None):
        """Every complete program (App tree) of this type with exactly `size` nodes."""
        memo = _memo if _memo is not None else self._program_memo
        key = (type_name, size)
        if key in memo:
            return memo[key]
        out = []
        for decl in self.library.functions.values():
            if decl.ret != type_name:
                continue
            arity = len(decl.params)
            if arity == 0 and size != 1:
                continue
            for split in _compositions(size - 1, arity):
                pools = [self.programs(p.type, s) for p, s in zip(decl.params, split)]
                for children in itertools.product(*pools):
                    args = {p.name: self.as_dict(c.type, c.meta)
                            for p, c in zip(decl.params, children)}
                    for ret in self.metas[type_name]:
                        if condition_holds(decl, self.as_dict(type_name, ret), args, self.facts, self.library):
                            out.append(App(decl.name, type_name,
                                           tuple(zip(self.library.types[type_name].field_names, ret)),
                                           tuple((p.name, c) for p, c in zip(decl.params, children))))
        memo[key] = out
        return out

    _program_memo: dict

    def goal_programs(self, max_size, limit=400):
        self._program_memo = {}
        goal = self.facts.goal
        out = []
        for size in range(1, max_size + 1):
            for program in self.programs(goal.type, size):
                d = program.metadata_dict()
                if all(d[k] == v and type(d[k]) is type(v) for k, v in goal.args):
                    out.append((program, size))
                    if len(out) >= limit:
                        return out, False
        return out, True


def _compositions(total, parts):
    if parts == 0:
        if total == 0:
            yield ()
        return
    if parts == 1:
        if total >= 1:
            yield (total,)
        return
    for first in range(1, total - parts + 2):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


#: larger than every finite count the engine keeps (navigator.synth.counting.MAX_COUNT)
SATURATED = 10 ** 4000 + 1


def _prod(values):
    result = 1
    for v in values:
        result *= v
    return result


def _kind(value):
    if isinstance(value, bool):
        return "Bool"
    return "Int" if isinstance(value, int) else "Str"
