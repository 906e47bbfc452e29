"""ResNet-50 bottleneck block (torchvision's Bottleneck, stride 1, identity
shortcut), fp16 channels-last as a PyTorch AMP user feeds it:

    y = relu(bn3(conv1x1(relu(bn2(conv3x3(relu(bn1(conv1x1(x)))))))) + x)

"forward" is inference (batchnorm_inference with given statistics).
"backward" is one training step of the block as one graph: the forward with
training batchnorm (batch statistics, running statistics updated with
momentum), then, from the incoming gradient dy of the block output, the
backward a framework runs: relu_backward, batchnorm_backward, conv_dgrad and
conv_wgrad of each conv, and the residual's gradient summed into dx.
Intermediates are f32 except the activations and gradients the convs
read, which are f16 as under PyTorch autocast; the graph's outputs are f16 (activations, weight
gradients) or f32 (batchnorm parameter gradients and running statistics,
which PyTorch keeps in f32).
"""

import numpy as np

import _nn_ref as nn
from harness import Model

NAME = "resnet_bottleneck"
TRAINS = True
SIZES = {
    "small": dict(n=2, c=16, mid=4, h=5, w=5),
    "full": dict(n=32, c=256, mid=64, h=56, w=56),
}

EPS = 1e-5
MOMENTUM = 0.1
# (conv name, batchnorm name, kernel extent, padding)
LAYERS = (("conv1", "bn1", 1, 0), ("conv2", "bn2", 3, 1), ("conv3", "bn3", 1, 0))


def _weight_dims(layer, c, mid):
    return {"conv1": [mid, c, 1, 1], "conv2": [mid, mid, 3, 3], "conv3": [c, mid, 1, 1]}[layer]


def _stat_dims(layer, c, mid):
    return [1, c if layer == "bn3" else mid, 1, 1]


