"""The frontend surface: uid/name rules, plan queries, errors, serialization,
and a program written for the cuDNN frontend."""

import json

import numpy as np
import pytest

import graph_compiler as gc
from conftest import needs_lib

F = gc.data_type.FLOAT


def simple_graph(**kw):
    g = gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F, **kw)
    x = g.tensor(name="x", dim=[2, 3])
    y = g.relu(x)
    y.set_output(True)
    return g, x, y


# ---- uids and names -----------------------------------------------------------


def test_auto_names_and_uids():
    g = gc.pygraph(io_data_type=F)
    a = g.tensor(dim=[2, 2])
    b = g.tensor(dim=[2, 2])
    c = g.matmul(a, b)
    d = g.add(c, b)
    assert (a.get_name(), b.get_name()) == ("tensor_0", "tensor_1")
    assert c.get_name() == "matmul.0::C" and d.get_name() == "add.0::OUT_0"
    assert g.matmul(a, b).get_name() == "matmul.1::C"
    assert [a.get_uid(), b.get_uid(), c.get_uid(), d.get_uid()] == [1, 2, 3, 4]
    y, m, iv = g.layernorm(a, b, b, g.tensor_scalar(1e-5, F), norm_forward_phase=gc.norm_forward_phase.TRAINING)
    assert [t.get_name() for t in (y, m, iv)] == ["layernorm.0::Y", "layernorm.0::MEAN", "layernorm.0::INV_VARIANCE"]


def test_user_uid_wins_over_auto():
    g = gc.pygraph(io_data_type=F)
    a = g.tensor(dim=[2], name="a")  # auto uid 1
    b = g.tensor(dim=[2], name="b", uid=1)
    assert b.get_uid() == 1 and a.get_uid() != 1
    assert g.find_tensor(1) is b and g.find_tensor(a.get_uid()) is a
    c = g.tensor(dim=[2], name="c")
    c.set_uid(a.get_uid())  # auto holder renumbered again
    assert c.get_uid() != b.get_uid() and a.get_uid() not in (1, c.get_uid())


def test_user_uid_collision_names_both():
    g = gc.pygraph(io_data_type=F)
    g.tensor(dim=[2], name="first", uid=7)
    with pytest.raises(ValueError, match=r"uid 7 is already user-assigned to tensor 'first'; cannot assign it to tensor 'second'"):
        g.tensor(dim=[2], name="second", uid=7)
    t = g.tensor(dim=[2], name="third")
    with pytest.raises(ValueError, match=r"uid 7 is already user-assigned to tensor 'first'.*'third'"):
        t.set_uid(7)


def test_duplicate_names_are_labels():
    g = gc.pygraph(io_data_type=F)
    w1 = g.tensor(dim=[2, 2], name="weight")
    w2 = g.tensor(dim=[2, 2], name="weight")
    y = g.add(w1, w2).set_output(True)
    with pytest.raises(ValueError, match=r"tensor name 'weight' is ambiguous \(duplicate labels are legal; look up by uid or Tensor\)"):
        g.find_tensor("weight")
    assert g.find_tensor(w2.get_uid()) is w2
    assert "graph.name = \"weight\"" in g.to_mlir()
    w2.set_name("weight2")
    assert g.find_tensor("weight") is w1 and g.find_tensor("weight2") is w2


@needs_lib
def test_variant_pack_ambiguous_name():
    g = gc.pygraph(io_data_type=F)
    w1 = g.tensor(dim=[2], name="w")
    w2 = g.tensor(dim=[2], name="w")
    y = g.add(w1, w2).set_output(True).set_name("y")
    g.build()
    z = np.ones(2, np.float32)
    with pytest.raises(ValueError, match=r"tensor name 'w' is ambiguous \(duplicate labels\); key the variant pack by uid or Tensor"):
        g.execute({"w": z, "y": z})
    out = np.zeros(2, np.float32)
    g.execute({w1.get_uid(): z, w2: 2 * z, "y": out})
    np.testing.assert_array_equal(out, 3 * z)


def test_uid_must_be_non_negative():
    # 0 is a valid uid, as in the frontend (test_frontend_compat.py runs one)
    g = gc.pygraph(io_data_type=F)
    assert g.tensor(dim=[1], uid=0).get_uid() == 0
    with pytest.raises(ValueError, match=r"uid must be non-negative, got -2 \(tensor 'neg'\)"):
        g.tensor(dim=[1], uid=-2, name="neg")
    with pytest.raises(ValueError, match=r"uid must be non-negative, got -5"):
        g.tensor(dim=[1]).set_uid(-5)


