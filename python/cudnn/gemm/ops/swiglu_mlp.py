"""``cudnn.gemm.ops.swiglu_mlp``: the SwiGLU MLP of Llama/Qwen models,

    out = (silu(x @ Wg^T) * (x @ Wu^T)) @ Wd^T

as a torch autograd op whose forward and backward run on this package's
graphs (``cudnn.pygraph``), as the frontend's op of the same name runs on
cuDNN graphs. ``x`` is ``[..., H]``, the weights are the ``nn.Linear``
tensors ``Wg, Wu: [I, H]`` and ``Wd: [H, I]``; they enter the matmuls as
transposed views (strided graph tensors), never as transposed copies.

The graphs:

* ``_swiglu_act``: ``h = swish(x @ Wg^T) * (x @ Wu^T)`` in one graph (two
  matmuls, swish, mul), also writing the pre-activations ``gate`` and
  ``up`` for the backward when ``save_preacts`` (the default);
* ``_mm``: one matmul ``a @ b`` (the down projection and the weight
  gradients);
* ``_dgrad_dswiglu``: ``dh = dout @ Wd`` and, on it, ``dup = dh *
  swish(gate)`` and ``dgate = swish_backward(dh, gate) * up`` (the matmul
  with a two-output pointwise epilogue; ``dh`` is not a graph output);
* ``_dgrad_x``: ``dx = dgate @ Wg + dup @ Wu`` (two matmuls and an add).

Each graph is built once per (dims, strides, data types, device, stream)
of its buffers and kept in a dict; a later call with the same key only
executes it. The matmuls accumulate and the intermediates are kept in FLOAT;
gate and up are rounded to the io type (as stored for the backward) before
the activation, so h is the same whether they are written out or not.

torch is imported only when a function needs it (``swiglu_mlp``, or a
helper given torch tensors); importing this module needs none. The helper
functions also take numpy arrays (float32, or uint16 holding bf16 bits),
which run on the CPU reference: that is how the graphs are tested without a
GPU.

The frontend's op needs an SM100 (Blackwell) GPU for its fused kernel; the
graphs here are plain matmul and pointwise graphs that ask for no
architecture: the compiler picks their engines."""

import cudnn
from graph_compiler import _buffers

_FP32 = cudnn.data_type.FLOAT

# (device index, stream) -> handle, its stream set once when made
_HANDLES = {}
# (graph kind, buffer keys..., options) -> _Built
_GRAPHS = {}


def _torch():
    try:
        import torch
    except ImportError as exc:
        raise ImportError("cudnn.gemm.ops.swiglu_mlp needs PyTorch (the 'torch' package), which is not installed") from exc
    return torch


def _is_torch(buf) -> bool:
    return _buffers.is_torch_tensor(buf)


def _key(buf):
    """What a graph built for ``buf`` depends on: dims, element strides,
    element type and device."""
    d = _buffers.describe(buf)
    return tuple(d.dims), tuple(d.strides), d.kind, d.device


def _handle(buf):
    """(handle, stream key) for a buffer: for a CUDA torch tensor the
    handle of (its device, torch's current stream there), made once with
    that stream; a CPU buffer needs none."""
    if not (_is_torch(buf) and buf.device.type == "cuda"):
        return None, None
    torch = _torch()
    device = buf.device
    stream = torch.cuda.current_stream(device).cuda_stream
    key = (device.index, stream)
    handle = _HANDLES.get(key)
    if handle is None:
        with torch.cuda.device(device):
            handle = cudnn.create_handle()
            cudnn.set_stream(handle=handle, stream=stream)
        _HANDLES[key] = handle
    return handle, key


def _empty(like, shape):
    """An uninitialized buffer of ``shape`` with ``like``'s element type and
    device."""
    if _is_torch(like):
        return _torch().empty(tuple(shape), dtype=like.dtype, device=like.device)
    import numpy as np

    return np.empty(tuple(shape), like.dtype)


def _dense(buf):
    """``buf`` with row-major strides (itself when it has them)."""
    if _is_torch(buf):
        return buf.contiguous()
    import numpy as np

    return np.ascontiguousarray(buf)


def _io_type(buf):
    return _buffers.default_data_type(_buffers.describe(buf).kind)


class _Built:
    """A built graph, its input and output tensors by name, and the
    workspace it executes with."""

    def __init__(self, graph, inputs, outputs, handle, workspace):
        self.graph = graph
        self.inputs = inputs
        self.outputs = outputs
        self.handle = handle
        self.workspace = workspace

    def run(self, buffers, out_shapes, like):
        """Execute on ``buffers`` (input name -> buffer); returns the new
        output buffers by name, each of ``out_shapes[name]``."""
        outs = {name: _empty(like, out_shapes[name]) for name in self.outputs}
        pack = {self.inputs[name]: buf for name, buf in buffers.items()}
        pack.update({self.outputs[name]: buf for name, buf in outs.items()})
        self.graph.execute(pack, self.workspace, handle=self.handle)
        return outs


