"""Executes at shapes other than the graph's own (_variants.py): the
frontend's override_uids/override_shapes/override_strides, and buffers too
small for their tensors on a dynamic-shape graph (a kernel cache, as the
frontend's test_kernel_cache serializes and runs it). CPU reference."""

import numpy as np
import pytest

import cudnn
import graph_compiler as gc
from conftest import needs_lib
from test_plans import mlp_graph

F = gc.data_type.FLOAT


def _mlp_data(batch, rng):
    av = rng.standard_normal((batch, 4, 8)).astype(np.float32)
    bv = rng.standard_normal((1, 8, 6)).astype(np.float32)
    cv = rng.standard_normal((1, 1, 6)).astype(np.float32)
    return av, bv, cv, np.maximum(av @ bv + cv, 0)


@needs_lib
def test_override_shapes_run_the_graph_at_those_shapes():
    g, a, b, bias, y = mlp_graph()
    g.build()
    av, bv, cv, want = _mlp_data(3, np.random.default_rng(0))
    run = dict(override_uids=[a.get_uid(), y.get_uid()], override_shapes=[[3, 4, 8], [3, 4, 6]], override_strides=[[32, 8, 1], [24, 6, 1]])
    assert g.get_workspace_size(**run) == 0
    out = np.full((3, 4, 6), np.nan, np.float32)
    g.execute({a: av, b: bv, bias: cv, y: out}, None, **run)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    # kept and reused: one variant for the one set of shapes
    out[:] = np.nan
    g.execute({a: av, b: bv, bias: cv, y: out}, None, **run)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    assert len(g._shape_variants) == 1
    # the graph itself still runs at its own shapes, with its own tensors
    av1, _, _, want1 = _mlp_data(1, np.random.default_rng(1))
    want1 = np.maximum(av1 @ bv + cv, 0)
    out1 = np.zeros((1, 4, 6), np.float32)
    g.execute({a: av1, b: bv, bias: cv, y: out1})
    np.testing.assert_allclose(out1, want1, rtol=1e-5, atol=1e-5)
    assert a.get_dim() == [1, 4, 8] and y.get_dim() == [1, 4, 6]


@needs_lib
def test_an_output_not_overridden_takes_its_inferred_dims():
    g, a, b, bias, y = mlp_graph()
    g.build()
    av, bv, cv, want = _mlp_data(2, np.random.default_rng(2))
    out = np.zeros((2, 4, 6), np.float32)
    g.execute({a: av, b: bv, bias: cv, y: out}, None, override_uids=[a.get_uid()], override_shapes=[[2, 4, 8]], override_strides=[[32, 8, 1]])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    # a buffer for the graph's own y is now too small, and says so
    with pytest.raises(ValueError, match=r"buffer for .*too small"):
        g.execute({a: av, b: bv, bias: cv, y: np.zeros((1, 4, 6), np.float32)}, None, override_uids=[a.get_uid()], override_shapes=[[2, 4, 8]], override_strides=[[32, 8, 1]])


@needs_lib
def test_override_strides_give_another_layout():
    g, a, b, bias, y = mlp_graph()
    g.build()
    av, bv, cv, want = _mlp_data(1, np.random.default_rng(3))
    # A column-major [4, 8] matrix: element (i, j) at i + 4 * j
    column_major = np.ascontiguousarray(av[0].T)
    strided = np.lib.stride_tricks.as_strided(column_major, shape=(1, 4, 8), strides=(32 * 4, 4, 16))
    out = np.zeros((1, 4, 6), np.float32)
    g.execute({a: strided, b: bv, bias: cv, y: out}, None, override_uids=[1], override_shapes=[[1, 4, 8]], override_strides=[[32, 1, 4]])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


@needs_lib
def test_execute_plan_at_index_with_overrides():
    g, a, b, bias, y = mlp_graph()
    g.create_execution_plans([cudnn.heur_mode.A])
    g.build_plans()
    av, bv, cv, want = _mlp_data(2, np.random.default_rng(4))
    out = np.zeros((2, 4, 6), np.float32)
    run = dict(override_uids=[1], override_shapes=[[2, 4, 8]], override_strides=[[32, 8, 1]])
    assert g.get_workspace_size_plan_at_index(0, **run) == 0
    g.execute_plan_at_index({a: av, b: bv, bias: cv, y: out}, None, 0, **run)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def _kernel_cache_matmul(cache, m, n, k):
    # test_kernel_cache's graph, in f32 for the CPU reference
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, kernel_cache=cache)
    a = g.tensor(name="A", dim=[1, m, k], stride=[m * k, k, 1])
    b = g.tensor(name="B", dim=[1, k, n], stride=[k * n, n, 1])
    c = g.matmul(name="matmul", A=a, B=b)
    c.set_output(True).set_uid(2)
    a.set_uid(0)
    b.set_uid(1)
    return g


