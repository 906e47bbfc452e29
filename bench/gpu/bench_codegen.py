"""Memory-bound benchmark of the codegen engine against a copy, torch eager
and torch.compile (the codegen issue's benchmark).

For bf16 tensors of 256 MiB with row lengths 4096 and 16384 (rows = 256 MiB /
(2 bytes * row length)), each case builds its graph through our package
(imported as `cudnn`) with the cuDNN engine deselected, so only our generated
kernels (codegen_v1) may run it, checks the result against torch, then times

  ours      g.execute(...) queued on torch's stream (cudnn.set_stream)
  copy      a device-to-device copy moving the same bytes (half read, half
            written: dst.copy_(src) of (read + write) / 2 bytes)
  eager     the fastest plain torch formulation (fused aten ops where torch
            has them, e.g. native_layer_norm, softmax)
  compile   torch.compile of the same computation written out in torch ops

with CUDA events (median of several repeats of several back-to-back calls).
GB/s = (bytes read + bytes written) / time. One line per case, then
`JSON {...}` with every number.

Cases: rmsnorm fwd (training: Y, inv_var), layernorm fwd (training: Y,
mean, inv_var), layernorm bwd (dX, dscale, dbias), rmsnorm bwd (dX, dscale),
softmax (the pattern reduction max -> sub -> exp -> reduction add -> div,
built from our reduction and pointwise ops), and the 4-op pointwise chain
x * s + b -> gelu -> tanh -> bf16.

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 bench/gpu/bench_codegen.py
    ... bench_codegen.py --cols 4096 --cases rmsnorm_fwd,softmax --no-compile

Engine selection: pygraph.deselect_engines(["cudnn"]) is handed to the C API
(graphSetPlanOptions) at execute; the GPU executor then skips cuDNN for every
group and runs codegen_v1, splitting a group codegen declines into single
ops; an op no engine runs makes execute raise (reported as an error). The
package's plan list is the first group's: cuDNN's plans then the codegen
plans, and deselect_engines(["cudnn"]) bars the cuDNN ones, so build()
builds (compiles) the first codegen plan and execute pins it;
force_codegen() also sets the C API option directly, so it holds when the
plan list fell back to the CPU reference plan. The Python API cannot
report which engine or how many kernels ran: with --plans (default when
carry/bin/graph-run exists) each graph's text is run once through
`graph-run --verbose-plans --deselect-engines=cudnn` to print the plans.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import cudnn  # noqa: E402

MIB = 1 << 20
EPS = 1e-5
BF16 = cudnn.data_type.BFLOAT16
FP32 = cudnn.data_type.FLOAT
TRAINING = cudnn.norm_forward_phase.TRAINING


# ---------------------------------------------------------------------------
# Timing and checking
# ---------------------------------------------------------------------------


def time_ms(fn, iters=5, repeats=7, warmup=3):
    """Median milliseconds per call: `repeats` samples, each `iters`
    back-to-back calls between two CUDA events on the current stream."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(iters):
            fn()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / iters)
    return statistics.median(samples)


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def bound_for(t):
    """Normwise relative error bound of an output of t's dtype."""
    return {torch.bfloat16: 2e-2, torch.float16: 5e-3}.get(t.dtype, 1e-3)


def check(outputs, references):
    """(worst err / bound ratio, per-output errors): PASS when the ratio <= 1."""
    errs, worst = [], 0.0
    for got, want in zip(outputs, references):
        e = rel_err(got, want.reshape(got.shape))
        errs.append(e)
        worst = max(worst, e / bound_for(got) if e == e else float("inf"))
    return worst, errs


# ---------------------------------------------------------------------------
# Our graphs (2-D [rows, cols]: the norms normalize each row)
# ---------------------------------------------------------------------------


def new_graph():
    return cudnn.pygraph(io_data_type=BF16, intermediate_data_type=FP32, compute_data_type=FP32)


def inp(g, name, dims, dt=BF16):
    return g.tensor(name=name, dim=list(dims), stride=[dims[1], 1], data_type=dt)


def out(t, dt):
    return t.set_output(True).set_data_type(dt)


