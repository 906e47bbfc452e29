"""The frontend's core graph-API contract that its newer test layout
(test/python/core/graph) checks on the CPU: the positional order of the
graph constructor and of tensor() as the extension module documents them,
the classic unset sentinels, the graph's context, the cudnn._pygraph module.
Every assertion here holds for the cuDNN frontend's own package too."""

import contextlib
import importlib
import inspect
import warnings

import numpy as np
import pytest

import cudnn


def _signature_names(doc):
    """Parameter names, in order, from the first line of a pybind11-style
    docstring that carries a call signature (self and *args/**kwargs left
    out)."""
    line = next(ln for ln in doc.splitlines() if "(" in ln)
    inner = line[line.index("(") + 1 : line.rindex(")")]
    names, depth, cur = [], 0, ""
    for ch in inner + ",":
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            p = cur.strip()
            cur = ""
            if p and not p.startswith("self") and not p.startswith("*"):
                names.append(p.split(":")[0].split("=")[0].strip())
        else:
            cur += ch
    return names


def _positional(fn):
    params = list(inspect.signature(fn).parameters.values())[1:]
    return [p.name for p in params if p.kind == p.POSITIONAL_OR_KEYWORD]


# ---- cudnn._pygraph and the documented constructor order ---------------------------


def test_pygraph_module_holds_the_graph_class():
    mod = importlib.import_module("cudnn._pygraph")
    assert mod.pygraph is cudnn.pygraph
    from cudnn import _pygraph

    assert _pygraph is mod


def test_constructor_doc_names_the_positional_order():
    classic = _signature_names(cudnn._pybind_module.backend_graph.__init__.__doc__)
    assert classic[:4] == ["name", "io_data_type", "intermediate_data_type", "compute_data_type"]
    assert "handle" in classic and "kernel_cache" in classic
    # the graph class takes exactly these positionally, in this order
    assert _positional(cudnn.pygraph.__init__) == classic


def test_constructor_positional_call():
    g = cudnn.pygraph("my_graph", cudnn.data_type.HALF, cudnn.data_type.FLOAT, cudnn.data_type.FLOAT)
    assert g._cpp_graph_kwargs["name"] == "my_graph"
    assert g.context.io_data_type == cudnn.data_type.HALF
    assert g.context.intermediate_data_type == cudnn.data_type.FLOAT
    assert g.context.compute_data_type == cudnn.data_type.FLOAT


def test_context_defaults_follow_io_type():
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16)
    assert g.context.io_data_type == cudnn.data_type.BFLOAT16
    assert g.context.intermediate_data_type == cudnn.data_type.BFLOAT16
    assert g.context.compute_data_type == cudnn.data_type.BFLOAT16


def test_graph_kwargs_keep_the_settings_that_are_set():
    g = cudnn.pygraph(name="g", sm_count=8, is_override_shape_enabled=True)
    kw = g._cpp_graph_kwargs
    assert kw["name"] == "g" and kw["sm_count"] == 8 and kw["is_override_shape_enabled"] is True
    assert "sm_version" not in kw and "kernel_cache" not in kw and "is_dynamic_shape_enabled" not in kw
    assert cudnn.pygraph()._cpp_graph_kwargs["name"] == "test_graph"


# ---- tensor(): classic positional order and unset sentinels ------------------------


def test_tensor_positional_order():
    assert _positional(cudnn.pygraph.tensor) == [
        "dim",
        "stride",
        "data_type",
        "is_virtual",
        "is_pass_by_value",
        "ragged_offset",
        "reordering_type",
        "name",
        "uid",
        "ragged_offset_multiplier",
        "alignment_value",
    ]
    assert _positional(cudnn._pybind_module.backend_graph.tensor) == _positional(cudnn.pygraph.tensor)


def test_tensor_full_positional_call():
    g = cudnn.pygraph()
    ro = g.tensor([2, 2], [2, 1], cudnn.data_type.INT32, False, False, None, None, "ragged", 7, 1)
    t = g.tensor([4, 4], [4, 1], cudnn.data_type.HALF, False, True, ro, cudnn.tensor_reordering.NONE, "classic", 9, 2)
    assert t.name == "classic" and t.uid == 9 and t.uid_assigned and t.is_pass_by_value
    # the Python-native pygraph's alignment_value keyword (set_alignment_value)
    assert g.tensor([4], [1], cudnn.data_type.HALF, alignment_value=16).alignment_value == 16
    with pytest.raises(ValueError, match="not a positive power of two"):
        g.tensor([4], [1], cudnn.data_type.HALF, alignment_value=12)
    assert t.dim == [4, 4] and t.stride == [4, 1] and t.data_type == cudnn.data_type.HALF
    assert t.ragged_offset is ro and t.ragged_offset_multiplier == 2
    assert t.reordering_type is None  # NONE is "unset"
    assert ro.uid == 7 and ro.data_type == cudnn.data_type.INT32


def test_tensor_unset_sentinels():
    g = cudnn.pygraph()
    u = g.tensor([2, 2], None, cudnn.data_type.NOT_SET, False, False, None, None, "unset", -1)
    assert u.uid > 0 and not u.uid_assigned  # -1: allocate one
    assert u.data_type is None or u.data_type.name != "NOT_SET"
    assert u.stride == [2, 1]  # no stride: packed row-major


def test_tensor_rejects_unknown_keyword():
    g = cudnn.pygraph()
    with pytest.raises(TypeError):
        g.tensor(dim=[2, 2], not_an_argument=1)


# ---- knob types: persisted numbers, plan knobs keyed by them -----------------------

_BACKEND_KNOBS = (
    "NOT_SET SWIZZLE TILE_SIZE EDGE MULTIPLY SPLIT_K_BUF TILEK STAGES REDUCTION_MODE SPLIT_K_SLC IDX_MODE SPECFILT "
    "KERNEL_CFG WORKSPACE TILE_CGA_M TILE_CGA_N BLOCK_SIZE OCCUPANCY ARRAY_SIZE_PER_THREAD SPLIT_COLS TILE_ROWS "
    "TILE_COLS LOAD_SIZE CTA_COUNT STREAM_K SPLIT_P_SLC TILE_M TILE_N WARP_SPEC_CFG SWAP_AB INPUT_TMA_ENABLE "
    "OUTPUT_TMA_ENABLE TILE_CGA"
).split()
_FRONTEND_KNOBS = "SCHED_POLICY PACK_GQA SPLIT_KV PIPELINE_ARCH MMA_TILE_M MMA_TILE_N MMA_TILE_K CTA_GROUP WARPS_M WARPS_N CGA_POLICY".split()


def test_knob_type_numbers_are_the_persisted_ones():
    kt = cudnn.knob_type
    assert cudnn.FRONTEND_KNOB_TYPE_BASE == 1000
    backend = {n: int(m) for n, m in kt.__members__.items() if not cudnn.is_frontend_knob_type(m)}
    frontend = {n: int(m) for n, m in kt.__members__.items() if cudnn.is_frontend_knob_type(m)}
    assert backend == {n: i for i, n in enumerate(_BACKEND_KNOBS)}
    assert frontend == {n: 1000 + i for i, n in enumerate(_FRONTEND_KNOBS)}
    assert kt(1002) is kt.SPLIT_KV and kt(26) is kt.TILE_M and kt(32) is kt.TILE_CGA
    assert not cudnn.is_frontend_knob_type(kt.TILE_M) and cudnn.is_frontend_knob_type(kt.CGA_POLICY)


needs_lib = pytest.mark.skipif(not cudnn.is_available(), reason="libGraphCAPI.so is not built")


@needs_lib
def test_cudnn_plan_knobs_are_keyed_by_knob_type(monkeypatch):
    from test_plans import FakeGpuPlans, mlp_graph

    fake = FakeGpuPlans().install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans([cudnn.heur_mode.A])
    engine, knobs = g.get_engine_and_knobs_at_index(0)  # the fake's engine 0 has backend knob code 2
    assert engine == 0 and knobs == {cudnn.knob_type.TILE_SIZE: 1}
    assert all(isinstance(k, cudnn.knob_type) and isinstance(v, int) for k, v in knobs.items())
    # the record replays as it was read
    g.create_execution_plan(engine, knobs)
    assert ("add", 0, ((2, 1),)) in fake.calls


@needs_lib
@pytest.mark.parametrize("knob", ["SPLIT_KV", "CGA_POLICY"])
def test_frontend_only_knob_is_refused_by_a_cudnn_plan(monkeypatch, knob):
    from test_plans import FakeGpuPlans, mlp_graph

    FakeGpuPlans().install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans([cudnn.heur_mode.A])
    with pytest.raises(RuntimeError, match=r"convert_to_backend_knob_type.*CUDNN_STATUS_NOT_SUPPORTED"):
        g.create_execution_plan(7, {getattr(cudnn.knob_type, knob): 1})


# ---- execute(values, workspace, tensor_uids=...): the ordered variant pack ---------


def _mlp_buffers():
    import numpy as np

    rng = np.random.default_rng(1)
    av = rng.standard_normal((1, 4, 8)).astype(np.float32)
    bv = rng.standard_normal((1, 8, 6)).astype(np.float32)
    cv = rng.standard_normal((1, 1, 6)).astype(np.float32)
    return av, bv, cv, np.full((1, 4, 6), np.nan, np.float32)


@needs_lib
@pytest.mark.parametrize("at_index", [False, True])
def test_ordered_pack_matches_the_mapping(at_index):
    import numpy as np
    from test_plans import mlp_graph

    g, a, b, bias, y = mlp_graph()
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    av, bv, cv, out = _mlp_buffers()
    g.execute({a: av, b: bv, bias: cv, y: out}, None)
    expected = out.copy()
    np.testing.assert_allclose(expected, np.maximum(av @ bv + cv, 0), rtol=1e-5, atol=1e-5)
    out.fill(np.nan)
    # any order, list or tuple, plus a uid the graph does not use (ignored)
    values = (out, cv, av, bv, object())
    uids = [y.get_uid(), bias.get_uid(), a.get_uid(), b.get_uid(), 12345]
    if at_index:
        g.execute_plan_at_index(list(values), None, index=0, tensor_uids=uids)
    else:
        g.execute(values, None, tensor_uids=tuple(uids))
    np.testing.assert_array_equal(out, expected)


