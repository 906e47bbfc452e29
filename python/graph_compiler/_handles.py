"""What a graph is made with or run on besides itself: handles and
their streams (create_handle, set_stream, the per-device stream last
applied), the kernel cache and device properties. Re-exported by _graph.py
(graph_compiler._graph.X, cudnn.X) and the package."""

import contextlib
import hashlib
import itertools
import json
import sys
import threading
from typing import Any, Dict, Optional, Tuple

from . import _capi
from ._errors import GraphNoDeviceError, GraphValidationError


_backend_ids = itertools.count(1)
_FRESH = object()  # no backend_handle argument: create_handle's own
# backend_handle -> the device it was made on, for the raw calls below
_handle_devices: Dict[int, int] = {}


class DeviceInfo(int):
    """A handle's device (``Handle.device``, ``cudnn.DeviceInfo(ordinal)``):
    the CUDA ordinal as an int, answering the frontend's device facts as
    properties. The facts come from torch's device properties (queried once
    per ordinal); without torch, or without a GPU, reading one raises
    GraphNoDeviceError naming it."""

    @property
    def ordinal(self) -> int:
        return int(self)

    def _properties(self, fact: str):
        properties = _device_properties.get(int(self))
        if properties is None:
            torch = sys.modules.get("torch")
            if torch is None:
                try:
                    import torch  # noqa: F811
                except ImportError:
                    torch = None
            try:
                properties = torch.cuda.get_device_properties(int(self)) if torch is not None else None
            except Exception as exc:  # no GPU, an ordinal past the count, a CPU-only torch
                raise GraphNoDeviceError(f"DeviceInfo(cuda:{int(self)}).{fact}: {exc}") from None
            if properties is None:
                raise GraphNoDeviceError(
                    f"DeviceInfo(cuda:{int(self)}).{fact}: the device facts are read through torch, which is not installed")
            _device_properties[int(self)] = properties
        return properties

    @property
    def compute_capability(self) -> Tuple[int, int]:
        p = self._properties("compute_capability")
        return (int(p.major), int(p.minor))

    @property
    def sm_version(self) -> int:
        """major * 10 + minor (90 on an H100/H200)."""
        major, minor = self.compute_capability
        return major * 10 + minor

    @property
    def sm_count(self) -> int:
        return int(self._properties("sm_count").multi_processor_count)

    @property
    def shared_memory_per_block_optin(self) -> int:
        return int(self._properties("shared_memory_per_block_optin").shared_memory_per_block_optin)

    @property
    def oversized_shared_memory_per_block(self) -> int:
        """The oversized shared-memory carve-out per block; 0 where the
        device and driver have none (as on Hopper with CUDA 13.0)."""
        return int(getattr(self._properties("oversized_shared_memory_per_block"), "oversized_shared_memory_per_block", 0))

    @property
    def l2_cache_bytes(self) -> int:
        return int(self._properties("l2_cache_bytes").L2_cache_size)

    @property
    def device_name(self) -> str:
        return str(self._properties("device_name").name)

    def __repr__(self):
        return f"DeviceInfo(cuda:{int(self)})"

    def __str__(self):  # prints, formats and joins as the ordinal it is
        return str(int(self))


DeviceOrdinal = DeviceInfo  # the earlier name
_device_properties: Dict[int, Any] = {}


class Handle:
    """A device and a stream, as a cuDNN handle (``cudnn.Handle``, what
    ``create_handle()`` returns): bound to the CUDA device current when it
    was created; graphs built and executed with it run there, on its stream
    (set_stream). ``destroy_handle`` releases it: ``backend_handle`` becomes
    None, its stream is forgotten and set_stream on it does nothing.

    ``cudnn.Handle(backend_handle, ordinal, stream)`` wraps a handle made
    elsewhere as the frontend's does: the compiler keeps its own cuDNN
    handles per device, so the value is only reported back; ``ordinal`` is
    the device (the current one when None) and ``stream`` the raw stream
    its work goes to (0, a fresh handle's, is the runtime's own)."""

    def __init__(self, backend_handle=_FRESH, ordinal=None, stream=None, *, device=None):
        if device is not None:  # this package's earlier keyword
            ordinal = device
        self.device = DeviceInfo(ordinal if ordinal is not None else _current_cuda_device())
        if backend_handle is _FRESH:
            backend_handle = next(_backend_ids)
        self.backend_handle = None if backend_handle is None else int(backend_handle)
        if self.backend_handle is not None:
            _handle_devices[self.backend_handle] = self.device
        # A fresh handle is on stream 0, the legacy default stream (torch's
        # default), as cudnnCreate's handle is: its work follows what the
        # caller queued there. A stream given here is taken as set_stream
        # takes it.
        self.stream, self._raw_stream = _stream_values(stream if stream is not None else 0)
        self._stream_set = False  # set_stream has not reached the backend yet

    @property
    def destroyed(self) -> bool:
        return self.backend_handle is None

    def __repr__(self):
        backend = "None" if self.backend_handle is None else f"0x{self.backend_handle:x}"
        return f"cudnn.Handle(backend_handle={backend}, cuda:{self.device}, stream={self.stream})"


