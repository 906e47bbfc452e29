"""One EfficientNet-B0 MBConv block with squeeze-and-excitation (timm's
InvertedResidual with SqueezeExcite, stride 1, in = out channels, so with
the residual), inference, fp16 channels-last:

    h = silu(bn1(conv1x1_expand(x)))                 c -> e = c * expand
    h = silu(bn2(depthwise_conv_kxk(h)))             groups = e: weight [e, 1, k, k], padding k // 2
    s = mean(h, over H, W)                           [N, e, 1, 1]: a reduction (AVG)
    s = silu(conv1x1_reduce(s) + b_r)                e -> r = c / 4 (timm: se_ratio 0.25 of the block's input channels)
    s = sigmoid(conv1x1_expand_se(s) + b_e)          r -> e
    y = bn3(conv1x1_project(h * s)) + x              e -> c, no activation

SE's two 1x1 convolutions are conv_fprop on [N, C, 1, 1] images with
[1, C, 1, 1] biases, as timm's conv_reduce / conv_expand are; the gate
multiplies h by channel (a [N, e, 1, 1] broadcast). Intermediates are f32
except the activations the convs read (silu outputs, the pooled vector,
the gated h) and the depthwise stage's output h, which the pool and the
gate both read (a tensor PyTorch stores in f16 under autocast); the
reference rounds at the same places.

The full size is EfficientNet-B0's 40-channel stage at 28x28 (expansion 6:
240 channels, SE 10) at batch 32, with a 3x3 depthwise kernel (B0's
40-channel stage itself uses 5x5; k is a dim).
"""

import numpy as np

import _nn_ref as nn
from harness import Model

NAME = "efficientnet_mbconv"
TRAINS = False
SIZES = {
    "small": dict(n=2, c=8, expand=6, h=5, w=5, k=3),
    "check": dict(n=4, c=40, expand=6, h=28, w=28, k=3),
    "full": dict(n=32, c=40, expand=6, h=28, w=28, k=3),
}

EPS = 1e-5  # folded into the given inv_variance; kept for the record


def _dims(c, expand, k):
    """Weight and per-channel dims of every parameter."""
    e, r = c * expand, c // 4
    return {
        "expand.weight": [e, c, 1, 1],
        "depthwise.weight": [e, 1, k, k],
        "se.reduce.weight": [r, e, 1, 1],
        "se.reduce.bias": [1, r, 1, 1],
        "se.expand.weight": [e, r, 1, 1],
        "se.expand.bias": [1, e, 1, 1],
        "project.weight": [c, e, 1, 1],
        **{f"{bn}.{p}": [1, ch, 1, 1] for bn, ch in (("bn1", e), ("bn2", e), ("bn3", c)) for p in ("mean", "inv_variance", "weight", "bias")},
    }


def build(cudnn, phase, n, c, expand, h, w, k):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase (TRAINS is False)")
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=NAME, io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    dims = _dims(c, expand, k)
    e, r = c * expand, c // 4
    if r < 1:
        raise ValueError(f"{NAME}: c={c} leaves the squeeze-excitation no channels (c // 4)")
    act = [n, c, h, w]
    inputs = {}

    def tensor(name, dtype=f16, stride=None):
        inputs[name] = g.tensor(name=name, dim=dims.get(name, act), stride=stride, data_type=dtype)
        return inputs[name]

    def weight(name):
        return tensor(name, f16, nn.nhwc_strides(dims[name]))

    def bn(v, name):
        stats = [tensor(f"{name}.{p}", f32) for p in ("mean", "inv_variance", "weight", "bias")]
        return g.batchnorm_inference(v, *stats, name=name)

    def conv(v, name, pad=0):
        return g.conv_fprop(v, weight(name + ".weight"), padding=[pad, pad], stride=[1, 1], dilation=[1, 1], name=name)

    x = tensor("x", f16, nn.nhwc_strides(act))
    # as under autocast, what a conv reads is f16
    hid = g.swish(bn(conv(x, "expand"), "bn1"), name="bn1.silu").set_data_type(f16)
    hid = g.swish(bn(conv(hid, "depthwise", k // 2), "bn2"), name="bn2.silu").set_data_type(f16)
    # squeeze-and-excitation
    pooled = g.reduction(hid, mode=cudnn.reduction_mode.AVG, out_dims=[n, e, 1, 1], name="se.pool").set_data_type(f16)
    s = g.add(conv(pooled, "se.reduce"), tensor("se.reduce.bias"), name="se.reduce.bias_add")
    s = g.swish(s, name="se.silu").set_data_type(f16)
    s = g.add(conv(s, "se.expand"), tensor("se.expand.bias"), name="se.expand.bias_add")
    gate = g.sigmoid(s, name="se.gate")
    gated = g.mul(hid, gate, name="se.scale").set_data_type(f16)
    out = g.add(bn(conv(gated, "project"), "bn3"), x, name="residual")
    out.set_output(True).set_name("y").set_data_type(f16).set_stride(nn.nhwc_strides(act))
    return Model(graph=g, inputs=inputs, outputs={"y": out})


def make_inputs(phase, rng, n, c, expand, h, w, k):
    dims = _dims(c, expand, k)
    feeds = {"x": rng.standard_normal((n, c, h, w))}
    for name in ("expand", "depthwise", "se.reduce", "se.expand", "project"):
        wd = dims[name + ".weight"]
        feeds[name + ".weight"] = nn.fan_in_normal(rng, wd, wd[1] * wd[2] * wd[3])
    # Trained SE layers spread their gates over (0, 1). Fan-in weights on
    # the pooled means (std ~0.2) would leave every gate at 0.5 +- 0.05, where
    # a wrong squeeze-excitation barely moves y: wider weights and biases
    # spread the gates over about 0.1 .. 0.9.
    feeds["se.reduce.weight"] *= 3.0
    feeds["se.reduce.bias"] = 0.5 * rng.standard_normal(dims["se.reduce.bias"])
    feeds["se.expand.weight"] *= 2.0
    feeds["se.expand.bias"] = rng.standard_normal(dims["se.expand.bias"])
    for bn in ("bn1", "bn2", "bn3"):
        sd = dims[bn + ".mean"]
        feeds[bn + ".mean"] = 0.1 * rng.standard_normal(sd)
        feeds[bn + ".inv_variance"] = 1.0 / np.sqrt(rng.uniform(0.5, 1.5, sd) + EPS)
        feeds[bn + ".weight"] = rng.uniform(0.5, 1.5, sd)
        feeds[bn + ".bias"] = 0.2 * rng.standard_normal(sd)
    return feeds


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def reference(phase, feeds, n, c, expand, h, w, k):
    f = feeds

    def bn(v, name):
        return nn.batchnorm_inference(v, f[name + ".mean"], f[name + ".inv_variance"], f[name + ".weight"], f[name + ".bias"])

    x = f["x"]
    hid = nn.to_f16(nn.silu(bn(nn.conv2d(x, f["expand.weight"]), "bn1")))
    hid = nn.to_f16(nn.silu(bn(nn.conv2d(hid, f["depthwise.weight"], k // 2), "bn2")))
    pooled = nn.to_f16(hid.mean(axis=(2, 3), keepdims=True))
    s = nn.to_f16(nn.silu(nn.conv2d(pooled, f["se.reduce.weight"]) + f["se.reduce.bias"]))
    gate = _sigmoid(nn.conv2d(s, f["se.expand.weight"]) + f["se.expand.bias"])
    gated = nn.to_f16(hid * gate)
    return {"y": bn(nn.conv2d(gated, f["project.weight"]), "bn3") + x}
