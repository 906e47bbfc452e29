"""The host fast path of a repeated GPU execute, on a machine without a GPU:
the C API's GPU calls are stand-ins (test_plans.FakeGpuPlans for the plan
list, a recording execute_array and graphSetDevice) and the variant pack
holds stand-in CUDA tensors. What a repeated pack skips (describing the
buffers, re-pinning the plan already pinned, re-checking every plan's
filters) must come back whenever something it depends on changes."""

import warnings

import pytest

import graph_compiler as gc
from conftest import needs_lib
from graph_compiler import _buffers, _capi, _plans
from cuda_standins import CudaTensor
from test_plans import FakeGpuPlans, mlp_graph


@pytest.fixture
def gpu(monkeypatch):
    """FakeGpuPlans (eng0, eng5 declines, eng7 needs 4096 B, then the codegen
    plans) with executes and device selections recorded in fake.calls."""
    fake = FakeGpuPlans(codegen=True).install(monkeypatch)

    def execute_array(self, device, array, count):
        fake.calls.append(("execute", device, {array[i].uid: array[i].data for i in range(count)}))
        return _capi.GRAPH_OK

    monkeypatch.setattr(_capi.Module, "execute_array", execute_array)
    monkeypatch.setattr(_capi.lib(), "graphSetDevice", lambda n: fake.calls.append(("device", n)) or _capi.GRAPH_OK, raising=False)
    return fake


def cuda_pack(a, b, bias, y, base=0x7F0000000000):
    return {
        a: CudaTensor((1, 4, 8), base),
        b: CudaTensor((1, 8, 6), base + 0x1000),
        bias: CudaTensor((1, 1, 6), base + 0x2000),
        y: CudaTensor((1, 4, 6), base + 0x3000),
    }


def last_execute(fake):
    """The buffers (uid -> address) of the last execute."""
    return [c for c in fake.calls if c[0] == "execute"][-1][2]


def since(fake, mark, kinds=("select", "options", "execute", "device")):
    return [c for c in fake.calls[mark:] if c[0] in kinds]


