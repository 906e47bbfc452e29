"""The GPU plan list on a machine without a GPU: the fallback to the CPU
reference plan, the C API's error paths, and the package's handling of a GPU
plan list (driven through a stand-in for the C API's plan calls)."""

import logging

import numpy as np
import pytest

import graph_compiler as gc
from conftest import needs_lib
from graph_compiler import _capi, _enums, _plans

F = gc.data_type.FLOAT


def mlp_graph():
    g = gc.pygraph(io_data_type=F, intermediate_data_type=F, compute_data_type=F)
    a = g.tensor(name="A", dim=[1, 4, 8])
    b = g.tensor(name="B", dim=[1, 8, 6])
    bias = g.tensor(name="bias", dim=[1, 1, 6])
    y = g.relu(g.add(g.matmul(a, b), bias))
    y.set_output(True)
    return g, a, b, bias, y


def run_cpu(g, a, b, bias, y, **kw):
    rng = np.random.default_rng(0)
    av = rng.standard_normal((1, 4, 8)).astype(np.float32)
    bv = rng.standard_normal((1, 8, 6)).astype(np.float32)
    cv = rng.standard_normal((1, 1, 6)).astype(np.float32)
    out = np.zeros((1, 4, 6), np.float32)
    if kw:
        g.execute_plan_at_index({a: av, b: bv, bias: cv, y: out}, None, **kw)
    else:
        g.execute({a: av, b: bv, bias: cv, y: out})
    np.testing.assert_allclose(out, np.maximum(av @ bv + cv, 0), rtol=1e-5, atol=1e-5)


# ---- the real C API without a GPU ---------------------------------------------


@needs_lib
def test_without_gpu_falls_back_to_the_cpu_plan_with_one_info_line(caplog):
    g, *io = mlp_graph()
    with caplog.at_level(logging.INFO, logger="graph_compiler"):
        g.create_execution_plans([gc.heur_mode.A, gc.heur_mode.FALLBACK])
    assert g.get_execution_plan_count() == 1
    assert g.get_plan_name_at_index(0) == "reference_cpu"
    lines = [r.getMessage() for r in caplog.records if r.name == "graph_compiler"]
    assert len(lines) == 1 and "\n" not in lines[0]
    assert "using the CPU reference plan" in lines[0]
    assert "GRAPH_ERROR_NO_DEVICE" in lines[0]
    g.build_plans(gc.build_plan_policy.ALL)
    run_cpu(g, *io)


@needs_lib
def test_c_api_plan_calls_without_gpu():
    g, *_ = mlp_graph()
    g.build_operation_graph()
    m = g._module
    if not m.has_plan_api():
        pytest.skip("the loaded library predates the plan list")
    # Argument errors come first.
    assert m.plan_create(_capi.GRAPH_DEVICE_CPU, []) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    assert "only GRAPH_DEVICE_GPU has one" in _capi.last_error()
    assert m.plan_create(_capi.GRAPH_DEVICE_GPU, [9]) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    assert "unknown heuristics mode 9" in _capi.last_error()
    assert m.set_plan_options([], -7, False) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    # Then the missing GPU.
    assert m.plan_create(_capi.GRAPH_DEVICE_GPU, [0, 2]) == _capi.GRAPH_ERROR_NO_DEVICE
    assert "graphPlanCreate" in _capi.last_error()
    for call in (m.plan_count, lambda: m.plan_name(0), lambda: m.plan_engine(0), lambda: m.plan_workspace(0), lambda: m.plan_notes(0, True)):
        with pytest.raises(_capi.PlanError) as info:
            call()
        assert info.value.status == _capi.GRAPH_ERROR_NO_DEVICE
    assert m.plan_build(0) == _capi.GRAPH_ERROR_NO_DEVICE
    assert m.plan_build_many([0, 1]) == _capi.GRAPH_ERROR_NO_DEVICE
    assert "graphPlanBuildMany" in _capi.last_error()
    assert m.plan_select(0) == _capi.GRAPH_ERROR_NO_DEVICE
    assert m.plan_add(3, [(1, 2)]) == _capi.GRAPH_ERROR_NO_DEVICE
    assert m.set_plan_options(["eng0"], 0, False) == _capi.GRAPH_ERROR_NO_DEVICE


# ---- a GPU plan list, through a stand-in for the C API --------------------------