# ---- emission ------------------------------------------------------------------


def test_emission_uids_names_types():
    g = gc.pygraph(name="mlp", io_data_type=gc.data_type.HALF, intermediate_data_type=F, compute_data_type=F)
    x = g.tensor(dim=[4, 8], name="x", uid=10)
    w = g.tensor(dim=[8, 16], name="w")
    h = g.matmul(x, w, name="fc")
    y = g.gelu(h).set_output(True).set_name("y").set_uid(20)
    text = g.to_mlir()
    # the compiler's print of the module the C API builder made
    assert 'graph.graph @mlp(%arg0: tensor<4x8xf16, #graph.strides<[8, 1]>> {graph.name = "x", graph.uid = 10 : i64}' in text
    assert '-> (tensor<4x16xf16> {graph.name = "y", graph.uid = 20 : i64})' in text
    assert "compute_data_type = f32, intermediate_data_type = f32, io_data_type = f16" in text
    assert 'matmul %arg0, %arg1 {name = "fc"} : (tensor<4x8xf16, #graph.strides<[8, 1]>>, tensor<8x16xf16, #graph.strides<[16, 1]>>) -> tensor<4x16xf32>' in text


def test_set_dim_after_building_updates_outputs():
    g = gc.pygraph(io_data_type=F)
    x = g.tensor(dim=[2, 3], name="x")
    y = g.exp(x).set_output(True)
    x.set_dim([4, 3])
    assert "-> (tensor<4x3xf32>" in g.to_mlir()


def test_emission_errors():
    g = gc.pygraph(io_data_type=F)
    x = g.tensor(dim=[2, 3])
    with pytest.raises(ValueError, match="no operations"):
        g.to_mlir()
    g.exp(x)
    with pytest.raises(ValueError, match=r"no outputs: mark the tensors you read with set_output\(True\)"):
        g.to_mlir()
    r = g.reduction(x, mode=gc.reduction_mode.ADD).set_output(True)
    with pytest.raises(ValueError, match=r"output 'reduction.0::OUT_0' \(uid \d+\) of reduction node 'reduction.0' has no dims: call set_dim\(\) with the reduced dims"):
        g.to_mlir()
    g2 = gc.pygraph()
    a = g2.tensor(dim=[2])
    with pytest.raises(ValueError, match=r"has no data type: call set_data_type\(\) or give the graph an io_data_type"):
        g2.neg(a).set_output(True)
        g2.to_mlir()
    g3 = gc.pygraph(io_data_type=F)
    v = g3.tensor(dim=[2], is_virtual=True, name="v")
    g3.neg(v).set_output(True)
    with pytest.raises(ValueError, match=r"tensor 'v' \(uid 1\) is virtual but no node produces it"):
        g3.to_mlir()


def test_builder_argument_errors():
    g = gc.pygraph(io_data_type=F)
    x = g.tensor(dim=[2, 3])
    with pytest.raises(TypeError, match=r"add\(\) missing tensor argument 'b'"):
        g.add(x)
    with pytest.raises(TypeError, match="unexpected arguments"):
        g.reduction(x, mode=gc.reduction_mode.ADD, bogus=1)
    with pytest.raises(ValueError, match=r"sdpa\(\): dropout needs q and k with dims set"):
        g.sdpa(x, x, x, dropout=(0.1, x, x))
    with pytest.raises(ValueError, match=r"dropout probability must be in \[0, 1\)"):
        g.sdpa(x, x, x, dropout=(1.0, x, x))


def test_unmodelled_features_are_not_supported_at_planning():
    # The frontend accepts these at the builder and refuses an unsupported
    # graph at create_execution_plans()/check_support(); its programs wrap
    # those (some only those, e.g. sdpa/graph/test_flexible_sdpa) in
    # `except cudnnGraphNotSupportedError` (a skip), so the builder call,
    # validate() and build_operation_graph() succeed and planning raises,
    # naming the feature.
    g = gc.pygraph(io_data_type=F)
    x = g.tensor(dim=[2, 3])
    y = g.relu(x)
    y.set_output(True)
    g.sdpa(x, x, x, paged_attention_k_table=x)
    g.tensor(dim=[2], ragged_offset=x)
    assert len(g.unsupported_features()) == 2
    g.validate()
    g.build_operation_graph()
    with pytest.raises(gc.cudnnGraphNotSupportedError, match="'paged_attention_k_table'.*ragged_offset"):
        g.create_execution_plans([gc.heur_mode.A])
    with pytest.raises(gc.cudnnGraphNotSupportedError):
        g.to_mlir()


