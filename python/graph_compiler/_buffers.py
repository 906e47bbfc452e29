"""Describing caller buffers (numpy arrays, torch tensors, array-interface and
DLPack producers) without importing any framework.

A description is (pointer, dims, strides in elements, element kind, device,
keepalive). The element kind is a short framework-neutral string
("float16", "bfloat16", "uint8", ...) compared with the graph's data types
by ``compatible``.

Raw-bits convention (same as the reference executor's .npy files): a bf16
tensor may be given as a uint16 array holding the bf16 bit patterns, an fp8
(e4m3 / e5m2 / e8m0) tensor as a uint8 array, and an fp4 (e2m1) tensor as a
uint8 array with one element per byte in the low nibble.
"""

import ctypes
import math
import sys
import warnings

from . import _enums
from ._enums import data_type
from ._tensor import normalize_unit_strides

CPU, GPU = 0, 1

# element kind -> the data types a buffer of that kind may back
_KIND_TO_DTYPES = {
    "float16": (data_type.HALF,),
    "bfloat16": (data_type.BFLOAT16,),
    "float32": (data_type.FLOAT,),
    "float64": (data_type.DOUBLE,),
    "int8": (data_type.INT8,),
    "uint8": (data_type.UINT8, data_type.FP8_E4M3, data_type.FP8_E5M2, data_type.FP8_E8M0, data_type.FP4_E2M1, data_type.BOOLEAN),
    "int32": (data_type.INT32,),
    "int64": (data_type.INT64,),
    "bool": (data_type.BOOLEAN,),
    "uint16": (data_type.BFLOAT16,),
    "float8_e4m3fn": (data_type.FP8_E4M3,),
    "float8_e5m2": (data_type.FP8_E5M2,),
    "float8_e8m0fnu": (data_type.FP8_E8M0,),
    "float4_e2m1fn": (data_type.FP4_E2M1,),
}

# the data type a buffer of each kind describes when nothing else says
_KIND_DEFAULT = {
    "float16": data_type.HALF,
    "bfloat16": data_type.BFLOAT16,
    "float32": data_type.FLOAT,
    "float64": data_type.DOUBLE,
    "int8": data_type.INT8,
    "uint8": data_type.UINT8,
    "int32": data_type.INT32,
    "int64": data_type.INT64,
    "bool": data_type.BOOLEAN,
    "uint16": data_type.BFLOAT16,  # raw bf16 bits
    "float8_e4m3fn": data_type.FP8_E4M3,
    "float8_e5m2": data_type.FP8_E5M2,
    "float8_e8m0fnu": data_type.FP8_E8M0,
    "float4_e2m1fn": data_type.FP4_E2M1,
}

_TYPESTR = {
    "f2": "float16",
    "f4": "float32",
    "f8": "float64",
    "i1": "int8",
    "u1": "uint8",
    "i4": "int32",
    "i8": "int64",
    "b1": "bool",
    "u2": "uint16",
    "i2": "int16",
    "u4": "uint32",
    "u8": "uint64",
}

# bytes per element of each kind a buffer may have
_KIND_SIZE = {
    "float16": 2,
    "bfloat16": 2,
    "float32": 4,
    "float64": 8,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "bool": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "float8_e8m0fnu": 1,
    "float4_e2m1fn": 1,
}

# kinds whose elements are raw bits (any same-size data type may be read
# from them, with a warning unless `compatible` says so)

# DLPack (code, bits) -> kind
_DLPACK = {
    (0, 8): "int8",
    (0, 32): "int32",
    (0, 64): "int64",
    (1, 8): "uint8",
    (1, 16): "uint16",
    (2, 16): "float16",
    (2, 32): "float32",
    (2, 64): "float64",
    (4, 16): "bfloat16",
    (6, 8): "bool",
    (10, 8): "float8_e4m3fn",
    (12, 8): "float8_e5m2",
    (14, 8): "float8_e8m0fnu",
    (17, 4): "float4_e2m1fn",
}