def _graph(kind, buffers, options, build):
    """The cached graph ``kind`` for these input buffers (name -> buffer)
    and options, made by ``build(graph, inputs)`` (which returns the outputs
    by name) the first time."""
    first = next(iter(buffers.values()))
    handle, stream_key = _handle(first)
    key = (kind, tuple((name, _key(buf)) for name, buf in buffers.items()), options, stream_key)
    built = _GRAPHS.get(key)
    if built is None:
        io = _io_type(first)
        g = cudnn.pygraph(name=f"swiglu_mlp_{kind}", io_data_type=io, intermediate_data_type=_FP32, compute_data_type=_FP32, handle=handle)
        inputs = {name: g.tensor_like(buf, name=name) for name, buf in buffers.items()}
        outputs = build(g, inputs)
        for name, t in outputs.items():
            t.set_output(True).set_data_type(io).set_name(name)
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        g.check_support()
        g.build_plans()
        workspace = None
        size = g.get_workspace_size()
        if size and _is_torch(first):
            workspace = _torch().empty(size, dtype=_torch().uint8, device=first.device)
        built = _Built(g, inputs, outputs, handle, workspace)
        _GRAPHS[key] = built
    return built


def _batched(buf):
    return buf[None]


def _mm(a2, b2):
    """``a2 @ b2`` for ``a2: [M, K]``, ``b2: [K, N]`` (any strides, e.g.
    transposed views) as one cached matmul graph; returns ``[M, N]``."""
    M, K = a2.shape
    N = b2.shape[1]

    def build(g, t):
        return {"C": g.matmul(name="mm", A=t["A"], B=t["B"])}

    built = _graph("mm", {"A": _batched(a2), "B": _batched(b2)}, (), build)
    outs = built.run({"A": _batched(a2), "B": _batched(b2)}, {"C": (1, M, N)}, a2)
    return outs["C"][0]


def _swiglu_act(x, Wg, Wu, *, save_preacts=True):
    """``h = silu(x @ Wg^T) * (x @ Wu^T)`` for ``x: [M, H]``, ``Wg, Wu: [I, H]``
    in one graph; the weights are bound as their transposed views. Returns
    ``(h, gate, up)``, each ``[M, I]``: ``gate = x @ Wg^T`` and ``up = x @ Wu^T``
    are written out when ``save_preacts``, else they are None (an h-only
    graph)."""
    M = x.shape[0]
    interm = Wg.shape[0]
    buffers = {"x": _batched(x), "wg": _batched(Wg.T), "wu": _batched(Wu.T)}

    def build(g, t):
        gate = g.matmul(name="gate", A=t["x"], B=t["wg"])
        up = g.matmul(name="up", A=t["x"], B=t["wu"])
        # rounded to the io type as they are stored: h does not depend on
        # whether they are written out
        io = _io_type(x)
        gate.set_data_type(io)
        up.set_data_type(io)
        h = g.mul(name="swiglu", a=g.swish(name="silu", input=gate), b=up)
        outputs = {"h": h}
        if save_preacts:
            outputs.update(gate=gate, up=up)
        return outputs

    built = _graph("swiglu", buffers, (bool(save_preacts),), build)
    shape = (1, M, interm)
    outs = built.run(buffers, {name: shape for name in built.outputs}, x)
    if not save_preacts:
        return outs["h"][0], None, None
    return outs["h"][0], outs["gate"][0], outs["up"][0]


def _dgrad_dswiglu(dout2, Wd, gate, up):
    """The backward through the down projection and the SwiGLU in one graph:
    ``dh = dout2 @ Wd`` (kept in FLOAT, not written out), ``dup = dh *
    silu(gate)`` and ``dgate = dh * silu'(gate) * up``. ``dout2: [M, H]``,
    ``Wd: [H, I]``, ``gate, up: [M, I]``; returns ``(dgate, dup)``, ``[M, I]``."""
    M = dout2.shape[0]
    interm = Wd.shape[1]
    buffers = {"dout": _batched(dout2), "wd": _batched(Wd), "gate": _batched(gate), "up": _batched(up)}

    def build(g, t):
        dh = g.matmul(name="dgrad", A=t["dout"], B=t["wd"])
        dup = g.mul(name="dup", a=dh, b=g.swish(name="silu", input=t["gate"]))
        dgate = g.mul(name="dgate", a=g.swish_backward(name="dsilu", loss=dh, input=t["gate"]), b=t["up"])
        return {"dgate": dgate, "dup": dup}

    built = _graph("dswiglu", buffers, (), build)
    outs = built.run(buffers, {"dgate": (1, M, interm), "dup": (1, M, interm)}, dout2)
    return outs["dgate"][0], outs["dup"][0]


