"""Repeated executes replayed as a CUDA graph (GpuExecutor's recording):
the second execute with the same buffers records the execute, later ones
with those buffers launch the recording. Each program changes the data in
place (or the buffers, the stream, a host scalar) between executes and
checks every execute's outputs against torch, and reads the runtime's trace
(GRAPH_TRACE_RUNTIME) for when a recording was made. Run on a machine with
a GPU and torch:

    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/execute_replay.py

Prints PASS/FAIL per program and "N passed, M failed"; exits 1 on failure.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

import cudnn  # noqa: E402  (our package, through its cudnn shim)
from cuda_graph_capture import BF16, _mlp_inputs, _replay_mlp, _softmax_mlp, _softmax_mlp_reference  # noqa: E402
from frontend_programs import rel_err, run  # noqa: E402  (same folder)

RECORDED = "execute recorded as a CUDA graph"


class RuntimeTrace:
    """Collects what the runtime writes to fd 2 while the block runs, with
    GRAPH_TRACE_RUNTIME on."""

    def __enter__(self):
        sys.stderr.flush()
        self.file = tempfile.TemporaryFile(mode="w+b")
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        os.environ["GRAPH_TRACE_RUNTIME"] = "1"
        return self

    def __exit__(self, *exc):
        del os.environ["GRAPH_TRACE_RUNTIME"]
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.text = self.file.read().decode(errors="replace")
        self.file.close()
        return False

    def count(self, line):
        return self.text.count(line)


def _expect(trace, recordings):
    if trace.count(RECORDED) != recordings:
        raise AssertionError(f"{trace.count(RECORDED)} recordings, expected {recordings}; trace:\n{trace.text}")


def same_buffers_new_data():
    """Five executes with the same buffers on the default stream (no
    handle): the second records, the last three replay; the inputs change
    in place before each and every output is checked."""
    x, w1, w2 = _mlp_inputs(21)
    graph, (X, W1, W2, Y) = _softmax_mlp(None, x, w1, w2)
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    worst = 0.0
    with RuntimeTrace() as trace:
        for _ in range(5):
            x.copy_(torch.randn_like(x))
            y.fill_(float("nan"))
            graph.execute({X: x, W1: w1, W2: w2, Y: y})
            torch.cuda.synchronize()
            worst = max(worst, rel_err(y, _softmax_mlp_reference(x, w1, w2)))
    _expect(trace, 1)
    return worst, 2e-2


def alternating_buffers():
    """Two buffer sets, first each in a run, then in turn (ping-pong I/O):
    each set is recorded at its second execute and keeps its recording
    while the other's is used; the output of one set's execute never lands
    in the other's buffers."""
    x, w1, w2 = _mlp_inputs(22)
    graph, (X, W1, W2, Y) = _softmax_mlp(None, x, w1, w2)
    sets = []
    for _ in range(2):
        sets.append((torch.randn_like(x), torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)))
    worst = 0.0
    with RuntimeTrace() as trace:
        for which in (0, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 0):
            xi, yi = sets[which]
            xi.copy_(torch.randn_like(xi))
            for _, yj in sets:
                yj.fill_(float("nan"))
            graph.execute({X: xi, W1: w1, W2: w2, Y: yi})
            torch.cuda.synchronize()
            worst = max(worst, rel_err(yi, _softmax_mlp_reference(xi, w1, w2)))
            other = sets[1 - which][1]
            if not torch.isnan(other.float()).all():
                raise AssertionError("an execute wrote the other buffer set's output")
    _expect(trace, 2)  # set 0 at its second execute, set 1 at its second
    return worst, 2e-2


def stream_changes_between_executes():
    """A recording made on one handle's stream replays on another stream
    once the handle's stream changes, ordered after that stream's work."""
    x, w1, w2 = _mlp_inputs(23)
    handle = cudnn.create_handle()
    first, second = torch.cuda.Stream(), torch.cuda.Stream()
    graph, (X, W1, W2, Y) = _softmax_mlp(handle, x, w1, w2)
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    worst = 0.0
    with RuntimeTrace() as trace:
        for stream in (first, first, first, second, second):
            cudnn.set_stream(handle=handle, stream=stream.cuda_stream)
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                # Queued on the stream just before the execute: the replay
                # must run after it.
                torch.cuda._sleep(2_000_000)
                x.copy_(torch.randn_like(x))
                y.fill_(float("nan"))
                graph.execute({X: x, W1: w1, W2: w2, Y: y}, handle=handle)
            stream.synchronize()
            worst = max(worst, rel_err(y, _softmax_mlp_reference(x, w1, w2)))
    _expect(trace, 1)
    return worst, 2e-2