class FakeGpuPlans:
    """The plan calls of _capi.Module as a GPU machine answers them: three
    heuristics plans, the second declines to build."""

    def __init__(self, cudnn=True, codegen=False):
        self.plans = []
        if cudnn:
            self.plans += [
                dict(engine=0, knobs=[(2, 1)], ws=0, behavior=["SUPPORTS_CUDA_GRAPH_NATIVE_API"], numeric=["TENSOR_CORE"]),
                dict(engine=5, knobs=[], ws=0, behavior=[], numeric=[], decline="CUDNN_STATUS_NOT_SUPPORTED: no kernel"),
                dict(engine=7, knobs=[(3, 4), (4, 1)], ws=4096, behavior=["CUBLASLT_DEPENDENCY"], numeric=["DOWN_CONVERT_INPUTS"]),
            ]
        if codegen:
            # The codegen engine's plans that apply, after cuDNN's (the C
            # API's PlanList.h order), as graphPlanInfo describes them.
            gen = dict(ws=0, behavior=["GENERATED_KERNELS"], numeric=[])
            self.plans += [
                dict(gen, name="codegen_v2_t256_i2", engine=-2, knobs=[(1000, 256), (1001, 2), (1002, 0)]),
                dict(gen, name="codegen_v2_t512_i2_p", engine=-2, knobs=[(1000, 512), (1001, 2), (1002, 1)], decline="ptxas: too many registers"),
                dict(gen, name="codegen_v1", engine=-3, knobs=[]),
            ]
        self.calls = []
        self.error = ""

    def install(self, monkeypatch):
        fake = self

        def name(p):
            if "name" in p:
                return p["name"]
            return f"eng{p['engine']}" + "".join(f"_k{t}={v}" for t, v in p["knobs"])

        def fail(status, text):
            fake.error = text
            return status

        monkeypatch.setattr(_capi, "last_error", lambda: fake.error)
        M = _capi.Module
        monkeypatch.setattr(M, "has_plan_api", lambda self: True)
        monkeypatch.setattr(M, "plan_create", lambda self, device, modes: fake.calls.append(("create", tuple(modes))) or _capi.GRAPH_OK)
        monkeypatch.setattr(M, "plan_count", lambda self: (len(fake.plans), 1))
        monkeypatch.setattr(M, "plan_group", lambda self: 0)
        monkeypatch.setattr(M, "plan_name", lambda self, i: name(fake.plans[i]))
        monkeypatch.setattr(M, "plan_engine", lambda self, i: (fake.plans[i]["engine"], list(fake.plans[i]["knobs"])))
        monkeypatch.setattr(M, "plan_notes", lambda self, i, numeric: list(fake.plans[i]["numeric" if numeric else "behavior"]))
        monkeypatch.setattr(M, "plan_workspace", lambda self, i: fake.plans[i]["ws"])

        def build(self, i):
            fake.calls.append(("build", i))
            p = fake.plans[i]
            if "decline" in p:
                return fail(_capi.GRAPH_ERROR_NOT_SUPPORTED, f"plan {i} ({name(p)}) declined: {p['decline']}")
            return _capi.GRAPH_OK

        def add(self, engine, knobs):
            fake.calls.append(("add", engine, tuple(knobs)))
            if engine < 0:
                return fail(_capi.GRAPH_ERROR_INVALID_ARGUMENT, f"graphPlanAdd: engine id {engine} is negative")
            if engine == 999:
                return fail(_capi.GRAPH_ERROR_NOT_SUPPORTED, "graphPlanAdd: engine 999: CUDNN_STATUS_BAD_PARAM")
            fake.plans.append(dict(engine=engine, knobs=list(knobs), ws=0, behavior=[], numeric=[]))
            return _capi.GRAPH_OK

        def build_many(self, indices):
            fake.calls.append(("build_many", tuple(indices)))
            statuses = [build(self, i) for i in indices]
            fake.calls[-len(indices) :] = []  # one call, not a build each
            return next((s for s in statuses if s != _capi.GRAPH_OK), _capi.GRAPH_OK)

        monkeypatch.setattr(M, "plan_build", build)
        monkeypatch.setattr(M, "plan_build_many", build_many)
        monkeypatch.setattr(M, "plan_add", add)
        monkeypatch.setattr(M, "plan_select", lambda self, i: fake.calls.append(("select", i)) or _capi.GRAPH_OK)
        monkeypatch.setattr(M, "set_plan_options", lambda self, names, limit, tune: fake.calls.append(("options", tuple(names), limit)) or _capi.GRAPH_OK)
        return self


