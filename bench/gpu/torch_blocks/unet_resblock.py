"""Diffusion U-Net residual block (Stable Diffusion's ResBlock, as diffusers'
ResnetBlock2D runs it in an fp16 pipeline) in PyTorch, for bench_models.py:

    emb = linear(silu(temb))                      nn.Linear(temb, cout)
    h = conv1(silu(group_norm(x))) + emb[:, :, None, None]
    y = skip(x) + conv2(silu(group_norm(h)))      skip: 1x1 conv when cin != cout

fp16 activations and parameters, channels-last images and filters (the
graph's buffers already are), F.group_norm with the model's groups and eps.
"backward" is autograd through that forward, recorded once: the gradients
of x, temb and every parameter for the graph's dy, and the forward's y,
which the training graph outputs too.
"""

from ._autograd import leaves_of, training_step_of

# graph inputs with no PyTorch counterpart: the unit scale and zero bias the
# graph's instancenorm (its group norm) takes, and the backward's dy
_NOT_PARAMETERS = ("groupnorm.unit_scale", "groupnorm.zero_bias", "dy")


def unet_torch(torch, mod, f, n, cin, cout, h, w, temb, groups):
    F = torch.nn.functional

    def norm_silu(v, name):
        return F.silu(F.group_norm(v, groups, f[name + ".weight"].reshape(-1), f[name + ".bias"].reshape(-1), mod.EPS))

    def conv(v, name, pad):
        return F.conv2d(v, f[name + ".weight"], f[name + ".bias"].reshape(-1), padding=pad)

    def block():
        x = f["x"]
        # the Linear's [cout, temb] weight is the graph's [1, temb, cout] view, transposed
        emb = F.linear(F.silu(f["temb"].reshape(n, temb)), f["emb.weight"][0].t(), f["emb.bias"].reshape(-1))
        hid = conv(norm_silu(x, "norm1"), "conv1", 1) + emb[:, :, None, None]
        hid = conv(norm_silu(hid, "norm2"), "conv2", 1)
        skip = conv(x, "skip", 0) if cin != cout else x
        return skip + hid

    return block


def unet_backward_torch(torch, mod, f, **dims):
    names = [name for name in f if name not in _NOT_PARAMETERS]
    leaves = leaves_of(torch, f, names)
    block = unet_torch(torch, mod, {**f, **leaves}, **dims)

    # The graph is the whole training step, so the timed call is too.
    return (block, *training_step_of(torch, leaves, f["dy"]))


CASES = {
    ("unet_resblock", "forward"): unet_torch,
    ("unet_resblock", "backward"): unet_backward_torch,
}