@needs_lib
def test_a_dynamic_graph_runs_at_the_shapes_of_smaller_buffers():
    # test_serialize_both_graph_and_kernel_cache: built for [16, 256] x
    # [256, 64] with a kernel cache, run on [8, 128] x [128, 64] buffers
    cache = cudnn.create_kernel_cache()
    g = _kernel_cache_matmul(cache, 16, 64, 256)
    g.build([cudnn.heur_mode.FALLBACK])
    rng = np.random.default_rng(5)
    av, bv = rng.standard_normal((1, 8, 128)).astype(np.float32), rng.standard_normal((1, 128, 64)).astype(np.float32)
    c = np.full((1, 8, 64), np.nan, np.float32)
    g.execute({0: av, 1: bv, 2: c}, np.empty(max(g.get_workspace_size(), 1), np.uint8))
    np.testing.assert_allclose(c, av @ bv, rtol=1e-4, atol=1e-4)
    # the built shapes still run, and a buffer as large as the tensor is read as declared
    av, bv = rng.standard_normal((1, 16, 256)).astype(np.float32), rng.standard_normal((1, 256, 64)).astype(np.float32)
    c = np.zeros((1, 16, 64), np.float32)
    g.execute({0: av, 1: bv, 2: c})
    np.testing.assert_allclose(c, av @ bv, rtol=1e-4, atol=1e-4)
    assert len(g._shape_variants) == 1
    # a second graph at the variant's shapes shares its plans through the cache
    h = _kernel_cache_matmul(cache, 8, 64, 128)
    h.create_execution_plans([cudnn.heur_mode.FALLBACK])
    assert h._module is next(iter(g._shape_variants.values()))._module


@needs_lib
def test_a_static_graph_does_not_follow_its_buffers():
    g = _kernel_cache_matmul(None, 16, 64, 256)
    g.build([cudnn.heur_mode.FALLBACK])
    rng = np.random.default_rng(6)
    av, bv = rng.standard_normal((1, 8, 128)).astype(np.float32), rng.standard_normal((1, 128, 64)).astype(np.float32)
    with pytest.raises(ValueError, match=r"buffer for tensor uid 0 \('A'\) has dims \[1, 8, 128\].*too small"):
        g.execute({0: av, 1: bv, 2: np.zeros((1, 8, 64), np.float32)})


@needs_lib
def test_shapes_the_ops_reject_are_refused_naming_the_tensor():
    g, a, b, bias, y = mlp_graph()
    g.build()
    # K no longer matches B's rows: the matmul's shape rule refuses it
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"cannot run with 'A' \(uid 1\) at dims \[1, 4, 5\].*its shapes at build: 'A' \[1, 4, 8\].*compiler rejects it"):
        g.execute({a: np.zeros((1, 4, 5), np.float32)}, None, override_uids=[1], override_shapes=[[1, 4, 5]], override_strides=[[20, 5, 1]])


@needs_lib
def test_overrides_that_cannot_apply():
    g, a, b, bias, y = mlp_graph()
    g.build()
    av, bv, cv, _ = _mlp_data(1, np.random.default_rng(7))
    pack = {a: av, b: bv, bias: cv, y: np.zeros((1, 4, 6), np.float32)}
    with pytest.raises(ValueError, match=r"override for tensor 'A' \(uid 1\) gives dims \[0, 4, 8\]: dims must be positive"):
        g.execute(pack, None, override_uids=[1], override_shapes=[[0, 4, 8]], override_strides=[[32, 8, 1]])
    with pytest.raises(ValueError, match=r"gives 2 strides \[8, 1\] for 3 dims \[2, 4, 8\]"):
        g.execute(pack, None, override_uids=[1], override_shapes=[[2, 4, 8]], override_strides=[[8, 1]])
    virtual = g._nodes[0].outputs["C"] if "C" in g._nodes[0].outputs else next(iter(g._nodes[0].outputs.values()))
    with pytest.raises(ValueError, match=r"a virtual tensor: only the graph's inputs and outputs have buffers"):
        g.execute(pack, None, override_uids=[virtual.get_uid()], override_shapes=[[2, 4, 6]], override_strides=[[24, 6, 1]])
    # a graph loaded from its text has no ops to rebuild
    loaded = cudnn.pygraph()
    loaded.deserialize(g.serialize())
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"loaded from its text .* cannot be rebuilt at other shapes \('A' \(uid 1\) at dims \[2, 4, 8\]"):
        loaded.execute({1: np.zeros((2, 4, 8), np.float32)}, None, override_uids=[1], override_shapes=[[2, 4, 8]], override_strides=[[32, 8, 1]])


