"""float64 numpy math of the layers the convolutional models use, written
from their definitions (not through the graph package): 2-D convolution and
its two gradients by explicit loops over the kernel taps, batch and instance
normalization and their backwards, and the channels-last strides the model
graphs declare. Arrays are logical [N, C, H, W] / [K, C/groups, R, S]."""

import numpy as np


def nhwc_strides(dims):
    """Strides of a logical [N, C, H, W] tensor stored channels-last (the
    memory order of a PyTorch channels_last tensor): C fastest, then W, H, N.
    The same order serves a [K, C/groups, R, S] filter."""
    n, c, h, w = dims
    return [h * w * c, 1, w * c, c]


def _taps(x, r, s, oh, ow, stride):
    """The strided [N, C, OH, OW] window of padded image x for tap (r, s)."""
    return x[:, :, r : r + stride * (oh - 1) + 1 : stride, s : s + stride * (ow - 1) + 1 : stride]


def conv_out_extent(i, k, pad, stride):
    return (i + 2 * pad - k) // stride + 1


def conv2d(x, w, pad=0, stride=1):
    """Cross-correlation y[n, k] = sum_c,r,s x_pad[n, c, i*st + r, j*st + s]
    w[k, c, r, s], grouped when w has fewer input channels than x (groups =
    C / w.shape[1], each group's K / groups filters see its C / groups
    channels)."""
    n, c, h, wd = x.shape
    k, cg, kr, ks = w.shape
    g = c // cg
    oh, ow = conv_out_extent(h, kr, pad, stride), conv_out_extent(wd, ks, pad, stride)
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    wg = w.reshape(g, k // g, cg, kr, ks)
    y = np.zeros((n, g, k // g, oh, ow))
    for r in range(kr):
        for s in range(ks):
            patch = _taps(xp, r, s, oh, ow, stride).reshape(n, g, cg, oh, ow)
            y += np.einsum("ngcij,gkc->ngkij", patch, wg[:, :, :, r, s], optimize=True)
    return y.reshape(n, k, oh, ow)


def conv2d_dgrad(dy, w, x_shape, pad=0, stride=1):
    """Gradient of conv2d with respect to its image: each tap scatters dy
    through its filter slice back onto the padded image, which is cropped."""
    n, c, h, wd = x_shape
    k, cg, kr, ks = w.shape
    g = c // cg
    _, _, oh, ow = dy.shape
    dxp = np.zeros((n, c, h + 2 * pad, wd + 2 * pad))
    dyg = dy.reshape(n, g, k // g, oh, ow)
    wg = w.reshape(g, k // g, cg, kr, ks)
    for r in range(kr):
        for s in range(ks):
            contrib = np.einsum("ngkij,gkc->ngcij", dyg, wg[:, :, :, r, s], optimize=True).reshape(n, c, oh, ow)
            _taps(dxp, r, s, oh, ow, stride)[...] += contrib
    return dxp[:, :, pad : pad + h, pad : pad + wd]


def conv2d_wgrad(x, dy, w_shape, pad=0, stride=1):
    """Gradient of conv2d with respect to its filter: per tap, dy against
    the image window that tap saw."""
    n, c, h, wd = x.shape
    k, cg, kr, ks = w_shape
    g = c // cg
    _, _, oh, ow = dy.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    dyg = dy.reshape(n, g, k // g, oh, ow)
    dw = np.zeros((g, k // g, cg, kr, ks))
    for r in range(kr):
        for s in range(ks):
            patch = _taps(xp, r, s, oh, ow, stride).reshape(n, g, cg, oh, ow)
            dw[:, :, :, r, s] = np.einsum("ngkij,ngcij->gkc", dyg, patch, optimize=True)
    return dw.reshape(k, cg, kr, ks)


def batchnorm_inference(x, mean, inv_var, scale, bias):
    return (x - mean) * inv_var * scale + bias


def norm_stats(x, axes, eps):
    """Mean and 1/sqrt(population variance + eps) over ``axes`` (kept), and
    the population variance."""
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean, 1.0 / np.sqrt(var + eps), var


def norm_backward(dy, x, scale, mean, inv_var, axes):
    """dx, dscale, dbias of y = (x - mean) * inv_var * scale + bias with the
    statistics taken over ``axes``; scale and its gradients are per channel
    [1, C, 1, 1]."""
    count = np.prod([x.shape[a] for a in axes])
    xhat = (x - mean) * inv_var
    gy = dy * scale
    dx = inv_var * (gy - gy.sum(axis=axes, keepdims=True) / count - xhat * (gy * xhat).sum(axis=axes, keepdims=True) / count)
    per_channel = (0, 2, 3)
    return dx, (dy * xhat).sum(axis=per_channel, keepdims=True), dy.sum(axis=per_channel, keepdims=True)


BATCH_AXES = (0, 2, 3)  # batchnorm: per channel over N, H, W
INSTANCE_AXES = (2, 3)  # instancenorm: per (n, c) over H, W


def batchnorm_train(x, scale, bias, eps, running_mean, running_var, momentum):
    """Training batch norm: y, the batch mean and inv_var it saves, and the
    next running statistics (the running variance takes the unbiased batch
    variance, as PyTorch's does)."""
    mean, inv_var, var = norm_stats(x, BATCH_AXES, eps)
    count = x.size / x.shape[1]
    y = (x - mean) * inv_var * scale + bias
    next_mean = (1 - momentum) * running_mean + momentum * mean
    next_var = (1 - momentum) * running_var + momentum * var * count / (count - 1)
    return y, mean, inv_var, next_mean, next_var


def to_f16(x):
    """x rounded to f16 (kept as float64): where a mixed-precision model
    stores a tensor in f16 (the activations and gradients its convs read),
    its math rounds there too."""
    return np.asarray(x).astype(np.float16).astype(np.float64)


def relu(x, upper=None):
    y = np.maximum(x, 0.0)
    return y if upper is None else np.minimum(y, upper)


def silu(x):
    return x / (1.0 + np.exp(-x))


def silu_backward(dy, x):
    s = 1.0 / (1.0 + np.exp(-x))
    return dy * (s + x * s * (1.0 - s))


def fan_in_normal(rng, shape, fan_in):
    """Weights N(0, 1/fan_in) (variance-preserving for O(1) activations)."""
    return rng.standard_normal(shape) / np.sqrt(fan_in)
