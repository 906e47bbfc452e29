"""Random op chains built through the Python API and run on the CPU.

Each seed builds a chain of pointwise ops (unary, binary with numpy
broadcasting, sometimes a shape that does not broadcast), matmuls (sometimes
with a K that does not match) and keep-dim reductions over inputs laid out
row-major or transposed, in f32 or f16. numpy decides what is valid: a valid
chain must build and match numpy's value in float64 (outputs read through the
strides the graph reports); an invalid one must be refused with the package's
GraphValidationError naming the op and the rule. Any other exception, a
crash, an accepted invalid chain or a wrong value fails the seed."""

import random

import numpy as np
import pytest

import graph_compiler as gc
from conftest import needs_lib

D = gc.data_type
NUMPY_TYPE = {D.FLOAT: np.float32, D.HALF: np.float16}
UNARY = {
    "relu": lambda x: np.maximum(x, 0),
    "exp": np.exp,
    "tanh": np.tanh,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "abs": np.abs,
    "neg": np.negative,
}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum, "min": np.minimum}
REDUCE = {"ADD": np.sum, "MAX": np.max, "MIN": np.min}


class Chain:
    """One seed's graph, its input buffers and numpy's value of the chain so
    far (None once numpy finds the chain invalid)."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.seed = seed
        self.dtype = self.rng.choice([D.FLOAT, D.FLOAT, D.HALF])
        self.graph = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
        self.feeds = {}
        self.value = None
        self.ops = []

    def input(self, shape):
        data = np.random.default_rng(self.seed * 31 + len(self.feeds)).standard_normal(shape)
        array = data.astype(NUMPY_TYPE[self.dtype])
        if len(shape) >= 2 and self.rng.random() < 0.2:  # a transposed layout
            array = np.ascontiguousarray(np.swapaxes(array, -1, -2)).swapaxes(-1, -2)
        tensor = self.graph.tensor(
            name=f"in{len(self.feeds)}",
            dim=list(array.shape),
            stride=[s // array.itemsize for s in array.strides],
            data_type=self.dtype,
        )
        self.feeds[tensor] = array
        return tensor, array.astype(np.float64)

    def grow(self, current):
        rng, value = self.rng, self.value
        kind = rng.choice(["unary", "binary", "matmul", "reduce"])
        if kind == "matmul" and value.ndim < 2:
            kind = "unary"
        self.ops.append(kind)
        if kind == "unary":
            name = rng.choice(sorted(UNARY))
            self.value = UNARY[name](value)
            return getattr(self.graph, name)(input=current)
        if kind == "binary":
            # Mostly a shape that broadcasts, sometimes one that does not.
            if rng.random() < 0.8:
                shape = [d if rng.random() < 0.7 else 1 for d in value.shape]
            else:
                shape = [d + rng.choice([0, 1]) for d in value.shape]
            other, other_value = self.input(shape)
            name = rng.choice(sorted(BINARY))
            try:
                self.value = BINARY[name](value, other_value)
            except ValueError:
                self.value = None
            operands = {"input0": current, "input1": other} if name in ("max", "min") else {"a": current, "b": other}
            return getattr(self.graph, name)(**operands)
        if kind == "matmul":
            k = value.shape[-1] if rng.random() < 0.85 else value.shape[-1] + 1
            other, other_value = self.input(list(value.shape[:-2]) + [k, rng.choice([1, 2, 3, 8])])
            try:
                self.value = np.matmul(value, other_value)
            except ValueError:
                self.value = None
            return self.graph.matmul(A=current, B=other)
        axis = rng.randrange(value.ndim)
        mode = rng.choice(sorted(REDUCE))
        self.value = REDUCE[mode](value, axis=axis, keepdims=True)
        result = self.graph.reduction(input=current, mode=getattr(gc.reduction_mode, mode), compute_data_type=D.FLOAT)
        result.set_dim(list(self.value.shape))
        return result


def run_chain(seed):
    chain = Chain(seed)
    shape = [chain.rng.choice([1, 2, 3, 4, 5, 8]) for _ in range(chain.rng.choice([2, 3, 4]))]
    current, chain.value = chain.input(shape)
    for _ in range(chain.rng.randint(1, 4)):
        current = chain.grow(current)
        if chain.value is None:
            break
    current.set_output(True).set_data_type(D.FLOAT)
    if chain.value is None:
        with pytest.raises(gc.GraphValidationError) as refused:
            chain.graph.build([gc.heur_mode.A])
        message = str(refused.value)
        assert "do not broadcast" in message or "K of A" in message, message
        return "refused"
    chain.graph.build([gc.heur_mode.A])
    expected = chain.value
    out = read_output(current, expected.shape)
    chain.feeds[current] = out
    chain.graph.execute(chain.feeds)
    # Inputs are exact in f16 and f32, every intermediate is f32.
    error = np.max(np.abs(out - expected) / (1 + np.abs(expected)))
    assert error <= 1e-4, (chain.ops, float(error))
    return "ran"


@needs_lib
def test_random_chains_run_or_are_refused_by_name():
    outcomes = [run_chain(seed) for seed in range(200)]
    # Both sides of the rule are exercised.
    assert outcomes.count("ran") >= 100 and outcomes.count("refused") >= 10, outcomes


def conv_reference(x, w, pad, stride, dilation):
    """Cross-correlation of NCHW ``x`` with KCRS ``w`` in float64."""
    n, c, h, width = x.shape
    k, _, r_extent, s_extent = w.shape
    p = (h + 2 * pad[0] - dilation[0] * (r_extent - 1) - 1) // stride[0] + 1
    q = (width + 2 * pad[1] - dilation[1] * (s_extent - 1) - 1) // stride[1] + 1
    padded = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    out = np.zeros((n, k, p, q))
    for r in range(r_extent):
        for s in range(s_extent):
            top, left = r * dilation[0], s * dilation[1]
            window = padded[:, :, top : top + stride[0] * (p - 1) + 1 : stride[0], left : left + stride[1] * (q - 1) + 1 : stride[1]]
            out += np.einsum("nchw,kc->nkhw", window, w[:, :, r, s])
    return out


def read_output(tensor, shape, dtype=np.float32):
    """A NaN-filled buffer laid out as the graph reports ``tensor``'s
    strides: an element the graph leaves unwritten fails the comparison."""
    strides = tensor.get_stride()
    memory = np.full(1 + sum((d - 1) * s for d, s in zip(shape, strides)), np.nan, dtype)
    return np.lib.stride_tricks.as_strided(memory, shape, [s * memory.itemsize for s in strides])


def layout(array, channels_last):
    """``array`` (NCHW values) stored channels-last when asked."""
    if not channels_last:
        return np.ascontiguousarray(array)
    return np.ascontiguousarray(array.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)


def run_conv(seed):
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    n, c, k = rng.choice([1, 2]), rng.choice([1, 3, 4]), rng.choice([1, 2, 5])
    h, width = rng.choice([1, 3, 5, 7]), rng.choice([1, 4, 6])
    r_extent, s_extent = rng.choice([1, 2, 3]), rng.choice([1, 3])
    pad = [rng.choice([0, 1]), rng.choice([0, 1])]
    stride = [rng.choice([1, 2]), rng.choice([1, 2])]
    dilation = [rng.choice([1, 2]), 1]
    x = layout(data.standard_normal((n, c, h, width)).astype(np.float32), rng.random() < 0.4)
    w = layout(data.standard_normal((k, c, r_extent, s_extent)).astype(np.float32), rng.random() < 0.4)
    g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    xt = g.tensor(name="x", dim=list(x.shape), stride=[s // 4 for s in x.strides])
    wt = g.tensor(name="w", dim=list(w.shape), stride=[s // 4 for s in w.strides])
    y = g.conv_fprop(image=xt, weight=wt, padding=pad, stride=stride, dilation=dilation)
    y.set_output(True)
    p = (h + 2 * pad[0] - dilation[0] * (r_extent - 1) - 1) // stride[0] + 1
    q = (width + 2 * pad[1] - dilation[1] * (s_extent - 1) - 1) // stride[1] + 1
    if p < 1 or q < 1:  # the filter does not fit the padded image
        with pytest.raises(gc.GraphValidationError, match="conv_fprop"):
            g.build([gc.heur_mode.A])
        return "refused"
    g.build([gc.heur_mode.A])
    expected = conv_reference(x.astype(np.float64), w.astype(np.float64), pad, stride, dilation)
    out = read_output(y, expected.shape)
    g.execute({xt: x, wt: w, y: out})
    error = np.max(np.abs(out - expected) / (1 + np.abs(expected)))
    assert error <= 1e-4, (seed, float(error))
    return "ran"


def run_norm(seed):
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    shape = [rng.choice([1, 2, 3])] + [rng.choice([1, 2, 4, 5]) for _ in range(3)]
    x = layout(data.standard_normal(shape).astype(np.float32), rng.random() < 0.4)
    scale = layout(data.standard_normal([1] + shape[1:]).astype(np.float32), False)
    bias = layout(data.standard_normal([1] + shape[1:]).astype(np.float32), False)
    epsilon = rng.choice([1e-5, 1e-2])
    g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)

    def tensor(name, array):
        return g.tensor(name=name, dim=list(array.shape), stride=[s // 4 for s in array.strides])

    xt, st, bt = tensor("x", x), tensor("scale", scale), tensor("bias", bias)
    et = g.tensor(name="epsilon", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], is_pass_by_value=True)
    rows = x.astype(np.float64).reshape(shape[0], -1)
    if rng.random() < 0.5:
        y = g.layernorm(norm_forward_phase=gc.norm_forward_phase.INFERENCE, input=xt, scale=st, bias=bt, epsilon=et)[0]
        normalized = (rows - rows.mean(1, keepdims=True)) / np.sqrt(rows.var(1, keepdims=True) + epsilon)
    else:
        y = g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.INFERENCE, input=xt, scale=st, bias=bt, epsilon=et)[0]
        normalized = rows / np.sqrt((rows * rows).mean(1, keepdims=True) + epsilon)
    expected = normalized.reshape(shape) * scale + bias
    y.set_output(True)
    g.build([gc.heur_mode.A])
    out = read_output(y, tuple(shape))
    g.execute({xt: x, st: scale, bt: bias, et: np.full((1, 1, 1, 1), epsilon, np.float32), y: out})
    error = np.max(np.abs(out - expected) / (1 + np.abs(expected)))
    assert error <= 1e-4, (seed, float(error))


@needs_lib
def test_random_convolutions_match_numpy_or_are_refused():
    outcomes = [run_conv(seed) for seed in range(60)]
    assert outcomes.count("ran") >= 30 and "refused" in outcomes, outcomes


@needs_lib
def test_random_norms_match_numpy():
    for seed in range(40):
        run_norm(seed)


def conv_backward_reference(x, w, dy, pad, stride, dilation):
    """(DX, DW) of the cross-correlation conv_reference computes, float64."""
    _, _, r_extent, s_extent = w.shape
    _, _, p, q = dy.shape
    padded = np.pad(x, ((0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])))
    dx_padded = np.zeros_like(padded)
    dw = np.zeros_like(w)
    for r in range(r_extent):
        for s in range(s_extent):
            top, left = r * dilation[0], s * dilation[1]
            rows = slice(top, top + stride[0] * (p - 1) + 1, stride[0])
            cols = slice(left, left + stride[1] * (q - 1) + 1, stride[1])
            dw[:, :, r, s] = np.einsum("nkhw,nchw->kc", dy, padded[:, :, rows, cols])
            dx_padded[:, :, rows, cols] += np.einsum("nkhw,kc->nchw", dy, w[:, :, r, s])
    h, width = x.shape[2:]
    return dx_padded[:, :, pad[0] : pad[0] + h, pad[1] : pad[1] + width], dw


def run_conv_backward(seed):
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    n, c, k = rng.choice([1, 2]), rng.choice([1, 3]), rng.choice([1, 2, 4])
    h, width = rng.choice([3, 5, 6]), rng.choice([2, 4, 5])
    r_extent, s_extent = rng.choice([1, 2, 3]), rng.choice([1, 2])
    pad = [rng.choice([0, 1]), rng.choice([0, 1])]
    stride = [rng.choice([1, 2]), rng.choice([1, 2])]
    dilation = [rng.choice([1, 2]), 1]
    p = (h + 2 * pad[0] - dilation[0] * (r_extent - 1) - 1) // stride[0] + 1
    q = (width + 2 * pad[1] - dilation[1] * (s_extent - 1) - 1) // stride[1] + 1
    if p < 1 or q < 1:
        return "skipped"
    x = layout(data.standard_normal((n, c, h, width)).astype(np.float32), rng.random() < 0.4)
    w = layout(data.standard_normal((k, c, r_extent, s_extent)).astype(np.float32), rng.random() < 0.4)
    dy = layout(data.standard_normal((n, k, p, q)).astype(np.float32), rng.random() < 0.4)
    expected_dx, expected_dw = conv_backward_reference(*(a.astype(np.float64) for a in (x, w, dy)), pad, stride, dilation)
    geometry = dict(padding=pad, stride=stride, dilation=dilation)
    for which in ("dgrad", "wgrad"):
        g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
        dyt = g.tensor(name="dy", dim=list(dy.shape), stride=[s // 4 for s in dy.strides])
        if which == "dgrad":
            other, other_array, expected = g.tensor(name="w", dim=list(w.shape), stride=[s // 4 for s in w.strides]), w, expected_dx
            out = g.conv_dgrad(loss=dyt, filter=other, **geometry)
        else:
            other, other_array, expected = g.tensor(name="x", dim=list(x.shape), stride=[s // 4 for s in x.strides]), x, expected_dw
            out = g.conv_wgrad(image=other, loss=dyt, **geometry)
        out.set_output(True).set_dim(list(expected.shape))
        g.build([gc.heur_mode.A])
        buffer = read_output(out, expected.shape)
        g.execute({dyt: dy, other: other_array, out: buffer})
        error = np.max(np.abs(buffer - expected) / (1 + np.abs(expected)))
        assert error <= 1e-4, (seed, which, float(error))
    return "ran"


@needs_lib
def test_random_convolution_gradients_match_numpy():
    outcomes = [run_conv_backward(seed) for seed in range(40)]
    assert outcomes.count("ran") >= 25, outcomes


def run_structural(seed):
    """A view or copy op (slice, transpose, concatenate, logical reshape)
    followed by a pointwise negation (one-to-one, so a misplaced element
    shows), against numpy."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    shape = [rng.choice([1, 2, 3, 4, 6]) for _ in range(rng.choice([2, 3, 4]))]
    g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)

    def tensor(name, array):
        return g.tensor(name=name, dim=list(array.shape), stride=[s // 4 for s in array.strides])

    x = data.standard_normal(shape).astype(np.float32)
    if rng.random() < 0.3:
        x = np.ascontiguousarray(np.swapaxes(x, -1, -2)).swapaxes(-1, -2)
    xt = tensor("x", x)
    feeds = {xt: x}
    kind = rng.choice(["slice", "transpose", "concatenate", "reshape"])
    if kind == "slice":
        bounds = []
        for d in shape:
            start = rng.randrange(d)
            bounds.append(slice(start, rng.randint(start + 1, d), rng.choice([1, 1, 2])))
        y, expected = g.slice(input=xt, slices=bounds), x[tuple(bounds)]
    elif kind == "transpose":
        permutation = list(range(len(shape)))
        rng.shuffle(permutation)
        y, expected = g.transpose(input=xt, permutation=permutation), np.transpose(x, permutation)
    elif kind == "concatenate":
        axis = rng.randrange(len(shape))
        other_shape = list(shape)
        other_shape[axis] = rng.choice([1, 2, 3])
        z = data.standard_normal(other_shape).astype(np.float32)
        feeds[tensor("z", z)] = z
        y, expected = g.concatenate(inputs=[xt, list(feeds)[1]], axis=axis), np.concatenate([x, z], axis)
    else:
        total = int(np.prod(shape))
        new_shape = [total // 2, 2] if total % 2 == 0 else [total, 1]
        y = g.reshape(input=xt)
        y.set_dim(new_shape).set_stride([new_shape[1], 1])
        expected = np.reshape(x, new_shape)
    result = g.neg(input=y)
    result.set_output(True)
    g.build([gc.heur_mode.A])
    expected = -expected
    out = read_output(result, expected.shape)
    feeds[result] = out
    g.execute(feeds)
    assert np.array_equal(out, expected), (seed, kind)
    return kind


@needs_lib
def test_random_view_ops_match_numpy():
    kinds = {run_structural(seed) for seed in range(80)}
    assert kinds == {"slice", "transpose", "concatenate", "reshape"}, kinds


def run_sdpa(seed):
    """Attention with grouped KV heads, a scale and a top-left or
    bottom-right causal mask in f16, against numpy in float64 (O and the
    softmax stats, the row's log-sum-exp)."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    b, h_q = rng.choice([1, 2]), rng.choice([1, 2, 4])
    h_k = rng.choice([h for h in (1, 2, 4) if h_q % h == 0])
    s_q, s_kv, d = rng.choice([1, 3, 5, 8]), rng.choice([1, 4, 7, 9]), rng.choice([4, 8, 16])
    mask = rng.choice(["none", "top_left", "bottom_right" if s_kv >= s_q else "top_left"])
    scale = rng.choice([1 / np.sqrt(d), 0.5, 1.0])
    q = data.standard_normal((b, h_q, s_q, d)).astype(np.float16)
    k = data.standard_normal((b, h_k, s_kv, d)).astype(np.float16)
    v = data.standard_normal((b, h_k, s_kv, d)).astype(np.float16)
    g = gc.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)

    def tensor(name, array):
        return g.tensor(name=name, dim=list(array.shape), stride=[s // 2 for s in array.strides])

    qt, kt, vt = tensor("q", q), tensor("k", k), tensor("v", v)
    flags = {"top_left": dict(use_causal_mask=True), "bottom_right": dict(use_causal_mask_bottom_right=True)}.get(mask, {})
    o, stats = g.sdpa(q=qt, k=kt, v=vt, attn_scale=float(scale), generate_stats=True, **flags)[:2]
    o.set_output(True).set_data_type(D.HALF)
    stats.set_output(True).set_data_type(D.FLOAT)
    g.build([gc.heur_mode.A])

    group = h_q // h_k
    kk = np.repeat(k.astype(np.float64), group, axis=1)
    vv = np.repeat(v.astype(np.float64), group, axis=1)
    scores = np.einsum("bhid,bhjd->bhij", q.astype(np.float64), kk) * scale
    i, j = np.arange(s_q)[:, None], np.arange(s_kv)[None, :]
    if mask == "top_left":
        scores = np.where(j <= i, scores, -np.inf)
    elif mask == "bottom_right":
        scores = np.where(j <= i + (s_kv - s_q), scores, -np.inf)
    top = scores.max(-1, keepdims=True)
    weights = np.exp(scores - top)
    expected_stats = top + np.log(weights.sum(-1, keepdims=True))
    expected_o = np.einsum("bhij,bhjd->bhid", weights / weights.sum(-1, keepdims=True), vv)

    out_o = read_output(o, q.shape, np.float16)
    out_stats = read_output(stats, expected_stats.shape)
    g.execute({qt: q, kt: k, vt: v, o: out_o, stats: out_stats})
    assert np.max(np.abs(out_o - expected_o)) <= 1e-2, (seed, mask, float(np.max(np.abs(out_o - expected_o))))
    assert np.max(np.abs(out_stats - expected_stats)) <= 1e-4, (seed, mask)
    return mask


@needs_lib
def test_random_attention_matches_numpy():
    masks = {run_sdpa(seed) for seed in range(40)}
    assert masks == {"none", "top_left", "bottom_right"}, masks


def run_sdpa_backward(seed):
    """sdpa_backward with grouped KV heads and an optional causal mask,
    against numpy's gradients of the same attention in float64."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    b, h_q = rng.choice([1, 2]), rng.choice([1, 2, 4])
    h_k = rng.choice([h for h in (1, 2, 4) if h_q % h == 0])
    s_q, s_kv, d = rng.choice([1, 3, 6]), rng.choice([2, 5, 8]), rng.choice([4, 8])
    causal = rng.random() < 0.5
    scale = rng.choice([1 / np.sqrt(d), 0.7])
    q, k, v = (data.standard_normal(shape).astype(np.float16) for shape in ((b, h_q, s_q, d), (b, h_k, s_kv, d), (b, h_k, s_kv, d)))
    d_o = data.standard_normal((b, h_q, s_q, d)).astype(np.float16)

    group = h_q // h_k
    q64, d_o64 = q.astype(np.float64), d_o.astype(np.float64)
    kk, vv = (np.repeat(a.astype(np.float64), group, axis=1) for a in (k, v))
    scores = np.einsum("bhid,bhjd->bhij", q64, kk) * scale
    if causal:
        scores = np.where(np.arange(s_kv)[None, :] <= np.arange(s_q)[:, None], scores, -np.inf)
    top = scores.max(-1, keepdims=True)
    weights = np.exp(scores - top)
    stats = (top + np.log(weights.sum(-1, keepdims=True))).astype(np.float32)
    p = weights / weights.sum(-1, keepdims=True)
    o = np.einsum("bhij,bhjd->bhid", p, vv).astype(np.float16)
    # Gradients of the attention as the forward computed it (O rounded to f16,
    # as the graph reads it).
    d_p = np.einsum("bhid,bhjd->bhij", d_o64, vv)
    d_s = p * (d_p - np.sum(d_o64 * o.astype(np.float64), -1, keepdims=True))
    expected_dq = np.einsum("bhij,bhjd->bhid", d_s, kk) * scale
    fold = lambda a: a.reshape(b, h_k, group, *a.shape[2:]).sum(2)  # noqa: E731
    expected_dk = fold(np.einsum("bhij,bhid->bhjd", d_s, q64) * scale)
    expected_dv = fold(np.einsum("bhij,bhid->bhjd", p, d_o64))

    g = gc.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)

    def tensor(name, array, dtype=None):
        extra = {} if dtype is None else {"data_type": dtype}
        return g.tensor(name=name, dim=list(array.shape), stride=[s // array.itemsize for s in array.strides], **extra)

    qt, kt, vt, ot, dot = tensor("q", q), tensor("k", k), tensor("v", v), tensor("o", o), tensor("dO", d_o)
    st = tensor("stats", stats, D.FLOAT)
    dq, dk, dv = g.sdpa_backward(q=qt, k=kt, v=vt, o=ot, dO=dot, stats=st, attn_scale=float(scale), use_causal_mask=causal)
    outs = {}
    for tensor_out, expected in ((dq, expected_dq), (dk, expected_dk), (dv, expected_dv)):
        tensor_out.set_output(True).set_data_type(D.HALF)
        outs[tensor_out] = expected
    g.build([gc.heur_mode.A])
    feeds = {qt: q, kt: k, vt: v, ot: o, dot: d_o, st: stats}
    buffers = {tensor_out: read_output(tensor_out, expected.shape, np.float16) for tensor_out, expected in outs.items()}
    g.execute({**feeds, **buffers})
    for name, tensor_out in (("dQ", dq), ("dK", dk), ("dV", dv)):
        error = np.max(np.abs(buffers[tensor_out] - outs[tensor_out]) / (1 + np.abs(outs[tensor_out])))
        assert error <= 2e-2, (seed, name, causal, float(error))


@needs_lib
def test_random_attention_gradients_match_numpy():
    for seed in range(30):
        run_sdpa_backward(seed)


def norm_statistics(kind, x, eps):
    """(x_hat, mean, inv_var) of a layer, rms, batch or instance norm over
    float64 NCHW ``x``: layer and rms norms over each sample, batchnorm
    over each channel, instancenorm over each channel of each sample."""
    axes = {"batchnorm": (0, 2, 3), "instancenorm": (2, 3)}.get(kind, (1, 2, 3))
    mean = np.zeros_like(x.mean(axes, keepdims=True)) if kind == "rmsnorm" else x.mean(axes, keepdims=True)
    inv_var = 1 / np.sqrt(((x - mean) ** 2).mean(axes, keepdims=True) + eps)
    return (x - mean) * inv_var, mean, inv_var, axes


def run_norm_training(seed):
    """Training forward and backward of layernorm, rmsnorm, batchnorm and
    instancenorm (saved statistics, running statistics, DX, DScale, DBias)
    against numpy."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    kind = rng.choice(["layernorm", "rmsnorm", "batchnorm", "instancenorm"])
    shape = [rng.choice([2, 3, 4]), rng.choice([1, 2, 3]), rng.choice([1, 2, 4]), rng.choice([2, 5])]
    channels_last = rng.random() < 0.4
    x = layout(data.standard_normal(shape).astype(np.float32), channels_last)
    dy = layout(data.standard_normal(shape).astype(np.float32), channels_last)
    param_shape = [1, shape[1], 1, 1] if kind in ("batchnorm", "instancenorm") else [1] + shape[1:]
    scale = layout(data.standard_normal(param_shape).astype(np.float32), channels_last)
    bias = layout(data.standard_normal(param_shape).astype(np.float32), channels_last)
    eps, momentum = rng.choice([1e-5, 1e-2]), 0.1
    x64, dy64 = x.astype(np.float64), dy.astype(np.float64)
    x_hat, mean, inv_var, axes = norm_statistics(kind, x64, eps)
    expected_y = x_hat * scale + bias
    d_xhat = dy64 * scale
    count = np.prod([shape[a] for a in axes])
    centred = np.zeros_like(x_hat) if kind == "rmsnorm" else d_xhat.mean(axes, keepdims=True)
    expected_dx = inv_var * (d_xhat - centred - x_hat * (d_xhat * x_hat).mean(axes, keepdims=True))
    param_axes = tuple(a for a in range(4) if param_shape[a] == 1)
    expected_dscale = (dy64 * x_hat).sum(param_axes, keepdims=True)
    expected_dbias = dy64.sum(param_axes, keepdims=True)

    g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)

    def tensor(name, array):
        return g.tensor(name=name, dim=list(array.shape), stride=[s // 4 for s in array.strides])

    def scalar(name):
        return g.tensor(name=name, dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], is_pass_by_value=True)

    xt, dyt, st, bt, et = tensor("x", x), tensor("dy", dy), tensor("scale", scale), tensor("bias", bias), scalar("epsilon")
    feeds = {xt: x, dyt: dy, st: scale, bt: bias, et: np.full((1, 1, 1, 1), eps, np.float32)}
    expected = {}
    if kind == "batchnorm":
        running_mean = data.standard_normal([1, shape[1], 1, 1]).astype(np.float32)
        running_var = np.abs(data.standard_normal([1, shape[1], 1, 1])).astype(np.float32)
        rmt, rvt, mt = tensor("running_mean", running_mean), tensor("running_var", running_var), scalar("momentum")
        feeds.update({rmt: running_mean, rvt: running_var, mt: np.full((1, 1, 1, 1), momentum, np.float32)})
        y, saved_mean, saved_inv_var, next_mean, next_var = g.batchnorm(
            input=xt, scale=st, bias=bt, in_running_mean=rmt, in_running_var=rvt, epsilon=et, momentum=mt
        )
        unbiased = ((x64 - mean) ** 2).sum(axes, keepdims=True) / (count - 1)  # count >= 2: N >= 2
        expected[next_mean] = (1 - momentum) * running_mean + momentum * mean
        expected[next_var] = (1 - momentum) * running_var + momentum * unbiased
        dx, dscale, dbias = g.batchnorm_backward(grad=dyt, input=xt, scale=st, mean=saved_mean, inv_variance=saved_inv_var)
    elif kind in ("layernorm", "instancenorm"):
        forward, backward = getattr(g, kind), getattr(g, kind + "_backward")
        y, saved_mean, saved_inv_var = forward(norm_forward_phase=gc.norm_forward_phase.TRAINING, input=xt, scale=st, bias=bt, epsilon=et)
        dx, dscale, dbias = backward(grad=dyt, input=xt, scale=st, mean=saved_mean, inv_variance=saved_inv_var)
    else:
        y, saved_inv_var = g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.TRAINING, input=xt, scale=st, bias=bt, epsilon=et)
        saved_mean = None
        dx, dscale, dbias = g.rmsnorm_backward(grad=dyt, input=xt, scale=st, inv_variance=saved_inv_var, has_dbias=True)
    expected.update({y: expected_y, saved_inv_var: inv_var, dx: expected_dx, dscale: expected_dscale, dbias: expected_dbias})
    if saved_mean is not None:
        expected[saved_mean] = mean
    for out in expected:
        out.set_output(True).set_data_type(D.FLOAT)
    g.build([gc.heur_mode.A])
    buffers = {out: read_output(out, value.shape) for out, value in expected.items()}
    g.execute({**feeds, **buffers})
    names = {id(out): out.name for out in expected}
    for out, value in expected.items():
        error = np.max(np.abs(buffers[out] - value) / (1 + np.abs(value)))
        assert error <= 1e-4, (seed, kind, names[id(out)], float(error))
    return kind


@needs_lib
def test_random_norm_training_matches_numpy():
    kinds = {run_norm_training(seed) for seed in range(60)}
    assert kinds == {"layernorm", "rmsnorm", "batchnorm", "instancenorm"}, kinds


REDUCTION_MODES = {
    "ADD": lambda a, axes: a.sum(axes, keepdims=True),
    "MUL": lambda a, axes: a.prod(axes, keepdims=True),
    "MIN": lambda a, axes: a.min(axes, keepdims=True),
    "MAX": lambda a, axes: a.max(axes, keepdims=True),
    "AMAX": lambda a, axes: np.abs(a).max(axes, keepdims=True),
    "AVG": lambda a, axes: a.mean(axes, keepdims=True),
    "NORM1": lambda a, axes: np.abs(a).sum(axes, keepdims=True),
    "NORM2": lambda a, axes: np.sqrt((a * a).sum(axes, keepdims=True)),
    "MUL_NO_ZEROS": lambda a, axes: np.where(a == 0, 1, a).prod(axes, keepdims=True),
}


@needs_lib
@pytest.mark.parametrize("mode", sorted(REDUCTION_MODES))
def test_every_reduction_mode_over_random_axes_matches_numpy(mode):
    for seed in range(12):
        rng = random.Random(seed)
        data = np.random.default_rng(seed)
        shape = [rng.choice([1, 2, 3, 4]) for _ in range(rng.choice([2, 3, 4]))]
        x = (data.standard_normal(shape) * 0.9).astype(np.float32)
        x[data.random(shape) < 0.15] = 0  # zeros for MUL_NO_ZEROS
        axes = tuple(sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape)))))
        expected = REDUCTION_MODES[mode](x.astype(np.float64), axes)
        g = gc.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
        xt = g.tensor(name="x", dim=shape, stride=[s // 4 for s in x.strides])
        y = g.reduction(input=xt, mode=getattr(gc.reduction_mode, mode), compute_data_type=D.FLOAT)
        y.set_dim(list(expected.shape)).set_output(True)
        g.build([gc.heur_mode.A])
        out = read_output(y, expected.shape)
        g.execute({xt: x, y: out})
        error = np.max(np.abs(out - expected) / (1 + np.abs(expected)))
        assert error <= 1e-5, (mode, seed, shape, axes, float(error))


def run_batched_matmul(seed):
    """A matmul whose batch dims broadcast (each 1 on either side or full),
    operands row- or column-major, f16 or f32, against numpy."""
    rng = random.Random(seed)
    data = np.random.default_rng(seed)
    batch = [rng.choice([1, 2, 3]) for _ in range(rng.choice([0, 1, 2]))]
    a_batch = [d if rng.random() < 0.7 else 1 for d in batch]
    b_batch = [d if rng.random() < 0.7 else 1 for d in batch]
    m, k, n = rng.choice([1, 3, 8, 17]), rng.choice([1, 4, 9]), rng.choice([1, 5, 16])
    dtype = rng.choice([np.float16, np.float32])

    def operand(shape):
        array = data.standard_normal(shape).astype(dtype)
        if rng.random() < 0.4:  # column-major matrices
            array = np.ascontiguousarray(np.swapaxes(array, -1, -2)).swapaxes(-1, -2)
        return array

    a, b = operand(a_batch + [m, k]), operand(b_batch + [k, n])
    expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
    io = D.HALF if dtype == np.float16 else D.FLOAT
    g = gc.pygraph(io_data_type=io, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    at = g.tensor(name="a", dim=list(a.shape), stride=[s // a.itemsize for s in a.strides], data_type=io)
    bt = g.tensor(name="b", dim=list(b.shape), stride=[s // b.itemsize for s in b.strides], data_type=io)
    c = g.matmul(A=at, B=bt)
    c.set_output(True).set_data_type(D.FLOAT)
    g.build([gc.heur_mode.A])
    out = read_output(c, expected.shape)
    g.execute({at: a, bt: b, c: out})
    error = np.max(np.abs(out - expected) / (1 + np.abs(expected)))
    assert error <= 1e-5, (seed, a.shape, b.shape, float(error))


@needs_lib
def test_random_batched_matmuls_match_numpy():
    for seed in range(60):
        run_batched_matmul(seed)
