"""Programs written for the cuDNN frontend's Python package use names,
keywords, defaults and return arities this package must answer the same way:
backend_version, the cudnn.graph/jit/graph_cache helpers, torch dtypes,
the sdpa options and arity, uid 0, the enums and helper objects, heuristics
modes, check_support, the workspace and override arguments of execute."""

import ctypes
import json
import warnings

import numpy as np
import re

import pytest

import cudnn
import graph_compiler as gc
from conftest import needs_lib
from graph_compiler import _capi, _plans, _version
from test_plans import FakeGpuPlans, mlp_graph

F = gc.data_type.FLOAT
BF16 = gc.data_type.BFLOAT16


class FakeTorchDtype:
    """Stands in for a torch dtype (torch is not installed here): the
    package maps framework dtypes by name, as str() spells them."""

    def __init__(self, name):
        self.name_ = name

    def __str__(self):
        return f"torch.{self.name_}"

    __repr__ = __str__


def _cudnn_loadable():
    try:
        lib = ctypes.CDLL("libcudnn.so.9")
    except OSError:
        return 0
    lib.cudnnGetVersion.restype = ctypes.c_size_t
    return int(lib.cudnnGetVersion())


# ---- backend_version --------------------------------------------------------------


def test_backend_version_is_the_loaded_cudnn(monkeypatch):
    monkeypatch.setattr(_version, "_cached", None)
    loaded = _cudnn_loadable()
    if not loaded:
        pytest.skip("no libcudnn.so.9 to load on this machine")
    assert cudnn.backend_version() == loaded
    v = loaded
    assert cudnn.backend_version_string() == f"{v // 10000}.{(v % 10000) // 100}.{v % 100}"


def test_backend_version_falls_back_to_the_build_headers(monkeypatch):
    monkeypatch.setattr(_version, "_cached", None)
    monkeypatch.setattr(_version, "_library_version", lambda: 0)
    headers = _version._header_version()
    if not headers:
        pytest.skip("no cuDNN headers on this machine")
    assert cudnn.backend_version() == headers and headers >= 90000
    monkeypatch.setattr(_version, "_cached", None)
    monkeypatch.setattr(_version, "_header_version", lambda: 0)
    assert cudnn.backend_version() == 0 and cudnn.backend_version_string() == "0.0.0"


# ---- framework dtypes -------------------------------------------------------------


def test_torch_dtypes_wherever_a_data_type_is_taken():
    half, bf16, f32 = (FakeTorchDtype(n) for n in ("float16", "bfloat16", "float32"))
    g = cudnn.pygraph(io_data_type=half, intermediate_data_type=f32, compute_data_type=f32)
    assert (g.io_data_type, g.intermediate_data_type, g.compute_data_type) == (gc.data_type.HALF, F, F)
    x = g.tensor(name="x", dim=[2, 4], stride=[4, 1], data_type=bf16)
    assert x.get_data_type() is gc.data_type.BFLOAT16
    x.set_data_type(FakeTorchDtype("float8_e4m3fn"))
    assert x.get_data_type() is gc.data_type.FP8_E4M3
    for name, want in [("int32", gc.data_type.INT32), ("uint8", gc.data_type.UINT8), ("bool", gc.data_type.BOOLEAN), ("float8_e5m2", gc.data_type.FP8_E5M2)]:
        assert x.set_data_type(FakeTorchDtype(name)).get_data_type() is want
    x.set_data_type(half)
    y = g.relu(x, compute_data_type=f32)
    assert y.producer[0].compute_data_type is F
    assert g.tensor(dim=[1], data_type=np.float32).get_data_type() is F  # numpy dtypes too
    with pytest.raises(TypeError, match=r"set_data_type of tensor 'x': no available conversion from type torch.complex64 to a library type"):
        x.set_data_type(FakeTorchDtype("complex64"))


# ---- cudnn.graph, jit, graph_cache --------------------------------------------------


def test_graph_context_manager_yields_graph_and_list():
    handle = cudnn.create_handle()
    with cudnn.graph(handle) as (g, extra):
        assert isinstance(g, cudnn.pygraph) and extra == []
        x = g.tensor(name="x", dim=[2, 3], stride=[3, 1])
    # the frontend's defaults: io HALF, intermediate and compute FLOAT
    assert (g.name, x.get_data_type(), g.intermediate_data_type, g.compute_data_type) == ("cudnn_graph", gc.data_type.HALF, F, F)
    assert g._handle is handle
    with cudnn.graph(handle, name="n", io_data_type=F) as (g2, _):
        pass
    assert (g2.name, g2.io_data_type) == ("n", F)


def test_graph_cache_keys_and_bounds():
    calls = []

    @cudnn.graph_cache(key_fn=lambda a, b=0: (a, b), maxsize=2)
    def make(a, b=0):
        calls.append((a, b))
        return object()

    first = make(1)
    assert make(1) is first and calls == [(1, 0)]
    make(2)
    make(3)  # evicts the oldest entry, (1, 0)
    assert make(1) is not first and calls == [(1, 0), (2, 0), (3, 0), (1, 0)]


@needs_lib
def test_jit_builds_once_and_returns_uids():
    handle = cudnn.create_handle()
    made = []

    @cudnn.jit(heur_modes=[cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    @cudnn.graph_cache(key_fn=lambda handle, shape: tuple(shape))
    def make(handle, shape):
        with cudnn.graph(handle, io_data_type=F) as (g, _):
            X = g.tensor(name="X", dim=shape, stride=[shape[1], 1], uid=7)
            Y = g.relu(X).set_output(True).set_uid(8)
        made.append(shape)
        return g, [X, Y]

    g, uids = make(handle, [2, 4])
    assert uids == [7, 8] and g.get_execution_plan_count() >= 1 and g._is_built
    g2, _ = make(handle, [2, 4])
    assert g2 is g and made == [[2, 4]]
    x = np.array([[-1, 2, -3, 4], [5, -6, 7, -8]], np.float32)
    y = np.empty_like(x)
    g.execute({7: x, 8: y}, None, handle=handle)
    np.testing.assert_array_equal(y, np.maximum(x, 0))


# ---- sdpa: options and arity --------------------------------------------------------


def _qkv(g, s=8, d=4):
    return [g.tensor(name=n, dim=[1, 2, s, d], stride=[2 * s * d, s * d, d, 1]) for n in "qkv"]


def test_sdpa_returns_o_and_stats_only():
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    smax = g.tensor(name="smax", dim=[1, 2, 8, 1], data_type=F)
    ssum = g.tensor(name="ssum", dim=[1, 2, 8, 1], data_type=F)
    out = g.sdpa(q, k, v, generate_stats=True, attn_scale=0.5, score_max=smax, score_sum_exp=ssum)
    assert len(out) == 2 and out[1] is not None
    assert smax.producer[1] == "score_max" and ssum.producer[1] == "score_sum_exp"
    o, stats = g.sdpa(q, k, v, is_inference=True)
    assert stats is None
    do = g.tensor(name="dO", dim=[1, 2, 8, 4])
    dbias_in = g.tensor(name="bias", dim=[1, 2, 8, 8])
    dbias = g.tensor(name="dbias", dim=[1, 2, 8, 8])
    grads = g.sdpa_backward(q, k, v, out[0], do, out[1], bias=dbias_in, dBias=dbias)
    assert len(grads) == 3 and dbias.producer[1] == "dBias"
    g8 = cudnn.pygraph(io_data_type=gc.data_type.FP8_E4M3, intermediate_data_type=F, compute_data_type=F)
    q8, k8, v8 = _qkv(g8)
    scales = [g8.tensor(dim=[1, 1, 1, 1], data_type=F) for _ in range(6)]
    assert len(g8.sdpa_fp8(q8, k8, v8, *scales, generate_stats=False)) == 4


def test_sdpa_implementation_unfuse_fma_sliding_window():
    assert [m.name for m in cudnn.attention_implementation] == ["AUTO", "COMPOSITE", "UNIFIED"]
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # AUTO and the defaults warn about nothing
        o, _ = g.sdpa(q, k, v, generate_stats=False, implementation=cudnn.attention_implementation.AUTO, unfuse_fma=False)
    with pytest.warns(UserWarning, match=r"implementation=attention_implementation.UNIFIED.*recorded on node 'sdpa.1', not applied"):
        o2, _ = g.sdpa(q, k, v, generate_stats=False, implementation=cudnn.attention_implementation.UNIFIED)
    assert o2.producer[0].params["implementation"] is cudnn.attention_implementation.UNIFIED
    with pytest.warns(UserWarning, match=r"unfuse_fma=True"):
        g.sdpa(q, k, v, generate_stats=False, unfuse_fma=True)
    o3, _ = g.sdpa(q, k, v, generate_stats=False, sliding_window=4, use_causal_mask=True)
    o4, _ = g.sdpa(q, k, v, generate_stats=False, sliding_window_length=4, use_causal_mask=True)
    for t in (o, o2, o3, o4):
        t.set_output(True)
    text = g.to_mlir()
    assert text.count("sliding_window_length = 4") == 2
    with pytest.raises(RuntimeError, match=r"sliding window and left_bound cannot be set at the same time"):
        g.sdpa(q, k, v, generate_stats=False, sliding_window_length=4, diagonal_band_left_bound=3)


@needs_lib
def test_sdpa_backward_deterministic_bars_nondeterministic_plans(monkeypatch):
    g = cudnn.pygraph(io_data_type=BF16, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    o, st = g.sdpa(q, k, v, generate_stats=True)
    do = g.tensor(name="dO", dim=[1, 2, 8, 4])
    dq, dk, dv = g.sdpa_backward(q, k, v, o, do, st, use_deterministic_algorithm=True)
    assert dq.producer[0].params["use_deterministic_algorithm"] is True
    for t in (dq, dk, dv):
        t.set_output(True)
    # The compiler gets it too (the GPU lowering writes dQ without an f32
    # accumulator); the forward has no such option.
    ops = {line.split("=", 1)[1].split()[0]: line for line in g.to_mlir().splitlines() if " = sdpa" in line}
    assert "use_deterministic_algorithm" in ops["sdpa_backward"]
    assert "use_deterministic_algorithm" not in ops["sdpa"]
    nondet = _plans.PlanConfig(0, "nondeterministic", numeric_notes=(cudnn.numerical_note.NONDETERMINISTIC,))
    monkeypatch.setattr(_plans, "propose", lambda module, heuristics: [nondet, _plans.PlanConfig(0, "deterministic")])
    g.build([cudnn.heur_mode.A])
    assert g.get_plan_name_at_index(g._plan_index) == "deterministic"
    with pytest.raises(ValueError, match=r"plan 0 \('nondeterministic'\) is excluded"):
        g.build_plan_at_index(0)


@needs_lib
def test_sdpa_stats_use_log2_scales_stats():
    rng = np.random.default_rng(3)
    # bf16 raw bits (the f32 values' upper halves)
    data = [(rng.standard_normal((1, 2, 8, 4)).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16) for _ in range(3)]

    def run(log2):
        g = cudnn.pygraph(io_data_type=BF16, intermediate_data_type=F, compute_data_type=F)
        q, k, v = _qkv(g)
        o, st = g.sdpa(q, k, v, generate_stats=True, stats_use_log2=log2)
        o.set_output(True)
        st.set_output(True)
        out, stats = np.empty((1, 2, 8, 4), np.uint16), np.empty((1, 2, 8, 1), np.float32)
        g.execute({q: data[0], k: data[1], v: data[2], o: out, st: stats})
        return out, stats

    o_e, st_e = run(False)
    o_2, st_2 = run(True)
    np.testing.assert_array_equal(o_2, o_e)
    assert np.all(np.abs(st_e) > 0.1)
    np.testing.assert_allclose(st_2, st_e * np.log2(np.e), rtol=1e-5)


@needs_lib
def test_sdpa_stats_use_log2_with_ragged_stats_names_the_rule():
    # test_mhas_v2 draws stats_use_log2 with ragged Stats: the base-2 Stats
    # are a multiply after the attention, which cannot write a packed layout
    g = cudnn.pygraph(io_data_type=BF16, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    lens = g.tensor(dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=cudnn.data_type.INT32)
    offsets = g.tensor(dim=[2, 1, 1, 1], stride=[1, 1, 1, 1], data_type=cudnn.data_type.INT64)
    o, st = g.sdpa(q, k, v, generate_stats=True, stats_use_log2=True, use_padding_mask=True, seq_len_q=lens, seq_len_kv=lens)
    o.set_output(True)
    st.set_output(True).set_ragged_offset(offsets)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="writes it with stats_use_log2=True, a pointwise multiply after the attention"):
        g.build([cudnn.heur_mode.A])


# ---- uid 0 ----------------------------------------------------------------------------


def test_uid_zero_is_a_uid():
    g = cudnn.pygraph(io_data_type=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no note: the compiler takes uid 0 as it is
        x = g.tensor(name="x", dim=[2, 2], stride=[2, 1], uid=0)
    y = g.relu(x).set_output(True)
    assert x.get_uid() == 0 and y.get_uid() == 1
    assert g.query_tensor_attributes_of_uid(0) is x
    assert 'graph.name = "x", graph.uid = 0 : i64' in g.to_mlir()
    # uid 1 taken by the user: the auto-numbered holder moves, 0 stays 0
    z = g.tensor(name="z", dim=[2, 2], uid=1)
    g.add(x, z).set_output(True)
    text = g.to_mlir()
    assert 'graph.name = "z", graph.uid = 1 : i64' in text and 'graph.name = "x", graph.uid = 0 : i64' in text
    assert y.get_uid() not in (0, 1)
    with pytest.raises(ValueError, match="uid 0 is already user-assigned to tensor 'x'"):
        g.tensor(name="w", dim=[2, 2], uid=0)


@needs_lib
def test_uid_zero_executes_keyed_by_zero():
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 2], stride=[2, 1], uid=0)
    y = g.neg(x).set_output(True).set_uid(5)
    g.build([cudnn.heur_mode.A])
    # the compiler itself reports uid 0 (no spare uid in between)
    ins, outs = g._io_info
    assert [i["uid"] for i in ins] == [0] and [o["uid"] for o in outs] == [5]
    a = np.array([[1, -2], [3, 4]], np.float32)
    out = np.empty_like(a)
    g.execute({0: a, 5: out})
    np.testing.assert_array_equal(out, -a)
    assert [t.get_uid() for t in (x, y)] == [0, 5]
    # keyed by tensor or by name: the same buffer
    out2 = np.empty_like(a)
    g.execute({x: a, y: out2})
    np.testing.assert_array_equal(out2, -a)
    # a missing uid-0 buffer is named as uid 0
    with pytest.raises(Exception, match="uid 0"):
        g.execute({5: out})


@needs_lib
def test_uid_zero_on_an_output_and_a_scalar():
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 2], stride=[2, 1], uid=3)
    s = g.tensor(name="s", dim=[1, 1], stride=[1, 1], is_pass_by_value=True, uid=7)
    y = g.mul(x, s).set_output(True).set_uid(0)
    g.build([cudnn.heur_mode.A])
    a = np.array([[1, -2], [3, 4]], np.float32)
    out = np.empty_like(a)
    g.execute({3: a, 7: np.full((1, 1), 2.0, np.float32), 0: out})
    np.testing.assert_array_equal(out, 2 * a)
    assert g.query_tensor_attributes_of_uid(0) is y


