"""populate_cuda_graph / update_cuda_graph against a fake CUDA driver: the
calls they make, in order, and their errors (the GPU run is
python/gpu_tests/cuda_graph_capture.py)."""

import ctypes

import numpy as np
import pytest

import cudnn
from conftest import needs_lib
from graph_compiler import _cudagraph
from test_plans import mlp_graph


class FakeDriver:
    """The driver calls _cudagraph makes; a capture "records" three nodes."""

    def __init__(self, nodes=0, capture_nodes=3):
        self.calls = []
        self.nodes = nodes
        self.capture_nodes = capture_nodes
        self.graph = None

    @staticmethod
    def _out(ref, value):
        ref._obj.value = value

    def __getattr__(self, name):
        own = type(self).__dict__.get("_" + name)

        def call(*args):
            self.calls.append(name)
            return own(self, *args) if own else 0

        return call

    def _cuGraphGetNodes(self, graph, nodes, count):
        if nodes is not None:
            for i in range(self.nodes):
                nodes[i] = 0x100 + i
        self._out(count, self.nodes)
        return 0

    def _cuGraphDestroyNode(self, node):
        self.nodes -= 1
        return 0

    def _cuStreamCreate(self, stream, flags):
        self._out(stream, 0x5000)
        return 0

    def _cuStreamBeginCaptureToGraph(self, stream, graph, *rest):
        self.graph = graph.value
        return 0

    def _cuStreamEndCapture(self, stream, graph):
        self.nodes += self.capture_nodes
        self._out(graph, self.graph)
        return 0


def run_pack(a, b, bias, y):
    rng = np.random.default_rng(0)
    return {a: rng.standard_normal((1, 4, 8)).astype(np.float32), b: rng.standard_normal((1, 8, 6)).astype(np.float32),
            bias: rng.standard_normal((1, 1, 6)).astype(np.float32), y: np.zeros((1, 4, 6), np.float32)}


@needs_lib
def test_populate_then_update_records_into_the_callers_graph(monkeypatch):
    fake = FakeDriver()
    monkeypatch.setattr(_cudagraph, "_lib", lambda: fake)
    g, a, b, bias, y = mlp_graph()
    g.build([cudnn.heur_mode.A])
    pack = run_pack(a, b, bias, y)
    g.populate_cuda_graph(cudnn.create_handle(), pack, None, 0xABC0)
    assert fake.graph == 0xABC0 and fake.nodes == 3
    # Capture on a private stream of the primary context, ended and freed.
    order = [c for c in fake.calls if c.startswith(("cuStream", "cuCtx"))]
    assert order == ["cuCtxPushCurrent_v2", "cuStreamCreate", "cuStreamBeginCaptureToGraph", "cuStreamEndCapture",
                     "cuStreamDestroy_v2", "cuCtxPopCurrent_v2"]
    # The execute ran (here on the CPU reference: the pack is numpy).
    np.testing.assert_allclose(pack[y], np.maximum(pack[a] @ pack[b] + pack[bias], 0), rtol=1e-5, atol=1e-5)
    fake.calls.clear()
    g.update_cuda_graph(cudnn.create_handle(), pack, None, 0xABC0)
    assert fake.calls.count("cuGraphDestroyNode") == 3 and fake.nodes == 3


@needs_lib
def test_populate_and_update_refuse_the_wrong_graph_state(monkeypatch):
    g, a, b, bias, y = mlp_graph()
    g.build([cudnn.heur_mode.A])
    pack = run_pack(a, b, bias, y)
    monkeypatch.setattr(_cudagraph, "_lib", lambda: FakeDriver(nodes=2))
    with pytest.raises(ValueError, match=r"already has 2 node\(s\); populate_cuda_graph fills an empty graph"):
        g.populate_cuda_graph(cudnn.create_handle(), pack, None, 0xABC0)
    monkeypatch.setattr(_cudagraph, "_lib", lambda: FakeDriver(nodes=0))
    with pytest.raises(ValueError, match=r"the CUDA graph is empty; fill it with populate_cuda_graph first"):
        g.update_cuda_graph(cudnn.create_handle(), pack, None, 0xABC0)
    # An execute that queues nothing (host buffers) leaves the graph empty.
    monkeypatch.setattr(_cudagraph, "_lib", lambda: FakeDriver(capture_nodes=0))
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"queued no GPU work"):
        g.populate_cuda_graph(cudnn.create_handle(), pack, None, 0xABC0)


@needs_lib
def test_a_driver_failure_is_not_supported_with_the_call(monkeypatch):
    g, a, b, bias, y = mlp_graph()
    g.build([cudnn.heur_mode.A])

    def no_driver():
        raise _cudagraph.CudaGraphError("the CUDA driver library (libcuda.so.1) cannot be loaded: not found")

    monkeypatch.setattr(_cudagraph, "_lib", no_driver)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"populate_cuda_graph \(graph .*libcuda.so.1\) cannot be loaded"):
        g.populate_cuda_graph(cudnn.create_handle(), run_pack(a, b, bias, y), None, 0xABC0)


def test_graph_pointer_takes_ints_and_cuda_python_objects():
    class CudaPythonGraph:
        def getPtr(self):
            return 0x7F00

    assert _cudagraph.graph_pointer(0x1234) == 0x1234
    assert _cudagraph.graph_pointer(CudaPythonGraph()) == 0x7F00
    with pytest.raises(ValueError, match=r"cuda_graph is None"):
        _cudagraph.graph_pointer(None)


class FakeScalar:
    """A one-element tensor: item(), copy_ (records its source) and the
    pinned-copy calls StagedScalar makes."""

    def __init__(self, value=0.0, pinned=False):
        self.value, self.pinned, self.copies = value, pinned, []

    def item(self):
        return self.value

    def detach(self):
        return self

    def clone(self):
        return FakeScalar(self.value)

    def pin_memory(self):
        return FakeScalar(self.value, pinned=True)

    def copy_(self, source, non_blocking=False):
        self.copies.append((source.value, source.pinned, non_blocking))
        self.value = source.value


class FakeTorch:
    class cuda:
        capturing = False

        @classmethod
        def is_current_stream_capturing(cls):
            return cls.capturing


def test_a_staged_host_scalar_is_copied_only_when_it_changed_and_pinned_under_capture():
    from graph_compiler._buffers import StagedScalar

    host, staged = FakeScalar(1e-5), FakeScalar()
    entry = StagedScalar(staged, host)
    FakeTorch.cuda.capturing = False
    entry.refresh(FakeTorch)
    entry.refresh(FakeTorch)  # unchanged: no second copy
    assert staged.copies == [(1e-5, False, False)]
    # A new value inside a capture: recorded from pinned memory, asynchronously.
    host.value = 1e-3
    FakeTorch.cuda.capturing = True
    entry.refresh(FakeTorch)
    assert staged.copies[-1] == (1e-3, True, True) and staged.value == 1e-3
    entry.refresh(FakeTorch)
    assert len(staged.copies) == 2
