"""A chained-matmul program whose fully fused region has a chosen number of loop variables."""


def chained_matmul_program(n_vars: int = 10) -> str:
    """(A·B1)·B2·…: each matmul adds one variable, so n_vars - 2 matmuls give n_vars variables."""
    n_ops = n_vars - 2
    lines = ['name = "chain"', "[dims]", "D = 32", "[tensors]",
             'A = { shape = ["D", "D"], format = ["dense", "compressed"], source = "random", density = 0.2 }']
    lines += [f'B{k} = {{ shape = ["D", "D"], source = "random" }}' for k in range(1, n_ops + 1)]
    for k in range(1, n_ops + 1):
        left = "A" if k == 1 else f"T{k - 1}"
        lines.append(f'[[ops]]\nname = "m{k}"\nexpr = "T{k}(a,b) = {left}(a,c) * B{k}(c,b)"')
    return "\n".join(lines) + "\n"