_Handle = Handle  # the earlier private name


def _check_handle(handle, what: str) -> None:
    if not isinstance(handle, Handle):
        raise TypeError(f"{what}: expected a cudnn.Handle (from cudnn.create_handle()), got {type(handle).__name__} {handle!r}")


def _current_cuda_device() -> int:
    """The calling thread's current CUDA device (cudaGetDevice): torch's when
    torch has initialized CUDA, else the C API's view of the thread's
    current context; 0 without a GPU."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            if torch.cuda.is_available() and torch.cuda.is_initialized():
                return int(torch.cuda.current_device())
        except Exception:  # a torch without CUDA, or a broken install
            pass
    try:
        return _capi.current_device()
    except Exception:
        return 0


# Per device, the stream last handed to the runtime (handles share a device's
# runtime state: an execute with a handle puts its stream back first).
_applied_streams: Dict[int, int] = {}

# The runtime holds one stream per device, set by calls apart from the
# execute: whoever sets it (set_stream, destroy_handle, an execute putting
# its handle's stream back) holds this lock, and an execute holds it from
# setting the stream to queuing its work (_execution.py), so one thread's
# work never runs on another's stream. Launches are queued, not waited for
# (unless a handle chose the runtime's own stream), so it is held briefly.
_RUNTIME_SETTINGS = threading.RLock()


def _apply_stream(device: int, raw: int, switch_device: bool = False) -> None:
    """Hand the runtime of ``device`` (the current one unless switch_device)
    ``raw`` unless it holds it: an unchanged stream costs no runtime call."""
    if _applied_streams.get(device, 0) == raw:
        return
    with _RUNTIME_SETTINGS, _capi.on_device(device) if switch_device else contextlib.nullcontext():
        taken = _capi.set_stream(raw)
        if taken:
            _applied_streams[device] = raw


def _raw_set_stream(backend_handle: int, raw: int) -> None:
    """The backend call behind set_stream (the frontend's cudnnSetStream
    seam, cudnn._pybind_module._raw_set_stream): queue the work of the
    handle's device on ``raw``."""
    device = _handle_devices.get(backend_handle)
    _apply_stream(_current_cuda_device() if device is None else device, raw, switch_device=True)


def _raw_destroy_handle(backend_handle: int) -> None:
    """The backend call behind destroy_handle (cudnnDestroy's seam): the
    compiler's cuDNN handles are per device and outlive this one, so only
    its record goes."""
    _handle_devices.pop(backend_handle, None)


def _backend():
    # The raw calls through the package, where programs (and the frontend's
    # tests) replace them.
    return sys.modules.get(__package__) or sys.modules[__name__]


def _apply_handle_stream(handle) -> None:
    _apply_stream(handle.device, getattr(handle, "_raw_stream", 0))


def _stream_values(stream):
    """(what get_stream reports, what graphSetStream gets) for a stream
    given as an int or an object with .cuda_stream: 0 is the caller's legacy
    default stream (torch's default), queued on as CU_STREAM_LEGACY."""
    given = int(getattr(stream, "cuda_stream", stream) or 0)
    return given, given or _CU_STREAM_LEGACY


def create_handle():
    """A handle bound to the current CUDA device (torch.cuda.set_device /
    cudaSetDevice), as the frontend's cudnnCreate binds to it."""
    return Handle()


def destroy_handle(handle):
    """Release ``handle``: its stream is forgotten (the device's runtime goes
    back to its own stream if this handle's was the one applied); a second
    destroy, or set_stream afterwards, does nothing."""
    _check_handle(handle, "destroy_handle")
    if handle.destroyed:
        return None
    _backend()._raw_destroy_handle(handle.backend_handle)
    with _RUNTIME_SETTINGS:
        if handle._raw_stream and _applied_streams.get(handle.device) == handle._raw_stream:
            _applied_streams.pop(handle.device, None)
            try:
                with _capi.on_device(handle.device):
                    _capi.set_stream(0)
            except Exception:  # no GPU runtime to reset: nothing was applied there
                pass
    handle.backend_handle = None
    handle.stream = None
    handle._raw_stream = 0
    return None


_CU_STREAM_LEGACY = 0x1  # the driver's handle of the legacy default stream


def set_stream(handle=None, stream=None):
    """Queue GPU work on ``stream`` (an int or object with .cuda_stream, e.g.
    torch.cuda.current_stream()); None goes back to the runtime's own
    stream, which each execute waits for. Stream 0 is the caller's legacy
    default stream (torch's default stream), as in the cuDNN frontend: work
    is queued there (CU_STREAM_LEGACY) without waiting."""
    if handle is None:
        raise ValueError("set_stream needs a handle from create_handle()")
    _check_handle(handle, "set_stream")
    if handle.destroyed:
        return
    given, raw = _stream_values(stream) if stream is not None else (0, 0)
    # The handle remembers its stream: setting it again costs no backend
    # call (an execute with the handle puts its stream back on the device
    # if another handle's replaced it there).
    if handle._stream_set and (handle.stream, handle._raw_stream) == (given, raw):
        return
    _backend()._raw_set_stream(handle.backend_handle, raw)
    handle.stream, handle._raw_stream, handle._stream_set = given, raw, True


