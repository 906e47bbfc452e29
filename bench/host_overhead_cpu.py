"""The Python-side host time of one repeated execute, on a machine without a
GPU (no torch needed): what graph.execute(pack) costs around the C call,
with the C entry points that would touch a GPU replaced by no-op stand-ins.

How the GPU route is forced (all inside this process, nothing on disk):

* ``_capi._lib`` is a proxy of the real libGraphCAPI.so (it must be
  loadable: GRAPH_CAPI_LIBRARY or the checkout's build/lib). The graph is
  built, verified and prepared by the real library; the GPU entry points
  (graphExecute, graphPlanSelect, graphSetPlanOptions, graphSetDevice,
  graphGetDevice, graphSetStream, graphSetWorkspace and the plan-list calls
  graphPlanCreate/Count/Group/Name/Engine/Notes/Build/Workspace) are Python
  stand-ins that answer GRAPH_OK (a plan list of PLANS plans, named like
  cuDNN's "eng<id>" plans and the codegen plans). graphExecute does nothing.
* The variant pack holds stand-in CUDA tensors: objects of a class whose
  module is "torch" (what _buffers.is_torch_tensor looks at) with the
  attributes the package reads (data_ptr, shape, stride, dtype, device
  cuda:0, untyped_storage ...). No memory is behind their addresses;
  nothing reads it.
* Like bench/gpu/host_overhead_profile.py: a handle on device 0 with a
  stream set, a 1-op graph (relu, 1x1x256 f32), built with heur A +
  FALLBACK, the same pack executed back to back.

Reported: us per execute (min over REPEATS runs of N executes each), the
same for the stand-in C call alone (the floor this cannot go under: the
Python call of Module.execute_array into a no-op), and the calls into the
library per execute (every function of the proxy counted, stand-ins and
real ones alike), by name. The stand-ins are cheaper than the real ctypes
calls (a real ctypes call costs ~0.1-0.3 us more of argument conversion),
so fewer calls matter more on the GPU than here.

    GRAPH_CAPI_LIBRARY=build/lib/libGraphCAPI.so python3 bench/host_overhead_cpu.py [--n 20000] [--repeats 7]

A CPU-only measurement of the Python side: no GPU claim.
"""
import argparse
import collections
import ctypes
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
# The stand-in CUDA tensors the fast-path tests use.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))

from cuda_standins import CudaTensor  # noqa: E402
from graph_compiler import _capi  # noqa: E402

PLANS = 14  # the H200's plan list for the 1-op relu (14 deselected_by calls per execute in the profile)

calls = collections.Counter()


def _plan_name(index):
    if index < PLANS - 3:
        return f"eng{index}_k2=1".encode()
    return [b"codegen_v2_t256_i2", b"codegen_v2_t512_i2_p", b"codegen_v1"][index - (PLANS - 3)]


def _set_out(ref, value):
    # ctypes.byref(x) keeps x in ._obj: the stand-in writes through it.
    if ref is not None and hasattr(ref, "_obj"):
        ref._obj.value = value


STANDINS = {
    "graphExecute": lambda module, device, array, count: 0,
    "graphPlanSelect": lambda module, index: 0,
    "graphSetPlanOptions": lambda module, names, count, limit, autotune: 0,
    "graphSetDevice": lambda ordinal: 0,
    "graphGetDevice": lambda ref: _set_out(ref, 0) or 0,
    "graphGetDeviceCount": lambda ref: _set_out(ref, 1) or 0,
    "graphSetStream": lambda stream: 0,
    "graphSetWorkspace": lambda memory, nbytes: 0,
    "graphPlanCreate": lambda module, device, modes, count: 0,
    "graphPlanCount": lambda module, groups: _set_out(groups, 1) or PLANS,
    "graphPlanGroup": lambda module: 0,
    "graphPlanName": lambda module, index: _plan_name(index),
    "graphPlanEngine": lambda module, index, engine, knobs, count: _set_out(engine, index if index < PLANS - 3 else -2) or _set_out(count, 0) or 0,
    "graphPlanNotes": lambda module, index, numeric: b"" if numeric or index < PLANS - 3 else b"GENERATED_KERNELS",
    "graphPlanBuild": lambda module, index: 0,
    "graphPlanWorkspace": lambda module, index: 0,
}


class CountingLib:
    """The real library with the GPU entry points replaced; every function
    fetched through it counts its calls (when counting is on)."""

    def __init__(self, real):
        self._real = real
        self.counting = False

    def __getattr__(self, name):
        target = STANDINS.get(name)
        if target is None:
            target = getattr(self._real, name)  # AttributeError for a missing one, as ctypes
        me = self

        def fn(*args):
            if me.counting:
                calls[name] += 1
            return target(*args)

        self.__dict__[name] = fn
        return fn


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="executes per timed run")
    ap.add_argument("--repeats", type=int, default=7, help="timed runs (the minimum is reported)")
    args = ap.parse_args()

    real = _capi.lib()
    fake = CountingLib(real)
    _capi._lib = fake  # every later lib() (and each Module's _lib) is the proxy
    import cudnn  # noqa: E402

    h = cudnn.create_handle()
    cudnn.set_stream(handle=h, stream=0x7F00_0000_1000)  # a caller stream (an address, not used)
    g = cudnn.pygraph(handle=h, io_data_type=cudnn.data_type.FLOAT, intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    x = CudaTensor((1, 1, 256), 0x7F00_0010_0000)
    y = CudaTensor((1, 1, 256), 0x7F00_0020_0000)
    X = g.tensor(name="x", dim=[1, 1, 256], stride=[256, 256, 1], data_type=cudnn.data_type.FLOAT)
    Y = g.relu(input=X)
    Y.set_output(True)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    assert g.get_execution_plan_count() == PLANS, g.get_execution_plan_count()
    pack = {X: x, Y: y}
    g.execute(pack)  # the first execute describes and checks the pack
    gg = getattr(g, "_graph", g)
    assert getattr(gg, "_run_cache", None) is not None, "the repeated pack is not on the fast path"

    def timed(fn, n):
        best = float("inf")
        for _ in range(args.repeats):
            start = time.perf_counter()
            for _ in range(n):
                fn()
            best = min(best, (time.perf_counter() - start) / n * 1e6)
        return best

    per_execute = timed(lambda: g.execute(pack), args.n)
    cached = gg._run_cache
    device, array, count = cached[1], cached[2], cached[3]
    module = gg._module
    c_call = timed(lambda: module.execute_array(device, array, count), args.n)

    fake.counting = True
    calls.clear()
    reps = 100
    for _ in range(reps):
        g.execute(pack)
    fake.counting = False
    per = {name: n / reps for name, n in sorted(calls.items())}

    print(f"library: {_capi.loaded_library_path()}  python {sys.version.split()[0]}  n={args.n} repeats={args.repeats}")
    print(f"execute (repeated pack, stand-in C calls) us/call: {per_execute:.2f}")
    print(f"stand-in execute_array alone us/call: {c_call:.2f}")
    print(f"Python side (difference) us/call: {per_execute - c_call:.2f}")
    print(f"library calls per execute: {sum(per.values()):g}  " + ", ".join(f"{k} {v:g}" for k, v in per.items()))


if __name__ == "__main__":
    main()
