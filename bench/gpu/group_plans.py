"""Time every plan cuDNN lists for matmul groups shaped like the Llama
block's projections at full size (bench_models.py's llama_block: T = 8192
tokens, hidden 2048, ffn 5632; bf16 in, f32 compute), each built alone
through `import cudnn` with torch CUDA buffers, and torch's matmul on the
same buffers for comparison:

    gate       [T, H] x [H, F], f32 result (the matmul alone)
    gate_bf16  the same, bf16 result
    up         swish(G) * ([T, H] x [H, F]), G an f32 [T, F] input, bf16 result
    o_proj     [T, H] x [H, H] + residual (bf16), f32 result
    down       [T, F] x [F, H] + residual (f32), bf16 result
    qkv        [T, H] x [H, 3072], bf16 result

Each plan's result is compared with the first plan's that ran
(err-vs-N; the output is filled with NaN before each plan). Usage on the GPU
machine (GRAPH_CAPI_LIBRARY set, scripts/gpu/env.sh sourced):
    WHICH=gate,up LIMIT=200 python3 bench/gpu/group_plans.py
"""
import os, sys, time
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import torch, cudnn
from timing import loop_ms  # the timing loop every bench here uses
dt = cudnn.data_type
T, H, F = 8192, 2048, 5632

def timed(fn, iters=20):
    return loop_ms(torch, fn, iters, warmup=3)

def rnd(*shape, dtype=torch.bfloat16):
    return (torch.rand(*shape, device="cuda", dtype=torch.float32) * 2 - 1).to(dtype) * 0.1

def group(name, K, N, epilogue, out_dtype):
    g = cudnn.pygraph(io_data_type=dt.BFLOAT16, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    a_t, b_t = rnd(T, K), rnd(K, N)
    A = g.tensor(name="A", dim=[1, T, K], stride=[T * K, K, 1], data_type=dt.BFLOAT16)
    B = g.tensor(name="B", dim=[1, K, N], stride=[K * N, N, 1], data_type=dt.BFLOAT16)
    mm = g.matmul(A, B, name="mm")
    pack = {A: a_t.view(1, T, K), B: b_t.view(1, K, N)}
    y = mm
    if epilogue == "swiglu":
        G = g.tensor(name="G", dim=[1, T, N], stride=[T * N, N, 1], data_type=dt.FLOAT)
        pack[G] = rnd(1, T, N, dtype=torch.float32)
        y = g.mul(g.swish(G), mm)
    elif epilogue == "residual":
        R = g.tensor(name="R", dim=[1, T, N], stride=[T * N, N, 1], data_type=dt.FLOAT if out_dtype == dt.BFLOAT16 else dt.BFLOAT16)
        pack[R] = rnd(1, T, N, dtype=torch.float32 if out_dtype == dt.BFLOAT16 else torch.bfloat16)
        y = g.add(mm, R)
    y.set_output(True).set_data_type(out_dtype)
    pack[y] = torch.empty(1, T, N, device="cuda", dtype=torch.float32 if out_dtype == dt.FLOAT else torch.bfloat16)
    g.validate(); g.build_operation_graph()
    g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    n = g.get_execution_plan_count()
    flops = 2.0 * T * K * N
    print(f"== {name}: [{T},{K}]x[{K},{N}] {epilogue} -> {out_dtype}; {n} plans", flush=True)
    ref, ref_index = None, None
    for i in range(n):
        t0 = time.time()
        try:
            g.build_plan_at_index(i)
        except Exception as ex:
            print(f"  {i} {g.get_plan_name_at_index(i)}: build failed: {str(ex)[:100]}"); continue
        bt = time.time() - t0
        ws = g.get_workspace_size_plan_at_index(i)
        w = torch.empty(max(ws, 1), device="cuda", dtype=torch.uint8)
        pack[y].fill_(float("nan"))  # a plan that writes nothing shows NaN, not the last plan's result
        try:
            ms = timed(lambda: g.execute_plan_at_index(pack, w, i))
        except Exception as ex:
            print(f"  {i} {g.get_plan_name_at_index(i)}: exec failed: {str(ex)[:100]}"); continue
        out = pack[y].float()
        err = 0.0 if ref is None else float((out - ref).abs().max() / ref.abs().max())
        if ref is None: ref, ref_index = out.clone(), i
        print(f"  {i} {g.get_plan_name_at_index(i)}: {ms:.3f} ms {flops/ms/1e9:.0f} TFLOP/s build {bt:.2f}s ws {ws} err-vs-{ref_index} {err:.1e}", flush=True)
        if time.time() - START > LIMIT: print("  (time)"); break
    # torch alternatives
    a3, b3 = pack[A], pack[B]
    print(f"  torch bf16 matmul: {timed(lambda: torch.matmul(a3, b3)):.3f} ms")
    if epilogue == "swiglu":
        gg = pack[G]
        print(f"  torch matmul + silu*mul(f32 G): {timed(lambda: torch.nn.functional.silu(gg) * torch.matmul(a3, b3)):.3f} ms")
    if epilogue == "residual":
        r = pack[R]
        print(f"  torch matmul + add: {timed(lambda: torch.matmul(a3, b3) + r):.3f} ms")

START, LIMIT = time.time(), float(os.environ.get("LIMIT", "400"))
print(torch.cuda.get_device_name(), cudnn.backend_version())
WHICH = os.environ.get("WHICH", "gate,gate_bf16,up,o_proj,down,qkv").split(",")
for args in (("gate", H, F, None, dt.FLOAT), ("gate_bf16", H, F, None, dt.BFLOAT16), ("up", H, F, "swiglu", dt.BFLOAT16),
             ("o_proj", H, H, "residual", dt.FLOAT), ("down", F, H, "residual", dt.BFLOAT16), ("qkv", H, 3072, None, dt.BFLOAT16)):
    if args[0] not in WHICH: continue
    if time.time() - START > LIMIT: break
    group(*args)