@needs_lib
def test_gpu_plan_list_queries(monkeypatch):
    fake = FakeGpuPlans().install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans([gc.heur_mode.A, gc.heur_mode.FALLBACK])
    assert fake.calls[0] == ("create", (0, 2))
    assert g.get_execution_plan_count() == 3
    assert [g.get_plan_name_at_index(i) for i in range(3)] == ["eng0_k2=1", "eng5", "eng7_k3=4_k4=1"]
    # cuDNN knobs are keyed by knob_type (code 4 is EDGE); code 3 (USE_TEX)
    # has no member and is the extra value -4, named BACKEND_KNOB_3
    use_tex = gc.knob_type(-4)
    assert g.get_engine_and_knobs_at_index(2) == (7, {use_tex: 4, gc.knob_type.EDGE: 1})
    assert use_tex.name == "BACKEND_KNOB_3" and _enums.backend_knob_code(use_tex) == 3
    assert all(isinstance(k, gc.knob_type) for i in range(3) for k in g.get_engine_and_knobs_at_index(i)[1])
    # every key has a name, members or not (programs key plans by knob.name)
    keys = {k.name for k in g.get_engine_and_knobs_at_index(2)[1]}
    assert keys == {"BACKEND_KNOB_3", "EDGE"}
    for i in range(g.get_execution_plan_count()):
        for k in g.get_engine_and_knobs_at_index(i)[1]:
            assert isinstance(k.name, str) and k.name
    # a codegen plan's own knob codes are knob_type values too, named CODEGEN_*
    key = _plans.codegen_knob_key(_plans.CODEGEN_KNOB_THREADS)
    assert isinstance(key, gc.knob_type) and key.name == "CODEGEN_THREADS"
    assert _enums.backend_knob_code(key) == 1000 and gc.knob_type(int(key)) is key
    # so is the knob marking a plan of another description of the group (a
    # 1x1 convolution as a matmul), which create_execution_plan hands back
    alternate = _enums.knob_type_of(_plans.KNOB_ALTERNATE_DESCRIPTION)
    assert alternate.name == "ALTERNATE_DESCRIPTION" and _enums.backend_knob_code(alternate) == 2000
    assert g.get_behavior_notes_for_plan_at_index(0) == [gc.behavior_note.SUPPORTS_CUDA_GRAPH_NATIVE_API]
    assert g.get_numeric_notes_for_plan_at_index(0) == [gc.numeric_note.TENSOR_CORE]
    assert g.get_behavior_notes_for_plan_at_index(2) == [gc.behavior_note.CUBLASLT_DEPENDENCY]
    # A decline carries cuDNN's reason; the other plans stay usable.
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"plan 1 \(eng5\) declined: CUDNN_STATUS_NOT_SUPPORTED"):
        g.build_plan_at_index(1)
    calls = len(fake.calls)
    g.build_plans(gc.build_plan_policy.ALL)
    # ALL hands the plans not built yet to the C API at once (cuDNN builds
    # them on several threads), then asks each for its answer.
    assert fake.calls[calls] == ("build_many", (0, 1, 2))
    assert g.get_workspace_size() == 0
    assert g.get_workspace_size_plan_at_index(2) == 4096
    # Host buffers run on the CPU reference whatever plan is selected; no
    # plan is pinned in the C API for them.
    run_cpu(g, *io)
    run_cpu(g, *io, index=2)
    assert not [c for c in fake.calls if c[0] in ("select", "options")]


@needs_lib
def test_plan_entries_name_their_index_and_a_pinned_plan_survives_build_all(monkeypatch):
    # The frontend's programs walk graph.plans, skip entries whose cpp_index
    # is None (a python engine's), build one, pin it and build the rest with
    # policy ALL; a later plan declining (eng5) must not undo the pin.
    FakeGpuPlans().install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans([gc.heur_mode.A, gc.heur_mode.FALLBACK])
    assert [cfg.cpp_index for cfg in g.plans] == [0, 1, 2]
    assert all(cfg.mode is None for cfg in g.plans)
    g.select_plan(0)
    g.build_plans(gc.build_plan_policy.ALL)
    assert g._plan_index == 0
    assert g.get_workspace_size_plan_at_index(2) == 4096  # built past the decline
    # The pinned plan itself still has to build.
    g2, *_ = mlp_graph()
    g2.create_execution_plans([gc.heur_mode.A])
    g2.select_plan(1)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"plan 1 \(eng5\) declined"):
        g2.build_plans(gc.build_plan_policy.ALL)
    # The entries' knobs are keyed as get_engine_and_knobs_at_index answers them.
    assert g.plans[2].knobs == g.get_engine_and_knobs_at_index(2)[1] == {gc.knob_type(-4): 4, gc.knob_type.EDGE: 1}
    # The CPU reference is the compiled graph's one plan.
    monkeypatch.undo()
    g3, *_ = mlp_graph()
    g3.create_execution_plans()
    assert [cfg.cpp_index for cfg in g3.plans] == [0]


