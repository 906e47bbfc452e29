"""The PyTorch side of the models' backward graphs, shared by the blocks:
autograd through the block's forward, run on leaf copies of its inputs."""


def leaves_of(torch, tensors, names):
    """Copies of `tensors[name]` for each name that autograd differentiates
    against (the graph's own buffers stay as they are)."""
    return {name: tensors[name].detach().clone().requires_grad_(True) for name in names}


def backward_of(torch, leaves, dy):
    """(make, grads) for a backward graph, one that starts from the forward's
    saved activations and dy: make(forward) records the forward once and
    returns backward(), each call the gradients of every leaf for dy (the
    recording kept for the next call), which grads(backward) names as the
    graph does, "<leaf>.grad"."""
    names = list(leaves)

    def make(forward):
        with torch.enable_grad():
            y = forward()
        tensors = [leaves[name] for name in names]

        def backward():
            return torch.autograd.grad(y, tensors, dy, retain_graph=True)

        return backward

    def grads(backward):
        return {name + ".grad": g for name, g in zip(names, backward())}

    return make, grads


def training_step_of(torch, leaves, dy, reset=None, forward_outputs=None):
    """(make, grads) for a graph that is a whole training step: make(forward)
    returns step(), each call the forward under autograd and then the
    gradients of every leaf for dy, as the graph computes both. grads(step)
    calls reset() first (where the forward updates state in place, e.g.
    running statistics) and gives y and forward_outputs()'s tensors besides
    the "<leaf>.grad" gradients."""
    names = list(leaves)

    def make(forward):
        tensors = [leaves[name] for name in names]

        def step():
            with torch.enable_grad():
                y = forward()
                gradients = torch.autograd.grad(y, tensors, dy)
            step.y = y.detach()
            return gradients

        return step

    def grads(step):
        if reset:
            reset()
        gradients = step()
        out = {"y": step.y, **(forward_outputs() if forward_outputs else {})}
        return {**out, **{name + ".grad": g for name, g in zip(names, gradients)}}

    return make, grads
