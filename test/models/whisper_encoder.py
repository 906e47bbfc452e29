"""OpenAI Whisper's audio encoder, its front and first layer (whisper/model.py
AudioEncoder, Whisper-base: 80 mel bins, 3000 frames = 30 s, d_model 512,
8 heads of 64, MLP 2048), fp16 activations and weights with fp32 compute as
the fp16 model runs, forward (inference) only:

    h = gelu(conv1(mel) + b1)                 Conv1d(80, d, 3, padding=1)
    h = gelu(conv2(h) + b2)                   Conv1d(d, d, 3, stride=2, padding=1): T -> T/2
    x = h.permute(0, 2, 1) + positional_embedding     [B, T/2, d] + [T/2, d]
    a = attn_ln(x)
    q, k, v = a @ Wq + bq, a @ Wk, a @ Wv + bv        Whisper's key has no bias
    x = x + attention(q, k, v) @ Wo + bo              unmasked, scale 1/sqrt(head_dim)
    y = x + fc2(gelu(fc1(mlp_ln(x))))                 exact (erf) GELU both places

cuDNN convolutions need at least 4-D tensors, so each Conv1d is written as a
2-D convolution with H = 1: the mel [B, 80, T] is the [B, 80, 1, T] image,
the filters [d, C, 3] are [d, C, 1, 3], padding [0, 1], stride [1, 1] /
[1, 2]. The image tensors are declared channels-last (C fastest, as
cuDNN's convolution engines take them; the mel is stored [B, T, 80]), which
makes the permute to tokens a view: the conv2/GELU output [B, d, 1, T/2]
stored channels-last is the rows [B * T/2, d] (transpose [0, 2, 3, 1] then
reshape, no copy; declared NCHW instead, the graph also runs, the permute
then a copy). The positional embedding is Whisper's fixed sinusoids
(an input [T/2, d], declared [1, T/2, d] so it broadcasts over the batch
of the [B, T/2, d] tokens view); after it the layer keeps tokens as rows.

Tensors a framework materializes in f16 carry f16: both GELU outputs (what
conv2 and the tokens read), the layernorm outputs feeding the projections,
q, k, v, the attention output (stored [b, s, heads, d] so it reads back as
rows), the MLP activation and y; the conv and matmul results before their
bias (and GELU), the residual stream (x, from the positional add on) and
the norms' affine parameters are f32. The reference rounds at the same
places. Conv filters are N(0, 1/fan_in) (make_inputs). Linear weights are
nn.Linear's [out, in] storage read as the matmul's B operand [in, out]
through transposed strides; layernorm eps 1e-5 (nn.LayerNorm's default).
Parameter names follow Whisper's state dict (conv1, conv2,
positional_embedding, blocks.0.attn_ln, attn.query / key / value / out,
mlp_ln, mlp.0, mlp.2), the "blocks.0." prefix left off.
"""

import math

import numpy as np

import _nn_ref as nn
import _transformer as tf
from harness import Model

NAME = "whisper_encoder"
TRAINS = False
SIZES = {
    "small": dict(b=2, t=32, mels=80, d=64, heads=4, ffn=256),
    "check": dict(b=2, t=1000, mels=80, d=512, heads=8, ffn=2048),
    "full": dict(b=8, t=3000, mels=80, d=512, heads=8, ffn=2048),
}
EPS = 1e-5
KERNEL = 3
CONV_PAD = [0, 1]  # (H, W): no padding along the unit H, 1 frame each side
CONV_STRIDES = {"conv1": [1, 1], "conv2": [1, 2]}
LINEARS = {  # name -> (in, out) in units of (d, ffn); bias or not
    "attn.query": ("d", "d", True),
    "attn.key": ("d", "d", False),
    "attn.value": ("d", "d", True),
    "attn.out": ("d", "d", True),
    "mlp.0": ("d", "f", True),
    "mlp.2": ("f", "d", True),
}
NORMS = ("attn_ln", "mlp_ln")


def frames_out(t):
    """conv2's output length: (t + 2 - 3) // 2 + 1 (1500 for 3000 frames)."""
    return (t + 2 * CONV_PAD[1] - KERNEL) // CONV_STRIDES["conv2"][1] + 1


