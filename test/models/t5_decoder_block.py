"""One T5 v1.1 decoder layer (HF T5Block with is_decoder=True, t5-v1_1-base:
d_model 768, 12 heads of d_kv 64, d_ff 2048), bf16 activations and weights
with fp32 compute, tokens as rows (decoder [b * s, hidden], encoder output
[b * s_enc, hidden]):

    n0 = rms(x) * layer.0.layer_norm.weight                 # T5LayerNorm: no mean, no bias
    h1 = x + o(attention(q(n0), k(n0), v(n0), scale 1, + position_bias, causal))
    n1 = rms(h1) * layer.1.layer_norm.weight
    h2 = h1 + o(attention(q(n1), k(enc), v(enc), scale 1, encoder keys past len[b] masked))
    n2 = rms(h2) * layer.2.layer_norm.weight
    y = h2 + (gelu_new(n2 @ wi_0) * (n2 @ wi_1)) @ wo       # gated-GELU, tanh form

T5 does not scale the scores by 1/sqrt(d_kv) (it folds that into the query
projection's initialization, std (d_model * d_kv)^-1/2, which make_inputs
follows). The self-attention adds the relative position bias [1, heads, s,
s] (computed once per stack from the bucketed relative_attention_bias
embedding and shared by every layer: a graph input here, made by
make_inputs from a random embedding through T5's causal bucketing) as sdpa's
bias, with the causal mask. The cross-attention has no position bias; the
encoder's padding is sdpa's padding mask (seq_len_kv[b] = the encoder
sequence's length, seq_len_q[b] = s keeps every decoder row), with s != s_enc.
No projection has a bias; layer-norm eps 1e-6. Parameter names follow HF
(layer.0.SelfAttention.q, layer.1.EncDecAttention.k, layer.2.DenseReluDense.
wi_0, ...), weights stored [in, out].

"forward" is inference (sdpa with is_inference=True). "backward" is the
layer's backward as one graph from the activations the forward saved (x,
enc, n0, q/k/v of both attentions, o of both, stats of both, h1, n1, h2,
n2, wi_0, wi_1 and the three norms' inv_var) and dy: rmsnorm_backward,
sdpa_backward with the bias (scale 1, causal; padding mask with s != s_enc),
gelu_approx_tanh_backward, dW = activation^T @ dY and dX = dY @ W^T over
transposed views; the encoder output's gradient is the sum of the cross
k/v projections' input gradients. The self-attention's sdpa_backward also
gives the position bias's gradient (dBias, [1, heads, s, s], summed over the
batch: what flows back to the relative_attention_bias embedding).
"""

import math

import numpy as np

import _transformer as tf
import harness
from harness import Model

NAME = "t5_decoder_block"
TRAINS = True
SIZES = {
    "small": dict(b=2, s=16, s_enc=12, hidden=64, heads=4, head_dim=16, ffn=96),
    "check": dict(b=2, s=128, s_enc=96, hidden=768, heads=12, head_dim=64, ffn=2048),
    "full": dict(b=8, s=512, s_enc=384, hidden=768, heads=12, head_dim=64, ffn=2048),
}
EPS = 1e-6
NUM_BUCKETS = 32
MAX_DISTANCE = 128

SA, CA, FF = "layer.0.SelfAttention", "layer.1.EncDecAttention", "layer.2.DenseReluDense"
NORMS = ("layer.0.layer_norm", "layer.1.layer_norm", "layer.2.layer_norm")
LINEARS = {  # name -> (in, out) as keys of the dims below
    SA + ".q": ("h", "i"),
    SA + ".k": ("h", "i"),
    SA + ".v": ("h", "i"),
    SA + ".o": ("i", "h"),
    CA + ".q": ("h", "i"),
    CA + ".k": ("h", "i"),
    CA + ".v": ("h", "i"),
    CA + ".o": ("i", "h"),
    FF + ".wi_0": ("h", "f"),
    FF + ".wi_1": ("h", "f"),
    FF + ".wo": ("f", "h"),
}
WEIGHTS = tuple(n + ".weight" for n in NORMS) + tuple(n + ".weight" for n in LINEARS)
# activations a training forward keeps for the backward (bf16 unless F32_SAVED)
SAVED = (
    "n0", "sa.q", "sa.k", "sa.v", "sa.o", "sa.stats", "h1",
    "n1", "ca.q", "ca.k", "ca.v", "ca.o", "ca.stats", "h2",
    "n2", "wi_0", "wi_1",
    "layer.0.inv_var", "layer.1.inv_var", "layer.2.inv_var",
)
F32_SAVED = ("sa.stats", "ca.stats", "layer.0.inv_var", "layer.1.inv_var", "layer.2.inv_var")


