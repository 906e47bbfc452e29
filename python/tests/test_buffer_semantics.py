"""Buffer and stride semantics of the cuDNN frontend (issue 11, part B):
overlapping input strides, stride-0 unit dims, buffers checked by size not
shape, host pass-by-value scalars in a device pack, and the output strides
the frontend infers. Numerics run on the CPU reference."""

import sys
import types
import warnings

import numpy as np
import pytest

import graph_compiler as gc
from graph_compiler import _buffers
from conftest import needs_lib

F = gc.data_type.FLOAT
as_strided = np.lib.stride_tricks.as_strided


def fgraph():
    return gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)


class no_warnings:
    """Turns warnings into errors inside the block."""

    def __enter__(self):
        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("error")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def relu_graph(dims=(2, 3), stride=None):
    g = fgraph()
    x = g.tensor(name="x", dim=list(dims), stride=stride)
    y = g.relu(x)
    y.set_output(True)
    g.build([gc.heur_mode.A])
    return g, x, y


# ---- 1. reads through overlapping strides -----------------------------------


@needs_lib
def test_overlapping_input_strides_are_read():
    # The frontend's mixed-precision matmul: a [B, N, K] buffer read as
    # [B, K, N] with strides [N*K, 1, N], K > N, so the dims overlap.
    B, M, K, N = 2, 3, 5, 3
    rng = np.random.default_rng(0)
    a = rng.standard_normal((B, M, K)).astype(np.float32)
    storage = rng.standard_normal(B * N * K).astype(np.float32)
    view = as_strided(storage, (B, K, N), (N * K * 4, 4, N * 4), writeable=False)
    g = fgraph()
    A = g.tensor_like(a, name="a")
    Bt = g.tensor_like(view, name="b")
    assert Bt.get_stride() == [N * K, 1, N]
    C = g.matmul(A, Bt)
    C.set_output(True)
    g.build([gc.heur_mode.A])
    c = np.zeros((B, M, N), np.float32)
    with no_warnings():
        g.execute({A: a, Bt: view, C: c})
    np.testing.assert_allclose(c, np.matmul(a, np.array(view)), rtol=1e-5, atol=1e-5)


@needs_lib
def test_overlapping_output_strides_are_rejected():
    g = fgraph()
    x = g.tensor(name="x", dim=[4, 8])
    y = g.relu(x)
    y.set_output(True).set_name("y").set_stride([8, 2])
    with pytest.raises(gc.GraphValidationError, match=r"output 0 \"y\".* is written through overlapping strides: strides overlap: dim 0 has stride 8"):
        g.validate()


# ---- 2. stride 0 on extent-1 dims ---------------------------------------------


def test_unit_dim_zero_strides_are_normalized():
    x = np.ones(16, np.float32)[None, :, None, None]
    assert x.strides == (0, 4, 0, 0)
    g = fgraph()
    t = g.tensor_like(x, name="x")
    assert t.get_dim() == [1, 16, 1, 1] and t.get_stride() == [16, 1, 1, 1]
    u = g.tensor(name="u", dim=[4, 1], stride=[1, 0])
    assert u.get_stride() == [1, 1]
    u.set_stride([1, -3])
    assert u.get_stride() == [1, 1]
    d = _buffers.describe(np.zeros((3, 1), np.float32)[:, :, None].transpose(2, 0, 1))
    assert d.dims == [1, 3, 1] and all(s > 0 for s in d.strides)


@needs_lib
def test_unit_dim_zero_strides_compile_and_run():
    x = np.arange(-8, 8, dtype=np.float32)[None, :, None, None]
    g = fgraph()
    X = g.tensor_like(x, name="x")
    Y = g.relu(X)
    Y.set_output(True)
    g.build([gc.heur_mode.A])
    y = np.zeros((1, 16, 1, 1), np.float32)
    g.execute({X: x, Y: y})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


