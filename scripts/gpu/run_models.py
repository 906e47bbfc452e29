"""The real-model corpus (test/models/) on the GPU, every model and phase at
its full size, by two routes:

  python    the Python package with torch CUDA tensors: build, execute at
            full size, compare with the CPU reference of the same graph (the
            package on numpy buffers) when that costs little, else with the
            model's float64 numpy reference at full size; then, when the CPU
            reference was too costly at full size, the same graph at the
            model's "check" size (SIZES["check"], else "small") on the GPU
            against the CPU reference.
  graph-run graph.to_mlir() written to a file and run with
            `graph-run --device=gpu --random-inputs=1 --check-against=cpu
            --verbose-plans FILE` at full size when the CPU side costs little;
            else a full-size GPU run without the check (it shows the plans)
            plus the checked run at the check size.

One PASS/FAIL line per model/phase/route with the fused group count (the
`plan:` lines graph-run prints, or graph-opt's count when build/bin/graph-opt
exists) and what was compared; the error text on failure; the last line is
"N passed, M failed". Every case runs whatever an earlier one did.

Usage on the GPU machine (scripts/gpu/run-models.sh sets up the library
paths): run_models.py [--models a,b] [--phases forward] [--routes python]
[--cpu-gflop 150] [--no-numpy-full] [--graph-run carry/bin/graph-run]

--cpu-only: a dry run for a machine without a GPU: the python route runs the
check size on the CPU reference against the numpy reference, the graph-run
route runs `graph-run --device=cpu` at the check size (no GPU flags).
"""

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "test", "models"))

import numpy as np  # noqa: E402

import harness  # noqa: E402  (puts python/ on sys.path; `import cudnn` inside)

DT = harness.DT


# =============================================================================
# Cost of the CPU reference
# =============================================================================


def _prod(dims):
    return float(np.prod([max(int(d), 1) for d in dims])) if dims else 1.0


def estimate_gflop(graph) -> float:
    """Floating-point work of the graph (GFLOP) as the CPU reference does it:
    matmuls, convolutions and attention dominate; other ops count ~10 flops
    per output element."""
    total = 0.0
    for node in graph.nodes:
        ins, outs = node.inputs, [t for t in node.outputs.values() if t is not None]
        if node.op == "matmul":
            total += 2.0 * _prod(outs[0].dim) * ins["A"].dim[-1]
        elif node.op in ("conv_fprop", "conv_dgrad", "conv_wgrad"):
            # every filter tap meets every output-gradient element once
            loss = outs[0] if node.op == "conv_fprop" else ins["loss"]
            filt = ins.get("weight") or ins.get("filter") or outs[0]
            total += 2.0 * _prod(loss.dim) * _prod(filt.dim[1:])
        elif node.op == "moe_grouped_matmul":
            # every routed row meets its expert's [K, N] weight block
            total += 2.0 * _prod(outs[0].dim) * ins["weight"].dim[-2]
        elif node.op.startswith("sdpa"):
            q, k = ins["q"].dim, ins["k"].dim
            work = 4.0 * _prod(q) * k[-2]  # QK^T and PV
            total += work * (2.5 if "backward" in node.op else 1.0)
        else:
            total += 10.0 * sum(_prod(t.dim) for t in outs)
    return total / 1e9


# =============================================================================
# Buffers on the GPU (torch)
# =============================================================================


def _torch_dtype(torch, dt):
    table = {
        DT.FLOAT: torch.float32,
        DT.HALF: torch.float16,
        DT.BFLOAT16: torch.bfloat16,
        DT.DOUBLE: torch.float64,
        DT.INT32: torch.int32,
        DT.INT64: torch.int64,
        DT.INT8: torch.int8,
        DT.UINT8: torch.uint8,
        DT.BOOLEAN: torch.bool,
    }
    if dt not in table:
        raise NotImplementedError(f"no torch buffer for {dt}")
    return table[dt]


def torch_buffer(torch, dt, dims, strides, values=None):
    """A CUDA tensor of ``dims`` with the graph's element ``strides``;
    ``values`` (float64, already rounded to dt) copied in exactly."""
    t = torch.empty_strided([int(d) for d in dims], _elem_strides(dims, strides), dtype=_torch_dtype(torch, dt), device="cuda")
    if values is not None:
        host = torch.from_numpy(np.ascontiguousarray(values, dtype=np.float64))
        t.copy_(host.to(t.dtype))  # exact: the values are representable in dt
    return t