# ---- enums and helper objects -----------------------------------------------------------


def test_frontend_module_names():
    for name in (
        "backend_version", "backend_version_string", "get_last_error_string", "norm_forward_phase", "reduction_mode", "behavior_note",
        "knob_type", "create_handle", "create_kernel_cache", "create_device_properties", "get_stream", "numerical_note", "build_plan_policy",
        "data_type", "tensor_reordering", "heur_mode", "tensor", "knob", "cudnnGraphNotSupportedError", "diagonal_alignment",
        "attention_implementation", "moe_grouped_matmul_mode", "scalar_type", "reshape_mode", "set_stream", "destroy_handle",
        "pygraph", "graph", "jit", "graph_cache", "Tensor",
    ):
        assert hasattr(cudnn, name), name
    assert cudnn.numeric_note is cudnn.numerical_note
    assert cudnn.reshape_mode.VIEW_ONLY.name == "VIEW_ONLY" and [m.name for m in cudnn.scalar_type] == ["RUNTIME_PARAM", "COMPILE_TIME_CONST"]
    assert issubclass(cudnn.cudnnGraphNotSupportedError, Exception)
    kn = cudnn.knob(cudnn.knob_type.TILE_M, 4, 1, 1)
    assert (kn.type, kn.max_value, kn.min_value, kn.stride) == (cudnn.knob_type.TILE_M, 4, 1, 1)
    assert json.loads(repr(kn)) == {"knob_type": "TILE_M", "max_value": 4, "min_value": 1, "stride": 1}
    assert cudnn.knob().type is cudnn.knob_type.NOT_SET
    assert isinstance(cudnn.get_last_error_string(), str)


@pytest.mark.parametrize(
    "name",
    "data_type tensor_reordering scalar_type reshape_mode knob_type norm_forward_phase heur_mode convolution_mode reduction_mode "
    "build_plan_policy numerical_note behavior_note diagonal_alignment attention_implementation moe_grouped_matmul_mode".split(),
)
def test_enums_round_trip_through_int(name):
    cls = getattr(cudnn, name)
    members = list(cls.__members__.values())
    restored = json.loads(json.dumps([int(m) for m in members]))
    assert restored == [m.value for m in members]
    for m, v in zip(members, restored):
        assert cls(v) is m and not isinstance(m, int)


def test_tensor_scalar_with_scalar_type():
    g = cudnn.pygraph(io_data_type=F)
    a = g.tensor_scalar(0.5, cudnn.scalar_type.COMPILE_TIME_CONST)
    b = g.tensor_scalar(3, cudnn.scalar_type.RUNTIME_PARAM)
    c = g.tensor_scalar(2.0, F)  # a data type, as this package also takes
    assert (a.get_data_type(), b.get_data_type(), c.get_data_type()) == (F, gc.data_type.INT32, F)
    assert a.get_is_pass_by_value() and a.pass_by_value == 0.5 and b.pass_by_value == 3
    assert a.get_has_compile_time_constant() and not g.tensor(dim=[1]).get_has_compile_time_constant()
    assert a.get_reordering_type() is cudnn.tensor_reordering.NONE and a.get_ragged_offset_multiplier() == 1


def test_device_properties_and_kernel_cache_objects():
    dp = cudnn.create_device_properties(0)
    again = cudnn.create_device_properties(dp.serialize())
    assert again.device_id == 0 and json.loads(again.serialize()) == json.loads(dp.serialize())
    kc = cudnn.create_kernel_cache()
    g = cudnn.pygraph(io_data_type=F, kernel_cache=kc, device_property=dp)
    assert g._device_property is dp and g._kernel_cache is kc
    with pytest.raises(TypeError, match=r"kernel_cache=\.\.\.\) takes an object from cudnn.create_kernel_cache\(\)"):
        cudnn.pygraph(kernel_cache={})
    with pytest.raises(RuntimeError, match=r"kernel_cache.size\(\): the cache is not finalized yet"):
        kc.size()
    kc2 = cudnn.create_kernel_cache()
    with pytest.raises(ValueError, match=r"not data from this package's kernel_cache.serialize\(\)"):
        kc2.deserialize("{}")
    kc2.deserialize(kc.serialize())


@needs_lib
def test_kernel_cache_shares_built_plans(monkeypatch):
    kc = cudnn.create_kernel_cache()
    proposed = []
    real = _plans.propose
    monkeypatch.setattr(_plans, "propose", lambda module, heuristics: proposed.append(1) or real(module, heuristics))

    def make():
        g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, kernel_cache=kc)
        x = g.tensor(name="x", dim=[2, 3], stride=[3, 1], uid=1)
        g.relu(x).set_output(True).set_uid(2)
        g.build([cudnn.heur_mode.A])
        return g

    g1, g2 = make(), make()
    assert len(proposed) == 1 and len(kc) == 1 and (kc.size(), kc.revision()) == (1, 1)
    assert g2._module is g1._module and g2._built_plans is g1._built_plans
    a = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    for g in (g1, g2):
        out = np.empty_like(a)
        g.execute({1: a, 2: out})
        np.testing.assert_array_equal(out, np.maximum(a, 0))
    g3 = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, kernel_cache=kc)
    x = g3.tensor(name="x", dim=[2, 3], stride=[3, 1], uid=1)
    g3.relu(x).set_output(True).set_uid(2)
    g3.build([cudnn.heur_mode.B])  # other heuristics: its own plan list
    assert len(proposed) == 2 and len(kc) == 2 and (kc.size(), kc.revision()) == (1, 1)  # one graph text
    loaded = cudnn.create_kernel_cache()
    loaded.deserialize(kc.serialize())
    with pytest.raises(RuntimeError, match=r"the cache already holds graphs"):
        loaded.deserialize(kc.serialize())


@needs_lib
def test_engine_and_tensor_queries_and_cuda_graphs():
    g, a, b, bias, y = mlp_graph()
    g.build_operation_graph()
    assert g.get_engine_count() == 1  # the CPU reference, engine 0
    assert g.get_knobs_for_engine(0) == []
    with pytest.raises(ValueError, match=r"engine id 3 is not an engine of graph"):
        g.get_knobs_for_engine(3)
    g.create_execution_plan(0, {})
    g.check_support()
    g.build_plans()
    assert g.query_tensor_attributes_of_uid(y.get_uid()) is y
    with pytest.raises(RuntimeError, match=r"has no tensor with uid 99"):
        g.query_tensor_attributes_of_uid(99)
    for call in (g.populate_cuda_graph, g.update_cuda_graph):
        with pytest.raises(ValueError, match=r"null cudaGraph_t"):
            call(cudnn.create_handle(), {}, 0, 0)


@needs_lib
def test_knobs_of_a_gpu_plan_list(monkeypatch):
    FakeGpuPlans().install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans([gc.heur_mode.A])
    assert g.get_engine_count() == 8  # engine ids 0, 5 and 7 listed
    # knob code 3 (USE_TEX, deprecated) has no knob_type member: it is the
    # extra knob_type value -4 (BACKEND_KNOB_3), so every knob's type is a knob_type
    assert g.get_knobs_for_engine(7) == [cudnn.knob(cudnn.knob_type(-4), 4, 4, 1), cudnn.knob(cudnn.knob_type.EDGE, 1, 1, 1)]
    assert all(isinstance(k.type, cudnn.knob_type) for k in g.get_knobs_for_engine(7))
    g.create_execution_plan(7, {cudnn.knob_type.EDGE: 1, cudnn.knob_type.TILE_SIZE: 2})
    # keyed by knob_type as the frontend answers them (backend codes 4, 2)
    assert g.get_engine_and_knobs_at_index(3) == (7, {cudnn.knob_type.EDGE: 1, cudnn.knob_type.TILE_SIZE: 2})
    # The frontend's conv test loops over range(get_engine_count()) while it
    # adds plans: the ids stay, an unlisted id below the count has no knobs,
    # and one out of range raises a RuntimeError as the frontend's does.
    assert g.get_engine_count() == 8
    assert g.get_knobs_for_engine(3) == []
    with pytest.raises(RuntimeError, match=r"engine id 8 is not an engine"):
        g.get_knobs_for_engine(8)


# ---- heuristics, check_support, workspace, overrides --------------------------------------


def test_heuristics_modes():
    assert _plans._heur_codes([gc.heur_mode.INSTANT]) == [0]
    assert _plans._heur_codes([gc.heur_mode.INSTANT, gc.heur_mode.B]) == [0, 1]
    assert _plans._heur_codes([gc.heur_mode.OPENSOURCE]) == [0, 2]
    assert _plans.opensource_only([gc.heur_mode.OPENSOURCE]) and not _plans.opensource_only([gc.heur_mode.OPENSOURCE, gc.heur_mode.A])
    with pytest.raises(ValueError, match=r"'A' is not a cudnn.heur_mode"):
        _plans._heur_codes(["A"])