@needs_lib
@pytest.mark.parametrize("invalid", ["duplicate", "duplicate_unused", "missing", "count"])
def test_ordered_pack_rejects_bad_uid_lists_before_running(invalid):
    import numpy as np
    from test_plans import mlp_graph

    g, a, b, bias, y = mlp_graph()
    g.build([cudnn.heur_mode.A])
    av, bv, cv, out = _mlp_buffers()
    values, uids = [av, bv, cv, out], [a.get_uid(), b.get_uid(), bias.get_uid(), y.get_uid()]
    if invalid == "duplicate":
        uids[-1] = uids[0]
    elif invalid == "duplicate_unused":
        uids += [999, 999]
        values += [object(), object()]
    elif invalid == "missing":
        values.pop()
        uids.pop()
    else:
        uids.pop()
    with pytest.raises(ValueError, match="uid|buffer|length|count"):
        g.execute(values, None, tensor_uids=uids)
    assert np.isnan(out).all()


# ---- handles: cudnn.Handle only, destroy releases ----------------------------------


def test_create_handle_gives_a_cudnn_handle():
    h = cudnn.create_handle()
    assert isinstance(h, cudnn.Handle)
    assert cudnn.get_stream(h) == 0  # a fresh handle runs on stream 0, as the frontend reports it


@pytest.mark.parametrize(
    "call",
    [
        lambda: cudnn.set_stream(handle=1, stream=100),
        lambda: cudnn.get_stream(1),
        lambda: cudnn.destroy_handle(1),
    ],
)
def test_a_raw_int_is_not_a_handle(call):
    with pytest.raises(TypeError, match="cudnn.Handle"):
        call()


def test_destroyed_handle_is_released_once():
    h = cudnn.create_handle()
    cudnn.destroy_handle(h)
    assert h.stream is None and cudnn.get_stream(h) is None
    cudnn.destroy_handle(h)  # a second destroy does nothing
    cudnn.set_stream(h, 200)  # nor does a stream for a released handle (no runtime call, even without a GPU)
    assert cudnn.get_stream(h) is None


# ---- which engine serves a plan -----------------------------------------------------


@needs_lib
def test_no_python_engine_serves_a_plan():
    from cudnn.engines.engine_ids import is_python_engine
    from test_plans import mlp_graph

    g, *_ = mlp_graph()
    g.build([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    assert cudnn.engines.engine_ids is importlib.import_module("cudnn.engines.engine_ids")
    assert g.selected_engine is None  # the graph's own lowering runs it
    assert not any(is_python_engine(g.get_engine_and_knobs_at_index(i)[0]) for i in range(g.get_execution_plan_count()))


def test_engine_knob_adapters_and_the_knob_repr():
    # Engine code written against the frontend subclasses BaseEngine for its
    # knob adapters (dicts pass through, None and {} are "no knobs", a typed
    # knob object needs the engine's own adapter) and prints knobs by name.
    from cudnn.engines import BaseEngine, public_knobs_repr

    class Plain(BaseEngine):
        name = "plain"

    kt = cudnn.knob_type
    e = Plain()
    assert e.knobs_to_public(None) == {} and e.knobs_from_public({}) is None
    assert e.knobs_to_public({kt.TILE_M: 128}) == {kt.TILE_M: 128} == e.knobs_from_public({kt.TILE_M: 128})
    with pytest.raises(TypeError, match=r"Plain.knobs_to_public\(\) takes a dict or None; a object knob object"):
        e.knobs_to_public(object())
    assert public_knobs_repr({kt.TILE_N: 128, kt.TILE_M: 64, kt.SPLIT_KV: 2}) == "SPLIT_KV=2, TILE_M=64, TILE_N=128"
    assert public_knobs_repr({kt(-4): 1, kt.EDGE: 0}) == "BACKEND_KNOB_3=1, EDGE=0"
    assert public_knobs_repr({}) == ""


# ---- the frontend's torch-operator namespaces: importable, names decline -----------


@pytest.mark.parametrize(
    "module,names",
    [
        ("cudnn.ops.norm", ["layer_norm", "rms_norm"]),
        ("cudnn.experimental.ops", ["moe_grouped_matmul", "swiglu_mlp", "rms_norm", "layer_norm"]),
    ],
)
def test_torch_operator_namespaces_import_and_names_raise_import_error(module, names):
    mod = importlib.import_module(module)
    for name in names:
        assert name in dir(mod)
        with pytest.raises(ImportError):
            getattr(mod, name)
    with pytest.raises(AttributeError):
        getattr(mod, "no_such_operator")


def test_experimental_is_an_attribute_of_cudnn():
    import subprocess
    import sys

    # a fresh interpreter: cudnn.experimental without importing it by path, and no torch pulled in
    code = "import sys, cudnn; x = cudnn.experimental.ops; print('torch' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(__import__("os").environ, PYTHONPATH=":".join(sys.path)))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


# ---- attention sequence lengths declared 1-D (sdpa/fp16.py of the nested layout) -----------


def _padded_sdpa(one_d, q, k, v, lq, lkv, scale):
    import numpy as np

    b = q.shape[0]
    g = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    Q, K, V = (g.tensor_like(a) for a in (q, k, v))
    dim, stride = ((b,), (1,)) if one_d else ((b, 1, 1, 1), (1, 1, 1, 1))
    SQ = g.tensor(uid=11, dim=dim, stride=stride, data_type=cudnn.data_type.INT32)
    SK = g.tensor(uid=12, dim=dim, stride=stride, data_type=cudnn.data_type.INT32)
    o, stats = g.sdpa(name="sdpa_forward", q=Q, k=K, v=V, generate_stats=False, attn_scale=scale, use_padding_mask=True, seq_len_q=SQ, seq_len_kv=SK)
    assert stats is None
    o.set_output(True)
    g.validate()
    g.build_operation_graph()
    g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    g.check_support()
    g.build_plans()
    out = np.zeros(q.shape, np.float16)
    g.execute({Q: q, K: k, V: v, SQ: lq.reshape(dim), SK: lkv.reshape(dim), o: out})
    return out, SQ, SK


@needs_lib
def test_sdpa_takes_one_dimensional_sequence_lengths():
    import warnings

    import numpy as np

    rng = np.random.default_rng(5)
    b, h, s, d = 2, 2, 8, 16
    q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float16) for _ in range(3))
    lq, lkv = np.array([8, 5], np.int32), np.array([6, 3], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a (B,) buffer for a tensor declared (B,) is its own view: no BufferViewWarning
        out1, SQ, SK = _padded_sdpa(True, q, k, v, lq, lkv, 0.25)
    # the per-batch lengths are the attention's [B, 1, 1, 1] tensor, the batch stride kept
    assert SQ.get_dim() == [b, 1, 1, 1] and SK.get_stride() == [1, 1, 1, 1]
    out4, _, _ = _padded_sdpa(False, q, k, v, lq, lkv, 0.25)
    np.testing.assert_array_equal(out1, out4)
    sc = (q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2)) * 0.25
    for i in range(b):
        keys = sc[i, :, : lq[i], : lkv[i]]  # the kv padding is masked out of the softmax
        p = np.exp(keys - keys.max(-1, keepdims=True))
        ref = (p / p.sum(-1, keepdims=True)) @ v[i, :, : lkv[i]].astype(np.float64)
        np.testing.assert_allclose(out1[i, :, : lq[i]].astype(np.float64), ref, rtol=1e-2, atol=1e-2)
    assert not np.any(out1[1, :, lq[1] :])  # rows past seq_len_q are zero


@needs_lib
def test_sdpa_backward_takes_one_dimensional_sequence_lengths():
    F, H, I32 = cudnn.data_type.FLOAT, cudnn.data_type.HALF, cudnn.data_type.INT32
    b, h, s, d = 2, 3, 64, 64
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    dims, strides = [b, h, s, d], [h * s * d, s * d, d, 1]
    q, k, v, o, dO = (g.tensor(uid=u, dim=dims, stride=strides, data_type=H) for u in (0, 1, 2, 3, 9))
    stats = g.tensor(uid=4, dim=[b, h, s, 1], stride=[h * s, s, 1, 1], data_type=F)
    SQ = g.tensor(uid=11, dim=(b,), stride=(1,), data_type=I32)
    SK = g.tensor(uid=12, dim=(b,), stride=(1,), data_type=I32)
    dQ, dK, dV = g.sdpa_backward(
        name="sdpa_backward", q=q, k=k, v=v, o=o, dO=dO, stats=stats, attn_scale=0.125, use_padding_mask=True, seq_len_q=SQ, seq_len_kv=SK
    )
    for t in (dQ, dK, dV):
        t.set_output(True)
    g.validate()
    g.build_operation_graph()
    assert SQ.get_dim() == [b, 1, 1, 1] and SK.get_dim() == [b, 1, 1, 1]


