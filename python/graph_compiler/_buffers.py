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

from ._enums import data_type

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
}

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
        self.strides = [int(s) for s in strides]
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


def is_torch_tensor(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "torch" and hasattr(obj, "data_ptr") and callable(getattr(obj, "stride", None))


def _is_numpy(obj) -> bool:
    return type(obj).__module__.split(".")[0] == "numpy" and hasattr(obj, "__array_interface__")


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


def describe(obj) -> Described:
    """Pointer, dims, element strides, element kind and device of a buffer."""
    if is_torch_tensor(obj):
        kind = str(obj.dtype).replace("torch.", "")
        device = GPU if getattr(obj.device, "type", "cpu") == "cuda" else CPU
        return Described(obj.data_ptr(), list(obj.shape), list(obj.stride()), kind, device, obj)
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
    raise TypeError(f"cannot read a buffer from {type(obj).__name__}: expected a numpy array, a torch tensor, or an object with __cuda_array_interface__, __array_interface__ or __dlpack__")


def compatible(kind: str, dt) -> bool:
    return dt in _KIND_TO_DTYPES.get(kind, ())


def default_data_type(kind: str):
    return _KIND_DEFAULT.get(kind)