@needs_lib
def test_outputs_sharing_memory_warn():
    # Two outputs written into one buffer: the frontend runs it, which
    # result stays is not defined, so it warns and names both uids.
    g = fgraph()
    x = g.tensor(name="x", dim=[2, 3])
    r = g.relu(x)
    r.set_output(True)
    n = g.neg(x)
    n.set_output(True)
    g.build([gc.heur_mode.A])
    src = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    both = np.zeros((2, 3), np.float32)
    with pytest.warns(_buffers.SharedOutputWarning, match=rf"outputs uid {r.get_uid()} and uid {n.get_uid()} are bound to memory they share"):
        g.execute({x: src, r: both, n: both})
    # halves of one buffer intersect too
    flat = np.zeros(9, np.float32)
    with pytest.warns(_buffers.SharedOutputWarning):
        g.execute({x: src, r: flat[:6], n: flat[3:]})
    # interleaved strided outputs share no element: no warning
    g = fgraph()
    x = g.tensor(name="x", dim=[2, 3])
    r = g.relu(x)
    r.set_output(True).set_stride([6, 2])
    n = g.neg(x)
    n.set_output(True).set_stride([6, 2])
    g.build([gc.heur_mode.A])
    pair = np.zeros((2, 3, 2), np.float32)
    with no_warnings():
        g.execute({x: src, r: pair[..., 0], n: pair[..., 1]})
    np.testing.assert_array_equal(pair[..., 0], np.maximum(src, 0))
    np.testing.assert_array_equal(pair[..., 1], -src)


# ---- 3. buffers checked by size -------------------------------------------------


@needs_lib
def test_flat_and_reshaped_buffers_are_memory():
    g, x, y = relu_graph()
    src = np.array([-1, 2, -3, 4, -5, 6], np.float32)
    out = np.full(9, 7.0, np.float32)  # oversized, flat
    with pytest.warns(_buffers.BufferViewWarning, match=r"tensor uid 1 \('x'\) has dims \[6\] and strides \[1\] but the graph declares dims \[2, 3\]"):
        g.execute({x: src, y: out})
    np.testing.assert_array_equal(out[:6], np.maximum(src, 0))
    np.testing.assert_array_equal(out[6:], 7.0)
    # another rank, and the buffer's own strides differ: the memory is read
    # as the graph lays it out (row-major [2, 3]), not through the view
    other = np.array([[-1, 2], [-3, 4], [-5, 6]], np.float32)
    y2 = np.zeros((1, 2, 3), np.float32)
    with pytest.warns(_buffers.BufferViewWarning):
        g.execute({x: other.T, y: y2})
    np.testing.assert_array_equal(y2.reshape(-1), np.maximum(other.reshape(-1), 0))


@needs_lib
def test_too_small_buffer_names_tensor_and_bytes():
    g, x, y = relu_graph()
    with pytest.raises(ValueError, match=r"buffer for tensor uid 1 \('x'\) has dims \[5\] and strides \[1\] \(20 bytes\) but the graph's dims \[2, 3\] and strides \[3, 1\] \(FLOAT\) span 24 bytes: the buffer is too small"):
        g.execute({x: np.zeros(5, np.float32), y: np.zeros((2, 3), np.float32)})
    with pytest.raises(ValueError, match=r"output tensor|tensor uid 2 .* span 24 bytes"):
        g.execute({x: np.zeros((2, 3), np.float32), y: np.zeros((1, 3), np.float32)})


@needs_lib
def test_unit_dim_strides_are_never_compared():
    # A [1,16,1,1] scale the graph declares with strides [16,1,16,16]; the
    # caller's packed buffer has [16,1,1,1].
    g = fgraph()
    s = g.tensor(name="dscale", dim=[1, 16, 1, 1], stride=[16, 1, 16, 16])
    x = g.tensor(name="x", dim=[2, 16, 1, 1])
    y = g.mul(x, s)
    y.set_output(True)
    g.build([gc.heur_mode.A])
    sv = np.arange(16, dtype=np.float32).reshape(1, 16, 1, 1)
    xv = np.ones((2, 16, 1, 1), np.float32)
    yv = np.zeros((2, 16, 1, 1), np.float32)
    assert sv.strides == (64, 4, 4, 4)
    with no_warnings():
        g.execute({s: sv, x: xv, y: yv})
    np.testing.assert_array_equal(yv, xv * sv)