def test_multi_output_arity():
    g = gc.pygraph(io_data_type=F)
    x = g.tensor(dim=[4, 8, 1, 1])
    s = g.tensor(dim=[1, 8, 1, 1])
    eps = g.tensor_scalar(1e-5, F)
    outs = g.layernorm(x, s, s, eps, norm_forward_phase=gc.norm_forward_phase.INFERENCE)
    assert isinstance(outs, list) and len(outs) == 3 and outs[1] is None and outs[2] is None
    outs = g.rmsnorm(x, s, None, eps, norm_forward_phase=gc.norm_forward_phase.INFERENCE)
    assert outs[1] is None
    q = g.tensor(dim=[1, 2, 8, 16], data_type=gc.data_type.HALF)
    o, st = g.sdpa(q, q, q)
    assert st is None and o.get_dim() == [1, 2, 8, 16]
    o, st = g.sdpa(q, q, q, generate_stats=True)
    assert st.get_dim() == [1, 2, 8, 1]
    dq, dk, dv = g.sdpa_backward(q, q, q, o, o, st)
    assert dq.get_dim() == [1, 2, 8, 16]
    assert g.conv_fprop(x, g.tensor(dim=[16, 8, 1, 1]), padding=[0, 0]).get_dim() == [4, 16, 1, 1]


# ---- the compiler's verdict ------------------------------------------------------


@needs_lib
def test_validate_carries_compiler_diagnostics():
    g = gc.pygraph(io_data_type=F)
    a = g.tensor(dim=[2, 3], name="a")
    b = g.tensor(dim=[4, 5], name="b")
    g.matmul(a, b, name="mm").set_output(True)
    with pytest.raises(gc.cudnnGraphNotSupportedError) as info:
        g.validate()
    assert isinstance(info.value, ValueError)
    assert "K of A is 3 but K of B is 4" in str(info.value)
    assert "graph.matmul" in str(info.value)  # the emitted text is attached


# ---- plans --------------------------------------------------------------------


@needs_lib
def test_plan_queries():
    g, x, y = simple_graph()
    assert g.get_execution_plan_count() == 0
    with pytest.raises(RuntimeError, match=r"call create_execution_plans\(\) before select_plan\(\)"):
        g.select_plan(0)
    g.validate()
    g.build_operation_graph()
    g.create_execution_plans([gc.heur_mode.A, gc.heur_mode.FALLBACK])
    with pytest.raises(RuntimeError, match=r"create_execution_plans\(\) was already called on this graph; planning is one-shot"):
        g.create_execution_plans([gc.heur_mode.A])
    assert g.get_execution_plan_count() == 1
    assert g.get_plan_name_at_index(0) == "reference_cpu"
    assert g.get_engine_and_knobs_at_index(0) == (0, {})
    with pytest.raises(IndexError, match=r"plan index 1 out of range for 1 plan\(s\) \(graph.plans\)"):
        g.select_plan(1)
    with pytest.raises(IndexError, match=r"plan index -1 out of range for 1 plan\(s\)"):
        g.get_plan_name_at_index(-1)
    with pytest.raises(RuntimeError, match=r"Call build\(\) first"):
        g.get_workspace_size()
    g.check_support()
    g.build_plans(gc.build_plan_policy.ALL)
    assert g.get_workspace_size() == 0
    g.select_plan(0)
    g.build_plan_at_index(0)
    data = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    out = np.zeros_like(data)
    g.execute_plan_at_index({x: data, y: out}, None, 0)
    np.testing.assert_array_equal(out, np.maximum(data, 0))
    with pytest.raises(IndexError):
        g.execute_plan_at_index({x: data, y: out}, None, 3)