def _shapes(b, t, mels, d, heads, ffn):
    t2 = frames_out(t)
    size = {"d": d, "f": ffn}
    shapes = {
        "mel": [b, mels, 1, t],
        "conv1.weight": [d, mels, 1, KERNEL],
        "conv1.bias": [1, d, 1, 1],
        "conv2.weight": [d, d, 1, KERNEL],
        "conv2.bias": [1, d, 1, 1],
        "positional_embedding": [1, t2, d],
    }
    for name, (i, o, has_bias) in LINEARS.items():
        shapes[name + ".weight"] = [size[i], size[o]]  # B of the matmul; stored [out, in]
        if has_bias:
            shapes[name + ".bias"] = [1, size[o]]
    for name in NORMS:
        shapes[name + ".weight"] = shapes[name + ".bias"] = [1, d]
    return shapes


def _linear_stride(dims):
    """Strides of a matmul B operand [in, out] stored as nn.Linear's
    [out, in] weight (row-major)."""
    return [1, dims[0]]


def build(cudnn, phase, b, t, mels, d, heads, ffn):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase")
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(b, t, mels, d, heads, ffn)
    t2 = frames_out(t)
    head_dim = d // heads
    inputs = {}
    for name, dims in shapes.items():
        stride = None
        if len(dims) == 4 and not name.endswith(".bias"):
            stride = nn.nhwc_strides(dims)  # images and filters channels-last
        elif name.endswith(".weight") and name.split(".weight")[0] in LINEARS:
            stride = _linear_stride(dims)
        # the norms' affine parameters are f32 (Whisper's LayerNorm runs in
        # float: x.float() against its weights)
        inputs[name] = g.tensor(name=name, dim=dims, stride=stride, data_type=f32 if name.split(".")[0] in NORMS else f16)

    def conv_gelu(x, name, frames):
        y = g.conv_fprop(x, inputs[name + ".weight"], padding=CONV_PAD, stride=CONV_STRIDES[name], dilation=[1, 1], name=name)
        y = g.add(y, inputs[name + ".bias"], name=name + ".bias")
        # f16 as the framework stores it, channels-last like its input
        return g.gelu(y, name=name + ".gelu").set_data_type(f16).set_stride(nn.nhwc_strides([b, d, 1, frames]))

    def linear(x, name):
        y = g.matmul(x, inputs[name + ".weight"], name=name)
        bias = inputs.get(name + ".bias")
        return y if bias is None else g.add(y, bias, name=name + ".bias")

    def layernorm(x, name):
        eps = g.tensor_scalar(EPS, f32, name=name + ".eps")
        return g.layernorm(
            input=x, scale=inputs[name + ".weight"], bias=inputs[name + ".bias"], epsilon=eps,
            norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, name=name,
        )[0].set_data_type(f16)  # what the projections read

    h = conv_gelu(inputs["mel"], "conv1", t)
    h = conv_gelu(h, "conv2", t2)
    # permute(0, 2, 1): [B, d, 1, T2] -> [B, 1, T2, d] -> [B, T2, d], views
    # of the channels-last image
    tokens = g.reshape(g.transpose(h, permutation=[0, 2, 3, 1], name="tokens.nhwc"), out_dims=[b, t2, d], name="tokens")
    x = g.add(tokens, inputs["positional_embedding"], name="positional_embedding.add")
    x = g.reshape(x, out_dims=[b * t2, d], name="x.rows")

    a = layernorm(x, "attn_ln")

    def heads_of(name):
        rows = linear(a, name).set_data_type(f16)
        return g.transpose(tf.split_heads(g, rows, b, t2, heads, head_dim, name + ".split"), permutation=[0, 2, 1, 3], name=name + ".heads")

    q, k, v = (heads_of("attn." + n) for n in ("query", "key", "value"))
    o = g.sdpa(q=q, k=k, v=v, attn_scale=1.0 / math.sqrt(head_dim), use_causal_mask=False, is_inference=True, name="attn")[0]
    o.set_data_type(f16).set_stride(tf.bshd_strides(b, t2, heads, head_dim))
    x = g.add(linear(tf.merge_heads(g, o, b, t2, heads, head_dim, "attn.context"), "attn.out"), x, name="attn.residual")

    m = layernorm(x, "mlp_ln")
    act = g.gelu(linear(m, "mlp.0"), name="mlp.1").set_data_type(f16)  # what mlp.2 reads
    y = g.add(linear(act, "mlp.2"), x, name="mlp.residual")
    y.set_output(True).set_name("y").set_data_type(f16)
    return Model(graph=g, inputs=inputs, outputs={"y": y})