class Described:
    __slots__ = ("ptr", "dims", "strides", "kind", "device", "keepalive", "writable")

    def __init__(self, ptr, dims, strides, kind, device, keepalive, writable=True):
        self.ptr = int(ptr) if ptr is not None else 0
        self.dims = [int(d) for d in dims]
        # The stride of an extent-1 dim addresses nothing; numpy and torch
        # give 0 there on broadcast or inserted axes.
        self.strides = normalize_unit_strides(self.dims, [int(s) for s in strides])
        self.kind = kind
        self.device = device
        self.keepalive = keepalive
        self.writable = writable


def row_major(dims):
    out, acc = [], 1
    for d in reversed(list(dims)):
        out.append(acc)
        acc *= max(int(d), 1)
    return list(reversed(out))


# Classes whose instances are torch tensors: torch's module and data_ptr /
# stride methods on the class itself (so every instance has them).
_TORCH_TENSOR_TYPES: set = set()


def is_torch_tensor(obj) -> bool:
    cls = type(obj)
    if cls in _TORCH_TENSOR_TYPES:
        return True
    if not (cls.__module__.split(".")[0] == "torch" and hasattr(obj, "data_ptr") and callable(getattr(obj, "stride", None))):
        return False
    if callable(getattr(cls, "data_ptr", None)) and callable(getattr(cls, "stride", None)):
        _TORCH_TENSOR_TYPES.add(cls)
    return True


