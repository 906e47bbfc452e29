"""Time every cuDNN plan of the ResNet bottleneck's conv3 group at full size
(bench_models.py's resnet_bottleneck: 1x1 conv 64 -> 256 on n32 56x56,
batchnorm inference, residual add, relu; fp16 NHWC, f32 compute), built
alone through `import cudnn` with torch CUDA buffers, the same group
without the residual add and relu ("convbn") and the conv alone ("conv"). Each plan's result is compared
with the first plan's (the output is filled with NaN before each plan);
each line gives the plan's time, workspace, error and build time.
Usage on the GPU machine (GRAPH_CAPI_LIBRARY set, scripts/gpu/env.sh
sourced):
    [MODE=B] [NPLANS=40] [VARIANTS=fused,convbn,conv] python3 bench/gpu/conv_plans.py
MODE=B asks cuDNN's heuristics mode B instead of A then fallback.
"""
import os, sys, time
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import torch, cudnn
from timing import loop_ms  # the timing loop every bench here uses
dt = cudnn.data_type
N, C, MID, H, W = 32, 256, 64, 56, 56
def nhwc(d): n, c, h, w = d; return [c*h*w, 1, w*c, c]
def timed(fn, iters=20):
    return loop_ms(torch, fn, iters, warmup=3)
def t4(d, dtype=torch.half):
    return torch.randn(*[d[0], d[2], d[3], d[1]], device="cuda").to(dtype).permute(0, 3, 1, 2)
xin = t4([N, MID, H, W]); wt = t4([C, MID, 1, 1]) * 0.1; res = t4([N, C, H, W])
stats = [torch.rand(1, C, 1, 1, device="cuda") + 0.5 for _ in range(4)]
def build(variant):
    g = cudnn.pygraph(io_data_type=dt.HALF, intermediate_data_type=dt.FLOAT, compute_data_type=dt.FLOAT)
    X = g.tensor(name="x", dim=[N, MID, H, W], stride=nhwc([N, MID, H, W]), data_type=dt.HALF)
    Wt = g.tensor(name="w", dim=[C, MID, 1, 1], stride=nhwc([C, MID, 1, 1]), data_type=dt.HALF)
    S = [g.tensor(name=f"s{i}", dim=[1, C, 1, 1], stride=[C, 1, C, C], data_type=dt.FLOAT) for i in range(4)]
    y = g.conv_fprop(X, Wt, padding=[0, 0], stride=[1, 1], dilation=[1, 1])
    pack = {X: xin, Wt: wt}
    if variant != "conv":
        y = g.batchnorm_inference(y, S[0], S[1], S[2], S[3])
        pack.update({S[i]: stats[i] for i in range(4)})
    if variant == "fused":
        R = g.tensor(name="r", dim=[N, C, H, W], stride=nhwc([N, C, H, W]), data_type=dt.HALF); pack[R] = res
        y = g.relu(g.add(y, R))
    y.set_output(True).set_data_type(dt.HALF).set_stride(nhwc([N, C, H, W]))
    out = t4([N, C, H, W]); pack[y] = out
    g.validate(); g.build_operation_graph()
    g.create_execution_plans(MODES)
    return g, pack, out
MODES = [cudnn.heur_mode.B] if os.environ.get("MODE") == "B" else [cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK]
for variant in os.environ.get("VARIANTS", "fused,convbn").split(","):
    g, pack, out = build(variant)
    n = g.get_execution_plan_count()
    print(f"== {variant}: {n} plans", flush=True)
    ref = None
    for i in range(min(n, int(os.environ.get("NPLANS", "40")))):
        t0 = time.perf_counter()
        try: g.build_plan_at_index(i)
        except Exception as ex: print(f"  {i} build failed {str(ex)[:80]}"); continue
        build_ms = (time.perf_counter() - t0) * 1000
        ws = g.get_workspace_size_plan_at_index(i); w = torch.empty(max(ws, 1), device="cuda", dtype=torch.uint8)
        out.fill_(float("nan"))
        try: ms = timed(lambda: g.execute_plan_at_index(pack, w, i))
        except Exception as ex: print(f"  {i} exec failed {str(ex)[:80]}"); continue
        o = out.float(); err = 0.0 if ref is None else float((o - ref).abs().max() / ref.abs().max())
        if ref is None: ref = o.clone()
        print(f"  {i} {g.get_plan_name_at_index(i)}: {ms*1000:.1f} us ws {ws} err {err:.1e} build {build_ms:.0f} ms", flush=True)
r32 = res
print(f"torch add+relu alone: {timed(lambda: torch.relu(out + r32))*1000:.1f} us")
print(f"torch conv alone: {timed(lambda: torch.nn.functional.conv2d(xin, wt))*1000:.1f} us")