@needs_lib
def test_deselect_engines_and_filters():
    g, x, y = simple_graph()
    g.deselect_engines(["reference"])
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"no plan in the list could be built:\n  \[0\] reference_cpu: excluded by deselect_engines\(\)"):
        g.build()
    with pytest.raises(ValueError, match=r"plan 0 \('reference_cpu'\) is excluded by deselect_engines\(\)/a note filter"):
        g.build_plan_at_index(0)
    g2, _, _ = simple_graph()
    g2.build_operation_graph()
    g2.create_execution_plans()
    g2.select_plan(0).deselect_engines(["cpu"])
    with pytest.raises(ValueError, match=r"plan 0 \('reference_cpu'\) is pinned by select_plan\(\) but excluded by deselect_engines\(\); drop one of the two instructions"):
        g2.build_plans()
    g3, _, _ = simple_graph()
    g3.select_behavior_notes([gc.behavior_note.RUNTIME_COMPILATION])
    with pytest.raises(gc.cudnnGraphNotSupportedError, match="a note filter"):
        g3.build()
    g4, _, _ = simple_graph()
    g4.deselect_workspace_greater_than(0).deselect_numeric_notes([gc.numeric_note.TENSOR_CORE])
    g4.build()  # workspace 0 and no notes: still runs


@needs_lib
def test_create_execution_plan_replay():
    g, x, y = simple_graph()
    g.validate()
    g.create_execution_plan(0, {})
    assert g.get_execution_plan_count() == 1
    with pytest.raises(ValueError, match="no engine on this graph owns engine_id 12345"):
        g.create_execution_plan(12345, {})
    g.build_plan_at_index(g.get_execution_plan_count() - 1)


@needs_lib
def test_frozen_after_planning():
    g, x, y = simple_graph()
    g.build()
    with pytest.raises(RuntimeError, match=r"cannot add a exp op after lowering/planning — the graph is frozen"):
        g.exp(x)
    with pytest.raises(RuntimeError, match="frozen"):
        y.set_name("other")


# ---- execute errors ----------------------------------------------------------------


@needs_lib
def test_execute_buffer_checks():
    g, x, y = simple_graph()
    g.build()
    good = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"the variant pack is missing a buffer for tensor uid 2 \('relu.0::OUT_0'\)"):
        g.execute({x: good})
    # Buffers are memory for the graph's dims and strides (as in the cuDNN
    # frontend): another view of enough bytes is used with a warning, a
    # buffer too small for the graph's layout is refused.
    with pytest.warns(gc.BufferViewWarning, match=r"buffer for tensor uid 1 \('x'\) has dims \[3, 2\] and strides \[2, 1\] but the graph declares dims \[2, 3\]"):
        g.execute({x: np.zeros((3, 2), np.float32), y: good})
    with pytest.raises(ValueError, match=r"buffer for tensor uid 1 \('x'\) has dims \[2, 2\] and strides \[2, 1\] \(16 bytes\) but the graph's dims \[2, 3\] and strides \[3, 1\] \(FLOAT\) span 24 bytes"):
        g.execute({x: np.zeros((2, 2), np.float32), y: good})
    with pytest.raises(ValueError, match=r"buffer for tensor uid 1 \('x'\) holds float64 but the graph declares FLOAT"):
        g.execute({x: np.zeros((2, 3)), y: good})
    with pytest.warns(gc.BufferViewWarning, match=r"buffer for tensor uid 1 \('x'\) has dims \[2, 3\] and strides \[1, 2\] but the graph declares dims \[2, 3\] and strides \[3, 1\]"):
        g.execute({x: np.zeros((3, 2), np.float32).T, y: good})
    ro = np.zeros((2, 3), np.float32)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        g.execute({x: good, y: ro})
    with pytest.raises(KeyError, match="no tensor named 'nope'"):
        g.execute({"nope": good})


