"""cudnn.Graph, the frontend's high-level wrapper (graph_compiler/_wrapper.py),
on the CPU reference with numpy buffers."""

import numpy as np
import pytest

import cudnn
from conftest import needs_lib

FLOAT = cudnn.data_type.FLOAT
rng = np.random.default_rng(7)


def _arrays():
    a = rng.standard_normal((1, 4, 8)).astype(np.float32)
    b = rng.standard_normal((1, 8, 5)).astype(np.float32)
    return a, b


def _matmul_relu(a, b, **kwargs):
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT, **kwargs) as g:
        c = g.matmul(A=a, B=b, name="mm")
        y = g.relu(input=c, name="act")
        y.set_output(True)
    return g, y


def test_exports():
    import graph_compiler

    assert cudnn.Graph is graph_compiler.Graph


@needs_lib
def test_positional_call_after_set_io_tuples():
    a, b = _arrays()
    g, y = _matmul_relu(a, b)
    assert g.input_names == ["mm::A", "mm::B", "act::input"]
    assert g.output_names == ["mm::C", y.get_name()]
    g.set_io_tuples(["mm::A", "mm::B"], [y.get_name()])
    out = g(a, b)
    assert isinstance(out, np.ndarray) and out.shape == (1, 4, 5) and out.dtype == np.float32
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    # new inputs, fresh output each call
    a2, b2 = _arrays()
    out2 = g(a2, b2)
    assert out2 is not out
    np.testing.assert_allclose(out2, np.maximum(a2 @ b2, 0), rtol=1e-5, atol=1e-5)


@needs_lib
def test_io_given_to_constructor_by_buffer_tensor_and_uid():
    a, b = _arrays()
    holder = {}
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT, inputs=[a, "mm::B"], outputs=["Y"]) as g:
        c = g.matmul(A=a, B=b, name="mm")
        holder["c"] = c
        c.set_output(True).set_name("Y")
    out = g(a, b)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)
    # the same order by graph tensor and by uid
    g.set_io_tuples([g.graph.nodes[0].inputs["A"].get_uid(), "mm::B"], [holder["c"]])
    np.testing.assert_allclose(g(a, b), a @ b, rtol=1e-5, atol=1e-5)


@needs_lib
def test_set_io_tuples_inside_with_block_applies_on_exit():
    a, b = _arrays()
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT) as g:
        x = g.tensor(name="X", dim=[1, 4, 8], stride=[32, 8, 1], data_type=FLOAT)
        w = g.tensor(name="W", dim=[1, 8, 5], stride=[40, 5, 1], data_type=FLOAT)
        y = g.matmul(A=x, B=w, name="mm")
        y.set_output(True).set_name("Y")
        g.set_io_tuples(["X", "W"], ["Y"])
    np.testing.assert_allclose(g(a, b), a @ b, rtol=1e-5, atol=1e-5)


@needs_lib
def test_two_outputs_return_a_list():
    a, b = _arrays()
    g, y = _matmul_relu(a, b)
    g.graph.find_tensor("mm::C")  # exists
    with pytest.raises(ValueError, match="virtual tensor"):
        g.set_io_tuples(["mm::A", "mm::B"], ["mm::C", y.get_name()])
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT, inputs=["mm::A", "mm::B"], outputs=["mm::C", "act::Y"]) as g2:
        c = g2.matmul(A=a, B=b, name="mm")
        c.set_output(True)
        r = g2.relu(input=c, name="act")
        r.set_output(True).set_name("act::Y")
    outs = g2(a, b)
    assert isinstance(outs, list) and len(outs) == 2
    np.testing.assert_allclose(outs[0], a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outs[1], np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)


@needs_lib
def test_dict_call_fills_missing_outputs():
    a, b = _arrays()
    g, y = _matmul_relu(a, b)
    d = {"mm::A": a, "mm::B": b}
    ret = g(d)
    assert ret is d and y.get_name() in d
    np.testing.assert_allclose(d[y.get_name()], np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    # a caller-provided output buffer is written in place
    out = np.zeros((1, 4, 5), np.float32)
    g({"mm::A": a, "mm::B": b, y: out})
    np.testing.assert_allclose(out, np.maximum(a @ b, 0), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=r"not found in variant pack: \['mm::B'\]"):
        g({"mm::A": a})


@needs_lib
def test_default_node_names_and_collisions():
    a, b = _arrays()
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT) as g:
        c = g.matmul(A=a, B=b)
        c.set_output(True)
    assert g.input_names == ["matmul.0::A", "matmul.0::B"]
    assert g.output_names == ["matmul.0::C"]
    with pytest.raises(ValueError, match="Node name 'mm' already used"):
        with cudnn.Graph(io_data_type=FLOAT) as g2:
            c = g2.matmul(A=a, B=b, name="mm")
            g2.relu(input=c, name="mm")


