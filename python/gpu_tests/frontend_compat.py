"""The frontend's names and idioms (issue 11A) on the GPU, as frontend test
programs write them: cudnn.jit + cudnn.graph_cache + the cudnn.graph context
manager, torch dtypes as data types, uid 0 in a variant pack, sdpa with
implementation=/score_max= and its [O, Stats] arity, a kernel cache shared by
two graphs, the workspace check, backend_version. Run on a machine with a
GPU and torch:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/frontend_compat.py

Prints PASS/FAIL per program and "N passed, M failed"; exits 1 on failure.
"""

import math
import os
import sys
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

import cudnn  # noqa: E402  (our package, through its cudnn shim)
from frontend_programs import rel_err, run  # noqa: E402  (same folder)

HANDLE = cudnn.create_handle()


def _key(handle, a, b):
    return (tuple(a.shape), tuple(a.stride()), a.dtype, tuple(b.shape), tuple(b.stride()), b.dtype)


BUILDS = []


@cudnn.jit(heur_modes=[cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
@cudnn.graph_cache(key_fn=_key)
def matmul_graph(handle, a, b):
    BUILDS.append(tuple(a.shape))
    with cudnn.graph(handle, io_data_type=torch.bfloat16, intermediate_data_type=torch.float32, compute_data_type=torch.float32) as (g, _):
        A = g.tensor(name="A", dim=list(a.shape), stride=list(a.stride()), data_type=a.dtype, uid=0)
        B = g.tensor(name="B", dim=list(b.shape), stride=list(b.stride()), data_type=b.dtype, uid=1)
        C = g.matmul(A, B, compute_data_type=torch.float32)
        C.set_output(True).set_data_type(torch.bfloat16).set_uid(2)
    return g, [A, B, C]


def jit_cache_uid0():
    torch.manual_seed(0)
    a = torch.randn(2, 128, 256, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(2, 256, 64, device="cuda", dtype=torch.bfloat16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # uid 0's note
        g, uids = matmul_graph(HANDLE, a, b)
        g2, _ = matmul_graph(HANDLE, a, b)
    assert uids == [0, 1, 2] and g2 is g and len(BUILDS) == 1, (uids, BUILDS)
    c = torch.empty(2, 128, 64, device="cuda", dtype=torch.bfloat16)
    workspace = torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8)
    g.execute({0: a, 1: b, 2: c}, workspace, handle=HANDLE)
    torch.cuda.synchronize()
    return rel_err(c, a.float() @ b.float()), 1e-2


def sdpa_options_and_arity():
    torch.manual_seed(1)
    b, h, s, d = 2, 4, 256, 64
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16, intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V = g.tensor_like(q), g.tensor_like(k), g.tensor_like(v)
    out = g.sdpa(q=Q, k=K, v=V, generate_stats=True, attn_scale=1.0 / math.sqrt(d), use_causal_mask=True,
                 implementation=cudnn.attention_implementation.AUTO)
    assert len(out) == 2, len(out)
    O, stats = out
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    stats.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A])
    o = torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    st = torch.empty(b, h, s, 1, device="cuda", dtype=torch.float32)
    g.execute({Q: q, K: k, V: v, O: o, stats: st})
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
    return rel_err(o, ref), 1e-2


def kernel_cache_shared():
    torch.manual_seed(2)
    cache = cudnn.create_kernel_cache()
    a = torch.randn(1, 64, 128, device="cuda", dtype=torch.half)
    bm = torch.randn(1, 128, 32, device="cuda", dtype=torch.half)

    def make():
        g = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE, kernel_cache=cache)
        A = g.tensor(name="A", dim=[1, 64, 128], stride=[64 * 128, 128, 1])
        B = g.tensor(name="B", dim=[1, 128, 32], stride=[128 * 32, 32, 1])
        C = g.matmul(name="matmul", A=A, B=B)
        C.set_output(True).set_uid(2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            A.set_uid(0)
        B.set_uid(1)
        g.build([cudnn.heur_mode.FALLBACK])
        return g

    g1, g2 = make(), make()
    assert g2._module is g1._module and cache.size() == 1
    worst = 0.0
    for g in (g1, g2):
        c = torch.empty(1, 64, 32, device="cuda", dtype=torch.half)
        g.execute({0: a, 1: bm, 2: c}, torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
        torch.cuda.synchronize()
        worst = max(worst, rel_err(c, a.float() @ bm.float()))
    return worst, 1e-2


def backend_version_is_loaded_cudnn():
    v = cudnn.backend_version()
    print(f"  backend_version {v} ({cudnn.backend_version_string()}); torch's cuDNN {torch.backends.cudnn.version()}")
    assert v >= 90000, v
    return 0.0, 1.0


def main():
    return run((jit_cache_uid0, sdpa_options_and_arity, kernel_cache_shared,
                backend_version_is_loaded_cudnn))


if __name__ == "__main__":
    sys.exit(main())
