"""Where the time of a codegen case goes: the device time of each kernel
(torch.profiler, CUDA activity) and the host time per execute, for the
cases of bench_codegen.py. Usage on the GPU machine:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 bench/gpu/profile_codegen.py \
        [case ...] [--cols 4096]
"""

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))

import torch  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import bench_codegen as bc  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*", default=["rmsnorm_fwd", "chain"])
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--rows", type=int, default=0,
                    help="rows (default: 256 MiB of bf16)")
    args = ap.parse_args()
    handle = bc.cudnn.create_handle()
    bc.cudnn.set_stream(handle=handle, stream=torch.cuda.current_stream().cuda_stream)
    for kind in args.cases:
        rows = args.rows or (256 * bc.MIB) // (2 * args.cols)
        case = bc.make_case(kind, rows, args.cols)
        g, pack = case["graph"], case["pack"]
        bc.force_codegen(g)
        g.execute(pack)
        torch.cuda.synchronize()
        n = 50
        start = time.perf_counter()
        for _ in range(n):
            g.execute(pack)
        host = (time.perf_counter() - start) / n
        torch.cuda.synchronize()
        wall = (time.perf_counter() - start) / n
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(n):
                g.execute(pack)
            torch.cuda.synchronize()
        kernels = {}
        for e in prof.events():
            if e.device_type == torch.autograd.DeviceType.CUDA:
                kernels.setdefault(e.name, []).append(e.device_time)
        total = sum(sum(v) for v in kernels.values()) / n
        print(f"{kind} {rows}x{args.cols}: host {host*1e6:.1f} us/execute, "
              f"wall {wall*1e6:.1f} us/execute, device {total:.1f} us/execute, "
              f"{case['moved']/(total*1e-6)/1e9:.0f} GB/s on the device")
        for name, times in sorted(kernels.items(), key=lambda kv: -sum(kv[1])):
            print(f"    {name[:60]:60s} x{len(times)/n:.0f} {sum(times)/len(times):8.1f} us")
        del case, g, pack


if __name__ == "__main__":
    main()
