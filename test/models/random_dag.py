"""A seeded random DAG of 200 pointwise and reduction ops on [M, N] bf16
tensors (f32 intermediates), the kind of graph a traced elementwise-heavy
model (activation math, normalizations written by hand) hands a fusing
compiler.

The op list comes from a fixed seed and does not depend on the size, so the
small and full graphs have the same structure. Values stay finite and O(1):
each value carries an interval that bounds it (every input is in [-1, 1]), an op is only chosen where its operands'
intervals satisfy its domain (log, sqrt, rsqrt, reciprocal and div
denominators >= 0.25, exp of <= 3) and its result stays within +-LIMIT.
Discontinuous ops (comparisons, floor, mod, select on computed masks) are
left out, so f32 rounding differences cannot flip a result.

Shapes: full [M, N], rows [1, N] and columns [M, 1]; binary ops broadcast
rows and columns against full tensors (and a row against a column gives a
full tensor); reductions (avg, max, min, amax) take a full tensor over its
columns to [M, 1] (one value per row, then broadcast back by a later binary
op) or over its rows to [1, N]. Every value no op consumes is an output.
"""

import math
import random

import numpy as np

from harness import Model

NAME = "random_dag"
TRAINS = False
SIZES = {"small": dict(m=64, n=64), "full": dict(m=4096, n=4096)}

SEED = 14
NUM_OPS = 200
LIMIT = 12.0

# name -> shape class; make_inputs draws every input uniform in [-1, 1],
# the range graph-run's --random-inputs uses, so the graph stays in its
# domains under either (values that must be positive come from ops: exp,
# sigmoid, softplus...)
INPUTS = {"x0": "full", "x1": "full", "x2": "full", "x3": "full", "row0": "row", "row1": "row", "col0": "col"}
INPUT_RANGE = (-1.0, 1.0)


def _sigmoid(v):
    return 0.5 * (1.0 + np.tanh(0.5 * v))


def _erf(v):
    return np.vectorize(math.erf, otypes=[float])(v)


def _softplus(v):
    return np.logaddexp(0.0, v)


# unary modes: (numpy function, domain check on (lo, hi), builder kwargs)
UNARY = {
    "tanh": (np.tanh, None, {}),
    "sigmoid": (_sigmoid, None, {}),
    "sin": (np.sin, None, {}),
    "cos": (np.cos, None, {}),
    "abs": (np.abs, None, {}),
    "neg": (np.negative, None, {}),
    "erf": (_erf, None, {}),
    "softplus": (_softplus, None, {}),
    "swish": (lambda v: v * _sigmoid(v), None, {}),
    "gelu": (lambda v: 0.5 * v * (1.0 + _erf(v / math.sqrt(2.0))), None, {}),
    "gelu_approx_tanh": (lambda v: 0.5 * v * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3))), None, {}),
    "elu": (lambda v: np.where(v > 0, v, np.expm1(np.minimum(v, 0.0))), None, {}),
    "relu": (lambda v: np.minimum(np.maximum(v, 0.0), 4.0), None, dict(upper_clip=4.0)),
    "leaky_relu": (lambda v: np.where(v > 0, v, 0.1 * v), None, dict(negative_slope=0.1)),
    "exp": (np.exp, lambda lo, hi: hi <= 3.0, {}),
    "log": (np.log, lambda lo, hi: lo >= 0.25, {}),
    "sqrt": (np.sqrt, lambda lo, hi: lo >= 0.25, {}),
    "rsqrt": (lambda v: 1.0 / np.sqrt(v), lambda lo, hi: lo >= 0.25, {}),
    "reciprocal": (lambda v: 1.0 / v, lambda lo, hi: lo >= 0.25, {}),
}

# binary modes: (numpy function, domain check on the second operand, builder)
BINARY = {
    "add": (np.add, None),
    "sub": (np.subtract, None),
    "mul": (np.multiply, None),
    "max": (np.maximum, None),
    "min": (np.minimum, None),
    "add_square": (lambda a, b: a + b * b, None),
    "div": (np.divide, lambda lo, hi: lo >= 0.25),
}

REDUCTIONS = {"avg": np.mean, "max": np.max, "min": np.min, "amax": lambda v, axis, keepdims: np.max(np.abs(v), axis=axis, keepdims=keepdims)}


def _unary_bounds(fn, lo, hi):
    """Bounds of fn over [lo, hi] by dense sampling, widened a little (the
    functions are smooth, so the sampled extremes are within the margin)."""
    vals = fn(np.linspace(lo, hi, 2001))
    span = float(vals.max() - vals.min())
    return float(vals.min()) - 0.01 * span - 1e-3, float(vals.max()) + 0.01 * span + 1e-3


def _binary_bounds(mode, a, b):
    (alo, ahi), (blo, bhi) = a, b
    if mode == "add":
        return alo + blo, ahi + bhi
    if mode == "sub":
        return alo - bhi, ahi - blo
    if mode in ("mul", "div"):
        bs = (blo, bhi) if mode == "mul" else (1.0 / bhi, 1.0 / blo)
        corners = [x * y for x in (alo, ahi) for y in bs]
        return min(corners), max(corners)
    if mode == "max":
        return max(alo, blo), max(ahi, bhi)
    if mode == "min":
        return min(alo, blo), min(ahi, bhi)
    if mode == "add_square":
        sq = (0.0 if blo <= 0.0 <= bhi else min(blo * blo, bhi * bhi), max(blo * blo, bhi * bhi))
        return alo + sq[0], ahi + sq[1]
    raise AssertionError(mode)