def force_codegen(g):
    """Build `g` with cuDNN deselected so only codegen_v1 can run it."""
    g.deselect_engines(["cudnn"])
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    # Hand the option to the C API now too (prepare_run only does so for a GPU
    # plan list; a graph cuDNN cannot plan gets the CPU reference plan).
    status = g._module.set_plan_options(["cudnn"], -1, False)
    if status != 0:
        raise RuntimeError(f"graphSetPlanOptions(deselect cudnn) failed with status {status}")
    return g


def eps_scalar(g):
    # A pass-by-value scalar ([1, 1, 1, 1]; epsilon takes a one-element
    # tensor of any rank).
    return g.tensor_scalar(EPS, FP32)


def graph_rmsnorm_fwd(r, c):
    g = new_graph()
    X, S = inp(g, "x", [r, c]), inp(g, "scale", [1, c])
    Y, IV = g.rmsnorm(input=X, scale=S, epsilon=eps_scalar(g), norm_forward_phase=TRAINING)
    return g, [X, S], [out(Y, BF16), out(IV, FP32).set_dim([r, 1])]


def graph_layernorm_fwd(r, c):
    g = new_graph()
    X, S, B = inp(g, "x", [r, c]), inp(g, "scale", [1, c]), inp(g, "bias", [1, c])
    Y, M, IV = g.layernorm(input=X, scale=S, bias=B, epsilon=eps_scalar(g), norm_forward_phase=TRAINING)
    return g, [X, S, B], [out(Y, BF16), out(M, FP32).set_dim([r, 1]), out(IV, FP32).set_dim([r, 1])]


def graph_layernorm_bwd(r, c):
    g = new_graph()
    DY, X, S = inp(g, "dy", [r, c]), inp(g, "x", [r, c]), inp(g, "scale", [1, c])
    M, IV = inp(g, "mean", [r, 1], FP32), inp(g, "inv_var", [r, 1], FP32)
    DX, DS, DB = g.layernorm_backward(grad=DY, input=X, scale=S, mean=M, inv_variance=IV)
    return g, [DY, X, S, M, IV], [out(DX, BF16), out(DS, FP32), out(DB, FP32)]


def graph_rmsnorm_bwd(r, c):
    g = new_graph()
    DY, X, S = inp(g, "dy", [r, c]), inp(g, "x", [r, c]), inp(g, "scale", [1, c])
    IV = inp(g, "inv_var", [r, 1], FP32)
    outs = g.rmsnorm_backward(grad=DY, input=X, scale=S, inv_variance=IV, has_dbias=False)
    DX, DS = outs[0], outs[1]
    return g, [DY, X, S, IV], [out(DX, BF16), out(DS, FP32)]


def graph_softmax(r, c):
    g = new_graph()
    X = inp(g, "x", [r, c])
    MX = g.reduction(input=X, mode=cudnn.reduction_mode.MAX).set_dim([r, 1]).set_data_type(FP32)
    E = g.exp(input=g.sub(a=X, b=MX))
    SUM = g.reduction(input=E, mode=cudnn.reduction_mode.ADD).set_dim([r, 1]).set_data_type(FP32)
    Y = g.div(a=E, b=SUM)
    return g, [X], [out(Y, BF16)]


def graph_chain(r, c):
    g = new_graph()
    X, S, B = inp(g, "x", [r, c]), inp(g, "s", [1, c]), inp(g, "b", [1, c])
    Y = g.tanh(input=g.gelu(input=g.add(a=g.mul(a=X, b=S), b=B)))
    return g, [X, S, B], [out(Y, BF16)]


# ---------------------------------------------------------------------------
# The torch side: inputs, the reference, eager and the compiled formulation
# ---------------------------------------------------------------------------


def rms_fwd_math(x, w):
    xf = x.float()
    iv = torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)
    return (xf * iv * w.float()).to(x.dtype), iv


def rms_bwd_math(dy, x, w, iv):
    xf, g = x.float(), dy.float() * w.float()
    xhat = xf * iv
    dx = iv * (g - xhat * (g * xhat).mean(-1, keepdim=True))
    dw = (dy.float() * xhat).sum(0, keepdim=True)
    return dx.to(x.dtype), dw


def ln_fwd_math(x, w, b):
    xf = x.float()
    m = xf.mean(-1, keepdim=True)
    iv = torch.rsqrt((xf - m).pow(2).mean(-1, keepdim=True) + EPS)
    return ((xf - m) * iv * w.float() + b.float()).to(x.dtype), m, iv