@needs_lib
def test_opensource_keeps_the_generated_kernel_plans(monkeypatch):
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans([gc.heur_mode.OPENSOURCE])
    assert [g.get_plan_name_at_index(i) for i in range(g.get_execution_plan_count())] == ["codegen_v2_t256_i2", "codegen_v2_t512_i2_p", "codegen_v1"]
    assert fake.calls[0] == ("create", (0, 2))
    FakeGpuPlans(codegen=False).install(monkeypatch)
    g2, *_ = mlp_graph()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"heur_mode.OPENSOURCE: no generated-kernel plan applies"):
        g2.create_execution_plans([gc.heur_mode.OPENSOURCE])


@needs_lib
def test_check_support_can_fail(monkeypatch):
    g, *_ = mlp_graph()
    g.create_execution_plans()
    g.deselect_engines(["reference_cpu"])
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"no plan in the list could be built:\n  \[0\] reference_cpu: excluded by deselect_engines\(\)"):
        g.check_support()
    fake = FakeGpuPlans().install(monkeypatch)
    for p in fake.plans:
        p["decline"] = "CUDNN_STATUS_NOT_SUPPORTED: no kernel"
    g2, *_ = mlp_graph()
    g2.create_execution_plans()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"\[2\] eng7_k3=4_k4=1: plan 2 \(eng7_k3=4_k4=1\) declined"):
        g2.check_support()


@needs_lib
def test_several_groups_index_the_anchor_groups_list(monkeypatch, caplog):
    # A graph of several fused groups keeps the frontend's one list per
    # graph: the anchor group's (graphPlanGroup), no warning; select_plan
    # pins an index of that list.
    fake = FakeGpuPlans().install(monkeypatch)
    monkeypatch.setattr(_capi.Module, "plan_count", lambda self: (3, 2))
    monkeypatch.setattr(_capi.Module, "plan_group", lambda self: 1)
    g, *_ = mlp_graph()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with caplog.at_level("INFO", logger="graph_compiler"):
            g.create_execution_plans()
    assert "the plan list is group 1's (the anchor)" in caplog.text
    assert g.get_execution_plan_count() == 3
    assert g._module._plan_group == 1 and g._module._num_groups == 2
    g.select_plan(2)
    g.build_plans()
    assert ("build", 2) in fake.calls


@needs_lib
def test_execute_checks_the_workspace(monkeypatch):
    FakeGpuPlans().install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans()
    g.select_plan(2)
    g.build_plans()
    assert g.get_workspace_size() == 4096
    a, b, bias, y = io
    feed = {a: np.zeros((1, 4, 8), np.float32), b: np.zeros((1, 8, 6), np.float32), bias: np.zeros((1, 1, 6), np.float32), y: np.empty((1, 4, 6), np.float32)}
    with pytest.raises(ValueError, match=r"plan 2 \('eng7_k3=4_k4=1'\) of graph 'test_graph' needs 4096 workspace bytes, the buffer holds 16"):
        g.execute(feed, np.empty(16, np.uint8))
    # A host buffer is checked only (the run is the CPU reference's); a
    # device pointer is lent to the GPU runtime for the execute and taken
    # back after it, even when the execute fails.
    lent = []
    monkeypatch.setattr(_capi, "lend_workspace", lambda pointer, nbytes: lent.append((pointer, nbytes)) or True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute(feed, np.empty(4096, np.uint8))
    assert lent == []
    g.execute(feed, 0xDEAD000)
    assert lent == [(0xDEAD000, 4096), (0, 0)]
    with pytest.raises(ValueError):
        g.execute({a: feed[a]}, 0xBEEF000)
    assert lent[-2:] == [(0xBEEF000, 4096), (0, 0)]
    # A negative int is no address: refused before anything is lent.
    with pytest.raises(ValueError, match=r"execute\(workspace=-5\): a device pointer is an address, never negative"):
        g.execute(feed, -5)
    assert lent[-2:] == [(0xBEEF000, 4096), (0, 0)]


@needs_lib
def test_graph_set_workspace_c_api():
    lib = _capi.lib()
    if not hasattr(lib, "graphSetWorkspace"):
        pytest.skip("library without graphSetWorkspace")
    assert _capi.lend_workspace(0x1000, 256) is True
    assert _capi.lend_workspace(0, 0) is True
    assert lib.graphSetWorkspace(ctypes.c_void_p(0x1000), ctypes.c_int64(-1)) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    assert "-1 bytes is not a size" in _capi.last_error()


@needs_lib
def test_override_shapes_identity():
    g, a, b, bias, y = mlp_graph()
    g.build()
    run = dict(override_uids=[a.get_uid()], override_shapes=[[1, 4, 8]], override_strides=[[32, 8, 1]])
    assert g.get_workspace_size(**run) == 0
    rng = np.random.default_rng(0)
    av, bv, cv = rng.standard_normal((1, 4, 8)).astype(np.float32), rng.standard_normal((1, 8, 6)).astype(np.float32), rng.standard_normal((1, 1, 6)).astype(np.float32)
    out = np.zeros((1, 4, 6), np.float32)
    g.execute({a: av, b: bv, bias: cv, y: out}, None, **run)
    np.testing.assert_allclose(out, np.maximum(av @ bv + cv, 0), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"must name the same tensors: got 1, 0 and 0 entries"):
        g.execute({a: av, b: bv, bias: cv, y: out}, None, override_uids=[1])


@needs_lib
def test_override_strides_as_the_frontend_programs_pass_them():
    g, a, b, bias, y = mlp_graph()
    g.build()
    rng = np.random.default_rng(1)
    av, bv, cv = rng.standard_normal((1, 4, 8)).astype(np.float32), rng.standard_normal((1, 8, 6)).astype(np.float32), rng.standard_normal((1, 1, 6)).astype(np.float32)
    pack, want = {a: av, b: bv, bias: cv}, np.maximum(av @ bv + cv, 0)
    # A stride on an extent-1 dim addresses nothing: same layout, no warning.
    out = np.zeros((1, 4, 6), np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute({**pack, y: out}, None, override_uids=[1], override_shapes=[[1, 4, 8]], override_strides=[[7, 8, 1]])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)
    # A buffer's own stride() at another rank (a packed view of a ragged
    # tensor in the frontend's chunked-prefill program) cannot describe the
    # tensor: the compiled strides stand, with a warning naming it.
    out = np.zeros((1, 4, 6), np.float32)
    with pytest.warns(cudnn.OverrideStrideWarning, match=r"tensor 'A' \(uid 1\) gives 2 strides \[8, 1\] for its 3 dims.*compiled strides \[32, 8, 1\]"):
        g.execute({**pack, y: out}, None, override_uids=[1], override_shapes=[(1, 4, 8)], override_strides=[(8, 1)])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


# ---- names and deferred "not supported" answers the frontend's own test programs use


ENUMS_OF_THE_BINDING = (
    "data_type", "tensor_reordering", "scalar_type", "reshape_mode", "knob_type", "norm_forward_phase",
    "heur_mode", "convolution_mode", "reduction_mode", "build_plan_policy", "numerical_note",
    "behavior_note", "diagonal_alignment", "attention_implementation", "moe_grouped_matmul_mode",
)


@pytest.mark.parametrize("name", ENUMS_OF_THE_BINDING)
def test_pybind_module_enums_persist_as_ints(name):
    # test/python/core/test_enum_compatibility.py reads the enums through
    # cudnn._pybind_module and round-trips int(member) through JSON.
    enum_type = getattr(cudnn._pybind_module, name)
    members = list(enum_type.__members__.values())
    assert members
    restored = json.loads(json.dumps([int(m) for m in members]))
    assert restored == [m.value for m in members]
    for member, value in zip(members, restored):
        assert enum_type(value) is member
        assert not isinstance(member, int)


def test_binding_module_aliases():
    import importlib

    assert importlib.import_module("cudnn._pybind_module") is cudnn._pybind_module
    assert cudnn._compiled_module is cudnn._pybind_module
    assert cudnn._pybind_module.backend_graph is cudnn.pygraph
    assert cudnn.wrapper.Graph is cudnn.Graph
    assert importlib.import_module("cudnn.wrapper") is cudnn.wrapper


def test_cutedsl_kernels_raise_import_error():
    # The frontend raises ImportError for its CuTe DSL kernels when their
    # optional dependencies are missing; programs skip on it.
    with pytest.raises(ImportError, match="GroupedGemmSwigluSm100.*CuTe DSL"):
        from cudnn import GroupedGemmSwigluSm100  # noqa: F401
    with pytest.raises(ImportError, match="GemmAmaxSm100"):
        cudnn.GemmAmaxSm100
    # Its JAX entry points (also lazy) answer the same way.
    with pytest.raises(ImportError, match="grouped_gemm_jax_sm100"):
        cudnn.grouped_gemm_jax_sm100
    # So do its optional GNN package and attention-QAT / HCA kernels, which
    # programs probe with try/except ImportError.
    for name in ("gnn", "Nvfp4AttentionQatBackward", "AlignedHCABackward", "aligned_hca_backward_wrapper"):
        with pytest.raises(ImportError, match=name):
            getattr(cudnn, name)
    with pytest.raises(AttributeError, match="no_such_name"):
        cudnn.no_such_name


def test_absent_frontend_packages_look_absent():
    # The frontend's operator packages this package lacks (cudnn.torch, its
    # torch attention provider; cudnn.deepseek_sparse_attention, ...) must
    # look absent to the standard probes: PyTorch 2.11 asks
    # importlib.util.find_spec("cudnn.torch") whether the frontend's SDPA
    # provider is installed and imports it if so, and torch.compile failed on
    # a stand-in that was found but refused to import (measured on an H100).
    import importlib.util

    for name in ("torch", "deepseek_sparse_attention", "flex_attention", "jax", "fla"):
        assert importlib.util.find_spec("cudnn." + name) is None
        assert not hasattr(cudnn, name)
        with pytest.raises(ModuleNotFoundError):  # as programs probing them expect
            importlib.import_module("cudnn." + name)
    assert cudnn.wrapper.cudnn is cudnn


def _relu_graph():
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 3], stride=[3, 1])
    y = g.relu(x)
    y.set_output(True)
    return g, x, y


def test_ragged_and_reordered_tensors_are_not_supported_at_planning():
    g, x, _ = _relu_graph()
    ro = g.tensor(name="ro", dim=[3, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT32)
    q = g.tensor(name="q", dim=[2, 4, 8, 16], stride=[512, 128, 16, 1], ragged_offset=ro, ragged_offset_multiplier=4)
    sf = g.tensor(name="sf", dim=[1, 128, 4], stride=[512, 4, 1], data_type=gc.data_type.FP8_E4M3,
                  reordering_type=cudnn.tensor_reordering.F8_128x4)
    assert q.get_ragged_offset() is ro and q.get_ragged_offset_multiplier() == 4
    assert sf.get_reordering_type() == cudnn.tensor_reordering.F8_128x4
    feats = g.unsupported_features()
    assert any("'q'" in f and "ragged_offset" in f for f in feats)
    assert any("ragged_offset_multiplier=4" in f for f in feats)
    assert any("'sf'" in f and "F8_128x4" in f for f in feats)
    g.validate()
    g.build_operation_graph()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="ragged_offset"):
        g.create_execution_plans([cudnn.heur_mode.A])
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="reordering_type"):
        g.build([cudnn.heur_mode.A])


def test_tensor_setters_record_and_defer():
    g, x, _ = _relu_graph()
    ro = g.tensor(name="ro", dim=[3, 1], stride=[1, 1], data_type=gc.data_type.INT32)
    assert x.set_ragged_offset(ro) is x and x.get_ragged_offset() is ro
    assert x.set_ragged_offset_multiplier(1) is x
    (what,) = g.unsupported_features()
    # names the node and port that cannot read a packed layout, and the ports that can
    assert what.startswith("tensor 'x': ragged_offset (pointwise node 'relu.0' takes it at port 'IN_0' and cannot read a packed layout; "), what
    assert "the ports that can: sdpa: q, k, v, O, Stats" in what and "sdpa_backward: q, k, v, o, dO, stats" in what, what
    x.set_ragged_offset(None)
    assert g.unsupported_features() == []
    x.set_reordering_type(cudnn.tensor_reordering.NONE)
    assert x.get_reordering_type() == cudnn.tensor_reordering.NONE and g.unsupported_features() == []
    x.set_reordering_type(cudnn.tensor_reordering.F8_128x4)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="'x': reordering_type"):
        g.to_mlir()