def _combine(s1, s2):
    return s1 if s1 == s2 else "full"


def _generate():
    """The op list: (kind, mode, operand indices, shape class). Values are
    numbered inputs first (in INPUTS order), then one per op."""
    rnd = random.Random(SEED)
    shapes = list(INPUTS.values())
    bounds = [INPUT_RANGE] * len(INPUTS)
    unused = set(range(len(shapes)))
    ops = []

    def pick():
        # mostly recent values (depth), often ones nothing consumes yet
        if unused and rnd.random() < 0.5:
            return rnd.choice(sorted(unused))
        if rnd.random() < 0.7:
            return rnd.randrange(max(0, len(shapes) - 12), len(shapes))
        return rnd.randrange(len(shapes))

    def push(kind, mode, args, shape, bound):
        ops.append((kind, mode, tuple(args), shape))
        unused.difference_update(args)
        unused.add(len(shapes))
        shapes.append(shape)
        bounds.append(bound)

    def fits(bound):
        return -LIMIT <= bound[0] and bound[1] <= LIMIT

    while len(ops) < NUM_OPS:
        r = rnd.random()
        if r < 0.12:
            full = [i for i, s in enumerate(shapes) if s == "full"]
            src = pick()
            if shapes[src] != "full":
                src = rnd.choice(full)
            mode = rnd.choice(sorted(REDUCTIONS))
            lo, hi = bounds[src]
            bound = (0.0 if lo <= 0.0 <= hi else min(abs(lo), abs(hi)), max(abs(lo), abs(hi))) if mode == "amax" else (lo, hi)
            push("reduction", mode, [src], rnd.choice(["col", "row"]), bound)
        elif r < 0.55:
            src = pick()
            modes = [m for m, (fn, ok, _) in sorted(UNARY.items()) if ok is None or ok(*bounds[src])]
            rnd.shuffle(modes)
            for mode in modes:
                bound = _unary_bounds(UNARY[mode][0], *bounds[src])
                if fits(bound):
                    push("unary", mode, [src], shapes[src], bound)
                    break
        else:
            a, b = pick(), pick()
            modes = [m for m, (fn, ok) in sorted(BINARY.items()) if ok is None or ok(*bounds[b])]
            rnd.shuffle(modes)
            for mode in modes:
                bound = _binary_bounds(mode, bounds[a], bounds[b])
                if fits(bound):
                    push("binary", mode, [a, b], _combine(shapes[a], shapes[b]), bound)
                    break
            else:
                push("unary", "tanh", [a], shapes[a], _unary_bounds(np.tanh, *bounds[a]))
    consumed = {i for _, _, args, _ in ops for i in args}
    num_inputs = len(INPUTS)
    assert all(i in consumed for i in range(num_inputs)), "an input is never used"
    sinks = [i for i in range(num_inputs, len(shapes)) if i not in consumed]
    return ops, sinks


OPS, SINKS = _generate()


def _dims(shape, m, n):
    return {"full": [m, n], "row": [1, n], "col": [m, 1]}[shape]


def _out_name(value):
    return f"op{value - len(INPUTS)}"


def build(cudnn, phase, m, n):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase (TRAINS is False)")
    dt = cudnn.data_type
    g = cudnn.pygraph(name=NAME, io_data_type=dt.BFLOAT16, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    inputs = {name: g.tensor(name=name, dim=_dims(shape, m, n), data_type=dt.BFLOAT16) for name, shape in INPUTS.items()}
    values = list(inputs.values())
    for i, (kind, mode, args, shape) in enumerate(OPS):
        ts = [values[a] for a in args]
        name = f"op{i}.{mode}"
        if kind == "unary":
            v = getattr(g, mode)(ts[0], name=name, **UNARY[mode][2])
        elif kind == "binary":
            v = getattr(g, mode)(*ts, name=name)
        else:
            v = g.reduction(ts[0], mode=getattr(cudnn.reduction_mode, mode.upper()), out_dims=_dims(shape, m, n), name=name)
        values.append(v)
    outputs = {}
    for s in SINKS:
        outputs[_out_name(s)] = values[s].set_output(True).set_name(_out_name(s)).set_data_type(dt.BFLOAT16)
    return Model(graph=g, inputs=inputs, outputs=outputs)


def make_inputs(phase, rng, m, n):
    return {name: rng.uniform(*INPUT_RANGE, _dims(shape, m, n)) for name, shape in INPUTS.items()}


def reference(phase, feeds, m, n):
    values = [feeds[name] for name in INPUTS]
    for kind, mode, args, shape in OPS:
        vs = [values[a] for a in args]
        if kind == "unary":
            v = UNARY[mode][0](vs[0])
        elif kind == "binary":
            v = BINARY[mode][0](*vs)
        else:
            v = REDUCTIONS[mode](vs[0], axis=1 if shape == "col" else 0, keepdims=True)
        values.append(v)
    return {_out_name(s): values[s] for s in SINKS}
