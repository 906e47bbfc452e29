"""One process, two GPUs (issue 11): handles bound to the device current at
their creation, graphs run on the device of their handle or of their torch
tensors, per-device streams, one thread per GPU, and the errors for a buffer
on the wrong GPU and for a GPU that does not exist. Every result is checked
against torch on the same device. Run on a machine with 2 or more GPUs:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/multi_gpu.py

Prints PASS/FAIL per case and "N passed, M failed"; exits 1 on a failure.
With fewer than 2 GPUs (or without torch) it prints one SKIP line and exits 0.
"""

import os
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

try:
    import torch  # noqa: E402
except ImportError:
    print("SKIP multi_gpu.py: torch is not installed")
    sys.exit(0)

if not torch.cuda.is_available() or torch.cuda.device_count() < 2:
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    print(f"SKIP multi_gpu.py: needs 2 GPUs, this machine has {count}")
    sys.exit(0)

import cudnn  # noqa: E402  (our package, through its cudnn shim)
from graph_compiler import _capi  # noqa: E402


def rel_err(got, want):
    got, want = got.double().cpu(), want.double().cpu()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def matmul_relu_graph(handle=None, m=128, k=256, n=64):
    """(graph, A, B, Y) for relu(A @ B) in half with float compute."""
    graph = cudnn.pygraph(
        io_data_type=cudnn.data_type.HALF,
        intermediate_data_type=cudnn.data_type.FLOAT,
        compute_data_type=cudnn.data_type.FLOAT,
        handle=handle,
    )
    A = graph.tensor(name="A", dim=[1, m, k], stride=[m * k, k, 1], data_type=cudnn.data_type.HALF)
    B = graph.tensor(name="B", dim=[1, k, n], stride=[k * n, n, 1], data_type=cudnn.data_type.HALF)
    C = graph.matmul(name="mm", A=A, B=B)
    Y = graph.relu(name="relu", input=C)
    Y.set_output(True).set_data_type(cudnn.data_type.HALF)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    return graph, A, B, Y


def inputs_on(device, seed, m=128, k=256, n=64):
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn(1, m, k, generator=gen, dtype=torch.float32).half().to(device)
    b = torch.randn(1, k, n, generator=gen, dtype=torch.float32).half().to(device)
    return a, b


def check(graph, A, B, Y, device, seed, handle=None, stream=None):
    """Runs the graph on `device` and returns the relative error to torch."""
    a, b = inputs_on(device, seed)
    y = torch.full((1, 128, 64), float("nan"), dtype=torch.half, device=device)
    graph.execute({A: a, B: b, Y: y}, handle=handle)
    if stream is not None:
        stream.synchronize()
    torch.cuda.synchronize(device)
    assert y.device == torch.device(device), f"output moved to {y.device}"
    want = torch.relu(a.float() @ b.float())
    return rel_err(y, want)


TOL = 1e-2


def handle_per_device():
    """torch.cuda.set_device(d); create_handle() binds to d; the graph runs
    on d; torch's current device is left as it was."""
    for d in range(2):
        torch.cuda.set_device(d)
        handle = cudnn.create_handle()
        assert handle.device == d, f"create_handle() after set_device({d}) is bound to {handle.device}"
        g, A, B, Y = matmul_relu_graph(handle)
        err = check(g, A, B, Y, f"cuda:{d}", seed=10 + d, handle=handle)
        assert err < TOL, f"GPU {d}: rel err {err:.3g}"
        assert torch.cuda.current_device() == d, f"execute changed torch's current device from {d} to {torch.cuda.current_device()}"
    torch.cuda.set_device(0)


def tensors_decide_without_handle():
    """No handle: a graph fed cuda:1 tensors runs on GPU 1 while torch's
    current device stays 0."""
    torch.cuda.set_device(0)
    g, A, B, Y = matmul_relu_graph()
    err = check(g, A, B, Y, "cuda:1", seed=20)
    assert err < TOL, f"rel err {err:.3g}"
    assert torch.cuda.current_device() == 0, f"torch's current device became {torch.cuda.current_device()}"


