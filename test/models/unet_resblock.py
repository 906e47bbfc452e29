"""Diffusion U-Net residual block (Stable Diffusion's ResBlock), fp16
channels-last:

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
Intermediates are f32 except what the convs read (and, in the backward,
the gradient of h the convs read), which is f16 as under autocast; the
reference rounds at the same places.

"forward" is inference. "backward" is one training step as one graph: the
forward (instancenorm in training phase, saving its statistics), then from
the incoming gradient dy: conv_wgrad / conv_dgrad of each conv, bias
gradients as channel sums (reductions), swish_backward, the group norms'
backward (per-channel affine by hand, instancenorm_backward on the grouped
view), the time embedding's weight gradient silu(temb)^T @ demb and input
gradient (demb @ W_emb, then swish_backward), and the skip's gradient summed
into dx. Every gradient has its parameter's type (f16).

The full size is SD's first level (64x64 latents, 320 channels, time
embedding 1280, GroupNorm(32)) at batch 8, where in = out channels; the
small and check sizes change channels so the 1x1 skip conv runs too.
"""

import numpy as np

import _nn_ref as nn
from harness import Model

NAME = "unet_resblock"
TRAINS = True
SIZES = {
    "small": dict(n=2, cin=4, cout=8, h=5, w=5, temb=6, groups=2),
    "full": dict(n=8, cin=320, cout=320, h=64, w=64, temb=1280, groups=32),
    # GPU-vs-CPU checks where the full backward costs the CPU too much; the
    # channel change keeps the skip conv in
    "check": dict(n=2, cin=64, cout=128, h=16, w=16, temb=256, groups=32),
}

EPS = 1e-5


def _conv_layers(cin, cout):
    """(name, weight dims, padding) of each conv."""
    layers = [("conv1", [cout, cin, 3, 3], 1), ("conv2", [cout, cout, 3, 3], 1)]
    if cin != cout:
        layers.append(("skip", [cout, cin, 1, 1], 0))
    return layers