@needs_lib
def test_gpu_plan_list_filters_and_replay(monkeypatch):
    fake = FakeGpuPlans().install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans()
    assert fake.calls[0] == ("create", ())  # the C API's default modes
    g.deselect_engines(["eng0"])
    g.build_plans()
    assert g.get_plan_name_at_index(g._plan_index) == "eng7_k3=4_k4=1"  # eng0 barred, eng5 declines
    # The workspace filter applies once the workspace is known (after build).
    g2, *_ = mlp_graph()
    g2.create_execution_plans()
    g2.deselect_workspace_greater_than(0)
    g2.select_plan(2)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"plan 2 \('eng7_k3=4_k4=1'\) needs 4096 workspace bytes, over the 0 limit"):
        g2.build_plans()
    # create_execution_plan replays (engine_id, knobs) through the C API.
    engine, knobs = g.get_engine_and_knobs_at_index(2)
    g.create_execution_plan(engine, knobs)
    assert ("add", 7, ((3, 4), (4, 1))) in fake.calls
    assert g.get_execution_plan_count() == 4
    assert g.get_plan_name_at_index(3) == "eng7_k3=4_k4=1"
    assert g.get_engine_and_knobs_at_index(3) == (7, {gc.knob_type(-4): 4, gc.knob_type.EDGE: 1})
    g.build_plan_at_index(3)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"create_execution_plan\(999, \{\}\): graphPlanAdd: engine 999: CUDNN_STATUS_BAD_PARAM"):
        g.create_execution_plan(999, {})
    assert g.get_execution_plan_count() == 4


@needs_lib
def test_gpu_execute_pins_the_plan_and_the_filters(monkeypatch):
    fake = FakeGpuPlans().install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans()
    g.deselect_engines(["eng5"])
    g.deselect_workspace_greater_than(1 << 20)
    g.build_plan_at_index(2)
    _plans.prepare_run(g._module, g._plans, g._plan_index, g._barred_names, g._workspace_limit)
    assert fake.calls[-2:] == [("options", ("eng5",), 1 << 20), ("select", 2)]
    # Same options again: not handed over twice (the GPU program is kept).
    _plans.prepare_run(g._module, g._plans, 0, g._barred_names, g._workspace_limit)
    assert fake.calls[-1] == ("select", 0) and fake.calls[-2] == ("select", 2)
    # The plan pinned already is not pinned again.
    count = len(fake.calls)
    _plans.prepare_run(g._module, g._plans, 0, g._barred_names, g._workspace_limit)
    assert len(fake.calls) == count
    # A failing select (of a plan not pinned now) is an execution error naming the plan.
    monkeypatch.setattr(_capi.Module, "plan_select", lambda self, i: _capi.GRAPH_ERROR_INVALID_ARGUMENT)
    fake.error = "graphPlanSelect: plan index 2 is out of range"
    with pytest.raises(gc.GraphExecutionError, match=r"selecting plan 2 \('eng7_k3=4_k4=1'\): graphPlanSelect"):
        _plans.prepare_run(g._module, g._plans, 2, g._barred_names, g._workspace_limit)
    assert g._module._pinned_plan is None  # the failed select left nothing known pinned


@needs_lib
def test_codegen_plans_follow_cudnn_in_the_list(monkeypatch):
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans()
    assert g.get_execution_plan_count() == 6
    assert [g.get_plan_name_at_index(i) for i in range(6)] == [
        "eng0_k2=1", "eng5", "eng7_k3=4_k4=1", "codegen_v2_t256_i2", "codegen_v2_t512_i2_p", "codegen_v1"]
    key = _plans.codegen_knob_key
    assert g.get_engine_and_knobs_at_index(3) == (_plans.CODEGEN_V2_ENGINE_ID, {
        key(_plans.CODEGEN_KNOB_THREADS): 256, key(_plans.CODEGEN_KNOB_ITEMS): 2, key(_plans.CODEGEN_KNOB_PREFETCH): 0})
    assert g.get_engine_and_knobs_at_index(5) == (_plans.CODEGEN_V1_ENGINE_ID, {})
    assert g.get_behavior_notes_for_plan_at_index(3) == ["GENERATED_KERNELS"]
    assert _plans.is_codegen(g.plans[3]) and not _plans.is_codegen(g.plans[0])
    # Built (compiled and loaded) through the C API like any plan; a codegen
    # plan that fails carries its reason.
    g.build_plan_at_index(3)
    assert ("build", 3) in fake.calls and g.get_workspace_size() == 0
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"plan 4 \(codegen_v2_t512_i2_p\) declined: ptxas"):
        g.build_plan_at_index(4)
    # Host buffers run on the CPU reference whatever plan is selected.
    run_cpu(g, *io, index=3)
    # Device buffers pin the codegen plan's C API index.
    g.select_plan(5)
    g.build_plans()
    _plans.prepare_run(g._module, g._plans, g._plan_index, g._barred_names, g._workspace_limit)
    assert fake.calls[-1] == ("select", 5)


