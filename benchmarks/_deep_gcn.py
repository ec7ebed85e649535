"""A deep GCN with residual connections, three ops per layer as programs/gcn.toml has."""


def deep_gcn_program(layers: int) -> str:
    """Layer l: aggregate A·H, transform ·W_l, then relu(... + H): the residual skip makes each
    layer's activation read both the transform and the previous layer's output."""
    lines = [f'name = "deep_gcn_{layers}"', "[dims]", "N = 64", "F = 16", "[tensors]",
             'A = { shape = ["N", "N"], format = ["dense", "compressed"], source = "random", density = 0.1 }',
             'H0 = { shape = ["N", "F"], source = "random" }']
    lines += [f'W{l} = {{ shape = ["F", "F"], source = "random" }}' for l in range(1, layers + 1)]
    for l in range(1, layers + 1):
        lines.append(f'[[ops]]\nname = "aggregate{l}"\nexpr = "AH{l}(i,f) = A(i,k) * H{l - 1}(k,f)"')
        lines.append(f'[[ops]]\nname = "transform{l}"\nexpr = "XW{l}(i,h) = AH{l}(i,f) * W{l}(f,h)"')
        lines.append(f'[[ops]]\nname = "activate{l}"\nexpr = "H{l}(i,h) = relu(XW{l}(i,h) + H{l - 1}(i,h))"')
    return "\n".join(lines) + "\n"