def _banded_sdpa_graph(s_q, s_kv, padding, **band):
    F, H, I32 = cudnn.data_type.FLOAT, cudnn.data_type.HALF, cudnn.data_type.INT32
    b, h, d = 2, 2, 64
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[b, h, s_q, d], stride=[h * s_q * d, s_q * d, d, 1], data_type=H)
    k = g.tensor(name="k", dim=[b, h, s_kv, d], stride=[h * s_kv * d, s_kv * d, d, 1], data_type=H)
    v = g.tensor(name="v", dim=[b, h, s_kv, d], stride=[h * s_kv * d, s_kv * d, d, 1], data_type=H)
    extra = {}
    if padding:
        extra = dict(
            use_padding_mask=True,
            seq_len_q=g.tensor(name="sq", dim=[b, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32),
            seq_len_kv=g.tensor(name="skv", dim=[b, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32),
        )
    o, _ = g.sdpa(name="attn", q=q, k=k, v=v, attn_scale=0.125, generate_stats=False, **band, **extra)
    o.set_output(True)
    return g


@needs_lib
@pytest.mark.parametrize(
    "band, rule",
    [
        (dict(diagonal_alignment=cudnn.diagonal_alignment.BOTTOM_RIGHT, diagonal_band_right_bound=0), "Bottom right causal mask"),
        (dict(use_causal_mask_bottom_right=True), "Bottom right causal mask"),
        (dict(diagonal_alignment=cudnn.diagonal_alignment.BOTTOM_RIGHT, diagonal_band_left_bound=4), "Sliding window"),
        (dict(diagonal_alignment=cudnn.diagonal_alignment.TOP_LEFT, diagonal_band_left_bound=4, diagonal_band_right_bound=0), "Sliding window"),
    ],
)
def test_sdpa_refuses_bands_with_more_query_rows_than_keys_as_the_frontend(band, rule):
    # s_q 128 > s_kv 64 without padding: the frontend's validate() says not
    # supported (its test_mhas expects a skip; its torch reference has NaN rows)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=rf"sdpa 'attn': {rule}.*s_q 128, s_kv 64"):
        _banded_sdpa_graph(128, 64, False, **band).validate()
    # the same band is fine with s_q <= s_kv, or with the padding mask
    _banded_sdpa_graph(64, 128, False, **band).validate()
    _banded_sdpa_graph(128, 64, True, **band).validate()
    # top-left causal with s_q > s_kv is not refused (every row sees key 0)
    _banded_sdpa_graph(128, 64, False, use_causal_mask=True).validate()


def _pack_page_table(table, lkv, page_size):
    """The frontend's packed page table (test_mhas paged_packed): batch b's
    ceil(seq_len_kv / page_size) entries one after the other, viewed [B, 1,
    pages_per_batch, 1]; and their element offsets [B + 1, 1, 1, 1]."""
    import numpy as np

    b, _, per_batch, _ = table.shape
    counts = -(-lkv.reshape(-1) // page_size)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    flat = np.zeros(b * per_batch, np.int32)
    for i in range(b):
        flat[starts[i] : starts[i + 1]] = table[i, 0, : counts[i], 0]
    return flat.reshape(b, 1, per_batch, 1), starts.reshape(b + 1, 1, 1, 1)


def _paged_sdpa(paged, q, k, v, lq, lkv, table, s_kv, page_size, run_table=None, packed=False, fp8=False):
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    b, h, s_q, d = q.shape
    io = cudnn.data_type.FP8_E4M3 if fp8 else H  # fp8: e4m3 bit patterns in uint8 arrays
    g = cudnn.pygraph(io_data_type=io, intermediate_data_type=F, compute_data_type=F)
    if paged:
        pages = table.size
        kc = np.zeros((pages, h, page_size, d), k.dtype)
        vc = np.zeros_like(kc)
        for bb in range(b):
            for t in range(table.shape[2]):
                rows = slice(t * page_size, min((t + 1) * page_size, s_kv))
                n = rows.stop - rows.start
                kc[table[bb, 0, t, 0], :, :n] = k[bb, :, rows]
                vc[table[bb, 0, t, 0], :, :n] = v[bb, :, rows]
        k_buf, v_buf = kc, vc
    else:
        k_buf, v_buf = k, v
    Q, K, V = g.tensor_like(q), g.tensor_like(k_buf), g.tensor_like(v_buf)
    if fp8:
        for t in (Q, K, V):
            t.set_data_type(io)
    SQ, SK = g.tensor_like(lq), g.tensor_like(lkv)
    extra = {}
    if packed:
        table, table_offsets = _pack_page_table(table, lkv, page_size)
    if paged:
        TK, TV = g.tensor_like(table), g.tensor_like(table)
        if packed:
            TO = g.tensor_like(table_offsets)
            TK.set_ragged_offset(TO)
            TV.set_ragged_offset(TO)
        extra = dict(paged_attention_k_table=TK, paged_attention_v_table=TV, paged_attention_max_seq_len_kv=s_kv)
    common = dict(attn_scale=0.25, generate_stats=False, use_padding_mask=True, seq_len_q=SQ, seq_len_kv=SK,
                  use_causal_mask=True, **extra)
    scales = {}
    if fp8:
        scales = {name: g.tensor(name=name, dim=[1, 1, 1, 1], data_type=F)
                  for name in ("descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o")}
        o, _, _, amax_o = g.sdpa_fp8(name="attn", q=Q, k=K, v=V, **scales, **common)
        amax_o.set_output(True).set_data_type(F)
        o.set_data_type(H)
    else:
        o, _ = g.sdpa(name="attn", q=Q, k=K, v=V, **common)
    o.set_output(True).set_dim([b, h, s_q, d]).set_stride([h * s_q * d, s_q * d, d, 1])
    g.build([cudnn.heur_mode.A])
    out = np.zeros((b, h, s_q, d), np.float16)
    pack = {Q: q, K: k_buf, V: v_buf, SQ: lq, SK: lkv, o: out}
    if fp8:
        pack.update({t: np.full((1, 1, 1, 1), 1.0 if n != "scale_s" else 16.0, np.float32) for n, t in scales.items()})
        pack[amax_o] = np.zeros((1, 1, 1, 1), np.float32)
    if paged:
        bound = table if run_table is None else run_table
        pack.update({TK: bound, TV: bound})
        if packed:
            pack[TO] = table_offsets
    g.execute(pack, None)
    return out


@needs_lib
def test_sdpa_reads_paged_kv_caches():
    # the frontend's paged attention (test_mhas paged1): K and V live in
    # pages [num_pages, H, page_size, D]; each batch's table row names the
    # page of each run of page_size positions; equals attention on the
    # gathered K/V (pages shuffled, a partial last page, padding + causal)
    import numpy as np

    rng = np.random.default_rng(7)
    b, h, s_q, s_kv, d, page = 2, 2, 16, 40, 16, 16
    q = rng.standard_normal((b, h, s_q, d)).astype(np.float16)
    k = rng.standard_normal((b, h, s_kv, d)).astype(np.float16)
    v = rng.standard_normal((b, h, s_kv, d)).astype(np.float16)
    lq = np.array([16, 9], np.int32).reshape(b, 1, 1, 1)
    lkv = np.array([40, 21], np.int32).reshape(b, 1, 1, 1)
    per_batch = -(-s_kv // page)
    table = rng.permutation(b * per_batch).astype(np.int32).reshape(b, 1, per_batch, 1)
    paged = _paged_sdpa(True, q, k, v, lq, lkv, table, s_kv, page)
    plain = _paged_sdpa(False, q, k, v, lq, lkv, table, s_kv, page)
    np.testing.assert_array_equal(paged, plain)
    assert np.abs(paged).max() > 0.1
    # a packed page table (ragged offsets on the tables) reads the same
    # pages; batch 0 uses 2 of its 3 pages, so batch 1's entries start at 2
    lkv2 = np.array([30, 21], np.int32).reshape(b, 1, 1, 1)
    assert _pack_page_table(table, lkv2, page)[1].reshape(-1).tolist() == [0, 2, 4]
    packed = _paged_sdpa(True, q, k, v, lq, lkv2, table, s_kv, page, packed=True)
    np.testing.assert_array_equal(packed, _paged_sdpa(False, q, k, v, lq, lkv2, table, s_kv, page))
    assert np.abs(packed).max() > 0.1
    # a table entry outside the container is an error naming it, not a read
    bad = table.copy()
    bad[0, 0, 0, 0] = 99
    with pytest.raises(Exception, match="page table entry 99"):
        _paged_sdpa(True, q, k, v, lq, lkv, table, s_kv, page, run_table=bad)


def _fp8_bits(rng, shape):
    """Random finite e4m3 values (|x| <= 2, both signs) as uint8 bit patterns."""
    import numpy as np

    magnitude = rng.integers(0x00, 0x40, size=shape, dtype=np.uint8)  # exponents up to 2^0 with the mantissa
    return magnitude | (rng.integers(0, 2, size=shape, dtype=np.uint8) << 7)


@needs_lib
def test_sdpa_fp8_reads_paged_kv_caches():
    # test_mhas_v2's test_sdpa_fp8_fwd_paged_L0: sdpa_fp8 with K and V in
    # pages equals sdpa_fp8 on the gathered K/V (pages shuffled, a partial
    # last page, padding + causal), on the CPU reference
    import numpy as np

    rng = np.random.default_rng(11)
    b, h, s_q, s_kv, d, page = 2, 2, 16, 40, 16, 16
    q, k, v = (_fp8_bits(rng, (b, h, n, d)) for n in (s_q, s_kv, s_kv))
    lq = np.array([16, 9], np.int32).reshape(b, 1, 1, 1)
    lkv = np.array([40, 21], np.int32).reshape(b, 1, 1, 1)
    per_batch = -(-s_kv // page)
    table = rng.permutation(b * per_batch).astype(np.int32).reshape(b, 1, per_batch, 1)
    paged = _paged_sdpa(True, q, k, v, lq, lkv, table, s_kv, page, fp8=True)
    plain = _paged_sdpa(False, q, k, v, lq, lkv, table, s_kv, page, fp8=True)
    np.testing.assert_array_equal(paged, plain)
    assert np.abs(paged.astype(np.float32)).max() > 0.05
    # a wrong table reads other pages: the check above can fail
    swapped = table.copy()
    swapped[0, 0, [0, 1], 0] = swapped[0, 0, [1, 0], 0]
    assert not np.array_equal(_paged_sdpa(True, q, k, v, lq, lkv, table, s_kv, page, run_table=swapped, fp8=True),
                              plain)


@needs_lib
def test_sdpa_fp8_reads_and_writes_ragged_tensors():
    # test_mhas_v2's test_sdpa_fp8_fwd_ragged_L0: packed (THD) fp8 q/k/v and
    # O, batch b at its offset, equal the padded attention's rows
    import numpy as np

    F, H, E4M3 = cudnn.data_type.FLOAT, cudnn.data_type.HALF, cudnn.data_type.FP8_E4M3
    rng = np.random.default_rng(5)
    b, h, s, d = 2, 2, 8, 16
    lens = np.array([8, 5], np.int32)
    q, k, v = (_fp8_bits(rng, (b, h, s, d)) for _ in range(3))

    def run(ragged):
        g = cudnn.pygraph(io_data_type=E4M3, intermediate_data_type=F, compute_data_type=F)
        thd = [s * h * d, d, h * d, 1]  # [B, S, H, D] memory, batch stride ignored when ragged
        Q, K, V = (g.tensor(name=n, dim=[b, h, s, d], stride=thd, data_type=E4M3) for n in "qkv")
        SQ = g.tensor(name="sq", dim=[b, 1, 1, 1], data_type=cudnn.data_type.INT32)
        SK = g.tensor(name="sk", dim=[b, 1, 1, 1], data_type=cudnn.data_type.INT32)
        scales = {n: g.tensor(name=n, dim=[1, 1, 1, 1], data_type=F)
                  for n in ("descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o")}
        o, _, _, amax_o = g.sdpa_fp8(q=Q, k=K, v=V, **scales, attn_scale=0.25, use_padding_mask=True,
                                     seq_len_q=SQ, seq_len_kv=SK)
        o.set_output(True).set_dim([b, h, s, d]).set_stride(thd).set_data_type(H)
        amax_o.set_output(True).set_data_type(F)
        offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int32).reshape(b + 1, 1, 1, 1) * h * d
        if ragged:
            R = g.tensor(name="offsets", dim=[b + 1, 1, 1, 1], data_type=cudnn.data_type.INT32)
            for t in (Q, K, V, o):
                t.set_ragged_offset(R)
        g.build([cudnn.heur_mode.A])
        # the padded layout holds batch b at b * s * h * d; the packed one at offsets[b]
        def lay(x):
            flat = np.zeros(b * s * h * d, x.dtype)
            for i in range(b):
                start = int(offsets[i, 0, 0, 0]) if ragged else i * s * h * d
                rows = x[i].transpose(1, 0, 2)[: lens[i]].reshape(-1)  # [S, H, D] of the valid positions
                flat[start : start + rows.size] = rows
            return flat
        out = np.zeros(b * s * h * d, np.float16)
        pack = {Q: lay(q), K: lay(k), V: lay(v), SQ: lens.reshape(b, 1, 1, 1), SK: lens.reshape(b, 1, 1, 1), o: out,
                amax_o: np.zeros((1, 1, 1, 1), np.float32)}
        pack.update({t: np.full((1, 1, 1, 1), 16.0 if n == "scale_s" else 1.0, np.float32) for n, t in scales.items()})
        if ragged:
            pack[R] = offsets
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.execute(pack, None)
        rows = []
        for i in range(b):
            start = int(offsets[i, 0, 0, 0]) if ragged else i * s * h * d
            rows.append(out[start : start + lens[i] * h * d])
        return np.concatenate(rows)

    packed, padded = run(True), run(False)
    np.testing.assert_array_equal(packed, padded)
    assert np.abs(padded.astype(np.float32)).max() > 0.05


@needs_lib
def test_sdpa_paged_max_sequence_length_is_inferred_as_the_frontend():
    # without paged_attention_max_seq_len_kv the frontend infers it (and
    # warns): from the unpaged one of K/V, else bias/rng_dump's last dim,
    # else what the pages hold; an explicit length without tables is
    # refused at planning, naming the argument
    F, H, I32 = cudnn.data_type.FLOAT, cudnn.data_type.HALF, cudnn.data_type.INT32

    def graph(**paged_args):
        g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
        q = g.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1], data_type=H)
        kc = g.tensor(name="kc", dim=[4, 2, 16, 16], stride=[512, 256, 16, 1], data_type=H)
        v = g.tensor(name="v", dim=[1, 2, 24, 16], stride=[768, 384, 16, 1], data_type=H)
        sq = g.tensor(name="sq", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32)
        skv = g.tensor(name="skv", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32)
        t = g.tensor(name="t", dim=[1, 1, 2, 1], stride=[2, 2, 1, 1], data_type=I32)
        args = {key: (t if val == "t" else val) for key, val in paged_args.items()}
        o, _ = g.sdpa(name="a", q=q, k=kc, v=v, attn_scale=0.5, use_padding_mask=True, seq_len_q=sq, seq_len_kv=skv, **args)
        o.set_output(True)
        return g

    g = graph(paged_attention_k_table="t")  # V unpaged: its 24 positions
    assert g.get_node("a").params["paged_attention_max_seq_len_kv"] == 24
    assert g.unsupported_features() == []
    g.validate()
    g = graph(paged_attention_k_table="t", paged_attention_max_seq_len_kv=20)
    assert g.get_node("a").params["paged_attention_max_seq_len_kv"] == 20
    # Philox dropout's mask spans the logical keys (24), not a page (16)
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1], data_type=H)
    kc = g.tensor(name="kc", dim=[4, 2, 16, 16], stride=[512, 256, 16, 1], data_type=H)
    sq = g.tensor(name="sq", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32)
    t = g.tensor(name="t", dim=[1, 1, 2, 1], stride=[2, 2, 1, 1], data_type=I32)
    seed = g.tensor(name="seed", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=cudnn.data_type.INT64)
    off = g.tensor(name="off", dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=cudnn.data_type.INT64)
    o, _ = g.sdpa(name="a", q=q, k=kc, v=kc, attn_scale=0.5, use_padding_mask=True, seq_len_q=sq, seq_len_kv=sq,
                  paged_attention_k_table=t, paged_attention_v_table=t, paged_attention_max_seq_len_kv=24,
                  dropout=(0.1, seed, off))
    o.set_output(True)
    g.validate()
    assert [n for n in g.nodes if n.op == "rng"][0].outputs["Y"].dim == [1, 2, 8, 24]
    h = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = h.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1], data_type=H)
    h.sdpa(name="b", q=q, k=q, v=q, attn_scale=0.5, paged_attention_max_seq_len_kv=16)[0].set_output(True)
    assert any("no need to explicitly set max kv sequence length" in f for f in h.unsupported_features())
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="paged_attention_max_seq_len_kv"):
        h.create_execution_plans([cudnn.heur_mode.A])



