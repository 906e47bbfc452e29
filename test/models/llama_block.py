"""One Llama decoder block (Llama 2 / TinyLlama style: RMSNorm, rotary
embeddings, grouped-query attention, SwiGLU MLP), bf16 activations and
weights with fp32 compute, tokens as rows ([T, hidden], T = batch * seq):

    n1 = rmsnorm(x) * attn_norm.weight
    q, k, v = heads of (n1 @ wqkv)              # one fused QKV projection
    q, k = rope(q), rope(k)                      # rotate-half pairing
    o = causal_gqa_attention(q, k, v)            # kv head j serves query heads j*g .. j*g+g-1
    h = x + o @ wo
    n2 = rmsnorm(h) * mlp_norm.weight
    y = h + (swish(n2 @ w_gate) * (n2 @ w_up)) @ w_down

"forward" is inference (sdpa with is_inference=True, no stats). "backward"
is the block's backward as one graph, as a training framework runs it from
the activations its forward saved (x, n1, qkv, o, stats, h, n2, gate, up and
both norms' inv_var) and dy: recompute swish(gate) * up and the roped q, k
from the saved qkv, then dW = activation^T @ dY and dX = dY @ W^T over
transposed views, swish_backward, rmsnorm_backward, sdpa_backward and
rope_backward, the per-head gradients concatenated back into dqkv.

The attention output o is laid out [b, s, heads, d] in memory (strides on
the [b, heads, s, d] tensor), as frontend users write it, so o -> [T, heads*d]
is a view.
"""

import math

import numpy as np

import _transformer as tf
import harness
from harness import Model

NAME = "llama_block"
TRAINS = True
SIZES = {
    "small": dict(b=2, s=16, hidden=64, heads=8, kv_heads=2, head_dim=8, ffn=96),
    "check": dict(b=1, s=256, hidden=512, heads=4, kv_heads=2, head_dim=128, ffn=1408),
    "full": dict(b=4, s=2048, hidden=2048, heads=16, kv_heads=4, head_dim=128, ffn=5632),
}
EPS = 1e-5
ROPE_THETA = 10000.0

WEIGHTS = ("attn_norm.weight", "wqkv", "wo", "mlp_norm.weight", "w_gate", "w_up", "w_down")
SAVED = ("n1", "qkv", "o", "stats", "h", "n2", "gate", "up", "attn_norm.inv_var", "mlp_norm.inv_var")