def test_sdpa_unmodelled_keywords_defer_to_planning():
    g = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
    q = g.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1])
    k = g.tensor(name="k", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1])
    v = g.tensor(name="v", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1])
    cu = g.tensor(name="cu", dim=[2, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT32)
    o, _ = g.sdpa(q, k, v, attn_scale=0.25, generate_stats=False, cu_seq_len_q=cu, cu_seq_len_kv=cu, score_mod=print)
    o.set_output(True)
    feats = g.unsupported_features()
    assert any("cu_seq_len_q" in f for f in feats) and any("'score_mod'" in f for f in feats)
    g.validate()
    g.build_operation_graph()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="score_mod"):
        g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])


def _dropout_graph(with_dump=True):
    g = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
    q, k, v = (g.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in "qkv")
    seed = g.tensor(name="seed", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT64)
    offset = g.tensor(name="offset", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT64)
    dump = g.tensor(name="dump", dim=[1, 2, 8, 8], stride=[128, 64, 8, 1], data_type=gc.data_type.FLOAT) if with_dump else None
    o, stats = g.sdpa(q, k, v, attn_scale=0.25, generate_stats=True, dropout=(0.25, seed, offset), rng_dump=dump)
    o.set_output(True)
    stats.set_output(True)
    if dump is not None:
        dump.set_output(True)
    return g, (q, k, v, seed, offset, dump, o, stats)


def test_sdpa_philox_dropout_is_an_rng_keep_mask():
    # dropout=(p, seed, offset): a graph.rng keep mask with probability 1 - p
    # read by sdpa as its dropout_mask; rng_dump is that mask as an output.
    g, (q, k, v, seed, offset, dump, o, stats) = _dropout_graph()
    text = g.to_mlir()
    assert re.search(r"%(\d+) = rng %arg\d+, %arg\d+ \{bernoulli_probability = 7\.5", text)
    assert "dropout_mask" in text and "dropout_probability = 2.5" in text
    assert dump.get_data_type() == gc.data_type.FLOAT and re.search(r"output %\d+, %O, %Stats", text)
    g.validate()
    g.build_operation_graph()
    # The CPU reference does not reproduce cuDNN's Philox stream: it says so.
    g.create_execution_plans()
    g.build_plans()
    bufs = {t: np.zeros(t.get_dim(), dtype=np.float16) for t in (q, k, v, o)}
    bufs.update({seed: np.ones((1, 1, 1, 1), np.int64), offset: np.zeros((1, 1, 1, 1), np.int64)})
    bufs.update({stats: np.zeros((1, 2, 8, 1), np.float32), dump: np.zeros((1, 2, 8, 8), np.float32)})
    with pytest.raises(Exception, match="Philox stream, which the CPU reference does not reproduce"):
        g.execute(bufs)


def test_sdpa_backward_philox_dropout_regenerates_the_mask():
    g = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
    q, k, v, o, do = (g.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in ("q", "k", "v", "o", "do"))
    stats = g.tensor(name="stats", dim=[1, 2, 8, 1], stride=[16, 8, 1, 1], data_type=gc.data_type.FLOAT)
    seed = g.tensor(name="seed", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT64)
    offset = g.tensor(name="offset", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT64)
    dq, dk, dv = g.sdpa_backward(q, k, v, o, do, stats, attn_scale=0.25, dropout=(0.25, seed, offset))
    for t in (dq, dk, dv):
        t.set_output(True)
    text = g.to_mlir()
    assert text.count(" = rng ") == 1 and "dropout_probability = 2.5" in text
    # the frontend's backward dumps the regenerated mask too
    g2 = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
    q, k, v, o, do = (g2.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in ("q", "k", "v", "o", "do"))
    stats = g2.tensor(name="stats", dim=[1, 2, 8, 1], stride=[16, 8, 1, 1], data_type=gc.data_type.FLOAT)
    seed, offset = (g2.tensor(name=n, dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=gc.data_type.INT64)
                    for n in ("seed", "offset"))
    dump = g2.tensor(name="dump", dim=[1, 2, 8, 8], stride=[128, 64, 8, 1], data_type=F)
    grads = g2.sdpa_backward(q, k, v, o, do, stats, attn_scale=0.25, dropout=(0.25, seed, offset), rng_dump=dump)
    for t in list(grads) + [dump.set_output(True)]:
        t.set_output(True)
    assert dump.producer is not None and dump.producer[0].op == "rng"
    assert "dump" in [t.name for t in g2.get_outputs()]


def test_rng_dump_without_dropout_is_ignored_with_a_warning():
    # as the frontend, which ignores it: nothing writes the dump
    g = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
    q, k, v = (g.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in "qkv")
    dump = g.tensor(name="dump", dim=[1, 2, 8, 8], stride=[128, 64, 8, 1], data_type=gc.data_type.FLOAT)
    with pytest.warns(UserWarning, match="rng_dump without dropout is ignored"):
        o, _ = g.sdpa(q, k, v, rng_dump=dump)
    o.set_output(True)
    assert dump.producer is None and " = rng " not in g.to_mlir()


def test_deserialize_takes_the_frontend_keywords():
    g, x, y = _relu_graph()
    data = g.serialize()
    h = cudnn.pygraph()
    h.deserialize(pyobj=data, enforce_precompiled=False)
    assert h.to_mlir() == g.to_mlir()
    h2 = cudnn.pygraph()
    h2.deserialize(None, data, enforce_precompiled=True)
    assert h2.to_mlir() == g.to_mlir()
    with pytest.raises(TypeError, match="bogus"):
        cudnn.pygraph().deserialize(data, bogus=1)


@needs_lib
def test_deserialize_again_replaces_the_loaded_graph():
    # the frontend's restored graph takes a second serialize() in place of the first
    relu, x, y = _relu_graph()
    neg = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    a = neg.tensor(name="a", dim=[2, 2], stride=[2, 1], uid=7)
    b = neg.neg(a)
    b.set_output(True).set_uid(8)
    for g in (relu, neg):
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans([gc.heur_mode.A])
        g.build_plans()
    restored = cudnn.pygraph()
    restored.deserialize(relu.serialize())
    xs = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)
    out = np.zeros((2, 3), np.float32)
    restored.execute({x.get_uid(): xs, y.get_uid(): out})
    np.testing.assert_array_equal(out, np.maximum(xs, 0))
    assert restored._engine_plans()  # the first graph's engine probe, which the next load must drop
    restored.deserialize(neg.serialize())
    a_in, b_out = np.array([[1.0, -2.0], [3.0, 0.5]], np.float32), np.zeros((2, 2), np.float32)
    restored.execute({7: a_in, 8: b_out})
    np.testing.assert_array_equal(b_out, -a_in)
    with pytest.raises(ValueError, match="GRAPHPY1"):
        restored.deserialize(b"not a graph")
    data = neg.serialize()
    header_end = bytes(data).index(b"\n", bytes(data).index(b"{")) + 1
    with pytest.raises(ValueError):  # a good header over graph text that does not parse
        restored.deserialize(bytes(data)[:header_end] + b"graph.graph @broken(")
    b_out[:] = 0
    restored.execute({7: a_in, 8: b_out})  # a failed load leaves the loaded graph as it was
    np.testing.assert_array_equal(b_out, -a_in)
    assert len(restored._engine_plans()) == len(neg._engine_plans())  # no plans of the first graph linger


# ---- gaps the frontend's published samples hit (samples/python/*.ipynb) -----


@needs_lib
def test_floor_mod_is_the_floored_remainder():
    # 71_pointwise_mod: floor_mod(a, b, compute_data_type=, name=) next to
    # mod; the result takes the divisor's sign (torch.remainder)
    a = np.array([[-7.0, 7.0, -7.0, 7.0, -6.0, 0.5, -2.5, 1e-3]], np.float32)
    b = np.array([[3.0, 3.0, -3.0, -3.0, 3.0, -2.0, 2.0, -4.0]], np.float32)
    g = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    A, B = g.tensor_like(a), g.tensor_like(b)
    y = g.floor_mod(A, B, compute_data_type=F, name="floor_mod")
    y.set_output(True).set_data_type(F)
    assert y.get_name() == "floor_mod::OUT_0"
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    out = np.empty_like(a)
    g.execute({A: a, B: b, y: out})
    np.testing.assert_allclose(out, np.remainder(a, b), rtol=1e-6, atol=1e-6)
    assert not np.signbit(out[0, 4])  # -6 mod 3 is +0, as torch.remainder gives
    truncated = cudnn.pygraph(compute_data_type=F)
    A, B = truncated.tensor_like(a), truncated.tensor_like(b)
    z = truncated.mod(A, B, name="mod").set_output(True).set_data_type(F)
    truncated.build([cudnn.heur_mode.A])
    truncated.execute({A: a, B: b, z: out})
    np.testing.assert_allclose(out, np.fmod(a, b), rtol=1e-6, atol=1e-6)


def test_floor_mod_takes_mods_arguments():
    g = cudnn.pygraph(io_data_type=F)
    a, b = g.tensor(dim=[2, 3]), g.tensor(dim=[2, 3])
    by_keyword = g.floor_mod(input0=a, input1=b).set_output(True)
    assert by_keyword.get_name() == "floor_mod.0::OUT_0" and by_keyword.get_dim() == [2, 3]
    text = g.to_mlir()
    for mode in ("mod(", "div(", "floor(", "mul(", "sub("):
        assert f"= pointwise {mode}" in text, mode
    with pytest.raises(TypeError):
        g.floor_mod(a)


@needs_lib
def test_an_input_tensor_of_another_graph_is_adopted():
    # 29_layernorm_zero_centered_gamma: the backward graph adds a tensor the
    # forward graph made (graph.tensor_like(one_cpu)); the frontend makes any
    # non-virtual operand an input of the graph that consumes it
    gamma = np.random.rand(1, 4, 1, 1).astype(np.float32)
    one = np.ones((1, 1, 1, 1), np.float32)
    fwd = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    fwd_x = fwd.tensor_like(gamma).set_uid(4)
    bwd = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    gamma_bwd = bwd.tensor_like(gamma, name="gamma")
    one_bwd = fwd.tensor_like(one).set_name("one")  # made by the other graph
    clash = bwd.tensor_like(gamma)  # holds the uid one_bwd was given there
    assert one_bwd.get_uid() == clash.get_uid()
    out = bwd.add(name="gamma_plus_one", a=gamma_bwd, b=one_bwd)
    out.set_output(True).set_data_type(F)
    assert one_bwd.get_uid() not in (gamma_bwd.get_uid(), clash.get_uid(), out.get_uid())
    assert one_bwd in bwd.get_inputs() and fwd_x.get_uid() == 4
    # a uid the caller set travels with the tensor
    user = fwd.tensor_like(one).set_uid(40)
    bwd.add(a=gamma_bwd, b=user).set_output(True).set_data_type(F)
    assert bwd.find_tensor(40) is user
    bwd.build([cudnn.heur_mode.A])
    result = np.empty_like(gamma)
    bwd.execute({gamma_bwd: gamma, one_bwd: one, user: one, out: result, "add.0::OUT_0": np.empty_like(gamma)})
    np.testing.assert_allclose(result, gamma + 1, rtol=1e-6)


