"""Random op DAGs for the fusion property tests (fusion_count, fusion_steps, the library's menus)."""

from hypothesis import strategies as st


@st.composite
def dag_programs(draw, max_ops=9):
    """Random op DAGs over N×N tensors: chains, diamonds and residual skips (binary ops on any two
    earlier tensors), ops with several consumers, matmuls, transposes, and row reductions read
    at one index point (softmax-like) or at two (R(i) * R(j))."""
    n_ops = draw(st.integers(1, max_ops))
    lines = ['name = "dag"', "[dims]", "N = 3", "[tensors]",
             'X = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random" }',
             'Y = { shape = ["N", "N"], source = "random" }']
    matrices, vectors, ops = ["X", "Y"], [], []

    def pick(names):
        # Mostly the latest tensors (long chains), sometimes any earlier one (skips, fan-out).
        recent = draw(st.booleans())
        return names[-1] if recent else draw(st.sampled_from(names))

    for k in range(n_ops):
        kinds = ["unary", "binary", "transpose", "matmul", "reduce"]
        if vectors:
            kinds += ["scale", "outer"]
        kind = draw(st.sampled_from(kinds))
        a, b = pick(matrices), draw(st.sampled_from(matrices))
        out = f"T{k}"
        if kind == "reduce":
            ops.append(f"{out}(i) = {a}(i,j)")
            vectors.append(out)
            continue
        if kind == "unary":
            expr = f"{out}(i,j) = exp({a}(i,j))"
        elif kind == "binary":
            expr = f"{out}(i,j) = {a}(i,j) + {b}(i,j)"
        elif kind == "transpose":
            expr = f"{out}(j,i) = relu({a}(i,j))"
        elif kind == "matmul":
            expr = f"{out}(i,j) = {a}(i,r) * {b}(r,j)"
        elif kind == "scale":
            expr = f"{out}(i,j) = {a}(i,j) * {pick(vectors)}(i)"
        else:
            r = pick(vectors)
            expr = f"{out}(i,j) = {r}(i) * {r}(j)"
        ops.append(expr)
        matrices.append(out)
    lines += [f'[[ops]]\nname = "op{k}"\nexpr = "{expr}"' for k, expr in enumerate(ops)]
    return "\n".join(lines) + "\n"
