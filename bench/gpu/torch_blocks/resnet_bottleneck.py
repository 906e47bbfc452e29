"""ResNet-50 bottleneck block's training step (torchvision's Bottleneck,
stride 1, identity shortcut) in PyTorch, for bench_models.py:

    y = relu(bn3(conv1x1(relu(bn2(conv3x3(relu(bn1(conv1x1(x)))))))) + x)

with training-mode batch norm (F.batch_norm training=True: batch
statistics, running statistics updated in place with the model's
momentum), fp16 channels-last activations and filters, f32 batch-norm
parameters and statistics, as an AMP user's model has them. The graph's
"backward" is the whole step as one graph, so each timed call here is too:
the forward under autograd, then the gradients of x and every parameter
for the graph's dy. The forward's outputs the graph also gives (y and each
batch norm's next running mean and variance) come from that call.
"""


def resnet_backward_torch(torch, mod, f, n, c, mid, h, w):
    F = torch.nn.functional
    layers = mod.LAYERS
    names = ["x"] + [conv + ".weight" for conv, _, _, _ in layers]
    names += [bn + part for _, bn, _, _ in layers for part in (".weight", ".bias")]
    leaves = {name: f[name].detach().clone().requires_grad_(True) for name in names}
    # the running statistics F.batch_norm updates: copies, so that the
    # graph's input buffers stay as they are
    running = {bn + s: f[bn + s].reshape(-1).clone() for _, bn, _, _ in layers for s in (".running_mean", ".running_var")}

    def block():
        x = leaves["x"]
        act = x
        for conv, bn, _, pad in layers:
            z = F.batch_norm(
                F.conv2d(act, leaves[conv + ".weight"], padding=pad),
                running[bn + ".running_mean"],
                running[bn + ".running_var"],
                leaves[bn + ".weight"].reshape(-1),
                leaves[bn + ".bias"].reshape(-1),
                training=True,
                momentum=mod.MOMENTUM,
                eps=mod.EPS,
            )
            act = F.relu(z) if conv != "conv3" else z
        return F.relu(act + x)

    # The graph is the whole training step, so the timed call is too: the
    # forward under autograd (updating the running statistics, as training
    # does), then the gradients for dy.
    def make(forward):
        tensors = [leaves[name] for name in names]

        def step():
            with torch.enable_grad():
                y = forward()
                gradients = torch.autograd.grad(y, tensors, f["dy"])
            step.y = y.detach()
            return gradients

        return step

    def grads(step):
        for name, t in running.items():  # compared from the given statistics
            t.copy_(f[name].reshape(-1))
        gradients = step()
        out = {"y": step.y}
        for _, bn, _, _ in layers:
            for s in ("running_mean", "running_var"):
                out[f"{bn}.next_{s}"] = running[f"{bn}.{s}"].clone()
        return {**out, **{name + ".grad": g for name, g in zip(names, gradients)}}

    return block, make, grads


CASES = {("resnet_bottleneck", "backward"): resnet_backward_torch}
