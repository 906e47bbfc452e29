"""The seeded random DAG of 200 pointwise and reduction ops
(test/models/random_dag.py) in PyTorch: the same op list, each op the torch
function a user writes for it, on the bf16 inputs upcast to f32 (the graph's
intermediate type), the DAG's sinks cast back to bf16. Eager runs one
kernel per op; torch.compile fuses, as the graph compiler does."""


def torch_functions(torch):
    """The torch function of each unary, binary and reduction mode the DAG
    draws from, by kind."""
    F = torch.nn.functional
    unary = {
        "tanh": torch.tanh,
        "sigmoid": torch.sigmoid,
        "sin": torch.sin,
        "cos": torch.cos,
        "abs": torch.abs,
        "neg": torch.neg,
        "erf": torch.erf,
        "softplus": F.softplus,
        "swish": F.silu,
        "gelu": F.gelu,
        "gelu_approx_tanh": lambda v: F.gelu(v, approximate="tanh"),
        "elu": F.elu,
        "relu": lambda v: v.clamp(0.0, 4.0),  # the graph's relu clips at 4
        "leaky_relu": lambda v: F.leaky_relu(v, 0.1),
        "exp": torch.exp,
        "log": torch.log,
        "sqrt": torch.sqrt,
        "rsqrt": torch.rsqrt,
        "reciprocal": torch.reciprocal,
    }
    binary = {
        "add": torch.add,
        "sub": torch.sub,
        "mul": torch.mul,
        "max": torch.maximum,
        "min": torch.minimum,
        "add_square": lambda a, b: a + b * b,
        "div": torch.div,
    }
    reductions = {
        "avg": lambda v, dim: v.mean(dim, keepdim=True),
        "max": lambda v, dim: v.amax(dim, keepdim=True),
        "min": lambda v, dim: v.amin(dim, keepdim=True),
        "amax": lambda v, dim: v.abs().amax(dim, keepdim=True),
    }
    return {"unary": unary, "binary": binary, "reduction": reductions}


def forward(torch, mod, f, m, n):
    functions = torch_functions(torch)

    def block():
        values = [f[name].float() for name in mod.INPUTS]
        for kind, mode, args, shape in mod.OPS:
            vs = [values[a] for a in args]
            if kind == "reduction":  # a column [m, 1] reduces each row, a row [1, n] each column
                v = functions[kind][mode](vs[0], 1 if shape == "col" else 0)
            else:
                v = functions[kind][mode](*vs)
            values.append(v)
        return {f"op{s - len(mod.INPUTS)}": values[s].to(torch.bfloat16) for s in mod.SINKS}

    return block


CASES = {("random_dag", "forward"): forward}
