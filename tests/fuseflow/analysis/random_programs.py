"""Hypothesis strategies for random small, valid tensor programs."""

from hypothesis import strategies as st

DIMS = {"P": 3, "Q": 4, "R": 5}


@st.composite
def programs(draw, max_ops=5):
    """A random DAG of matmul-like and element-wise ops over 2-D tensors."""
    n_ops = draw(st.integers(1, max_ops))
    lines = ["name = \"random\"", "[dims]"] + [f"{d} = {e}" for d, e in DIMS.items()]
    lines.append("[tensors]")
    shapes: dict[str, tuple[str, str]] = {}
    n_inputs = draw(st.integers(1, 3))
    for i in range(n_inputs):
        shape = (draw(st.sampled_from(list(DIMS))), draw(st.sampled_from(list(DIMS))))
        fmt = draw(st.sampled_from([("dense", "dense"), ("dense", "compressed"), ("compressed", "compressed")]))
        lines.append(f'X{i} = {{ shape = ["{shape[0]}", "{shape[1]}"], format = ["{fmt[0]}", "{fmt[1]}"], '
                     f'source = "random" }}')
        shapes[f"X{i}"] = shape
    ops = []
    k = -1
    while len(ops) < n_ops:
        k += 1
        names = [n for n in shapes if len(shapes[n]) == 2]
        a = draw(st.sampled_from(names))
        kind = draw(st.sampled_from(["matmul", "ewise", "transpose", "normalize"]))
        sa = shapes[a]
        if kind == "normalize" and len(ops) + 2 <= n_ops:
            # A row reduction and a consumer that reuses the reduced index: softmax's pattern.
            ops.append(f"R{k}(i) = {a}(i,j)")
            shapes[f"R{k}"] = (sa[0],)
            ops.append(f"T{k}(i,j) = {a}(i,j) * R{k}(i)")
            shapes[f"T{k}"] = sa
            continue
        if kind == "matmul":
            candidates = [b for b in names if shapes[b][0] == sa[1]]
            if candidates:
                b = draw(st.sampled_from(candidates))
                ops.append(f"T{k}(i,j) = {a}(i,r) * {b}(r,j)")
                shapes[f"T{k}"] = (sa[0], shapes[b][1])
                continue
        if kind == "transpose":
            ops.append(f"T{k}(j,i) = relu({a}(i,j))")
            shapes[f"T{k}"] = (sa[1], sa[0])
            continue
        candidates = [b for b in names if shapes[b] == sa and b != a]
        if candidates:
            b = draw(st.sampled_from(candidates))
            ops.append(f"T{k}(i,j) = {a}(i,j) + {b}(i,j)")
        else:
            ops.append(f"T{k}(i,j) = exp({a}(i,j))")
        shapes[f"T{k}"] = sa
    for k, expr in enumerate(ops):
        lines.append(f'[[ops]]\nname = "op{k}"\nexpr = "{expr}"')
    return "\n".join(lines) + "\n"
