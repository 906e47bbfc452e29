"""ConvNeXt block (torchvision's CNBlock / timm's ConvNeXtBlock, conv_mlp
False) in PyTorch, fp16 channels-last as an AMP user runs it: depthwise 7x7
conv with bias, permute to channels-last rows, LayerNorm over C (in f32, as
autocast runs it), Linear C -> 4C, erf GELU, Linear 4C -> C, layer scale
gamma, permute back, residual. The graph's Linear weights are [in, out]
views of nn.Linear's [out, in] storage, so `.t()` gives F.linear's weight.

"backward" is autograd through the same forward (recorded once, run with
retain_graph) for the graph's dy: dx and every parameter's gradient. The
backward graph reads no biases before its saved activations (dwconv.bias,
fc1.bias); the ones the saved h and fc1 were computed with are recovered
from them once, outside the timed block (channel means of h - conv(x) and
of fc1 - norm(h) @ W1)."""

from ._autograd import backward_of, leaves_of


def _forward(torch, p, eps):
    F = torch.nn.functional
    x = p["x"]
    c = x.shape[1]
    h = F.conv2d(x, p["dwconv.weight"], p["dwconv.bias"].reshape(-1), padding=3, groups=c)
    r = h.permute(0, 2, 3, 1)  # [N, H, W, C]
    r = F.layer_norm(r.float(), (c,), p["norm.weight"].reshape(-1), p["norm.bias"].reshape(-1), eps).to(x.dtype)
    r = F.gelu(F.linear(r, p["fc1.weight"].t(), p["fc1.bias"].reshape(-1)))
    r = F.linear(r, p["fc2.weight"].t(), p["fc2.bias"].reshape(-1))
    return x + (r * p["gamma"].reshape(-1).to(r.dtype)).permute(0, 3, 1, 2)


def forward(torch, mod, f, n, c, h, w):
    def block():
        return _forward(torch, f, mod.EPS)

    return block


def _saved_biases(torch, f, c):
    """dwconv.bias and fc1.bias as the saved activations h and fc1 imply."""
    F = torch.nn.functional
    with torch.no_grad():
        conv = F.conv2d(f["x"].float(), f["dwconv.weight"].float(), padding=3, groups=c)
        dw_bias = (f["h"].float() - conv).mean(dim=(0, 2, 3)).reshape(1, c, 1, 1)
        rows = f["h"].permute(0, 2, 3, 1).reshape(-1, c).float()
        normed = ((rows - f["norm.mean"]) * f["norm.inv_var"] * f["norm.weight"] + f["norm.bias"]).half().float()
        fc1_bias = (f["fc1"].float() - normed @ f["fc1.weight"].float()).mean(dim=0, keepdim=True)
    return {"dwconv.bias": dw_bias.to(f["h"].dtype), "fc1.bias": fc1_bias.to(f["fc1"].dtype)}


def backward(torch, mod, f, n, c, h, w):
    params = ("x", "dwconv.weight", "dwconv.bias", "norm.weight", "norm.bias", "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias", "gamma")
    given = {**f, **_saved_biases(torch, f, c)}
    leaves = leaves_of(torch, given, params)

    def block():
        return _forward(torch, leaves, mod.EPS)

    return (block, *backward_of(torch, leaves, f["dy"]))


CASES = {
    ("convnext_block", "forward"): forward,
    ("convnext_block", "backward"): backward,
}