def _shapes(b, s, s_enc, hidden, heads, head_dim, ffn):
    t, te, inner = b * s, b * s_enc, heads * head_dim
    size = {"h": hidden, "i": inner, "f": ffn}
    shapes = {
        "x": [t, hidden],
        "encoder_hidden_states": [te, hidden],
        "position_bias": [1, heads, s, s],
        "seq_len_q": [b, 1, 1, 1],
        "seq_len_kv": [b, 1, 1, 1],
    }
    for name in NORMS:
        shapes[name + ".weight"] = [1, hidden]
    for name, (i, o) in LINEARS.items():
        shapes[name + ".weight"] = [size[i], size[o]]
    shapes.update({
        "n0": [t, hidden], "sa.q": [t, inner], "sa.k": [t, inner], "sa.v": [t, inner],
        "sa.o": [b, heads, s, head_dim], "sa.stats": [b, heads, s, 1], "h1": [t, hidden],
        "n1": [t, hidden], "ca.q": [t, inner], "ca.k": [te, inner], "ca.v": [te, inner],
        "ca.o": [b, heads, s, head_dim], "ca.stats": [b, heads, s, 1], "h2": [t, hidden],
        "n2": [t, hidden], "wi_0": [t, ffn], "wi_1": [t, ffn],
        "layer.0.inv_var": [t, 1], "layer.1.inv_var": [t, 1], "layer.2.inv_var": [t, 1],
        "dy": [t, hidden],
    })
    return shapes


# =============================================================================
# Graph
# =============================================================================