def sinusoids(length, channels, max_timescale=10000):
    """Whisper's positional embedding (model.py sinusoids): [sin | cos] of
    position times timescales spaced geometrically over channels // 2."""
    log_timescale_increment = math.log(max_timescale) / (channels // 2 - 1)
    inv_timescales = np.exp(-log_timescale_increment * np.arange(channels // 2))
    scaled_time = np.arange(length)[:, None] * inv_timescales[None, :]
    return np.concatenate([np.sin(scaled_time), np.cos(scaled_time)], axis=1)


def make_inputs(phase, rng, b, t, mels, d, heads, ffn):
    """Conv filters N(0, 1/fan_in) and biases 0.1 N(0, 1), so the GELU
    activations stay O(1) (the harness's default would give the filters
    unit variance); the real sinusoids as the positional embedding. The
    rest (mel, linear weights and biases, norms) take the defaults."""
    s = _shapes(b, t, mels, d, heads, ffn)
    return {
        "conv1.weight": nn.fan_in_normal(rng, s["conv1.weight"], mels * KERNEL),
        "conv1.bias": 0.1 * rng.standard_normal(s["conv1.bias"]),
        "conv2.weight": nn.fan_in_normal(rng, s["conv2.weight"], d * KERNEL),
        "conv2.bias": 0.1 * rng.standard_normal(s["conv2.bias"]),
        "positional_embedding": sinusoids(frames_out(t), d).reshape(s["positional_embedding"]),
    }


def conv1d(x, w, bias, pad, stride):
    """PyTorch Conv1d from its definition: y[n, o, j] = bias[o] + sum over c,
    r of x_pad[n, c, j * stride + r] w[o, c, r], x [N, C, L] zero-padded by
    ``pad`` frames each side, w [O, C, K]."""
    n, c, length = x.shape
    o, _, kw = w.shape
    out = (length + 2 * pad - kw) // stride + 1
    xp = np.zeros((n, c, length + 2 * pad))
    xp[:, :, pad : pad + length] = x
    y = np.zeros((n, out, o))
    for r in range(kw):
        taps = xp[:, :, r : r + stride * (out - 1) + 1 : stride]  # [N, C, out]
        y += taps.transpose(0, 2, 1) @ w[:, :, r].T
    return y.transpose(0, 2, 1) + bias.reshape(1, o, 1)


def reference(phase, feeds, b, t, mels, d, heads, ffn):
    f = feeds
    f16 = nn.to_f16
    t2 = frames_out(t)
    head_dim = d // heads

    def linear(x, name):
        y = x @ f[name + ".weight"]
        return y + f[name + ".bias"] if name + ".bias" in f else y

    def layernorm(x, name):
        return f16(tf.layernorm(x, f[name + ".weight"], f[name + ".bias"], EPS)[0])

    mel = f["mel"][:, :, 0, :]  # [B, 80, T]
    h = f16(tf.gelu_erf(conv1d(mel, f["conv1.weight"][:, :, 0, :], f["conv1.bias"], 1, 1)))
    h = f16(tf.gelu_erf(conv1d(h, f["conv2.weight"][:, :, 0, :], f["conv2.bias"], 1, 2)))
    x = (h.transpose(0, 2, 1) + f["positional_embedding"]).reshape(b * t2, d)
    a = layernorm(x, "attn_ln")
    q, k, v = (tf.split_rows(f16(linear(a, "attn." + n)), b, t2, heads, head_dim) for n in ("query", "key", "value"))
    o, _ = tf.attention(q, k, v, 1.0 / math.sqrt(head_dim))
    x = x + linear(f16(tf.merge_rows(o)), "attn.out")
    act = f16(tf.gelu_erf(linear(layernorm(x, "mlp_ln"), "mlp.0")))
    return {"y": x + linear(act, "mlp.2")}