def build(cudnn, phase, n, cin, cout, h, w, temb, groups):
    dt = cudnn.data_type
    training = phase == "backward"
    g = cudnn.pygraph(name=NAME + "_" + phase, io_data_type=dt.HALF, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    inputs, outputs = {}, {}
    norm_phase = cudnn.norm_forward_phase.TRAINING if training else cudnn.norm_forward_phase.INFERENCE

    def tensor(name, dims, dtype, stride=None):
        inputs[name] = g.tensor(name=name, dim=dims, stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, t, stride=None):
        t.set_output(True).set_name(name).set_data_type(dt.HALF)
        if stride is not None:
            t.set_stride(stride)
        outputs[name] = t

    x = tensor("x", [n, cin, h, w], dt.HALF, nn.nhwc_strides([n, cin, h, w]))
    t = tensor("temb", [n, 1, temb], dt.HALF)
    # nn.Linear(temb, cout).weight is [cout, temb]; as B of the matmul it is
    # [1, temb, cout] read column-major
    emb_stride = [temb * cout, 1, temb]
    w_emb = tensor("emb.weight", [1, temb, cout], dt.HALF, emb_stride)
    b_emb = tensor("emb.bias", [1, 1, cout], dt.HALF)
    unit = tensor("groupnorm.unit_scale", [1, groups, 1], dt.FLOAT)
    zero = tensor("groupnorm.zero_bias", [1, groups, 1], dt.FLOAT)
    eps = g.tensor_scalar(EPS, dt.FLOAT, name="eps")
    conv_w, conv_b = {}, {}
    for name, wd, _ in _conv_layers(cin, cout):
        conv_w[name] = tensor(name + ".weight", wd, dt.HALF, nn.nhwc_strides(wd))
        conv_b[name] = tensor(name + ".bias", [1, cout, 1, 1], dt.HALF)
    saved = {}

    def group_norm(v, c, name):
        gamma = tensor(name + ".weight", [1, c, 1, 1], dt.HALF)
        beta = tensor(name + ".bias", [1, c, 1, 1], dt.HALF)
        grouped = g.reshape(v, out_dims=[n, groups, c // groups * h * w], name=name + ".group")
        normed, mean, inv_var = g.instancenorm(grouped, unit, zero, eps, norm_forward_phase=norm_phase, name=name)
        back = g.reshape(normed, out_dims=[n, c, h, w], name=name + ".ungroup")
        out = g.add(g.mul(back, gamma, name=name + ".scale"), beta, name=name + ".shift")
        saved[name] = (grouped, mean, inv_var, back, gamma, out)
        return out

    def conv(v, name, pad):
        v.set_data_type(dt.HALF)  # as under autocast, a conv reads f16
        saved[name] = v
        y = g.conv_fprop(v, conv_w[name], padding=[pad, pad], stride=[1, 1], dilation=[1, 1], name=name)
        return g.add(y, conv_b[name], name=name + ".bias_add")

    silu_t = g.swish(t, name="emb.silu")
    emb = g.matmul(silu_t, w_emb, name="emb")
    emb = g.reshape(g.add(emb, b_emb, name="emb.bias_add"), out_dims=[n, cout, 1, 1], name="emb.to_channels")

    hid = conv(g.swish(group_norm(x, cin, "norm1"), name="norm1.silu"), "conv1", 1)
    hid = g.add(hid, emb, name="emb_add")
    hid = conv(g.swish(group_norm(hid, cout, "norm2"), name="norm2.silu"), "conv2", 1)
    skip = conv(x, "skip", 0) if cin != cout else x
    out = g.add(skip, hid, name="residual")
    output("y", out, nn.nhwc_strides([n, cout, h, w]))
    if not training:
        return Model(graph=g, inputs=inputs, outputs=outputs)

    reduce_add = cudnn.reduction_mode.ADD

    def channel_sum(v, c, name):
        return g.reduction(v, mode=reduce_add, out_dims=[1, c, 1, 1], name=name)

    def conv_backward(dconv, name, pad):
        """Gradients of conv `name` (+ bias) from dconv: its weight and bias
        gradients become outputs; returns the image gradient."""
        attrs = dict(padding=[pad, pad], stride=[1, 1], dilation=[1, 1])
        wd = conv_w[name].dim
        # the gradients' dims are set, as the frontend infers none for them
        dw = g.conv_wgrad(saved[name], dconv, name=name + ".wgrad", **attrs).set_dim(wd)
        output(name + ".weight.grad", dw, nn.nhwc_strides(wd))
        output(name + ".bias.grad", channel_sum(dconv, cout, name + ".bias.grad"))
        return g.conv_dgrad(dconv, conv_w[name], name=name + ".dgrad", **attrs).set_dim(saved[name].get_dim())

    def silu_group_norm_backward(da, c, name, dv_type=None):
        """From the gradient of silu(groupnorm(v)): the norm's weight and
        bias gradients become outputs; returns the gradient of v (stored as
        dv_type when given)."""
        grouped, mean, inv_var, back, gamma, out = saved[name]
        dn = g.swish_backward(da, out, name=name + ".silu.backward")
        output(name + ".weight.grad", channel_sum(g.mul(dn, back, name=name + ".scale.backward"), c, name + ".weight.grad"))
        output(name + ".bias.grad", channel_sum(dn, c, name + ".bias.grad"))
        dback = g.mul(dn, gamma, name=name + ".affine.backward")
        dgrouped = g.reshape(dback, out_dims=[n, groups, c // groups * h * w], name=name + ".group.backward")
        dv, _, _ = g.instancenorm_backward(dgrouped, grouped, unit, mean, inv_var, name=name + ".backward")
        if dv_type is not None:
            dv.set_data_type(dv_type)
        return g.reshape(dv, out_dims=[n, c, h, w], name=name + ".ungroup.backward")

    dy = tensor("dy", [n, cout, h, w], dt.HALF, nn.nhwc_strides([n, cout, h, w]))
    # the gradient conv1 reads is f16
    dh = silu_group_norm_backward(conv_backward(dy, "conv2", 1), cout, "norm2", dt.HALF)
    # the time embedding: demb = dh summed over H, W
    demb = g.reshape(g.reduction(dh, mode=reduce_add, out_dims=[n, cout, 1, 1], name="emb.grad"), out_dims=[n, 1, cout], name="emb.grad.rows")
    output("emb.bias.grad", g.reduction(demb, mode=reduce_add, out_dims=[1, 1, cout], name="emb.bias.grad"))
    # dW = silu(temb)^T @ demb over the batch: [1, T, N] x [1, N, C]
    silu_cols = g.transpose(g.reshape(silu_t, out_dims=[1, n, temb], name="emb.silu.rows"), permutation=[0, 2, 1], name="emb.silu.T")
    dw_emb = g.matmul(silu_cols, g.reshape(demb, out_dims=[1, n, cout], name="emb.grad.batch"), name="emb.weight.grad")
    output("emb.weight.grad", dw_emb, emb_stride)
    w_emb_t = g.transpose(w_emb, permutation=[0, 2, 1], name="emb.weight.T")
    dsilu_t = g.matmul(demb, w_emb_t, name="emb.dgrad")
    output("temb.grad", g.swish_backward(dsilu_t, t, name="emb.silu.backward"))
    dx = silu_group_norm_backward(conv_backward(dh, "conv1", 1), cin, "norm1")
    dskip = conv_backward(dy, "skip", 0) if cin != cout else dy
    output("x.grad", g.add(dx, dskip, name="residual.backward"), nn.nhwc_strides([n, cin, h, w]))
    return Model(graph=g, inputs=inputs, outputs=outputs)


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
    if phase == "backward":
        feeds["dy"] = rng.standard_normal((n, cout, h, w))
    return feeds


def reference(phase, feeds, n, cin, cout, h, w, temb, groups):
    f = feeds
    saved = {}
    axes = (2, 3, 4)  # a group's channels and pixels in the [N, G, C/G, H, W] view

    def group_norm(v, name):
        c = v.shape[1]
        grouped = v.reshape(n, groups, c // groups, h, w)
        mean, inv_var, _ = nn.norm_stats(grouped, axes, EPS)
        xhat = (grouped - mean) * inv_var
        back = xhat.reshape(v.shape)
        out = back * f[name + ".weight"] + f[name + ".bias"]
        saved[name] = (xhat, inv_var, back, out)
        return out

    def conv(v, name, pad):
        v = nn.to_f16(v)  # the graph stores what a conv reads in f16
        saved[name] = v
        return nn.conv2d(v, f[name + ".weight"], pad) + f[name + ".bias"]

    x = f["x"]
    silu_t = nn.silu(f["temb"][:, 0, :])  # [N, T]
    emb = silu_t @ f["emb.weight"][0] + f["emb.bias"][0]
    hid = conv(nn.silu(group_norm(x, "norm1")), "conv1", 1) + emb[:, :, None, None]
    hid = conv(nn.silu(group_norm(hid, "norm2")), "conv2", 1)
    skip = conv(x, "skip", 0) if cin != cout else x
    out = {"y": skip + hid}
    if phase != "backward":
        return out

    def conv_backward(dconv, name, pad):
        wt = f[name + ".weight"]
        out[name + ".weight.grad"] = nn.conv2d_wgrad(saved[name], dconv, wt.shape, pad)
        out[name + ".bias.grad"] = nn.channel_sum(dconv)
        return nn.conv2d_dgrad(dconv, wt, saved[name].shape, pad)

    def silu_group_norm_backward(da, name):
        xhat, inv_var, back, normed = saved[name]
        dn = nn.silu_backward(da, normed)
        out[name + ".weight.grad"] = nn.channel_sum(dn * back)
        out[name + ".bias.grad"] = nn.channel_sum(dn)
        dxhat = (dn * f[name + ".weight"]).reshape(xhat.shape)
        return nn.norm_input_grad(dxhat, xhat, inv_var, axes).reshape(back.shape)

    dy = f["dy"]
    dh = nn.to_f16(silu_group_norm_backward(conv_backward(dy, "conv2", 1), "norm2"))
    demb = dh.sum(axis=(2, 3))  # [N, C]
    out["emb.bias.grad"] = demb.sum(axis=0).reshape(1, 1, cout)
    out["emb.weight.grad"] = (silu_t.T @ demb)[None]
    out["temb.grad"] = nn.silu_backward(demb @ f["emb.weight"][0].T, f["temb"][:, 0, :])[:, None, :]
    dx = silu_group_norm_backward(conv_backward(dh, "conv1", 1), "norm1")
    out["x.grad"] = dx + (conv_backward(dy, "skip", 0) if cin != cout else dy)
    return out