@needs_lib
def test_buffer_shapes_a_graph_cannot_take_leave_it_at_its_own():
    # A reshape's dims are the user's: at a smaller input they no longer
    # fit, so the dynamic graph stays at its own shapes (and says why).
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, is_dynamic_shape_enabled=True)
    x = g.tensor(name="x", dim=[2, 4, 8])
    y = g.reshape(x)
    y.set_dim([2, 32]).set_output(True)
    g.build()
    small = np.zeros((1, 4, 8), np.float32)
    with pytest.warns(cudnn.ShapeVariantWarning, match=r"(?s)cannot run with .x. \(uid \d+\) at dims \[1, 4, 8\].*a reshape keeps the element count.*running it at its own shapes"):
        with pytest.raises(ValueError, match=r"buffer for tensor uid \d+ \('x'\).*too small"):
            g.execute({x: small, y: np.zeros((2, 32), np.float32)})
    # asked for by override, the same shapes are an error
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"cannot run with 'x'"):
        g.execute({x: small, y: np.zeros((2, 32), np.float32)}, None, override_uids=[x.get_uid()], override_shapes=[[1, 4, 8]], override_strides=[[32, 8, 1]])
    # at its own shapes it runs
    xv = np.arange(64, dtype=np.float32).reshape(2, 4, 8)
    out = np.zeros((2, 32), np.float32)
    g.execute({x: xv, y: out})
    np.testing.assert_array_equal(out, xv.reshape(2, 32))


@needs_lib
def test_a_variant_keeps_the_plan_the_caller_chose(monkeypatch):
    from test_plans import FakeGpuPlans

    fake = FakeGpuPlans().install(monkeypatch)
    g, a, b, bias, y = mlp_graph()
    g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    g.select_plan(2)  # eng7, 4096 workspace bytes
    g.build_plans()
    run = dict(override_uids=[1], override_shapes=[[2, 4, 8]], override_strides=[[32, 8, 1]])
    assert g.get_workspace_size(**run) == 4096
    variant = next(iter(g._shape_variants.values()))
    assert variant.get_plan_name_at_index(variant._plan_index) == "eng7_k3=4_k4=1"
    # execute_plan_at_index's index is the graph's, found in the variant by name
    assert g.get_workspace_size_plan_at_index(0, **run) == 0
    # a plan the variant is not offered is named
    fake.plans = fake.plans[:2] + [dict(engine=9, knobs=[], ws=0, behavior=[], numeric=[])]
    h, a2, *_ = mlp_graph()
    h.create_execution_plans([cudnn.heur_mode.A])
    h.select_plan(2)
    h.build_plans()
    fake.plans.pop()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"plan 2 \('eng9'\) of graph 'test_graph' is not offered at these shapes; the plans offered are: 'eng0_k2=1', 'eng5'"):
        h.get_workspace_size(**run)


@needs_lib
def test_a_workspace_sized_for_the_graph_is_not_lent_to_a_larger_variant():
    from graph_compiler import _variants

    g, a, b, bias, y = mlp_graph()
    g.build()
    variant = _variants.variant(g, {1: ([2, 4, 8], [32, 8, 1])})

    class Plan:
        def __init__(self, workspace):
            self.workspace = workspace

    variant._plans, g._plans = [Plan(4096)], [Plan(1024)]
    small, large = np.empty(1024, np.uint8), np.empty(4096, np.uint8)
    assert _variants.workspace_for(g, variant, small, 0) is None  # the runtime's own
    assert _variants.workspace_for(g, variant, large, 0) is large
    assert _variants.workspace_for(g, variant, 0xBEEF000, 0) is None  # a raw pointer sized for 1024
    assert _variants.workspace_for(g, variant, None, 0) is None


