"""Reading buffers without importing a framework: numpy, torch-like objects,
__cuda_array_interface__ and DLPack producers."""

import numpy as np

import graph_compiler as gc
from graph_compiler import _buffers


class DLPackOnly:
    """Exposes a numpy array only through the DLPack protocol."""

    def __init__(self, array):
        self._a = array

    def __dlpack__(self, stream=None):
        return self._a.__dlpack__()

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


class _FakeDevice:
    type = "cuda"


class FakeTorchTensor:
    """What the package reads from a torch tensor: shape, stride(), dtype,
    device, data_ptr(); its module is 'torch' so it is recognised as one."""

    __module__ = "torch"

    def __init__(self, shape, stride, dtype, device_type="cuda"):
        self.shape = tuple(shape)
        self._stride = tuple(stride)
        self.dtype = dtype
        self.device = _FakeDevice()
        self.device.type = device_type

    def stride(self):
        return self._stride

    def data_ptr(self):
        return 0x7F0000001000


class _TorchDtype:
    def __init__(self, name):
        self._name = name

    def __str__(self):
        return f"torch.{self._name}"


def test_dlpack_geometry():
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)[:, ::2, :]
    d = _buffers.describe(DLPackOnly(a))
    assert d.dims == [2, 2, 4] and d.strides == [12, 8, 1] and d.kind == "float32" and d.device == _buffers.CPU
    assert d.ptr == a.__array_interface__["data"][0]
    g = gc.pygraph()
    t = g.tensor_like(DLPackOnly(a))
    assert t.get_dim() == [2, 2, 4] and t.get_stride() == [12, 8, 1] and t.get_data_type() == gc.data_type.FLOAT


def test_torch_like_without_importing_torch():
    import sys

    t = FakeTorchTensor((4, 8), (1, 4), _TorchDtype("bfloat16"))
    g = gc.pygraph()
    x = g.tensor_like(t, name="x")
    assert x.get_dim() == [4, 8] and x.get_stride() == [1, 4] and x.get_data_type() == gc.data_type.BFLOAT16
    assert not x.get_is_pass_by_value()
    d = _buffers.describe(t)
    assert d.device == _buffers.GPU and d.kind == "bfloat16"
    assert "torch" not in sys.modules or hasattr(sys.modules["torch"], "Tensor")


def test_cuda_array_interface():
    class Dev:
        __cuda_array_interface__ = {"shape": (3, 5), "typestr": "<f2", "data": (1234, False), "strides": (20, 2), "version": 3}

    d = _buffers.describe(Dev())
    assert d.dims == [3, 5] and d.strides == [10, 1] and d.kind == "float16" and d.device == _buffers.GPU and d.ptr == 1234


def test_numpy_raw_bits_kinds():
    assert _buffers.compatible("uint16", gc.data_type.BFLOAT16)
    for dt in (gc.data_type.FP8_E4M3, gc.data_type.FP8_E5M2, gc.data_type.FP8_E8M0, gc.data_type.FP4_E2M1):
        assert _buffers.compatible("uint8", dt)
    assert not _buffers.compatible("float32", gc.data_type.HALF)
    g = gc.pygraph()
    assert g.tensor_like(np.zeros((2, 2), np.uint16)).get_data_type() == gc.data_type.BFLOAT16


def test_framework_tensor_in_builder_binds_data():
    g = gc.pygraph(io_data_type=gc.data_type.FLOAT)
    a = np.ones((2, 2), np.float32)
    y = g.matmul(a, a)
    A = g.find_tensor("matmul.0::A")
    assert A is not None and A.get_dim() == [2, 2]
    assert g._data_bindings[A.get_uid()] is a
