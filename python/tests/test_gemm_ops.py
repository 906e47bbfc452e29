"""cudnn.gemm / cudnn.gemm.ops: the package imports without torch, the names
that need the frontend's CuTe DSL kernels raise ImportError, and the graphs
behind swiglu_mlp (forward and backward) equal numpy on the CPU reference,
in float32 and in bf16 (uint16 bits)."""

import importlib
import os
import subprocess
import sys

import numpy as np
import pytest

from conftest import needs_lib

pytestmark = needs_lib

# the module itself: ``import cudnn.gemm.ops.swiglu_mlp as m`` gives the
# function, which cudnn.gemm.ops binds under that name (as the frontend does)
ops = importlib.import_module("cudnn.gemm.ops.swiglu_mlp")

RNG = np.random.default_rng(7)


def _weights(M, H, interm, dtype=np.float64):
    x = RNG.standard_normal((M, H)).astype(dtype)
    Wg = (RNG.standard_normal((interm, H)) * 0.3).astype(dtype)
    Wu = (RNG.standard_normal((interm, H)) * 0.3).astype(dtype)
    Wd = (RNG.standard_normal((H, interm)) * 0.3).astype(dtype)
    return x, Wg, Wu, Wd


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _ref_forward(x, Wg, Wu, Wd):
    gate, up = x @ Wg.T, x @ Wu.T
    h = gate * _sigmoid(gate) * up
    return h @ Wd.T, h, gate, up


def _ref_backward(dout, x, Wg, Wu, Wd):
    """The analytic gradients of sum(out * dout)."""
    _, h, gate, up = _ref_forward(x, Wg, Wu, Wd)
    s = _sigmoid(gate)
    dh = dout @ Wd
    dup = dh * gate * s
    dgate = dh * up * (s + gate * s * (1.0 - s))
    return dgate @ Wg + dup @ Wu, dgate.T @ x, dup.T @ x, dout.T @ h


def _to_bf16(a):
    """float32 -> bf16 bits (round to nearest even)."""
    bits = np.ascontiguousarray(a, np.float32).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)


def _from_bf16(b):
    return (np.asarray(b).astype(np.uint32) << 16).view(np.float32)


def test_import_needs_no_torch_and_a_call_names_torch():
    # torch blocked in a fresh interpreter (None in sys.modules: import fails)
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from cudnn.gemm.ops.swiglu_mlp import swiglu_mlp, _swiglu_act\n"
        "import cudnn.gemm, cudnn.gemm.ops\n"
        "assert cudnn.gemm.ops.swiglu_mlp is swiglu_mlp and cudnn.gemm.swiglu_mlp is swiglu_mlp\n"
        "try:\n"
        "    swiglu_mlp(None, None, None, None)\n"
        "except ImportError as e:\n"
        "    print('ImportError:', e)\n"
    )
    env = dict(os.environ, PYTHONPATH=":".join(sys.path))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "ImportError:" in done.stdout and "torch" in done.stdout


def test_frontend_names_resolve_or_say_why_not():
    import cudnn.gemm
    import cudnn.gemm.ops

    assert cudnn.gemm.ops.swiglu_mlp is ops.swiglu_mlp
    assert set(cudnn.gemm.__all__) >= {"swiglu_mlp", "swiglu_moe", "moe_grouped_matmul", "situ_mlp", "mhc_projection_backward"}
    for name in ("swiglu_moe", "moe_grouped_matmul", "situ_mlp"):
        with pytest.raises(ImportError, match=name):
            getattr(cudnn.gemm.ops, name)
        with pytest.raises(ImportError, match=name):
            getattr(cudnn.gemm, name)
    with pytest.raises(ImportError, match="CuTe DSL"):
        from cudnn.gemm import MhcProjectionBackward  # noqa: F401
    with pytest.raises(AttributeError):
        cudnn.gemm.not_a_name


