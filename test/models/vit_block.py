"""One ViT encoder block (timm's Block / ViT-B/16 at 224px: 197 tokens =
196 patches + the class token, hidden 768, 12 heads, MLP 3072), pre-LN,
bf16 activations and weights with fp32 compute, tokens as rows:

    h = x + attn.proj(attention(heads(attn.qkv(norm1(x)))))
    y = h + mlp.fc2(gelu(mlp.fc1(norm2(h))))

No attention mask; exact (erf) GELU; layernorm eps 1e-6; the fused qkv
projection's channels are ordered [3][heads][d] (timm reshapes to
[B, N, 3, heads, d]). Parameter names: ln_1 (norm1), qkv, proj, ln_2
(norm2), fc1, fc2. Forward (inference) only. The odd sequence length 197 is
part of the test: no dim is a multiple of 8.
"""

import _transformer as tf
from harness import Model

NAME = "vit_block"
TRAINS = False
SIZES = {
    "small": dict(b=2, s=13, hidden=64, heads=4, ffn=256),
    "check": dict(b=2, s=197, hidden=768, heads=12, ffn=3072),
    "full": dict(b=32, s=197, hidden=768, heads=12, ffn=3072),
}
EPS = 1e-6


def build(cudnn, phase, b, s, hidden, heads, ffn):
    dt = cudnn.data_type
    bf16 = dt.BFLOAT16
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=bf16, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    shapes = tf.pre_ln_shapes(b, s, hidden, heads, ffn)
    inputs = {n: g.tensor(name=n, dim=shapes[n], data_type=bf16) for n in ("x",) + tf.PRE_LN_WEIGHTS}
    w = {n: inputs[n] for n in tf.PRE_LN_WEIGHTS}
    y = tf.pre_ln_forward_graph(cudnn, g, inputs["x"], w, bf16, b, s, hidden, heads, ffn, EPS, causal=False, gelu="erf")
    y.set_output(True).set_name("y").set_data_type(bf16)
    return Model(graph=g, inputs=inputs, outputs={"y": y})


def reference(phase, feeds, b, s, hidden, heads, ffn):
    return {"y": tf.pre_ln_forward(feeds, b, s, hidden, heads, ffn, EPS, causal=False, gelu="erf")["y"]}