class FakeCudaArray:
    """A device buffer as CuPy/Numba describe one."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0x7F0000000000, False), "strides": None, "version": 3}


@needs_lib
def test_gpu_buffers_report_no_device():
    g, x, y = simple_graph()
    g.build()
    with pytest.raises(gc.GraphNoDeviceError, match="on the GPU failed") as info:
        g.execute({x: FakeCudaArray((2, 3)), y: FakeCudaArray((2, 3))})
    assert "GRAPH_ERROR_NO_DEVICE" in str(info.value)
    with pytest.raises(ValueError, match="mixes host buffers"):
        g.execute({x: np.zeros((2, 3), np.float32), y: FakeCudaArray((2, 3))})


# ---- text and serialization --------------------------------------------------------


@needs_lib
def test_serialize_round_trip():
    g, x, y = simple_graph()
    g.build()
    blob = g.serialize()
    g2 = gc.pygraph()
    g2.deserialize(blob)
    data = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
    out = np.zeros_like(data)
    g2.execute({"x": data, "relu.0::OUT_0": out})
    np.testing.assert_array_equal(out, np.maximum(data, 0))
    g3 = gc.pygraph()
    g3.deserialize(None, list(blob))  # classic (handle, data) form, data as a list of ints
    assert g3.key() == g.key()
    # the plan is recorded by name too (a GPU list ranked by time may order
    # it otherwise in another process); the name wins over a stale index
    header = json.loads(blob.split(b"\n")[1])
    assert header["plan_name"] == g.get_plan_name_at_index(header["plan_index"])
    header["plan_index"] = 0 if len(g._plans) > 1 else header["plan_index"]
    g4 = gc.pygraph()
    g4.deserialize(blob.split(b"\n")[0] + b"\n" + json.dumps(header).encode() + b"\n" + b"\n".join(blob.split(b"\n")[2:]))
    assert g4.get_plan_name_at_index(g4._plan_index) == header["plan_name"]
    with pytest.raises(ValueError, match="bad header"):
        gc.pygraph().deserialize(b"nonsense")


@needs_lib
def test_from_mlir():
    text = """
