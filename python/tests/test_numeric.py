"""Every op family on the CPU reference against numpy."""

import numpy as np
import pytest

import graph_compiler as gc
from conftest import needs_lib

pytestmark = needs_lib
F = gc.data_type.FLOAT
RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def new_graph(**kw):
    kw.setdefault("io_data_type", F)
    kw.setdefault("intermediate_data_type", F)
    kw.setdefault("compute_data_type", F)
    return gc.pygraph(**kw)


def strided_zeros(dims, strides):
    span = 1 + sum((d - 1) * st for d, st in zip(dims, strides))
    flat = np.zeros(span, np.float32)
    return np.lib.stride_tricks.as_strided(flat, dims, [st * flat.itemsize for st in strides])


def run(g, feeds, outputs):
    """Build, execute; returns the output arrays. Each is allocated with the
    strides the graph gives it (a convolution result is channels-last, as the
    frontend infers it), as a frontend program allocates from get_stride()."""
    g.build([gc.heur_mode.A])
    bufs = {t: strided_zeros(t.get_dim(), t.get_stride()) for t in outputs}
    g.execute({**feeds, **bufs})
    return [bufs[t] for t in outputs]


def test_matmul_bias_relu():
    g = new_graph()
    a, b, bias = rand(2, 8, 16), rand(2, 16, 4), rand(1, 1, 4)
    A = g.tensor_like(a, name="A")
    B = g.tensor_like(b, name="B")
    Bias = g.tensor_like(bias, name="bias")
    Y = g.relu(g.bias(g.matmul(A, B), Bias)).set_output(True)
    (y,) = run(g, {A: a, B: b, Bias: bias}, [Y])
    np.testing.assert_allclose(y, np.maximum(a @ b + bias, 0), rtol=1e-5, atol=1e-5)