def host_scalar_is_read_every_execute():
    """Layernorm with epsilon as a CPU tensor: the value is read on the host
    at each execute, so the execute is never recorded and a new epsilon
    takes effect at once."""
    torch.manual_seed(24)
    x = torch.randn(64, 2048, 1, 1, device="cuda", dtype=torch.bfloat16)
    scale, bias = (torch.randn(1, 2048, 1, 1, device="cuda") for _ in range(2))
    eps = torch.full((1, 1, 1, 1), 1e-5)
    graph = cudnn.pygraph(**BF16)
    X, SCALE, BIAS, EPS = graph.tensor_like(x), graph.tensor_like(scale), graph.tensor_like(bias), graph.tensor_like(eps)
    Y, _, _ = graph.layernorm(norm_forward_phase=cudnn.norm_forward_phase.TRAINING, input=X, scale=SCALE,
                              bias=BIAS, epsilon=EPS)
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    graph.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    y = torch.empty_like(x)
    worst = 0.0
    with RuntimeTrace() as trace:
        for value in (1e-5, 1e-5, 1e-5, 4.0, 4.0, 1e-5):
            eps.fill_(value)
            y.fill_(float("nan"))
            graph.execute({X: x, SCALE: scale, BIAS: bias, EPS: eps, Y: y})
            torch.cuda.synchronize()
            ref = torch.nn.functional.layer_norm(x.float().view(64, 2048), [2048], scale.view(2048),
                                                 bias.view(2048), value)
            worst = max(worst, rel_err(y.view(64, 2048), ref))
    _expect(trace, 0)
    return worst, 1e-2


def torch_capture_after_replays():
    """After the runtime recorded and replayed executes, the caller captures
    an execute into its own CUDA graph (torch.cuda.graph): the launches go
    into the caller's graph as they are, and its replay reads new data."""
    x, w1, w2 = _mlp_inputs(25)
    handle = cudnn.create_handle()
    stream = torch.cuda.Stream()
    cudnn.set_stream(handle=handle, stream=stream.cuda_stream)
    graph, (X, W1, W2, Y) = _softmax_mlp(handle, x, w1, w2)
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    pack = {X: x, W1: w1, W2: w2, Y: y}
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            graph.execute(pack, handle=handle)
    stream.synchronize()
    capture = torch.cuda.CUDAGraph()
    with torch.cuda.graph(capture, stream=stream):
        graph.execute(pack, handle=handle)
    return _replay_mlp(capture, x, w1, w2, y), 2e-2


def recording_turned_off():
    """GRAPH_CUDA_GRAPHS=0 when a graph first executes: its executes are
    never recorded (and still right)."""
    x, w1, w2 = _mlp_inputs(26)
    graph, (X, W1, W2, Y) = _softmax_mlp(None, x, w1, w2)
    y = torch.empty(1, 512, 256, device="cuda", dtype=torch.bfloat16)
    os.environ["GRAPH_CUDA_GRAPHS"] = "0"
    try:
        worst = 0.0
        with RuntimeTrace() as trace:
            for _ in range(3):
                x.copy_(torch.randn_like(x))
                graph.execute({X: x, W1: w1, W2: w2, Y: y})
                torch.cuda.synchronize()
                worst = max(worst, rel_err(y, _softmax_mlp_reference(x, w1, w2)))
    finally:
        del os.environ["GRAPH_CUDA_GRAPHS"]
    _expect(trace, 0)
    return worst, 2e-2


def main():
    return run((same_buffers_new_data, alternating_buffers, stream_changes_between_executes,
                host_scalar_is_read_every_execute, torch_capture_after_replays, recording_turned_off))


if __name__ == "__main__":
    sys.exit(main())