@needs_lib
def test_build_all_hands_the_c_api_its_own_indices(monkeypatch):
    # heur_mode.OPENSOURCE lists the codegen plans only: position 0 of the
    # package's list is the C API's plan 3, and build_plans(ALL) must hand
    # the C API indices 3, 4, 5, not the positions 0, 1, 2 (cuDNN's plans).
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans([gc.heur_mode.OPENSOURCE])
    assert g.get_execution_plan_count() == 3
    g.build_plans(gc.build_plan_policy.ALL)
    assert ("build_many", (3, 4, 5)) in fake.calls
    assert sorted(g._built_plans) == [0, 2]


@needs_lib
def test_deselect_engines_bars_either_engine(monkeypatch):
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)
    # "cudnn" bars every cuDNN plan: the walk lands on the first codegen plan.
    g, *_ = mlp_graph()
    g.create_execution_plans()
    g.deselect_engines(["cudnn"])
    g.build_plans()
    assert g.get_plan_name_at_index(g._plan_index) == "codegen_v2_t256_i2"
    _plans.prepare_run(g._module, g._plans, g._plan_index, g._barred_names, g._workspace_limit)
    assert fake.calls[-2:] == [("options", ("cudnn",), -1), ("select", 3)]
    with pytest.raises(ValueError, match=r"plan 0 \('eng0_k2=1'\) is excluded by deselect_engines\(\)"):
        g.build_plan_at_index(0)
    # "codegen" bars every codegen plan; a pinned one is then an error.
    g2, *_ = mlp_graph()
    g2.create_execution_plans()
    g2.deselect_engines(["codegen"])
    g2.build_plans()
    assert g2.get_plan_name_at_index(g2._plan_index) == "eng0_k2=1"
    g3, *_ = mlp_graph()
    g3.create_execution_plans()
    g3.deselect_engines(["codegen"])
    g3.select_plan(3)
    with pytest.raises(ValueError, match=r"plan 3 \('codegen_v2_t256_i2'\) is pinned by select_plan\(\) but excluded by deselect_engines\(\)"):
        g3.build_plans()
    # Substrings as usual: "codegen_v2" leaves codegen_v1.
    g4, *_ = mlp_graph()
    g4.create_execution_plans()
    g4.deselect_engines(["cudnn", "codegen_v2"])
    g4.build_plans()
    assert g4.get_plan_name_at_index(g4._plan_index) == "codegen_v1"
    # Both engines barred: nothing builds, and the failures say why.
    g5, *_ = mlp_graph()
    g5.create_execution_plans()
    g5.deselect_engines(["cudnn", "codegen"])
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"\[5\] codegen_v1: excluded by deselect_engines\(\)"):
        g5.build_plans()


@needs_lib
def test_codegen_only_list_when_cudnn_declines(monkeypatch):
    fake = FakeGpuPlans(cudnn=False, codegen=True).install(monkeypatch)
    g, *io = mlp_graph()
    g.create_execution_plans()
    # cuDNN has no plan: index 0 is the first codegen plan.
    assert g.get_execution_plan_count() == 3
    assert g.get_plan_name_at_index(0) == "codegen_v2_t256_i2"
    g.build_plans()
    assert g._plan_index == 0
    _plans.prepare_run(g._module, g._plans, 2, g._barred_names, g._workspace_limit)
    assert fake.calls[-1] == ("select", 2)
    run_cpu(g, *io, index=2)