graph.graph @g(%x: tensor<2x2xf32> {graph.uid = 5 : i64, graph.name = "x"}) -> (tensor<2x2xf32> {graph.uid = 6 : i64, graph.name = "y"}) {
  %y = graph.pointwise neg(%x) : (tensor<2x2xf32>) -> tensor<2x2xf32>
  graph.output %y : tensor<2x2xf32>
}
"""
    g = gc.from_mlir(text)
    assert g.to_mlir() == text
    assert g.find_tensor("x").get_uid() == 5
    g.build()
    out = np.zeros((2, 2), np.float32)
    g.execute({5: np.ones((2, 2), np.float32), "y": out})
    np.testing.assert_array_equal(out, -np.ones((2, 2)))
    with pytest.raises(RuntimeError, match="loaded from MLIR text|frozen"):
        g.neg(g.find_tensor("x"))
    with pytest.raises(gc.GraphValidationError):
        gc.from_mlir("graph.graph @broken(")


def test_key_and_inspect():
    g, x, y = simple_graph()
    h, _, _ = simple_graph()
    assert g.key() == h.key()
    info = g.inspect()
    assert info["nodes"][0]["name"] == "relu.0" and info["tensors"]["x"]["uid"] == 1


def test_missing_library_message(monkeypatch, tmp_path):
    from graph_compiler import _capi, _ops

    monkeypatch.setattr(_capi, "_lib", None)
    monkeypatch.setattr(_ops, "_RESULT_DIMS_CACHE", {})
    monkeypatch.setenv("GRAPH_CAPI_LIBRARY", str(tmp_path / "nope.so"))
    g, _, y = simple_graph()  # recording a graph needs no library
    assert y.dim == []  # the dims of op outputs are the compiler's shape rules
    for call in (g.to_mlir, g.validate):
        with pytest.raises(gc.GraphLibraryNotFound, match=r"libGraphCAPI.so was not found \(looked at: .*nope.so\).*GRAPH_CAPI_LIBRARY"):
            call()


# ---- a program written for the cuDNN frontend ----------------------------------------


@needs_lib
def test_cudnn_frontend_program_runs_unchanged():
    import cudnn

    handle = cudnn.create_handle()
    graph = cudnn.pygraph(
        io_data_type=cudnn.data_type.FLOAT,
        intermediate_data_type=cudnn.data_type.FLOAT,
        compute_data_type=cudnn.data_type.FLOAT,
        handle=handle,
    )
    X = graph.tensor(name="X", dim=[8, 64], stride=[64, 1], data_type=cudnn.data_type.FLOAT)
    W = graph.tensor(name="W", dim=[64, 32], stride=[32, 1], data_type=cudnn.data_type.FLOAT)
    B = graph.tensor(name="B", dim=[1, 32], stride=[32, 1], data_type=cudnn.data_type.FLOAT)
    scale = graph.tensor(name="scale", dim=[1, 32], stride=[32, 1], data_type=cudnn.data_type.FLOAT)
    bias = graph.tensor(name="bias", dim=[1, 32], stride=[32, 1], data_type=cudnn.data_type.FLOAT)
    epsilon = graph.tensor_scalar(1e-5, cudnn.data_type.FLOAT)

    H = graph.matmul(name="fc", A=X, B=W)
    H = graph.bias(name="fc_bias", input=H, bias=B)
    A = graph.relu(name="act", input=H)
    Y, mean, inv_var = graph.layernorm(
        name="ln",
        norm_forward_phase=cudnn.norm_forward_phase.TRAINING,
        input=A,
        scale=scale,
        bias=bias,
        epsilon=epsilon,
    )
    Y.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    mean.set_output(True).set_data_type(cudnn.data_type.FLOAT)
    inv_var.set_output(True).set_data_type(cudnn.data_type.FLOAT)

    graph.validate()
    graph.build_operation_graph()
    graph.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    graph.check_support()
    graph.build_plans(cudnn.build_plan_policy.HEURISTICS_CHOICE)

    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((8, 64), dtype=np.float32), rng.standard_normal((64, 32), dtype=np.float32)
    b, s, bb = (rng.standard_normal((1, 32), dtype=np.float32) for _ in range(3))
    y, m, iv = np.empty((8, 32), np.float32), np.empty((8, 1), np.float32), np.empty((8, 1), np.float32)
    workspace = np.empty(graph.get_workspace_size(), np.uint8)
    graph.execute({X: x, W: w, B: b, scale: s, bias: bb, Y: y, mean: m, inv_var: iv}, workspace, handle=handle)
    cudnn.destroy_handle(handle)

    a = np.maximum(x.astype(np.float64) @ w + b, 0)
    mu, var = a.mean(1, keepdims=True), a.var(1, keepdims=True)
    np.testing.assert_allclose(m, mu, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(y, (a - mu) / np.sqrt(var + 1e-5) * s + bb, rtol=1e-4, atol=1e-4)


def test_cudnn_shim_is_the_same_package():
    import cudnn

    assert cudnn.pygraph is gc.pygraph and cudnn.data_type is gc.data_type
    assert issubclass(cudnn.graph, cudnn.pygraph)
    for name in ("HALF", "BFLOAT16", "FLOAT", "DOUBLE", "INT8", "UINT8", "INT32", "INT64", "BOOLEAN", "FP8_E4M3", "FP8_E5M2", "FP8_E8M0", "FP4_E2M1", "NOT_SET"):
        assert hasattr(cudnn.data_type, name)
    assert {m.name for m in cudnn.heur_mode} >= {"A", "B", "FALLBACK"}
    assert {m.name for m in cudnn.build_plan_policy} == {"HEURISTICS_CHOICE", "ALL"}
    assert {m.name for m in cudnn.norm_forward_phase} >= {"TRAINING", "INFERENCE"}
    h = cudnn.create_handle()
    cudnn.set_stream(handle=h, stream=0)
    assert cudnn.get_stream(h) == 0


@needs_lib
def test_repeated_pack_reuses_checks_but_not_stale_buffers():
    # A pack seen before skips re-describing its buffers; a different object,
    # address or shape is described and checked again.
    x = np.random.rand(1, 2, 8).astype(np.float32)
    g = gc.pygraph(io_data_type=gc.data_type.FLOAT, compute_data_type=gc.data_type.FLOAT)
    X = g.tensor_like(x)
    Y = g.relu(input=X)
    Y.set_output(True)
    g.build([gc.heur_mode.A])
    y = np.empty_like(x)
    pack = {X: x, Y: y}
    g.execute(pack)
    np.testing.assert_allclose(y, np.maximum(x, 0))
    x[:] = -1.0  # same buffers, new contents: the cached pack still reads them
    g.execute(pack)
    np.testing.assert_allclose(y, 0.0)
    other = np.random.rand(1, 2, 8).astype(np.float32)
    g.execute({X: other, Y: y})
    np.testing.assert_allclose(y, np.maximum(other, 0))
    with pytest.raises(ValueError, match="has dims"):
        g.execute({X: np.zeros((1, 2, 4), np.float32), Y: y})