def build(cudnn, phase, b, s, s_enc, hidden, heads, head_dim, ffn):
    dt = cudnn.data_type
    bf16, f32 = dt.BFLOAT16, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=bf16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(b, s, s_enc, hidden, heads, head_dim, ffn)
    inputs, outputs = {}, {}

    def tensor(name, dtype=bf16, stride=None):
        inputs[name] = g.tensor(name=name, dim=shapes[name], stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, t, dtype=bf16):
        outputs[name] = t.set_output(True).set_name(name).set_data_type(dtype)

    def T(t):
        return tf.transposed(g, t)

    def head_view(rows, seq, name):
        """[b * seq, heads * d] rows -> [b, heads, seq, d] (views)."""
        return g.transpose(tf.split_heads(g, rows, b, seq, heads, head_dim, name + ".split"), permutation=[0, 2, 1, 3], name=name + ".heads")

    x = tensor("x")
    enc = tensor("encoder_hidden_states")
    bias = tensor("position_bias")
    seq_q = tensor("seq_len_q", dt.INT32)
    seq_kv = tensor("seq_len_kv", dt.INT32)
    w = {n: tensor(n) for n in WEIGHTS}
    eps = g.tensor_scalar(EPS, f32, name="eps")
    inf = cudnn.norm_forward_phase.INFERENCE
    self_mask = dict(bias=bias, use_causal_mask=True)
    cross_mask = dict(use_padding_mask=True, seq_len_q=seq_q, seq_len_kv=seq_kv)

    if phase == "forward":

        def rmsnorm(t, name):
            return g.rmsnorm(input=t, scale=w[name + ".weight"], epsilon=eps, norm_forward_phase=inf, name=name)[0].set_data_type(bf16)

        def proj(t, name):
            return g.matmul(t, w[name + ".weight"], name=name)

        def attention(prefix, q_rows, kv_rows, kv_seq, masks):
            q = head_view(proj(q_rows, prefix + ".q").set_data_type(bf16), s, prefix + ".q")
            k = head_view(proj(kv_rows, prefix + ".k").set_data_type(bf16), kv_seq, prefix + ".k")
            v = head_view(proj(kv_rows, prefix + ".v").set_data_type(bf16), kv_seq, prefix + ".v")
            o = g.sdpa(q=q, k=k, v=v, attn_scale=1.0, is_inference=True, name=prefix + ".sdpa", **masks)[0]
            o.set_data_type(bf16).set_stride(tf.bshd_strides(b, s, heads, head_dim))
            return proj(tf.merge_heads(g, o, b, s, heads, head_dim, prefix + ".context"), prefix + ".o")

        n0 = rmsnorm(x, NORMS[0])
        h1 = g.add(x, attention(SA, n0, n0, s, self_mask), name="layer.0.residual")
        n1 = rmsnorm(h1, NORMS[1])
        h2 = g.add(h1, attention(CA, n1, enc, s_enc, cross_mask), name="layer.1.residual")
        n2 = rmsnorm(h2, NORMS[2])
        gated = g.mul(g.gelu_approx_tanh(proj(n2, FF + ".wi_0"), name=FF + ".act"), proj(n2, FF + ".wi_1"), name=FF + ".gate").set_data_type(bf16)
        output("y", g.add(h2, proj(gated, FF + ".wo"), name="layer.2.residual"))
        return Model(graph=g, inputs=inputs, outputs=outputs)

    # ---- backward ---------------------------------------------------------
    bshd = tf.bshd_strides(b, s, heads, head_dim)
    sv = {n: tensor(n, f32 if n in F32_SAVED else bf16, bshd if n in ("sa.o", "ca.o") else None) for n in SAVED}
    dy = tensor("dy")

    def wgrad(act, d, name):
        output(name + ".weight.grad", g.matmul(T(act), d, name=name + ".wgrad"))

    def dgrad(d, name):
        return g.matmul(d, T(w[name + ".weight"]), name=name + ".dgrad")

    def norm_backward(d, x_in, name, idx):
        dx, dw, _ = g.rmsnorm_backward(d, x_in, w[name + ".weight"], sv[f"layer.{idx}.inv_var"], has_dbias=False, name=name + ".backward")
        output(name + ".weight.grad", dw)
        return dx

    def attention_backward(prefix, tag, d_h, q_in, kv_in, kv_seq, masks, d_bias=None):
        """d_h: the gradient at the residual; returns (d of the q projection's
        input, d of the k/v projections' input) as f32 virtuals. ``d_bias``:
        the caller's tensor for the bias gradient (summed over the batch)."""
        if d_bias is not None:
            masks = dict(masks, dBias=d_bias)
        o = sv[tag + ".o"]
        wgrad(tf.merge_heads(g, o, b, s, heads, head_dim, tag + ".o.rows"), d_h, prefix + ".o")
        d_rows = dgrad(d_h, prefix + ".o").set_data_type(bf16)
        d_o = head_view(d_rows, s, tag + ".o.grad")
        q, k, v = (head_view(sv[f"{tag}.{n}"], seq, f"{tag}.{n}") for n, seq in (("q", s), ("k", kv_seq), ("v", kv_seq)))
        dq, dk, dv = g.sdpa_backward(q, k, v, o, d_o, sv[tag + ".stats"], attn_scale=1.0, name=prefix + ".sdpa.backward", **masks)
        grads = {}
        for n, t, seq in (("q", dq, s), ("k", dk, kv_seq), ("v", dv, kv_seq)):
            t.set_data_type(bf16).set_stride(tf.bshd_strides(b, seq, heads, head_dim))
            grads[n] = tf.merge_heads(g, t, b, seq, heads, head_dim, f"{tag}.d{n}.rows")
            wgrad(q_in if n == "q" else kv_in, grads[n], f"{prefix}.{n}")
        d_q_in = dgrad(grads["q"], prefix + ".q")
        d_kv_in = g.add(dgrad(grads["k"], prefix + ".k"), dgrad(grads["v"], prefix + ".v"), name=tag + ".kv_in.grad")
        return d_q_in, d_kv_in

    # y = h2 + (gelu(wi_0) * wi_1) @ wo
    gated = g.mul(g.gelu_approx_tanh(sv["wi_0"], name=FF + ".act"), sv["wi_1"], name=FF + ".gate").set_data_type(bf16)
    wgrad(gated, dy, FF + ".wo")
    d_gated = dgrad(dy, FF + ".wo")
    d_wi1 = g.mul(d_gated, g.gelu_approx_tanh(sv["wi_0"], name=FF + ".act.recompute"), name=FF + ".wi_1.grad").set_data_type(bf16)
    d_wi0 = g.gelu_approx_tanh_backward(g.mul(d_gated, sv["wi_1"], name=FF + ".act.grad_in"), sv["wi_0"], name=FF + ".act.backward").set_data_type(bf16)
    wgrad(sv["n2"], d_wi0, FF + ".wi_0")
    wgrad(sv["n2"], d_wi1, FF + ".wi_1")
    d_n2 = g.add(dgrad(d_wi0, FF + ".wi_0"), dgrad(d_wi1, FF + ".wi_1"), name="n2.grad")
    d_h2 = g.add(norm_backward(d_n2, sv["h2"], NORMS[2], 2), dy, name="h2.grad").set_data_type(bf16)

    # h2 = h1 + cross_attention(n1, enc)
    d_n1, d_enc = attention_backward(CA, "ca", d_h2, sv["n1"], enc, s_enc, cross_mask)
    output("encoder_hidden_states.grad", d_enc)
    d_h1 = g.add(norm_backward(d_n1, sv["h1"], NORMS[1], 1), d_h2, name="h1.grad").set_data_type(bf16)

    # h1 = x + self_attention(n0)
    d_bias = g.tensor(name="position_bias.grad", dim=shapes["position_bias"], data_type=bf16)
    d_n0_q, d_n0_kv = attention_backward(SA, "sa", d_h1, sv["n0"], sv["n0"], s, self_mask, d_bias)
    output("position_bias.grad", d_bias)
    d_n0 = g.add(d_n0_q, d_n0_kv, name="n0.grad")
    output("x.grad", g.add(norm_backward(d_n0, x, NORMS[0], 0), d_h1, name="x.grad.sum"))
    return Model(graph=g, inputs=inputs, outputs=outputs)


