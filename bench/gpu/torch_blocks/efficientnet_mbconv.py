"""EfficientNet-B0 MBConv block (timm's InvertedResidual with
SqueezeExcite, stride 1 with the residual) in PyTorch, eval mode, fp16
channels-last as an AMP user runs it: 1x1 expand conv, BatchNorm, SiLU;
depthwise kxk conv (groups = channels), BatchNorm, SiLU; squeeze-excite
(mean over H, W, 1x1 conv_reduce with bias, SiLU, 1x1 conv_expand with
bias, sigmoid gate); 1x1 project conv, BatchNorm; plus x.

The graph takes each batchnorm as mean and inv_variance = 1 / sqrt(var +
eps); F.batch_norm takes the running variance, 1 / inv_variance^2 - eps."""


def forward(torch, mod, f, n, c, expand, h, w, k):
    F = torch.nn.functional
    eps = mod.EPS
    norms = {}
    for bn in ("bn1", "bn2", "bn3"):
        inv = f[bn + ".inv_variance"].double().reshape(-1)
        var = (1.0 / inv**2 - eps).float()
        norms[bn] = (f[bn + ".mean"].reshape(-1), var, f[bn + ".weight"].reshape(-1), f[bn + ".bias"].reshape(-1))

    def bn(v, name):
        return F.batch_norm(v, *norms[name], False, 0.0, eps)

    def block():
        x = f["x"]
        hid = F.silu(bn(F.conv2d(x, f["expand.weight"]), "bn1"))
        hid = F.silu(bn(F.conv2d(hid, f["depthwise.weight"], padding=k // 2, groups=hid.shape[1]), "bn2"))
        s = hid.mean((2, 3), keepdim=True)
        s = F.silu(F.conv2d(s, f["se.reduce.weight"], f["se.reduce.bias"].reshape(-1)))
        s = torch.sigmoid(F.conv2d(s, f["se.expand.weight"], f["se.expand.bias"].reshape(-1)))
        return bn(F.conv2d(hid * s, f["project.weight"]), "bn3") + x

    return block


CASES = {("efficientnet_mbconv", "forward"): forward}