def build(cudnn, phase, n, c, mid, h, w):
    dt = cudnn.data_type
    g = cudnn.pygraph(name=NAME + "_" + phase, io_data_type=dt.HALF, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    act = [n, c, h, w]
    inputs, outputs = {}, {}

    def tensor(name, dims, dtype, stride=None):
        t = g.tensor(name=name, dim=dims, stride=stride, data_type=dtype)
        inputs[name] = t
        return t

    def output(name, t, dtype, stride=None):
        t.set_output(True).set_name(name).set_data_type(dtype)
        if stride is not None:
            t.set_stride(stride)
        outputs[name] = t
        return t

    training = phase == "backward"
    x = tensor("x", act, dt.HALF, nn.nhwc_strides(act))
    weights = {}
    for conv, _, _, _ in LAYERS:
        wd = _weight_dims(conv, c, mid)
        weights[conv] = tensor(conv + ".weight", wd, dt.HALF, nn.nhwc_strides(wd))
    eps = g.tensor_scalar(EPS, dt.FLOAT, name="eps")
    momentum = g.tensor_scalar(MOMENTUM, dt.FLOAT, name="momentum") if training else None

    # forward; `saved` keeps what the backward needs per layer
    saved = {}
    h_ = x
    for conv, bn, k, pad in LAYERS:
        sd = _stat_dims(bn, c, mid)
        gamma = tensor(bn + ".weight", sd, dt.FLOAT)
        beta = tensor(bn + ".bias", sd, dt.FLOAT)
        y = g.conv_fprop(h_, weights[conv], padding=[pad, pad], stride=[1, 1], dilation=[1, 1], name=conv)
        if training:
            rm = tensor(bn + ".running_mean", sd, dt.FLOAT)
            rv = tensor(bn + ".running_var", sd, dt.FLOAT)
            z, mean, inv_var, next_rm, next_rv = g.batchnorm(
                input=y, scale=gamma, bias=beta, in_running_mean=rm, in_running_var=rv, epsilon=eps, momentum=momentum, name=bn
            )
            output(bn + ".next_running_mean", next_rm, dt.FLOAT)
            output(bn + ".next_running_var", next_rv, dt.FLOAT)
            saved[conv] = (h_, y, gamma, mean, inv_var, z)
        else:
            mean = tensor(bn + ".mean", sd, dt.FLOAT)
            inv_var = tensor(bn + ".inv_variance", sd, dt.FLOAT)
            z = g.batchnorm_inference(y, mean, inv_var, gamma, beta, name=bn)
        # as under autocast, the activation a conv reads is f16
        h_ = g.relu(z, name=bn + ".relu").set_data_type(dt.HALF) if conv != "conv3" else z
    s = g.add(h_, x, name="residual")
    out = g.relu(s, name="out.relu")
    output("y", out, dt.HALF, nn.nhwc_strides(act))
    if not training:
        return Model(graph=g, inputs=inputs, outputs=outputs)

    dy = tensor("dy", act, dt.HALF, nn.nhwc_strides(act))
    ds = g.relu_backward(dy, s, name="out.relu.backward")
    grad = ds
    for conv, bn, k, pad in reversed(LAYERS):
        image, y, gamma, mean, inv_var, z = saved[conv]
        if conv != "conv3":
            grad = g.relu_backward(grad, z, name=bn + ".relu.backward")
        dyc, dgamma, dbeta = g.batchnorm_backward(grad, y, gamma, mean, inv_var, name=bn + ".backward")
        dyc.set_data_type(dt.HALF)
        output(bn + ".weight.grad", dgamma, dt.FLOAT)
        output(bn + ".bias.grad", dbeta, dt.FLOAT)
        conv_attrs = dict(padding=[pad, pad], stride=[1, 1], dilation=[1, 1])
        # the gradients' dims are set, as the frontend infers none for them
        wd = _weight_dims(conv, c, mid)
        dw = g.conv_wgrad(image, dyc, name=conv + ".wgrad", **conv_attrs).set_dim(wd)
        output(conv + ".weight.grad", dw, dt.HALF, nn.nhwc_strides(wd))
        grad = g.conv_dgrad(dyc, weights[conv], name=conv + ".dgrad", **conv_attrs).set_dim(image.get_dim())
    dx = g.add(grad, ds, name="residual.backward")
    output("x.grad", dx, dt.HALF, nn.nhwc_strides(act))
    return Model(graph=g, inputs=inputs, outputs=outputs)


def make_inputs(phase, rng, n, c, mid, h, w):
    feeds = {"x": rng.standard_normal((n, c, h, w))}
    for conv, bn, k, _ in LAYERS:
        wd = _weight_dims(conv, c, mid)
        feeds[conv + ".weight"] = nn.fan_in_normal(rng, wd, wd[1] * k * k)
        sd = _stat_dims(bn, c, mid)
        feeds[bn + ".weight"] = rng.uniform(0.5, 1.5, sd)
        feeds[bn + ".bias"] = 0.1 * rng.standard_normal(sd)
        if phase == "backward":
            feeds[bn + ".running_mean"] = 0.1 * rng.standard_normal(sd)
            feeds[bn + ".running_var"] = rng.uniform(0.5, 1.5, sd)
        else:
            # conv outputs of these inputs have mean ~0 and variance ~0.5..1
            feeds[bn + ".mean"] = 0.1 * rng.standard_normal(sd)
            feeds[bn + ".inv_variance"] = 1.0 / np.sqrt(rng.uniform(0.5, 1.5, sd) + EPS)
    if phase == "backward":
        feeds["dy"] = rng.standard_normal((n, c, h, w))
    return feeds


def reference(phase, feeds, n, c, mid, h, w):
    f = feeds
    out = {}
    saved = {}
    h_ = f["x"]
    for conv, bn, k, pad in LAYERS:
        y = nn.conv2d(h_, f[conv + ".weight"], pad)
        if phase == "backward":
            z, mean, inv_var, next_rm, next_rv = nn.batchnorm_train(
                y, f[bn + ".weight"], f[bn + ".bias"], EPS, f[bn + ".running_mean"], f[bn + ".running_var"], MOMENTUM
            )
            out[bn + ".next_running_mean"] = next_rm
            out[bn + ".next_running_var"] = next_rv
            saved[conv] = (h_, y, mean, inv_var, z)
        else:
            z = nn.batchnorm_inference(y, f[bn + ".mean"], f[bn + ".inv_variance"], f[bn + ".weight"], f[bn + ".bias"])
        h_ = nn.to_f16(nn.relu(z)) if conv != "conv3" else z
    s = h_ + f["x"]
    out["y"] = nn.relu(s)
    if phase != "backward":
        return out

    ds = f["dy"] * (s > 0)
    grad = ds
    for conv, bn, k, pad in reversed(LAYERS):
        image, y, mean, inv_var, z = saved[conv]
        if conv != "conv3":
            grad = grad * (z > 0)
        dyc, dgamma, dbeta = nn.norm_backward(grad, y, f[bn + ".weight"], mean, inv_var, nn.BATCH_AXES)
        dyc = nn.to_f16(dyc)
        out[bn + ".weight.grad"] = dgamma
        out[bn + ".bias.grad"] = dbeta
        wt = f[conv + ".weight"]
        out[conv + ".weight.grad"] = nn.conv2d_wgrad(image, dyc, wt.shape, pad)
        grad = nn.conv2d_dgrad(dyc, wt, image.shape, pad)
    out["x.grad"] = grad + ds
    return out