def conv2d_nchw(x, w, pad, stride):
    n, c, h, wd = x.shape
    k, _, r, s = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - r) // stride + 1, (wd + 2 * pad - s) // stride + 1
    y = np.zeros((n, k, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride : i * stride + r, j * stride : j * stride + s]
            y[:, :, i, j] = np.einsum("ncrs,kcrs->nk", patch, w)
    return y


@pytest.mark.parametrize("stride", [1, 2])
def test_conv_bias_relu(stride):
    g = new_graph()
    x, w, b = rand(2, 3, 8, 8), rand(4, 3, 3, 3), rand(1, 4, 1, 1)
    X, W, Bt = g.tensor_like(x), g.tensor_like(w), g.tensor_like(b)
    conv = g.conv_fprop(X, W, padding=[1, 1], stride=[stride, stride], dilation=[1, 1])
    Y = g.relu(g.add(conv, Bt)).set_output(True)
    (y,) = run(g, {X: x, W: w, Bt: b}, [Y])
    np.testing.assert_allclose(y, np.maximum(conv2d_nchw(x, w, 1, stride) + b, 0), rtol=1e-4, atol=1e-4)


def test_layernorm_training_and_inference():
    g = new_graph()
    x, s, b = rand(4, 32, 1, 1), rand(1, 32, 1, 1), rand(1, 32, 1, 1)
    X, S, B = g.tensor_like(x), g.tensor_like(s), g.tensor_like(b)
    eps = g.tensor_scalar(1e-5, F)
    y, mean, inv_var = g.layernorm(X, S, B, eps, norm_forward_phase=gc.norm_forward_phase.TRAINING)
    for t in (y, mean, inv_var):
        t.set_output(True)
    yo, mo, ivo = run(g, {X: x, S: s, B: b}, [y, mean, inv_var])
    mu = x.mean(axis=(1, 2, 3), keepdims=True)
    var = x.var(axis=(1, 2, 3), keepdims=True)
    iv = 1 / np.sqrt(var + 1e-5)
    np.testing.assert_allclose(mo, mu, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(ivo, iv, rtol=1e-4)
    np.testing.assert_allclose(yo, (x - mu) * iv * s + b, rtol=1e-4, atol=1e-4)

    g2 = new_graph()
    X2, S2, B2 = g2.tensor_like(x), g2.tensor_like(s), g2.tensor_like(b)
    y2, m2, v2 = g2.layernorm(gc.norm_forward_phase.INFERENCE, X2, S2, B2, 1e-5)
    assert m2 is None and v2 is None
    y2.set_output(True)
    (yo2,) = run(g2, {X2: x, S2: s, B2: b}, [y2])
    np.testing.assert_allclose(yo2, (x - mu) * iv * s + b, rtol=1e-4, atol=1e-4)


def test_rmsnorm():
    g = new_graph()
    x, s = rand(3, 16, 1, 1), rand(1, 16, 1, 1)
    X, S = g.tensor_like(x), g.tensor_like(s)
    eps = g.tensor_scalar(1e-6, F)
    y, inv = g.rmsnorm(input=X, scale=S, epsilon=eps, norm_forward_phase=gc.norm_forward_phase.TRAINING)
    y.set_output(True)
    inv.set_output(True)
    yo, io = run(g, {X: x, S: s}, [y, inv])
    ref_inv = 1 / np.sqrt((x**2).mean(axis=(1, 2, 3), keepdims=True) + 1e-6)
    np.testing.assert_allclose(io, ref_inv, rtol=1e-4)
    np.testing.assert_allclose(yo, x * ref_inv * s, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dims", [(6, 16, 1, 1), (5, 1, 12)])
def test_rmsnorm_without_scale(dims):
    """scale=None (the frontend's #188): the one non-unit dim after the
    first is normalized; the stats have the input's dims with it set to 1."""
    g = new_graph()
    x = rand(*dims)
    X = g.tensor_like(x)
    eps = g.tensor_scalar(1e-5, F)
    y, inv = g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.TRAINING, input=X, scale=None, epsilon=eps)
    y.set_output(True)
    inv.set_output(True).set_data_type(F)
    axis = next((i for i in range(1, len(dims)) if dims[i] != 1), None)
    axes = (axis,) if axis is not None else tuple(range(1, len(dims)))
    assert inv.get_dim() == [1 if i in axes else d for i, d in enumerate(dims)]
    yo, io = run(g, {X: x}, [y, inv])
    ref_inv = 1 / np.sqrt((x.astype(np.float64) ** 2).mean(axis=axes, keepdims=True) + 1e-5)
    np.testing.assert_allclose(io, ref_inv, rtol=1e-5)
    np.testing.assert_allclose(yo, x * ref_inv, rtol=1e-5, atol=1e-6)


def test_rmsnorm_without_scale_inference_and_bias():
    """Inference gives (Y, None); a bias states the normalized dims as a
    scale would, so a [B, S, H] input with a [1, 1, H] bias is not
    ambiguous."""
    g = new_graph()
    x, b = rand(2, 3, 8), rand(1, 1, 8)
    X, B = g.tensor_like(x), g.tensor_like(b)
    eps = g.tensor_scalar(1e-5, F)
    y, inv = g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.INFERENCE, input=X, scale=None, bias=B, epsilon=eps)
    assert inv is None
    y.set_output(True)
    (yo,) = run(g, {X: x, B: b}, [y])
    ref = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=2, keepdims=True) + 1e-5) + b
    np.testing.assert_allclose(yo, ref, rtol=1e-5, atol=1e-6)