@needs_lib
def test_sdpa_refuses_alibi_without_a_causal_band_as_the_frontend():
    # "When alibi mask is used, diagonal_band_right_bound needs to be set
    # to 0." (validate(), cudnnGraphNotSupportedError: test_mhas skips it)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="When alibi mask is used"):
        _banded_sdpa_graph(64, 64, False, use_alibi_mask=True).validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="When alibi mask is used"):
        _banded_sdpa_graph(64, 64, False, use_alibi_mask=True, diagonal_band_right_bound=3).validate()
    _banded_sdpa_graph(64, 64, False, use_alibi_mask=True, use_causal_mask=True).validate()
    # an explicit right bound wins over the causal flag's 0 (as the engine reads it)
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="When alibi mask is used"):
        _banded_sdpa_graph(64, 64, False, use_alibi_mask=True, use_causal_mask=True, diagonal_band_right_bound=3).validate()
    _banded_sdpa_graph(64, 64, True, use_alibi_mask=True, diagonal_band_right_bound=0).validate()


# ---- block-scaled O of the fp8 / mxfp8 forwards (sdpa/fp8.py, sdpa/mxfp8.py) -------


def _fp8_sdpa_with_block_scaled_o(op, block):
    # sdpa/fp8.py generate_graph_fwd(o_block_scale=) and sdpa/mxfp8.py
    # generate_graph_fwd(o_block_scale=): sf_o (per-(b, h) scale planes of an
    # FP4 / E4M3 O) and, for NVFP4 O through sdpa_mxfp8, scale_o
    D = cudnn.data_type
    b, h, s, d = 1, 2, 128, 128
    g = cudnn.pygraph(io_data_type=D.FP8_E4M3, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    st = (s * h * d, d, h * d, 1)
    q, k, v = (g.tensor(dim=(b, h, s, d), stride=st, data_type=D.FP8_E4M3) for _ in range(3))

    def scalar():
        return g.tensor(dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), data_type=D.FLOAT)

    dims = (b, h, 128, max(4, -(-(d // block) // 4) * 4))
    sf_o = g.tensor(dim=dims, stride=(dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1),
                    data_type=D.FP8_E4M3 if block == 16 else D.FP8_E8M0)
    if op == "sdpa_fp8":
        o, stats, _amax_s, amax_o = g.sdpa_fp8(
            q=q, k=k, v=v, descale_q=scalar(), descale_k=scalar(), descale_v=scalar(), scale_s=scalar(),
            descale_s=scalar(), scale_o=scalar(), generate_stats=True, attn_scale=0.125, sf_o=sf_o)
    else:
        kw = dict(sf_o=sf_o)
        if block == 16:
            kw["scale_o"] = scalar()
        o, stats, amax_o = g.sdpa_mxfp8(q=q, k=k, v=v, descale_q=scalar(), descale_k=scalar(), descale_v=scalar(),
                                        attn_scale=0.125, generate_stats=True, **kw)
    o.set_output(True).set_dim((b, h, s, d)).set_stride(st).set_data_type(D.FP4_E2M1 if block == 16 else D.FP8_E4M3)
    stats.set_output(True).set_data_type(D.FLOAT)
    amax_o.set_output(True).set_dim((1, 1, 1, 1)).set_stride((1, 1, 1, 1)).set_data_type(D.FLOAT)
    return g


@pytest.mark.parametrize("op,block", [("sdpa_fp8", 32), ("sdpa_fp8", 16), ("sdpa_mxfp8", 32), ("sdpa_mxfp8", 16)])
def test_block_scaled_o_is_refused_at_planning_naming_it(op, block, monkeypatch):
    # The frontend takes sf_o (and sdpa_mxfp8's scale_o) at the builder call
    # and only its python FROST engine serves it: its harness skips on
    # cudnnGraphNotSupportedError but FAILS on any other error while the
    # graph is built, so the builder must not raise TypeError. (Its mxfp8
    # harness runs on cuDNN 9.21 or newer only.)
    from graph_compiler import _version

    monkeypatch.setattr(_version, "_cached", 92100)
    g = _fp8_sdpa_with_block_scaled_o(op, block)
    feats = g.unsupported_features()
    assert any("'sf_o' argument (block-scaled O" in f for f in feats), feats
    assert any("'scale_o' argument" in f for f in feats) == (op == "sdpa_mxfp8" and block == 16)
    g.validate()
    g.build_operation_graph()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="sf_o"):
        g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])


@pytest.mark.parametrize("version,refused", [(91900, True), (92100, False)])
def test_mxfp8_attention_is_refused_at_validate_before_cudnn_9_21(version, refused, monkeypatch):
    # test_sdpa_mxfp8.py's unsupported-version case: on cuDNN older than 9.21
    # the frontend's validate() raises cudnnGraphNotSupportedError.
    from graph_compiler import _version

    monkeypatch.setattr(_version, "_cached", version)
    D = cudnn.data_type
    g = cudnn.pygraph(io_data_type=D.FP8_E4M3, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    st = (128 * 2 * 64, 64, 2 * 64, 1)
    q, k, v = (g.tensor(dim=(1, 2, 128, 64), stride=st, data_type=D.FP8_E4M3) for _ in range(3))
    sf_qk = [g.tensor(dim=(1, 2, 128, 2), stride=(512, 256, 2, 1), data_type=D.FP8_E8M0) for _ in range(2)]
    sf_v = g.tensor(dim=(1, 2, 4, 64), stride=(512, 256, 1, 4), data_type=D.FP8_E8M0)
    o, stats, amax_o = g.sdpa_mxfp8(q=q, k=k, v=v, descale_q=sf_qk[0], descale_k=sf_qk[1], descale_v=sf_v,
                                    attn_scale=0.125, use_causal_mask=True, generate_stats=True)
    o.set_output(True).set_dim((1, 2, 128, 64)).set_stride(st).set_data_type(D.BFLOAT16)
    amax_o.set_output(True).set_dim((1, 1, 1, 1)).set_stride((1, 1, 1, 1)).set_data_type(D.FLOAT)
    stats.set_output(True).set_data_type(D.FLOAT)
    if refused:
        with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"sdpa_mxfp8 .*requires cuDNN 9\.21\.0 or newer \(loaded: 9\.19\.0\)"):
            g.validate()
    else:
        g.validate()


def test_sf_o_is_no_keyword_of_the_f16_sdpa():
    # only the fp8/mxfp8 forwards have block-scaled O; graph.sdpa still refuses it
    g = cudnn.pygraph(io_data_type=cudnn.data_type.HALF, intermediate_data_type=cudnn.data_type.FLOAT,
                      compute_data_type=cudnn.data_type.FLOAT)
    q = g.tensor(dim=(1, 1, 8, 16), stride=(128, 128, 16, 1))
    with pytest.raises(TypeError, match="sf_o"):
        g.sdpa(q=q, k=q, v=q, attn_scale=0.25, sf_o=q)


def _pack_thd(x, lens):
    """The frontend's packed (THD) form of padded [b, h, s, d] `x`: the first
    lens[i] positions of batch i one after the other in a full-size bshd
    buffer, returned as the [b, h, s, d] view test_mhas hands the graph, with
    its element offsets ([b + 1, 1, 1, 1] int64)."""
    import numpy as np

    b, h, s, d = x.shape
    buf = np.zeros((b, s, h, d), x.dtype)
    tokens = buf.reshape(b * s, h, d)
    starts = np.concatenate([[0], np.cumsum(lens.reshape(-1))])
    for i in range(b):
        tokens[starts[i] : starts[i + 1]] = x[i].transpose(1, 0, 2)[: lens.flat[i]]
    return buf.transpose(0, 2, 1, 3), (starts * h * d).astype(np.int64).reshape(b + 1, 1, 1, 1)


def _unpack_thd(view, lens):
    import numpy as np

    b, h, s, d = view.shape
    tokens = np.ascontiguousarray(view.transpose(0, 2, 1, 3)).reshape(b * s, h, d)
    out, t = np.zeros((b, h, s, d), view.dtype), 0
    for i in range(b):
        n = int(lens.flat[i])
        out[i, :, :n] = tokens[t : t + n].transpose(1, 0, 2)
        t += n
    return out


def _ragged_attention(ragged, q, k, v, lq, lkv, d_o):
    """O, Stats of sdpa and dQ, dK, dV of sdpa_backward on padded inputs, the
    graphs taking q/k/v/O/dO/dQ/dK/dV packed (set_ragged_offset) when
    `ragged`; results returned padded, zero past each batch's length."""
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    b, h, s_q, d = q.shape
    s_kv = k.shape[2]

    def bufs(x, lens):
        if not ragged:
            return x, None
        return _pack_thd(x, lens)

    def graph():
        return cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)

    def inputs(g, pairs):
        out = []
        for x, offsets in pairs:
            t = g.tensor_like(x)
            if offsets is not None:
                t.set_ragged_offset(g.tensor_like(offsets))
            out.append(t)
        return out

    def output(t, like, offsets_tensor):
        t.set_output(True).set_dim(list(like.shape)).set_stride([s // like.itemsize for s in like.strides])
        if offsets_tensor is not None:
            t.set_ragged_offset(offsets_tensor)

    def pack_of(g, tensors, arrays):
        pack = dict(zip(tensors, arrays))
        for t in tensors:
            if t.get_ragged_offset() is not None:
                pack[t.get_ragged_offset()] = offsets_by_tensor[id(t)]
        return pack

    qb, qo = bufs(q, lq)
    kb, ko = bufs(k, lkv)
    vb, vo = bufs(v, lkv)
    dob, doo = bufs(d_o, lq)
    g = graph()
    Q, K, V = inputs(g, [(qb, qo), (kb, ko), (vb, vo)])
    SQ, SK = g.tensor_like(lq), g.tensor_like(lkv)
    o, stats = g.sdpa(name="fwd", q=Q, k=K, v=V, attn_scale=0.3, generate_stats=True, use_padding_mask=True,
                      seq_len_q=SQ, seq_len_kv=SK, use_causal_mask=True)
    o_buf = np.zeros_like(qb) if ragged else np.zeros((b, h, s_q, d), np.float16)
    o_off = g.tensor_like(qo) if ragged else None
    output(o, o_buf, o_off)
    if ragged:
        # the frontend's ragged training graphs pack Stats too (THD: [b, s, h, 1])
        st = np.zeros((b, s_q, h, 1), np.float32).transpose(0, 2, 1, 3)
        st_off = (qo // d).astype(np.int64)
        stats_off_tensor = g.tensor_like(st_off)
        output(stats, st, stats_off_tensor)
    else:
        st = np.zeros((b, h, s_q, 1), np.float32)
        stats.set_output(True).set_dim([b, h, s_q, 1]).set_stride([h * s_q, s_q, 1, 1])
    g.build([cudnn.heur_mode.A])
    offsets_by_tensor = {id(Q): qo, id(K): ko, id(V): vo}
    pack = pack_of(g, [Q, K, V], [qb, kb, vb])
    pack.update({SQ: lq, SK: lkv, o: o_buf, stats: st})
    if ragged:
        pack[o_off] = qo
        pack[stats_off_tensor] = st_off
    g.execute(pack, None)

    g = graph()
    Q, K, V, O, DO = inputs(g, [(qb, qo), (kb, ko), (vb, vo), (o_buf, qo), (dob, doo)])
    ST, SQ, SK = g.tensor_like(st), g.tensor_like(lq), g.tensor_like(lkv)
    if ragged:
        ST.set_ragged_offset(g.tensor_like(st_off))
    dq, dk, dv = g.sdpa_backward(name="bwd", q=Q, k=K, v=V, o=O, dO=DO, stats=ST, attn_scale=0.3,
                                 use_padding_mask=True, seq_len_q=SQ, seq_len_kv=SK, use_causal_mask=True,
                                 **(dict(max_total_seq_len_q=64, max_total_seq_len_kv=64) if ragged else {}))
    grads = [np.zeros_like(qb), np.zeros_like(kb), np.zeros_like(vb)]
    for t, buf, offsets in zip((dq, dk, dv), grads, (qo, ko, vo)):
        output(t, buf, g.tensor_like(offsets) if ragged else None)
    g.build([cudnn.heur_mode.A])
    offsets_by_tensor = {id(Q): qo, id(K): ko, id(V): vo, id(O): qo, id(DO): doo, id(dq): qo, id(dk): ko, id(dv): vo}
    pack = pack_of(g, [Q, K, V, O, DO, dq, dk, dv], [qb, kb, vb, o_buf, dob] + grads)
    pack.update({ST: st, SQ: lq, SK: lkv})
    if ragged:
        pack[ST.get_ragged_offset()] = st_off
    g.execute(pack, None)
    if ragged:
        st = _unpack_thd(st, lq)
        o_buf = _unpack_thd(o_buf, lq)
        grads = [_unpack_thd(x, lens) for x, lens in zip(grads, (lq, lkv, lkv))]
    else:
        o_buf, grads, st = o_buf.copy(), [x.copy() for x in grads], st.copy()
        for i in range(b):
            st[i, :, lq.flat[i] :] = 0
            o_buf[i, :, lq.flat[i] :] = 0
            grads[0][i, :, lq.flat[i] :] = 0
            grads[1][i, :, lkv.flat[i] :] = 0
            grads[2][i, :, lkv.flat[i] :] = 0
    return [o_buf] + grads + [st]


@needs_lib
def test_sdpa_reads_and_writes_ragged_packed_tensors():
    # the frontend's ragged (THD) attention (test_mhas ragged1, test_mhas_v2's
    # ragged training with packed Stats): q, k, v, O, Stats, dO, dQ, dK, dV packed, batch i at element offset[i] of its buffer, only
    # its seq_len positions stored; equals attention on the padded tensors
    import numpy as np

    rng = np.random.default_rng(11)
    b, h, s_q, s_kv, d = 3, 2, 12, 16, 8
    q, d_o = (rng.standard_normal((b, h, s_q, d)).astype(np.float16) for _ in range(2))
    k, v = (rng.standard_normal((b, h, s_kv, d)).astype(np.float16) for _ in range(2))
    lq = np.array([12, 5, 9], np.int32).reshape(b, 1, 1, 1)
    lkv = np.array([16, 7, 10], np.int32).reshape(b, 1, 1, 1)
    ragged = _ragged_attention(True, q, k, v, lq, lkv, d_o)
    padded = _ragged_attention(False, q, k, v, lq, lkv, d_o)
    for name, got, want in zip(("O", "dQ", "dK", "dV", "Stats"), ragged, padded):
        np.testing.assert_array_equal(got, want, err_msg=name)
        assert np.abs(got).max() > 0.05, name
    # the packed O leaves the buffer past the last batch untouched (zero)
    view, offsets = _pack_thd(q, lq)
    assert offsets.reshape(-1).tolist() == [0, 12 * h * d, 17 * h * d, 26 * h * d]


@needs_lib
def test_a_ragged_output_leaves_the_gaps_between_batches_alone():
    # Batches packed with room between them (offsets need not be a running
    # sum): the attention writes each batch's tokens and nothing else, as on
    # the GPU, so what the caller keeps in the gaps and the tail survives.
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    b, h, s, d = 2, 2, 4, 8
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((b, h, s, d)).astype(np.float16) for _ in range(3))
    lens = np.array([3, 2], np.int32).reshape(b, 1, 1, 1)
    starts = [0, 5]  # tokens 3 and 4 are a gap, 7 the tail
    offsets = (np.array(starts + [8]) * h * d).astype(np.int64).reshape(b + 1, 1, 1, 1)

    def packed(x):
        tokens = np.full((b * s, h, d), 7.0, np.float16)
        for i in range(b):
            tokens[starts[i] : starts[i] + lens.flat[i]] = x[i].transpose(1, 0, 2)[: lens.flat[i]]
        return tokens.reshape(b, s, h, d).transpose(0, 2, 1, 3)

    def run(ragged):
        g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
        bufs = [packed(x) if ragged else x for x in (q, k, v)]
        Q, K, V = (g.tensor_like(x) for x in bufs)
        off = g.tensor_like(offsets)
        if ragged:
            for t in (Q, K, V):
                t.set_ragged_offset(off)
        SQ, SK = g.tensor_like(lens), g.tensor_like(lens)
        o, _ = g.sdpa(name="fwd", q=Q, k=K, v=V, attn_scale=0.5, use_padding_mask=True, seq_len_q=SQ, seq_len_kv=SK)
        out = packed(np.zeros_like(q)) if ragged else np.zeros_like(q)
        o.set_output(True).set_dim(list(out.shape)).set_stride([x // out.itemsize for x in out.strides])
        if ragged:
            o.set_ragged_offset(off)
        g.build([cudnn.heur_mode.A])
        pack = {Q: bufs[0], K: bufs[1], V: bufs[2], SQ: lens, SK: lens, o: out}
        if ragged:
            pack[off] = offsets
        g.execute(pack, None)
        return out

    got, want = run(True), run(False)
    tokens = got.transpose(0, 2, 1, 3).reshape(b * s, h, d)
    for i in range(b):
        n = lens.flat[i]
        np.testing.assert_array_equal(tokens[starts[i] : starts[i] + n], want[i].transpose(1, 0, 2)[:n])
    assert np.all(tokens[[3, 4, 7]] == 7.0)  # the gap and the tail, as they were


@needs_lib
def test_ragged_offsets_outside_attention_are_refused_naming_the_tensor():
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(name="x", dim=[2, 1, 4, 8], stride=[32, 32, 8, 1], data_type=H)
    off = g.tensor(name="off", dim=[3, 1, 1, 1], stride=[1, 1, 1, 1], data_type=cudnn.data_type.INT64)
    x.set_ragged_offset(off)
    y = g.relu(input=x, name="r")
    y.set_output(True)
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="tensor 'x': ragged_offset"):
        g.build([cudnn.heur_mode.A])


def test_max_total_seq_len_is_taken_and_checked():
    # test_mhas's ragged backward passes the bound on the batch's total
    # positions (a THD workspace size in the frontend): accepted, recorded,
    # a non-positive or non-integer bound refused naming it
    F, H, I32 = cudnn.data_type.FLOAT, cudnn.data_type.HALF, cudnn.data_type.INT32
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[2, 1, 8, 16], stride=[128, 128, 16, 1], data_type=H)
    st = g.tensor(name="st", dim=[2, 1, 8, 1], stride=[8, 8, 1, 1], data_type=F)
    sq = g.tensor(name="sq", dim=[2, 1, 1, 1], stride=[1, 1, 1, 1], data_type=I32)
    dq, dk, dv = g.sdpa_backward(q, q, q, q, q, st, use_padding_mask=True, seq_len_q=sq, seq_len_kv=sq,
                                 max_total_seq_len_q=64, max_total_seq_len_kv=128, name="b")
    assert g.get_node("b").params["max_total_seq_len_kv"] == 128
    assert g.unsupported_features() == []
    with pytest.raises(ValueError, match="max_total_seq_len_q must be a positive integer"):
        g.sdpa_backward(q, q, q, q, q, st, max_total_seq_len_q=0)


@needs_lib
def test_ragged_offsets_one_dimensional_and_cleared():
    # test_mhas_v2's sdpa/fp16.py declares ragged offsets 1-D (B + 1,) INT64:
    # taken as the [B + 1, 1, 1, 1] form; an offset cleared with
    # set_ragged_offset(None) leaves no operand behind
    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    I32, I64 = cudnn.data_type.INT32, cudnn.data_type.INT64
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[2, 2, 8, 16], stride=[256, 16, 32, 1], data_type=H)
    sq = g.tensor(name="sq", dim=[2], stride=[1], data_type=I32)
    off = g.tensor(name="off", dim=[3], stride=[1], data_type=I64)
    q.set_ragged_offset(off)
    o, _ = g.sdpa(name="a", q=q, k=q, v=q, attn_scale=0.5, use_padding_mask=True, seq_len_q=sq, seq_len_kv=sq)
    o.set_output(True).set_dim([2, 2, 8, 16]).set_stride([256, 16, 32, 1]).set_ragged_offset(off)
    assert g.unsupported_features() == []
    text = g.to_mlir()
    assert "ragged_offset_q" in text and "ragged_offset_O" in text and "tensor<3x1x1x1xi64" in text
    g.validate()
    q.set_ragged_offset(None)
    o.set_ragged_offset(None)
    assert "ragged_offset" not in g.to_mlir()


def test_ragged_device_buffer_of_the_packed_size_is_taken_as_it_is():
    # test_mhas_v2 allocates a ragged Q/K/V/O only as large as its packed
    # tokens: on the GPU the offsets say how far it reaches, so the buffer
    # binds as it is (no padded-size stand-in, no warning); a non-ragged
    # tensor of that size is still too small
    import warnings

    from graph_compiler import _buffers

    class PackedOnDevice:
        # 20 of the padded [2, 4, 8, 16] span's 1024 halves
        __cuda_array_interface__ = {"shape": (20, 16), "typestr": "<f2", "data": (0x7F0000000000, False),
                                    "strides": None, "version": 3}

    H = cudnn.data_type.HALF
    dims, strides = [2, 4, 8, 16], [512, 16, 64, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = _buffers.bind(3, "q", H, dims, strides, False, PackedOnDevice(), ragged=True)
    assert (b.dims, b.strides, b.ptr, b.staged) == (dims, strides, 0x7F0000000000, None)
    with pytest.raises(ValueError, match=r"buffer for tensor uid 3 \('q'\) .* span 2048 bytes: the buffer is too small"):
        _buffers.bind(3, "q", H, dims, strides, False, PackedOnDevice())


@needs_lib
def test_ragged_host_buffers_of_the_packed_size_run_on_the_cpu_reference():
    # test_mhas_v2 allocates a ragged Q/K/V/O only as large as its packed
    # tokens. The CPU reference reads a packed tensor over its padded span, so
    # it runs on a zero-filled padded stand-in holding the buffer's bytes, and
    # O's packed tokens are copied back: the same O as with padded-size
    # buffers, and nothing past the packed buffer touched.
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    b, h, s, d = 2, 1, 8, 16
    lens_q = [5, 6]

    def run(rows, guard=0, strided=False):
        g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
        qkv = [g.tensor(name=n, dim=[b, h, s, d], stride=[s * h * d, d, h * d, 1], data_type=H) for n in "qkv"]
        offsets = np.array([0, 5, 11], np.int64).reshape(3, 1, 1, 1) * h * d
        off = g.tensor_like(offsets)
        for t in qkv:
            t.set_ragged_offset(off)
        lens = np.array(lens_q, np.int32).reshape(b, 1, 1, 1)
        sq, skv = g.tensor_like(lens), g.tensor_like(lens)
        o, _ = g.sdpa(name="fwd", q=qkv[0], k=qkv[1], v=qkv[2], attn_scale=0.25, generate_stats=False,
                      use_padding_mask=True, seq_len_q=sq, seq_len_kv=skv)
        o.set_output(True).set_dim([b, h, s, d]).set_stride([s * h * d, d, h * d, 1]).set_ragged_offset(off)
        g.build([cudnn.heur_mode.A])
        rng = np.random.default_rng(7)
        tokens = [rng.standard_normal((11, h, d)).astype(np.float16) for _ in range(3)]
        bufs = []
        for t in tokens:
            buf = np.zeros((rows, h, d + 4), np.float16)[:, :, :d] if strided else np.zeros((rows, h, d), np.float16)
            buf[:11] = t
            bufs.append(buf)
        # O's buffer is the first `rows` of a larger array: what lies past it
        # must stay as it was
        whole = np.full((rows + guard, h, d), 7.0, np.float16)
        out = whole[:rows]
        pack = dict(zip(qkv + [o], bufs + [out]))
        pack.update({off: offsets, sq: lens, skv: lens})
        g.execute(pack, None)
        assert (whole[rows:] == 7.0).all()
        return out

    packed = run(11, guard=5)  # the packed tokens only: 352 bytes of a 512-byte padded span
    padded = run(16)  # the padded span
    assert np.array_equal(packed, padded[:11])
    assert np.isfinite(packed.astype(np.float32)).all() and np.abs(packed).max() > 0
    # a strided (non-contiguous) packed buffer is refused naming the way out:
    # its first bytes from the pointer are not the tensor's memory
    with pytest.raises(ValueError, match=r"buffer for ragged tensor uid \d+ \('q'\) .* pass a contiguous buffer"):
        run(11, strided=True)


def test_ragged_ports_are_those_graphops_td_pairs_with_offsets():
    # RAGGED_PORTS (what the package lets set_ragged_offset reach) is the
    # dialect's list, generated from GraphOps.td: each op's ports with a
    # ragged_offset_<port> operand (OpPorts.inc, RaggedPorts.inc)
    import os
    import re

    from graph_compiler import _ops

    support = os.path.join(os.path.dirname(__file__), "..", "..", "include", "GraphDialect", "Support")
    with open(os.path.join(support, "OpPorts.inc")) as f:
        lines = re.findall(r"GRAPH_OP_(?:OPERAND|RESULT)\((\w+), (\w+)\)", f.read())
    with open(os.path.join(support, "RaggedPorts.inc")) as f:
        pairs = set(re.findall(r"GRAPH_RAGGED_PORT\((\w+), (\w+)\)", f.read()))
    generated = {}
    for kind, op in (("Sdpa", "sdpa"), ("SdpaBackward", "sdpa_backward"), ("SdpaFp8", "sdpa_fp8")):
        ports = {p for k, p in lines if k == kind}
        generated[op] = {p for p, o in pairs if p in ports and o in ports}
    assert {op: set(ports) for op, ports in _ops.RAGGED_PORTS.items()} == generated
    assert len(generated["sdpa"]) == 7 and len(generated["sdpa_backward"]) == 9 and len(generated["sdpa_fp8"]) == 5


def _sink_reference(q, k, v, sink, scale, d_o):
    """O, Stats of attention with a sink (one extra logit per head, no value
    row) and the gradients dQ, dK, dV, dSink, in float64 numpy."""
    import numpy as np

    q, k, v, d_o = (x.astype(np.float64) for x in (q, k, v, d_o))
    s = scale * q @ k.transpose(0, 1, 3, 2)
    sk = sink.reshape(1, -1, 1, 1).astype(np.float64)
    m = np.maximum(s.max(-1, keepdims=True), sk)
    total = np.exp(s - m).sum(-1, keepdims=True) + np.exp(sk - m)
    p = np.exp(s - m) / total
    o = p @ v
    lse = m + np.log(total)
    dv = p.transpose(0, 1, 3, 2) @ d_o
    dp = d_o @ v.transpose(0, 1, 3, 2)
    d = (d_o * o).sum(-1, keepdims=True)
    ds = p * (dp - d)
    dq = scale * ds @ k
    dk = scale * ds.transpose(0, 1, 3, 2) @ q
    dsink = -(np.exp(sk - lse) * d).sum(axis=(0, 2), keepdims=True)
    return o, lse, dq, dk, dv, dsink


@needs_lib
def test_sdpa_sink_token_forward_and_backward_on_the_cpu():
    # test_mhas_v2's attention sinks (sdpa/fp16.py: sink_token [1, H, 1, 1]
    # f32 to sdpa and sdpa_backward, dSink_token the caller's output): O,
    # Stats and every gradient equal attention with one extra per-head logit
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    rng = np.random.default_rng(7)
    b, h, s_q, s_kv, d = 2, 3, 6, 10, 8
    q, d_o = (rng.standard_normal((b, h, s_q, d)).astype(np.float16) for _ in range(2))
    k, v = (rng.standard_normal((b, h, s_kv, d)).astype(np.float16) for _ in range(2))
    sink = np.array([2.5, -1.0, 0.3], np.float32).reshape(1, h, 1, 1)
    want = _sink_reference(q, k, v, sink, 0.4, d_o)

    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    Q, K, V, SINK = (g.tensor_like(x) for x in (q, k, v, sink))
    O, ST = g.sdpa(q=Q, k=K, v=V, attn_scale=0.4, generate_stats=True, sink_token=SINK, name="fwd")
    O.set_output(True).set_data_type(F)
    ST.set_output(True)
    g.build([cudnn.heur_mode.A])
    o, st = np.zeros((b, h, s_q, d), np.float32), np.zeros((b, h, s_q, 1), np.float32)
    g.execute({Q: q, K: k, V: v, SINK: sink, O: o, ST: st}, None)
    np.testing.assert_allclose(o, want[0], atol=2e-3)
    np.testing.assert_allclose(st, want[1], atol=2e-3)

    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    Q, K, V, OO, DO, STT, SINK = (g.tensor_like(x) for x in (q, k, v, want[0].astype(np.float16), d_o, st, sink))
    DSINK = g.tensor(name="dsink", dim=[1, h, 1, 1], stride=[h, 1, 1, 1], data_type=F)
    dq, dk, dv = g.sdpa_backward(q=Q, k=K, v=V, o=OO, dO=DO, stats=STT, attn_scale=0.4, sink_token=SINK,
                                 dSink_token=DSINK, name="bwd")
    for t in (dq, dk, dv):
        t.set_output(True).set_data_type(F)
    DSINK.set_output(True)
    g.build([cudnn.heur_mode.A])
    grads = [np.zeros(x.shape, np.float32) for x in (q, k, v)]
    dsink = np.zeros((1, h, 1, 1), np.float32)
    g.execute({Q: q, K: k, V: v, OO: want[0].astype(np.float16), DO: d_o, STT: st, SINK: sink,
               dq: grads[0], dk: grads[1], dv: grads[2], DSINK: dsink}, None)
    for name, got, ref in zip(("dQ", "dK", "dV", "dSink"), grads + [dsink], want[2:]):
        np.testing.assert_allclose(got, ref, atol=5e-3, rtol=1e-2, err_msg=name)
    assert np.abs(dsink).min() > 1e-3  # each head's sink gets a gradient


@needs_lib
def test_sdpa_sink_token_rules_name_the_operand():
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[1, 2, 4, 8], stride=[64, 32, 8, 1], data_type=H)
    bad = g.tensor(name="sink", dim=[1, 3, 1, 1], stride=[3, 1, 1, 1], data_type=F)
    o, _ = g.sdpa(q=q, k=q, v=q, attn_scale=0.5, sink_token=bad, name="fwd")
    o.set_output(True)
    with pytest.raises(Exception, match=r"sink_token dims are 1x3x1x1 but must be 1x2x1x1"):
        g.build([cudnn.heur_mode.A])
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q, o_, st = (g.tensor(name=n, dim=dd, stride=ss, data_type=t) for n, dd, ss, t in (
        ("q", [1, 2, 4, 8], [64, 32, 8, 1], H), ("o", [1, 2, 4, 8], [64, 32, 8, 1], H), ("st", [1, 2, 4, 1], [8, 4, 1, 1], F)))
    sink = g.tensor(name="sink", dim=[1, 2, 1, 1], stride=[2, 1, 1, 1], data_type=F)
    g.sdpa_backward(q=q, k=q, v=q, o=o_, dO=o_, stats=st, attn_scale=0.5, sink_token=sink, name="bwd")
    assert any("'sink_token' without 'dSink_token'" in f for f in g.unsupported_features())
    # the fp8 forward has no sink
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    assert "sink_token" in cudnn_unsupported_of("sdpa_fp8")


def cudnn_unsupported_of(op):
    from graph_compiler import _ops

    return _ops.SDPA_OP_UNSUPPORTED.get(op, ())


@needs_lib
def test_sdpa_block_mask_masks_whole_tiles_on_the_cpu():
    # test_mhas_v2's block-sparse attention (sdpa/fp16.py: block_mask uint8
    # [B, H, ceil(Sq/128), ceil(ceil(Skv/128)/8)], one bit per 128 x 128 tile,
    # tile n in bit n % 8 of byte n // 8): a clear bit drops the tile's scores
    import numpy as np

    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    rng = np.random.default_rng(3)
    b, h, s_q, s_kv, d = 1, 2, 200, 300, 16
    q = rng.standard_normal((b, h, s_q, d)).astype(np.float16)
    k, v = (rng.standard_normal((b, h, s_kv, d)).astype(np.float16) for _ in range(2))
    tiles_q, tiles_kv = 2, 3
    mask = np.zeros((b, h, tiles_q, 1), np.uint8)
    mask[0, 0, 0, 0] = 0b101  # tiles (0, 0) and (0, 2) of head 0, row tile 0
    mask[0, 0, 1, 0] = 0b010
    mask[0, 1, :, 0] = 0b111  # head 1: dense
    keep = np.zeros((b, h, s_q, s_kv), bool)
    for hh in range(h):
        for tq in range(tiles_q):
            for tk in range(tiles_kv):
                if (mask[0, hh, tq, 0] >> tk) & 1:
                    keep[0, hh, tq * 128:(tq + 1) * 128, tk * 128:(tk + 1) * 128] = True
    s = 0.25 * q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2)
    s = np.where(keep, s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    want = (p / p.sum(-1, keepdims=True)) @ v.astype(np.float64)

    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    Q, K, V = (g.tensor_like(x) for x in (q, k, v))
    M = g.tensor(name="mask", dim=list(mask.shape), stride=[tiles_q, tiles_q, 1, 1], data_type=cudnn.data_type.UINT8)
    O, _ = g.sdpa(q=Q, k=K, v=V, attn_scale=0.25, block_mask=M, name="fwd")
    O.set_output(True).set_data_type(F)
    g.build([cudnn.heur_mode.A])
    o = np.zeros((b, h, s_q, d), np.float32)
    g.execute({Q: q, K: k, V: v, M: mask, O: o}, None)
    np.testing.assert_allclose(o, want, atol=2e-3)
    # a mask of the wrong tile count is refused naming the rule
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    Q, K, V = (g.tensor_like(x) for x in (q, k, v))
    M = g.tensor(name="mask", dim=[b, h, 1, 1], stride=[h, 1, 1, 1], data_type=cudnn.data_type.UINT8)
    g.sdpa(q=Q, k=K, v=V, attn_scale=0.25, block_mask=M, name="fwd")[0].set_output(True)
    with pytest.raises(Exception, match=r"block_mask dims are 1x2x1x1 but must be 1x2x2x1"):
        g.build([cudnn.heur_mode.A])


def test_sdpa_takes_none_for_every_optional_keyword():
    # sdpa/fp16.py passes every keyword, most of them None (block_mask=None,
    # sink_token=None, score_max=None, ...): None means absent
    F, H = cudnn.data_type.FLOAT, cudnn.data_type.HALF
    g = cudnn.pygraph(io_data_type=H, intermediate_data_type=F, compute_data_type=F)
    q = g.tensor(name="q", dim=[1, 2, 8, 16], stride=[256, 128, 16, 1], data_type=H)
    o, st = g.sdpa(q=q, k=q, v=q, attn_scale=0.25, generate_stats=True, bias=None, block_mask=None, sink_token=None,
                   score_max=None, score_sum_exp=None, seq_len_q=None, seq_len_kv=None, dropout=None, rng_dump=None,
                   paged_attention_k_table=None, paged_attention_v_table=None, name="fwd")
    st2 = g.tensor(name="st", dim=[1, 2, 8, 1], stride=[16, 8, 1, 1], data_type=F)
    grads = g.sdpa_backward(q=q, k=q, v=q, o=o, dO=o, stats=st2, attn_scale=0.25, bias=None, dBias=None,
                            block_mask=None, sink_token=None, dSink_token=None, name="bwd")
    assert len(grads) == 3 and g.unsupported_features() == []


def test_moe_backward_dweight_is_column_major_per_expert():
    # The frontend infers moe_grouped_matmul_bwd's dweight [E, K, N] with
    # strides [K N, 1, K] (test_moe_grouped_matmul.py's backward reads it
    # so); the values are each expert's token^T @ doutput over its rows.
    import numpy as np

    D = cudnn.data_type
    g = cudnn.pygraph(io_data_type=D.FLOAT, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    E, T, K, N = 4, 64, 32, 16
    t = g.tensor(dim=[1, T, K], stride=[T * K, K, 1], data_type=D.FLOAT)
    dy = g.tensor(dim=[1, T, N], stride=[T * N, N, 1], data_type=D.FLOAT)
    off = g.tensor(dim=[E, 1, 1], stride=[1, 1, 1], data_type=D.INT32)
    dw = g.moe_grouped_matmul_bwd(dy, t, off)
    dw.set_output(True).set_data_type(D.FLOAT)
    g.build([cudnn.heur_mode.A])
    assert dw.get_stride() == [K * N, 1, K]
    rng = np.random.default_rng(0)
    tv = rng.standard_normal((1, T, K)).astype(np.float32)
    dyv = rng.standard_normal((1, T, N)).astype(np.float32)
    starts = [0, 10, 30, 50]
    buf = np.zeros(E * K * N, np.float32)
    out = np.lib.stride_tricks.as_strided(buf, (E, K, N), [s * 4 for s in dw.get_stride()])
    g.execute({t: tv, dy: dyv, off: np.array(starts, np.int32).reshape(E, 1, 1), dw: out})
    ends = starts[1:] + [T]
    ref = np.stack([tv[0, a:b].T @ dyv[0, a:b] for a, b in zip(starts, ends)])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_moe_top_k_scores_is_taken_and_refused_at_planning():
    # A newer frontend's moe_grouped_matmul(top_k_scores=...) (its COMBINE
    # mode): None is absent; a tensor builds and validates, and planning
    # refuses it naming the argument, as the frontend does where its
    # cuDNN lacks the mode.
    D = cudnn.data_type
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    t = g.tensor(dim=[1, 64, 32], stride=[64 * 32, 32, 1], data_type=D.HALF)
    w = g.tensor(dim=[4, 32, 16], stride=[32 * 16, 16, 1], data_type=D.HALF)
    off = g.tensor(dim=[4, 1, 1], stride=[1, 1, 1], data_type=D.INT32)
    g.moe_grouped_matmul(token=t, weight=w, first_token_offset=off, top_k_scores=None).set_output(True)
    assert g.unsupported_features() == []
    scores = g.tensor(dim=[1, 64, 1], stride=[64, 1, 1], data_type=D.FLOAT)
    g.moe_grouped_matmul(token=t, weight=w, first_token_offset=off, top_k_scores=scores, name="combine").set_output(True)
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"moe_grouped_matmul 'combine': top_k_scores .*COMBINE"):
        g.build([cudnn.heur_mode.A])


def test_handle_object_as_the_frontend_defines_it():
    h = cudnn.create_handle()
    assert h.stream == 0 and cudnn.get_stream(h) == 0  # a fresh handle runs on stream 0
    assert isinstance(h.backend_handle, int) and h.backend_handle != cudnn.create_handle().backend_handle
    wrapped = cudnn.Handle(0xABC)  # a cudnnHandle_t made elsewhere, positional
    assert wrapped.backend_handle == 0xABC and cudnn.Handle(0xABC, 3).device == 3
    assert cudnn.Handle(backend_handle=0xABC, ordinal=0, stream=0).backend_handle == 0xABC
    assert cudnn.Handle(0xDEF, 0, 77).stream == 77
    cudnn.destroy_handle(h)
    assert h.backend_handle is None


def test_cuda_graph_retention_is_kept_and_reported():
    assert {m.name for m in cudnn.cuda_graph_retention.__members__.values()} == {"PER_GRAPH", "NONE"}
    assert cudnn.pygraph().get_cuda_graph_retention() == cudnn.cuda_graph_retention.PER_GRAPH
    g = cudnn.pygraph(cuda_graph_retention=cudnn.cuda_graph_retention.NONE)
    assert g.get_cuda_graph_retention() == cudnn.cuda_graph_retention.NONE
    with pytest.raises(TypeError, match="cuda_graph_retention"):
        cudnn.pygraph(cuda_graph_retention="NONE")


def test_an_unknown_graph_keyword_warns_and_is_ignored():
    with pytest.warns(UserWarning, match="bogus_option"):
        g = cudnn.pygraph(bogus_option=1)
    assert g.get_cuda_graph_retention() == cudnn.cuda_graph_retention.PER_GRAPH


@needs_lib
def test_a_torch_like_buffer_object_is_read_by_its_methods():
    # the frontend's test_execute_overload binds an object that has only
    # data_ptr(), stride(), element_size(), shape, dtype and device
    import types

    class PythonBuffer:
        def __init__(self, array):
            self.array = array
            self.shape, self.dtype, self.device = array.shape, array.dtype, types.SimpleNamespace(type="cpu")

        def data_ptr(self):
            return self.array.__array_interface__["data"][0]

        def stride(self):
            return tuple(s // self.array.itemsize for s in self.array.strides)

        def element_size(self):
            return self.array.itemsize

    g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    x = g.tensor(name="x", dim=[2, 3], stride=[3, 1])
    y = g.relu(x)
    y.set_output(True)
    g.build([cudnn.heur_mode.A])
    xs = np.array([[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]], np.float32)
    out = np.full((2, 3), np.nan, np.float32)
    g.execute({x: PythonBuffer(xs), y: PythonBuffer(out)})
    np.testing.assert_array_equal(out, np.maximum(xs, 0))


@needs_lib
def test_a_frontend_only_knob_is_refused_by_a_backend_plan():
    g = cudnn.pygraph(io_data_type=cudnn.data_type.FLOAT, compute_data_type=cudnn.data_type.FLOAT)
    x = g.tensor(name="x", dim=[2, 3], stride=[3, 1])
    g.relu(x).set_output(True)
    g.validate()
    g.build_operation_graph()
    with pytest.raises(RuntimeError, match="convert_to_backend_knob_type.*CUDNN_STATUS_NOT_SUPPORTED"):
        g.create_execution_plan(0, {cudnn.knob_type.SPLIT_KV: 1})


def test_set_stream_reaches_the_runtime_only_when_the_stream_changes(monkeypatch):
    from graph_compiler import _capi, _handles

    calls = []
    monkeypatch.setattr(_capi, "set_stream", lambda raw: calls.append(raw) or True)
    monkeypatch.setattr(_capi, "on_device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(_handles, "_applied_streams", {})
    a, b = cudnn.Handle(ordinal=0), cudnn.Handle(ordinal=0)
    cudnn.set_stream(a, 0x500)
    cudnn.set_stream(a, 0x500)  # unchanged: no call
    cudnn.set_stream(b, 0x500)  # the device already queues there
    cudnn.set_stream(b, 0)  # the caller's legacy default stream
    assert calls == [0x500, 1] and cudnn.get_stream(b) == 0 and cudnn.get_stream(a) == 0x500
    cudnn.destroy_handle(b)  # b's stream was the applied one: the runtime goes back to its own
    cudnn.set_stream(a, 0x500)  # a remembers 0x500: no backend call ...
    assert calls == [0x500, 1, 0]
    _handles._apply_handle_stream(a)  # ... an execute with a puts it back on the device
    assert calls == [0x500, 1, 0, 0x500]


def test_set_stream_and_destroy_go_through_the_replaceable_backend_calls(monkeypatch):
    # the frontend's seams: cudnn._pybind_module._raw_set_stream / _raw_destroy_handle
    streams, destroyed = [], []
    monkeypatch.setattr(cudnn._pybind_module, "_raw_set_stream", lambda h, s: streams.append((h, s)))
    monkeypatch.setattr(cudnn._pybind_module, "_raw_destroy_handle", lambda h: destroyed.append(h))
    h = cudnn.Handle(backend_handle=0x777)
    assert h.device.ordinal == int(h.device)
    cudnn.set_stream(h, 100)
    cudnn.set_stream(h, 100)  # unchanged: skipped on the handle
    cudnn.set_stream(h, 200)
    assert streams == [(0x777, 100), (0x777, 200)] and cudnn.get_stream(h) == 200
    cudnn.destroy_handle(h)
    assert h.backend_handle is None and h.stream is None and destroyed == [0x777]
    cudnn.destroy_handle(h)
    cudnn.set_stream(h, 300)  # released: nothing reaches the backend
    assert destroyed == [0x777] and len(streams) == 2


def test_default_handles_per_thread_and_retryable_cleanup(monkeypatch):
    import threading

    from cudnn import wrapper

    monkeypatch.setattr(wrapper, "_default_handle_registry", [])
    monkeypatch.setattr(cudnn._pybind_module, "_raw_set_stream", lambda h, s: None)
    first = wrapper.get_default_handle()
    assert wrapper.get_default_handle() is first
    other = []
    worker = threading.Thread(target=lambda: other.append(wrapper.get_default_handle()))
    worker.start()
    worker.join()
    assert other[0] is not first and wrapper._default_handle_registry == [first, other[0]]
    calls, destroy = [], cudnn.destroy_handle

    def fail_once(handle):
        calls.append(handle)
        if len(calls) == 1:
            raise RuntimeError("injected destroy failure")
        destroy(handle)

    monkeypatch.setattr(cudnn, "destroy_handle", fail_once)
    with pytest.raises(RuntimeError, match="injected"):
        wrapper.destroy_default_handle()
    assert calls == [first, other[0]] and first.backend_handle is not None and other[0].backend_handle is None
    wrapper.destroy_default_handle()
    assert calls == [first, other[0], first] and first.backend_handle is None
    assert wrapper._default_handle_registry == []
    replacement = wrapper.get_default_handle()  # a released handle is made again
    assert replacement is not first and replacement.backend_handle is not None


def test_executes_without_a_stream_queue_on_the_legacy_default_stream(monkeypatch):
    # The frontend's handle (and its default handle, when an execute names
    # none) is on stream 0: work follows what the caller queued on torch's
    # default stream. set_stream(h, None) is the runtime's own stream.
    from graph_compiler import _capi, _handles, _plans

    calls = []
    monkeypatch.setattr(_capi, "set_stream", lambda raw: calls.append(raw) or True)
    monkeypatch.setattr(_capi, "on_device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(_handles, "_applied_streams", {})
    monkeypatch.setattr(_plans, "prepare_run", lambda *args: None)

    class Module:
        def execute_array(self, device, array, count):
            return _capi.GRAPH_OK

    g = cudnn.pygraph()
    g._module = Module()
    gpu = _capi.GRAPH_DEVICE_GPU
    g._execute_buffers(gpu, None, 0, None, ordinal=0)
    assert calls == [1]  # CU_STREAM_LEGACY
    h = cudnn.Handle(ordinal=0)
    assert cudnn.get_stream(h) == 0
    g._execute_buffers(gpu, None, 0, None, handle=h)
    assert calls == [1]  # already there
    cudnn.set_stream(h, 0x700)
    g._execute_buffers(gpu, None, 0, None, handle=h)
    g._execute_buffers(gpu, None, 0, None, handle=cudnn.Handle(ordinal=0))
    assert calls == [1, 0x700, 1]
    cudnn.set_stream(h, None)  # the runtime's own stream, which an execute waits for
    g._execute_buffers(gpu, None, 0, None, handle=h)
    assert calls == [1, 0x700, 1, 0]
    g._execute_buffers(_capi.GRAPH_DEVICE_CPU, None, 0, None)  # the CPU reference has no stream
    assert calls == [1, 0x700, 1, 0]


def test_threads_with_their_own_streams_do_not_cross(monkeypatch):
    # The runtime holds one stream per device, set apart from the execute:
    # two threads, each executing on its own handle's stream, must each find
    # their stream set when their work is queued.
    import threading
    import time

    from graph_compiler import _capi, _handles, _plans

    events, current = [], {"stream": None}
    monkeypatch.setattr(_capi, "on_device", lambda device: contextlib.nullcontext())
    monkeypatch.setattr(_handles, "_applied_streams", {})
    monkeypatch.setattr(_plans, "prepare_run", lambda *args: None)

    def set_stream(raw):
        current["stream"] = raw
        time.sleep(0.0005)  # room for the other thread to run in between
        return True

    monkeypatch.setattr(_capi, "set_stream", set_stream)

    class Module:
        def execute_array(self, device, array, count):
            time.sleep(0.0005)
            events.append((threading.current_thread().name, current["stream"]))
            return _capi.GRAPH_OK

    g = cudnn.pygraph()
    g._module = Module()
    handles = {"a": cudnn.Handle(ordinal=0, stream=0x100), "b": cudnn.Handle(ordinal=0, stream=0x200)}

    def work(name):
        for _ in range(50):
            g._execute_buffers(_capi.GRAPH_DEVICE_GPU, None, 0, None, handle=handles[name])

    threads = [threading.Thread(target=work, args=(n,), name=n) for n in handles]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(events) == 100
    crossed = [(name, raw) for name, raw in events if raw != handles[name]._raw_stream]
    assert not crossed, f"work queued on another thread's stream: {crossed[:5]}"