def _dgrad_x(dgate, Wg, dup, Wu):
    """``dx = dgate @ Wg + dup @ Wu`` (``dgate, dup: [M, I]``, ``Wg, Wu:
    [I, H]``) in one graph; returns ``[M, H]``."""
    M = dgate.shape[0]
    H = Wg.shape[1]
    buffers = {"dgate": _batched(dgate), "wg": _batched(Wg), "dup": _batched(dup), "wu": _batched(Wu)}

    def build(g, t):
        via_gate = g.matmul(name="dx_gate", A=t["dgate"], B=t["wg"])
        via_up = g.matmul(name="dx_up", A=t["dup"], B=t["wu"])
        return {"dx": g.add(name="dx", a=via_gate, b=via_up)}

    built = _graph("dx", buffers, (), build)
    return built.run(buffers, {"dx": (1, M, H)}, dgate)["dx"][0]


def _forward(x2, Wg, Wu, Wd, save_preacts=True):
    """(out, h, gate, up) of the MLP on ``x2: [M, H]``."""
    h, gate, up = _swiglu_act(x2, Wg, Wu, save_preacts=save_preacts)
    return _mm(h, Wd.T), h, gate, up


def _backward(dout2, x2, Wg, Wu, Wd, h, gate, up):
    """(dx2, dWg, dWu, dWd) of the MLP from the forward's saved tensors."""
    dgate, dup = _dgrad_dswiglu(dout2, Wd, gate, up)
    dx2 = _dgrad_x(dgate, Wg, dup, Wu)
    return dx2, _mm(dgate.T, x2), _mm(dup.T, x2), _mm(dout2.T, h)


_FUNCTION = None


def _function():
    """The torch.autograd.Function, defined on first use (torch is imported
    then)."""
    global _FUNCTION
    if _FUNCTION is not None:
        return _FUNCTION
    torch = _torch()

    class _SwigluMLP(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, Wg, Wu, Wd):
            x2 = x.reshape(-1, x.shape[-1])
            out, h, gate, up = _forward(x2, Wg, Wu, Wd, save_preacts=True)
            ctx.save_for_backward(x2, Wg, Wu, Wd, h, gate, up)
            ctx.x_shape = x.shape
            return out.reshape(*x.shape[:-1], Wd.shape[0])

        @staticmethod
        def backward(ctx, dout):
            x2, Wg, Wu, Wd, h, gate, up = ctx.saved_tensors
            # autograd may hand an expanded (zero-stride) gradient; the graphs
            # take it dense
            dout2 = _dense(dout.reshape(-1, Wd.shape[0]))
            dx2, dWg, dWu, dWd = _backward(dout2, x2, Wg, Wu, Wd, h, gate, up)
            return dx2.reshape(ctx.x_shape), dWg, dWu, dWd

    _FUNCTION = _SwigluMLP
    return _FUNCTION


def swiglu_mlp(x, Wg, Wu, Wd):
    """``(silu(x @ Wg^T) * (x @ Wu^T)) @ Wd^T`` with its backward, on this
    package's graphs.

    Args:
        x: activations ``[..., H]`` (bf16, CUDA).
        Wg, Wu: gate and up weights ``[I, H]`` (bf16).
        Wd: down weight ``[H, I]`` (bf16).

    Returns:
        ``[..., H]`` (bf16), differentiable in all four inputs (the backward
        gives dx, dWg, dWu, dWd).

    Raises ImportError without torch, TypeError for a dtype other than
    bfloat16 and ValueError for a tensor not on the GPU, on another device
    than x, or shapes that do not fit together.
    """
    torch = _torch()
    for name, t in (("x", x), ("Wg", Wg), ("Wu", Wu), ("Wd", Wd)):
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"cudnn.gemm.swiglu_mlp: {name} must be a torch tensor, got {type(t).__name__}")
        if t.dtype != torch.bfloat16:
            raise TypeError(f"cudnn.gemm.swiglu_mlp: {name} must be bfloat16, got {t.dtype}")
        if t.device.type != "cuda":
            raise ValueError(f"cudnn.gemm.swiglu_mlp: {name} must be a CUDA tensor, got device {t.device}")
    if any(t.device != x.device for t in (Wg, Wu, Wd)):
        raise ValueError(f"cudnn.gemm.swiglu_mlp: x, Wg, Wu and Wd must be on one device; got {x.device}, {Wg.device}, {Wu.device}, {Wd.device}")
    if x.dim() < 2 or Wg.dim() != 2 or Wu.dim() != 2 or Wd.dim() != 2:
        raise ValueError(f"cudnn.gemm.swiglu_mlp: x must be [..., H] and Wg, Wu, Wd 2-D; got x{tuple(x.shape)}, Wg{tuple(Wg.shape)}, Wu{tuple(Wu.shape)}, Wd{tuple(Wd.shape)}")
    H = x.shape[-1]
    interm = Wg.shape[0]
    if tuple(Wg.shape) != (interm, H) or tuple(Wu.shape) != (interm, H) or tuple(Wd.shape) != (H, interm):
        raise ValueError(f"cudnn.gemm.swiglu_mlp: with x[..., {H}] the weights must be Wg, Wu [I, {H}] and Wd [{H}, I]; got Wg{tuple(Wg.shape)}, Wu{tuple(Wu.shape)}, Wd{tuple(Wd.shape)}")
    return _function().apply(x, Wg, Wu, Wd)