@needs_lib
def test_a_built_graph_makes_tensors_for_another_graph():
    # 24_layernorm_zero_centered_gamma and 26_..._relu_no_bitmask call the
    # forward graph's tensor_like after it is built; the tensor joins the
    # backward graph that consumes it and leaves the built one unchanged
    gamma = np.random.rand(1, 4, 1, 1).astype(np.float32)
    one = np.ones((1, 1, 1, 1), np.float32)
    fwd = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    fx = fwd.tensor_like(gamma, name="x")
    fy = fwd.relu(input=fx)
    fy.set_output(True).set_data_type(F)
    fwd.build([cudnn.heur_mode.A])
    fwd_inputs = [t.get_uid() for t in fwd.get_inputs()]
    one_bwd = fwd.tensor_like(one).set_name("one")  # the built graph's method
    eps = fwd.tensor_scalar(0.5, name="eps")
    assert [t.get_uid() for t in fwd.get_inputs()] == fwd_inputs
    with pytest.raises(RuntimeError, match="frozen"):
        fwd.relu(input=one_bwd)  # a node still cannot be added
    bwd = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    gamma_bwd = bwd.tensor_like(gamma, name="gamma")
    plus = bwd.add(name="gamma_plus_one", a=gamma_bwd, b=one_bwd)
    out = bwd.mul(a=plus, b=eps)
    out.set_output(True).set_data_type(F)
    assert one_bwd in bwd.get_inputs() and one_bwd.get_name() == "one"
    assert len({gamma_bwd.get_uid(), one_bwd.get_uid(), out.get_uid()}) == 3
    bwd.build([cudnn.heur_mode.A])
    result = np.empty_like(gamma)
    bwd.execute({gamma_bwd: gamma, one_bwd: one, out: result})
    np.testing.assert_allclose(result, (gamma + 1) * 0.5, rtol=1e-6)
    x = np.random.rand(1, 4, 1, 1).astype(np.float32) - 0.5
    y = np.empty_like(x)
    fwd.execute({fx: x, fy: y})
    np.testing.assert_allclose(y, np.maximum(x, 0), rtol=1e-6)


@needs_lib
def test_logical_ops_compute_in_booleans():
    # 70_boolean_cmp_logic: logical_and(compute_data_type=BOOLEAN) after a
    # comparison computed in floats
    a = np.random.rand(2, 8, 4, 4).astype(np.float32)
    b = (np.random.rand(2, 8, 4, 4) > 0.5)
    g = cudnn.pygraph(intermediate_data_type=F, compute_data_type=F)
    ta = g.tensor_like(a)
    tb = g.tensor(dim=list(b.shape), stride=[128, 16, 4, 1], data_type=cudnn.data_type.BOOLEAN)
    gt = g.cmp_gt(input=ta, comparison=0.5, compute_data_type=F)
    gt.set_data_type(cudnn.data_type.BOOLEAN)
    both = g.logical_and(name="logical0", a=gt, b=tb, compute_data_type=cudnn.data_type.BOOLEAN)
    both.set_output(True).set_data_type(cudnn.data_type.BOOLEAN)
    g.validate()
    g.build([cudnn.heur_mode.A])
    out = np.zeros(b.shape, np.bool_)
    g.execute({ta: a, tb: b, both: out})
    np.testing.assert_array_equal(out, (a > 0.5) & b)
    # other pointwise ops still compute in floats, naming the rule
    h = cudnn.pygraph()
    x = h.tensor_like(a)
    h.add(a=x, b=x, compute_data_type=cudnn.data_type.BOOLEAN).set_output(True).set_data_type(F)
    with pytest.raises(Exception, match="compute_data_type must be a float type .or i32 for this mode., got .i1."):
        h.validate()


def test_cudnn_ops_names_raise_import_error():
    # 60_causal_conv1d_forward ...: cudnn.ops.causal_conv1d is a CuTe DSL
    # torch operator of the frontend's optional extra
    import cudnn.ops

    assert cudnn.ops is __import__("cudnn").ops
    names = ("causal_conv1d", "causal_conv1d_nwh", "causal_conv1d_update", "b2b_causal_conv1d", "fft_causal_conv1d",
             "fwht_mxfp4_qdq", "nvfp4_block_scale_quantize", "nvfp4_block_scale_dequantize",
             "Nvfp4BlockScaleQuantizer", "Nvfp4BlockScaleDequantizer")
    for name in names:
        assert name in dir(cudnn.ops)
        with pytest.raises(ImportError, match="optional dependencies"):
            getattr(cudnn.ops, name)
    with pytest.raises(AttributeError):
        cudnn.ops.no_such_operator


def _channels_last(shape):
    n, c, h, w = shape
    return [h * w * c, 1, w * c, c]


def _strided(shape, strides, dtype, fill):
    flat = np.full(int(np.prod(shape)), fill, dtype)
    return np.lib.stride_tricks.as_strided(flat, shape, [s * flat.itemsize for s in strides])


@needs_lib
def test_boolean_masks_take_bit_packed_uint8_buffers():
    # 33_layernorm_..._relu_bitmask and norm/graph/test_batchnorm_fusion:
    # a BOOLEAN [N, C, H, W] channels-last mask is an [N, C/8, H, W] uint8
    # buffer, channel c in bit c % 8 of byte c // 8, written (cmp_gt output)
    # and read (the dReLU mul) that way
    shape = (2, 16, 3, 3)
    packed_shape = (2, 2, 3, 3)
    x = _strided(shape, _channels_last(shape), np.float32, 0)
    x[...] = np.random.default_rng(3).standard_normal(shape)
    zero = np.zeros((1, 1, 1, 1), np.float32)
    fwd = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    X = fwd.tensor(name="X", dim=list(shape), stride=_channels_last(shape))
    Z = fwd.tensor_like(zero, name="zero")
    y = fwd.relu(name="relu", input=X).set_output(True)
    mask = fwd.cmp_gt(name="mask", input=y, comparison=Z)
    mask.set_output(True).set_data_type(gc.data_type.BOOLEAN)
    fwd.build([cudnn.heur_mode.A])
    packed = _strided(packed_shape, _channels_last(packed_shape), np.uint8, 0xA5)
    fwd.execute({X: x, Z: zero, y: np.empty_like(x), mask: packed})
    expected = np.moveaxis(np.packbits(np.moveaxis(x > 0, 1, -1), axis=-1, bitorder="little"), -1, 1)
    np.testing.assert_array_equal(packed, expected)

    bwd = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    DY = bwd.tensor(name="DY", dim=list(shape), stride=_channels_last(shape))
    M = bwd.tensor(name="mask", dim=list(shape), stride=_channels_last(shape), data_type=gc.data_type.BOOLEAN)
    dx = bwd.mul(a=DY, b=M, name="mask_mul").set_output(True)
    bwd.build([cudnn.heur_mode.A])
    dy = _strided(shape, _channels_last(shape), np.float32, 1.5)
    out = _strided(shape, _channels_last(shape), np.float32, np.nan)
    bwd.execute({DY: dy, M: packed, dx: out})
    np.testing.assert_array_equal(out, np.where(x > 0, 1.5, 0.0))


def test_only_a_packed_uint8_buffer_is_a_bitmask():
    from graph_compiler import _buffers

    dims, strides = [2, 16, 3, 3], _channels_last((2, 16, 3, 3))
    assert _buffers.packed_boolean_axis(dims, strides, np.zeros((2, 2, 3, 3), np.uint8)) == 1
    assert _buffers.packed_boolean_axis(dims, [], np.zeros((2, 16, 3, 1), np.uint8)) == 3  # row-major: the last axis
    assert _buffers.packed_boolean_axis(dims, strides, np.zeros(dims, np.bool_)) is None  # a byte per element
    assert _buffers.packed_boolean_axis(dims, strides, np.zeros(dims, np.uint8)) is None
    assert _buffers.packed_boolean_axis(dims, strides, np.zeros((2, 2, 3, 3), np.int8)) is None


def test_score_mod_backward_graphs_plan_as_composites():
    # sdpa/graph/test_flexible_sdpa_bprop: sdpa_backward with score_mod and
    # score_mod_bprop (implementation=COMPOSITE, which is what the compiler
    # builds: no warning) validates and plans; values: test_score_mod.py
    def causal(sub_graph, scores, neg_inf):
        return scores

    def causal_bprop(sub_graph, d_scores, zero):
        return d_scores

    g = cudnn.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    q, k, v, o, do = (g.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in ("q", "k", "v", "o", "dO"))
    stats = g.tensor(name="stats", dim=[1, 2, 8, 1], stride=[16, 8, 1, 1], data_type=F)
    neg_inf = g.tensor(name="neg_inf", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], is_pass_by_value=True, data_type=F)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dq, dk, dv = g.sdpa_backward(q=q, k=k, v=v, o=o, dO=do, stats=stats, attn_scale=0.25, use_causal_mask=False,
                                     score_mod=lambda sg, t: causal(sg, t, neg_inf), score_mod_bprop=lambda sg, t: causal_bprop(sg, t, neg_inf),
                                     implementation=cudnn.attention_implementation.COMPOSITE)
    for t in (dq, dk, dv):
        t.set_output(True)
    assert g.unsupported_features() == []
    g.validate()
    g.build_operation_graph()
    g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    assert [t.get_dim() for t in (dq, dk, dv)] == [[1, 2, 8, 16]] * 3
    # a bprop without the forward's modification has nothing to apply to
    g2 = cudnn.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    t2 = {n: g2.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in ("q", "k", "v", "o", "dO")}
    st2 = g2.tensor(name="stats", dim=[1, 2, 8, 1], stride=[16, 8, 1, 1], data_type=F)
    g2.sdpa_backward(**t2, stats=st2, attn_scale=0.25, score_mod_bprop=lambda sg, t: t)
    assert any("score_mod_bprop" in f for f in g2.unsupported_features())
    # the forward builder has no backward callback, as in the frontend's binding
    fwd = cudnn.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    q = fwd.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1])
    with pytest.raises(TypeError, match="score_mod_bprop"):
        fwd.sdpa(q, q, q, attn_scale=0.25, generate_stats=False, score_mod_bprop=causal_bprop)


@needs_lib
def test_layernorm_inference_on_pre_calculated_statistics():
    # 26_layernorm_..._relu_no_bitmask (cuDNN 9.18+): the backward graph
    # recomputes Y with layernorm(INFERENCE, pre_calculated_mean=,
    # pre_calculated_invvar=) for the dReLU, keys "LN_infer::pre_calculated_mean"
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 16, 1, 1)).astype(np.float32)
    scale, bias = (rng.standard_normal((1, 16, 1, 1)).astype(np.float32) for _ in range(2))
    eps = np.full((1, 1, 1, 1), 1e-3, np.float32)
    mean = x.mean(axis=(1, 2, 3), keepdims=True)
    inv_var = (1.0 / np.sqrt(x.var(axis=(1, 2, 3), keepdims=True) + 1e-3)).astype(np.float32)
    with cudnn.Graph(intermediate_data_type=F, compute_data_type=F) as g:
        y, no_mean, no_inv_var = g.layernorm(name="LN_infer", norm_forward_phase=cudnn.norm_forward_phase.INFERENCE,
                                             input=x, scale=scale, bias=bias, pre_calculated_mean=mean,
                                             pre_calculated_invvar=inv_var, epsilon=eps)
        assert no_mean is None and no_inv_var is None
        y.set_output(True).set_name("y").set_data_type(F)
    out = g({"LN_infer::input": x, "LN_infer::scale": scale, "LN_infer::bias": bias, "LN_infer::epsilon": eps,
             "LN_infer::pre_calculated_mean": mean, "LN_infer::pre_calculated_invvar": inv_var, "y": np.empty_like(x)})
    np.testing.assert_allclose(out["y"], (x - mean) * inv_var * scale + bias, rtol=1e-5, atol=1e-5)
    # a training phase on given statistics is refused at planning, naming it
    t = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    X, M = t.tensor(dim=[8, 16, 1, 1]), t.tensor(dim=[8, 1, 1, 1])
    t.layernorm(cudnn.norm_forward_phase.TRAINING, X, pre_calculated_mean=M, pre_calculated_invvar=M,
                epsilon=t.tensor(dim=[1, 1, 1, 1]))[0].set_output(True)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="pre_calculated_mean"):
        t.create_execution_plans([cudnn.heur_mode.A])


def test_saved_statistics_layernorm_keeps_its_epsilon_an_input():
    # sample 26 passes an epsilon tensor made by the forward graph and binds it
    fwd = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    eps = fwd.tensor(name="epsilon", dim=[1, 1, 1, 1], is_pass_by_value=True)
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x, m = g.tensor(name="x", dim=[8, 16, 1, 1]), g.tensor(name="m", dim=[8, 1, 1, 1])
    y, _, _ = g.layernorm(name="LN_infer", norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, input=x,
                          pre_calculated_mean=m, pre_calculated_invvar=m, epsilon=eps)
    y.set_output(True)
    assert eps in g.tensors.values() and eps.get_uid() not in (x.get_uid(), m.get_uid(), y.get_uid())
    assert "sub(" in g.to_mlir() and "mul(" in g.to_mlir()