def test_swiglu_act_float32_equals_numpy():
    x, Wg, Wu, Wd = (a.astype(np.float32) for a in _weights(6, 16, 24))
    h, gate, up = ops._swiglu_act(x, Wg, Wu)
    _, h_ref, gate_ref, up_ref = _ref_forward(*(a.astype(np.float64) for a in (x, Wg, Wu, Wd)))
    assert h.shape == gate.shape == up.shape == (6, 24)
    np.testing.assert_allclose(gate, gate_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(up, up_ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(h, h_ref, rtol=1e-5, atol=1e-5)
    # the h-only graph: same h, no pre-activations
    h_only, g_none, u_none = ops._swiglu_act(x, Wg, Wu, save_preacts=False)
    assert g_none is None and u_none is None
    np.testing.assert_allclose(h_only, h_ref, rtol=1e-5, atol=1e-5)


def test_weights_enter_as_transposed_views_and_graphs_are_cached():
    x, Wg, Wu, _ = (a.astype(np.float32) for a in _weights(3, 8, 10))
    ops._swiglu_act(x, Wg, Wu)
    count = len(ops._GRAPHS)
    built = [b for k, b in ops._GRAPHS.items() if k[0] == "swiglu" and k[1][0][1][0] == (1, 3, 8)]
    assert len(built) == 1
    wg = built[0].inputs["wg"]
    assert wg.get_dim() == [1, 8, 10] and wg.get_stride()[1:] == [1, 8]  # Wg^T, column-major: no copy
    ops._swiglu_act(x + 1, Wg, Wu)  # same dims/strides/type: the same graph
    assert len(ops._GRAPHS) == count
    ops._swiglu_act(x[:2], Wg, Wu)  # another M: another graph
    assert len(ops._GRAPHS) == count + 1


def test_mm_with_strided_operands():
    a = RNG.standard_normal((7, 5)).astype(np.float32)
    b = RNG.standard_normal((9, 7)).astype(np.float32)
    c = ops._mm(a.T, b.T)  # [5, 7] @ [7, 9], both transposed views
    np.testing.assert_allclose(c, a.T.astype(np.float64) @ b.T, rtol=1e-5, atol=1e-5)


def test_forward_and_backward_graphs_equal_numpy_gradients():
    x, Wg, Wu, Wd = _weights(5, 12, 20)
    dout = RNG.standard_normal((5, 12))
    f32 = [a.astype(np.float32) for a in (dout, x, Wg, Wu, Wd)]
    out, h, gate, up = ops._forward(*f32[1:])
    np.testing.assert_allclose(out, _ref_forward(x, Wg, Wu, Wd)[0], rtol=1e-4, atol=1e-4)
    grads = ops._backward(f32[0], f32[1], f32[2], f32[3], f32[4], h, gate, up)
    refs = _ref_backward(dout, x, Wg, Wu, Wd)
    for name, got, want in zip(("dx", "dWg", "dWu", "dWd"), grads, refs):
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)


def test_numpy_gradients_match_finite_differences():
    # the analytic reference the backward test uses, against central
    # differences of the float64 forward
    x, Wg, Wu, Wd = _weights(3, 4, 6)
    dout = RNG.standard_normal((3, 4))
    args = [x, Wg, Wu, Wd]

    def loss(values):
        return float(np.sum(_ref_forward(*values)[0] * dout))

    refs = _ref_backward(dout, *args)
    eps = 1e-6
    for i, grad in enumerate(refs):
        numeric = np.zeros_like(args[i])
        for idx in np.ndindex(*args[i].shape):
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[i][idx] += eps
            minus[i][idx] -= eps
            numeric[idx] = (loss(plus) - loss(minus)) / (2 * eps)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-6)


