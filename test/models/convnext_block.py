"""One ConvNeXt block (torchvision's CNBlock / timm's ConvNeXtBlock with
conv_mlp=False, ConvNeXt-T stage 1: 96 channels at 56x56), fp16
channels-last as a PyTorch AMP user feeds it:

    h = dwconv7x7(x) + b_dw                     groups = C: weight [C, 1, 7, 7], padding 3
    r = h.permute(0, 2, 3, 1)                   channels-last rows [N*H*W, C]
    r = layernorm(r)                            over C, eps 1e-6
    r = gelu(r @ W1^T + b1) @ W2^T + b2         Linear C -> 4C, exact (erf) GELU, Linear 4C -> C
    y = x + (gamma * r).permute(0, 3, 1, 2)     layer scale, residual

The permute is a transpose view [N, C, H, W] -> [N, H, W, C] of the conv
output followed by a reshape to rows, the way timm's block reads it; the
way back is the reverse views (the permuted image declared channels-last,
so it is a view of the rows and not a copy). The Linear weights are
PyTorch's [out, in] storage, read as the matmul's B operand [in, out]
through transposed strides (as unet_resblock's time embedding does).
Intermediates are f32 except the tensors a matmul reads (the layernorm
output and the GELU output), which are f16 as under autocast; the
reference rounds at the same places.

"forward" is inference (the block has no running statistics, so it is also
the training forward). "backward" is the block's backward as one graph
from what its forward saved (the image x, the conv output h, the layernorm
statistics, the fc1 pre-activation; f16 but the statistics) and the
incoming gradient dy. It recomputes what the weight gradients read (the
normalized rows, by layernorm with pre_calculated_mean/invvar, and
gelu(fc1)), then: layer scale and bias gradients as row reductions, weight
gradients as activation^T @ dY over transposed views, input gradients as
dY @ W over views, gelu_backward, layernorm_backward, the depthwise conv's
wgrad and dgrad (output dims set, as the frontend requires: a grouped
conv's cannot be inferred), and the residual summed into dx. Gradients
have their parameter's type (f16; f32 for the norm's affine and gamma).
The backward reference agrees with central differences of the forward
reference (relative 1e-9) at a tiny size.
"""

import math

import numpy as np

import _nn_ref as nn
import _transformer as tf
from harness import Model

NAME = "convnext_block"
TRAINS = True
SIZES = {
    # h = w = 9 > 7 keeps taps that see only interior pixels as well as the
    # padded borders
    "small": dict(n=2, c=8, h=9, w=9),
    "check": dict(n=2, c=96, h=28, w=28),
    "full": dict(n=32, c=96, h=56, w=56),
}

EPS = 1e-6
KERNEL = 7
PAD = 3


def _shapes(n, c, h, w):
    t = n * h * w
    return {
        "x": [n, c, h, w],
        "dwconv.weight": [c, 1, KERNEL, KERNEL],
        "dwconv.bias": [1, c, 1, 1],
        "norm.weight": [1, c],
        "norm.bias": [1, c],
        "fc1.weight": [c, 4 * c],  # B of the matmul; stored [4C, C]
        "fc1.bias": [1, 4 * c],
        "fc2.weight": [4 * c, c],  # stored [C, 4C]
        "fc2.bias": [1, c],
        "gamma": [1, c],
        # saved by the forward for the backward
        "h": [n, c, h, w],
        "norm.mean": [t, 1],
        "norm.inv_var": [t, 1],
        "fc1": [t, 4 * c],
        "dy": [n, c, h, w],
    }


def _linear_stride(dims):
    """Strides of a matmul B operand [in, out] stored as nn.Linear's
    [out, in] weight (row-major)."""
    return [1, dims[0]]


