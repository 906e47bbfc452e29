"""Diffusion U-Net residual block (Stable Diffusion's ResBlock), inference,
fp16 channels-last:

    h = conv3x3_1(silu(groupnorm1(x))) + b1 + (silu(temb) @ W_emb^T + b_emb)[:, :, None, None]
    h = conv3x3_2(silu(groupnorm2(h))) + b2
    y = skip(x) + h          skip = conv1x1 + b when in and out channels differ, else x

GroupNorm(groups) has no op of its own; it is built as a frontend user can:
reshape [N, C, H, W] -> [N, groups, C/groups * H * W] (row-major, so each
group holds C/groups whole channels), instancenorm (one statistic per
(n, group)) with unit scale and zero bias, reshape back, then the
per-channel affine as mul and add. The time embedding's Linear is a batched
matmul [N, 1, T] x [1, T, C] whose weight is the PyTorch [C, T] storage
(transposed strides), reshaped to [N, C, 1, 1] for the broadcast add.

The full size is SD's first level (64x64 latents, 320 channels, time
embedding 1280, GroupNorm(32)) at batch 8, where in = out channels; the
small size changes channels so the 1x1 skip conv runs on the CPU reference.
"""

import numpy as np

import _nn_ref as nn
from harness import Model

NAME = "unet_resblock"
TRAINS = False
SIZES = {
    "small": dict(n=2, cin=4, cout=8, h=5, w=5, temb=6, groups=2),
    "full": dict(n=8, cin=320, cout=320, h=64, w=64, temb=1280, groups=32),
}

EPS = 1e-5


def _conv_layers(cin, cout):
    """(name, weight dims, padding) of each conv."""
    layers = [("conv1", [cout, cin, 3, 3], 1), ("conv2", [cout, cout, 3, 3], 1)]
    if cin != cout:
        layers.append(("skip", [cout, cin, 1, 1], 0))
    return layers


def build(cudnn, phase, n, cin, cout, h, w, temb, groups):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase (TRAINS is False)")
    dt = cudnn.data_type
    g = cudnn.pygraph(name=NAME, io_data_type=dt.HALF, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    inputs = {}

    def tensor(name, dims, dtype, stride=None):
        inputs[name] = g.tensor(name=name, dim=dims, stride=stride, data_type=dtype)
        return inputs[name]

    x = tensor("x", [n, cin, h, w], dt.HALF, nn.nhwc_strides([n, cin, h, w]))
    t = tensor("temb", [n, 1, temb], dt.HALF)
    # nn.Linear(temb, cout).weight is [cout, temb]; as B of the matmul it is
    # [1, temb, cout] read column-major
    w_emb = tensor("emb.weight", [1, temb, cout], dt.HALF, [temb * cout, 1, temb])
    b_emb = tensor("emb.bias", [1, 1, cout], dt.HALF)
    unit = tensor("groupnorm.unit_scale", [1, groups, 1], dt.FLOAT)
    zero = tensor("groupnorm.zero_bias", [1, groups, 1], dt.FLOAT)
    eps = g.tensor_scalar(EPS, dt.FLOAT, name="eps")
    conv_w, conv_b = {}, {}
    for name, wd, _ in _conv_layers(cin, cout):
        conv_w[name] = tensor(name + ".weight", wd, dt.HALF, nn.nhwc_strides(wd))
        conv_b[name] = tensor(name + ".bias", [1, cout, 1, 1], dt.HALF)

    def group_norm(v, c, name):
        gamma = tensor(name + ".weight", [1, c, 1, 1], dt.HALF)
        beta = tensor(name + ".bias", [1, c, 1, 1], dt.HALF)
        grouped = g.reshape(v, out_dims=[n, groups, c // groups * h * w], name=name + ".group")
        normed, _, _ = g.instancenorm(grouped, unit, zero, eps, norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, name=name)
        back = g.reshape(normed, out_dims=[n, c, h, w], name=name + ".ungroup")
        return g.add(g.mul(back, gamma, name=name + ".scale"), beta, name=name + ".shift")

    def conv(v, name, pad):
        v.set_data_type(dt.HALF)  # as under autocast, a conv reads f16
        y = g.conv_fprop(v, conv_w[name], padding=[pad, pad], stride=[1, 1], dilation=[1, 1], name=name)
        return g.add(y, conv_b[name], name=name + ".bias_add")

    emb = g.matmul(g.swish(t, name="emb.silu"), w_emb, name="emb")
    emb = g.reshape(g.add(emb, b_emb, name="emb.bias_add"), out_dims=[n, cout, 1, 1], name="emb.to_channels")

    hid = conv(g.swish(group_norm(x, cin, "norm1"), name="norm1.silu"), "conv1", 1)
    hid = g.add(hid, emb, name="emb_add")
    hid = conv(g.swish(group_norm(hid, cout, "norm2"), name="norm2.silu"), "conv2", 1)
    skip = conv(x, "skip", 0) if cin != cout else x
    out = g.add(skip, hid, name="residual")
    out.set_output(True).set_name("y").set_data_type(dt.HALF).set_stride(nn.nhwc_strides([n, cout, h, w]))
    return Model(graph=g, inputs=inputs, outputs={"y": out})


def make_inputs(phase, rng, n, cin, cout, h, w, temb, groups):
    feeds = {
        "x": rng.standard_normal((n, cin, h, w)),
        "temb": rng.standard_normal((n, 1, temb)),
        "emb.weight": nn.fan_in_normal(rng, (1, temb, cout), temb),
        "emb.bias": 0.1 * rng.standard_normal((1, 1, cout)),
        "groupnorm.unit_scale": np.ones((1, groups, 1)),
        "groupnorm.zero_bias": np.zeros((1, groups, 1)),
    }
    for name, c in (("norm1", cin), ("norm2", cout)):
        feeds[name + ".weight"] = rng.uniform(0.5, 1.5, (1, c, 1, 1))
        feeds[name + ".bias"] = 0.1 * rng.standard_normal((1, c, 1, 1))
    for name, wd, _ in _conv_layers(cin, cout):
        feeds[name + ".weight"] = nn.fan_in_normal(rng, wd, wd[1] * wd[2] * wd[3])
        feeds[name + ".bias"] = 0.1 * rng.standard_normal((1, cout, 1, 1))
    return feeds


def reference(phase, feeds, n, cin, cout, h, w, temb, groups):
    f = feeds

    def group_norm(v, name):
        c = v.shape[1]
        grouped = v.reshape(n, groups, c // groups, h, w)
        mean, inv_var, _ = nn.norm_stats(grouped, (2, 3, 4), EPS)
        normed = ((grouped - mean) * inv_var).reshape(v.shape)
        return normed * f[name + ".weight"] + f[name + ".bias"]

    def conv(v, name, pad):
        v = nn.to_f16(v)  # the graph stores what a conv reads in f16
        return nn.conv2d(v, f[name + ".weight"], pad) + f[name + ".bias"]

    x = f["x"]
    emb = nn.silu(f["temb"][:, 0, :]) @ f["emb.weight"][0] + f["emb.bias"][0]
    hid = conv(nn.silu(group_norm(x, "norm1")), "conv1", 1) + emb[:, :, None, None]
    hid = conv(nn.silu(group_norm(hid, "norm2")), "conv2", 1)
    skip = conv(x, "skip", 0) if cin != cout else x
    return {"y": skip + hid}