# =============================================================================
# Inputs and numpy reference (float64, from the model definition)
# =============================================================================


def relative_position_bucket(rel, bidirectional=False, num_buckets=NUM_BUCKETS, max_distance=MAX_DISTANCE):
    """T5's bucketing of memory_position - query_position (HF
    T5Attention._relative_position_bucket); the decoder is unidirectional."""
    buckets = np.zeros_like(rel)
    if bidirectional:
        num_buckets //= 2
        buckets += (rel > 0) * num_buckets
        rel = np.abs(rel)
    else:
        rel = -np.minimum(rel, 0)
    max_exact = num_buckets // 2
    large = max_exact + (np.log(np.maximum(rel, 1) / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)).astype(np.int64)
    large = np.minimum(large, num_buckets - 1)
    return buckets + np.where(rel < max_exact, rel, large)


def position_bias(embedding, s):
    """[1, heads, s, s] from the [num_buckets, heads] relative_attention_bias
    embedding (HF T5Attention.compute_bias)."""
    rel = np.arange(s)[None, :] - np.arange(s)[:, None]
    return embedding[relative_position_bucket(rel)].transpose(2, 0, 1)[None]


def _scores(q, k, bias=None, causal=False, kv_len=None):
    """q k^T (T5's scale 1) + bias, masked positions -inf."""
    sc = q @ k.swapaxes(-1, -2)
    if bias is not None:
        sc = sc + bias
    sq, skv = sc.shape[-2:]
    if causal:
        sc = np.where(np.arange(skv)[None, :] <= np.arange(sq)[:, None], sc, -np.inf)
    if kv_len is not None:
        keep = np.arange(skv)[None, :] < np.asarray(kv_len).reshape(-1, 1)
        sc = np.where(keep[:, None, None, :], sc, -np.inf)
    return sc


def _attention(q, k, v, bias=None, causal=False, kv_len=None):
    """softmax(q k^T + bias + masks) v with T5's scale 1; returns (o, row
    logsumexp)."""
    sc = _scores(q, k, bias, causal, kv_len)
    mx = sc.max(axis=-1, keepdims=True)
    p = np.exp(sc - mx)
    ssum = p.sum(axis=-1, keepdims=True)
    return (p / ssum) @ v, mx + np.log(ssum)