def test_bf16_forward_and_backward_on_bf16_buffers():
    x, Wg, Wu, Wd = _weights(4, 16, 32, np.float32)
    dout = RNG.standard_normal((4, 16)).astype(np.float32)
    bits = [_to_bf16(a) for a in (dout, x, Wg, Wu, Wd)]
    dout_q, x_q, Wg_q, Wu_q, Wd_q = (_from_bf16(b).astype(np.float64) for b in bits)

    out, h, gate, up = ops._forward(*bits[1:])
    assert out.dtype == np.uint16 and out.shape == (4, 16)
    # gate/up: FLOAT accumulation, one rounding to bf16
    _, _, gate_ref, up_ref = _ref_forward(x_q, Wg_q, Wu_q, Wd_q)
    np.testing.assert_allclose(_from_bf16(gate), gate_ref, rtol=2**-8, atol=1e-6)
    np.testing.assert_allclose(_from_bf16(up), up_ref, rtol=2**-8, atol=1e-6)
    # h and out from the bf16-rounded gate/up and h, as the graphs round them
    g_q, u_q = _from_bf16(gate).astype(np.float64), _from_bf16(up).astype(np.float64)
    h_ref = g_q * _sigmoid(g_q) * u_q
    np.testing.assert_allclose(_from_bf16(h), h_ref, rtol=2**-7, atol=1e-3)
    h_q = _from_bf16(h).astype(np.float64)
    np.testing.assert_allclose(_from_bf16(out), h_q @ Wd_q.T, rtol=2**-7, atol=1e-2)
    # the h-only graph rounds gate/up as the one that writes them: the same h
    h_only = ops._swiglu_act(bits[1], bits[2], bits[3], save_preacts=False)[0]
    np.testing.assert_array_equal(h_only, h)

    grads = ops._backward(bits[0], bits[1], bits[2], bits[3], bits[4], h, gate, up)
    refs = _ref_backward(dout_q, x_q, Wg_q, Wu_q, Wd_q)
    for name, got, want in zip(("dx", "dWg", "dWu", "dWd"), grads, refs):
        assert got.dtype == np.uint16 and got.shape == want.shape, name
        got = _from_bf16(got)
        # bf16 storage of dgate/dup between the graphs: relative to the scale
        assert np.abs(got - want).max() <= 2e-2 * np.abs(want).max(), name


class _Ctx:
    """The autograd context the Function's forward and backward use."""

    def save_for_backward(self, *tensors):
        self.saved_tensors = tensors


def test_autograd_function_forward_backward_on_3d_input(monkeypatch):
    # the Function's own forward/backward (reshapes, saved tensors, gradient
    # order), driven with numpy buffers: a stand-in torch supplies only the
    # autograd.Function base class
    fake_torch = type("torch", (), {"autograd": type("autograd", (), {"Function": object})})
    monkeypatch.setattr(ops, "_torch", lambda: fake_torch)
    monkeypatch.setattr(ops, "_FUNCTION", None)
    fn = ops._function()
    x, Wg, Wu, Wd = _weights(6, 8, 16)
    x3 = x.reshape(1, 6, 8)
    dout3 = RNG.standard_normal((1, 6, 8))
    ctx = _Ctx()
    out = fn.forward(ctx, *(a.astype(np.float32) for a in (x3, Wg, Wu, Wd)))
    assert out.shape == (1, 6, 8)
    np.testing.assert_allclose(out.reshape(6, 8), _ref_forward(x, Wg, Wu, Wd)[0], rtol=1e-4, atol=1e-4)
    # an expanded (zero-stride) gradient, as out.sum() gives
    dout_f = np.broadcast_to(dout3[:, :1, :].astype(np.float32), (1, 6, 8))
    grads = fn.backward(ctx, dout_f)
    refs = _ref_backward(np.broadcast_to(dout3[0, :1, :], (6, 8)), x, Wg, Wu, Wd)
    assert grads[0].shape == (1, 6, 8)
    for name, got, want in zip(("dx", "dWg", "dWu", "dWd"), (grads[0].reshape(6, 8),) + tuple(grads[1:]), refs):
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4, err_msg=name)