@needs_lib
def test_bit_packed_masks_are_not_read_as_smaller_shapes():
    # A boolean mask bit-packed along channels ([1, 8, 2, 2] as [1, 1, 2, 2]
    # bytes) on a dynamic graph: its bytes are the declared tensor, not a
    # smaller one.
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, is_dynamic_shape_enabled=True)
    x = g.tensor(name="x", dim=[1, 8, 2, 2], stride=[32, 1, 16, 8])
    z = g.tensor(name="z", dim=[1, 8, 2, 2], stride=[32, 1, 16, 8])
    m = g.tensor(name="m", dim=[1, 8, 2, 2], stride=[32, 1, 16, 8], data_type=cudnn.data_type.BOOLEAN)
    out = g.binary_select(x, z, m)
    out.set_output(True)
    g.build()
    xv = np.arange(32, dtype=np.float32).reshape(1, 2, 2, 8).transpose(0, 3, 1, 2)
    zv = np.zeros((1, 2, 2, 8), np.float32).transpose(0, 3, 1, 2)
    bits = np.full((1, 2, 2, 1), 0x55, np.uint8).transpose(0, 3, 1, 2)  # channels 0, 2, 4, 6
    o = np.zeros((1, 2, 2, 8), np.float32).transpose(0, 3, 1, 2)
    g.execute({x: xv, z: zv, m: bits, out: o})
    want = np.where((np.arange(8) % 2 == 0)[None, :, None, None], xv, 0)
    np.testing.assert_array_equal(o, want)
    assert not getattr(g, "_shape_variants", None)


@needs_lib
def test_outputs_allocated_at_the_built_shape_take_the_smaller_result():
    # Attention built for [2, 2, 16, 8] on a dynamic graph, run on [1, 2, 8, 8]
    # inputs with O's buffer allocated at the built shape: O's dims (set by
    # the user for the built shape) follow the inputs, its strides stay, so
    # the result lands in the buffer's first batch and positions.
    H = cudnn.data_type.HALF
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F, is_dynamic_shape_enabled=True)
    b, h, s, d = 2, 2, 16, 8
    q, k, v = (g.tensor(name=n, dim=[b, h, s, d], stride=[h * s * d, s * d, d, 1]) for n in "qkv")
    o, _ = g.sdpa(q=q, k=k, v=v, attn_scale=0.3, use_causal_mask=True, generate_stats=False)
    o.set_output(True).set_dim([b, h, s, d]).set_stride([h * s * d, s * d, d, 1])
    g.build([cudnn.heur_mode.A])
    rng = np.random.default_rng(8)
    n = 8
    qv, kv, vv = (rng.standard_normal((1, h, n, d)).astype(np.float16) for _ in range(3))
    out = np.full((b, h, s, d), 7.0, np.float16)
    with pytest.warns(cudnn.BufferViewWarning, match=r"has dims \[2, 2, 16, 8\] .* the graph declares dims \[1, 2, 8, 8\] and strides \[256, 128, 8, 1\]"):
        g.execute({q: qv, k: kv, v: vv, o: out})
    scores = (qv.astype(np.float32) @ kv.astype(np.float32).transpose(0, 1, 3, 2)) * 0.3
    scores = np.where(np.triu(np.ones((n, n)), 1)[None, None] > 0, -np.inf, scores)
    p = np.exp(scores - scores.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    np.testing.assert_allclose(out[:1, :, :n].astype(np.float32), p @ vv.astype(np.float32), atol=2e-3)
    assert np.all(out[1:] == 7.0) and np.all(out[:, :, n:] == 7.0)  # the rest of the buffer is the caller's
    assert o.get_dim() == [b, h, s, d]  # the graph's own tensor is unchanged


@needs_lib
def test_dims_the_user_chose_over_the_rules_suggestion_stay():
    # moe_grouped_matmul_bwd's dweight: the rule suggests [offsets, H, N]
    # (3 offsets here: E + 1 boundaries), the user says 2 experts. A
    # variant at fewer tokens keeps the user's experts.
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    dy = g.tensor(name="dy", dim=[1, 8, 3])
    tok = g.tensor(name="tok", dim=[1, 8, 4])
    off = g.tensor(name="off", dim=[3, 1, 1], data_type=cudnn.data_type.INT32)
    dw = g.moe_grouped_matmul_bwd(dy, tok, off)
    dw.set_output(True).set_dim([2, 4, 3]).set_stride([12, 3, 1])
    g.build()
    rng = np.random.default_rng(9)
    dyv, tv = rng.standard_normal((1, 6, 3)).astype(np.float32), rng.standard_normal((1, 6, 4)).astype(np.float32)
    offsets = np.array([0, 2, 6], np.int32).reshape(3, 1, 1)
    out = np.zeros((2, 4, 3), np.float32)
    run = dict(override_uids=[dy.get_uid(), tok.get_uid()], override_shapes=[[1, 6, 3], [1, 6, 4]], override_strides=[[18, 3, 1], [24, 4, 1]])
    g.execute({dy: dyv, tok: tv, off: offsets, dw: out}, None, **run)
    want = np.stack([tv[0, 0:2].T @ dyv[0, 0:2], tv[0, 2:6].T @ dyv[0, 2:6]])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    assert next(iter(g._shape_variants.values()))._tensor_by_uid[dw.get_uid()].get_dim() == [2, 4, 3]
