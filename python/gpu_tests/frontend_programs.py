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
    return run((matmul_bias_relu, conv_bias_relu, layernorm, sdpa_causal))


if __name__ == "__main__":
    sys.exit(main())