def same_graph_both_devices():
    """One graph executed on cuda:0, cuda:1, then cuda:0 again (the program
    is rebuilt on each switch); every result right."""
    torch.cuda.set_device(0)
    g, A, B, Y = matmul_relu_graph()
    for i, d in enumerate([0, 1, 0, 1]):
        err = check(g, A, B, Y, f"cuda:{d}", seed=30 + i)
        assert err < TOL, f"run {i} on GPU {d}: rel err {err:.3g}"


def stream_per_device():
    """A handle on GPU 1 with a torch stream of GPU 1: the work is queued on
    that stream (execute returns before it finishes; the stream's sync
    makes the output right)."""
    torch.cuda.set_device(1)
    handle = cudnn.create_handle()
    stream = torch.cuda.Stream(device=1)
    cudnn.set_stream(handle=handle, stream=stream.cuda_stream)
    g, A, B, Y = matmul_relu_graph(handle)
    with torch.cuda.stream(stream):
        err = check(g, A, B, Y, "cuda:1", seed=40, handle=handle, stream=stream)
    assert err < TOL, f"rel err {err:.3g}"
    torch.cuda.set_device(0)


def thread_per_device():
    """Two threads, each torch.cuda.set_device(its GPU) then its own handle
    and graph, running at the same time (data-parallel style)."""
    errors = [None, None]

    def work(d):
        try:
            torch.cuda.set_device(d)
            handle = cudnn.create_handle()
            g, A, B, Y = matmul_relu_graph(handle)
            for i in range(5):
                err = check(g, A, B, Y, f"cuda:{d}", seed=50 + 10 * d + i, handle=handle)
                if err >= TOL:
                    errors[d] = f"GPU {d} run {i}: rel err {err:.3g}"
                    return
        except Exception as exc:  # reported by the main thread
            errors[d] = f"GPU {d}: {type(exc).__name__}: {exc}"

    threads = [threading.Thread(target=work, args=(d,)) for d in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bad = [e for e in errors if e]
    assert not bad, "; ".join(bad)


def buffer_on_wrong_gpu_is_named():
    """A handle on GPU 0 given cuda:1 tensors: a clear error naming both
    GPUs, not a kernel fault."""
    torch.cuda.set_device(0)
    handle = cudnn.create_handle()
    g, A, B, Y = matmul_relu_graph(handle)
    a, b = inputs_on("cuda:1", seed=60)
    y = torch.empty(1, 128, 64, dtype=torch.half, device="cuda:1")
    try:
        g.execute({A: a, B: b, Y: y}, handle=handle)
    except Exception as exc:
        text = str(exc)
        assert "is on GPU 1 but the graph runs on GPU 0" in text, f"unexpected message: {text}"
        # The process is still healthy: the same graph runs right on GPU 0.
        err = check(g, A, B, Y, "cuda:0", seed=61, handle=handle)
        assert err < TOL, f"after the refusal: rel err {err:.3g}"
        return
    raise AssertionError("cuda:1 buffers with a GPU 0 handle were accepted")


def missing_gpu_is_named():
    """Selecting a GPU that does not exist names it and the count."""
    n = torch.cuda.device_count()
    try:
        with _capi.on_device(n):
            pass
    except ValueError as exc:
        want = f"GPU device {n} does not exist: this machine has {n} CUDA devices (ordinals 0-{n - 1})"
        assert want in str(exc), f"unexpected message: {exc}"
        assert _capi.device_count() == n, f"device_count() {_capi.device_count()} != torch's {n}"
        return
    raise AssertionError(f"selecting GPU {n} of {n} was accepted")


CASES = [
    handle_per_device,
    tensors_decide_without_handle,
    same_graph_both_devices,
    stream_per_device,
    thread_per_device,
    buffer_on_wrong_gpu_is_named,
    missing_gpu_is_named,
]


def main():
    print(f"multi_gpu.py: {torch.cuda.device_count()} GPUs ({torch.cuda.get_device_name(0)}), library {_capi.library_path()}")
    passed = failed = 0
    for case in CASES:
        try:
            case()
            print(f"PASS {case.__name__}")
            passed += 1
        except Exception as exc:
            print(f"FAIL {case.__name__}: {type(exc).__name__}: {exc}")
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
