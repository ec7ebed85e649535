"""Hypothesis strategy: small random libraries and fact programs, as TOML text.

2-6 types with 0-2 metadata fields, 0-2 props, 2-10 functions of arity 0-2 whose conditions
use =, !=, <, <= and fact patterns (with wildcards and left-out fields). Parameter types
are drawn freely, so recursive and mutually recursive libraries come up often. Literals
come from a tiny pool so that the finite domain stays small and brute force stays cheap.
With `aliases=True`, about one function in three is marked `alias = true` (a shortcut).
"""

from __future__ import annotations

from hypothesis import strategies as st

LITERALS = {"Int": [0, 1, 2], "Str": ["a", "b"], "Bool": [True, False]}
VALUE_TYPES = ["Int", "Str", "Bool"]


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return f'"{value}"'


@st.composite
def problems(draw, max_types: int = 6, max_functions: int = 10, aliases: bool = False):
    n_types = draw(st.integers(2, max_types))
    types = [[(f"f{k}", draw(st.sampled_from(VALUE_TYPES)))
              for k in range(draw(st.integers(0, 2)))] for _ in range(n_types)]
    props = [[(f"g{k}", draw(st.sampled_from(VALUE_TYPES)))
              for k in range(draw(st.integers(1, 2)))] for _ in range(draw(st.integers(0, 2)))]

    lines = []
    for i, fields in enumerate(props):
        lines.append(f"[Prop.P{i}]")
        lines += [f'params.{name} = "{vt}"' for name, vt in fields]
        lines.append("")
    for i, fields in enumerate(types):
        lines.append(f"[Type.T{i}]")
        lines += [f'params.{name} = "{vt}"' for name, vt in fields] or ["params = {}"]
        lines.append("")

    for j in range(draw(st.integers(2, max_functions))):
        ret = draw(st.integers(0, n_types - 1))
        params = [(f"p{k}", draw(st.integers(0, n_types - 1)))
                  for k in range(draw(st.integers(0, 2)))]
        atoms = [(f"ret.{name}", vt) for name, vt in types[ret]]
        for pname, t in params:
            atoms += [(f"{pname}.{name}", vt) for name, vt in types[t]]
        conditions = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["cmp", "cmp", "pat"] if props else ["cmp"]))
            if kind == "cmp":
                if not atoms:
                    continue
                left, vt = draw(st.sampled_from(atoms))
                same = [a for a, t in atoms if t == vt and a != left]
                right = draw(st.sampled_from(same)) if same and draw(st.booleans()) else \
                    toml_value(draw(st.sampled_from(LITERALS[vt])))
                op = draw(st.sampled_from(["=", "!=", "<", "<="] if vt == "Int" else ["=", "!="]))
                if draw(st.booleans()):
                    left, right = right, left
                conditions.append(f"{left} {op} {right}")
            else:
                pi = draw(st.integers(0, len(props) - 1))
                parts = []
                for name, vt in props[pi]:
                    choice = draw(st.sampled_from(["wild", "omit", "atom", "lit"]))
                    same = [a for a, t in atoms if t == vt]
                    if choice == "wild":
                        parts.append(f"{name} = _")
                    elif choice == "atom" and same:
                        parts.append(f"{name} = {draw(st.sampled_from(same))}")
                    elif choice != "omit":
                        parts.append(f"{name} = {toml_value(draw(st.sampled_from(LITERALS[vt])))}")
                conditions.append(f"P{pi} {{ {', '.join(parts)} }}")
        lines.append(f"[Function.fn{j}]")
        lines += [f'params.{pname} = "T{t}"' for pname, t in params] or ["params = {}"]
        lines.append(f'ret = "T{ret}"')
        lines.append("condition = [" + ", ".join(f"'{c}'" for c in conditions) + "]")
        if draw(st.integers(0, 4)) == 0:
            lines.append("default = true")
        if aliases and draw(st.integers(0, 2)) == 0:
            lines.append("alias = true")
        lines.append("")

    facts = []
    for i, fields in enumerate(props):
        for _ in range(draw(st.integers(0, 3))):
            args = ", ".join(f"{name} = {toml_value(draw(st.sampled_from(LITERALS[vt])))}"
                             for name, vt in fields)
            facts.append(f'[[Prop]]\nname = "P{i}"\nargs = {{ {args} }}\n')
    goal = draw(st.integers(0, n_types - 1))
    goal_args = [f"{name} = {toml_value(draw(st.sampled_from(LITERALS[vt])))}"
                 for name, vt in types[goal] if draw(st.integers(0, 2)) == 0]
    facts.append(f'[Goal]\nname = "T{goal}"\nargs = {{ {", ".join(goal_args)} }}\n')
    return "\n".join(lines), "\n".join(facts)