@needs_lib
def test_dtype_by_element_size_and_kind():
    g, x, y = relu_graph()
    out = np.zeros((2, 3), np.float32)
    bits = np.array([[-1, 2, -3], [4, -5, 6]], np.float32).view(np.int32)
    with pytest.warns(_buffers.BufferViewWarning, match=r"holds int32 but the graph declares FLOAT: its bytes are read as FLOAT"):
        g.execute({x: bits, y: out})
    np.testing.assert_array_equal(out, [[0, 2, 0], [4, 0, 6]])
    with pytest.raises(ValueError, match=r"buffer for tensor uid 1 \('x'\) holds float16 but the graph declares FLOAT"):
        g.execute({x: np.zeros((2, 3), np.float16), y: out})
    with pytest.raises(ValueError, match=r"holds float64 but the graph declares FLOAT"):
        g.execute({x: np.zeros((2, 3)), y: out})


@needs_lib
def test_a_byte_blob_is_read_as_the_declared_type():
    # The frontend's test_variant_pack_normalization binds a uint8 buffer
    # covering the declared bytes: raw memory, read as the graph's type
    g, x, y = relu_graph()
    values = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    blob = values.view(np.uint8)  # [2, 12] bytes
    out = np.zeros((2, 3), np.float32)
    with pytest.warns(_buffers.BufferViewWarning, match=r"holds uint8 bytes but the graph declares FLOAT: its bytes are read as FLOAT"):
        g.execute({x: blob, y: out})
    np.testing.assert_array_equal(out, np.maximum(values, 0))
    # an output blob too
    out_blob = np.zeros(24, np.uint8)
    with pytest.warns(_buffers.BufferViewWarning):
        g.execute({x: values, y: out_blob})
    np.testing.assert_array_equal(out_blob.view(np.float32).reshape(2, 3), np.maximum(values, 0))
    # fewer bytes than the tensor spans are still refused
    with pytest.raises(ValueError, match="the buffer is too small"), warnings.catch_warnings():
        warnings.simplefilter("ignore", _buffers.BufferViewWarning)
        g.execute({x: np.zeros(20, np.uint8), y: out})


@needs_lib
def test_same_width_float_of_another_type_is_read_as_the_graphs():
    # The real frontend's kernel-cache test builds a HALF graph and passes
    # bfloat16 tensors: the frontend runs it (it sees only pointers), so the
    # buffer's bytes are read as HALF, with a warning, not refused.
    g = gc.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=gc.data_type.FLOAT)
    x = g.tensor(name="x", dim=[4], stride=[1])
    y = g.relu(x).set_output(True)
    g.build([gc.heur_mode.A])
    raw = np.array([-1.0, 2.0, -3.0, 4.0], np.float16)
    disguised = raw.view(np.int16)
    out = np.zeros(4, np.float16)
    with pytest.warns(_buffers.BufferViewWarning, match=r"holds int16 but the graph declares HALF"):
        g.execute({x: disguised, y: out})
    np.testing.assert_array_equal(out, [0, 2, 0, 4])


# ---- 4. host pass-by-value scalars -------------------------------------------------


class FakeCudaArray:
    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x7F0000000000, False), "strides": None, "version": 3}


def scalar_graph():
    g = fgraph()
    x = g.tensor(name="x", dim=[2, 3])
    s = g.tensor(name="s", dim=[1, 1], is_pass_by_value=True)
    y = g.mul(x, s)
    y.set_output(True)
    g.build([gc.heur_mode.A])
    return g, x, s, y


@needs_lib
def test_host_scalar_values_on_the_cpu():
    g, x, s, y = scalar_graph()
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    yv = np.zeros((2, 3), np.float32)
    g.execute({x: xv, s: 2.5, y: yv})  # a Python float
    np.testing.assert_array_equal(yv, xv * 2.5)
    g.execute({x: xv, s: np.float32(-1.0), y: yv})  # a numpy scalar
    np.testing.assert_array_equal(yv, -xv)
    with pytest.raises(ValueError, match=r"tensor uid 1 \('x'\): a Python number binds only a one-element input"):
        g.execute({x: 1.0, s: 2.0, y: yv})