FORWARD_INPUTS = ("x", "dwconv.weight", "dwconv.bias", "norm.weight", "norm.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "gamma")
# the backward reads neither bias before a saved activation (dwconv, fc1)
BACKWARD_INPUTS = tuple(k for k in FORWARD_INPUTS if k not in ("dwconv.bias", "fc1.bias")) + ("h", "norm.mean", "norm.inv_var", "fc1", "dy")


def build(cudnn, phase, n, c, h, w):
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(n, c, h, w)
    t = n * h * w
    inputs, outputs = {}, {}

    def tensor(name, dtype=f16, stride=None):
        dims = shapes[name]
        if stride is None and len(dims) == 4 and name not in ("dwconv.bias",):
            stride = nn.nhwc_strides(dims)
        inputs[name] = g.tensor(name=name, dim=dims, stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, v, dtype=f16, stride=None):
        v.set_output(True).set_name(name).set_data_type(dtype)
        if stride is not None:
            v.set_stride(stride)
        outputs[name] = v
        return v

    def rows(v, name):
        """[N, C', H, W] -> rows [N*H*W, C'] (permute(0, 2, 3, 1) + view)."""
        nhwc = g.transpose(v, permutation=[0, 2, 3, 1], name=name + ".nhwc")
        return g.reshape(nhwc, out_dims=[t, v.dim[1]], name=name)

    def image(r, name):
        """rows [N*H*W, C'] -> [N, C', H, W] (view + permute(0, 3, 1, 2)),
        declared channels-last so that it stays a view of the rows (a
        virtual tensor's strides default to row-major, which would make
        the permute a copy into NCHW)."""
        nhwc = g.reshape(r, out_dims=[n, h, w, r.dim[1]], name=name + ".nhwc")
        return g.transpose(nhwc, permutation=[0, 3, 1, 2], name=name).set_stride(nn.nhwc_strides([n, r.dim[1], h, w]))

    x = tensor("x")
    dw_w = tensor("dwconv.weight")
    ln_w = tensor("norm.weight", f32)
    ln_b = tensor("norm.bias", f32)
    w1 = tensor("fc1.weight", stride=_linear_stride(shapes["fc1.weight"]))
    w2 = tensor("fc2.weight", stride=_linear_stride(shapes["fc2.weight"]))
    b2 = tensor("fc2.bias")
    gamma = tensor("gamma", f32)
    conv_attrs = dict(padding=[PAD, PAD], stride=[1, 1], dilation=[1, 1])

    if phase == "forward":
        dw_b = tensor("dwconv.bias")
        b1 = tensor("fc1.bias")
        eps = g.tensor_scalar(EPS, f32, name="eps")
        hid = g.add(g.conv_fprop(x, dw_w, name="dwconv", **conv_attrs), dw_b, name="dwconv.bias_add")
        normed = g.layernorm(
            input=rows(hid, "rows"), scale=ln_w, bias=ln_b, epsilon=eps, norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, name="norm"
        )[0]
        normed.set_data_type(f16)  # what fc1 reads
        act = g.gelu(tf.linear(g, normed, w1, b1, "fc1"), name="gelu").set_data_type(f16)  # what fc2 reads
        r = g.mul(tf.linear(g, act, w2, b2, "fc2"), gamma, name="layer_scale")
        out = g.add(image(r, "image"), x, name="residual")
        output("y", out, stride=nn.nhwc_strides(shapes["x"]))
        return Model(graph=g, inputs=inputs, outputs=outputs)
    if phase != "backward":
        raise ValueError(f"{NAME} has no {phase!r} phase")

    # Backward from the saved forward: h (the conv output, bias added, f16
    # as autocast stores it), the layernorm statistics, fc1 (pre-GELU, f16)
    hsave = tensor("h")
    mean = tensor("norm.mean", f32)
    inv_var = tensor("norm.inv_var", f32)
    fc1 = tensor("fc1")
    dy = tensor("dy")
    hrows = rows(hsave, "h.rows")
    # recompute what the weight gradients read: the normalized rows (f16, as
    # fc1 read them) and gelu(fc1) (f16, as fc2 read it)
    normed = g.layernorm(
        input=hrows, scale=ln_w, bias=ln_b, pre_calculated_mean=mean, pre_calculated_invvar=inv_var, norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, name="norm.recompute"
    )[0].set_data_type(f16)
    act = g.gelu(fc1, name="gelu.recompute").set_data_type(f16)
    fc2 = g.add(g.matmul(act, w2, name="fc2.recompute"), b2, name="fc2.recompute.bias")

    reduce_add = cudnn.reduction_mode.ADD

    def col_sum(v, name):
        return g.reduction(v, mode=reduce_add, out_dims=[1, v.dim[1]], name=name)

    def T(v, name):
        return g.transpose(v, permutation=[1, 0], name=name)

    # y = x + image(gamma * fc2): dfc2 = gamma * rows(dy), dgamma = sum(rows(dy) * fc2)
    dyr = rows(dy, "dy.rows")
    output("gamma.grad", col_sum(g.mul(dyr, fc2, name="gamma.grad.prod"), "gamma.grad"), f32)
    dfc2 = g.mul(dyr, gamma, name="layer_scale.backward").set_data_type(f16)  # what the fc2 gradients read
    output("fc2.bias.grad", col_sum(dfc2, "fc2.bias.grad"))
    # dW2 [4C, C] = act^T @ dfc2, stored as nn.Linear's [C, 4C]
    output("fc2.weight.grad", g.matmul(T(act, "act^T"), dfc2, name="fc2.wgrad"), stride=_linear_stride(shapes["fc2.weight"]))
    dact = g.matmul(dfc2, T(w2, "fc2.weight^T"), name="fc2.dgrad")
    dfc1 = g.gelu_backward(dact, fc1, name="gelu.backward").set_data_type(f16)
    output("fc1.bias.grad", col_sum(dfc1, "fc1.bias.grad"))
    output("fc1.weight.grad", g.matmul(T(normed, "normed^T"), dfc1, name="fc1.wgrad"), stride=_linear_stride(shapes["fc1.weight"]))
    dnormed = g.matmul(dfc1, T(w1, "fc1.weight^T"), name="fc1.dgrad")
    dhrows, dln_w, dln_b = g.layernorm_backward(dnormed, hrows, ln_w, mean, inv_var, name="norm.backward")
    output("norm.weight.grad", dln_w, f32)
    output("norm.bias.grad", dln_b, f32)
    dh = image(dhrows.set_data_type(f16), "dh")  # the gradient the conv gradients read
    output("dwconv.bias.grad", g.reduction(dh, mode=reduce_add, out_dims=[1, c, 1, 1], name="dwconv.bias.grad"))
    # as in the frontend's samples, the gradients' dims are set: a grouped
    # conv's cannot be told from dy and one operand
    dw = g.conv_wgrad(x, dh, name="dwconv.wgrad", **conv_attrs).set_dim(shapes["dwconv.weight"])
    output("dwconv.weight.grad", dw, stride=nn.nhwc_strides(shapes["dwconv.weight"]))
    dimage = g.conv_dgrad(dh, dw_w, name="dwconv.dgrad", **conv_attrs).set_dim(shapes["x"])
    dx = g.add(dimage, dy, name="residual.backward")
    output("x.grad", dx, stride=nn.nhwc_strides(shapes["x"]))
    return Model(graph=g, inputs=inputs, outputs=outputs)


def _forward(f, n, c, h, w, round_h=False):
    """float64 forward from the definition; returns the activations a
    backward reads and y. round_h: h rounded to f16 (as autocast stores the
    conv output a backward saves; the forward graph keeps it f32)."""
    a = {}
    hid = nn.conv2d(f["x"], f["dwconv.weight"], PAD) + f["dwconv.bias"]
    if round_h:
        hid = nn.to_f16(hid)
    a["h"] = hid
    r = hid.transpose(0, 2, 3, 1).reshape(n * h * w, c)
    normed, a["norm.mean"], a["norm.inv_var"] = tf.layernorm(r, f["norm.weight"], f["norm.bias"], EPS)
    a["normed"] = nn.to_f16(normed)
    # nn.Linear: x @ W^T + b, W stored [out, in]; the graph's B operand is W^T
    a["fc1"] = a["normed"] @ f["fc1.weight"] + f["fc1.bias"]
    a["act"] = nn.to_f16(tf.gelu_erf(a["fc1"]))
    a["fc2"] = a["act"] @ f["fc2.weight"] + f["fc2.bias"]
    scaled = f["gamma"] * a["fc2"]
    a["y"] = f["x"] + scaled.reshape(n, h, w, c).transpose(0, 3, 1, 2)
    return a


def make_inputs(phase, rng, n, c, h, w):
    s = _shapes(n, c, h, w)
    feeds = {
        "x": rng.standard_normal(s["x"]),
        "dwconv.weight": nn.fan_in_normal(rng, s["dwconv.weight"], KERNEL * KERNEL),
        "dwconv.bias": 0.1 * rng.standard_normal(s["dwconv.bias"]),
        "norm.weight": 1.0 + 0.1 * rng.standard_normal(s["norm.weight"]),
        "norm.bias": 0.1 * rng.standard_normal(s["norm.bias"]),
        "fc1.weight": nn.fan_in_normal(rng, s["fc1.weight"], c),
        "fc1.bias": 0.1 * rng.standard_normal(s["fc1.bias"]),
        "fc2.weight": nn.fan_in_normal(rng, s["fc2.weight"], 4 * c),
        "fc2.bias": 0.1 * rng.standard_normal(s["fc2.bias"]),
        # ConvNeXt initializes the layer scale to 1e-6; trained stage-1
        # blocks carry O(0.1-1) values, which keep the branch visible in y
        "gamma": rng.uniform(0.2, 1.0, s["gamma"]),
    }
    if phase == "backward":
        # the saved activations, consistent with the forward (rounded to
        # their graph types here; the harness rounds again, a no-op)
        f = {k: _round_like(k, v) for k, v in feeds.items()}
        a = _forward(f, n, c, h, w, round_h=True)
        for k in ("h", "norm.mean", "norm.inv_var", "fc1"):
            feeds[k] = a[k]
        feeds["dy"] = rng.standard_normal(s["dy"])
    names = FORWARD_INPUTS if phase == "forward" else BACKWARD_INPUTS
    return {k: v for k, v in feeds.items() if k in names}


def _round_like(name, v):
    return v if name in ("norm.weight", "norm.bias", "gamma") else nn.to_f16(v)


def reference(phase, feeds, n, c, h, w):
    f = feeds
    if phase == "forward":
        return {"y": _forward(f, n, c, h, w)["y"]}

    t = n * h * w
    hrows = f["h"].transpose(0, 2, 3, 1).reshape(t, c)
    xhat = (hrows - f["norm.mean"]) * f["norm.inv_var"]
    normed = nn.to_f16(xhat * f["norm.weight"] + f["norm.bias"])
    act = nn.to_f16(tf.gelu_erf(f["fc1"]))
    fc2 = act @ f["fc2.weight"] + f["fc2.bias"]
    out = {}
    dyr = f["dy"].transpose(0, 2, 3, 1).reshape(t, c)
    out["gamma.grad"] = (dyr * fc2).sum(axis=0, keepdims=True)
    dfc2 = nn.to_f16(dyr * f["gamma"])
    out["fc2.bias.grad"] = dfc2.sum(axis=0, keepdims=True)
    out["fc2.weight.grad"] = act.T @ dfc2
    dact = dfc2 @ f["fc2.weight"].T
    dfc1 = nn.to_f16(dact * _gelu_erf_grad(f["fc1"]))
    out["fc1.bias.grad"] = dfc1.sum(axis=0, keepdims=True)
    out["fc1.weight.grad"] = normed.T @ dfc1
    dnormed = dfc1 @ f["fc1.weight"].T
    dhrows, out["norm.weight.grad"], out["norm.bias.grad"] = tf.layernorm_backward(dnormed, hrows, f["norm.weight"], f["norm.mean"], f["norm.inv_var"])
    dh = nn.to_f16(dhrows).reshape(n, h, w, c).transpose(0, 3, 1, 2)
    out["dwconv.bias.grad"] = nn.channel_sum(dh)
    out["dwconv.weight.grad"] = nn.conv2d_wgrad(f["x"], dh, f["dwconv.weight"].shape, PAD)
    out["x.grad"] = nn.conv2d_dgrad(dh, f["dwconv.weight"], f["x"].shape, PAD) + f["dy"]
    return out


def _gelu_erf_grad(x):
    """d/dx of x Phi(x) = Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2."""
    cdf = 0.5 * (1.0 + np.vectorize(math.erf)(x / math.sqrt(2.0)))
    return cdf + x * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
