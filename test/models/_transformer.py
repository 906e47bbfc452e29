"""Pieces the transformer models share (not a model: the harness skips
``_*.py``).

Graph side: how a frontend user lays attention out (heads as views of a
projection's [T, heads * d] rows; the attention output stored [b, s, heads,
d] so it reads back as rows without a copy). Numpy side: float64 math of
the layers, written from their definitions: norms and their backwards,
rotary embeddings, GELU (erf and tanh forms), attention with GQA and its
backward from saved statistics.
"""

import math

import numpy as np

# =============================================================================
# Graph helpers
# =============================================================================


def bshd_strides(b, s, heads, d):
    """Strides of a [b, heads, s, d] tensor stored as [b, s, heads, d]."""
    return [s * heads * d, d, heads * d, 1]


def split_heads(g, rows, b, s, total_heads, head_dim, name):
    """[T, total_heads * d] rows viewed as [b, s, total_heads, d]."""
    return g.reshape(rows, out_dims=[b, s, total_heads, head_dim], name=name)


def heads(g, split, first, count, name):
    """Heads first .. first + count - 1 of a [b, s, H, d] view, as the
    [b, count, s, d] tensor attention reads (slice + transpose views)."""
    part = g.slice(split, slices=[slice(None), slice(None), slice(first, first + count)], name=name + ".heads")
    return g.transpose(part, permutation=[0, 2, 1, 3], name=name)


def merge_heads(g, o, b, s, nheads, head_dim, name):
    """[b, heads, s, d] -> [T, heads * d] rows (a view when o is stored
    [b, s, heads, d])."""
    return g.reshape(g.transpose(o, permutation=[0, 2, 1, 3], name=name + ".bshd"), out_dims=[b * s, nheads * head_dim], name=name)


def transposed(g, t):
    """The [N, M] transposed view of a 2-D tensor."""
    return g.transpose(t, permutation=[1, 0], name=t.name + "^T")


# =============================================================================
# Numpy reference math (float64)
# =============================================================================


def rmsnorm(x, w, eps):
    inv = 1.0 / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + eps)
    return x * inv * w, inv


def rmsnorm_backward(dy, x, w, inv):
    """y = x * inv * w, inv = (mean(x^2) + eps)^-1/2 given; returns (dx, dw)."""
    gx = dy * w
    dx = inv * gx - x * inv**3 * np.mean(gx * x, axis=-1, keepdims=True)
    return dx, np.sum(dy * x * inv, axis=0, keepdims=True)


def layernorm(x, w, bias, eps):
    mean = np.mean(x, axis=-1, keepdims=True)
    inv = 1.0 / np.sqrt(np.mean((x - mean) ** 2, axis=-1, keepdims=True) + eps)
    return (x - mean) * inv * w + bias, mean, inv


def layernorm_backward(dy, x, w, mean, inv):
    """y = (x - mean) * inv * w + b with mean, inv given; (dx, dw, db)."""
    xhat = (x - mean) * inv
    gx = dy * w
    dx = inv * (gx - np.mean(gx, axis=-1, keepdims=True) - xhat * np.mean(gx * xhat, axis=-1, keepdims=True))
    return dx, np.sum(dy * xhat, axis=0, keepdims=True), np.sum(dy, axis=0, keepdims=True)


def rope_angles(s, head_dim, theta=10000.0):
    """[1, 1, s, d/2]: position p times theta^(-2i/d)."""
    inv = theta ** (-np.arange(0, head_dim, 2, dtype=np.float64) / head_dim)
    return (np.arange(s, dtype=np.float64)[:, None] * inv[None, :])[None, None]


def rope(x, ang):
    """Rotate-half rotary embedding (HF Llama): pairs (i, i + d/2)."""
    half = ang.shape[-1]
    c, s = np.cos(ang), np.sin(ang)
    lo, hi = x[..., :half], x[..., half:]
    return np.concatenate([lo * c - hi * s, hi * c + lo * s], axis=-1)


def rope_backward(dy, ang):
    half = ang.shape[-1]
    c, s = np.cos(ang), np.sin(ang)
    lo, hi = dy[..., :half], dy[..., half:]
    return np.concatenate([lo * c + hi * s, hi * c - lo * s], axis=-1)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def swish(x):
    return x * sigmoid(x)


def swish_grad(x):
    sg = sigmoid(x)
    return sg + x * sg * (1.0 - sg)


_GELU_C = math.sqrt(2.0 / math.pi)
_erf = np.frompyfunc(math.erf, 1, 1)


