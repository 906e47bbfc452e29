"""MobileNetV2 inverted residual block (torchvision's InvertedResidual,
stride 1 with the residual) in PyTorch, eval mode, fp16 channels-last as an
AMP user runs it: 1x1 expand conv, BatchNorm, ReLU6; depthwise 3x3 conv
(groups = channels), BatchNorm, ReLU6; 1x1 project conv, BatchNorm; plus x.

The graph takes each batchnorm as mean and inv_variance (no eps of its
own); F.batch_norm takes the running variance, 1 / inv_variance^2 - eps, for
BatchNorm2d's default eps."""

EPS = 1e-5  # nn.BatchNorm2d's default


def forward(torch, mod, f, n, c, expand, h, w):
    F = torch.nn.functional
    norms = {}
    for _, bn, _, _, _ in mod.LAYERS:
        inv = f[bn + ".inv_variance"].double().reshape(-1)
        var = (1.0 / inv**2 - EPS).float()
        norms[bn] = (f[bn + ".mean"].reshape(-1), var, f[bn + ".weight"].reshape(-1), f[bn + ".bias"].reshape(-1))

    def block():
        x = f["x"]
        act = x
        for conv, bn, _, pad, relu6 in mod.LAYERS:
            weight = f[conv + ".weight"]
            y = F.conv2d(act, weight, padding=pad, groups=act.shape[1] // weight.shape[1])
            y = F.batch_norm(y, *norms[bn], False, 0.0, EPS)
            act = F.relu6(y) if relu6 else y
        return act + x

    return block


CASES = {("mobilenet_block", "forward"): forward}