def _attention_backward(q, k, v, o, do, stats, bias=None, causal=False, kv_len=None):
    """dq, dk, dv of _attention from the saved o and stats, and the
    gradient of a bias broadcast over the batch (dS summed over it)."""
    p = np.exp(_scores(q, k, bias, causal, kv_len) - stats)
    dv = p.swapaxes(-1, -2) @ do
    dp = do @ v.swapaxes(-1, -2)
    ds = p * (dp - np.sum(do * o, axis=-1, keepdims=True))
    return ds @ k, ds.swapaxes(-1, -2) @ q, dv, ds.sum(axis=0, keepdims=True)


def _forward(f, b, s, s_enc, hidden, heads, head_dim, ffn, rnd=lambda a: a):
    """The layer's forward; ``rnd`` rounds what it materializes in bf16
    (identity for the reference). Returns every saved activation and y."""
    a = {}
    kv_len = f["seq_len_kv"].reshape(b)

    def lin(t, name):
        return t @ f[name + ".weight"]

    def attention(prefix, tag, q_in, kv_in, kv_seq, **masks):
        a[tag + ".q"], a[tag + ".k"], a[tag + ".v"] = rnd(lin(q_in, prefix + ".q")), rnd(lin(kv_in, prefix + ".k")), rnd(lin(kv_in, prefix + ".v"))
        q = tf.split_rows(a[tag + ".q"], b, s, heads, head_dim)
        k, v = (tf.split_rows(a[f"{tag}.{n}"], b, kv_seq, heads, head_dim) for n in "kv")
        o, a[tag + ".stats"] = _attention(q, k, v, **masks)
        a[tag + ".o"] = rnd(o)
        return lin(tf.merge_rows(a[tag + ".o"]), prefix + ".o")

    n0, a["layer.0.inv_var"] = tf.rmsnorm(f["x"], f[NORMS[0] + ".weight"], EPS)
    a["n0"] = rnd(n0)
    a["h1"] = rnd(f["x"] + attention(SA, "sa", a["n0"], a["n0"], s, bias=f["position_bias"], causal=True))
    n1, a["layer.1.inv_var"] = tf.rmsnorm(a["h1"], f[NORMS[1] + ".weight"], EPS)
    a["n1"] = rnd(n1)
    a["h2"] = rnd(a["h1"] + attention(CA, "ca", a["n1"], f["encoder_hidden_states"], s_enc, kv_len=kv_len))
    n2, a["layer.2.inv_var"] = tf.rmsnorm(a["h2"], f[NORMS[2] + ".weight"], EPS)
    a["n2"] = rnd(n2)
    a["wi_0"], a["wi_1"] = rnd(lin(a["n2"], FF + ".wi_0")), rnd(lin(a["n2"], FF + ".wi_1"))
    a["y"] = a["h2"] + lin(rnd(tf.gelu_tanh(a["wi_0"]) * a["wi_1"]), FF + ".wo")
    return a