def test_rmsnorm_without_scale_names_and_unit_bias():
    """The outputs are named as rmsnorm's are; a bias that is 1 everywhere
    says nothing about the normalized dims, which the input's then say."""
    g = new_graph()
    x, b = rand(4, 8), rand(1, 1)
    X, B = g.tensor_like(x), g.tensor_like(b)
    eps = g.tensor_scalar(1e-5, F)
    y, inv = g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.TRAINING, input=X, scale=None, bias=B, epsilon=eps, name="rn")
    assert (y.get_name(), inv.get_name()) == ("rn::Y", "rn::INV_VARIANCE")
    y.set_output(True)
    (yo,) = run(g, {X: x, B: b}, [y])
    ref = x / np.sqrt((x.astype(np.float64) ** 2).mean(axis=1, keepdims=True) + 1e-5) + b
    np.testing.assert_allclose(yo, ref, rtol=1e-5, atol=1e-6)
    g = new_graph()
    X, B, eps = g.tensor_like(x), g.tensor_like(rand(8)), g.tensor_scalar(1e-5, F)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"bias dims \[8\] must have the input's rank 2"):
        g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.INFERENCE, input=X, scale=None, bias=B, epsilon=eps)


def test_rmsnorm_without_scale_refuses_ambiguous_dims():
    g = new_graph()
    X = g.tensor_like(rand(2, 8, 64))
    eps = g.tensor_scalar(1e-5, F)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"rmsnorm 'rn': scale=None with input dims \[2, 8, 64\] is ambiguous"):
        g.rmsnorm(norm_forward_phase=gc.norm_forward_phase.INFERENCE, input=X, scale=None, epsilon=eps, name="rn")


