"""Timing shared by the benchmarks of bench/gpu: a loop of calls between two
CUDA events, after warm-up calls, as the mean per call."""


def loop_ms(torch, fn, iters, warmup=3):
    """Milliseconds per call of `fn`: `warmup` calls, a synchronize, then
    `iters` calls between two CUDA events (no synchronize inside the loop, so
    the host queues ahead of the GPU as a training loop does)."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / iters
