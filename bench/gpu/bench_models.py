"""Whole model graphs against PyTorch on the GPU: each model of test/models/
named below, at its full size, as one graph through the Python package
(`import cudnn`, torch CUDA buffers), against the same block written in
PyTorch the way its users write it (eager; with --compile also
torch.compile), on the same inputs in the same process.

    llama_block/forward        RMSNorm, fused QKV, rotate-half RoPE, causal GQA
                               attention (F.scaled_dot_product_attention),
                               SwiGLU MLP; bf16
    llama_block/backward       the block's backward graph (from the saved
                               activations and dy) against PyTorch autograd's
                               backward of the block above (recorded once,
                               run with retain_graph): dx and every weight's
                               gradient
    resnet_bottleneck/forward  conv1x1-bn-relu, conv3x3-bn-relu, conv1x1-bn,
                               residual add, relu; fp16 channels-last, f32
                               batchnorm statistics (eval mode under AMP)
    gpt2_block/forward         pre-LN block: layernorm, fused QKV with bias,
                               causal attention, tanh-GELU MLP; fp16
    vit_block/forward          the same block unmasked with erf GELU; bf16

`--models all` adds the other models of test/models (BERT, Whisper's
encoder, T5's decoder, ConvNeXt, MobileNetV2, EfficientNet, DiT, Swin,
Mixtral's MoE, the UNet resblock, the 200-op random pointwise DAG;
backwards where the model trains),
written in PyTorch in torch_blocks/, one module per model. A "backward"
that is a whole training step as one graph (resnet_bottleneck,
unet_resblock) is timed against PyTorch's forward plus backward.

Each time is the mean over a loop of --iters runs between two CUDA events
after --warmup runs (the graph's first execute, which builds it, excluded).
Our output and torch.compile's are compared with eager's (relative error,
max |a - b| / max |b|); above --max-rel-err (default 0.02, a few bf16
roundings of the block's intermediates) the script fails, so a timing is
never reported for a block that computes something else.

Usage on the GPU machine (GRAPH_CAPI_LIBRARY set, as scripts/gpu/env.sh and
device-check.sh do): python3 bench/gpu/bench_models.py [--compile] [--profile]
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "gpu"))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))

import harness  # noqa: E402  (puts python/ on sys.path)
import run_models  # noqa: E402  (torch buffers in the graph's layouts)
from timing import loop_ms  # noqa: E402  (same folder)
from torch_blocks._autograd import backward_of, leaves_of  # noqa: E402


def rel_error(got, want):
    got, want = got.double(), want.double()
    return float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))


# =============================================================================
# The blocks in PyTorch
# =============================================================================


def llama_torch(torch, mod, f, b, s, hidden, heads, kv_heads, head_dim, ffn):
    F = torch.nn.functional
    eps = mod.EPS
    half = head_dim // 2

    def rmsnorm(v, w):
        v32 = v.float()
        return (v32 * torch.rsqrt(v32.pow(2).mean(-1, keepdim=True) + eps) * w.float()).to(v.dtype)

    def rope(t, cos, sin):
        lo, hi = t[..., :half].float(), t[..., half:].float()
        return torch.cat([lo * cos - hi * sin, hi * cos + lo * sin], dim=-1).to(t.dtype)

    def block():
        x = f["x"]
        cos, sin = torch.cos(f["freqs"]), torch.sin(f["freqs"])
        qkv = rmsnorm(x, f["attn_norm.weight"]) @ f["wqkv"]
        heads_all = qkv.view(b, s, heads + 2 * kv_heads, head_dim).transpose(1, 2)
        q = rope(heads_all[:, :heads], cos, sin)
        k = rope(heads_all[:, heads : heads + kv_heads], cos, sin)
        v = heads_all[:, heads + kv_heads :]
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        h = x + o.transpose(1, 2).reshape(b * s, heads * head_dim) @ f["wo"]
        n2 = rmsnorm(h, f["mlp_norm.weight"])
        return h + (F.silu(n2 @ f["w_gate"]) * (n2 @ f["w_up"])) @ f["w_down"]

    return block


def resnet_torch(torch, mod, f, n, c, mid, h, w):
    F = torch.nn.functional
    eps = mod.EPS
    # eval-mode batchnorm takes the running variance: 1 / inv_variance^2 - eps
    stats = {}
    for _, bn, _, _ in mod.LAYERS:
        stats[bn] = (
            f[bn + ".mean"].reshape(-1),
            (1.0 / f[bn + ".inv_variance"].double() ** 2 - eps).float().reshape(-1),
            f[bn + ".weight"].reshape(-1),
            f[bn + ".bias"].reshape(-1),
        )

    def block():
        x = f["x"]
        act = x
        for conv, bn, _, pad in mod.LAYERS:
            mean, var, gamma, beta = stats[bn]
            y = F.batch_norm(F.conv2d(act, f[conv + ".weight"], padding=pad), mean, var, gamma, beta, False, 0.0, eps)
            act = F.relu(y) if conv != "conv3" else y
        return F.relu(act + x)

    return block


def pre_ln_torch(causal, gelu):
    """A pre-LayerNorm transformer block (test/models/_transformer.py's
    pre_ln_forward_graph: GPT-2 with a causal mask and tanh GELU, ViT
    without a mask and with erf GELU) as its users write it: layer_norm,
    linear layers as addmm on the [in, out] weights, one
    scaled_dot_product_attention over the fused projection's heads."""

    def make(torch, mod, f, b, s, hidden, heads, ffn):
        F = torch.nn.functional
        head_dim = hidden // heads

        def layernorm(v, name):
            return F.layer_norm(v, (hidden,), f[name + ".weight"].reshape(-1), f[name + ".bias"].reshape(-1), mod.EPS)

        def linear(v, name):
            return torch.addmm(f[name + ".bias"], v, f[name + ".weight"])

        def block():
            x = f["x"]
            qkv = linear(layernorm(x, "ln_1"), "qkv")
            q, k, v = qkv.view(b, s, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            h = x + linear(o.transpose(1, 2).reshape(b * s, hidden), "proj")
            act = F.gelu(linear(layernorm(h, "ln_2"), "fc1"), approximate=gelu)
            return h + linear(act, "fc2")

        return block

    return make


def llama_backward_torch(torch, mod, f, **dims):
    """The block's backward in PyTorch: autograd through llama_torch's
    forward, recorded once; each call computes the gradients of y for dy
    (the graph's dy) with respect to x and the weights, as a training step's
    backward does. Returns (backward, gradients by the graph's output
    names)."""
    leaves = leaves_of(torch, f, ("x",) + mod.WEIGHTS)
    block = llama_torch(torch, mod, {**f, **leaves}, **dims)
    return (block, *backward_of(torch, leaves, f["dy"]))


CASES = {
    ("llama_block", "forward"): llama_torch,
    ("llama_block", "backward"): llama_backward_torch,
    ("resnet_bottleneck", "forward"): resnet_torch,
    ("gpt2_block", "forward"): pre_ln_torch(causal=True, gelu="tanh"),
    ("vit_block", "forward"): pre_ln_torch(causal=False, gelu="none"),
}
# The five above run by default; `--models all` adds the other models'
# blocks, one module per model in torch_blocks/ (each with its CASES).
DEFAULT_CASES = list(CASES)


def load_more_cases():
    import importlib

    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_blocks")
    for file in sorted(os.listdir(folder)):
        if file.endswith(".py") and not file.startswith("_"):
            module = importlib.import_module("torch_blocks." + file[:-3])
            CASES.update(module.CASES)


def worst_error(got_by_name, want):
    """The worst relative error of our outputs against torch's: `want` is the
    tensor of output "y" or a dict of tensors by output name."""
    if not isinstance(want, dict):
        want = {"y": want}
    return max(rel_error(got_by_name[n], w.reshape(got_by_name[n].shape)) for n, w in want.items())


# =============================================================================
# Runs
# =============================================================================


def set_up(torch, name, phase, args):
    """Model `name`'s graph for `phase` at full size, built and executed once
    (the first execute sets it up) on its seeded inputs in torch buffers:
    (module, dims, graph, variant pack, inputs by name, outputs by name)."""
    mod = harness.load_models()[name]
    dims = harness.dims_of(mod, "full")
    model = harness.build_model(mod, phase, dims=dims)
    feeds = harness.make_feeds(mod, model, phase, dims, args.seed)
    g = model.graph
    pack, bufs, outs = run_models.gpu_pack(torch, model, feeds)
    start = time.perf_counter()
    g.execute(pack)
    torch.cuda.synchronize()
    print(f"{name}/{phase}: first execute (plans chosen and built) {time.perf_counter() - start:.1f} s", flush=True)
    return mod, dims, g, pack, bufs, outs


def bench_backward(torch, name, phase, make_torch, args):
    """A backward graph against PyTorch's autograd backward of the same
    block on the same inputs (the saved activations the graph reads are the
    model's float64 forward rounded to bf16; autograd's are its own forward
    in bf16, so the gradients agree to bf16 roundings)."""
    mod, dims, g, pack, bufs, outs = set_up(torch, name, phase, args)

    block, make, grads = make_torch(torch, mod, bufs, **dims)
    eager = make(block)
    want = grads(eager)
    ours_ms = loop_ms(torch, lambda: g.execute(pack), args.iters, args.warmup)
    eager_ms = loop_ms(torch, eager, args.iters, args.warmup)

    def worst(got):
        return max(rel_error(got[n], want[n].reshape(got[n].shape)) for n in want)

    result = {"ours_ms": ours_ms, "eager_ms": eager_ms, "rel_err": worst(outs), "dims": dims}
    line = f"{name}/{phase} {dims}: ours {ours_ms:.3f} ms, torch eager autograd {eager_ms:.3f} ms (ratio {eager_ms / ours_ms:.2f})"
    if args.compile:
        try:
            compiled = make(torch.compile(block))
            result["compiled_rel_err"] = worst(grads(compiled))
            compiled_ms = loop_ms(torch, compiled, args.iters, args.warmup)
            result["compiled_ms"] = compiled_ms
            line += f", torch.compile autograd {compiled_ms:.3f} ms (ratio {compiled_ms / ours_ms:.2f})"
        except Exception as exc:
            line += f", torch.compile failed: {type(exc).__name__}: {str(exc)[:200]}"
    line += f", worst gradient rel err vs eager {result['rel_err']:.2g}"
    if "compiled_rel_err" in result:
        line += f" (torch.compile {result['compiled_rel_err']:.2g})"
    print(line, flush=True)
    if args.profile:
        sides = [("ours", lambda: g.execute(pack)), ("torch eager", eager)]
        if "compiled_ms" in result:
            sides.append(("torch.compile", compiled))
        for side, fn in sides:
            print(f"---- {name}/{phase}, {side}: CUDA time of 10 runs by kernel")
            print(profile_table(torch, fn))
    return result


def bench_case(torch, name, phase, make_torch, args):
    if phase == "backward":
        return bench_backward(torch, name, phase, make_torch, args)
    mod, dims, g, pack, bufs, outs = set_up(torch, name, phase, args)

    block = make_torch(torch, mod, bufs, **dims)
    with torch.no_grad():
        want = block()
        ours_ms = loop_ms(torch, lambda: g.execute(pack), args.iters, args.warmup)
        eager_ms = loop_ms(torch, block, args.iters, args.warmup)
        result = {
            "ours_ms": ours_ms,
            "eager_ms": eager_ms,
            "rel_err": worst_error(outs, want),
            "dims": dims,
        }
        line = (
            f"{name}/{phase} {dims}: ours {ours_ms:.3f} ms, torch eager {eager_ms:.3f} ms "
            f"(ratio {eager_ms / ours_ms:.2f})"
        )
        if args.compile:
            try:
                compiled = torch.compile(block)
                result["compiled_rel_err"] = worst_error(_as_outputs(compiled()), want)
                compiled_ms = loop_ms(torch, compiled, args.iters, args.warmup)
                result["compiled_ms"] = compiled_ms
                line += f", torch.compile {compiled_ms:.3f} ms (ratio {compiled_ms / ours_ms:.2f})"
            except Exception as exc:  # report it and go on: eager is the baseline
                line += f", torch.compile failed: {type(exc).__name__}: {str(exc)[:200]}"
    line += f", rel err vs eager {result['rel_err']:.2g}"
    if "compiled_rel_err" in result:
        line += f" (torch.compile {result['compiled_rel_err']:.2g})"
    print(line, flush=True)
    if args.profile:
        sides = [("ours", lambda: g.execute(pack)), ("torch eager", block)]
        if "compiled_ms" in result:
            sides.append(("torch.compile", compiled))
        with torch.no_grad():
            for side, fn in sides:
                print(f"---- {name}/{phase}, {side}: CUDA time of 10 runs by kernel")
                print(profile_table(torch, fn))
    return result


def _as_outputs(value):
    return value if isinstance(value, dict) else {"y": value}


def profile_table(torch, fn, runs=10):
    from torch.profiler import ProfilerActivity, profile

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            fn()
        torch.cuda.synchronize()
    return prof.key_averages().table(sort_by="cuda_time_total", row_limit=24, max_name_column_width=90)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--models",
        default=",".join(f"{m}/{p}" for m, p in DEFAULT_CASES),
        help="model/phase list, or `all` (every model with a PyTorch block)",
    )
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--compile", action="store_true", help="also time torch.compile of the PyTorch block")
    ap.add_argument("--max-rel-err", type=float, default=0.02, help="fail above this relative error against torch eager")
    ap.add_argument("--profile", action="store_true", help="print each side's CUDA time by kernel (torch.profiler)")
    args = ap.parse_args(argv)
    import torch

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, cuDNN {harness.cudnn.backend_version()}")
    load_more_cases()
    items = [f"{m}/{p}" for m, p in CASES] if args.models == "all" else args.models.split(",")
    results = {}
    for item in items:
        name, phase = item.split("/")
        results[item] = bench_case(torch, name, phase, CASES[(name, phase)], args)
    print("JSON " + json.dumps(results))
    bad = [
        f"{item} {key} {r[key]:.3g}"
        for item, r in results.items()
        for key in ("rel_err", "compiled_rel_err")
        if key in r and not (r[key] <= args.max_rel_err)  # NaN fails too
    ]
    if bad:
        print(f"FAILED: relative error above {args.max_rel_err} against torch eager: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