def make_inputs(phase, rng, b, s, s_enc, hidden, heads, head_dim, ffn):
    """The position bias from a random relative_attention_bias embedding;
    encoder lengths from s_enc/4 to s_enc, the first unpadded; the query
    projections at T5's initialization scale (d_model * d_kv)^-1/2, since
    the scores are not scaled."""
    dims = dict(b=b, s=s, s_enc=s_enc, hidden=hidden, heads=heads, head_dim=head_dim, ffn=ffn)
    shapes = _shapes(**dims)
    lengths = rng.integers(max(1, s_enc // 4), s_enc + 1, size=b)
    lengths[0] = s_enc
    feeds = {
        "position_bias": position_bias(rng.standard_normal((NUM_BUCKETS, heads)), s),
        "seq_len_q": np.full((b, 1, 1, 1), s),
        "seq_len_kv": lengths.reshape(b, 1, 1, 1),
    }
    for prefix in (SA, CA):
        feeds[prefix + ".q.weight"] = rng.standard_normal(shapes[prefix + ".q.weight"]) / math.sqrt(hidden * head_dim)
    if phase == "forward":
        return feeds
    rnd = lambda a: harness.round_to("bfloat16", a)  # noqa: E731
    feeds = {n: rnd(v) if n != "seq_len_q" and n != "seq_len_kv" else v for n, v in feeds.items()}
    feeds["x"] = rnd(rng.standard_normal(shapes["x"]))
    feeds["encoder_hidden_states"] = rnd(rng.standard_normal(shapes["encoder_hidden_states"]))
    for name in WEIGHTS:
        if name in feeds:
            continue
        if name.endswith("layer_norm.weight"):
            feeds[name] = rnd(1.0 + 0.1 * rng.standard_normal(shapes[name]))
        else:
            feeds[name] = rnd(rng.standard_normal(shapes[name]) / math.sqrt(shapes[name][0]))
    acts = _forward(feeds, rnd=rnd, **dims)
    feeds.update({n: acts[n] for n in SAVED})
    feeds["dy"] = rng.standard_normal(shapes["dy"])
    return feeds


def reference(phase, feeds, b, s, s_enc, hidden, heads, head_dim, ffn):
    f = feeds
    if phase == "forward":
        return {"y": _forward(f, b, s, s_enc, hidden, heads, head_dim, ffn)["y"]}
    out = {}
    dy = f["dy"]
    kv_len = f["seq_len_kv"].reshape(b)

    def W(name):
        return f[name + ".weight"]

    # y = h2 + (gelu(wi_0) * wi_1) @ wo
    out[FF + ".wo.weight.grad"] = (tf.gelu_tanh(f["wi_0"]) * f["wi_1"]).T @ dy
    d_gated = dy @ W(FF + ".wo").T
    d_wi1 = d_gated * tf.gelu_tanh(f["wi_0"])
    d_wi0 = d_gated * f["wi_1"] * tf.gelu_tanh_grad(f["wi_0"])
    out[FF + ".wi_0.weight.grad"] = f["n2"].T @ d_wi0
    out[FF + ".wi_1.weight.grad"] = f["n2"].T @ d_wi1
    d_n2 = d_wi0 @ W(FF + ".wi_0").T + d_wi1 @ W(FF + ".wi_1").T
    d_h2, out[NORMS[2] + ".weight.grad"] = tf.rmsnorm_backward(d_n2, f["h2"], W(NORMS[2]), f["layer.2.inv_var"])
    d_h2 = d_h2 + dy

    def attention_backward(prefix, tag, d_h, q_in, kv_in, kv_seq, **masks):
        o = f[tag + ".o"]
        out[prefix + ".o.weight.grad"] = tf.merge_rows(o).T @ d_h
        d_o = tf.split_rows(d_h @ W(prefix + ".o").T, b, s, heads, head_dim)
        q = tf.split_rows(f[tag + ".q"], b, s, heads, head_dim)
        k, v = (tf.split_rows(f[f"{tag}.{n}"], b, kv_seq, heads, head_dim) for n in "kv")
        dq, dk, dv, d_bias = _attention_backward(q, k, v, o, d_o, f[tag + ".stats"], **masks)
        if "bias" in masks:
            out["position_bias.grad"] = d_bias
        dq, dk, dv = (tf.merge_rows(t) for t in (dq, dk, dv))
        out[prefix + ".q.weight.grad"] = q_in.T @ dq
        out[prefix + ".k.weight.grad"] = kv_in.T @ dk
        out[prefix + ".v.weight.grad"] = kv_in.T @ dv
        return dq @ W(prefix + ".q").T, dk @ W(prefix + ".k").T + dv @ W(prefix + ".v").T

    d_n1, out["encoder_hidden_states.grad"] = attention_backward(CA, "ca", d_h2, f["n1"], f["encoder_hidden_states"], s_enc, kv_len=kv_len)
    d_h1, out[NORMS[1] + ".weight.grad"] = tf.rmsnorm_backward(d_n1, f["h1"], W(NORMS[1]), f["layer.1.inv_var"])
    d_h1 = d_h1 + d_h2
    d_q, d_kv = attention_backward(SA, "sa", d_h1, f["n0"], f["n0"], s, bias=f["position_bias"], causal=True)
    d_x, out[NORMS[0] + ".weight.grad"] = tf.rmsnorm_backward(d_q + d_kv, f["x"], W(NORMS[0]), f["layer.0.inv_var"])
    out["x.grad"] = d_x + d_h1
    return out