@needs_lib
def test_create_execution_plan_replays_a_codegen_plan(monkeypatch):
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)
    g, *_ = mlp_graph()
    g.create_execution_plans()
    engine, knobs = g.get_engine_and_knobs_at_index(3)
    g.create_execution_plan(engine, knobs)
    # The listed plan (its C API index), not a new C API plan.
    assert not [c for c in fake.calls if c[0] == "add"]
    assert g.get_execution_plan_count() == 7
    assert g.get_plan_name_at_index(6) == "codegen_v2_t256_i2" and g.plans[6].index == 3
    g.build_plan_at_index(6)
    _plans.prepare_run(g._module, g._plans, 6, g._barred_names, g._workspace_limit)
    assert fake.calls[-1] == ("select", 3)
    with pytest.raises(gc.cudnnGraphNotSupportedError, match=r"no codegen plan of the list has these knobs"):
        g.create_execution_plan(_plans.CODEGEN_V2_ENGINE_ID, {_plans.CODEGEN_KNOB_THREADS: 96})
    # A cuDNN replay is still appended after the codegen plans.
    g.create_execution_plan(7, {3: 4, 4: 1})
    assert ("add", 7, ((3, 4), (4, 1))) in fake.calls
    assert g.get_plan_name_at_index(7) == "eng7_k3=4_k4=1" and g.plans[7].index == 6
    # Knobs persisted as int(knob_type) (negative for the extra values) replay too.
    g.create_execution_plan(engine, {int(k): v for k, v in knobs.items()})
    assert g.plans[8].index == 3


@needs_lib
def test_gpu_cannot_plan_this_graph_is_not_supported(monkeypatch):
    # A usable GPU that cannot run the graph: "not supported" at planning
    # time (the frontend's answer, which its programs skip on), not a CPU
    # plan that fails once CUDA tensors arrive.
    monkeypatch.setattr(_capi.Module, "has_plan_api", lambda self: True)
    monkeypatch.setattr(_capi.Module, "plan_create", lambda self, d, m: _capi.GRAPH_ERROR_NOT_SUPPORTED)
    monkeypatch.setattr(_capi, "last_error", lambda: "graph @g: group 'g/group0': the heuristics offered no plan\nmore")
    g, *io = mlp_graph()
    with pytest.raises(gc.cudnnGraphNotSupportedError, match="no GPU engine runs this graph: graph @g: group 'g/group0': the heuristics offered no plan"):
        g.create_execution_plans()


@needs_lib
def test_gpu_planning_error_falls_back_to_the_cpu(monkeypatch, caplog):
    monkeypatch.setattr(_capi.Module, "has_plan_api", lambda self: True)
    monkeypatch.setattr(_capi.Module, "plan_create", lambda self, d, m: _capi.GRAPH_ERROR_EXECUTION)
    monkeypatch.setattr(_capi, "last_error", lambda: "graph @g: cuInit failed\nmore")
    g, *io = mlp_graph()
    with caplog.at_level(logging.INFO, logger="graph_compiler"):
        g.create_execution_plans()
    assert g.get_plan_name_at_index(0) == "reference_cpu"
    [line] = [r.getMessage() for r in caplog.records if r.name == "graph_compiler"]
    assert "the GPU cannot plan this graph (GRAPH_ERROR_EXECUTION: graph @g: cuInit failed)" in line
    run_cpu(g, *io)


@needs_lib
def test_library_without_plan_api_keeps_the_cpu_plan(monkeypatch, caplog):
    monkeypatch.setattr(_capi.Module, "has_plan_api", lambda self: False)
    g, *io = mlp_graph()
    with caplog.at_level(logging.INFO, logger="graph_compiler"):
        g.create_execution_plans()
    assert g.get_execution_plan_count() == 1
    assert any("an older build" in r.getMessage() for r in caplog.records)
    g.create_execution_plan(0, {})  # the CPU reference's engine id
    assert g.get_plan_name_at_index(1) == "reference_cpu"
    with pytest.raises(ValueError, match="no engine on this graph owns engine_id 3"):
        g.create_execution_plan(3, {})


@needs_lib
def test_check_support_before_planning_plans_with_builds_defaults():
    # The frontend's first Python API (published samples): check_support()
    # right after the graph is made, then build(). The plan list made by
    # check_support is the one build() keeps and execute() runs.
    g, a, b, bias, y = mlp_graph()
    g.check_support()
    assert g.get_execution_plan_count() >= 1
    names = [g.get_plan_name_at_index(i) for i in range(g.get_execution_plan_count())]
    g.build()
    assert [g.get_plan_name_at_index(i) for i in range(g.get_execution_plan_count())] == names
    run_cpu(g, a, b, bias, y)
