"""Graphs executed inside a PyTorch CUDA-graph capture, as training and
serving code does it (torch.cuda.graph around the step, then replay with
new inputs copied into the captured buffers). The handle's stream is the
capture stream, as frontend programs set it. Each program runs once
outside the capture (plans built, kernels loaded), captures one execute,
changes the inputs in place, replays and checks the outputs against torch.
Run on a machine with a GPU and torch:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/cuda_graph_capture.py

Prints PASS/FAIL per program and "N passed, M failed"; exits 1 on failure.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

import cudnn  # noqa: E402  (our package, through its cudnn shim)
from frontend_programs import rel_err, run  # noqa: E402  (same folder)

BF16 = dict(io_data_type=cudnn.data_type.BFLOAT16, intermediate_data_type=cudnn.data_type.FLOAT,
            compute_data_type=cudnn.data_type.FLOAT)


def _captured(graph, pack, handle, stream):
    """Executes once on the handle's stream, then captures one execute into
    a CUDA graph and returns it (not yet replayed)."""
    workspace = torch.empty(max(graph.get_workspace_size(), 1), device="cuda", dtype=torch.uint8)
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        graph.execute(pack, workspace, handle=handle)
    stream.synchronize()
    capture = torch.cuda.CUDAGraph()
    with torch.cuda.graph(capture, stream=stream):
        graph.execute(pack, workspace, handle=handle)
    return capture, workspace


def _handle_on_new_stream():
    stream = torch.cuda.Stream()
    handle = cudnn.create_handle()
    cudnn.set_stream(handle=handle, stream=stream.cuda_stream)
    return handle, stream


def capture_matmul_bias_relu():
    torch.manual_seed(10)
    handle, stream = _handle_on_new_stream()
    a = torch.randn(4, 256, 512, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4, 512, 128, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1, 1, 128, device="cuda", dtype=torch.bfloat16)
    graph = cudnn.pygraph(handle=handle, **BF16)
    A, B, BIAS = graph.tensor_like(a), graph.tensor_like(b), graph.tensor_like(bias)
    Y = graph.relu(input=graph.bias(input=graph.matmul(A=A, B=B), bias=BIAS))
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty(4, 256, 128, device="cuda", dtype=torch.bfloat16)
    capture, _ = _captured(graph, {A: a, B: b, BIAS: bias, Y: y}, handle, stream)
    a.copy_(torch.randn_like(a))
    y.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    return rel_err(y, torch.relu(a.float() @ b.float() + bias.float())), 1e-2


def capture_layernorm_host_epsilon():
    """Layernorm training with epsilon as a CPU tensor, as the frontend's
    norm programs pass it: the value is read when the graph is captured."""
    torch.manual_seed(11)
    handle, stream = _handle_on_new_stream()
    x = torch.randn(64, 2048, 1, 1, device="cuda", dtype=torch.bfloat16)
    scale, bias = (torch.randn(1, 2048, 1, 1, device="cuda") for _ in range(2))
    eps = torch.full((1, 1, 1, 1), 1e-5)
    graph = cudnn.pygraph(handle=handle, **BF16)
    X, SCALE, BIAS, EPS = graph.tensor_like(x), graph.tensor_like(scale), graph.tensor_like(bias), graph.tensor_like(eps)
    Y, MEAN, INV = graph.layernorm(norm_forward_phase=cudnn.norm_forward_phase.TRAINING, input=X, scale=SCALE,
                                   bias=BIAS, epsilon=EPS)
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    MEAN.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    INV.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty_like(x)
    mean, inv = (torch.empty(64, 1, 1, 1, device="cuda") for _ in range(2))
    capture, _ = _captured(graph, {X: x, SCALE: scale, BIAS: bias, EPS: eps, Y: y, MEAN: mean, INV: inv}, handle, stream)
    x.copy_(torch.randn_like(x) * 3 + 1)
    y.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.float().view(64, 2048), [2048], scale.view(2048), bias.view(2048), 1e-5)
    return max(rel_err(y.view(64, 2048), ref), rel_err(mean.view(64), x.float().view(64, 2048).mean(1))), 1e-2


def capture_sdpa_causal():
    torch.manual_seed(12)
    handle, stream = _handle_on_new_stream()
    b, h, s, d = 2, 8, 1024, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    graph = cudnn.pygraph(handle=handle, **BF16)
    Q, K, V = graph.tensor_like(q), graph.tensor_like(k), graph.tensor_like(v)
    O, _ = graph.sdpa(q=Q, k=K, v=V, is_inference=True, attn_scale=1.0 / math.sqrt(d), use_causal_mask=True)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    graph.build([cudnn.heur_mode.A])
    o = torch.empty_like(q)
    capture, _ = _captured(graph, {Q: q, K: k, V: v, O: o}, handle, stream)
    for t in (q, k, v):
        t.copy_(torch.randn_like(t))
    o.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
    return rel_err(o, ref), 1e-2


def _softmax_mlp(handle, x, w1, w2):
    """exp(x @ w1 - rowmax) @ w2, built: cuDNN matmul groups around a
    generated row reduction. Returns the graph and its X, W1, W2, Y."""
    graph = cudnn.pygraph(handle=handle, **BF16)
    X, W1, W2 = graph.tensor_like(x), graph.tensor_like(w1), graph.tensor_like(w2)
    H = graph.matmul(A=X, B=W1)
    H.set_data_type(cudnn.data_type.FLOAT)
    M = graph.reduction(input=H, mode=cudnn.reduction_mode.MAX)
    M.set_dim([x.shape[0], x.shape[1], 1]).set_data_type(cudnn.data_type.FLOAT)
    Y = graph.matmul(A=graph.exp(input=graph.sub(a=H, b=M)), B=W2)
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    return graph, (X, W1, W2, Y)


def _softmax_mlp_reference(x, w1, w2):
    h = x.float() @ w1.float()
    return torch.exp(h - h.amax(-1, keepdim=True)) @ w2.float()


def _mlp_inputs(seed):
    """Seeded x, w1, w2 of _softmax_mlp's sizes."""
    torch.manual_seed(seed)
    x = torch.randn(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    w1 = torch.randn(1, 256, 1024, device="cuda", dtype=torch.bfloat16) / 16
    w2 = torch.randn(1, 1024, 256, device="cuda", dtype=torch.bfloat16) / 32
    return x, w1, w2


def _replay_mlp(capture, x, w1, w2, y, times=2):
    """Replays a captured _softmax_mlp execute `times` times, each with a new
    x in place and y poisoned first; the worst relative error against torch."""
    worst = 0.0
    for _ in range(times):
        x.copy_(torch.randn_like(x))
        y.fill_(float("nan"))
        capture.replay()
        torch.cuda.synchronize()
        worst = max(worst, rel_err(y, _softmax_mlp_reference(x, w1, w2)))
    return worst


def capture_multi_group_mlp():
    """matmul -> row max -> exp(h - max) -> matmul: several fused groups
    (cuDNN matmuls, a generated row reduction) in one captured execute,
    replayed twice with different inputs."""
    x, w1, w2 = _mlp_inputs(13)
    handle, stream = _handle_on_new_stream()
    graph, (X, W1, W2, Y) = _softmax_mlp(handle, x, w1, w2)
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    capture, _ = _captured(graph, {X: x, W1: w1, W2: w2, Y: y}, handle, stream)
    return _replay_mlp(capture, x, w1, w2, y), 2e-2


def first_execute_inside_a_global_capture():
    """The graph's first execute happens inside torch.cuda.graph (global
    capture mode, torch's default): the runtime sets the graph up there
    (workspace, kernel modules) without invalidating the capture, as the
    frontend's test_cuda_graph_retention_option does it."""
    torch.manual_seed(15)
    handle, stream = _handle_on_new_stream()
    x = torch.randn(4, 256, 256, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4, 256, 256, device="cuda", dtype=torch.bfloat16) / 16
    graph = cudnn.pygraph(handle=handle, **BF16)
    X, W = graph.tensor_like(x), graph.tensor_like(w)
    H = graph.matmul(A=X, B=W)
    H.set_data_type(cudnn.data_type.FLOAT)
    M = graph.reduction(input=H, mode=cudnn.reduction_mode.MAX)
    M.set_dim([4, 256, 1]).set_data_type(cudnn.data_type.FLOAT)
    Y = graph.exp(input=graph.sub(a=H, b=M))  # a generated kernel group too
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty(4, 256, 256, device="cuda", dtype=torch.bfloat16)
    workspace = torch.empty(max(graph.get_workspace_size(), 1), device="cuda", dtype=torch.uint8)
    stream.wait_stream(torch.cuda.current_stream())
    capture = torch.cuda.CUDAGraph()
    with torch.cuda.graph(capture, stream=stream, capture_error_mode="global"):
        graph.execute({X: x, W: w, Y: y}, workspace, handle=handle)
    y.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    h = x.float() @ w.float()
    return rel_err(y, torch.exp(h - h.amax(-1, keepdim=True))), 2e-2


def graph_collected_during_another_capture():
    """A built and executed graph garbage-collected while another stream
    captures in global mode: its teardown (device frees, module unloads)
    neither invalidates the capture nor breaks later executes."""
    import gc

    torch.manual_seed(16)
    handle = cudnn.create_handle()
    x = torch.randn(2, 128, 256, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(2, 256, 64, device="cuda", dtype=torch.bfloat16)

    def built():
        g = cudnn.pygraph(handle=handle, **BF16)
        X, W = g.tensor_like(x), g.tensor_like(w)
        Y = g.gelu(input=g.matmul(A=X, B=W))
        Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
        g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
        return g, X, W, Y

    keep, KX, KW, KY = built()
    victim, VX, VW, VY = built()
    y = torch.empty(2, 128, 64, device="cuda", dtype=torch.bfloat16)
    victim.execute({VX: x, VW: w, VY: y}, handle=handle)  # its GPU state exists
    torch.cuda.synchronize()
    cycle = [victim]
    cycle.append(cycle)  # freed only by the collector
    del victim, cycle
    copied = torch.empty_like(x)
    capture, stream = torch.cuda.CUDAGraph(), torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        with torch.cuda.graph(capture, stream=stream, capture_error_mode="global"):
            gc.collect()
            copied.copy_(x)
    finally:
        if was_enabled:
            gc.enable()
    copied.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    if not torch.equal(copied, x):
        raise AssertionError("the capture around the collection replayed wrong data")
    y.fill_(float("nan"))
    keep.execute({KX: x, KW: w, KY: y}, handle=handle)
    torch.cuda.synchronize()
    return rel_err(y, torch.nn.functional.gelu(x.float() @ w.float())), 1e-2


def captured_graph_outlives_its_pygraph():
    """A graph built, executed for the first time inside a capture and
    dropped before the replay (a temporary in the captured function): the
    CUDA graph keeps what its kernels use (intermediates, workspace, kernel
    modules) until it is destroyed itself. Memory freed early would be
    handed out again: the NaN-filled allocations after the drop would land
    in it and the replay would read them."""
    import gc

    x, w1, w2 = _mlp_inputs(17)
    handle, stream = _handle_on_new_stream()
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    capture = torch.cuda.CUDAGraph()

    def record():
        graph, (X, W1, W2, Y) = _softmax_mlp(handle, x, w1, w2)
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.graph(capture, stream=stream):
            graph.execute({X: x, W1: w1, W2: w2, Y: y}, handle=handle)

    record()
    gc.collect()  # the pygraph and its compiled graph are gone
    junk = [torch.full((64 << 20,), float("nan"), device="cuda") for _ in range(8)]
    y.fill_(float("nan"))
    capture.replay()
    torch.cuda.synchronize()
    del junk
    err = rel_err(y, _softmax_mlp_reference(x, w1, w2))
    del capture  # the program goes with the graph, at the next library call
    gc.collect()
    torch.cuda.synchronize()
    return err, 2e-2


def _cu(name, *args):
    import ctypes

    status = getattr(ctypes.CDLL("libcuda.so.1"), name)(*args)
    if status != 0:
        raise RuntimeError(f"{name}: CUresult {status}")


def populate_and_update_cuda_graph():
    """The frontend's native CUDA-graph API: populate an empty cudaGraph_t,
    instantiate and launch it; update_cuda_graph with another output buffer,
    cuGraphExecUpdate the instance and launch again."""
    import ctypes

    torch.manual_seed(14)
    handle = cudnn.create_handle()
    a = torch.randn(2, 128, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2, 256, 64, device="cuda", dtype=torch.bfloat16)
    graph = cudnn.pygraph(handle=handle, **BF16)
    A, B = graph.tensor_like(a), graph.tensor_like(b)
    Y = graph.gelu(input=graph.matmul(A=A, B=B))
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    workspace = torch.empty(max(graph.get_workspace_size(), 1), device="cuda", dtype=torch.uint8)
    y1, y2 = torch.full((2, 128, 64), float("nan"), device="cuda", dtype=torch.bfloat16), torch.empty(2, 128, 64, device="cuda", dtype=torch.bfloat16)
    cu_graph, cu_exec = ctypes.c_void_p(), ctypes.c_void_p()
    _cu("cuGraphCreate", ctypes.byref(cu_graph), ctypes.c_uint(0))
    graph.populate_cuda_graph(handle, {A: a, B: b, Y: y1}, workspace, cu_graph.value)
    _cu("cuGraphInstantiateWithFlags", ctypes.byref(cu_exec), cu_graph, ctypes.c_ulonglong(0))
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    _cu("cuGraphLaunch", cu_exec, stream)
    torch.cuda.synchronize()
    ref = torch.nn.functional.gelu(a.float() @ b.float())
    err1 = rel_err(y1, ref)
    y2.fill_(float("nan"))
    a.copy_(torch.randn_like(a))
    graph.update_cuda_graph(handle, {A: a, B: b, Y: y2}, workspace, cu_graph.value)
    info = (ctypes.c_byte * 64)()  # CUgraphExecUpdateResultInfo
    _cu("cuGraphExecUpdate_v2", cu_exec, cu_graph, ctypes.byref(info))
    y1.fill_(float("nan"))
    _cu("cuGraphLaunch", cu_exec, stream)
    torch.cuda.synchronize()
    ref = torch.nn.functional.gelu(a.float() @ b.float())
    if not torch.isnan(y1.float()).all():
        raise AssertionError("the updated CUDA graph still wrote the first output buffer")
    _cu("cuGraphExecDestroy", cu_exec)
    _cu("cuGraphDestroy", cu_graph)
    return max(err1, rel_err(y2, ref)), 1e-2


def main():
    # The host-scalar case last: a capture that fails leaves torch's capture
    # state broken for the programs after it.
    return run((capture_matmul_bias_relu, capture_sdpa_causal, capture_multi_group_mlp,
                populate_and_update_cuda_graph, first_execute_inside_a_global_capture,
                graph_collected_during_another_capture, captured_graph_outlives_its_pygraph,
                capture_layernorm_host_epsilon))


if __name__ == "__main__":
    sys.exit(main())
