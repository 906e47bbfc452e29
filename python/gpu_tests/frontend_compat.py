"""The frontend's names and idioms (issue 11A) on the GPU, as frontend test
programs write them: cudnn.jit + cudnn.graph_cache + the cudnn.graph context
manager, torch dtypes as data types, uid 0 in a variant pack, sdpa with
implementation=/score_max= and its [O, Stats] arity, a kernel cache shared by
two graphs, the workspace check, backend_version, bit-packed boolean mask
buffers, floor_mod, an input tensor of another graph and ragged buffers of only the
packed tokens. Run on a machine
with a GPU and torch:

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


def _packed_nhwc(shape):
    n, c, h, w = shape
    return (h * w * c, 1, w * c, c)


def _pack_channels(mask):
    # the frontend's bitmask layout: channel c in bit c % 8 of byte c // 8
    n, c, h, w = mask.shape
    groups = mask.permute(0, 2, 3, 1).reshape(n, h, w, c // 8, 8).to(torch.uint8)
    shifts = torch.arange(8, device=mask.device, dtype=torch.uint8)
    packed = (groups << shifts).sum(dim=-1, dtype=torch.uint8)
    return packed.permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)


def relu_bitmask_packed():
    # samples 33 (relu bitmask) / norm test_batchnorm_fusion: a BOOLEAN mask
    # in a bit-packed uint8 buffer, written by cmp_gt and read by the dReLU mul
    torch.manual_seed(3)
    shape, packed_shape = (4, 32, 5, 5), (4, 4, 5, 5)
    x = torch.randn(shape, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    zero = torch.zeros(1, 1, 1, 1, dtype=torch.float32)
    fwd = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
                        compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    X = fwd.tensor(name="X", dim=list(shape), stride=list(_packed_nhwc(shape)))
    Z = fwd.tensor_like(zero, name="zero")
    y = fwd.relu(name="relu", input=X).set_output(True)
    mask = fwd.cmp_gt(name="mask", input=y, comparison=Z)
    mask.set_output(True).set_data_type(cudnn.data_type.BOOLEAN)
    fwd.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    packed = torch.empty_strided(packed_shape, _packed_nhwc(packed_shape), device="cuda", dtype=torch.uint8).fill_(0xA5)
    y_gpu = torch.empty_like(x)
    fwd.execute({X: x, Z: zero, y: y_gpu, mask: packed}, torch.empty(fwd.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    assert torch.equal(packed, _pack_channels(x > 0)), "packed mask differs from torch's packing"

    bwd = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
                        compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    DY = bwd.tensor(name="DY", dim=list(shape), stride=list(_packed_nhwc(shape)))
    M = bwd.tensor(name="mask", dim=list(shape), stride=list(_packed_nhwc(shape)), data_type=cudnn.data_type.BOOLEAN)
    dx = bwd.mul(a=DY, b=M, name="mask_mul").set_output(True)
    bwd.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    dy = torch.randn(shape, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    dx_gpu = torch.full_like(dy, float("nan"))
    bwd.execute({DY: dy, M: packed, dx: dx_gpu}, torch.empty(bwd.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    return rel_err(dx_gpu, dy.float() * (x > 0)), 1e-3


def floor_mod_and_foreign_input():
    # sample 71 (floor_mod next to mod) and sample 29 (the backward graph
    # consumes a tensor the forward graph made)
    a = torch.tensor([[-7.0, 7.0, -7.0, 7.0, -6.0, 0.5]], device="cuda")
    b = torch.tensor([[3.0, 3.0, -3.0, -3.0, 3.0, -2.0]], device="cuda")
    maker = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    A = maker.tensor_like(a)
    g = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    B = g.tensor_like(b)
    y = g.floor_mod(A, B, compute_data_type=cudnn.data_type.FLOAT, name="floor_mod")
    y.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    out = torch.empty_like(a)
    g.execute({A: a, B: b, y: out}, torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    return rel_err(out, torch.remainder(a, b)), 1e-6


def too_small_output_buffer():
    # sample 00_introduction (one stored version) hands an output buffer far
    # smaller than the graph's output: the frontend lets cuDNN write past it.
    # We warn and run on a full-size stand-in: the buffer (its storage from
    # its pointer on, as the size check counts it) gets the output's first
    # bytes, what cuDNN would have left there; nothing past it is written.
    x = torch.randn(4, 1024, device="cuda")
    g = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    X = g.tensor_like(x)
    y = g.relu(input=X, name="relu")
    y.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    storage = torch.full((2, 300), 7.0, device="cuda")
    small = storage[0]  # its storage holds 600 of the 4096 floats the graph writes
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.execute({X: x, y: small}, torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    assert any(issubclass(w.category, cudnn.BufferTooSmallWarning) for w in caught), [str(w.message) for w in caught]
    return rel_err(storage.flatten(), torch.relu(x).flatten()[:600]), 1e-6


def ragged_packed_size_buffers():
    # test_mhas_v2 allocates ragged Q/K/V/O of just the packed tokens (far
    # below the padded dims' span): they bind as they are, without a warning
    # or a padded stand-in, and each batch's O equals torch's attention on
    # its own sequence
    torch.manual_seed(5)
    b, h, s, d, lens = 2, 2, 64, 64, [40, 25]
    total = sum(lens)
    q, k, v = (torch.randn(total, h, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    o = torch.zeros(total, h, d, device="cuda", dtype=torch.bfloat16)
    offsets = torch.tensor([0, lens[0] * h * d, total * h * d], device="cuda", dtype=torch.int32).reshape(b + 1, 1, 1, 1)
    seq = torch.tensor(lens, device="cuda", dtype=torch.int32).reshape(b, 1, 1, 1)
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16, intermediate_data_type=cudnn.data_type.FLOAT,
                      compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    dims, strides = [b, h, s, d], [s * h * d, d, h * d, 1]
    Q, K, V = (g.tensor(name=n, dim=dims, stride=strides, data_type=cudnn.data_type.BFLOAT16) for n in "QKV")
    OFF = g.tensor_like(offsets)
    for t in (Q, K, V):
        t.set_ragged_offset(OFF)
    SQ, SKV = g.tensor_like(seq), g.tensor_like(seq)
    O, _ = g.sdpa(name="sdpa", q=Q, k=K, v=V, attn_scale=d**-0.5, generate_stats=False, use_padding_mask=True,
                  seq_len_q=SQ, seq_len_kv=SKV)
    O.set_output(True).set_dim(dims).set_stride(strides).set_ragged_offset(OFF)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute({Q: q, K: k, V: v, O: o, OFF: offsets, SQ: seq, SKV: seq},
                  torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    want, start = [], 0
    for n in lens:
        qi, ki, vi = (x[start : start + n].transpose(0, 1).float() for x in (q, k, v))
        want.append(torch.nn.functional.scaled_dot_product_attention(qi, ki, vi).transpose(0, 1))
        start += n
    return rel_err(o, torch.cat(want)), 1e-2


def inferred_output_layouts():
    # outputs left without strides take the frontend's layouts: a rank-4
    # reduction result channels-last, a pointwise result its last same-dims
    # operand's strides, a concatenation its first input's order; the
    # buffers are allocated from get_stride() as frontend programs do
    torch.manual_seed(6)
    x = torch.randn(2, 3, 4, 8, device="cuda")
    a = torch.randn(16, 8, device="cuda")
    bt = torch.randn(8, 16, device="cuda").t()  # column-major [16, 8]
    c0, c1 = torch.randn(8, 3, device="cuda").t(), torch.randn(5, 8, device="cuda")
    g = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT, handle=HANDLE)
    X, A, BT, C0, C1 = (g.tensor_like(t) for t in (x, a, bt, c0, c1))
    R = g.reduction(X, mode=cudnn.reduction_mode.MAX)
    R.set_output(True).set_dim([2, 3, 4, 1]).set_data_type(cudnn.data_type.FLOAT)
    P = g.add(A, BT)
    P.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    C = g.concatenate([C0, C1], axis=0)
    C.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    layouts = [tuple(t.get_stride()) for t in (R, P, C)]
    assert layouts == [(12, 1, 3, 3), (1, 16), (1, 8)], layouts
    outs = [torch.empty_strided(t.get_dim(), t.get_stride(), device="cuda") for t in (R, P, C)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute({X: x, A: a, BT: bt, C0: c0, C1: c1, R: outs[0], P: outs[1], C: outs[2]},
                  torch.empty(g.get_workspace_size(), device="cuda", dtype=torch.uint8), handle=HANDLE)
    torch.cuda.synchronize()
    want = [x.amax(-1, keepdim=True), a + bt, torch.cat([c0, c1])]
    return max(rel_err(o, w) for o, w in zip(outs, want)), 1e-6


def main():
    return run((jit_cache_uid0, sdpa_options_and_arity, kernel_cache_shared,
                backend_version_is_loaded_cudnn, relu_bitmask_packed, floor_mod_and_foreign_input,
                too_small_output_buffer, ragged_packed_size_buffers, inferred_output_layouts))


if __name__ == "__main__":
    sys.exit(main())