def _shapes(b, s, hidden, heads, kv_heads, head_dim, ffn):
    t, nqkv = b * s, (heads + 2 * kv_heads) * head_dim
    return {
        "x": [t, hidden],
        "attn_norm.weight": [1, hidden],
        "wqkv": [hidden, nqkv],
        "wo": [heads * head_dim, hidden],
        "mlp_norm.weight": [1, hidden],
        "w_gate": [hidden, ffn],
        "w_up": [hidden, ffn],
        "w_down": [ffn, hidden],
        "freqs": [1, 1, s, head_dim // 2],
        "n1": [t, hidden],
        "qkv": [t, nqkv],
        "o": [b, heads, s, head_dim],
        "stats": [b, heads, s, 1],
        "h": [t, hidden],
        "n2": [t, hidden],
        "gate": [t, ffn],
        "up": [t, ffn],
        "attn_norm.inv_var": [t, 1],
        "mlp_norm.inv_var": [t, 1],
        "dy": [t, hidden],
    }


# =============================================================================
# Graph
# =============================================================================


def build(cudnn, phase, b, s, hidden, heads, kv_heads, head_dim, ffn):
    dt = cudnn.data_type
    bf16, f32 = dt.BFLOAT16, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=bf16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(b, s, hidden, heads, kv_heads, head_dim, ffn)
    t_rows = b * s
    inputs, outputs = {}, {}

    def tensor(name, dtype=bf16, stride=None):
        inputs[name] = g.tensor(name=name, dim=shapes[name], stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, t, dtype=bf16):
        outputs[name] = t.set_output(True).set_name(name).set_data_type(dtype)

    def T(t):
        return tf.transposed(g, t)

    x = tensor("x")
    w = {n: tensor(n) for n in WEIGHTS}
    freqs = tensor("freqs", f32)
    eps = g.tensor_scalar(EPS, f32, name="eps")
    scale = 1.0 / math.sqrt(head_dim)
    inf = cudnn.norm_forward_phase.INFERENCE

    def qkv_heads(qkv):
        split = tf.split_heads(g, qkv, b, s, heads + 2 * kv_heads, head_dim, "qkv.split")
        q = tf.heads(g, split, 0, heads, "q")
        k = tf.heads(g, split, heads, kv_heads, "k")
        v = tf.heads(g, split, heads + kv_heads, kv_heads, "v")
        qr = g.rope(input=q, freqs=freqs, name="q.rope").set_data_type(bf16)
        kr = g.rope(input=k, freqs=freqs, name="k.rope").set_data_type(bf16)
        return qr, kr, v

    if phase == "forward":
        n1, _ = g.rmsnorm(input=x, scale=w["attn_norm.weight"], epsilon=eps, norm_forward_phase=inf, name="attn_norm")
        n1.set_data_type(bf16)
        qkv = g.matmul(n1, w["wqkv"], name="qkv_proj").set_data_type(bf16)
        q, k, v = qkv_heads(qkv)
        o, _ = g.sdpa(q=q, k=k, v=v, attn_scale=scale, use_causal_mask=True, is_inference=True, name="attention")
        o.set_data_type(bf16).set_stride(tf.bshd_strides(b, s, heads, head_dim))
        attn = tf.merge_heads(g, o, b, s, heads, head_dim, "o.rows")
        h = g.add(g.matmul(attn, w["wo"], name="o_proj"), x, name="attn_residual")
        n2, _ = g.rmsnorm(input=h, scale=w["mlp_norm.weight"], epsilon=eps, norm_forward_phase=inf, name="mlp_norm")
        n2.set_data_type(bf16)
        gate = g.matmul(n2, w["w_gate"], name="gate_proj")
        up = g.matmul(n2, w["w_up"], name="up_proj")
        act = g.mul(g.swish(gate, name="silu"), up, name="swiglu").set_data_type(bf16)
        y = g.add(g.matmul(act, w["w_down"], name="down_proj"), h, name="mlp_residual")
        output("y", y)
        return Model(graph=g, inputs=inputs, outputs=outputs)

    # ---- backward ---------------------------------------------------------
    sv = {n: tensor(n, f32 if n in ("stats", "attn_norm.inv_var", "mlp_norm.inv_var") else bf16) for n in SAVED if n != "o"}
    sv["o"] = tensor("o", bf16, tf.bshd_strides(b, s, heads, head_dim))
    dy = tensor("dy")

    # y = h + act @ w_down, act = swish(gate) * up
    act = g.mul(g.swish(sv["gate"], name="silu"), sv["up"], name="swiglu").set_data_type(bf16)
    output("w_down.grad", g.matmul(T(act), dy, name="w_down.wgrad"))
    d_act = g.matmul(dy, T(w["w_down"]), name="down_proj.dgrad")
    d_up = g.mul(d_act, g.swish(sv["gate"], name="silu.recompute"), name="up.grad").set_data_type(bf16)
    d_gate = g.swish_backward(g.mul(d_act, sv["up"], name="silu.grad_in"), sv["gate"], name="silu.backward").set_data_type(bf16)
    output("w_gate.grad", g.matmul(T(sv["n2"]), d_gate, name="w_gate.wgrad"))
    output("w_up.grad", g.matmul(T(sv["n2"]), d_up, name="w_up.wgrad"))
    d_n2 = g.add(g.matmul(d_gate, T(w["w_gate"]), name="gate_proj.dgrad"), g.matmul(d_up, T(w["w_up"]), name="up_proj.dgrad"), name="n2.grad")
    d_h_norm, d_w2, _ = g.rmsnorm_backward(d_n2, sv["h"], w["mlp_norm.weight"], sv["mlp_norm.inv_var"], has_dbias=False, name="mlp_norm.backward")
    output("mlp_norm.weight.grad", d_w2)
    d_h = g.add(d_h_norm, dy, name="h.grad").set_data_type(bf16)

    # h = x + attn @ wo, attn = o viewed as [T, heads * d]
    attn = tf.merge_heads(g, sv["o"], b, s, heads, head_dim, "o.rows")
    output("wo.grad", g.matmul(T(attn), d_h, name="wo.wgrad"))
    d_attn = g.matmul(d_h, T(w["wo"]), name="o_proj.dgrad").set_data_type(bf16)
    d_o = g.transpose(g.reshape(d_attn, out_dims=[b, s, heads, head_dim], name="o.grad.split"), permutation=[0, 2, 1, 3], name="o.grad")

    q, k, v = qkv_heads(sv["qkv"])
    dq, dk, dv = g.sdpa_backward(q, k, v, sv["o"], d_o, sv["stats"], attn_scale=scale, use_causal_mask=True, name="attention.backward")
    for t in (dq, dk, dv):
        t.set_data_type(bf16)
    dq = g.rope_backward(dY=dq, freqs=freqs, name="q.rope.backward").set_data_type(bf16)
    dk = g.rope_backward(dY=dk, freqs=freqs, name="k.rope.backward").set_data_type(bf16)
    parts = [g.transpose(t, permutation=[0, 2, 1, 3], name=n) for t, n in ((dq, "dq.bshd"), (dk, "dk.bshd"), (dv, "dv.bshd"))]
    d_qkv = g.reshape(g.concatenate(inputs=parts, axis=2, name="qkv.grad.heads"), out_dims=[t_rows, shapes["qkv"][1]], name="qkv.grad")
    output("wqkv.grad", g.matmul(T(sv["n1"]), d_qkv, name="wqkv.wgrad"))
    d_n1 = g.matmul(d_qkv, T(w["wqkv"]), name="qkv_proj.dgrad")
    d_x_norm, d_w1, _ = g.rmsnorm_backward(d_n1, x, w["attn_norm.weight"], sv["attn_norm.inv_var"], has_dbias=False, name="attn_norm.backward")
    output("attn_norm.weight.grad", d_w1)
    output("x.grad", g.add(d_x_norm, d_h, name="x.grad.sum"))
    return Model(graph=g, inputs=inputs, outputs=outputs)


# =============================================================================
# Inputs and numpy reference (float64, from the model definition)
# =============================================================================


def _forward(f, b, s, hidden, heads, kv_heads, head_dim, ffn, rnd=lambda a: a):
    """The block's forward; ``rnd`` rounds what the forward materializes in
    bf16 (identity for the reference, bf16 rounding when making saved
    activations)."""
    a = {}
    a["n1"], a["attn_norm.inv_var"] = tf.rmsnorm(f["x"], f["attn_norm.weight"], EPS)
    a["n1"] = rnd(a["n1"])
    a["qkv"] = rnd(a["n1"] @ f["wqkv"])
    q, k, v = _qkv(a["qkv"], f["freqs"], b, s, heads, kv_heads, head_dim)
    o, a["stats"] = tf.attention(rnd(q), rnd(k), v, 1.0 / math.sqrt(head_dim), causal=True)
    a["o"] = rnd(o)
    a["h"] = rnd(f["x"] + tf.merge_rows(a["o"]) @ f["wo"])
    a["n2"], a["mlp_norm.inv_var"] = tf.rmsnorm(a["h"], f["mlp_norm.weight"], EPS)
    a["n2"] = rnd(a["n2"])
    a["gate"], a["up"] = rnd(a["n2"] @ f["w_gate"]), rnd(a["n2"] @ f["w_up"])
    a["y"] = a["h"] + rnd(tf.swish(a["gate"]) * a["up"]) @ f["w_down"]
    return a


def _qkv(qkv, freqs, b, s, heads, kv_heads, head_dim):
    """Roped q, k and v [b, heads, s, d] of the fused projection's rows."""
    x = tf.split_rows(qkv, b, s, heads + 2 * kv_heads, head_dim)
    q, k, v = x[:, :heads], x[:, heads : heads + kv_heads], x[:, heads + kv_heads :]
    return tf.rope(q, freqs), tf.rope(k, freqs), v


def make_inputs(phase, rng, b, s, hidden, heads, kv_heads, head_dim, ffn):
    dims = dict(b=b, s=s, hidden=hidden, heads=heads, kv_heads=kv_heads, head_dim=head_dim, ffn=ffn)
    feeds = {"freqs": tf.rope_angles(s, head_dim, ROPE_THETA)}
    if phase == "forward":
        return feeds
    shapes = _shapes(**dims)
    rnd = lambda a: harness.round_to("bfloat16", a)  # noqa: E731
    feeds["x"] = rnd(rng.standard_normal(shapes["x"]))
    for name in WEIGHTS:
        if name.endswith("norm.weight"):
            feeds[name] = rnd(1.0 + 0.1 * rng.standard_normal(shapes[name]))
        else:
            feeds[name] = rnd(rng.standard_normal(shapes[name]) / math.sqrt(shapes[name][0]))
    acts = _forward(feeds, rnd=rnd, **dims)
    feeds.update({n: acts[n] for n in SAVED})
    feeds["dy"] = rng.standard_normal(shapes["dy"])
    return feeds


def reference(phase, feeds, b, s, hidden, heads, kv_heads, head_dim, ffn):
    f = feeds
    if phase == "forward":
        return {"y": _forward(f, b, s, hidden, heads, kv_heads, head_dim, ffn)["y"]}
    out = {}
    dy = f["dy"]
    act = tf.swish(f["gate"]) * f["up"]
    out["w_down.grad"] = act.T @ dy
    d_act = dy @ f["w_down"].T
    d_up = d_act * tf.swish(f["gate"])
    d_gate = d_act * f["up"] * tf.swish_grad(f["gate"])
    out["w_gate.grad"] = f["n2"].T @ d_gate
    out["w_up.grad"] = f["n2"].T @ d_up
    d_n2 = d_gate @ f["w_gate"].T + d_up @ f["w_up"].T
    d_h, out["mlp_norm.weight.grad"] = tf.rmsnorm_backward(d_n2, f["h"], f["mlp_norm.weight"], f["mlp_norm.inv_var"])
    d_h = d_h + dy
    out["wo.grad"] = tf.merge_rows(f["o"]).T @ d_h
    d_o = tf.split_rows(d_h @ f["wo"].T, b, s, heads, head_dim)
    q, k, v = _qkv(f["qkv"], f["freqs"], b, s, heads, kv_heads, head_dim)
    dq, dk, dv = tf.attention_backward(q, k, v, f["o"], d_o, f["stats"], 1.0 / math.sqrt(head_dim), causal=True)
    dq, dk = tf.rope_backward(dq, f["freqs"]), tf.rope_backward(dk, f["freqs"])
    d_qkv = np.concatenate([tf.merge_rows(t) for t in (dq, dk, dv)], axis=1)
    out["wqkv.grad"] = f["n1"].T @ d_qkv
    d_x, out["attn_norm.weight.grad"] = tf.rmsnorm_backward(d_qkv @ f["wqkv"].T, f["x"], f["attn_norm.weight"], f["attn_norm.inv_var"])
    out["x.grad"] = d_x + d_h
    return out