def get_stream(handle):
    _check_handle(handle, "get_stream")
    return handle.stream


class KernelCache:
    """What cudnn.create_kernel_cache() returns: graphs constructed with
    ``kernel_cache=`` share their built plans through it. A graph whose
    compiled state (its MLIR text, the key() of the graph) and heuristics
    match an entry reuses that entry's prepared module and plan list, so its
    plans are not proposed or built again.

    serialize() gives JSON of the cached graphs' texts; deserialize() loads
    such JSON into a cache that holds nothing yet (an entry is compiled again
    when a graph first uses it). size() is the number of graph texts the
    cache holds and revision() counts the texts added since the cache was
    made or loaded (a loaded one starts at its size); both need the cache
    finalized, i.e. a graph's build_operation_graph() run with it."""

    def __init__(self):
        self._entries: Dict[Any, Dict[str, Any]] = {}
        self._texts: Dict[str, str] = {}
        self._revision = 0
        self._finalized = False

    def __len__(self):
        return len(self._entries)

    def _lookup(self, text: str, heuristics):
        return self._entries.get((text, heuristics))

    def _store(self, text: str, heuristics, entry: Dict[str, Any]) -> None:
        self._entries[(text, heuristics)] = entry
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        if digest not in self._texts:
            self._texts[digest] = text
            self._revision += 1

    def _check_finalized(self, what: str) -> None:
        if not self._finalized:
            raise RuntimeError(f"kernel_cache.{what}(): the cache is not finalized yet (run build_operation_graph() of a graph made with kernel_cache=...)")

    def size(self) -> int:
        self._check_finalized("size")
        return len(self._texts)

    def revision(self) -> int:
        self._check_finalized("revision")
        return self._revision

    def serialize(self) -> str:
        return json.dumps({"format": "graph_compiler.kernel_cache/1", "graphs": self._texts}, sort_keys=True)

    def deserialize(self, data) -> None:
        """Load JSON from serialize() (str or bytes); TypeError for another
        type, GraphValidationError (a ValueError) for other data."""
        if self._texts or self._entries:
            raise RuntimeError("kernel_cache.deserialize(): the cache already holds graphs; deserialize into a new cudnn.create_kernel_cache()")
        if not isinstance(data, (str, bytes, bytearray, memoryview)):
            raise TypeError(f"kernel_cache.deserialize() takes the str (or bytes) kernel_cache.serialize() returned, got {type(data).__name__}")
        try:
            if not isinstance(data, str):
                data = bytes(data).decode("utf-8")
            obj = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise GraphValidationError(f"kernel_cache.deserialize(): not JSON from kernel_cache.serialize(): {type(exc).__name__}: {exc}") from None
        if not isinstance(obj, dict) or obj.get("format") != "graph_compiler.kernel_cache/1":
            raise GraphValidationError("kernel_cache.deserialize(): not data from this package's kernel_cache.serialize()")
        graphs = obj.get("graphs", {})
        if not isinstance(graphs, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in graphs.items()):
            raise GraphValidationError("kernel_cache.deserialize(): 'graphs' must map digests to graph texts (str to str)")
        self._texts.update(graphs)
        self._revision = len(self._texts)
        self._finalized = False

    def __repr__(self):
        return f"<kernel_cache: {len(self._entries)} built graph(s)>"


def create_kernel_cache() -> KernelCache:
    """A kernel cache to pass as ``pygraph(kernel_cache=...)``."""
    return KernelCache()


class DeviceProperties:
    """What cudnn.create_device_properties() returns: the device a graph is
    built for without a handle. The compiler plans for the GPU it finds at
    plan time (the plan list comes from the C API, which has no deviceless
    planning), so the object is recorded on the graph (pygraph(device_property=
    ...)) and serialized, and does not change the plans."""

    def __init__(self, device_id: int = -1, properties: Optional[Dict[str, Any]] = None):
        self.device_id = int(device_id)
        self.properties = dict(properties or {})

    def serialize(self) -> str:
        return json.dumps({"device_id": self.device_id, **self.properties}, sort_keys=True)

    def __repr__(self):
        return f"<device_properties device_id={self.device_id}>"


def create_device_properties(device: Any = -1) -> DeviceProperties:
    """create_device_properties(device_id) or create_device_properties(json
    text from DeviceProperties.serialize())."""
    if isinstance(device, (bytes, bytearray)):
        device = bytes(device).decode("utf-8")
    if isinstance(device, str):
        try:
            obj = json.loads(device)
        except ValueError as exc:
            raise ValueError(f"create_device_properties(): not JSON device properties: {exc}") from None
        if not isinstance(obj, dict):
            raise ValueError("create_device_properties(): the JSON is not an object")
        device_id = obj.pop("device_id", -1)
        return DeviceProperties(device_id, obj)
    if isinstance(device, bool) or not isinstance(device, int):
        raise TypeError(f"create_device_properties() takes a device id (int) or serialized properties (str), got {type(device).__name__}")
    return DeviceProperties(device)