def _is_numpy(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "numpy" and hasattr(obj, "__array_interface__")


def is_numpy_scalar(obj) -> bool:
    """A numpy scalar (np.float32(1.0)): its __array_interface__ points into
    a temporary array, so it is read through a copy."""
    if type(obj).__module__.split(".")[0] != "numpy":
        return False
    import numpy as np

    return isinstance(obj, np.generic)


def _numpy_kind(dtype) -> str:
    name = getattr(dtype, "name", str(dtype))
    if name == "bool":
        return "bool"
    return name


def _from_interface(obj, iface, device):
    shape = list(iface["shape"])
    typestr = iface["typestr"]
    kind = _TYPESTR.get(typestr[1:])
    itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 1
    if kind is None:
        descr = iface.get("descr")
        kind = typestr
    ptr, readonly = iface["data"] if iface.get("data") is not None else (0, False)
    strides = iface.get("strides")
    if strides is None:
        elem_strides = row_major(shape)
    else:
        elem_strides = []
        for s in strides:
            if s % itemsize:
                raise ValueError(f"a stride of {s} bytes is not a multiple of the element size {itemsize}")
            elem_strides.append(s // itemsize)
    return Described(ptr, shape, elem_strides, kind, device, obj, writable=not readonly)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


def _from_dlpack(obj):
    """Read dims/strides/dtype/device from a DLPack capsule (not consumed:
    the capsule's own destructor releases it)."""
    capsule = obj.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    ptr = get(capsule, b"dltensor")
    t = _DLTensor.from_address(ptr)  # DLManagedTensor starts with its DLTensor
    ndim = t.ndim
    dims = [t.shape[i] for i in range(ndim)]
    strides = [t.strides[i] for i in range(ndim)] if t.strides else row_major(dims)
    kind = _DLPACK.get((t.dtype.code, t.dtype.bits), f"dlpack({t.dtype.code},{t.dtype.bits})")
    device = CPU if t.device.device_type in (1, 3) else GPU  # kDLCPU, kDLCUDAHost
    data = (t.data or 0) + t.byte_offset
    return Described(data, dims, strides, kind, device, (obj, capsule))


def _is_tensor_like(obj) -> bool:
    return all(callable(getattr(obj, m, None)) for m in ("data_ptr", "stride", "element_size")) and all(
        hasattr(obj, a) for a in ("shape", "dtype")
    )


def describe(obj) -> Described:
    """Pointer, dims, element strides, element kind and device of a buffer."""
    if is_torch_tensor(obj):
        kind = str(obj.dtype).replace("torch.", "")
        device = GPU if getattr(obj.device, "type", "cpu") == "cuda" else CPU
        return Described(obj.data_ptr(), list(obj.shape), list(obj.stride()), kind, device, obj)
    if is_numpy_scalar(obj):
        import numpy as np

        obj = np.array(obj)
    if _is_numpy(obj):
        strides = obj.strides
        item = obj.dtype.itemsize
        for s in strides:
            if s % item:
                raise ValueError(f"a stride of {s} bytes is not a multiple of the element size {item}")
        return Described(
            obj.__array_interface__["data"][0],
            list(obj.shape),
            [s // item for s in strides],
            _numpy_kind(obj.dtype),
            CPU,
            obj,
            writable=bool(obj.flags.writeable),
        )
    iface = getattr(obj, "__cuda_array_interface__", None)
    if iface is not None:
        return _from_interface(obj, iface, GPU)
    iface = getattr(obj, "__array_interface__", None)
    if iface is not None:
        return _from_interface(obj, iface, CPU)
    if hasattr(obj, "__dlpack__"):
        return _from_dlpack(obj)
    if _is_tensor_like(obj):
        # torch's buffer protocol by its methods (a wrapper around a tensor):
        # the frontend reads the same calls
        kind = str(obj.dtype).replace("torch.", "")
        device = CPU if getattr(getattr(obj, "device", None), "type", "cuda") == "cpu" else GPU
        return Described(int(obj.data_ptr()), list(obj.shape), list(obj.stride()), kind, device, obj)
    raise TypeError(f"cannot read a buffer from {type(obj).__name__}: expected a numpy array, a torch tensor, an object with __cuda_array_interface__, __array_interface__ or __dlpack__, or one with torch's data_ptr(), stride(), element_size(), shape and dtype")


def compatible(kind: str, dt) -> bool:
    return dt in _KIND_TO_DTYPES.get(kind, ())


def default_data_type(kind: str):
    return _KIND_DEFAULT.get(kind)


# ---------------------------------------------------------------------------
# Binding a variant pack
# ---------------------------------------------------------------------------
#
# As in the cuDNN frontend, a buffer is memory for a tensor whose dims and
# strides the graph declares: execute hands the compiler the buffer's pointer
# with the graph's dims and strides. A buffer is accepted when it holds the
# bytes those dims and strides span; a flat buffer, one viewed at another
# rank or with other strides, or an oversized one is used as that memory
# (with a BufferViewWarning). Pass-by-value scalars are read from the host
# whatever device the other buffers are on.


class BufferViewWarning(UserWarning):
    """A buffer's own dims or strides differ from the graph's; it is used as
    memory laid out as the graph declares (as the frontend does)."""


def element_size(dt) -> int:
    """Bytes per element of a graph data type in a caller's buffer."""
    info = _enums._DTYPE_INFO.get(dt)
    return info[2] if info else 0


def workspace_bytes(workspace):
    """Bytes a workspace buffer holds: a torch tensor's or an object's
    nbytes; None for anything else (a raw pointer has no size)."""
    if is_torch_tensor(workspace):
        return int(workspace.numel()) * int(workspace.element_size())
    if hasattr(workspace, "nbytes"):
        return int(workspace.nbytes)
    return None


def span_elements(dims, strides) -> int:
    """Elements from the first to one past the last element ``dims`` and
    ``strides`` address (0 for an empty tensor)."""
    if any(int(d) <= 0 for d in dims):
        return 0
    return 1 + sum((int(d) - 1) * int(s) for d, s in zip(dims, strides))


def _held_bytes(d: Described) -> int:
    """Bytes a described buffer holds from its pointer on: its own view's
    span, or for a torch tensor what its storage holds past the pointer."""
    size = _KIND_SIZE.get(d.kind, 1)
    held = span_elements(d.dims, d.strides) * size
    obj = d.keepalive
    if is_torch_tensor(obj):
        try:
            storage = obj.untyped_storage().nbytes() - obj.storage_offset() * obj.element_size()
            held = max(held, int(storage))
        except Exception:  # older torch, or an object that only looks like one
            pass
    return held


def _is_number(obj) -> bool:
    return isinstance(obj, (int, float, bool))


def _is_device_pointer(data, scalar: bool) -> bool:
    """The frontend takes a Python int in a variant pack as a device address
    (``tensor.data_ptr()``). A small int for a one-element input stays a
    value (this package's convenience): no GPU allocation lies below 4 GiB
    of address space on the platforms CUDA supports."""
    if not isinstance(data, int) or isinstance(data, bool):
        return False
    return not scalar or abs(data) >= 1 << 32


def _bind_device_pointer(uid, label, dt, dims, strides, ptr, is_out) -> "Bound":
    """A raw device address holds the tensor as the graph lays it out; its
    size cannot be checked (as in the frontend)."""
    if ptr <= 0:
        raise ValueError(f"buffer for {label}: {ptr} is not a device address")
    if any(x < 0 for x in dims):
        raise ValueError(f"buffer for {label}: a raw device address cannot bind a tensor with dynamic dims {dims} (pass a tensor)")
    declared = [int(s) for s in strides] if strides and any(int(s) != 0 for s in strides) else row_major(dims)
    kind = next((k for k in _KIND_TO_DTYPES if compatible(k, dt)), "uint8")
    d = Described(ptr, dims, declared, kind, GPU, None, writable=True)
    return Bound(uid, dt, d, dims, declared, False)


def _host_scalar(value, dt, dims):
    """A numpy array of the graph's element type holding a Python number
    (raw bits for bf16)."""
    import numpy as np

    if dt == data_type.BFLOAT16:
        bits = np.array(float(value), np.float32).view(np.uint32)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
        return bits.reshape(dims)
    kinds = {
        data_type.FLOAT: np.float32,
        data_type.HALF: np.float16,
        data_type.DOUBLE: np.float64,
        data_type.INT8: np.int8,
        data_type.UINT8: np.uint8,
        data_type.INT32: np.int32,
        data_type.INT64: np.int64,
        data_type.BOOLEAN: np.bool_,
    }
    if dt not in kinds:
        raise ValueError(f"a Python number cannot be a {dt.name} buffer; pass an array of its raw bits")
    return np.full(dims, value, kinds[dt])


def _label(uid, name) -> str:
    return f"tensor uid {uid}" + (f" ({name!r})" if name else "")


def _check_kind(label, d: Described, dt):
    if dt is not None and compatible(d.kind, dt):
        return
    want = dt.name if dt is not None else "?"
    # Raw bits (uint16 for bf16) or another type of the same width (a
    # bfloat16 tensor for a HALF graph): the frontend sees only a pointer
    # and runs such a program, so its bytes are read as the graph's type.
    if dt is not None and _KIND_SIZE.get(d.kind) == element_size(dt):
        warnings.warn(f"buffer for {label} holds {d.kind} but the graph declares {want}: its bytes are read as {want}", BufferViewWarning, stacklevel=4)
        return
    # A byte blob (uint8/int8) is raw memory: the frontend reads its bytes as
    # the declared type when they cover the tensor (bind checks the span).
    if dt is not None and d.kind in ("uint8", "int8") and (element_size(dt) or 0) > 1:
        warnings.warn(f"buffer for {label} holds {d.kind} bytes but the graph declares {want}: its bytes are read as {want}", BufferViewWarning, stacklevel=4)
        return
    hint = ""
    if dt == data_type.BFLOAT16:
        hint = " (bf16 buffers may be uint16 arrays of raw bits)"
    elif dt in (data_type.FP8_E4M3, data_type.FP8_E5M2, data_type.FP8_E8M0, data_type.FP4_E2M1):
        hint = " (fp8/fp4 buffers may be uint8 arrays of raw bits)"
    raise ValueError(f"buffer for {label} holds {d.kind} but the graph declares {want}{hint}")


class Bound:
    """One checked buffer of a variant pack: what goes to the compiler."""

    __slots__ = ("uid", "dt", "ptr", "dims", "strides", "device", "scalar", "source", "keepalive", "staged")

    def __init__(self, uid, dt, d: Described, dims, strides, scalar):
        self.uid = uid
        self.dt = dt
        self.ptr = d.ptr
        self.dims = list(dims)
        self.strides = list(strides)
        self.device = d.device
        self.scalar = scalar
        self.source = d.keepalive  # the caller's object
        self.keepalive = d
        # A too-small device buffer runs on a stand-in (_bind_staged):
        # (the caller's bytes, the stand-in's first bytes, is an output).
        self.staged = None



def same_addressing(dims, strides, declared) -> bool:
    """The same memory for every element: strides agree on each dim of
    extent above 1 (an extent-1 dim's stride addresses nothing)."""
    return all(x == 1 or s == w for x, s, w in zip(dims, strides, declared))


def bind(uid, name, dt, dims, strides, is_out, data, also=None, ragged=False) -> Bound:
    """Checks ``data`` as the buffer of the graph tensor (``uid``, ``name``,
    ``dt``, ``dims``, declared ``strides``; all 0 or empty when undecided)
    and says how the compiler is to see it. ``also``: (dims, strides) the
    program declared for a tensor the builder reshaped (a 1-D per-batch
    sequence length made [B, 1, 1, 1]); a buffer of that view is the
    tensor's own, not warned about. ``ragged``: the tensor has ragged
    offsets, so its buffer is packed: on the GPU the offsets, not the padded
    dims, say how far it reaches (as in the frontend, nothing reads them on
    the host), so a buffer smaller than the padded span is taken as it is."""
    label = _label(uid, name)
    dims = [int(x) for x in dims]
    count = 1
    for x in dims:
        count *= max(x, 0)
    scalar = count == 1 and not is_out
    if _is_device_pointer(data, scalar):
        return _bind_device_pointer(uid, label, dt, dims, strides, data, is_out)
    if _is_number(data):
        if not scalar:
            raise ValueError(f"buffer for {label}: a Python number binds only a one-element input (the graph declares dims {dims})")
        data = _host_scalar(data, dt, dims)
    try:
        d = describe(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"buffer for {label}: {exc}") from None
    _check_kind(label, d, dt)
    if any(s < 0 for s, x in zip(d.strides, d.dims) if x != 1):
        raise ValueError(f"buffer for {label} has negative strides {d.strides}; pass a copy")
    if is_out and not d.writable:
        raise ValueError(f"buffer for output {label} is read-only")
    declared = [int(s) for s in strides] if strides and any(int(s) != 0 for s in strides) else []

    if any(x < 0 for x in dims):
        # Dynamic dims take their extents from the buffer, so its view is
        # the tensor's: the rank and the static dims must match.
        if len(d.dims) != len(dims) or any(w >= 0 and g != w for g, w in zip(d.dims, dims)):
            raise ValueError(f"buffer for {label} has dims {d.dims} but the graph declares {dims}")
        if declared:
            for g, w, extent in zip(d.strides, declared, d.dims):
                if extent != 1 and g != w:
                    raise ValueError(f"buffer for {label} has strides {d.strides} but the graph declares {declared}")
        return Bound(uid, dt, d, d.dims, d.strides, scalar)

    same_dims = d.dims == dims
    if not declared:
        # Undecided strides: a buffer of the tensor's dims keeps its own.
        declared = list(d.strides) if same_dims else row_major(dims)
    size = element_size(dt) or _KIND_SIZE.get(d.kind, 1)
    needed = span_elements(dims, declared) * size
    held = _held_bytes(d)
    # A ragged tensor's buffer on the host: what its own view spans (not a
    # torch tensor's storage past it, which the CPU reference would write).
    packed = ragged and not scalar and list(d.strides) == normalize_unit_strides(d.dims, row_major(d.dims))
    if ragged and d.device != GPU and not scalar:
        held = min(held, span_elements(d.dims, d.strides) * _KIND_SIZE.get(d.kind, 1))
    if held < needed:
        if ragged and d.device == GPU and held > 0:
            return Bound(uid, dt, d, dims, declared, scalar)
        if ragged and packed and held > 0 and d.ptr:
            return _bind_host_ragged(uid, dt, d, dims, declared, held, needed, is_out)
        if ragged:
            raise ValueError(
                f"buffer for ragged {label} holds {held} bytes but its padded dims {dims} and strides {declared} span "
                f"{needed} bytes: the CPU reference reads a packed tensor over its padded span (its offsets place each "
                f"batch in it); pass a contiguous buffer of the packed tokens or of the padded size, or run on the GPU, "
                f"which reads only what the offsets address"
            )
        if d.device == GPU and is_torch_tensor(d.keepalive) and not scalar:
            return _bind_staged(uid, label, dt, d, dims, declared, held, needed, is_out)
        raise ValueError(
            f"buffer for {label} has dims {d.dims} and strides {d.strides} ({held} bytes) but the graph's dims {dims} "
            f"and strides {declared} ({dt.name if dt is not None else '?'}) span {needed} bytes: the buffer is too small"
        )
    same_view = same_dims and same_addressing(dims, d.strides, declared)
    if also is not None and list(d.dims) == list(also[0]):
        same_view = same_view or same_addressing(also[0], d.strides, also[1])
    # A ragged tensor's contiguous buffer is its packed tokens ([T, H, D],
    # say), never the padded dims: no view to warn about.
    if not same_view and not scalar and not packed:
        warnings.warn(
            f"buffer for {label} has dims {d.dims} and strides {d.strides} but the graph declares dims {dims} and "
            f"strides {declared}; its memory is used as the graph lays the tensor out",
            BufferViewWarning,
            stacklevel=3,
        )
    return Bound(uid, dt, d, dims, declared, scalar)


class SharedOutputWarning(UserWarning):
    """Two outputs of one execute are bound to memory they share: which of
    them ends in it is not defined (the frontend does not check this)."""


def warn_shared_outputs(outputs) -> None:
    """Warns once per pair of output ``Bound``s that certainly share memory:
    both start at one address, or both are dense and their bytes intersect
    (strided outputs may interleave without sharing an element)."""
    spans = []
    for b in outputs:
        if b.scalar or not b.ptr:
            continue
        elements = span_elements(b.dims, b.strides)
        size = element_size(b.dt) or 1
        spans.append((b, b.ptr, b.ptr + elements * size, elements == math.prod(b.dims)))
    for i, (a, a0, a1, a_dense) in enumerate(spans):
        for b, b0, b1, b_dense in spans[i + 1:]:
            if a.device != b.device:
                continue
            if a0 == b0 or (a_dense and b_dense and a0 < b1 and b0 < a1):
                warnings.warn(
                    f"outputs uid {a.uid} and uid {b.uid} are bound to memory they share: which result ends in it "
                    f"is not defined; give each output its own buffer",
                    SharedOutputWarning,
                    stacklevel=4,
                )


class BufferTooSmallWarning(UserWarning):
    """A CUDA tensor holds fewer bytes than the graph's tensor spans. The
    frontend hands such a buffer to cuDNN, which reads and writes past it;
    this package runs the graph on a full-size stand-in instead."""


def _bind_staged(uid, label, dt, d: Described, dims, declared, held, needed, is_out) -> "Bound":
    """A CUDA tensor smaller than the graph's tensor: the program runs (the
    frontend accepts it) without reading or writing past the buffer. The
    graph gets a zero-filled device stand-in of the full span whose first
    ``held`` bytes are the buffer's; for an output they are copied back
    after the execute (execute_staged_outputs), so the buffer ends with what
    cuDNN would have left in it, and nothing beyond it is touched."""
    torch = sys.modules["torch"]
    obj = d.keepalive
    warnings.warn(
        f"buffer for {label} holds {held} bytes but the graph's dims {dims} and strides {declared} span {needed} bytes: "
        f"the graph runs on a zero-filled stand-in of the full size holding the buffer's bytes"
        + (", copied back into the buffer after the execute" if is_out else "")
        + " (cuDNN would read and write past the buffer)",
        BufferTooSmallWarning,
        stacklevel=4,
    )
    mine = torch.empty(0, dtype=torch.uint8, device=obj.device)
    mine.set_(obj.untyped_storage(), obj.storage_offset() * obj.element_size(), (held,))
    stand_in = torch.zeros(needed, dtype=torch.uint8, device=obj.device)
    stand_in[:held].copy_(mine)
    torch.cuda.synchronize(obj.device)  # the runtime may run on another stream
    bound = Bound(uid, dt, Described(stand_in.data_ptr(), dims, declared, d.kind, d.device, stand_in), dims, declared, False)
    bound.staged = (mine, stand_in[:held], is_out)
    return bound


def _bind_host_ragged(uid, dt, d: Described, dims, declared, held, needed, is_out) -> "Bound":
    """A host buffer of a ragged (packed) tensor holding only its packed
    tokens, as the frontend's programs allocate them: the CPU reference reads
    the tensor over its padded span, so it runs on a zero-filled stand-in of
    that span whose first ``held`` bytes are the buffer's; an output's are
    copied back after the execute. The offsets address only the packed
    tokens, so nothing the buffer lacks is read or written as data."""
    stand_in = bytearray(needed)
    window = (ctypes.c_char * needed).from_buffer(stand_in)
    ctypes.memmove(window, d.ptr, held)
    ptr = ctypes.addressof(window)
    bound = Bound(uid, dt, Described(ptr, dims, declared, d.kind, d.device, (stand_in, window)), dims, declared, False)
    bound.source = d.keepalive
    bound.staged = (d.ptr, (stand_in, window, held), is_out)
    return bound


def copy_back_staged(bound) -> None:
    """After an execute: the stand-ins of too-small output buffers give the
    buffers their first bytes back (see _bind_staged, _bind_host_ragged)."""
    outs = [b for b in bound if b.staged is not None and b.staged[2]]
    if not outs:
        return
    for b in outs:
        mine, head, _ = b.staged
        if isinstance(mine, int):  # a host buffer's address (_bind_host_ragged)
            ctypes.memmove(mine, ctypes.addressof(head[1]), head[2])
            continue
        torch = sys.modules["torch"]
        torch.cuda.synchronize(mine.device)
        mine.copy_(head)


def pack_device(bound):
    """The device a variant pack runs on: the non-scalar buffers' (all on
    one device), else the scalars'."""
    devices = {b.device for b in bound if not b.scalar}
    if not devices:
        devices = {b.device for b in bound}
    if len(devices) > 1:
        raise ValueError("the variant pack mixes host buffers (numpy, CPU tensors) and device buffers (CUDA tensors); use one device (only pass-by-value scalars may stay on the host)")
    return devices.pop() if devices else CPU


def _torch_device(bound):
    for b in bound:
        if b.device == GPU and not b.scalar and is_torch_tensor(b.source):
            return b.source.device
    return None


def move_scalars(bound, device):
    """Puts the pass-by-value scalars on ``device``. A host scalar in a device
    pack is staged in a one-element device tensor (torch, on the device of
    the pack's torch tensors); returns the (staged, host source) pairs whose
    value must be copied again before every execute that reuses them."""
    refresh = []
    for b in bound:
        if not b.scalar or b.device == device:
            continue
        if device == CPU:
            # A device scalar in a host pack: read its value once.
            if not is_torch_tensor(b.source):
                raise ValueError(f"buffer for tensor uid {b.uid}: a device scalar in a host variant pack must be a torch tensor (or pass it on the host)")
            source = b.source.detach().reshape(-1)[:1]
            host = source.to("cpu")
            b.keepalive, b.ptr, b.device = (host, b.keepalive), host.data_ptr(), CPU
            b.strides = normalize_unit_strides(b.dims, [0] * len(b.dims))
            refresh.append((host, source))
            continue
        torch = sys.modules.get("torch")
        dev = _torch_device(bound)
        if torch is None or dev is None:
            raise ValueError(
                f"buffer for tensor uid {b.uid}: a host pass-by-value scalar in a device variant pack is staged through torch, "
                "and the pack has no torch CUDA tensor; pass the scalar as a device buffer"
            )
        if is_torch_tensor(b.source):
            host = b.source.reshape(-1)[:1]
        else:
            import numpy as np

            host = torch.from_numpy(np.ascontiguousarray(np.asarray(b.source)).reshape(-1)[:1])
        staged = torch.empty(1, dtype=host.dtype, device=dev)
        entry = StagedScalar(staged, host)
        entry.refresh(torch)
        b.keepalive, b.ptr, b.device = (staged, b.keepalive), staged.data_ptr(), GPU
        b.strides = normalize_unit_strides(b.dims, [0] * len(b.dims))
        refresh.append(entry)
    return refresh


class StagedScalar:
    """A host pass-by-value scalar and its one-element device copy. refresh()
    copies the value again when it changed since the last copy: no copy (and
    no host wait) for the usual unchanged epsilon, and, while the stream is
    captured into a CUDA graph, a copy from pinned memory that the capture
    records (a copy from pageable memory cannot be captured)."""

    def __init__(self, staged, host):
        self.staged, self.host = staged, host
        self.last = None
        self.pinned = None

    def refresh(self, torch) -> None:
        value = self.host.item()
        if value == self.last:
            return
        if torch.cuda.is_current_stream_capturing():
            self.pinned = self.host.detach().clone().pin_memory()
            self.staged.copy_(self.pinned, non_blocking=True)
        else:
            self.staged.copy_(self.host)  # synchronous from pageable host memory
        self.last = value


# ---------------------------------------------------------------------------
# Bit-packed BOOLEAN buffers
# ---------------------------------------------------------------------------
# The frontend's boolean masks (a norm's ReLU bitmask, a dReLU mask) live in
# uint8 buffers holding 8 elements of the innermost dim per byte: element i
# in bit i % 8 of byte i // 8, the other dims as the tensor's (a [N, C, H, W]
# channels-last mask is an [N, C/8, H, W] uint8 buffer). The compiler keeps
# one byte per boolean, so such a buffer is unpacked into a byte-per-element
# stand-in before execution (inputs) and packed back after it (outputs).


def _innermost_axis(dims, strides) -> int:
    """The axis whose elements are adjacent in memory (the last one when
    the strides are undecided)."""
    live = [i for i, d in enumerate(dims) if int(d) > 1] or [len(dims) - 1]
    if not strides or not any(int(s) for s in strides):
        return live[-1]
    return min(live, key=lambda i: (int(strides[i]), -i))


def packed_boolean_axis(dims, strides, data):
    """The axis ``data`` packs when it is a bit-packed uint8 buffer of the
    BOOLEAN tensor (``dims``, ``strides``); None for any other buffer."""
    if not dims or not (is_torch_tensor(data) or _is_numpy(data)):
        return None
    try:
        d = describe(data)
    except (TypeError, ValueError):
        return None
    if d.kind != "uint8":
        return None
    axis = _innermost_axis(dims, strides)
    packed = [int(x) for x in dims]
    packed[axis] = -(-packed[axis] // 8)
    return axis if d.dims == packed and packed != [int(x) for x in dims] else None


def _stand_in_strides(dims, strides):
    return [int(s) for s in strides] if strides and any(int(s) for s in strides) else row_major(dims)


def unpack_booleans(data, dims, strides, axis, read: bool):
    """A byte-per-element bool buffer laid out as the tensor (``dims``,
    ``strides``) on the device of the packed buffer ``data``; it holds the
    unpacked bits when ``read``."""
    dims = [int(x) for x in dims]
    layout = _stand_in_strides(dims, strides)
    extent = dims[axis]
    if is_torch_tensor(data):
        torch = sys.modules["torch"]
        stand_in = torch.empty_strided(dims, layout, dtype=torch.bool, device=data.device)
        if read:
            shifts = torch.arange(8, dtype=torch.uint8, device=data.device)
            bits = (data.movedim(axis, -1).unsqueeze(-1) >> shifts) & 1
            bits = bits.flatten(-2)[..., :extent].movedim(-1, axis)
            stand_in.copy_(bits.bool())
        return stand_in
    import numpy as np

    flat = np.zeros(span_elements(dims, layout), np.bool_)
    stand_in = np.lib.stride_tricks.as_strided(flat, shape=dims, strides=layout)
    if read:
        bits = np.unpackbits(np.moveaxis(np.asarray(data), axis, -1), axis=-1, bitorder="little")[..., :extent]
        stand_in[...] = np.moveaxis(bits, -1, axis).astype(np.bool_)
    return stand_in


def pack_booleans(stand_in, data, axis) -> None:
    """Writes the bool buffer ``stand_in`` into the bit-packed uint8 buffer
    ``data`` (the bits past the innermost extent are 0)."""
    if is_torch_tensor(data):
        torch = sys.modules["torch"]
        bits = stand_in.movedim(axis, -1).to(torch.uint8)
        pad = data.shape[axis] * 8 - bits.shape[-1]
        if pad:
            bits = torch.cat([bits, bits.new_zeros(bits.shape[:-1] + (pad,))], dim=-1)
        shifts = torch.arange(8, dtype=torch.uint8, device=data.device)
        packed = (bits.unflatten(-1, (-1, 8)) << shifts).sum(dim=-1, dtype=torch.uint8)
        data.copy_(packed.movedim(-1, axis))
        return
    import numpy as np

    packed = np.packbits(np.moveaxis(np.asarray(stand_in), axis, -1), axis=-1, bitorder="little")
    data[...] = np.moveaxis(packed, -1, axis)
