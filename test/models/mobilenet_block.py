"""MobileNetV2 inverted residual block (stride 1, in = out channels, so with
the residual), inference, fp16 channels-last:

    h = relu6(bn1(conv1x1_expand(x)))          c -> c * expand
    h = relu6(bn2(depthwise_conv3x3(h)))       groups = channels: weight [C, 1, 3, 3]
    y = bn3(conv1x1_project(h)) + x            c * expand -> c

relu6 is relu with upper_clip 6. The depthwise convolution is a conv_fprop
whose filter has one input channel per output channel (the dialect takes the
group count from image channels / filter dim 1, as cuDNN's grouped
convolution descriptors do). The full size is MobileNetV2's first residual
block (56x56, 24 channels, expansion 6) at batch 32.
"""

import numpy as np

import _nn_ref as nn
from harness import Model

NAME = "mobilenet_block"
TRAINS = False
SIZES = {
    "small": dict(n=2, c=4, expand=6, h=5, w=5),
    "full": dict(n=32, c=24, expand=6, h=56, w=56),
}

# (conv, batchnorm, kernel extent, padding, relu6 after the norm)
LAYERS = (("expand", "bn1", 1, 0, True), ("depthwise", "bn2", 3, 1, True), ("project", "bn3", 1, 0, False))


def _dims(layer, c, expand):
    hid = c * expand
    weight = {"expand": [hid, c, 1, 1], "depthwise": [hid, 1, 3, 3], "project": [c, hid, 1, 1]}[layer]
    return weight, [1, weight[0], 1, 1]


def build(cudnn, phase, n, c, expand, h, w):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase (TRAINS is False)")
    dt = cudnn.data_type
    g = cudnn.pygraph(name=NAME, io_data_type=dt.HALF, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    act = [n, c, h, w]
    inputs = {}

    def tensor(name, dims, dtype, stride=None):
        inputs[name] = g.tensor(name=name, dim=dims, stride=stride, data_type=dtype)
        return inputs[name]

    x = tensor("x", act, dt.HALF, nn.nhwc_strides(act))
    h_ = x
    for conv, bn, k, pad, relu6 in LAYERS:
        wd, sd = _dims(conv, c, expand)
        weight = tensor(conv + ".weight", wd, dt.HALF, nn.nhwc_strides(wd))
        y = g.conv_fprop(h_, weight, padding=[pad, pad], stride=[1, 1], dilation=[1, 1], name=conv)
        stats = [tensor(bn + "." + p, sd, dt.FLOAT) for p in ("mean", "inv_variance", "weight", "bias")]
        h_ = g.batchnorm_inference(y, *stats, name=bn)
        if relu6:
            # as under autocast, the activation a conv reads is f16
            h_ = g.relu(h_, upper_clip=6.0, name=bn + ".relu6").set_data_type(dt.HALF)
    out = g.add(h_, x, name="residual")
    out.set_output(True).set_name("y").set_data_type(dt.HALF).set_stride(nn.nhwc_strides(act))
    return Model(graph=g, inputs=inputs, outputs={"y": out})


def make_inputs(phase, rng, n, c, expand, h, w):
    feeds = {"x": rng.standard_normal((n, c, h, w))}
    for conv, bn, k, _, relu6 in LAYERS:
        wd, sd = _dims(conv, c, expand)
        feeds[conv + ".weight"] = nn.fan_in_normal(rng, wd, wd[1] * k * k)
        feeds[bn + ".mean"] = 0.1 * rng.standard_normal(sd)
        feeds[bn + ".inv_variance"] = 1.0 / np.sqrt(rng.uniform(0.5, 1.5, sd))
        # wide scales before a relu6 push a few percent of the values past 6
        feeds[bn + ".weight"] = rng.uniform(0.5, 3.0 if relu6 else 1.5, sd)
        feeds[bn + ".bias"] = 0.2 * rng.standard_normal(sd)
    return feeds


def reference(phase, feeds, n, c, expand, h, w):
    f = feeds
    h_ = f["x"]
    for conv, bn, k, pad, relu6 in LAYERS:
        y = nn.conv2d(h_, f[conv + ".weight"], pad)
        h_ = nn.batchnorm_inference(y, f[bn + ".mean"], f[bn + ".inv_variance"], f[bn + ".weight"], f[bn + ".bias"])
        if relu6:
            h_ = nn.to_f16(nn.relu(h_, upper=6.0))
    return {"y": h_ + f["x"]}