def gelu_erf(x):
    """The exact GELU: x Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))."""
    return 0.5 * x * (1.0 + _erf(np.asarray(x) / math.sqrt(2.0)).astype(np.float64))


def gelu_tanh(x):
    """GPT-2's gelu_new: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""
    return 0.5 * x * (1.0 + np.tanh(_GELU_C * (x + 0.044715 * x**3)))


def gelu_tanh_grad(x):
    u = _GELU_C * (x + 0.044715 * x**3)
    t = np.tanh(u)
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _GELU_C * (1.0 + 3 * 0.044715 * x * x)


def split_rows(rows, b, s, total_heads, head_dim):
    """[T, H * d] -> [b, H, s, d]."""
    return rows.reshape(b, s, total_heads, head_dim).transpose(0, 2, 1, 3)


def merge_rows(x):
    """[b, H, s, d] -> [T, H * d]."""
    b, h, s, d = x.shape
    return x.transpose(0, 2, 1, 3).reshape(b * s, h * d)


def _scores(q, k, scale, causal, kv_len):
    """Scaled scores [b, hq, sq, skv] (kv heads repeated over their query
    group); masked entries are -inf: causal (top-left), keys at or past
    kv_len[b] (padding)."""
    group = q.shape[1] // k.shape[1]
    sc = scale * (q @ np.repeat(k, group, axis=1).swapaxes(-1, -2))
    sq, skv = sc.shape[-2:]
    if causal:
        sc = np.where(np.tril(np.ones((sq, skv), bool)), sc, -np.inf)
    if kv_len is not None:
        keep = np.arange(skv)[None, :] < np.asarray(kv_len).reshape(-1, 1)
        sc = np.where(keep[:, None, None, :], sc, -np.inf)
    return sc


def attention(q, k, v, scale, causal=False, kv_len=None):
    """softmax(scale q k^T + masks) v; returns (o, stats = row logsumexp)."""
    sc = _scores(q, k, scale, causal, kv_len)
    mx = sc.max(axis=-1, keepdims=True)
    p = np.exp(sc - mx)
    ssum = p.sum(axis=-1, keepdims=True)
    o = (p / ssum) @ np.repeat(v, q.shape[1] // v.shape[1], axis=1)
    return o, mx + np.log(ssum)


def attention_backward(q, k, v, o, do, stats, scale, causal=False, kv_len=None):
    """Gradients of attention from the saved o and stats (P = exp(S -
    stats)); dk and dv summed over each kv head's query group."""
    group = q.shape[1] // k.shape[1]
    p = np.exp(_scores(q, k, scale, causal, kv_len) - stats)
    dv = p.swapaxes(-1, -2) @ do
    dp = do @ np.repeat(v, group, axis=1).swapaxes(-1, -2)
    ds = p * (dp - np.sum(do * o, axis=-1, keepdims=True))
    dq = scale * (ds @ np.repeat(k, group, axis=1))
    dk = scale * (ds.swapaxes(-1, -2) @ q)
    b, hq, skv, d = dk.shape

    def fold(t):
        return t.reshape(b, hq // group, group, t.shape[2], t.shape[3]).sum(axis=2)

    return dq, fold(dk), fold(dv)


# =============================================================================
# The pre-LN encoder/decoder block (GPT-2, ViT)
# =============================================================================
#
#   h = x + proj(attention(heads(qkv(ln_1(x)))))
#   y = h + fc2(gelu(fc1(ln_2(h))))
#
# with a fused QKV projection (output channels ordered [3][heads][d], as
# GPT-2's c_attn and timm's qkv are), biases on every projection, and the
# names of PRE_LN_WEIGHTS for the parameters.

PRE_LN_WEIGHTS = ("ln_1.weight", "ln_1.bias", "qkv.weight", "qkv.bias", "proj.weight", "proj.bias", "ln_2.weight", "ln_2.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias")


def pre_ln_shapes(b, s, hidden, heads, ffn):
    t = b * s
    return {
        "x": [t, hidden],
        "ln_1.weight": [1, hidden],
        "ln_1.bias": [1, hidden],
        "qkv.weight": [hidden, 3 * hidden],
        "qkv.bias": [1, 3 * hidden],
        "proj.weight": [hidden, hidden],
        "proj.bias": [1, hidden],
        "ln_2.weight": [1, hidden],
        "ln_2.bias": [1, hidden],
        "fc1.weight": [hidden, ffn],
        "fc1.bias": [1, ffn],
        "fc2.weight": [ffn, hidden],
        "fc2.bias": [1, hidden],
        # saved by the forward for a backward
        "n1": [t, hidden],
        "ln_1.mean": [t, 1],
        "ln_1.inv_var": [t, 1],
        "qkv": [t, 3 * hidden],
        "o": [b, heads, s, hidden // heads],
        "stats": [b, heads, s, 1],
        "h": [t, hidden],
        "n2": [t, hidden],
        "ln_2.mean": [t, 1],
        "ln_2.inv_var": [t, 1],
        "fc1": [t, ffn],
        "dy": [t, hidden],
    }


def linear(g, x, w, bias, name):
    """x @ w + bias (the bias rides in the matmul's epilogue)."""
    return g.add(g.matmul(x, w, name=name), bias, name=name + ".bias")


def qkv_attention_heads(g, qkv, b, s, nheads, head_dim):
    split = split_heads(g, qkv, b, s, 3 * nheads, head_dim, "qkv.split")
    return [heads(g, split, i * nheads, nheads, n) for i, n in enumerate("qkv")]


def pre_ln_forward_graph(cudnn, g, x, w, io, b, s, hidden, heads, ffn, eps, causal, gelu):
    """The block's inference forward on graph ``g``; ``w`` maps
    PRE_LN_WEIGHTS to input tensors, ``io`` is the activation data type,
    ``gelu`` "tanh" or "erf". Returns y (f32 virtual)."""
    f32 = cudnn.data_type.FLOAT
    eps_t = g.tensor_scalar(eps, f32, name="eps")
    inf = cudnn.norm_forward_phase.INFERENCE
    head_dim = hidden // heads
    n1 = g.layernorm(input=x, scale=w["ln_1.weight"], bias=w["ln_1.bias"], epsilon=eps_t, norm_forward_phase=inf, name="ln_1")[0]
    qkv = linear(g, n1.set_data_type(io), w["qkv.weight"], w["qkv.bias"], "qkv").set_data_type(io)
    q, k, v = qkv_attention_heads(g, qkv, b, s, heads, head_dim)
    o = g.sdpa(q=q, k=k, v=v, attn_scale=1.0 / math.sqrt(head_dim), use_causal_mask=causal, is_inference=True, name="attention")[0]
    o.set_data_type(io).set_stride(bshd_strides(b, s, heads, head_dim))
    h = g.add(linear(g, merge_heads(g, o, b, s, heads, head_dim, "o.rows"), w["proj.weight"], w["proj.bias"], "proj"), x, name="attn_residual")
    n2 = g.layernorm(input=h, scale=w["ln_2.weight"], bias=w["ln_2.bias"], epsilon=eps_t, norm_forward_phase=inf, name="ln_2")[0]
    fc1 = linear(g, n2.set_data_type(io), w["fc1.weight"], w["fc1.bias"], "fc1")
    act = (g.gelu_approx_tanh(fc1, name="gelu") if gelu == "tanh" else g.gelu(fc1, name="gelu")).set_data_type(io)
    return g.add(linear(g, act, w["fc2.weight"], w["fc2.bias"], "fc2"), h, name="mlp_residual")


def pre_ln_forward(f, b, s, hidden, heads, ffn, eps, causal, gelu, rnd=lambda a: a):
    """Numpy forward of the block; returns every activation a backward saves
    plus "y". ``rnd`` rounds what the forward materializes in the io type."""
    head_dim = hidden // heads
    a = {}
    n1, a["ln_1.mean"], a["ln_1.inv_var"] = layernorm(f["x"], f["ln_1.weight"], f["ln_1.bias"], eps)
    a["n1"] = rnd(n1)
    a["qkv"] = rnd(a["n1"] @ f["qkv.weight"] + f["qkv.bias"])
    x = split_rows(a["qkv"], b, s, 3 * heads, head_dim)
    o, a["stats"] = attention(x[:, :heads], x[:, heads : 2 * heads], x[:, 2 * heads :], 1.0 / math.sqrt(head_dim), causal=causal)
    a["o"] = rnd(o)
    a["h"] = rnd(f["x"] + merge_rows(a["o"]) @ f["proj.weight"] + f["proj.bias"])
    n2, a["ln_2.mean"], a["ln_2.inv_var"] = layernorm(a["h"], f["ln_2.weight"], f["ln_2.bias"], eps)
    a["n2"] = rnd(n2)
    a["fc1"] = rnd(a["n2"] @ f["fc1.weight"] + f["fc1.bias"])
    act = gelu_tanh(a["fc1"]) if gelu == "tanh" else gelu_erf(a["fc1"])
    a["y"] = a["h"] + rnd(act) @ f["fc2.weight"] + f["fc2.bias"]
    return a
