"""Where the host time of one execute goes: a 1-op graph (relu on 256
floats) executed back to back through the Python package, split into the
C call alone (graphExecute through ctypes), the plan check before it
(_plans.prepare_run) and a cProfile of the Python side. A profile for
finding the next cut, not a ratio claim (bench_vs_torch.py's
"host overhead" case is that). Run on a machine with a GPU and torch:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 bench/gpu/host_overhead_profile.py
"""
import cProfile
import io
import os
import pstats
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))

import torch  # noqa: E402

import cudnn  # noqa: E402

x = torch.randn(1, 1, 256, device="cuda", dtype=torch.float32)
h = cudnn.create_handle()
cudnn.set_stream(handle=h, stream=torch.cuda.current_stream().cuda_stream)
g = cudnn.pygraph(handle=h, io_data_type=cudnn.data_type.FLOAT, intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
X = g.tensor_like(x); Y = g.relu(input=X); Y.set_output(True)
g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
y = torch.empty_like(x); pack = {X: x, Y: y}
def t(fn, n=2000):
    for _ in range(50): fn()
    torch.cuda.synchronize(); s = time.perf_counter()
    for _ in range(n): fn()
    torch.cuda.synchronize(); return (time.perf_counter() - s) / n * 1e6
print("execute us", t(lambda: g.execute(pack)))
print("torch.relu us", t(lambda: torch.relu(x)))
gg = getattr(g, "_graph", g)
for attr in ("_graph", "_g", "_impl"):
    if hasattr(g, attr): gg = getattr(g, attr)
c = getattr(gg, "_run_cache", None)
if c:
    _, device, array, count, refresh, ordinal = c
    m = gg._module
    print("C execute_array us", t(lambda: m.execute_array(device, array, count)))
    from graph_compiler import _plans
    print("prepare_run us", t(lambda: _plans.prepare_run(gg._module, gg._plans, gg._plan_index, gg._barred_names, gg._workspace_limit)))
pr = cProfile.Profile(); pr.enable()
for _ in range(3000): g.execute(pack)
pr.disable(); torch.cuda.synchronize()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18); print(s.getvalue()[-3500:])