def _elem_strides(dims, strides):
    """Element strides: the graph's, or row-major when it declares none."""
    if strides and any(int(s) for s in strides):
        return [int(s) for s in strides]
    out, acc = [], 1
    for d in reversed(list(dims)):
        out.append(acc)
        acc *= max(int(d), 1)
    return list(reversed(out))


def from_torch(torch, t):
    return t.detach().to(torch.float64).contiguous().cpu().numpy()


# =============================================================================
# Runs
# =============================================================================


def gpu_pack(torch, model, feeds):
    """Build ``model``'s graph for the GPU; its variant pack of CUDA tensors
    in the graph's layouts, with the inputs and outputs by name."""
    g = model.graph
    cudnn = harness.cudnn
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    layouts = harness.io_layouts(g)
    pack, ins, outs = {}, {}, {}
    for name, t in model.inputs.items():
        dt, dims, strides = layouts[t.uid]
        ins[name] = pack[t] = torch_buffer(torch, dt, dims, strides, feeds[name])
    for name, t in model.outputs.items():
        dt, dims, strides = layouts[t.uid]
        outs[name] = pack[t] = torch_buffer(torch, dt, dims, strides)
    return pack, ins, outs


def run_gpu(torch, model, feeds):
    """Build for the GPU and execute with CUDA tensors; float64 outputs."""
    pack, _, outs = gpu_pack(torch, model, feeds)
    model.graph.execute(pack)
    torch.cuda.synchronize()
    return {name: from_torch(torch, buf) for name, buf in outs.items()}


def summarize(checks):
    worst = max(checks, key=lambda c: (c.error / c.bound) if c.bound else (math.inf if c.error else 0.0))
    return f"worst {worst}"


def failures(checks):
    bad = [c for c in checks if not c.ok]
    return "; ".join(map(str, bad))


class Case:
    """One model/phase: its sizes, graphs and group counts."""

    def __init__(self, mod, phase, args):
        self.mod, self.phase, self.args = mod, phase, args
        self.full = harness.dims_of(mod, "full")
        self.check = harness.dims_of(mod, "check" if "check" in mod.SIZES else "small")
        self.full_gflop = estimate_gflop(harness.build_model(mod, phase, "full", self.full).graph)
        self.cpu_full = self.full_gflop <= args.cpu_gflop
        self.groups = {}  # size name -> group count (str)

    @property
    def label(self):
        return f"{self.mod.NAME}/{self.phase}"

    def dims_text(self, which):
        return " ".join(f"{k}={v}" for k, v in (self.full if which == "full" else self.check).items())

    def group_count(self, which, text):
        """graph-opt's count when it is here, else what graph-run reported."""
        if which not in self.groups and harness.graph_opt_available():
            try:
                self.groups[which] = str(harness.select_engines(text, self.label).groups)
            except harness.SelectEnginesError as exc:
                self.groups[which] = f"? (graph-opt: {str(exc).splitlines()[-1]})"
        return self.groups.get(which, "?")


def python_route(case, torch):
    args, mod, phase = case.args, case.mod, case.phase
    notes = []
    if args.cpu_only:
        checks = harness.check_numerics(mod, phase, "check" if "check" in mod.SIZES else "small", args.seed, case.check)
        text = harness.build_model(mod, phase, dims=case.check).graph.to_mlir()
        ok = all(c.ok for c in checks)
        detail = f"CPU reference vs numpy float64 at the check size ({case.dims_text('check')}): {summarize(checks)}"
        return ok, case.group_count("check", text), detail + ("" if ok else f"; FAILED: {failures(checks)}")

    model = harness.build_model(mod, phase, dims=case.full)
    feeds = harness.make_feeds(mod, model, phase, case.full, args.seed)
    start = time.time()
    got = run_gpu(torch, model, feeds)
    notes.append(f"full size ({case.dims_text('full')}) on the GPU in {time.time() - start:.1f} s")
    ok = True
    if case.cpu_full:
        want = harness.run_cpu(model, feeds)
        checks = harness.compare_outputs(model, got, want, case.label)
        notes.append(f"vs the CPU reference of the same graph: {summarize(checks)}")
        ok &= all(c.ok for c in checks)
        if not all(c.ok for c in checks):
            notes.append(f"FAILED: {failures(checks)}")
    else:
        if not args.no_numpy_full:
            want = mod.reference(phase, feeds, **case.full)
            checks = harness.compare_outputs(model, got, want, case.label)
            notes.append(f"vs numpy float64 (CPU reference too costly: ~{case.full_gflop:.0f} GFLOP): {summarize(checks)}")
            ok &= all(c.ok for c in checks)
            if not all(c.ok for c in checks):
                notes.append(f"FAILED: {failures(checks)}")
        small = harness.build_model(mod, phase, dims=case.check)
        small_feeds = harness.make_feeds(mod, small, phase, case.check, args.seed)
        got_small = run_gpu(torch, small, small_feeds)
        small_cpu = harness.build_model(mod, phase, dims=case.check)  # a fresh graph for the CPU plan
        want_small = harness.run_cpu(small_cpu, small_feeds)
        checks = harness.compare_outputs(small, got_small, want_small, case.label)
        notes.append(f"check size ({case.dims_text('check')}) GPU vs the CPU reference of the same graph: {summarize(checks)}")
        ok &= all(c.ok for c in checks)
        if not all(c.ok for c in checks):
            notes.append(f"FAILED: {failures(checks)}")
    return ok, case.group_count("full", model.graph.to_mlir()), "; ".join(notes)


