"""populate_cuda_graph / update_cuda_graph: a graph's execute recorded into a
CUDA graph the caller owns (cudaGraph_t), as the frontend's native
CUDA-graph API fills one.

The execute is stream-captured into the caller's graph
(cuStreamBeginCaptureToGraph, CUDA 12.3+) on a private stream, so the
caller's graph receives exactly the kernels and copies one execute queues.
update_cuda_graph empties the graph and records it again with the new
buffers: the topology is the same, so cudaGraphExecUpdate on an
instantiated copy succeeds, as after the frontend's update.

By-value scalars read from host tensors (a norm's epsilon) are read when
the graph is recorded; replays reuse that value.
"""

import ctypes
import ctypes.util
from typing import Any, Callable, Optional

_CU_STREAM_NON_BLOCKING = 0x1
_CU_STREAM_CAPTURE_MODE_RELAXED = 2

_driver: Optional[ctypes.CDLL] = None


class CudaGraphError(RuntimeError):
    """A CUDA driver call of the recording failed."""


def _lib() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        name = ctypes.util.find_library("cuda") or "libcuda.so.1"
        try:
            _driver = ctypes.CDLL(name)
        except OSError as exc:
            raise CudaGraphError(f"the CUDA driver library ({name}) cannot be loaded: {exc}") from None
        if not hasattr(_driver, "cuStreamBeginCaptureToGraph"):
            raise CudaGraphError("the CUDA driver has no cuStreamBeginCaptureToGraph (it needs CUDA 12.3 or newer)")
    return _driver


def _check(status: int, call: str) -> None:
    if status != 0:
        text = ctypes.c_char_p()
        lib = _lib()
        lib.cuGetErrorString(ctypes.c_int(status), ctypes.byref(text))
        raise CudaGraphError(f"{call} failed: CUresult {status} ({(text.value or b'?').decode()})")


def graph_pointer(cuda_graph: Any) -> int:
    """The cudaGraph_t behind ``cuda_graph``: an int, a cuda-python
    cudaGraph_t/CUgraph (getPtr()), or anything int() takes."""
    if cuda_graph is None:
        raise ValueError("cuda_graph is None: pass a cudaGraph_t made with cudaGraphCreate")
    get_ptr = getattr(cuda_graph, "getPtr", None)
    pointer = int(get_ptr()) if callable(get_ptr) else int(cuda_graph)
    if pointer == 0:
        raise ValueError("cuda_graph is a null cudaGraph_t: make it with cudaGraphCreate first")
    return pointer


def node_count(graph: int) -> int:
    lib = _lib()
    count = ctypes.c_size_t(0)
    _check(lib.cuGraphGetNodes(ctypes.c_void_p(graph), None, ctypes.byref(count)), "cuGraphGetNodes")
    return count.value


def clear(graph: int) -> None:
    """Removes every node of ``graph`` (what a previous populate recorded)."""
    lib = _lib()
    count = node_count(graph)
    if count == 0:
        return
    nodes = (ctypes.c_void_p * count)()
    got = ctypes.c_size_t(count)
    _check(lib.cuGraphGetNodes(ctypes.c_void_p(graph), nodes, ctypes.byref(got)), "cuGraphGetNodes")
    for node in nodes[: got.value]:
        _check(lib.cuGraphDestroyNode(ctypes.c_void_p(node)), "cuGraphDestroyNode")


def record(graph: int, device: int, run_on_stream: Callable[[int], None]) -> None:
    """Captures what ``run_on_stream(stream)`` queues on a private stream of
    GPU ``device`` (its primary context, which torch and the runtime share)
    into ``graph``."""
    lib = _lib()
    _check(lib.cuInit(ctypes.c_uint(0)), "cuInit")
    dev = ctypes.c_int()
    _check(lib.cuDeviceGet(ctypes.byref(dev), ctypes.c_int(device)), "cuDeviceGet")
    context = ctypes.c_void_p()
    _check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(context), dev), "cuDevicePrimaryCtxRetain")
    try:
        _check(lib.cuCtxPushCurrent_v2(context), "cuCtxPushCurrent")
        try:
            _record_in_context(lib, graph, run_on_stream)
        finally:
            lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    finally:
        lib.cuDevicePrimaryCtxRelease_v2(dev)


def _record_in_context(lib: ctypes.CDLL, graph: int, run_on_stream: Callable[[int], None]) -> None:
    stream = ctypes.c_void_p()
    _check(lib.cuStreamCreate(ctypes.byref(stream), ctypes.c_uint(_CU_STREAM_NON_BLOCKING)), "cuStreamCreate")
    try:
        _check(
            lib.cuStreamBeginCaptureToGraph(
                stream, ctypes.c_void_p(graph), None, None, ctypes.c_size_t(0), ctypes.c_int(_CU_STREAM_CAPTURE_MODE_RELAXED)
            ),
            "cuStreamBeginCaptureToGraph",
        )
        captured = ctypes.c_void_p()
        try:
            run_on_stream(stream.value or 0)
        finally:
            # End the capture even when the execute failed, so the stream
            # and the caller's graph are usable again.
            status = lib.cuStreamEndCapture(stream, ctypes.byref(captured))
        _check(status, "cuStreamEndCapture")
        if captured.value != graph:
            raise CudaGraphError("cuStreamEndCapture returned another graph than the one captured into")
    finally:
        lib.cuStreamDestroy_v2(stream)