@needs_lib
def test_pass_by_value_inputs_are_marked_for_cudnn():
    # A one-element is_pass_by_value input becomes a graph.by_value input
    # (cuDNN takes its value, read from the buffer at each execute); the
    # CPU reference reads the same buffer.
    g, x, s, y = scalar_graph()
    text = g.to_mlir()
    assert "graph.by_value" in text and text.count("graph.by_value") == 1
    assert '{graph.by_value, graph.name = "s"' in text
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    yv = np.zeros((2, 3), np.float32)
    g.execute({x: xv, s: np.full((1, 1), 3.0, np.float32), y: yv})
    np.testing.assert_array_equal(yv, xv * 3.0)


@needs_lib
def test_tensor_like_of_a_cpu_torch_scalar_is_by_value():
    # Samples 24/25's zero-centered gamma: tensor_like of a CPU torch
    # one-element tensor is pass-by-value (as in the frontend), so the
    # compiler gets a graph.by_value input; a larger CPU tensor is an
    # ordinary input.
    from cuda_standins import CudaTensor

    class CpuTensor(CudaTensor):
        def __init__(self, shape):
            super().__init__(shape, 0x1000)
            self.device = types.SimpleNamespace(type="cpu", index=None)

    CpuTensor.__module__ = "torch"
    g = fgraph()
    gamma = g.tensor(name="gamma", dim=[1, 16, 1, 1])
    one = g.tensor_like(CpuTensor([1, 1, 1, 1]), name="one")
    row = g.tensor_like(CpuTensor([1, 16, 1, 1]), name="row")
    assert one.get_is_pass_by_value() and row.get_is_pass_by_value()
    y = g.add(a=g.add(a=gamma, b=one), b=row)
    y.set_output(True)
    g.validate()
    header = next(line for line in g.to_mlir().splitlines() if "graph.graph" in line)
    inputs = header.split(") -> ")[0].split("%arg")[1:]
    args = {text.split('graph.name = "')[1].split('"')[0]: text for text in inputs}
    assert "graph.by_value" in args["one"]
    assert "graph.by_value" not in args["row"] and "graph.by_value" not in args["gamma"]


@needs_lib
def test_pass_by_value_of_many_elements_reads_memory():
    # tensor_like marks every CPU torch tensor pass-by-value, as the
    # frontend does; one of more elements is an ordinary input (the CPU
    # reference runs such programs), without a warning.
    g = fgraph()
    x = g.tensor(name="x", dim=[2, 3])
    s = g.tensor(name="s", dim=[1, 3], is_pass_by_value=True)
    y = g.mul(x, s)
    y.set_output(True)
    with no_warnings():
        g.build([gc.heur_mode.A])
        assert "graph.by_value" not in g.to_mlir()
    xv = np.arange(6, dtype=np.float32).reshape(2, 3)
    sv = np.array([[1.0, 2.0, 3.0]], np.float32)
    yv = np.zeros((2, 3), np.float32)
    g.execute({x: xv, s: sv, y: yv})
    np.testing.assert_array_equal(yv, xv * sv)


def test_scalars_do_not_decide_the_device():
    dev = _buffers.bind(1, "x", F, [2, 3], [3, 1], False, FakeCudaArray((2, 3)))
    host = _buffers.bind(2, "s", F, [1, 1], [1, 1], False, np.float32(3.0).reshape(1, 1))
    number = _buffers.bind(3, "t", F, [1, 1], [1, 1], False, 0.5)
    assert host.scalar and number.scalar and not dev.scalar
    assert _buffers.pack_device([host, dev, number]) == _buffers.GPU
    assert _buffers.pack_device([host, number]) == _buffers.CPU
    big_host = _buffers.bind(4, "h", F, [2, 3], [3, 1], False, np.zeros((2, 3), np.float32))
    with pytest.raises(ValueError, match="mixes host buffers"):
        _buffers.pack_device([dev, big_host])