def ln_bwd_math(dy, x, w, m, iv):
    xhat = (x.float() - m) * iv
    g = dy.float() * w.float()
    dx = iv * (g - g.mean(-1, keepdim=True) - xhat * (g * xhat).mean(-1, keepdim=True))
    dw = (dy.float() * xhat).sum(0, keepdim=True)
    db = dy.float().sum(0, keepdim=True)
    return dx.to(x.dtype), dw, db


def softmax_math(x):
    xf = x.float()
    e = torch.exp(xf - xf.amax(-1, keepdim=True))
    return (e / e.sum(-1, keepdim=True)).to(x.dtype)


def chain_math(x, s, b):
    return torch.tanh(F.gelu(x.float() * s.float() + b.float())).to(torch.bfloat16)


def first_working(fast, slow):
    """`fast` (a fused aten op whose signature varies across torch versions)
    when one call of it works, else `slow`."""
    if fast is None:
        return slow
    try:
        fast()
        torch.cuda.synchronize()
        return fast
    except Exception:  # noqa: BLE001 - fall back to the plain formulation
        return slow


def make_case(kind, r, c):
    """Everything one case needs: our graph, its pack and output buffers, the
    torch reference outputs, the eager callable, the math function and
    arguments torch.compile gets, and the bytes the case reads and writes."""
    dev, bf = "cuda", torch.bfloat16
    x = torch.randn(r, c, device=dev, dtype=bf)
    w = (1.0 + 0.1 * torch.randn(1, c, device=dev)).to(bf)
    b = (0.1 * torch.randn(1, c, device=dev)).to(bf)
    n = r * c * 2  # bytes of one [r, c] bf16 tensor
    aten = torch.ops.aten
    if kind == "rmsnorm_fwd":
        g, ins, outs = graph_rmsnorm_fwd(r, c)
        data = [x, w]
        bufs = [torch.empty_like(x), torch.empty(r, 1, device=dev)]
        math_fn, math_args = rms_fwd_math, (x, w)
        op = getattr(aten, "_fused_rms_norm", None)
        fast = (lambda: op(x, [c], w.view(c), EPS)) if op is not None else None
        moved = n + c * 2 + n + r * 4
    elif kind == "layernorm_fwd":
        g, ins, outs = graph_layernorm_fwd(r, c)
        data = [x, w, b]
        bufs = [torch.empty_like(x), torch.empty(r, 1, device=dev), torch.empty(r, 1, device=dev)]
        math_fn, math_args = ln_fwd_math, (x, w, b)
        fast = lambda: aten.native_layer_norm(x, [c], w.view(c), b.view(c), EPS)  # noqa: E731
        moved = n + 2 * c * 2 + n + 2 * r * 4
    elif kind == "layernorm_bwd":
        g, ins, outs = graph_layernorm_bwd(r, c)
        dy = torch.randn(r, c, device=dev, dtype=bf)
        _, m, iv = ln_fwd_math(x, w, b)
        m, iv = m.contiguous(), iv.contiguous()
        data = [dy, x, w, m, iv]
        bufs = [torch.empty_like(x), torch.empty(1, c, device=dev), torch.empty(1, c, device=dev)]
        math_fn, math_args = ln_bwd_math, (dy, x, w, m, iv)
        wv, bv = w.view(c), b.view(c)
        fast = lambda: aten.native_layer_norm_backward(dy, x, [c], m, iv, wv, bv, [True, True, True])  # noqa: E731
        moved = 2 * n + 2 * r * 4 + c * 2 + n + 2 * c * 4
    elif kind == "rmsnorm_bwd":
        g, ins, outs = graph_rmsnorm_bwd(r, c)
        dy = torch.randn(r, c, device=dev, dtype=bf)
        iv = rms_fwd_math(x, w)[1].contiguous()
        data = [dy, x, w, iv]
        bufs = [torch.empty_like(x), torch.empty(1, c, device=dev)]
        math_fn, math_args = rms_bwd_math, (dy, x, w, iv)
        op = getattr(aten, "_fused_rms_norm_backward", None)
        fast = (lambda: op(dy, x, [c], iv, w.view(c), [True, True])) if op is not None else None
        moved = 2 * n + r * 4 + c * 2 + n + c * 4
    elif kind == "softmax":
        g, ins, outs = graph_softmax(r, c)
        data = [x]
        bufs = [torch.empty_like(x)]
        math_fn, math_args = softmax_math, (x,)
        fast = lambda: torch.softmax(x, -1)  # noqa: E731
        moved = 2 * n
    elif kind == "chain":
        g, ins, outs = graph_chain(r, c)
        data = [x, w, b]
        bufs = [torch.empty_like(x)]
        math_fn, math_args = chain_math, (x, w, b)
        fast = None
        moved = n + 2 * c * 2 + n
    else:
        raise ValueError(f"unknown case {kind!r}")
    ref = math_fn(*math_args)
    if not isinstance(ref, tuple):
        ref = (ref,)
    eager = first_working(fast, lambda: math_fn(*math_args))
    pack = dict(zip(ins, data))
    pack.update(zip(outs, bufs))
    return dict(graph=g, pack=pack, bufs=bufs, ref=ref, eager=eager, math_fn=math_fn, math_args=math_args,
                moved=moved)


