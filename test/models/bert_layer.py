"""One BERT encoder layer (HF BertLayer, BERT-base: hidden 768, 12 heads,
intermediate 3072), post-LN, fp16 activations and weights with fp32
compute, tokens as rows, sequences padded to s with a per-sequence length:

    q, k, v = heads(x @ Wq + bq), heads(x @ Wk + bk), heads(x @ Wv + bv)
    a = LayerNorm(x + attention(q, k, v, keys masked past length[b]) @ Wo + bo)
    y = LayerNorm(a + gelu(a @ Wi + bi) @ Wo2 + bo2)

Separate query/key/value projections as BERT has them; exact (erf) GELU;
layernorm eps 1e-12. The padding mask is sdpa's padding mask:
seq_len_kv[b] = the sequence's length masks the keys past it, seq_len_q[b]
= s keeps every query row (HF's extended attention mask masks keys only;
padded rows still attend to the real tokens). Parameter names follow HF:
query, key, value, attention.output.dense, attention.output.LayerNorm,
intermediate.dense, output.dense, output.LayerNorm. Forward (inference)
only.
"""

import math

import numpy as np

import _transformer as tf
from harness import Model

NAME = "bert_layer"
TRAINS = False
SIZES = {
    "small": dict(b=3, s=16, hidden=64, heads=4, ffn=256),
    "check": dict(b=2, s=256, hidden=768, heads=12, ffn=3072),
    "full": dict(b=8, s=512, hidden=768, heads=12, ffn=3072),
}
EPS = 1e-12
LINEARS = {  # name -> (in, out) as multiples of (hidden, ffn)
    "query": ("h", "h"),
    "key": ("h", "h"),
    "value": ("h", "h"),
    "attention.output.dense": ("h", "h"),
    "intermediate.dense": ("h", "f"),
    "output.dense": ("f", "h"),
}
NORMS = ("attention.output.LayerNorm", "output.LayerNorm")


def _shapes(b, s, hidden, heads, ffn):
    size = {"h": hidden, "f": ffn}
    shapes = {"x": [b * s, hidden], "seq_len_q": [b, 1, 1, 1], "seq_len_kv": [b, 1, 1, 1]}
    for name, (i, o) in LINEARS.items():
        shapes[name + ".weight"] = [size[i], size[o]]
        shapes[name + ".bias"] = [1, size[o]]
    for name in NORMS:
        shapes[name + ".weight"] = shapes[name + ".bias"] = [1, hidden]
    return shapes


def build(cudnn, phase, b, s, hidden, heads, ffn):
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(b, s, hidden, heads, ffn)
    inputs = {n: g.tensor(name=n, dim=d, data_type=dt.INT32 if n.startswith("seq_len") else f16) for n, d in shapes.items()}
    head_dim = hidden // heads
    eps = g.tensor_scalar(EPS, f32, name="eps")
    inf = cudnn.norm_forward_phase.INFERENCE

    def linear(x, name):
        return tf.linear(g, x, inputs[name + ".weight"], inputs[name + ".bias"], name)

    def layernorm(x, name):
        return g.layernorm(input=x, scale=inputs[name + ".weight"], bias=inputs[name + ".bias"], epsilon=eps, norm_forward_phase=inf, name=name)[0]

    def heads_of(name):
        rows = linear(inputs["x"], name).set_data_type(f16)
        return g.transpose(tf.split_heads(g, rows, b, s, heads, head_dim, name + ".split"), permutation=[0, 2, 1, 3], name=name + ".heads")

    q, k, v = (heads_of(n) for n in ("query", "key", "value"))
    o = g.sdpa(
        q=q, k=k, v=v, attn_scale=1.0 / math.sqrt(head_dim), use_padding_mask=True,
        seq_len_q=inputs["seq_len_q"], seq_len_kv=inputs["seq_len_kv"], is_inference=True, name="attention",
    )[0]
    o.set_data_type(f16).set_stride(tf.bshd_strides(b, s, heads, head_dim))
    attn = linear(tf.merge_heads(g, o, b, s, heads, head_dim, "context"), "attention.output.dense")
    a = layernorm(g.add(attn, inputs["x"], name="attention.residual"), "attention.output.LayerNorm").set_data_type(f16)
    inter = g.gelu(linear(a, "intermediate.dense"), name="intermediate.gelu").set_data_type(f16)
    y = layernorm(g.add(linear(inter, "output.dense"), a, name="output.residual"), "output.LayerNorm")
    y.set_output(True).set_name("y").set_data_type(f16)
    return Model(graph=g, inputs=inputs, outputs={"y": y})


def make_inputs(phase, rng, b, s, hidden, heads, ffn):
    """Lengths from s/4 to s, the first sequence unpadded."""
    lengths = rng.integers(max(1, s // 4), s + 1, size=b)
    lengths[0] = s
    return {"seq_len_q": np.full((b, 1, 1, 1), s), "seq_len_kv": lengths.reshape(b, 1, 1, 1)}


def reference(phase, feeds, b, s, hidden, heads, ffn):
    f = feeds
    head_dim = hidden // heads

    def linear(x, name):
        return x @ f[name + ".weight"] + f[name + ".bias"]

    def layernorm(x, name):
        return tf.layernorm(x, f[name + ".weight"], f[name + ".bias"], EPS)[0]

    q, k, v = (tf.split_rows(linear(f["x"], n), b, s, heads, head_dim) for n in ("query", "key", "value"))
    o, _ = tf.attention(q, k, v, 1.0 / math.sqrt(head_dim), kv_len=f["seq_len_kv"].reshape(b))
    a = layernorm(f["x"] + linear(tf.merge_rows(o), "attention.output.dense"), "attention.output.LayerNorm")
    y = layernorm(a + linear(tf.gelu_erf(linear(a, "intermediate.dense")), "output.dense"), "output.LayerNorm")
    return {"y": y}