@needs_lib
def test_host_scalar_in_a_device_pack_without_torch_says_why():
    g, x, s, y = scalar_graph()
    with pytest.raises(ValueError, match=r"tensor uid 2: a host pass-by-value scalar in a device variant pack is staged through torch"):
        g.execute({x: FakeCudaArray((2, 3)), s: np.ones((1, 1), np.float32), y: FakeCudaArray((2, 3))})


class _FakeTorchDevice:
    type = "cuda"


class FakeTorchTensor:
    """Just what the binding reads and calls on a torch tensor."""

    __module__ = "torch"

    def __init__(self, shape, dtype="float32", device="cuda", array=None):
        self.shape = tuple(shape)
        self.dtype = _Dtype(dtype)
        self.device = _FakeTorchDevice() if device == "cuda" else types.SimpleNamespace(type="cpu")
        self.array = array if array is not None else np.zeros(shape, np.float32)
        self.copies = 0

    def stride(self):
        return tuple(s // self.array.itemsize for s in self.array.strides)

    def data_ptr(self):
        return 0x7F0000002000 if self.device.type == "cuda" else self.array.__array_interface__["data"][0]

    def reshape(self, *shape):
        return FakeTorchTensor(self.array.reshape(*shape).shape, str(self.dtype)[6:], self.device.type, self.array.reshape(*shape))

    def __getitem__(self, index):
        return FakeTorchTensor(self.array[index].shape, str(self.dtype)[6:], self.device.type, self.array[index])

    def item(self):
        return self.array.reshape(-1)[0].item()

    def copy_(self, other):
        self.array[...] = other.array
        self.copies += 1
        return self


class _Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"torch.{self.name}"


@needs_lib
def test_host_scalar_in_a_device_pack_is_staged(monkeypatch):
    staged = []

    def empty(n, dtype=None, device=None):
        t = FakeTorchTensor((n,), dtype.name, "cuda")
        staged.append(t)
        return t

    cuda = types.SimpleNamespace(is_current_stream_capturing=lambda: False)
    fake = types.SimpleNamespace(empty=empty, cuda=cuda, from_numpy=lambda a: FakeTorchTensor(a.shape, str(a.dtype), "cpu", a))
    monkeypatch.setitem(sys.modules, "torch", fake)
    g, x, s, y = scalar_graph()
    xs, ys = FakeTorchTensor((2, 3)), FakeTorchTensor((2, 3))
    scale = FakeTorchTensor((1, 1), device="cpu", array=np.full((1, 1), 4.0, np.float32))
    # Past the device decision and the staging: the GPU path itself reports
    # that this machine has no GPU.
    with pytest.raises(gc.GraphExecutionError, match="on the GPU failed"):
        g.execute({x: xs, s: scale, y: ys})
    assert len(staged) == 1 and staged[0].array[0] == 4.0 and staged[0].copies == 1
    # Same pack, same value: no copy (no host wait per execute).
    with pytest.raises(gc.GraphExecutionError, match="on the GPU failed"):
        g.execute({x: xs, s: scale, y: ys})
    assert staged[0].copies == 1
    scale.array[...] = 5.0  # same pack again: the cached pack copies the changed value
    with pytest.raises(gc.GraphExecutionError, match="on the GPU failed"):
        g.execute({x: xs, s: scale, y: ys})
    assert staged[-1].array[0] == 5.0 and staged[-1].copies == 2


# ---- 5. output strides the frontend infers -------------------------------------------


@needs_lib
@pytest.mark.parametrize("C", [3, 1])  # one channel: a channels-last image's strides tie
def test_conv_output_is_channels_last_in_f32(C):
    # the frontend gives every convolution result it infers channels-last
    # strides, in every dtype and whatever the image's layout
    N, H, W, K = 2, 4, 5, 4
    rng = np.random.default_rng(1)
    x_nhwc = rng.standard_normal((N, H, W, C)).astype(np.float32)
    x = x_nhwc.transpose(0, 3, 1, 2)  # NCHW dims, channels-last memory
    w = rng.standard_normal((K, C, 1, 1)).astype(np.float32)
    g = fgraph()
    X = g.tensor_like(x, name="x")
    Wt = g.tensor_like(w, name="w")
    Y = g.conv_fprop(X, Wt, padding=[0, 0], stride=[1, 1], dilation=[1, 1])
    Y.set_output(True)
    g.build([gc.heur_mode.A])
    y_nhwc = np.zeros((N, H, W, K), np.float32)
    y = y_nhwc.transpose(0, 3, 1, 2)
    with no_warnings():
        g.execute({X: x, Wt: w, Y: y})
    np.testing.assert_allclose(y, np.einsum("nchw,kc->nkhw", x, w[:, :, 0, 0]), rtol=1e-5, atol=1e-5)


@needs_lib
def test_pointwise_output_follows_its_input_order_in_place():
    # A transposed (column-major) view, written in place: the output takes
    # the dim order of its first operand of the same dims, so the caller's
    # view is the graph's layout (the [1, 8] bias before it is a broadcast).
    big = (np.arange(32, dtype=np.float32) - 16).reshape(8, 4)
    view = big.T
    g = fgraph()
    X = g.tensor_like(view, name="x")
    assert X.get_stride() == [1, 4]
    bias = g.tensor(name="bias", dim=[1, 8])
    Y = g.add(bias, X)
    Y.set_output(True)
    g.build([gc.heur_mode.A])
    before = view.copy()
    b = np.arange(8, dtype=np.float32).reshape(1, 8)
    with no_warnings():
        g.execute({X: view, bias: b, Y: view})
    np.testing.assert_array_equal(view, before + b)
    np.testing.assert_array_equal(big, (before + b).T)


@needs_lib
def test_user_output_strides_are_kept():
    g = fgraph()
    x = g.tensor(name="x", dim=[2, 3])
    y = g.relu(x)
    y.set_output(True).set_stride([1, 2])
    g.build([gc.heur_mode.A])
    xv = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    yv = np.zeros((3, 2), np.float32).T  # column-major [2, 3]
    with no_warnings():
        g.execute({x: xv, y: yv})
    np.testing.assert_array_equal(yv, np.maximum(xv, 0))


def test_raw_device_addresses_bind_as_the_graph_lays_them_out():
    # The frontend's programs pass tensor.data_ptr() ints (conv_genstats):
    # an int for a tensor of more than one element, or for an output, is a
    # device address holding the tensor as the graph declares it.
    addr = 0x7F00_0000_0000
    b = _buffers.bind(3, "X", gc.data_type.HALF, [2, 4, 8], [32, 8, 1], False, addr)
    assert (b.ptr, b.device, b.dims, b.strides, b.scalar) == (addr, _buffers.GPU, [2, 4, 8], [32, 8, 1], False)
    out = _buffers.bind(4, "Y", gc.data_type.FLOAT, [1], [], True, addr + 256)
    assert out.ptr == addr + 256 and out.device == _buffers.GPU and out.strides == [1]
    # A small int for a one-element input is still a value on the host.
    v = _buffers.bind(5, "alpha", gc.data_type.INT32, [1, 1], [1, 1], False, 3)
    assert v.scalar and v.device == _buffers.CPU
    with pytest.raises(ValueError, match="not a device address"):
        _buffers.bind(6, "Z", gc.data_type.FLOAT, [4], [1], True, -5)
    with pytest.raises(ValueError, match="dynamic dims"):
        _buffers.bind(7, "D", gc.data_type.FLOAT, [-1, 4], [4, 1], False, addr)


def test_bfloat16_tensor_for_a_half_tensor_warns_and_a_wider_type_is_refused():
    bf16 = _buffers.Described(0x1000, [4], [1], "bfloat16", _buffers.GPU, None)
    with pytest.warns(_buffers.BufferViewWarning, match=r"holds bfloat16 but the graph declares HALF: its bytes are read as HALF"):
        _buffers._check_kind("tensor uid 0 ('A')", bf16, gc.data_type.HALF)
    f32 = _buffers.Described(0x1000, [4], [1], "float32", _buffers.GPU, None)
    with pytest.raises(ValueError, match=r"holds float32 but the graph declares HALF"):
        _buffers._check_kind("tensor uid 0 ('A')", f32, gc.data_type.HALF)