# ---------------------------------------------------------------------------
# Plans through graph-run (which engine, how many kernels)
# ---------------------------------------------------------------------------


def graph_run_binary():
    for path in (os.path.join(ROOT, "carry", "bin", "graph-run"), os.path.join(ROOT, "build", "bin", "graph-run")):
        if os.path.exists(path):
            return path
    return None


def plans_of(g, binary):
    """The plan lines graph-run --verbose-plans prints for g's text with
    cuDNN deselected (random inputs, GPU only), or the error's last line."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(g.to_mlir())
        path = f.name
    try:
        proc = subprocess.run([binary, "--device=gpu", "--random-inputs=1", "--print-max-elements=0", "--verbose-plans",
                               "--deselect-engines=cudnn", path], capture_output=True, text=True, timeout=120)
        text = proc.stdout + proc.stderr
        lines = [ln.strip() for ln in text.splitlines() if ln.startswith("plan:")]
        if proc.returncode != 0 or not lines:
            tail = [ln for ln in text.splitlines() if ln.strip()][-1:] or ["(no output)"]
            return [f"graph-run exit {proc.returncode}: {tail[0][:300]}"]
        return lines
    except Exception as exc:  # noqa: BLE001 - diagnostics only
        return [f"graph-run failed: {type(exc).__name__}: {exc}"]
    finally:
        os.unlink(path)


# ---------------------------------------------------------------------------
# One case
# ---------------------------------------------------------------------------


def run_case(kind, c, args, deadline):
    r = (256 * MIB) // (2 * c)
    res = dict(case=kind, rows=r, cols=c)
    case = make_case(kind, r, c)
    res["bytes"] = case["moved"]
    g, pack = case["graph"], case["pack"]
    gbps = lambda ms: case["moved"] / (ms * 1e-3) / 1e9  # noqa: E731

    if args.plans and args.graph_run:
        res["plans"] = plans_of(g, args.graph_run)

    # Ours: build with cuDNN deselected, check, time.
    try:
        force_codegen(g)
        ours = lambda: g.execute(pack)  # noqa: E731
        ours()
        torch.cuda.synchronize()
        worst, errs = check(case["bufs"], case["ref"])
        res["rel_err"] = errs
        res["check"] = "PASS" if worst <= 1.0 else "FAIL"
        res["ours_ms"] = time_ms(ours)
    except Exception as exc:  # noqa: BLE001 - report and go on
        res["check"] = "ERROR"
        res["ours_error"] = f"{type(exc).__name__}: {str(exc)[:600]}"

    # The copy of the same bytes: half read, half written.
    half = case["moved"] // 2 // 2  # bf16 elements
    src = torch.empty(half, device="cuda", dtype=torch.bfloat16)
    dst = torch.empty_like(src)
    res["copy_ms"] = time_ms(lambda: dst.copy_(src))
    del src, dst

    try:
        res["eager_ms"] = time_ms(case["eager"])
    except Exception as exc:  # noqa: BLE001
        res["eager_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"

    if args.no_compile:
        res["compile_error"] = "skipped (--no-compile)"
    elif time.time() > deadline:
        res["compile_error"] = "skipped (time budget spent)"
    else:
        try:
            comp = torch.compile(case["math_fn"], dynamic=False)
            args_ = case["math_args"]
            res["compile_ms"] = time_ms(lambda: comp(*args_))
        except Exception as exc:  # noqa: BLE001
            res["compile_error"] = f"{type(exc).__name__}: {str(exc)[:300]}"

    for key in ("ours", "copy", "eager", "compile"):
        if f"{key}_ms" in res:
            res[f"{key}_gbps"] = gbps(res[f"{key}_ms"])
    if "ours_gbps" in res:
        res["ours_frac_of_copy"] = res["ours_gbps"] / res["copy_gbps"]
        res["ours_ge_085_copy"] = res["ours_frac_of_copy"] >= 0.85
        if "eager_gbps" in res:
            res["ours_ge_eager"] = res["ours_gbps"] >= res["eager_gbps"]
        if "compile_gbps" in res:
            res["ours_ge_compile"] = res["ours_gbps"] >= res["compile_gbps"]
    del case, g, pack
    torch.cuda.empty_cache()
    return res


def fmt(res):
    name = f"{res['case']} {res['rows']}x{res['cols']}"
    if "ours_error" in res:
        head = f"{name}: ERROR {res['ours_error']}"
    else:
        errs = ", ".join(f"{e:.2g}" for e in res.get("rel_err", []))
        head = (f"{name}: {res['check']} (rel err {errs}) ours {res['ours_ms']:.3f} ms {res['ours_gbps']:.0f} GB/s "
                f"= {res['ours_frac_of_copy']:.2f} of copy [{'ok' if res['ours_ge_085_copy'] else 'below'} 0.85]")
    parts = [head, f"copy {res['copy_gbps']:.0f} GB/s"]
    for key in ("eager", "compile"):
        if f"{key}_gbps" in res:
            verdict = ""
            if f"ours_ge_{key}" in res:
                verdict = " [ours >=]" if res[f"ours_ge_{key}"] else " [ours <]"
            parts.append(f"{key} {res[f'{key}_gbps']:.0f} GB/s{verdict}")
        else:
            parts.append(f"{key}: {res.get(f'{key}_error', '?')[:120]}")
    return ", ".join(parts)


CASES = ["rmsnorm_fwd", "layernorm_fwd", "layernorm_bwd", "rmsnorm_bwd", "softmax", "chain"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cols", default="4096,16384", help="comma-separated row lengths")
    ap.add_argument("--cases", default=",".join(CASES), help="comma-separated subset of " + ",".join(CASES))
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--budget-s", type=float, default=420.0,
                    help="after this many seconds, skip torch.compile for the remaining cases")
    ap.add_argument("--no-plans", dest="plans", action="store_false",
                    help="do not run graph-run --verbose-plans to show which kernels run")
    args = ap.parse_args()
    args.graph_run = graph_run_binary()
    deadline = time.time() + args.budget_s

    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}, graph-run: {args.graph_run}")
    handle = cudnn.create_handle()
    cudnn.set_stream(handle=handle, stream=torch.cuda.current_stream().cuda_stream)
    torch.manual_seed(0)
    results = []
    for c in [int(v) for v in args.cols.split(",") if v]:
        for kind in [k for k in args.cases.split(",") if k]:
            try:
                res = run_case(kind, c, args, deadline)
            except Exception as exc:  # noqa: BLE001 - a setup failure (e.g. OOM)
                res = dict(case=kind, rows=(256 * MIB) // (2 * c), cols=c, check="ERROR",
                           ours_error=f"setup: {type(exc).__name__}: {str(exc)[:400]}", copy_gbps=float("nan"))
                torch.cuda.empty_cache()
            results.append(res)
            print(fmt(res))
            for line in res.get("plans", []):
                print(f"    {line}")
            sys.stdout.flush()
    ok = [r for r in results if r.get("check") == "PASS"]
    summary = dict(
        device=torch.cuda.get_device_name(), torch=torch.__version__, cases=results,
        passed=len(ok), total=len(results),
        ge_085_copy=sum(1 for r in ok if r.get("ours_ge_085_copy")),
        ge_eager=sum(1 for r in ok if r.get("ours_ge_eager")),
        ge_compile=sum(1 for r in ok if r.get("ours_ge_compile")),
    )
    print(f"{summary['passed']}/{summary['total']} correct; of those >= 0.85 copy: {summary['ge_085_copy']}, "
          f">= eager: {summary['ge_eager']}, >= compile: {summary['ge_compile']}")
    print("JSON " + json.dumps(summary))


if __name__ == "__main__":
    main()