def graph_run(args, path, gpu, check, inputs=()):
    cmd = [args.graph_run, "--print-max-elements=0", "--random-inputs=1", *inputs]
    cmd += ["--device=gpu", "--verbose-plans"] if gpu else ["--device=cpu"]
    if check:
        cmd.append("--check-against=cpu")
    cmd.append(path)
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return False, None, f"`{' '.join(cmd[1:])}` ran past {args.timeout} s"
    out = proc.stdout + proc.stderr
    lines = out.splitlines()
    plans = [line for line in lines if line.startswith("plan:")]
    failed = [line for line in lines if "[FAILED]" in line]
    ok = proc.returncode == 0 and not failed and (not check or any("[SUCCESS]" in line for line in lines))
    if ok:
        return True, len(plans) if gpu else None, f"`{' '.join(os.path.basename(c) for c in cmd)}` ok"
    tail = failed[:5] or lines[-12:]
    return False, len(plans) if plans else None, f"`{' '.join(cmd[1:-1])}` exit {proc.returncode}:\n      " + "\n      ".join(tail)


def graph_run_route(case, tmpdir):
    args, mod, phase = case.args, case.mod, case.phase

    def write(which, dims):
        text = harness.build_model(mod, phase, dims=dims).graph.to_mlir()
        path = os.path.join(tmpdir, f"{mod.NAME}_{phase}_{which}.mlir")
        with open(path, "w") as f:
            f.write(text)
        return path, text

    def feeds(which, dims):
        """--input flags with the model's own inputs (make_feeds: realistic
        saved activations and statistics for the backward graphs, where
        uniform random data overflows f16 gradients) as .npy files."""
        model = harness.build_model(mod, phase, dims=dims)
        flags = []
        for name, values in harness.make_feeds(mod, model, phase, dims, seed=args.seed).items():
            dt = harness.dtype_of(model.graph, model.inputs[name])
            file = os.path.join(tmpdir, f"{mod.NAME}_{phase}_{which}.{len(flags)}.npy")
            np.save(file, harness.to_raw(dt, values))
            flags.append(f"--input={name}=@{file}")
        return flags

    # Models whose integer inputs should be the model's own (a MoE routing
    # from its router, not graph-run's synthetic one) get them in every run.
    own_inputs = getattr(mod, "OWN_INPUTS_ONLY", False)
    if args.cpu_only:
        path, text = write("check", case.check)
        ok, _, detail = graph_run(args, path, gpu=False, check=False,
                                  inputs=feeds("check", case.check) if own_inputs else ())
        return ok, case.group_count("check", text), f"check size ({case.dims_text('check')}) on the CPU reference: {detail}"
    path, text = write("full", case.full)
    groups = case.group_count("full", text)
    if case.cpu_full:
        ok, plans, detail = graph_run(args, path, gpu=True, check=True, inputs=feeds("full", case.full))
        if plans is not None:
            case.groups.setdefault("full", str(plans))
        return ok, case.groups.get("full", groups), f"full size ({case.dims_text('full')}) checked against cpu: {detail}"
    ok_full, plans, detail_full = graph_run(args, path, gpu=True, check=False,
                                            inputs=feeds("full", case.full) if own_inputs else ())
    if plans is not None:
        case.groups.setdefault("full", str(plans))
    cpath, _ = write("check", case.check)
    ok_check, cplans, detail_check = graph_run(args, cpath, gpu=True, check=True, inputs=feeds("check", case.check))
    detail = (
        f"full size ({case.dims_text('full')}) GPU run, not checked (CPU side ~{case.full_gflop:.0f} GFLOP): {detail_full}; "
        f"check size ({case.dims_text('check')}, {cplans if cplans is not None else '?'} groups) checked against cpu: {detail_check}"
    )
    return ok_full and ok_check, case.groups.get("full", groups), detail


