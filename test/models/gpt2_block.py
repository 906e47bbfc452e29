"""One GPT-2 block (HF GPT2Block, GPT-2 small: hidden 768, 12 heads, MLP
3072), fp16 activations and weights with fp32 compute, tokens as rows:

    h = x + c_proj(causal_attention(heads(c_attn(ln_1(x)))))
    y = h + mlp.c_proj(gelu_new(mlp.c_fc(ln_2(h))))

c_attn is the fused QKV projection (channels [q | k | v], each [heads][d]);
gelu_new is the tanh approximation; layernorm eps 1e-5. Parameter names:
ln_1, qkv (c_attn), proj (attn.c_proj), ln_2, fc1 (mlp.c_fc), fc2
(mlp.c_proj).

"forward" is inference (sdpa is_inference=True). "backward" is the block's
backward as one graph from the activations the forward saved (n1, both
layernorms' mean and inv_var, qkv, o, stats, h, n2, fc1) and dy: weight
gradients as activation^T @ dY over transposed views, bias gradients as row
reductions, gelu_approx_tanh_backward, layernorm_backward, sdpa_backward,
the per-head gradients concatenated back into dqkv.
"""

import math

import numpy as np

import _transformer as tf
import harness
from harness import Model

NAME = "gpt2_block"
TRAINS = True
SIZES = {
    "small": dict(b=2, s=16, hidden=64, heads=4, ffn=256),
    "check": dict(b=1, s=256, hidden=768, heads=12, ffn=3072),
    "full": dict(b=8, s=1024, hidden=768, heads=12, ffn=3072),
}
EPS = 1e-5
SAVED = ("n1", "ln_1.mean", "ln_1.inv_var", "qkv", "o", "stats", "h", "n2", "ln_2.mean", "ln_2.inv_var", "fc1")
F32_SAVED = ("ln_1.mean", "ln_1.inv_var", "stats", "ln_2.mean", "ln_2.inv_var")
BACKWARD_WEIGHTS = tuple(n for n in tf.PRE_LN_WEIGHTS if not n.endswith(".bias"))


def build(cudnn, phase, b, s, hidden, heads, ffn):
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = tf.pre_ln_shapes(b, s, hidden, heads, ffn)
    head_dim = hidden // heads
    inputs, outputs = {}, {}

    def tensor(name, dtype=f16, stride=None):
        inputs[name] = g.tensor(name=name, dim=shapes[name], stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, t):
        outputs[name] = t.set_output(True).set_name(name).set_data_type(f16)

    x = tensor("x")
    if phase == "forward":
        w = {n: tensor(n) for n in tf.PRE_LN_WEIGHTS}
        output("y", tf.pre_ln_forward_graph(cudnn, g, x, w, f16, b, s, hidden, heads, ffn, EPS, causal=True, gelu="tanh"))
        return Model(graph=g, inputs=inputs, outputs=outputs)

    # the backward reads the weights, not the biases
    w = {n: tensor(n) for n in BACKWARD_WEIGHTS}
    sv = {n: tensor(n, f32 if n in F32_SAVED else f16) for n in SAVED if n != "o"}
    sv["o"] = tensor("o", f16, tf.bshd_strides(b, s, heads, head_dim))
    dy = tensor("dy")

    def T(t):
        return tf.transposed(g, t)

    def bias_grad(d, name):
        return g.reduction(input=d, mode=cudnn.reduction_mode.ADD, out_dims=[1, d.dim[1]], name=name)

    # y = h + gelu(fc1) @ fc2.weight + fc2.bias
    act = g.gelu_approx_tanh(sv["fc1"], name="gelu").set_data_type(f16)
    output("fc2.weight.grad", g.matmul(T(act), dy, name="fc2.wgrad"))
    output("fc2.bias.grad", bias_grad(dy, "fc2.bgrad"))
    d_fc1 = g.gelu_approx_tanh_backward(g.matmul(dy, T(w["fc2.weight"]), name="fc2.dgrad"), sv["fc1"], name="gelu.backward").set_data_type(f16)
    output("fc1.weight.grad", g.matmul(T(sv["n2"]), d_fc1, name="fc1.wgrad"))
    output("fc1.bias.grad", bias_grad(d_fc1, "fc1.bgrad"))
    d_n2 = g.matmul(d_fc1, T(w["fc1.weight"]), name="fc1.dgrad")
    d_h, d_w2, d_b2 = g.layernorm_backward(d_n2, sv["h"], w["ln_2.weight"], sv["ln_2.mean"], sv["ln_2.inv_var"], name="ln_2.backward")
    output("ln_2.weight.grad", d_w2)
    output("ln_2.bias.grad", d_b2)
    d_h = g.add(d_h, dy, name="h.grad").set_data_type(f16)

    # h = x + o_rows @ proj.weight + proj.bias
    output("proj.weight.grad", g.matmul(T(tf.merge_heads(g, sv["o"], b, s, heads, head_dim, "o.rows")), d_h, name="proj.wgrad"))
    output("proj.bias.grad", bias_grad(d_h, "proj.bgrad"))
    d_rows = g.matmul(d_h, T(w["proj.weight"]), name="proj.dgrad").set_data_type(f16)
    d_o = g.transpose(tf.split_heads(g, d_rows, b, s, heads, head_dim, "o.grad.split"), permutation=[0, 2, 1, 3], name="o.grad")
    q, k, v = tf.qkv_attention_heads(g, sv["qkv"], b, s, heads, head_dim)
    grads = g.sdpa_backward(q, k, v, sv["o"], d_o, sv["stats"], attn_scale=1.0 / math.sqrt(head_dim), use_causal_mask=True, name="attention.backward")
    parts = [g.transpose(t.set_data_type(f16), permutation=[0, 2, 1, 3], name=f"d{n}.bshd") for t, n in zip(grads, "qkv")]
    d_qkv = g.reshape(g.concatenate(inputs=parts, axis=2, name="qkv.grad.heads"), out_dims=shapes["qkv"], name="qkv.grad")
    output("qkv.weight.grad", g.matmul(T(sv["n1"]), d_qkv, name="qkv.wgrad"))
    output("qkv.bias.grad", bias_grad(d_qkv, "qkv.bgrad"))
    d_n1 = g.matmul(d_qkv, T(w["qkv.weight"]), name="qkv.dgrad")
    d_x, d_w1, d_b1 = g.layernorm_backward(d_n1, x, w["ln_1.weight"], sv["ln_1.mean"], sv["ln_1.inv_var"], name="ln_1.backward")
    output("ln_1.weight.grad", d_w1)
    output("ln_1.bias.grad", d_b1)
    output("x.grad", g.add(d_x, d_h, name="x.grad.sum"))
    return Model(graph=g, inputs=inputs, outputs=outputs)