def test_sdpa_fp8_ignores_a_max_kv_length_without_page_tables():
    # sdpa/fp8.py (test_mhas_v2's fp8 harness) passes paged_attention_max_seq_len_kv
    # on every graph; the frontend refuses it without page tables on the f16 node only
    g = cudnn.pygraph(io_data_type=gc.data_type.FP8_E4M3, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    scales = [g.tensor(dim=[1, 1, 1, 1], data_type=F) for _ in range(6)]
    o, _, _, amax_o = g.sdpa_fp8(q, k, v, *scales, generate_stats=False, attn_scale=0.5,
                                 paged_attention_k_table=None, paged_attention_v_table=None,
                                 paged_attention_max_seq_len_kv=8, max_total_seq_len_q=None)
    o.set_output(True).set_data_type(gc.data_type.FP8_E4M3)
    amax_o.set_output(True).set_data_type(F)
    assert g.unsupported_features() == []
    g.validate()
    g.create_execution_plans([cudnn.heur_mode.A])
    # with a page table the length is the paged cache's (graph.sdpa_fp8's
    # page_table_k operand; test_frontend_compat_core checks the numbers)
    p = cudnn.pygraph(io_data_type=gc.data_type.FP8_E4M3, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(p)
    table = p.tensor(dim=[1, 1, 1, 1], data_type=gc.data_type.INT32)
    p.sdpa_fp8(q, k, v, *[p.tensor(dim=[1, 1, 1, 1], data_type=F) for _ in range(6)],
               paged_attention_k_table=table, paged_attention_max_seq_len_kv=8)[0].set_output(True)
    with pytest.raises(gc.GraphValidationError, match=r"sdpa_fp8 .*a paged K/V cache needs use_padding_mask"):
        p.validate()  # the compiler's rule for a paged cache, as graph.sdpa's
    # and the f16 node keeps refusing an explicit length without tables, as the frontend does
    h = cudnn.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(h)
    h.sdpa(q, k, v, attn_scale=0.5, paged_attention_max_seq_len_kv=8)[0].set_output(True)
    assert any("paged_attention_max_seq_len_kv" in f for f in h.unsupported_features())


def test_engine_manifest_offers_no_python_engines(monkeypatch):
    # test_mhas_v2 asks the manifest whether a FROST engine is on offer before
    # asserting that it served a graph; the graph compiler ships none
    from cudnn.engines.engine_ids import FROST_SDPA_FWD_ID_BASE, is_backend_engine, is_python_engine
    from cudnn.engines.manifest import MANIFEST, opt_in_engines_enabled

    fam = next(f for f in MANIFEST if f.name == "frost_sdpa_fwd")
    assert fam.engine_id == FROST_SDPA_FWD_ID_BASE == 20_500 and fam.owns(20_511) and not fam.owns(20_600)
    for value, enabled in (("1", True), ("On", True), ("0", False), ("", False)):
        monkeypatch.setenv("CUDNN_FRONTEND_ENABLE_FROST_ENGINES", value)
        assert opt_in_engines_enabled() is enabled
        assert all(f.offered_ids() == {} for f in MANIFEST)
    assert {f.name for f in MANIFEST} >= {"frost_gemm", "frost_sdpa_fwd", "frost_sdpa_bwd"}
    assert is_backend_engine(8) and not is_backend_engine(20_511) and is_python_engine(20_511)
    assert not is_backend_engine(-2)  # a generated-kernel plan is not a cuDNN engine


@needs_lib
def test_graph_call_allocates_outputs_in_the_inferred_layout():
    # samples/python/00_introduction: a conv on channels-last views through
    # cudnn.Graph; graph(X, W) allocates the output. The compiler infers a
    # channels-last output, so get_stride() must say so after building and
    # the allocated buffer must have that layout (it had row-major strides and
    # received channels-last bytes: every element wrong).
    import numpy as np

    rng = np.random.default_rng(0)
    X = rng.standard_normal((2, 6, 6, 8)).astype(np.float16).transpose(0, 3, 1, 2)
    W = rng.standard_normal((4, 3, 3, 8)).astype(np.float16).transpose(0, 3, 1, 2)
    with cudnn.Graph(inputs=["conv2d::image", "conv2d::weight"], outputs=["conv_out"]) as graph:
        Y = graph.conv_fprop(image=X, weight=W, padding=[1, 1], stride=[1, 1], dilation=[1, 1], compute_data_type=cudnn.data_type.FLOAT, name="conv2d")
        Y.set_output(True).set_data_type(cudnn.data_type.HALF).set_name("conv_out")
    assert Y.get_stride() == [144, 1, 24, 4]
    out = graph(X, W)
    assert [s // out.itemsize for s in out.strides] == [144, 1, 24, 4]
    Xp = np.pad(X.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 4, 6, 6))
    for i in range(3):
        for j in range(3):
            ref += np.einsum("nchw,kc->nkhw", Xp[:, :, i : i + 6, j : j + 6], W[:, :, i, j].astype(np.float64))
    assert np.abs(out.astype(np.float64) - ref).max() < 0.05


# ---- the frontend's first Python API (python_bindings/, 1.0 era samples) -------------


def test_get_cudnn_version_is_backend_version():
    # samples/python/test_wgrads.py: cudnn.get_cudnn_version() < 8800; the
    # first bindings defined it as cudnnGetVersion, later backend_version
    assert cudnn.get_cudnn_version() == cudnn.backend_version()
    assert isinstance(cudnn.get_cudnn_version(), int)


@needs_lib
def test_get_execution_plan_list_then_set_execution_plans_executes():
    # samples/python/test_rmsnorm.py / test_apply_rope.py: plans =
    # graph.get_execution_plan_list([A]); plans.check_support();
    # graph.set_execution_plans(plans); then workspace size and execute
    g, a, b, bias, y = mlp_graph()
    g.validate()
    g.build_operation_graph()
    plans = g.get_execution_plan_list([cudnn.heur_mode.A])
    assert isinstance(plans, cudnn.pyplans)
    plans.check_support()
    assert plans.get_max_workspace_size() >= 0
    g.set_execution_plans(plans)
    assert g.get_workspace_size() >= 0
    rng = np.random.default_rng(0)
    av = rng.standard_normal((1, 4, 8)).astype(np.float32)
    bv = rng.standard_normal((1, 8, 6)).astype(np.float32)
    cv = rng.standard_normal((1, 1, 6)).astype(np.float32)
    out = np.zeros((1, 4, 6), np.float32)
    g.execute({a: av, b: bv, bias: cv, y: out}, None)
    np.testing.assert_allclose(out, np.maximum(av @ bv + cv, 0), rtol=1e-5, atol=1e-5)


@needs_lib
def test_pyplans_filters_and_build_all_plans():
    g, *_ = mlp_graph()
    plans = g.get_execution_plan_list([cudnn.heur_mode.FALLBACK])
    plans.filter_out_numeric_notes([cudnn.numerical_note.NONDETERMINISTIC])
    plans.filter_out_behavior_notes([cudnn.behavior_note.REQUIRES_FILTER_INT8x32_REORDER])
    plans.filter_out_workspace_greater_than(1 << 30)
    plans.build_all_plans()
    g.set_execution_plans(plans)
    # a filter that leaves no plan: set_execution_plans is the frontend's not-supported error
    g2, *_ = mlp_graph()
    plans2 = g2.get_execution_plan_list([cudnn.heur_mode.A])
    plans2.filter_out_workspace_greater_than(-1)
    assert plans2.get_max_workspace_size() == 0
    with pytest.raises(cudnn.cudnnGraphNotSupportedError):
        g2.set_execution_plans(plans2)


@needs_lib
def test_set_execution_plans_takes_this_graphs_plans():
    g, *_ = mlp_graph()
    other, *_ = mlp_graph()
    plans = other.get_execution_plan_list([cudnn.heur_mode.A])
    g.create_execution_plans([cudnn.heur_mode.A])
    with pytest.raises(ValueError, match="another graph"):
        g.set_execution_plans(plans)
    with pytest.raises(TypeError):
        g.set_execution_plans([cudnn.heur_mode.A])


def _bn_inputs(g):
    x = g.tensor(name="x", dim=[2, 4, 3, 3], stride=[36, 1, 12, 4], data_type=F)
    cs = [g.tensor(name=n, dim=[1, 4, 1, 1], stride=[4, 1, 1, 1], data_type=F) for n in ("s", "b", "rm", "rv")]
    eps = g.tensor(name="eps", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=F, is_pass_by_value=True)
    mom = g.tensor(name="mom", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=F, is_pass_by_value=True)
    return x, cs, eps, mom


def test_batchnorm_takes_the_first_bindings_norm_forward_phase():
    # samples/python/test_batchnorm.py: graph.batchnorm(name=..., norm_forward_phase=TRAINING, input=..., ...)
    for how in ("keyword", "positional"):
        g = gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
        x, (s, b, rm, rv), eps, mom = _bn_inputs(g)
        if how == "keyword":
            outs = g.batchnorm(name="BN", norm_forward_phase=cudnn.norm_forward_phase.TRAINING, input=x, scale=s, bias=b,
                               in_running_mean=rm, in_running_var=rv, epsilon=eps, momentum=mom)
        else:
            outs = g.batchnorm(cudnn.norm_forward_phase.TRAINING, x, s, b, rm, rv, eps, mom)
        assert len(outs) == 5 and all(o is not None for o in outs)
        assert outs[0].get_dim() == [2, 4, 3, 3]


def test_batchnorm_inference_phase_names_batchnorm_inference():
    g = gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    x, (s, b, rm, rv), eps, mom = _bn_inputs(g)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="batchnorm_inference"):
        g.batchnorm(norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, input=x, scale=s, bias=b, epsilon=eps)
    with pytest.raises(TypeError, match="multiple values"):
        g.batchnorm(cudnn.norm_forward_phase.TRAINING, x, s, b, epsilon=eps, norm_forward_phase=cudnn.norm_forward_phase.TRAINING)


@needs_lib
def test_sdpa_prefolded_scale_and_softmax_precision():
    # attn_scale_prefolded: Q carries attn_scale * log2(e), the engine
    # applies no scale (the frontend's exp2 softmax); the same O as scaling
    # in the op. softmax_precision FLOAT is the default; HALF warns (the
    # compiler's softmax is f32) and the defaults warn about nothing.
    b, h, s, d, scale = 1, 2, 8, 4, 0.37
    rng = np.random.default_rng(3)
    qv, kv, vv = (rng.standard_normal((b, h, s, d)).astype(np.float16) for _ in range(3))
    outs = []
    for prefolded in (False, True):
        g = cudnn.pygraph(io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
        q, k, v = (g.tensor(name=n, dim=[b, h, s, d], stride=[h * s * d, s * d, d, 1]) for n in "qkv")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            o, _ = g.sdpa(q, k, v, generate_stats=False, attn_scale=scale, attn_scale_prefolded=prefolded,
                          softmax_precision=None if prefolded else cudnn.data_type.FLOAT)
        o.set_output(True)
        g.build([cudnn.heur_mode.A])
        ov = np.zeros((b, h, s, d), np.float16)
        q_in = (qv.astype(np.float64) * scale * np.log2(np.e)).astype(np.float16) if prefolded else qv
        g.execute({q: q_in, k: kv, v: vv, o: ov})
        outs.append(ov.astype(np.float64))
    qd, kd, vd = (x.astype(np.float64) for x in (qv, kv, vv))
    sc = qd @ kd.transpose(0, 1, 3, 2) * scale
    p = np.exp(sc - sc.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ vd
    for out in outs:  # f16 inputs and O: bounds of a few f16 ulps
        np.testing.assert_allclose(out, ref, rtol=5e-3, atol=5e-3)
    # not the unscaled softmax: the ln 2 factor is applied
    plain = np.exp(sc / scale - (sc / scale).max(-1, keepdims=True))
    assert np.abs(outs[1] - (plain / plain.sum(-1, keepdims=True)) @ vd).max() > 0.05
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    with pytest.warns(UserWarning, match=r"softmax_precision=HALF.*f32"):
        o, _ = g.sdpa(q, k, v, generate_stats=False, softmax_precision=cudnn.data_type.HALF)
    assert o.producer[0].params["softmax_precision"] is cudnn.data_type.HALF
    with pytest.raises(ValueError, match=r"softmax_precision is FLOAT or HALF"):
        g.sdpa(q, k, v, generate_stats=False, softmax_precision=cudnn.data_type.INT8)


def test_newer_frontend_names():
    # names of newer frontends: the flash-attention aliases of sdpa, the
    # cuBLASLt behaviour note (cuDNN 9.15+), the replay hint kept as an
    # attribute, and the error a torch-less call raises
    assert cudnn.pygraph.scaled_dot_product_flash_attention is cudnn.pygraph.sdpa
    assert cudnn.pygraph.scaled_dot_product_flash_attention_backward is cudnn.pygraph.sdpa_backward
    assert cudnn.behavior_note.CUBLASLT_DEPENDENCY in list(cudnn.behavior_note)
    assert cudnn.pygraph(is_cuda_graph_replay_expected=True).is_cuda_graph_replay_expected is True
    assert cudnn.pygraph().is_cuda_graph_replay_expected is False
    assert issubclass(cudnn.TorchNotAvailableError, ImportError)
    g = cudnn.pygraph(io_data_type=BF16, intermediate_data_type=F, compute_data_type=F)
    q, k, v = _qkv(g)
    o, stats = g.scaled_dot_product_flash_attention(q, k, v, generate_stats=True)
    assert o.producer[0].op == "sdpa" and stats is not None


@needs_lib
def test_unset_output_strides_follow_the_frontend():
    # a rank-4 reduction result is channels-last, a pointwise result takes
    # its last same-dims operand's strides, a concatenation its first
    # input's order; buffers allocated from get_stride() get the values
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 4, 8)).astype(np.float32)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    bt = np.asfortranarray(rng.standard_normal((16, 8)).astype(np.float32))
    c0 = np.asfortranarray(rng.standard_normal((3, 8)).astype(np.float32))
    c1 = rng.standard_normal((5, 8)).astype(np.float32)
    g = cudnn.pygraph(intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    X, A, BT, C0, C1 = (g.tensor_like(t) for t in (x, a, bt, c0, c1))
    R = g.reduction(X, mode=cudnn.reduction_mode.MAX)
    R.set_output(True).set_dim([2, 3, 4, 1]).set_data_type(cudnn.data_type.FLOAT)
    P = g.add(A, BT)
    P.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    C = g.concatenate([C0, C1], axis=0)
    C.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    g.build([cudnn.heur_mode.A])
    assert [tuple(t.get_stride()) for t in (R, P, C)] == [(12, 1, 3, 3), (1, 16), (1, 8)]
    outs = [_strided(t.get_dim(), t.get_stride(), np.float32, np.nan) for t in (R, P, C)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute({X: x, A: a, BT: bt, C0: c0, C1: c1, R: outs[0], P: outs[1], C: outs[2]})
    np.testing.assert_array_equal(outs[0], x.max(-1, keepdims=True))
    np.testing.assert_allclose(outs[1], a + bt, rtol=1e-6)
    np.testing.assert_array_equal(outs[2], np.concatenate([c0, c1]))


# ---- names of the frontend's recorded API (test/python/api_index) ------------------------


def test_api_index_graph_names_resolve():
    # names of the frontend's api_index.txt that graph-API programs use
    import cudnn.engines

    for dotted in (
        "GraphContext.io_data_type GraphContext.intermediate_data_type GraphContext.compute_data_type "
        "Node.validate Node.infer_properties Node.node_type NodeType.SDPA_BWD NodeType.GDP_SUMMARY_BWD "
        "DeviceInfo.compute_capability DeviceInfo.sm_version DeviceInfo.sm_count DeviceInfo.device_name "
        "DeviceInfo.shared_memory_per_block_optin DeviceInfo.oversized_shared_memory_per_block "
        "DeviceInfo.l2_cache_bytes Tensor.set_alignment_value Tensor.validate tensor.get_alignment "
        "tensor.set_alignment tensor.get_vector_count tensor.get_vector_dimension "
        "tensor.set_vector_count_and_dimension pygraph.backend_plan_entries engines.PlanConfig "
        "engines.ExecutionContext engines.decline_types engines.MANIFEST engines.EngineFamily "
        "engines.is_python_engine engines.is_backend_engine engines.BACKEND_ENGINE_ID_BASE "
        "engines.CPP_OSS_ENGINE_ID_BASE engines.PYTHON_ENGINE_ID_BASE engines.BACKEND_HEURISTIC_ENGINE_ID"
    ).split():
        obj = cudnn
        for part in dotted.split("."):
            obj = getattr(obj, part)
    assert len(cudnn.NodeType) == 52
    assert cudnn.engines.MANIFEST is cudnn.engines.manifest.MANIFEST
    assert (cudnn.engines.BACKEND_ENGINE_ID_BASE, cudnn.engines.CPP_OSS_ENGINE_ID_BASE,
            cudnn.engines.PYTHON_ENGINE_ID_BASE) == (0, 10000, 20000)


def test_every_graph_op_has_its_node_type():
    from graph_compiler import _ops

    # every builder the package has maps to the frontend's NodeType but rng
    # (a node the frontend's Python surface names no type for)
    public = [op for op, spec in _ops.OPS.items() if not spec.get("internal")]
    missing = [op for op in public + list(_ops.SDPA_OPS) + ["matmul", "pointwise"]
               if op != "rng" and gc.Node("n", op).node_type is None]
    assert missing == []
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 4, 8], stride=[32, 8, 1])
    w = g.tensor(name="w", dim=[2, 8, 4], stride=[32, 4, 1])
    y = g.relu(g.matmul(x, w))
    g.reduction(input=y, mode=cudnn.reduction_mode.ADD).set_output(True)
    assert [n.node_type for n in g._nodes] == [cudnn.NodeType.MATMUL, cudnn.NodeType.POINTWISE, cudnn.NodeType.REDUCTION]
    assert gc.Node("r", "rng").node_type is None


def test_node_validate_and_infer_properties():
    g = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[1, 4, 8], stride=[32, 8, 1])
    w = g.tensor(name="w", dim=[1, 8, 4], stride=[32, 4, 1])
    y = g.matmul(x, w, name="mm")
    node = g._nodes[0]
    node.validate()
    node.inputs["B"] = None
    with pytest.raises(ValueError, match=r"node 'mm' \(matmul\): input 'B' is not set"):
        node.validate()
    node.inputs["B"] = "not a tensor"
    with pytest.raises(ValueError, match=r"input 'B' is str, not a graph tensor"):
        node.validate()
    bare = gc.Node("bare", "matmul")
    out = gc.Tensor(name="o", dim=[1], is_virtual=True)
    bare.outputs["C"] = out
    bare.infer_properties(cudnn.GraphContext(io_data_type=cudnn.data_type.HALF, intermediate_data_type=F,
                                             compute_data_type=F))
    assert bare.compute_data_type == F and out.data_type == F  # virtual: the intermediate type
    out.data_type = None
    out.set_output(True)
    bare.infer_properties(cudnn.GraphContext(io_data_type=cudnn.data_type.HALF))
    assert out.data_type == cudnn.data_type.HALF
    # the op's own rule first: a slice of an INT32 tensor is INT32, the
    # attention's stats f32; an integer compute type is not taken
    h = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, compute_data_type=F)
    ints = h.tensor(name="ints", dim=[4, 6], data_type=cudnn.data_type.INT32)
    part = h.slice(ints, slices=[slice(0, 2), slice(0, 6)])
    part.set_output(True)
    q, k, v = (h.tensor(name=n, dim=[1, 2, 8, 16]) for n in "qkv")
    o, stats = h.sdpa(q=q, k=k, v=v, attn_scale=0.25, generate_stats=True)
    for node in h._nodes:
        node.infer_properties(h)
    assert part.data_type == cudnn.data_type.INT32 and stats.data_type == F and o.data_type is not None
    integer = gc.Node("i", "matmul")
    integer.infer_properties(cudnn.GraphContext(compute_data_type=cudnn.data_type.INT32))
    assert integer.compute_data_type is None


