"""cuDNN-frontend-style programs, written as a frontend user writes them,
run on the GPU through our package imported as `cudnn` and checked against
PyTorch. Run on a machine with a GPU and torch:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/frontend_programs.py

Prints PASS/FAIL per program and "N passed, M failed"; exits 1 on failure.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

import cudnn  # noqa: E402  (our package, through its cudnn shim)


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def matmul_bias_relu():
    torch.manual_seed(0)
    a = torch.randn(4, 256, 512, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(4, 512, 128, device="cuda", dtype=torch.bfloat16)
    bias = torch.randn(1, 1, 128, device="cuda", dtype=torch.bfloat16)
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16,
                          intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    A = graph.tensor_like(a)
    B = graph.tensor_like(b)
    BIAS = graph.tensor_like(bias)
    C = graph.matmul(name="mm", A=A, B=B)
    D = graph.bias(name="bias", input=C, bias=BIAS)
    Y = graph.relu(name="relu", input=D)
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.validate()
    graph.build_operation_graph()
    graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    graph.check_support()
    graph.build_plans()
    y = torch.empty(4, 256, 128, device="cuda", dtype=torch.bfloat16)
    graph.execute({A: a, B: b, BIAS: bias, Y: y})
    torch.cuda.synchronize()
    ref = torch.relu(a.float() @ b.float() + bias.float())
    return rel_err(y, ref), 1e-2


def conv_bias_relu():
    torch.manual_seed(1)
    x = torch.randn(8, 64, 56, 56, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 3, 3, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    bias = torch.randn(1, 64, 1, 1, device="cuda", dtype=torch.half)
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.HALF,
                          intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    X = graph.tensor_like(x)
    W = graph.tensor_like(w)
    BIAS = graph.tensor_like(bias)
    conv = graph.conv_fprop(image=X, weight=W, padding=[1, 1], stride=[1, 1], dilation=[1, 1])
    biased = graph.bias(input=conv, bias=BIAS)
    Y = graph.relu(input=biased)
    Y.set_output(True)
    graph.build([cudnn.heur_mode.A])
    y = torch.empty(8, 64, 56, 56, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
    graph.execute({X: x, W: w, BIAS: bias, Y: y})
    torch.cuda.synchronize()
    ref = torch.relu(torch.nn.functional.conv2d(x.float(), w.float(), padding=1) + bias.float())
    return rel_err(y, ref), 1e-2


def layernorm():
    torch.manual_seed(2)
    x = torch.randn(32, 1024, 1, 1, device="cuda", dtype=torch.bfloat16)
    scale = torch.randn(1, 1024, 1, 1, device="cuda", dtype=torch.float32)
    bias = torch.randn(1, 1024, 1, 1, device="cuda", dtype=torch.float32)
    graph = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    X = graph.tensor(name="X", dim=list(x.shape), stride=list(x.stride()), data_type=cudnn.data_type.BFLOAT16)
    SCALE = graph.tensor(name="scale", dim=list(scale.shape), stride=list(scale.stride()), data_type=cudnn.data_type.FLOAT)
    BIAS = graph.tensor(name="bias", dim=list(bias.shape), stride=list(bias.stride()), data_type=cudnn.data_type.FLOAT)
    eps = graph.tensor_scalar(1e-5, cudnn.data_type.FLOAT)
    Y, mean, inv_var = graph.layernorm(name="ln", norm_forward_phase=cudnn.norm_forward_phase.TRAINING,
                                       input=X, scale=SCALE, bias=BIAS, epsilon=eps)
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    mean.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    inv_var.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty_like(x)
    m = torch.empty(32, 1, 1, 1, device="cuda", dtype=torch.float32)
    iv = torch.empty(32, 1, 1, 1, device="cuda", dtype=torch.float32)
    graph.execute({"X": x, "scale": scale, "bias": bias, Y: y, mean: m, inv_var: iv})
    torch.cuda.synchronize()
    ref = torch.nn.functional.layer_norm(x.float().view(32, 1024), [1024], scale.view(1024), bias.view(1024), 1e-5)
    return max(rel_err(y.view(32, 1024), ref), rel_err(m.view(32), x.float().view(32, 1024).mean(1))), 1e-2


def sdpa_causal():
    torch.manual_seed(3)
    b, h, s, d = 2, 8, 1024, 128
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16,
                          intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V = graph.tensor_like(q), graph.tensor_like(k), graph.tensor_like(v)
    O, stats = graph.sdpa(name="sdpa", q=Q, k=K, v=V, is_inference=False,
                          attn_scale=1.0 / math.sqrt(d), use_causal_mask=True)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    stats.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    graph.build([cudnn.heur_mode.A])
    o = torch.empty(b, h, s, d, device="cuda", dtype=torch.bfloat16)
    st = torch.empty(b, h, s, 1, device="cuda", dtype=torch.float32)
    graph.execute({Q: q, K: k, V: v, O: o, stats: st})
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(q.float(), k.float(), v.float(), is_causal=True)
    return rel_err(o, ref), 1e-2


def _attention_reference(q, k, v, scale, bias=None, causal=False, keep=None, p=0.0):
    s = torch.einsum("bhqd,bhkd->bhqk", q, k) * scale
    if bias is not None:
        s = s + bias
    if causal:
        sq, skv = s.shape[-2:]
        s = s.masked_fill(torch.ones(sq, skv, device=s.device, dtype=torch.bool).triu(1), float("-inf"))
    prob = torch.softmax(s, dim=-1)
    if keep is not None:
        prob = prob * keep / (1.0 - p)
    return torch.einsum("bhqk,bhkd->bhqd", prob, v)


def sdpa_philox_dropout():
    """dropout=(p, seed, offset) forward with rng_dump, then the backward
    regenerating the mask from the same seed and offset; both checked
    against torch with the dumped keep mask."""
    torch.manual_seed(4)
    b, h, s, d, p = 2, 4, 512, 64, 0.1
    q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16) for _ in range(4))
    seed = torch.full((1, 1, 1, 1), 123456, dtype=torch.int64, device="cuda")
    offset = torch.full((1, 1, 1, 1), 789, dtype=torch.int64, device="cuda")
    io = dict(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
              compute_data_type=cudnn.data_type.FLOAT)
    fwd = cudnn.pygraph(**io)
    Q, K, V = fwd.tensor_like(q), fwd.tensor_like(k), fwd.tensor_like(v)
    SEED, OFFSET = fwd.tensor_like(seed), fwd.tensor_like(offset)
    DUMP = fwd.tensor(dim=[b, h, s, s], stride=[h * s * s, s * s, s, 1], data_type=cudnn.data_type.FLOAT)
    O, STATS = fwd.sdpa(q=Q, k=K, v=V, is_inference=False, attn_scale=0.125, use_causal_mask=True,
                        dropout=(p, SEED, OFFSET), rng_dump=DUMP)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    STATS.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    DUMP.set_output(True)
    fwd.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    o = torch.empty_like(q)
    stats = torch.empty(b, h, s, 1, device="cuda", dtype=torch.float32)
    keep = torch.zeros((b, h, s, s), device="cuda", dtype=torch.float32)
    fwd.execute({Q: q, K: k, V: v, SEED: seed, OFFSET: offset, O: o, STATS: stats, DUMP: keep})

    bwd = cudnn.pygraph(**io)
    Q2, K2, V2, O2, DO = (bwd.tensor_like(t) for t in (q, k, v, o, do))
    ST, SEED2, OFFSET2 = bwd.tensor_like(stats), bwd.tensor_like(seed), bwd.tensor_like(offset)
    DQ, DK, DV = bwd.sdpa_backward(q=Q2, k=K2, v=V2, o=O2, dO=DO, stats=ST, attn_scale=0.125,
                                   use_causal_mask=True, dropout=(p, SEED2, OFFSET2))
    for t in (DQ, DK, DV):
        t.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    bwd.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    dq, dk, dv = (torch.empty_like(q) for _ in range(3))
    bwd.execute({Q2: q, K2: k, V2: v, O2: o, DO: do, ST: stats, SEED2: seed, OFFSET2: offset, DQ: dq, DK: dk, DV: dv})
    torch.cuda.synchronize()

    # The fused kernel writes the mask only where the causal mask keeps a
    # score (whole masked tiles are skipped): judge it there.
    visible = torch.ones(s, s, device="cuda", dtype=torch.bool).tril().expand(b, h, s, s)
    seen = keep[visible]
    kept = seen.mean().item()
    if not ((seen == 0) | (seen == 1)).all() or not 0.85 < kept < 0.95:
        raise AssertionError(f"rng_dump is not a Bernoulli(0.9) keep mask where scores are kept (mean {kept:.3f})")
    qf, kf, vf = (t.float().requires_grad_() for t in (q, k, v))
    ref = _attention_reference(qf, kf, vf, 0.125, causal=True, keep=keep, p=p)
    ref.backward(do.float())
    return max(rel_err(o, ref), rel_err(dq, qf.grad), rel_err(dk, kf.grad), rel_err(dv, vf.grad)), 2e-2


def sdpa_alibi():
    torch.manual_seed(5)
    b, h, s, d = 2, 4, 512, 64
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16, intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V = graph.tensor_like(q), graph.tensor_like(k), graph.tensor_like(v)
    O, _ = graph.sdpa(q=Q, k=K, v=V, is_inference=True, attn_scale=0.125, use_causal_mask=True, use_alibi_mask=True)
    O.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    graph.build([cudnn.heur_mode.A])
    o = torch.empty_like(q)
    graph.execute({Q: q, K: k, V: v, O: o})
    torch.cuda.synchronize()
    slopes = torch.tensor([2.0 ** (-8.0 * (i + 1) / h) for i in range(h)], device="cuda").view(1, h, 1, 1)
    pos = torch.arange(s, device="cuda", dtype=torch.float32)
    bias = slopes * (pos.view(1, 1, 1, s) - pos.view(1, 1, s, 1))
    ref = _attention_reference(q.float(), k.float(), v.float(), 0.125, bias=bias, causal=True)
    return rel_err(o, ref), 1e-2


def batchnorm_host_scalars():
    """Batchnorm training with epsilon and momentum given as CPU tensors (the
    frontend reads them by value) beside CUDA tensors."""
    torch.manual_seed(6)
    n, c, hw = 4, 16, 56
    x = torch.randn(n, c, hw, hw, device="cuda", dtype=torch.float16).to(memory_format=torch.channels_last)
    scale, bias = (torch.randn(1, c, 1, 1, device="cuda", dtype=torch.float32) for _ in range(2))
    rmean, rvar = torch.zeros(1, c, 1, 1, device="cuda"), torch.ones(1, c, 1, 1, device="cuda")
    eps, momentum = torch.full((1, 1, 1, 1), 1e-3), torch.full((1, 1, 1, 1), 0.1)
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    X, SCALE, BIAS = graph.tensor_like(x), graph.tensor_like(scale), graph.tensor_like(bias)
    RM, RV, EPS, MOM = graph.tensor_like(rmean), graph.tensor_like(rvar), graph.tensor_like(eps), graph.tensor_like(momentum)
    Y, MEAN, INV, NRM, NRV = graph.batchnorm(name="bn", input=X, scale=SCALE, bias=BIAS, in_running_mean=RM,
                                             in_running_var=RV, epsilon=EPS, momentum=MOM)
    Y.set_output(True).set_data_type(cudnn.data_type.HALF)
    for t in (MEAN, INV, NRM, NRV):
        t.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty_like(x)
    mean, inv, nrm, nrv = (torch.empty(1, c, 1, 1, device="cuda") for _ in range(4))
    graph.execute({X: x, SCALE: scale, BIAS: bias, RM: rmean, RV: rvar, EPS: eps, MOM: momentum,
                   Y: y, MEAN: mean, INV: inv, NRM: nrm, NRV: nrv})
    torch.cuda.synchronize()
    ref = torch.nn.functional.batch_norm(x.float(), rmean.clone().view(c), rvar.clone().view(c), scale.view(c),
                                         bias.view(c), training=True, momentum=0.1, eps=1e-3)
    return rel_err(y, ref), 1e-2


def sdpa_score_mod():
    # test_flexible_sdpa.py's style: a softcap and an index mask built by
    # the score_mod callback from gen_index (INT32), comparisons (BOOLEAN)
    # and binary_select with a pass-by-value fill
    torch.manual_seed(5)
    b, h, s, d = 2, 4, 256, 128
    q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=torch.half).transpose(1, 2) for _ in range(3))
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.HALF,
                          intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V = graph.tensor_like(q), graph.tensor_like(k), graph.tensor_like(v)
    cap_cpu = torch.full((1, 1, 1, 1), 0.8)
    fill_cpu = torch.full((1, 1, 1, 1), -1e9)
    bound_cpu = torch.full((1, 1, 1, 1), 16, dtype=torch.int32)
    CAP, FILL, BOUND = (graph.tensor(dim=t.size(), stride=t.stride(), is_pass_by_value=True, data_type=t.dtype)
                        for t in (cap_cpu, fill_cpu, bound_cpu))

    def mask(g, scores):
        scores = g.mul(a=g.tanh(input=g.div(a=scores, b=CAP)), b=CAP)
        row = g.gen_index(input=scores, axis=2, compute_data_type=cudnn.data_type.INT32)
        row.set_data_type(cudnn.data_type.INT32)
        col = g.gen_index(input=scores, axis=3, compute_data_type=cudnn.data_type.INT32)
        col.set_data_type(cudnn.data_type.INT32)
        causal = g.cmp_ge(input=row, comparison=col, compute_data_type=cudnn.data_type.BOOLEAN)
        causal.set_data_type(cudnn.data_type.BOOLEAN)
        prefix = g.cmp_lt(input=col, comparison=BOUND, compute_data_type=cudnn.data_type.FLOAT)
        prefix.set_data_type(cudnn.data_type.BOOLEAN)
        keep = g.logical_or(a=causal, b=prefix, compute_data_type=cudnn.data_type.BOOLEAN)
        keep.set_data_type(cudnn.data_type.BOOLEAN)
        return g.binary_select(input0=scores, input1=FILL, mask=keep)

    O, _ = graph.sdpa(name="sdpa", q=Q, k=K, v=V, generate_stats=False, attn_scale=1.0 / math.sqrt(d),
                      score_mod=mask)
    O.set_output(True).set_dim(q.size()).set_stride(q.stride())
    graph.build([cudnn.heur_mode.A])
    o = torch.empty_like(q)
    graph.execute({Q: q, K: k, V: v, O: o, CAP: cap_cpu, FILL: fill_cpu, BOUND: bound_cpu})
    torch.cuda.synchronize()
    scores = torch.einsum("bhqd,bhkd->bhqk", q.float(), k.float()) / math.sqrt(d)
    scores = torch.tanh(scores / 0.8) * 0.8
    i = torch.arange(s, device="cuda")[:, None]
    j = torch.arange(s, device="cuda")[None, :]
    scores = scores.masked_fill(~((i >= j) | (j < 16)), -1e9)
    ref = torch.einsum("bhqk,bhkd->bhqd", torch.softmax(scores, dim=-1), v.float())
    return rel_err(o, ref), 1e-2


def sdpa_score_mod_backward():
    # test_flexible_sdpa_bprop.py's style: the forward's causal score_mod
    # and, as score_mod_bprop, the same mask zeroing the score gradient;
    # dQ, dK, dV against torch autograd (the largest relative error)
    torch.manual_seed(6)
    b, h, s_q, s_kv, d = 2, 3, 256, 320, 64
    scale = 1.0 / math.sqrt(d)
    q = torch.randn(b, h, s_q, d, device="cuda", dtype=torch.half)
    k, v = (torch.randn(b, h, s_kv, d, device="cuda", dtype=torch.half) for _ in range(2))
    do = torch.randn(b, h, s_q, d, device="cuda", dtype=torch.half)
    qr, kr, vr = (t.float().requires_grad_(True) for t in (q, k, v))
    i = torch.arange(s_q, device="cuda")[:, None]
    j = torch.arange(s_kv, device="cuda")[None, :]
    sc = (qr @ kr.transpose(-1, -2) * scale).masked_fill(~(i >= j), -1e9)
    p = torch.softmax(sc, dim=-1)
    o_ref = p @ vr
    o_ref.backward(do.float())
    stats = (torch.logsumexp(sc, dim=-1, keepdim=True)).detach().contiguous()
    o = o_ref.detach().half()
    graph = cudnn.pygraph(io_data_type=cudnn.data_type.HALF,
                          intermediate_data_type=cudnn.data_type.FLOAT,
                          compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V, O, DO, STATS = (graph.tensor_like(t) for t in (q, k, v, o, do, stats))
    fill_cpu, zero_cpu = torch.full((1, 1, 1, 1), -1e9), torch.full((1, 1, 1, 1), 0.0)
    FILL, ZERO = (graph.tensor(dim=t.size(), stride=t.stride(), is_pass_by_value=True, data_type=t.dtype)
                  for t in (fill_cpu, zero_cpu))

    def causal(g, x, fill):
        row = g.gen_index(input=x, axis=2)
        row.set_data_type(cudnn.data_type.INT32)
        col = g.gen_index(input=x, axis=3)
        col.set_data_type(cudnn.data_type.INT32)
        keep = g.cmp_ge(input=row, comparison=col, compute_data_type=cudnn.data_type.BOOLEAN)
        keep.set_data_type(cudnn.data_type.BOOLEAN)
        return g.binary_select(input0=x, input1=fill, mask=keep)

    dQ, dK, dV = graph.sdpa_backward(name="bwd", q=Q, k=K, v=V, o=O, dO=DO, stats=STATS, attn_scale=scale,
                                     score_mod=lambda g, x: causal(g, x, FILL),
                                     score_mod_bprop=lambda g, x: causal(g, x, ZERO))
    outs = {t: torch.full_like(like, float("nan")) for t, like in ((dQ, q), (dK, k), (dV, v))}
    for t, buf in outs.items():
        t.set_output(True).set_dim(buf.size()).set_stride(buf.stride())
    graph.build([cudnn.heur_mode.A])
    graph.execute({Q: q, K: k, V: v, O: o, DO: do, STATS: stats, FILL: fill_cpu, ZERO: zero_cpu, **outs})
    torch.cuda.synchronize()
    return max(rel_err(outs[dQ], qr.grad), rel_err(outs[dK], kr.grad), rel_err(outs[dV], vr.grad)), 2e-2


def run(programs):
    """Runs each program (returning (error, bound)), prints PASS/FAIL per
    program and "N passed, M failed"; 0 when all passed, else 1."""
    passed = failed = 0
    for program in programs:
        try:
            err, bound = program()
            ok = err == err and err < bound
            detail = f"relative error {err:.3g} (bound {bound:g})"
        except Exception as exc:  # noqa: BLE001 - report every failure
            ok, detail = False, f"{type(exc).__name__}: {exc}"
        print(f"{'PASS' if ok else 'FAIL'} {program.__name__}: {detail}")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    return run((matmul_bias_relu, conv_bias_relu, layernorm, sdpa_causal, sdpa_philox_dropout, sdpa_alibi,
                batchnorm_host_scalars, sdpa_score_mod, sdpa_score_mod_backward))


if __name__ == "__main__":
    sys.exit(main())