@needs_lib
def test_a_repeated_pack_pins_the_plan_once_and_clears_the_device_each_time(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    mark = len(gpu.calls)
    g.execute(pack)
    g.execute(pack)
    calls = since(gpu, mark)
    assert [c for c in calls if c[0] in ("select", "options")] == [("options", (), -1), ("select", 0)]
    assert [c[0] for c in calls if c[0] == "execute"] == ["execute", "execute"]
    # The GPU of the pack's tensors is selected for each execute and the
    # choice cleared after it (the C API's choice is per thread).
    assert [c for c in calls if c[0] == "device"] == [("device", 0), ("device", -1)] * 2


@needs_lib
def test_deselect_engines_after_an_execute_bars_the_plan_again(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    g.execute(pack)
    assert g.get_plan_name_at_index(g._plan_index) == "eng0_k2=1"
    g.deselect_engines(["eng0"])
    # execute_plan_at_index of the barred plan is refused at once.
    with pytest.raises(ValueError, match=r"plan 0 \('eng0_k2=1'\) is excluded"):
        g.execute_plan_at_index(pack, None, index=0)
    mark = len(gpu.calls)
    g.execute(pack)  # builds again: eng0 barred, eng5 declines, eng7 runs
    assert g.get_plan_name_at_index(g._plan_index) == "eng7_k3=4_k4=1"
    calls = since(gpu, mark, ("select", "options", "execute"))
    assert calls[:2] == [("options", ("eng0",), -1), ("select", 2)]
    assert calls[2][0] == "execute"


@needs_lib
def test_a_workspace_limit_after_an_execute_bars_the_pinned_plan(gpu):
    g, *io = mlp_graph()
    g.create_execution_plans()
    g.select_plan(2)  # eng7: 4096 workspace bytes
    g.build_plans()
    pack = cuda_pack(*io)
    g.execute(pack)
    assert since(gpu, 0, ("select",))[-1] == ("select", 2)
    g.deselect_workspace_greater_than(1024)
    with pytest.raises(ValueError, match=r"plan 2 \('eng7_k3=4_k4=1'\) is pinned by select_plan\(\) but excluded by deselect_workspace_greater_than\(1024\)"):
        g.execute(pack)


@needs_lib
def test_a_note_filter_after_an_execute_bars_the_plan(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    g.execute(pack)
    g.deselect_numeric_notes([gc.numeric_note.TENSOR_CORE])  # eng0's note
    mark = len(gpu.calls)
    g.execute(pack)
    assert g.get_plan_name_at_index(g._plan_index) == "eng7_k3=4_k4=1"
    assert since(gpu, mark, ("select",)) == [("select", 2)]


@needs_lib
def test_select_plan_changes_the_plan_the_next_execute_pins(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    g.execute(pack)
    g.select_plan(3)  # codegen_v2_t256_i2
    mark = len(gpu.calls)
    g.execute(pack)
    assert since(gpu, mark, ("select",)) == [("select", 3)]
    # Back to plan 0: pinned again (the C API has plan 3 pinned now).
    g.select_plan(0)
    mark = len(gpu.calls)
    g.execute(pack)
    g.execute(pack)
    assert since(gpu, mark, ("select",)) == [("select", 0)]
    # execute_plan_at_index pins its own plan, and the next execute its own again.
    mark = len(gpu.calls)
    g.execute_plan_at_index(pack, None, index=5)
    g.execute(pack)
    assert since(gpu, mark, ("select",)) == [("select", 5), ("select", 0)]


@needs_lib
def test_another_graph_on_the_same_module_is_seen(gpu):
    # A kernel cache shares one module (one C API plan list) between graphs.
    cache = gc.create_kernel_cache()
    g1, *io1 = mlp_graph()
    g1._kernel_cache = cache
    g1.build()
    g2, *io2 = mlp_graph()
    g2._kernel_cache = cache
    g2.validate()
    g2.build_operation_graph()
    g2.create_execution_plans()
    assert g2._module is g1._module
    g2.select_plan(2)
    g2.build_plans()
    p1, p2 = cuda_pack(*io1), cuda_pack(*io2, base=0x7F1000000000)
    mark = len(gpu.calls)
    g1.execute(p1)
    g2.execute(p2)
    g1.execute(p1)
    g1.execute(p1)
    assert since(gpu, mark, ("select",)) == [("select", 0), ("select", 2), ("select", 0)]


@needs_lib
def test_a_new_plan_list_on_the_module_is_pinned_again(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    g.execute(pack)
    _plans.propose(g._module, None)  # graphPlanCreate again: nothing pinned in the new list
    mark = len(gpu.calls)
    g.execute(pack)
    assert since(gpu, mark, ("create", "select")) == [("select", 0)]


@needs_lib
def test_every_call_that_can_change_the_c_api_choice_forgets_the_pin():
    g, *_ = mlp_graph()
    g.validate()
    module = g._module
    for call in (
        lambda: module.plan_select(0),
        lambda: module.plan_create(_capi.GRAPH_DEVICE_GPU, []),
        lambda: module.select(g.name),
        lambda: module.prepare(),
        lambda: _plans.propose(module, None),
    ):
        module._pinned_plan = 3
        call()
        assert module._pinned_plan is None


@needs_lib
def test_a_changed_buffer_is_described_again(gpu):
    g, a, b, bias, y = mlp_graph()
    g.build()
    pack = cuda_pack(a, b, bias, y)
    g.execute(pack)
    # A new address of the same tensor object: the execute hands it over.
    pack[y].address += 0x100000
    g.execute(pack)
    assert last_execute(gpu)[y.uid] == pack[y].address
    # Another object in the pack: described again (its view differs: warned).
    pack[a] = CudaTensor((32,), 0x7F2000000000)
    with pytest.warns(_buffers.BufferViewWarning, match="has dims \\[32\\]"):
        g.execute(pack)
    assert last_execute(gpu)[a.uid] == 0x7F2000000000
    # The same object viewed anew (shape and strides changed in place).
    pack[a].shape, pack[a].strides_ = (1, 4, 8), (32, 8, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g.execute(pack)
    pack[a].shape, pack[a].strides_ = (4, 8), (8, 1)
    with pytest.warns(_buffers.BufferViewWarning, match="has dims \\[4, 8\\]"):
        g.execute(pack)
    # A buffer of another type in place of a good one is checked, not reused.
    pack[a].shape, pack[a].strides_ = (1, 4, 8), (32, 8, 1)
    half = CudaTensor((1, 1, 6), 0x7F3000000000)
    half.dtype = "torch.float16"
    pack[bias] = half
    with pytest.raises(ValueError, match="float16"):
        g.execute(pack)


@needs_lib
def test_a_handle_selects_its_device(gpu):
    g, *io = mlp_graph()
    g.build()
    pack = cuda_pack(*io)
    h = gc.Handle(device=1)
    mark = len(gpu.calls)
    g.execute(pack, handle=h)
    g.execute(pack)  # no handle: the GPU of the pack's tensors
    assert since(gpu, mark, ("device",)) == [("device", 1), ("device", -1), ("device", 0), ("device", -1)]


def _barred_reference(g):
    """The barred set as computed before the per-plan check (every filter, every plan)."""
    barred = set()
    for i, cfg in enumerate(g._plans):
        if _plans.deselected_by(cfg, g._barred_names):
            barred.add(i)
        if g._workspace_limit is not None and cfg.workspace > g._workspace_limit:
            barred.add(i)
        for kind, note, keep in g._note_filters:
            notes = cfg.behavior_notes if kind == "behavior" else cfg.numeric_notes
            if (note in notes) != keep:
                barred.add(i)
        if g._deterministic and gc.numerical_note.NONDETERMINISTIC in cfg.numeric_notes:
            barred.add(i)
    return barred


@needs_lib
@pytest.mark.parametrize(
    "setup",
    [
        lambda g: None,
        lambda g: g.deselect_engines([""]),
        lambda g: g.deselect_engines(["cudnn"]),
        lambda g: g.deselect_engines(["codegen"]),
        lambda g: g.deselect_engines(["eng7", "codegen_v1"]),
        lambda g: g.deselect_workspace_greater_than(0),
        lambda g: g.select_behavior_notes([gc.behavior_note.SUPPORTS_CUDA_GRAPH_NATIVE_API]),
        lambda g: g.deselect_numeric_notes([gc.numeric_note.TENSOR_CORE]),
        lambda g: setattr(g, "_deterministic", True),
    ],
)
def test_the_per_plan_check_bars_what_the_whole_list_check_did(gpu, setup):
    g, *_ = mlp_graph()
    g.create_execution_plans()
    g.build_plans(gc.build_plan_policy.ALL)  # workspaces known
    setup(g)
    want = _barred_reference(g)
    assert g._barred_indices() == want
    assert [g._is_barred(i) for i in range(len(g._plans))] == [i in want for i in range(len(g._plans))]
    assert not g._is_barred(len(g._plans))  # out of range: not barred (as `in` the set)


def test_torch_tensor_types_are_remembered_by_class():
    t = CudaTensor((2,), 0x1000)
    assert _buffers.is_torch_tensor(t)
    assert CudaTensor in _buffers._TORCH_TENSOR_TYPES
    # An object of another class from torch without the methods is not one.
    other = type("Size", (tuple,), {"__module__": "torch"})((1, 2))
    assert not _buffers.is_torch_tensor(other)
    assert type(other) not in _buffers._TORCH_TENSOR_TYPES