def make_inputs(phase, rng, b, s, hidden, heads, ffn):
    if phase == "forward":
        return {}
    shapes = tf.pre_ln_shapes(b, s, hidden, heads, ffn)
    rnd = lambda a: harness.round_to("float16", a)  # noqa: E731
    feeds = {"x": rnd(rng.standard_normal(shapes["x"]))}
    for name in tf.PRE_LN_WEIGHTS:
        if name.startswith("ln_") and name.endswith(".weight"):
            feeds[name] = rnd(1.0 + 0.1 * rng.standard_normal(shapes[name]))
        elif name.endswith(".bias"):
            feeds[name] = rnd(0.1 * rng.standard_normal(shapes[name]))
        else:
            feeds[name] = rnd(rng.standard_normal(shapes[name]) / math.sqrt(shapes[name][0]))
    acts = tf.pre_ln_forward(feeds, b, s, hidden, heads, ffn, EPS, causal=True, gelu="tanh", rnd=rnd)
    feeds = {n: v for n, v in feeds.items() if not n.endswith(".bias")}
    feeds.update({n: acts[n] for n in SAVED})
    feeds["dy"] = rng.standard_normal(shapes["dy"])
    return feeds


def reference(phase, feeds, b, s, hidden, heads, ffn):
    f = feeds
    if phase == "forward":
        return {"y": tf.pre_ln_forward(f, b, s, hidden, heads, ffn, EPS, causal=True, gelu="tanh")["y"]}
    head_dim = hidden // heads
    out = {}
    dy = f["dy"]

    def rowsum(d):
        return np.sum(d, axis=0, keepdims=True)

    out["fc2.weight.grad"] = tf.gelu_tanh(f["fc1"]).T @ dy
    out["fc2.bias.grad"] = rowsum(dy)
    d_fc1 = (dy @ f["fc2.weight"].T) * tf.gelu_tanh_grad(f["fc1"])
    out["fc1.weight.grad"] = f["n2"].T @ d_fc1
    out["fc1.bias.grad"] = rowsum(d_fc1)
    d_h, out["ln_2.weight.grad"], out["ln_2.bias.grad"] = tf.layernorm_backward(d_fc1 @ f["fc1.weight"].T, f["h"], f["ln_2.weight"], f["ln_2.mean"], f["ln_2.inv_var"])
    d_h = d_h + dy
    out["proj.weight.grad"] = tf.merge_rows(f["o"]).T @ d_h
    out["proj.bias.grad"] = rowsum(d_h)
    d_o = tf.split_rows(d_h @ f["proj.weight"].T, b, s, heads, head_dim)
    x = tf.split_rows(f["qkv"], b, s, 3 * heads, head_dim)
    q, k, v = x[:, :heads], x[:, heads : 2 * heads], x[:, 2 * heads :]
    grads = tf.attention_backward(q, k, v, f["o"], d_o, f["stats"], 1.0 / math.sqrt(head_dim), causal=True)
    d_qkv = np.concatenate([tf.merge_rows(t) for t in grads], axis=1)
    out["qkv.weight.grad"] = f["n1"].T @ d_qkv
    out["qkv.bias.grad"] = rowsum(d_qkv)
    d_x, out["ln_1.weight.grad"], out["ln_1.bias.grad"] = tf.layernorm_backward(d_qkv @ f["qkv.weight"].T, f["x"], f["ln_1.weight"], f["ln_1.mean"], f["ln_1.inv_var"])
    out["x.grad"] = d_x + d_h
    return out