class _FakeDeviceProperties:
    major, minor, multi_processor_count = 9, 0, 132
    shared_memory_per_block_optin, L2_cache_size, name = 232448, 52428800, "NVIDIA H200"


def test_device_info_is_the_ordinal_and_answers_device_facts(monkeypatch):
    import sys
    import types

    from graph_compiler import _handles

    info = cudnn.DeviceInfo(1)
    assert info == 1 and info.ordinal == 1 and isinstance(info, int) and repr(info) == "DeviceInfo(cuda:1)"
    assert str(info) == "1" and f"cuda:{info}" == "cuda:1"
    assert isinstance(cudnn.Handle(ordinal=0).device, cudnn.DeviceInfo)
    monkeypatch.setattr(_handles, "_device_properties", {})
    monkeypatch.setitem(sys.modules, "torch", None)  # import torch fails
    with pytest.raises(gc.GraphNoDeviceError, match=r"DeviceInfo\(cuda:1\).sm_count: .*torch, which is not installed"):
        info.sm_count
    asked = []
    fake = types.SimpleNamespace(cuda=types.SimpleNamespace(
        get_device_properties=lambda i: asked.append(i) or _FakeDeviceProperties()))
    monkeypatch.setitem(sys.modules, "torch", fake)
    assert info.compute_capability == (9, 0) and info.sm_version == 90 and info.sm_count == 132
    assert info.shared_memory_per_block_optin == 232448 and info.l2_cache_bytes == 52428800
    assert info.device_name == "NVIDIA H200" and info.oversized_shared_memory_per_block == 0
    assert asked == [1]  # queried once per ordinal

    def no_gpu(i):
        raise RuntimeError("Found no NVIDIA driver on your system")

    fake.cuda.get_device_properties = no_gpu
    with pytest.raises(gc.GraphNoDeviceError, match=r"DeviceInfo\(cuda:2\).device_name: Found no NVIDIA driver"):
        cudnn.DeviceInfo(2).device_name


def test_tensor_alignment_vectors_and_validate():
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 8], stride=[8, 1])
    assert x.get_alignment() == 16 and x.alignment_value is None
    assert x.set_alignment_value(64) is x and x.get_alignment() == 64 and x.alignment_value == 64
    assert x.set_alignment(128).get_alignment() == 128
    for bad in (0, 24, -16):
        with pytest.raises(ValueError, match=rf"tensor 'x': {bad} is not a positive power of two"):
            x.set_alignment_value(bad)
    with pytest.raises(TypeError):
        x.set_alignment_value(16.0)
    x.validate()
    with pytest.raises(ValueError, match=r"tensor 'nodims': dims not set \(call set_dim\)"):
        gc.Tensor(name="nodims").validate()
    with pytest.raises(ValueError, match=r"tensor 't': 1 strides for 2 dims"):
        gc.Tensor(name="t", dim=[2, 3], stride=[1]).validate()
    with pytest.raises(ValueError, match=r"tensor 'v' is both virtual and pass-by-value"):
        gc.Tensor(name="v", dim=[1], is_virtual=True, is_pass_by_value=True).validate()
    assert (x.get_vector_count(), x.get_vector_dimension()) == (1, -1)
    with pytest.raises(ValueError, match=r"count 0 is not positive"):
        x.set_vector_count_and_dimension(0, 1)
    x.set_vector_count_and_dimension(1, 1)  # count 1: a plain layout
    g.relu(x).set_output(True)
    g.validate()
    x.set_vector_count_and_dimension(32, 1)
    assert (x.get_vector_count(), x.get_vector_dimension()) == (32, 1)
    g.validate()  # refused where the frontend refuses, at planning
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"tensor 'x': vector count 32 along dim 1"):
        g.create_execution_plans([cudnn.heur_mode.A])


