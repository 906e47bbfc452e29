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

from ._autograd import leaves_of, training_step_of


def resnet_backward_torch(torch, mod, f, n, c, mid, h, w):
    F = torch.nn.functional
    layers = mod.LAYERS
    names = ["x"] + [conv + ".weight" for conv, _, _, _ in layers]
    names += [bn + part for _, bn, _, _ in layers for part in (".weight", ".bias")]
    leaves = leaves_of(torch, f, names)
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

    def reset():  # compared from the given statistics
        for name, t in running.items():
            t.copy_(f[name].reshape(-1))

    def forward_outputs():
        return {f"{bn}.next_{s}": running[f"{bn}.{s}"].clone() for _, bn, _, _ in layers for s in ("running_mean", "running_var")}

    # The graph is the whole training step, so the timed call is too (the
    # running statistics updated in place, as training does).
    return (block, *training_step_of(torch, leaves, f["dy"], reset, forward_outputs))


CASES = {("resnet_bottleneck", "backward"): resnet_backward_torch}