def _frontend_norm_program(kind, x, s, b, eps):
    """The cuDNN frontend's test_layernorm/test_rmsnorm program: scale and
    bias [1, 1, H] normalize each row of X [B, S, H] over H (the dims where
    scale is not 1), epsilon is a pass-by-value [1, 1, 1] tensor, TRAINING
    yields the statistics [B, S, 1]; then the backward graph."""
    import cudnn

    handle = cudnn.create_handle()
    graph = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=handle)
    X = graph.tensor(name="X", dim=list(x.shape), stride=[st // 4 for st in x.strides], data_type=cudnn.data_type.FLOAT)
    scale = graph.tensor(name="scale", dim=list(s.shape), stride=[st // 4 for st in s.strides], data_type=cudnn.data_type.FLOAT)
    bias = graph.tensor(name="bias", dim=list(b.shape), stride=[st // 4 for st in b.strides], data_type=cudnn.data_type.FLOAT)
    epsilon = graph.tensor(name="epsilon", dim=[1, 1, 1], stride=[1, 1, 1], is_pass_by_value=True, data_type=cudnn.data_type.FLOAT)
    phase = cudnn.norm_forward_phase.TRAINING
    if kind == "layernorm":
        Y, mean, inv_var = graph.layernorm(name="LN", norm_forward_phase=phase, input=X, scale=scale, bias=bias, epsilon=epsilon)
        stats = [mean, inv_var]
    else:
        Y, inv_var = graph.rmsnorm(name="RMS", norm_forward_phase=phase, input=X, scale=scale, bias=bias, epsilon=epsilon)
        stats = [inv_var]
    Y.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    for t in stats:
        t.set_output(True).set_data_type(cudnn.data_type.FLOAT)
        assert list(t.get_dim()) == [x.shape[0], x.shape[1], 1], t.get_dim()
    graph.validate()
    graph.build_operation_graph()
    graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    graph.check_support()
    graph.build_plans()
    y = np.empty_like(x)
    outs = [np.empty(list(t.get_dim()), np.float32) for t in stats]
    workspace = np.empty(graph.get_workspace_size(), np.uint8)
    feeds = {X: x, scale: s, bias: b, epsilon: np.full((1, 1, 1), eps, np.float32), Y: y}
    graph.execute({**feeds, **dict(zip(stats, outs))}, workspace, handle=handle)

    bwd = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=handle)
    DY = bwd.tensor(name="DY", dim=list(x.shape), stride=[st // 4 for st in x.strides], data_type=cudnn.data_type.FLOAT)
    X_b = bwd.tensor_like(X, name="X")
    scale_b = bwd.tensor_like(scale, name="scale")
    inv_b = bwd.tensor_like(inv_var, name="inv_var")
    if kind == "layernorm":
        mean_b = bwd.tensor_like(mean, name="mean")
        DX, Dscale, Dbias = bwd.layernorm_backward(name="DLN", grad=DY, input=X_b, scale=scale_b, mean=mean_b, inv_variance=inv_b)
        saved = {mean_b: outs[0], inv_b: outs[1]}
    else:
        DX, Dscale, Dbias = bwd.rmsnorm_backward(name="DRMS", grad=DY, input=X_b, scale=scale_b, inv_variance=inv_b, has_dbias=True)
        saved = {inv_b: outs[0]}
    for t in (DX, Dscale, Dbias):
        t.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    bwd.validate()
    bwd.build_operation_graph()
    bwd.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    bwd.check_support()
    bwd.build_plans()
    dy = rand(*x.shape)
    dx, ds, db = np.empty_like(x), np.empty_like(s), np.empty_like(b)
    workspace = np.empty(bwd.get_workspace_size(), np.uint8)
    bwd.execute({DY: dy, X_b: x, scale_b: s, **saved, DX: dx, Dscale: ds, Dbias: db}, workspace, handle=handle)
    cudnn.destroy_handle(handle)
    return y, outs, dy, (dx, ds, db)


@pytest.mark.parametrize("kind", ["layernorm", "rmsnorm"])
def test_frontend_norm_over_last_dim(kind):
    x, s, b = rand(2, 8, 32), rand(1, 1, 32), rand(1, 1, 32)
    eps = 1e-3
    y, stats, dy, (dx, ds, db) = _frontend_norm_program(kind, x, s, b, eps)
    x64 = x.astype(np.float64)
    mu = x64.mean(-1, keepdims=True) if kind == "layernorm" else np.zeros((2, 8, 1))
    xc = x64 - mu
    iv = 1 / np.sqrt((xc**2).mean(-1, keepdims=True) + eps)
    xhat = xc * iv
    np.testing.assert_allclose(y, xhat * s + b, rtol=1e-4, atol=1e-4)
    if kind == "layernorm":
        np.testing.assert_allclose(stats[0], mu, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(stats[-1], iv, rtol=1e-4)
    # d/dx of the row norm, summed over (batch, position) for dscale/dbias.
    g = dy * s
    ref_dx = g - xhat * (g * xhat).mean(-1, keepdims=True)
    if kind == "layernorm":
        ref_dx -= g.mean(-1, keepdims=True)
    np.testing.assert_allclose(dx, iv * ref_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(ds, (dy * xhat).sum((0, 1), keepdims=True), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(db, dy.sum((0, 1), keepdims=True), rtol=1e-4, atol=1e-4)


def test_batchnorm_inference():
    g = new_graph()
    x = rand(2, 4, 3, 3)
    m, iv, s, b = rand(1, 4, 1, 1), np.abs(rand(1, 4, 1, 1)) + 0.5, rand(1, 4, 1, 1), rand(1, 4, 1, 1)
    ts = [g.tensor_like(a) for a in (x, m, iv, s, b)]
    Y = g.batchnorm_inference(*ts).set_output(True)
    (y,) = run(g, dict(zip(ts, (x, m, iv, s, b))), [Y])
    np.testing.assert_allclose(y, (x - m) * iv * s + b, rtol=1e-5, atol=1e-5)


def test_sdpa_causal_f16():
    g = gc.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    b, h, s, d = 1, 2, 8, 16
    q, k, v = (rand(b, h, s, d, dtype=np.float16) for _ in range(3))
    Q, K, V = (g.tensor_like(a) for a in (q, k, v))
    scale = 1.0 / np.sqrt(d)
    o, stats = g.sdpa(Q, K, V, attn_scale=scale, use_causal_mask=True, generate_stats=True)
    o.set_output(True)
    stats.set_output(True)
    g.build([gc.heur_mode.A])
    out = np.zeros((b, h, s, d), np.float16)
    st = np.zeros((b, h, s, 1), np.float32)
    g.execute({Q: q, K: k, V: v, o: out, stats: st})
    sc = (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2)) * scale
    sc = np.where(np.tril(np.ones((s, s), bool)), sc, -np.inf)
    mx = sc.max(-1, keepdims=True)
    p = np.exp(sc - mx)
    lse = mx + np.log(p.sum(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.astype(np.float64), ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(st, lse, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize(
    "mode,fn",
    [
        ("ADD", lambda x, ax: x.sum(ax, keepdims=True)),
        ("MAX", lambda x, ax: x.max(ax, keepdims=True)),
        ("MIN", lambda x, ax: x.min(ax, keepdims=True)),
        ("AMAX", lambda x, ax: np.abs(x).max(ax, keepdims=True)),
        ("MUL", lambda x, ax: x.prod(ax, keepdims=True)),
        ("AVG", lambda x, ax: x.mean(ax, keepdims=True)),
        ("NORM2", lambda x, ax: np.sqrt((x**2).sum(ax, keepdims=True))),
    ],
)
def test_reduction(mode, fn):
    g = new_graph()
    x = rand(4, 6)
    X = g.tensor_like(x)
    Y = g.reduction(X, mode=getattr(gc.reduction_mode, mode)).set_dim([4, 1]).set_output(True)
    (y,) = run(g, {X: x}, [Y])
    np.testing.assert_allclose(y, fn(x.astype(np.float64), 1), rtol=1e-4, atol=1e-5)


def test_slice_transpose_concat():
    g = new_graph()
    a, c = rand(4, 8), rand(4, 3)
    A, C = g.tensor_like(a), g.tensor_like(c)
    S = g.slice(A, slices=[slice(1, 3), slice(0, 8, 2)]).set_output(True)
    T = g.transpose(A, permutation=[1, 0]).set_output(True)
    K = g.concatenate([A, C], axis=1).set_output(True)
    s, t, k = run(g, {A: a, C: c}, [S, T, K])
    np.testing.assert_array_equal(s, a[1:3, 0:8:2])
    np.testing.assert_array_equal(t, a.T)
    np.testing.assert_array_equal(k, np.concatenate([a, c], axis=1))


def _erf(x):
    import math

    return np.vectorize(math.erf)(x)


UNARY = {
    "abs": np.abs,
    "ceil": np.ceil,
    "cos": np.cos,
    "exp": np.exp,
    "floor": np.floor,
    "neg": np.negative,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "sin": np.sin,
    "tanh": np.tanh,
    "erf": _erf,
    "identity": lambda x: x,
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / np.sqrt(2))),
    "softplus": lambda x: np.log1p(np.exp(x)),
}
BINARY = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "max": np.maximum,
    "min": np.minimum,
    "add_square": lambda a, b: a + b * b,
}


@pytest.mark.parametrize("mode", sorted(UNARY))
def test_pointwise_unary(mode):
    g = new_graph()
    x = rand(3, 5)
    X = g.tensor_like(x)
    Y = getattr(g, mode)(X).set_output(True)
    (y,) = run(g, {X: x}, [Y])
    np.testing.assert_allclose(y, UNARY[mode](x.astype(np.float64)), rtol=1e-4, atol=1e-5)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _gelu_tanh_inner(x):
    return np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)


# The backward modes take the loss and the forward input (cuDNN's pointwise
# *_BWD modes): dx = dy * f'(x).
GRADIENTS = {
    "relu_backward": lambda dy, x: dy * (x > 0),
    "sigmoid_backward": lambda dy, x: dy * _sigmoid(x) * (1 - _sigmoid(x)),
    "tanh_backward": lambda dy, x: dy * (1 - np.tanh(x) ** 2),
    "gelu_backward": lambda dy, x: dy * (0.5 * (1 + _erf(x / np.sqrt(2))) + x * np.exp(-x * x / 2) / np.sqrt(2 * np.pi)),
    "gelu_approx_tanh_backward": lambda dy, x: dy
    * (
        0.5 * (1 + np.tanh(_gelu_tanh_inner(x)))
        + 0.5 * x * (1 - np.tanh(_gelu_tanh_inner(x)) ** 2) * np.sqrt(2 / np.pi) * (1 + 3 * 0.044715 * x * x)
    ),
    "softplus_backward": lambda dy, x: dy * _sigmoid(x),
    "swish_backward": lambda dy, x: dy * (_sigmoid(x) + x * _sigmoid(x) * (1 - _sigmoid(x))),
    "elu_backward": lambda dy, x: dy * np.where(x > 0, 1, np.exp(x)),
}
# Forward modes with a restricted domain or not in UNARY.
FORWARD = {
    "elu": lambda x: np.where(x > 0, x, np.exp(x) - 1),
    "swish": lambda x: x * _sigmoid(x),
    "gelu_approx_tanh": lambda x: 0.5 * x * (1 + np.tanh(_gelu_tanh_inner(x))),
    "reciprocal": lambda x: 1 / x,
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x)),
    "sqrt": lambda x: np.sqrt(np.abs(x)),
    "log": lambda x: np.log(np.abs(x)),
    "tan": np.tan,
}


@pytest.mark.parametrize("mode", sorted(GRADIENTS))
def test_pointwise_gradients_match_numpy(mode):
    data = np.random.default_rng(7)
    x = (data.standard_normal((4, 33)) * 2).astype(np.float32)
    x[0, :3] = [0.5, -0.5, 3.0]
    dy = data.standard_normal((4, 33)).astype(np.float32)
    g = new_graph()
    dyt, xt = g.tensor_like(dy), g.tensor_like(x)
    dx = getattr(g, mode)(loss=dyt, input=xt)
    dx.set_output(True)
    g.build([gc.heur_mode.A])
    out = np.full_like(x, np.nan)
    g.execute({dyt: dy, xt: x, dx: out})
    np.testing.assert_allclose(out, GRADIENTS[mode](dy.astype(np.float64), x.astype(np.float64)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", sorted(FORWARD))
def test_more_pointwise_modes_match_numpy(mode):
    data = np.random.default_rng(11)
    x = (data.standard_normal((3, 17)) * 1.5).astype(np.float32)
    if mode in ("reciprocal", "rsqrt", "sqrt", "log"):
        x = np.abs(x) + 0.25  # inside the function's domain
    if mode == "tan":
        x = np.clip(x, -1.2, 1.2)
    g = new_graph()
    xt = g.tensor_like(x)
    y = getattr(g, mode)(input=xt)
    y.set_output(True)
    g.build([gc.heur_mode.A])
    out = np.full_like(x, np.nan)
    g.execute({xt: x, y: out})
    np.testing.assert_allclose(out, FORWARD[mode](x.astype(np.float64)), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode", sorted(BINARY))
def test_pointwise_binary(mode):
    g = new_graph()
    x, r = rand(3, 5), np.abs(rand(1, 5)) + 0.5
    X, R = g.tensor_like(x), g.tensor_like(r)
    Y = getattr(g, mode)(X, R).set_output(True)
    (y,) = run(g, {X: x, R: r}, [Y])
    np.testing.assert_allclose(y, BINARY[mode](x.astype(np.float64), r), rtol=1e-4, atol=1e-5)


def test_pointwise_scalar_kwargs():
    g = new_graph()
    x = rand(4, 4) * 4
    X = g.tensor_like(x)
    r = g.relu(X, lower_clip=0.0, upper_clip=1.5).set_output(True)
    lr = g.leaky_relu(X, negative_slope=0.1).set_output(True)
    sw = g.swish(X, swish_beta=1.0).set_output(True)
    ro, lro, swo = run(g, {X: x}, [r, lr, sw])
    np.testing.assert_allclose(ro, np.clip(x, 0, 1.5), rtol=1e-6)
    np.testing.assert_allclose(lro, np.where(x > 0, x, 0.1 * x), rtol=1e-6)
    np.testing.assert_allclose(swo, x / (1 + np.exp(-x)), rtol=1e-4, atol=1e-6)


def test_pointwise_keywords_and_compare_select():
    g = new_graph()
    a, b = rand(2, 3), rand(2, 3)
    A, B = g.tensor_like(a), g.tensor_like(b)
    mask = g.cmp_gt(input=A, comparison=B)
    mask.set_data_type(gc.data_type.BOOLEAN)
    Y = g.binary_select(A, B, mask).set_output(True)
    (y,) = run(g, {A: a, B: b}, [Y])
    np.testing.assert_allclose(y, np.where(a > b, a, b))


def test_bf16_raw_bits():
    g = gc.pygraph(io_data_type=gc.data_type.BFLOAT16, intermediate_data_type=F, compute_data_type=F)
    x = rand(2, 4)
    bits = (x.view(np.uint32) >> 16).astype(np.uint16)  # truncate to bf16
    X = g.tensor(dim=[2, 4], data_type=gc.data_type.BFLOAT16)
    Y = g.abs(X).set_output(True)
    g.build()
    out = np.zeros((2, 4), np.uint16)
    g.execute({X: bits, Y: out})
    back = (out.astype(np.uint32) << 16).view(np.float32)
    np.testing.assert_allclose(back, np.abs((bits.astype(np.uint32) << 16).view(np.float32)))


def test_strided_input_buffer():
    g = new_graph()
    big = rand(4, 16)
    view = big[:, ::2]  # strides (16, 2) elements
    X = g.tensor_like(view)
    assert X.get_stride() == [16, 2]
    Y = g.neg(X).set_output(True)
    (y,) = run(g, {X: view}, [Y.set_stride([8, 1])])
    np.testing.assert_array_equal(y, -view)


def test_pointwise_output_inherits_strides_for_in_place_writes():
    # The frontend gives a pointwise result its first same-dims input's
    # strides as they are, through virtual tensors: a program that writes
    # rope's halves back into the slices it read (Y1 into x1's memory) needs
    # them, and a dense buffer of Y's dims is then too small.
    g = new_graph()
    big = rand(4, 16)
    expected = big.copy()
    x1, x2 = big[:, 0:4], big[:, 4:8]
    X1, X2 = g.tensor_like(x1), g.tensor_like(x2)
    Y1 = g.sub(g.mul(X1, X1), X2).set_output(True)
    Y2 = g.add(g.mul(X2, X2), X1).set_output(True)
    assert Y1.get_stride() == [16, 1] and Y2.get_stride() == [16, 1]
    g.build([gc.heur_mode.A])
    g.execute({X1: x1, X2: x2, Y1: x1, Y2: x2})
    e1, e2 = expected[:, 0:4], expected[:, 4:8]
    np.testing.assert_allclose(big[:, 0:4], e1 * e1 - e2, rtol=1e-6)
    np.testing.assert_allclose(big[:, 4:8], e2 * e2 + e1, rtol=1e-6)
    np.testing.assert_array_equal(big[:, 8:], expected[:, 8:])
    g2 = new_graph()
    X = g2.tensor_like(x1)
    Z = g2.neg(X).set_output(True)
    g2.build([gc.heur_mode.A])
    with pytest.raises(ValueError, match="too small"):
        g2.execute({X: x1, Z: np.zeros((4, 4), np.float32)})


def test_arrays_passed_to_builders_are_bound():
    g = new_graph()
    a, b = rand(3, 4), rand(4, 5)
    C = g.matmul(a, b).set_output(True)
    g.build()
    c = np.zeros((3, 5), np.float32)
    g.execute({C: c})
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)