def python_route_isolated(case, argv):
    """python_route in a child process of this script: a CUDA fault (an
    illegal address poisons the process's context) then fails this case
    only. Returns the child's verdict, group count and detail."""
    argv = list(sys.argv[1:] if argv is None else argv)
    keep, skip = [], False
    for arg in argv:  # the child gets this case's model, phase and route only
        if skip:
            skip = False
            continue
        if arg in ("--models", "--phases", "--routes"):
            skip = True
            continue
        if arg.startswith(("--models=", "--phases=", "--routes=")):
            continue
        keep.append(arg)
    cmd = [sys.executable, os.path.abspath(__file__), *keep, "--in-process", "--models", case.mod.NAME, "--phases", case.phase, "--routes", "python"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    prefix = f" {case.label} [python] groups="
    for line in (proc.stdout or "").splitlines():
        if line.startswith(("PASS", "FAIL")) and prefix in line:
            ok = line.startswith("PASS")
            rest = line.split(prefix, 1)[1]
            groups, _, detail = rest.partition(" ")
            detail = detail.split("): ", 1)[1] if "): " in detail else detail
            return ok, groups, detail
    tail = ((proc.stdout or "") + (proc.stderr or "")).strip().splitlines()[-6:]
    return False, "?", f"the child process exited {proc.returncode} without a verdict:\n      " + "\n      ".join(tail)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma-separated model names (default: all)")
    ap.add_argument("--phases", default="forward,backward")
    ap.add_argument("--routes", default="graph-run,python")
    ap.add_argument("--cpu-gflop", type=float, default=150.0, help="largest estimated CPU-reference work (GFLOP) checked at full size")
    ap.add_argument("--no-numpy-full", action="store_true", help="skip the full-size numpy reference comparison")
    ap.add_argument("--graph-run", default=os.path.join(ROOT, "carry", "bin", "graph-run"))
    ap.add_argument("--timeout", type=int, default=300, help="seconds per graph-run call")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cpu-only", action="store_true", help="dry run without a GPU (see the module docstring)")
    ap.add_argument("--in-process", action="store_true", help="run the python route in this process (default: one child process per model/phase, so a CUDA fault of one model, which poisons its process's context, does not fail the rest)")
    args = ap.parse_args(argv)
    if args.cpu_only and args.graph_run == ap.get_default("graph_run") and not os.path.exists(args.graph_run):
        args.graph_run = os.path.join(ROOT, "build", "bin", "graph-run")

    torch = None
    if not args.cpu_only and "python" in args.routes:
        try:
            import torch  # noqa: F811
        except ImportError as exc:
            print(f"FAIL setup: torch is needed for the python route ({exc}); use --routes graph-run or --cpu-only")
            print("0 passed, 1 failed")
            return 1

    models = harness.load_models()
    wanted = [m for m in args.models.split(",") if m] or sorted(models)
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="run_models_") as tmpdir:
        for name in wanted:
            if name not in models:
                print(f"FAIL {name}: no such model (have {', '.join(sorted(models))})")
                failed += 1
                continue
            for phase in harness.phases(models[name]):
                if phase not in args.phases.split(","):
                    continue
                try:
                    case = Case(models[name], phase, args)
                except Exception as exc:  # noqa: BLE001 - report and go on
                    print(f"FAIL {name}/{phase}: building the graph: {type(exc).__name__}: {exc}")
                    failed += 1
                    continue
                for route in args.routes.split(","):
                    start = time.time()
                    try:
                        if route == "python" and not args.in_process and not args.cpu_only:
                            ok, groups, detail = python_route_isolated(case, argv)
                        elif route == "python":
                            ok, groups, detail = python_route(case, torch)
                        elif route == "graph-run":
                            ok, groups, detail = graph_run_route(case, tmpdir)
                        else:
                            raise ValueError(f"unknown route {route!r} (python, graph-run)")
                    except Exception as exc:  # noqa: BLE001 - report and go on
                        ok, groups = False, case.groups.get("full", "?")
                        tb = traceback.format_exc().strip().splitlines()
                        detail = f"{type(exc).__name__}: {str(exc)[:2000]}\n      at " + " <- ".join(line.strip() for line in tb[-3:-1])
                    print(f"{'PASS' if ok else 'FAIL'} {case.label} [{route}] groups={groups} ({time.time() - start:.1f} s): {detail}", flush=True)
                    passed += ok
                    failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