def test_engine_records():
    from cudnn import engines

    entry = engines.PlanConfig(7, {cudnn.knob_type.EDGE: 1}, 2)
    assert (entry.engine_id, entry.knobs, entry.cpp_index, entry.mode) == (7, {cudnn.knob_type.EDGE: 1}, 2, None)
    with pytest.raises(Exception):
        entry.engine_id = 3  # frozen
    ctx = engines.ExecutionContext(handle="h")
    assert (ctx.handle, ctx.stream, ctx.workspace) == ("h", None, None)
    assert engines.decline_types() == (NotImplementedError, cudnn.cudnnGraphNotSupportedError, ImportError)
    assert engines.BACKEND_HEURISTIC_ENGINE_ID == engines.engine_ids.BACKEND_HEURISTIC_ENGINE_ID == -1


@needs_lib
def test_backend_plan_entries(monkeypatch):
    # CPU only: no cuDNN plan, the CPU reference's is not one of them
    g, *_ = mlp_graph()
    assert g.backend_plan_entries() == []
    # a GPU plan list: cuDNN's plans in rank order with their plan-list
    # index, knobs keyed as get_engine_and_knobs_at_index keys them; the
    # generated-kernel plans (negative ids) are not the backend's
    FakeGpuPlans(codegen=True).install(monkeypatch)
    g, *_ = mlp_graph()
    entries = g.backend_plan_entries()  # asked with mode A when no list was made ...
    assert [(e.engine_id, e.cpp_index, e.mode) for e in entries] == [(0, 0, gc.heur_mode.A), (5, 1, gc.heur_mode.A),
                                                                     (7, 2, gc.heur_mode.A)]
    assert all(isinstance(e, cudnn.engines.PlanConfig) for e in entries)
    # ... without using up the graph's one planning call
    g.create_execution_plans([gc.heur_mode.B, gc.heur_mode.FALLBACK])
    entries = g.backend_plan_entries()
    assert entries[2].knobs == g.get_engine_and_knobs_at_index(2)[1]
    assert [e.mode for e in entries] == [None] * 3  # two modes made the list
    # a graph the compiler rejects is an error, not "no entries"
    bad = gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    bad.matmul(bad.tensor(name="a", dim=[1, 4, 8]), bad.tensor(name="b", dim=[1, 6, 3])).set_output(True)
    with pytest.raises(gc.GraphValidationError):
        bad.backend_plan_entries()
    # a graph cuDNN declines: []
    def decline(module, modes):
        raise cudnn.cudnnGraphNotSupportedError("no GPU engine runs this graph")

    monkeypatch.setattr(_plans, "propose", decline)
    g2, *_ = mlp_graph()
    assert g2.backend_plan_entries() == []


@needs_lib
def test_conv_gradients_dims_are_the_users():
    # A filter [K, C/groups, R, S] does not say the group count: a depthwise
    # conv's DX and DW would get an ungrouped conv's dims ([1, 1, 5, 5] and
    # [4, 4, 3, 3] here). The frontend infers none (its programs set them);
    # the package refuses at validate naming the output, and takes set_dim.
    def graph(set_dims):
        g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
        dy = g.tensor(name="dy", dim=[1, 4, 5, 5], stride=[100, 1, 20, 4])
        w = g.tensor(name="w", dim=[4, 1, 3, 3], stride=[9, 1, 3, 1])
        x = g.tensor(name="x", dim=[1, 4, 5, 5], stride=[100, 1, 20, 4])
        geometry = dict(padding=[1, 1], stride=[1, 1], dilation=[1, 1])
        dx = g.conv_dgrad(dy, w, name="dgrad", **geometry)
        dw = g.conv_wgrad(x, dy, name="wgrad", **geometry)
        assert dx.get_dim() == [] and dw.get_dim() == []  # no guess
        if set_dims:
            dx.set_dim([1, 4, 5, 5])
            dw.set_dim([4, 1, 3, 3])
        dx.set_output(True)
        dw.set_output(True)
        return g, dx, dw

    g, dx, dw = graph(False)
    with pytest.raises(ValueError, match=r"output 'dgrad::DX' .* of conv_dgrad node 'dgrad' has no dims: call set_dim\(\) "
                                         r"with the conv input's dims \(the filter does not give the group count"):
        g.validate()
    g, dx, dw = graph(True)
    g.validate()
    assert dx.get_dim() == [1, 4, 5, 5] and dw.get_dim() == [4, 1, 3, 3]


@needs_lib
def test_transpose_output_is_a_view_of_the_input_order():
    # the frontend infers a transpose output's strides as the input's,
    # permuted: the buffer holds the elements in the input's memory order
    g = cudnn.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 3, 4, 5], stride=[60, 20, 5, 1])
    y = g.transpose(x, permutation=[0, 2, 3, 1])
    y.set_output(True)
    z = g.transpose(x, permutation=[0, 2, 3, 1]).set_stride([60, 15, 3, 1])  # the caller's strides win
    z.set_output(True)
    h = g.relu(g.transpose(x, permutation=[3, 2, 1, 0]))  # an intermediate: the compiler's layout
    h.set_output(True)
    g.build([cudnn.heur_mode.A])
    assert y.get_stride() == [60, 5, 1, 20] and z.get_stride() == [60, 15, 3, 1]
    xv = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)
    yb, zb, hb = (np.full(120, np.nan, np.float32) for _ in range(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.execute({x: xv, y: yb, z: zb, h: hb})
    np.testing.assert_array_equal(yb, xv.ravel())  # the input's order
    np.testing.assert_array_equal(zb, xv.transpose(0, 2, 3, 1).ravel())
    assert h.get_stride() == [24, 6, 2, 1]
    np.testing.assert_array_equal(hb.reshape(h.get_dim()), np.maximum(xv.transpose(3, 2, 1, 0), 0))


def test_version_is_the_frontend_api_modelled():
    # programs gate features on the frontend's version (FlashInfer's FP4
    # path wants 1.13+); graph_compiler keeps its own
    major, minor = (int(p) for p in cudnn.__version__.split(".")[:2])
    assert (major, minor) >= (1, 13)
    assert cudnn.__version__ == gc.FRONTEND_API_VERSION != gc.__version__


@needs_lib
def test_block_size_along_another_dim():
    # a block along K of a [K, N] operand: block_size [16, 1] (FlashInfer's
    # FP4 GEMM dequantizes its operand B so)
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[1, 64, 32], stride=[2048, 32, 1], data_type=F)
    q, scale = g.block_scale_quantize(x, block_size=[16, 1], name="q")
    q.set_output(True)
    scale.set_output(True)
    assert (q.dim, scale.dim) == ([1, 64, 32], [1, 4, 32])
    assert g._nodes[0].params == {"block_size": 16, "axis": 1}
    g.build([cudnn.heur_mode.A])
    xv = np.random.default_rng(0).standard_normal((1, 64, 32)).astype(np.float32)
    xv[0, 16:32, 5] *= 100  # one block's scale, and only that one, is larger
    qv, sv = np.zeros((1, 64, 32), np.uint8), np.zeros((1, 4, 32), np.uint8)
    g.execute({x: xv, q: qv, scale: sv})
    assert sv[0, 1, 5] > sv[0, 0, 5] and sv[0, 1, 5] > sv[0, 1, 4]
    # dequantize blocks the last dim only: its dims are inferred, the graph
    # validates, and planning refuses it naming the block size
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    b = g.tensor(name="b", dim=[1, 64, 32], stride=[2048, 32, 1], data_type=gc.data_type.FP8_E4M3)
    s = g.tensor(name="s", dim=[1, 4, 32], stride=[128, 32, 1], data_type=gc.data_type.FP8_E4M3)
    y = g.block_scale_dequantize(b, s, block_size=[16, 1], name="dequant_b")
    y.set_output(True)
    assert y.dim == [1, 64, 32]
    g.validate()
    g.build_operation_graph()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"'dequant_b': block_size \[16, 1\]"):
        g.create_execution_plans([cudnn.heur_mode.A])
    # a list longer than the input's rank names no dim of it: refused
    g = cudnn.pygraph(io_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[64, 32], stride=[32, 1], data_type=F)
    q, scale = g.block_scale_quantize(x, block_size=[16, 1, 1], name="q3")
    q.set_output(True)
    scale.set_output(True)
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"'q3': block_size \[16, 1, 1\]"):
        g.create_execution_plans([cudnn.heur_mode.A])


def test_moe_combine_mode_is_refused_at_planning():
    g = cudnn.pygraph(io_data_type=gc.data_type.BFLOAT16, compute_data_type=F)
    tok = g.tensor(name="tok", dim=[1, 8, 16], stride=[128, 16, 1])
    w = g.tensor(name="w", dim=[2, 16, 4], stride=[64, 4, 1])
    off = g.tensor(name="off", dim=[2, 1, 1], stride=[1, 1, 1], data_type=gc.data_type.INT32)
    idx = g.tensor(name="idx", dim=[1, 8, 1], stride=[8, 1, 1], data_type=gc.data_type.INT32)
    y = g.moe_grouped_matmul(tok, w, off, idx, mode=cudnn.moe_grouped_matmul_mode.COMBINE, top_k=2)
    assert y.dim == [1, 4, 4]  # each token's top_k rows summed: [1, rows / top_k, N]
    y.set_output(True)
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="mode COMBINE"):
        g.create_execution_plans([cudnn.heur_mode.A])


def test_enum_integers_are_the_frontends():
    # Programs persist enums as integers (json, caches): the values are the
    # frontend's C++ enums', whose NOT_SET (absent from the bindings) is 0
    # where it has one.
    expect = {
        cudnn.heur_mode.A: 0, cudnn.heur_mode.B: 1, cudnn.heur_mode.FALLBACK: 2, cudnn.heur_mode.OPENSOURCE: 3,
        cudnn.behavior_note.RUNTIME_COMPILATION: 1, cudnn.behavior_note.CUBLASLT_DEPENDENCY: 5,
        cudnn.numerical_note.TENSOR_CORE: 1, cudnn.numerical_note.NONDETERMINISTIC: 5,
        cudnn.numerical_note.STRICT_NAN_PROP: 10,
        cudnn.convolution_mode.CONVOLUTION: 1, cudnn.convolution_mode.CROSS_CORRELATION: 2,
        cudnn.reshape_mode.VIEW_ONLY: 1, cudnn.reshape_mode.LOGICAL: 2,
        cudnn.moe_grouped_matmul_mode.NONE: 1, cudnn.moe_grouped_matmul_mode.GATHER: 2,
        cudnn.moe_grouped_matmul_mode.SCATTER: 3,
        cudnn.norm_forward_phase.INFERENCE: 1, cudnn.norm_forward_phase.TRAINING: 2,
        cudnn.reduction_mode.ADD: 1, cudnn.diagonal_alignment.BOTTOM_RIGHT: 1,
        cudnn.data_type.FLOAT: 1, cudnn.data_type.HALF: 3, cudnn.data_type.BFLOAT16: 10,
        cudnn.data_type.FP8_E4M3: 13, cudnn.attention_implementation.UNIFIED: 2,
    }
    for member, value in expect.items():
        assert int(member) == value, member
        assert type(member)(value) is member


def test_sdpa_mask_dropout_scale_forms():
    # dropout=(mask, scale): a float scale is 1 / keep probability; the
    # frontend's tensor scale (read when the graph runs) is refused at
    # planning by name, a scale below 1 at the call
    def graph(scale_of):
        g = cudnn.pygraph(io_data_type=gc.data_type.HALF, compute_data_type=F)
        q, k, v = (g.tensor(name=n, dim=[1, 2, 8, 16], stride=[256, 128, 16, 1]) for n in "qkv")
        mask = g.tensor(name="mask", dim=[1, 2, 8, 8], stride=[128, 64, 8, 1])
        o, _ = g.sdpa(q, k, v, attn_scale=0.25, generate_stats=False, dropout=(mask, scale_of(g)))
        o.set_output(True)
        return g

    assert "dropout_probability = 5.0" in graph(lambda g: 2.0).to_mlir()
    g = graph(lambda g: g.tensor(name="scale", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], is_pass_by_value=True,
                                 data_type=F))
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"dropout=\(mask, scale\) with the scale a tensor"):
        g.create_execution_plans([cudnn.heur_mode.A])
    with pytest.raises(ValueError, match="dropout scale must be 1 / keep probability"):
        graph(lambda g: 0.5)
