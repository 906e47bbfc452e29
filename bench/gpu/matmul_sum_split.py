"""A sum of two matmuls read by a norm's backward, fused as graph-fuse made
it before c01afce and split as it makes it now, against PyTorch.

The Llama backward's n2.grad = gate.dgrad + up.dgrad ([8192, 5632] x
[5632, 2048] each, bf16 in, f32 out) feeds rmsnorm_backward. Timed, each a
graph through `import cudnn` on torch CUDA buffers, mean of --iters runs
between CUDA events after warm-up:

    whole   one graph, as graph-fuse groups it: since c01afce two plain
            matmuls and the add with the norm backward as one row-fused
            group (before, the add ran in the second matmul's epilogue)
    split   the same split by hand: the two matmuls as one graph with f32
            outputs, then the add and the norm backward as another
    torch   the two matmuls in bf16 (what autograd runs), for scale

Before c01afce, on an H100: whole 0.62 ms (the add fused into the matmul
by cuDNN's runtime-fusion engine), split 0.57 ms. After it the two should
agree. Usage on the GPU machine (GRAPH_CAPI_LIBRARY set):
python3 bench/gpu/matmul_sum_split.py [--iters N]
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import torch  # noqa: E402
import cudnn  # noqa: E402
from timing import loop_ms  # noqa: E402  (same folder)

T, H, F = 8192, 2048, 5632
BF16, F32 = cudnn.data_type.BFLOAT16, cudnn.data_type.FLOAT


def new_graph():
    return cudnn.pygraph(io_data_type=BF16, intermediate_data_type=F32, compute_data_type=F32)


def dgrads(g, x):
    ins = [g.tensor_like(x[n]) for n in ("dg", "du", "wg", "wu")]
    a = g.matmul(ins[0], g.transpose(ins[2], permutation=[1, 0]), name="gate.dgrad")
    b = g.matmul(ins[1], g.transpose(ins[3], permutation=[1, 0]), name="up.dgrad")
    return dict(zip(ins, (x["dg"], x["du"], x["wg"], x["wu"]))), a, b


def norm_backward(g, s, x, pack):
    th, tg, ti = g.tensor_like(x["h"]), g.tensor_like(x["gamma"]), g.tensor_like(x["inv"])
    dx, dgamma, _ = g.rmsnorm_backward(s, th, tg, ti, has_dbias=False, name="norm.backward")
    dx.set_output(True).set_data_type(BF16)
    dgamma.set_output(True).set_data_type(F32)
    out_dx = torch.empty(T, H, device="cuda", dtype=torch.bfloat16)
    pack.update({th: x["h"], tg: x["gamma"], ti: x["inv"], dx: out_dx, dgamma: torch.empty(1, H, device="cuda")})
    return out_dx


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--iters", type=int, default=30)
    args = ap.parse_args()
    torch.manual_seed(0)
    x = {n: (torch.randn(*shape, device="cuda") * 0.02).bfloat16()
         for n, shape in (("dg", (T, F)), ("du", (T, F)), ("wg", (H, F)), ("wu", (H, F)))}
    x["h"] = torch.randn(T, H, device="cuda").bfloat16()
    x["gamma"] = torch.randn(1, H, device="cuda").bfloat16()
    x["inv"] = torch.rand(T, 1, device="cuda") + 0.5
    heur = [cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK]

    whole = new_graph()
    pack, a, b = dgrads(whole, x)
    dx_whole = norm_backward(whole, whole.add(a, b, name="n2.grad"), x, pack)
    whole.build(heur)
    whole_ms = loop_ms(torch, lambda: whole.execute(pack), args.iters)

    mm = new_graph()
    pack1, a1, b1 = dgrads(mm, x)
    outs = [torch.empty(T, H, device="cuda") for _ in range(2)]
    for t, buf in zip((a1, b1), outs):
        t.set_output(True).set_data_type(F32)
        pack1[t] = buf
    mm.build(heur)
    rest = new_graph()
    ta, tb = rest.tensor_like(outs[0]), rest.tensor_like(outs[1])
    pack2 = {ta: outs[0], tb: outs[1]}
    dx_split = norm_backward(rest, rest.add(ta, tb), x, pack2)
    rest.build(heur)
    mm_ms = loop_ms(torch, lambda: mm.execute(pack1), args.iters)
    rest_ms = loop_ms(torch, lambda: rest.execute(pack2), args.iters)

    whole.execute(pack)
    mm.execute(pack1)
    rest.execute(pack2)
    torch.cuda.synchronize()
    diff = float((dx_split.double() - dx_whole.double()).abs().max() / dx_whole.double().abs().max())
    torch_ms = loop_ms(torch, lambda: (x["dg"] @ x["wg"].T, x["du"] @ x["wu"].T), args.iters)
    print(f"device: {torch.cuda.get_device_name()}, cuDNN {cudnn.backend_version()}")
    print(f"whole graph: {whole_ms:.4f} ms")
    print(f"split by hand: matmuls {mm_ms:.4f} + add and norm backward {rest_ms:.4f} = {mm_ms + rest_ms:.4f} ms "
          f"(dx rel. diff vs whole {diff:.1e})")
    print(f"torch two bf16 matmuls: {torch_ms:.4f} ms")
    if diff > 1e-2:
        sys.exit("the whole graph and the split form disagree")


if __name__ == "__main__":
    main()
