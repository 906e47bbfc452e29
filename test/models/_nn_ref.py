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


def conv_out_extent(i, k, pad, stride):
    return (i + 2 * pad - k) // stride + 1


def _grouped_pixels(x, groups, pad):
    """x [N, C, H, W] zero-padded and viewed channels-last by group:
    [N, H + 2 pad, W + 2 pad, groups, C / groups]."""
    n, c, h, w = x.shape
    xp = np.zeros((n, h + 2 * pad, w + 2 * pad, groups, c // groups))
    xp[:, pad : pad + h, pad : pad + w] = x.reshape(n, groups, c // groups, h, w).transpose(0, 3, 4, 1, 2)
    return xp


def _tap(xp, r, s, oh, ow, stride):
    """The [N, OH, OW, groups, C/groups] pixels filter tap (r, s) meets."""
    return xp[:, r : r + stride * (oh - 1) + 1 : stride, s : s + stride * (ow - 1) + 1 : stride]


def _as_rows(v):
    """[N, OH, OW, G, c] -> [G, N*OH*OW, c] (one matrix per group)."""
    g, c = v.shape[3], v.shape[4]
    return v.transpose(3, 0, 1, 2, 4).reshape(g, -1, c)


def _filters(w, groups):
    """w [K, C/groups, R, S] -> [groups, K/groups, C/groups, R, S]."""
    k = w.shape[0]
    return w.reshape(groups, k // groups, *w.shape[1:])


def conv2d(x, w, pad=0, stride=1):
    """Cross-correlation y[n, k, i, j] = sum over c, r, s of
    x_pad[n, c, i*stride + r, j*stride + s] w[k, c, r, s], grouped when w has
    fewer input channels than x (groups = C / w.shape[1]; group g's K/groups
    filters see its C/groups channels): per filter tap, one matrix product
    per group of the pixels' channels with the tap's weights."""
    n, c, h, wd = x.shape
    k, cg, kr, ks = w.shape
    groups = c // cg
    oh, ow = conv_out_extent(h, kr, pad, stride), conv_out_extent(wd, ks, pad, stride)
    xp = _grouped_pixels(x, groups, pad)
    wg = _filters(w, groups)
    y = np.zeros((groups, n * oh * ow, k // groups))
    for r in range(kr):
        for s in range(ks):
            y += _as_rows(_tap(xp, r, s, oh, ow, stride)) @ wg[:, :, :, r, s].transpose(0, 2, 1)
    return y.reshape(groups, n, oh, ow, k // groups).transpose(1, 0, 4, 2, 3).reshape(n, k, oh, ow)


def conv2d_dgrad(dy, w, x_shape, pad=0, stride=1):
    """Gradient of conv2d with respect to its image: each tap scatters dy
    through its filter slice back onto the padded image, which is cropped."""
    n, c, h, wd = x_shape
    k, cg, kr, ks = w.shape
    groups = c // cg
    _, _, oh, ow = dy.shape
    dxp = np.zeros((n, h + 2 * pad, wd + 2 * pad, groups, cg))
    dyg = _as_rows(dy.reshape(n, groups, k // groups, oh, ow).transpose(0, 3, 4, 1, 2))
    wg = _filters(w, groups)
    for r in range(kr):
        for s in range(ks):
            contrib = dyg @ wg[:, :, :, r, s]  # [G, N*OH*OW, C/G]
            _tap(dxp, r, s, oh, ow, stride)[...] += contrib.reshape(groups, n, oh, ow, cg).transpose(1, 2, 3, 0, 4)
    dx = dxp[:, pad : pad + h, pad : pad + wd]  # [N, H, W, G, C/G]
    return dx.transpose(0, 3, 4, 1, 2).reshape(n, c, h, wd)


def conv2d_wgrad(x, dy, w_shape, pad=0, stride=1):
    """Gradient of conv2d with respect to its filter: per tap, dy against
    the image pixels that tap saw."""
    n, c, h, wd = x.shape
    k, cg, kr, ks = w_shape
    groups = c // cg
    _, _, oh, ow = dy.shape
    xp = _grouped_pixels(x, groups, pad)
    dyt = _as_rows(dy.reshape(n, groups, k // groups, oh, ow).transpose(0, 3, 4, 1, 2)).transpose(0, 2, 1)
    dw = np.zeros((groups, k // groups, cg, kr, ks))
    for r in range(kr):
        for s in range(ks):
            dw[:, :, :, r, s] = dyt @ _as_rows(_tap(xp, r, s, oh, ow, stride))
    return dw.reshape(k, cg, kr, ks)


def batchnorm_inference(x, mean, inv_var, scale, bias):
    return (x - mean) * inv_var * scale + bias


def norm_stats(x, axes, eps):
    """Mean and 1/sqrt(population variance + eps) over ``axes`` (kept), and
    the population variance."""
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean, 1.0 / np.sqrt(var + eps), var


def norm_input_grad(gy, xhat, inv_var, axes):
    """Gradient of a normalization's input given the gradient gy of its
    normalized value xhat = (x - mean) * inv_var (statistics over axes)."""
    count = np.prod([xhat.shape[a] for a in axes])
    return inv_var * (gy - gy.sum(axis=axes, keepdims=True) / count - xhat * (gy * xhat).sum(axis=axes, keepdims=True) / count)


def channel_sum(v):
    """Sum of [N, C, H, W] over all but the channel dim, as [1, C, 1, 1]."""
    return v.sum(axis=(0, 2, 3), keepdims=True)


def norm_backward(dy, x, scale, mean, inv_var, axes):
    """dx, dscale, dbias of y = (x - mean) * inv_var * scale + bias with the
    statistics taken over ``axes``; scale and its gradients are per channel
    [1, C, 1, 1]."""
    xhat = (x - mean) * inv_var
    return norm_input_grad(dy * scale, xhat, inv_var, axes), channel_sum(dy * xhat), channel_sum(dy)


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