@needs_lib
def test_errors_follow_the_frontend():
    a, b = _arrays()
    g, y = _matmul_relu(a, b)
    with pytest.raises(ValueError, match="before running set_io_tuples"):
        g(a, b)
    with pytest.raises(RuntimeError, match="Calling build_plans via wrapper is not allowed"):
        g.build_plans()
    with pytest.raises(RuntimeError, match="Calling execute via wrapper is not allowed"):
        g.execute({})
    with pytest.raises(ValueError, match=r"Input at index 0 \('nope'\) not found"):
        g.set_io_tuples(["nope"], [y])
    with pytest.raises(ValueError, match="is a duplicate"):
        g.set_io_tuples(["mm::A", "mm::A"], [y])
    with pytest.raises(ValueError, match="Node input mm::B is a non-virtual tensor but not specified"):
        g.set_io_tuples(["mm::A"], [y])
    g.set_io_tuples(["mm::A", "mm::B"], [y])
    with pytest.raises(ValueError, match=r"Number of arguments \(1\) does not match number of inputs \(2"):
        g(a)
    with pytest.raises(RuntimeError, match="Graph already created"):
        g.__enter__()
    with pytest.raises(ValueError, match="inputs.*must be a list or tuple"):
        cudnn.Graph(inputs="mm::A")


def test_not_created_and_not_built():
    g = cudnn.Graph()
    with pytest.raises(RuntimeError, match="Graph not created"):
        g()
    with pytest.raises(RuntimeError, match="not created"):
        g.matmul


@needs_lib
def test_call_inside_with_block_is_rejected():
    a, b = _arrays()
    with cudnn.Graph(io_data_type=FLOAT) as g:
        c = g.matmul(A=a, B=b, name="mm")
        c.set_output(True)
        with pytest.raises(RuntimeError, match="before the context exits"):
            g({"mm::A": a, "mm::B": b})


@needs_lib
def test_exception_in_block_propagates_and_drops_graph():
    with pytest.raises(KeyError):
        with cudnn.Graph(io_data_type=FLOAT) as g:
            raise KeyError("boom")
    with pytest.raises(RuntimeError, match="Graph not created"):
        g()


@needs_lib
def test_workspace_alloc_false_requires_workspace():
    a, b = _arrays()
    with cudnn.Graph(io_data_type=FLOAT, compute_data_type=FLOAT, workspace_alloc=False, inputs=["mm::A", "mm::B"], outputs=["Y"]) as g:
        c = g.matmul(A=a, B=b, name="mm")
        c.set_output(True).set_name("Y")
    with pytest.raises(RuntimeError, match="Need to specify workspace"):
        g(a, b)
    ws = np.empty(max(g.get_workspace_size(), 1), np.uint8)
    np.testing.assert_allclose(g(a, b, workspace=ws), a @ b, rtol=1e-5, atol=1e-5)


@needs_lib
def test_half_io_allocates_float16_output():
    a, b = (x.astype(np.float16) for x in _arrays())
    with cudnn.Graph(io_data_type=cudnn.data_type.HALF, compute_data_type=FLOAT, inputs=["mm::A", "mm::B"], outputs=["mm::C"]) as g:
        g.matmul(A=a, B=b, name="mm").set_output(True)
    out = g(a, b)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=1e-2, atol=1e-2)


def test_torch_outputs_on_gpu():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    x = torch.randn(1, 64, 64, dtype=torch.half, device="cuda")
    w = torch.randn(1, 64, 64, dtype=torch.half, device="cuda")
    with cudnn.Graph(io_data_type=cudnn.data_type.HALF, compute_data_type=FLOAT, inputs=[x, w], outputs=["mm::C"]) as g:
        g.matmul(A=x, B=w, name="mm").set_output(True)
    out = g(x, w)
    assert torch.is_tensor(out) and out.is_cuda
    torch.testing.assert_close(out.float(), (x @ w).float(), atol=1e-2, rtol=1e-2)


class _DeviceArray:
    """A stand-in for a CuPy array: a device buffer known only by its
    __cuda_array_interface__."""

    __cuda_array_interface__ = {"shape": (1, 64, 64), "typestr": "<f2", "data": (1 << 20, False), "version": 3}


@needs_lib
def test_outputs_for_device_arrays_need_torch(monkeypatch):
    # Device arrays other than torch's (CuPy) get torch CUDA outputs, as the
    # frontend's wrapper returns; without torch the output cannot be made on
    # the GPU, and the error says to pass it instead of handing back a host
    # array the GPU cannot write.
    from graph_compiler import _wrapper

    a, b = (x.astype(np.float16) for x in _arrays())
    with cudnn.Graph(io_data_type=cudnn.data_type.HALF, compute_data_type=FLOAT, inputs=["mm::A", "mm::B"], outputs=["mm::C"]) as g:
        c = g.matmul(A=a, B=b, name="mm")
        c.set_output(True)
    monkeypatch.setattr(_wrapper, "_torch", lambda: None)
    with pytest.raises(cudnn.TorchNotAvailableError, match=r"allocates output .*mm::C.* with torch, which is not installed; pass the output in the dict"):
        g._Graph__alloc_like(c, [_DeviceArray()])
    host = g._Graph__alloc_like(c, [a, b])
    assert isinstance(host, np.ndarray) and host.shape == (1, 4, 5)
