"""GPU benchmarks against PyTorch, same process, same inputs (issue: GPU
path 1). Each case builds its graph through our package (imported as
`cudnn`), checks the result against PyTorch, then times both with a
synchronize at the start and the end of N back-to-back executes (our
work is queued on PyTorch's current stream through cudnn.set_stream, so
both sides launch asynchronously and the host overhead is in the figure). Prints one line per case and a JSON summary to stdout.

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 bench/gpu/bench_vs_torch.py
"""

import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cudnn  # noqa: E402


def timed(fn, iters, repeats=5):
    """Median seconds per call over `repeats` batches of `iters` calls."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize()
        samples.append((time.perf_counter() - start) / iters)
    return statistics.median(samples)


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def new_graph(io=cudnn.data_type.BFLOAT16):
    return cudnn.pygraph(io_data_type=io, intermediate_data_type=cudnn.data_type.FLOAT,
                         compute_data_type=cudnn.data_type.FLOAT)


def case_matmul(m=8192, n=8192, k=8192, epilogue=False):
    a = torch.randn(1, m, k, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(1, k, n, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1, 1, n, device="cuda", dtype=torch.bfloat16)
    g = new_graph()
    A, B = g.tensor_like(a), g.tensor_like(b)
    C = g.matmul(A=A, B=B)
    pack = {A: a, B: b}
    if epilogue:
        BIAS = g.tensor_like(bias)
        C = g.gelu(input=g.bias(input=C, bias=BIAS))
        pack[BIAS] = bias
    C.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    c = torch.empty(1, m, n, device="cuda", dtype=torch.bfloat16)
    pack[C] = c
    ours = lambda: g.execute(pack)  # noqa: E731
    if epilogue:
        theirs = lambda: F.gelu(torch.matmul(a, b) + bias)  # noqa: E731
    else:
        theirs = lambda: torch.matmul(a, b)  # noqa: E731
    ours()
    torch.cuda.synchronize()
    err = rel_err(c, theirs())
    flops = 2.0 * m * n * k
    t_ours, t_torch = timed(ours, 10), timed(theirs, 10)
    return dict(err=err, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3,
                ours_tflops=flops / t_ours / 1e12, torch_tflops=flops / t_torch / 1e12)


def case_conv(n=32, c=64, hw=56, k=64):
    x = torch.randn(n, c, hw, hw, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    w = torch.randn(k, c, 3, 3, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    bias = torch.randn(1, k, 1, 1, device="cuda", dtype=torch.half)
    g = new_graph(cudnn.data_type.HALF)
    X, W, BIAS = g.tensor_like(x), g.tensor_like(w), g.tensor_like(bias)
    Y = g.relu(input=g.bias(input=g.conv_fprop(image=X, weight=W, padding=[1, 1], stride=[1, 1], dilation=[1, 1]), bias=BIAS))
    Y.set_output(True)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty(n, k, hw, hw, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    pack = {X: x, W: w, BIAS: bias, Y: y}
    ours = lambda: g.execute(pack)  # noqa: E731
    theirs = lambda: F.relu(F.conv2d(x, w, bias.view(k), padding=1))  # noqa: E731
    ours()
    torch.cuda.synchronize()
    err = rel_err(y, theirs())
    flops = 2.0 * n * k * c * 9 * hw * hw
    t_ours, t_torch = timed(ours, 20), timed(theirs, 20)
    return dict(err=err, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3,
                ours_tflops=flops / t_ours / 1e12, torch_tflops=flops / t_torch / 1e12)


def case_sdpa(b=4, h=16, s=4096, d=128):
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    g = new_graph()
    Q, K, V = g.tensor_like(q), g.tensor_like(k), g.tensor_like(v)
    O, stats = g.sdpa(q=Q, k=K, v=V, is_inference=False, attn_scale=1.0 / math.sqrt(d), use_causal_mask=True)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    stats.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A])
    o = torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    st = torch.empty(b, h, s, 1, device="cuda", dtype=torch.float32)
    pack = {Q: q, K: k, V: v, O: o, stats: st}
    ours = lambda: g.execute(pack)  # noqa: E731
    from torch.nn.attention import SDPBackend, sdpa_kernel

    def theirs():
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    ours()
    torch.cuda.synchronize()
    err = rel_err(o, theirs())
    flops = 4.0 * b * h * s * s * d / 2  # causal: half the score matrix
    t_ours, t_torch = timed(ours, 10), timed(theirs, 10)
    return dict(err=err, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3,
                ours_tflops=flops / t_ours / 1e12, torch_tflops=flops / t_torch / 1e12)


def case_sdpa_bwd(b=4, h=16, s=4096, d=128):
    q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(4))
    scale = 1.0 / math.sqrt(d)
    # The forward's O and Stats come from our forward graph.
    g = new_graph()
    Q, K, V = g.tensor_like(q), g.tensor_like(k), g.tensor_like(v)
    O, stats = g.sdpa(q=Q, k=K, v=V, is_inference=False, attn_scale=scale, use_causal_mask=True)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    stats.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A])
    o = torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    st = torch.empty(b, h, s, 1, device="cuda", dtype=torch.float32)
    g.execute({Q: q, K: k, V: v, O: o, stats: st})
    gb = new_graph()
    tq, tk, tv, to, tdo, tst = (gb.tensor_like(t) for t in (q, k, v, o, do, st))
    dQ, dK, dV = gb.sdpa_backward(q=tq, k=tk, v=tv, o=to, dO=tdo, stats=tst, attn_scale=scale, use_causal_mask=True)
    for t in (dQ, dK, dV):
        t.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    gb.build([cudnn.heur_mode.A])
    dq, dk, dv = (torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    pack = {tq: q, tk: k, tv: v, to: o, tdo: do, tst: st, dQ: dq, dK: dk, dV: dv}
    ours = lambda: gb.execute(pack)  # noqa: E731
    from torch.nn.attention import SDPBackend, sdpa_kernel

    qr, kr, vr = (t.detach().clone().requires_grad_() for t in (q, k, v))
    with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
        out = F.scaled_dot_product_attention(qr, kr, vr, is_causal=True)

    def theirs():
        return torch.autograd.grad(out, (qr, kr, vr), do, retain_graph=True)

    ours()
    torch.cuda.synchronize()
    ref = theirs()
    err = max(rel_err(dq, ref[0]), rel_err(dk, ref[1]), rel_err(dv, ref[2]))
    flops = 2.5 * 4.0 * b * h * s * s * d / 2  # bwd ~2.5x fwd, causal half
    t_ours, t_torch = timed(ours, 10), timed(theirs, 10)
    return dict(err=err, ours_ms=t_ours * 1e3, torch_ms=t_torch * 1e3,
                ours_tflops=flops / t_ours / 1e12, torch_tflops=flops / t_torch / 1e12)


def autotuned(case):
    def run():
        os.environ["GRAPH_AUTOTUNE"] = "1"
        try:
            return case()
        finally:
            os.environ.pop("GRAPH_AUTOTUNE", None)
    return run


def case_overhead():
    """Host time of one execute of a 1-op graph on a tiny tensor."""
    x = torch.randn(1, 1, 256, device="cuda", dtype=torch.float32)
    g = new_graph(cudnn.data_type.FLOAT)
    X = g.tensor_like(x)
    Y = g.relu(input=X)
    Y.set_output(True)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty_like(x)
    pack = {X: x, Y: y}
    ours = lambda: g.execute(pack)  # noqa: E731
    theirs = lambda: torch.relu(x)  # noqa: E731
    ours()
    torch.cuda.synchronize()
    err = rel_err(y, theirs())
    t_ours, t_torch = timed(ours, 200), timed(theirs, 200)
    return dict(err=err, ours_us=t_ours * 1e6, torch_us=t_torch * 1e6)


def main():
    cases = [
        ("matmul bf16 8192^3", lambda: case_matmul()),
        ("matmul+bias+gelu bf16 8192^3", lambda: case_matmul(epilogue=True)),
        ("conv3x3+bias+relu fp16 NHWC n32 c64 56x56", case_conv),
        ("conv3x3+bias+relu fp16 NHWC n32 c64 56x56, autotuned", autotuned(case_conv)),
        ("sdpa fwd bf16 causal b4 h16 s4096 d128", case_sdpa),
        ("sdpa bwd bf16 causal b4 h16 s4096 d128", case_sdpa_bwd),
        ("host overhead, 1-op graph", case_overhead),
    ]
    results = {}
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}")
    # Our work goes on PyTorch's stream, in order with its own: no sync per
    # execute (as the frontend does with cudnn.set_stream).
    handle = cudnn.create_handle()
    cudnn.set_stream(handle=handle, stream=torch.cuda.current_stream().cuda_stream)
    for name, fn in cases:
        try:
            r = fn()
        except Exception as exc:  # noqa: BLE001 - report and go on
            r = dict(error=f"{type(exc).__name__}: {str(exc)[:400]}")
        results[name] = r
        if "error" in r:
            print(f"{name}: ERROR {r['error']}")
        elif "ours_us" in r:
            print(f"{name}: ours {r['ours_us']:.1f} us, torch {r['torch_us']:.1f} us "
                  f"(ratio {r['torch_us'] / r['ours_us']:.2f}), rel err {r['err']:.2g}")
        else:
            print(f"{name}: ours {r['ours_ms']:.3f} ms ({r['ours_tflops']:.0f} TFLOP/s), "
                  f"torch {r['torch_ms']:.3f} ms ({r['torch_tflops']:.0f} TFLOP/s), "
                  f"ours/torch throughput {r['torch_ms'] / r['ours_ms']:.2f}, rel err {r['err']:.2g}")
        sys.stdout.flush()
    print("JSON " + json.dumps(results))


if __name__ == "__main__":
    main()
