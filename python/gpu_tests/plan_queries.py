"""The GPU plan list through the frontend surface: create_execution_plans
gives cuDNN's ranked list (from the C API's graphPlan* calls), and every plan
query, filter, build and the (engine_id, knobs) replay act on it. Run on a
machine with a GPU and torch:

    source scripts/gpu/env.sh
    GRAPH_CAPI_LIBRARY=.../libGraphCAPI.so python3 python/gpu_tests/plan_queries.py

Prints PASS/FAIL per check and "N passed, M failed"; exits 1 on failure.
"""

import logging
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import torch  # noqa: E402

import cudnn  # noqa: E402  (our package, through its cudnn shim)
from graph_compiler import _capi  # noqa: E402
from graph_compiler._enums import backend_knob_code  # noqa: E402

logging.basicConfig(level=logging.INFO, format="  log: %(message)s")

START = time.time()
BUDGET_S = float(os.environ.get("PLAN_QUERIES_BUDGET_S", "95"))

torch.manual_seed(0)
A_T = torch.randn(2, 64, 128, device="cuda", dtype=torch.bfloat16)
B_T = torch.randn(2, 128, 96, device="cuda", dtype=torch.bfloat16)
BIAS_T = torch.randn(1, 1, 96, device="cuda", dtype=torch.bfloat16)
REF = torch.relu(A_T.float() @ B_T.float() + BIAS_T.float())


def rel_err(got, want):
    got, want = got.double(), want.double()
    return ((got - want).norm() / want.norm().clamp_min(1e-30)).item()


def make_graph(plans=True):
    g = cudnn.pygraph(io_data_type=cudnn.data_type.BFLOAT16,
                      intermediate_data_type=cudnn.data_type.FLOAT,
                      compute_data_type=cudnn.data_type.FLOAT)
    A = g.tensor_like(A_T)
    B = g.tensor_like(B_T)
    BIAS = g.tensor_like(BIAS_T)
    Y = g.relu(name="relu", input=g.bias(name="bias", input=g.matmul(name="mm", A=A, B=B), bias=BIAS))
    Y.set_output(True).set_data_type(cudnn.data_type.BFLOAT16)
    g.validate()
    g.build_operation_graph()
    if plans:
        g.create_execution_plans([cudnn.heur_mode.A, cudnn.heur_mode.FALLBACK])
    return g, (A, B, BIAS, Y)


def run(g, io, index=None):
    A, B, BIAS, Y = io
    y = torch.full((2, 64, 96), float("nan"), device="cuda", dtype=torch.bfloat16)
    pack = {A: A_T, B: B_T, BIAS: BIAS_T, Y: y}
    if index is None:
        g.execute(pack)
    else:
        g.execute_plan_at_index(pack, None, index=index)
    torch.cuda.synchronize()
    err = rel_err(y, REF)
    assert err < 1e-2, f"relative error {err:.3g} against torch"
    return err


def names(g):
    return [g.get_plan_name_at_index(i) for i in range(g.get_execution_plan_count())]


def check_list():
    g, _ = make_graph()
    n = g.get_execution_plan_count()
    print(f"  {n} plans: {names(g)}")
    assert g._plans[0].device == _capi.GRAPH_DEVICE_GPU, "the plan list is not the GPU's (fell back to the CPU plan)"
    assert n > 1, f"only {n} plan(s)"
    plans, groups = g._module.plan_count()
    assert (plans, groups) == (n, 1), f"C API count {plans} plans / {groups} groups"
    return f"{n} plans, 1 group"


def check_names_engines_notes():
    g, _ = make_graph()
    for i, name in enumerate(names(g)):
        engine, knobs = g.get_engine_and_knobs_at_index(i)
        assert name.startswith(f"eng{engine}"), f"plan {i}: name {name!r} vs engine {engine}"
        for t, v in knobs.items():
            # Knobs come keyed by knob_type (the frontend's map); plan names
            # spell the backend knob code.
            assert f"_k{backend_knob_code(t)}={v}" in name, f"plan {i}: knob {t}={v} not in {name!r}"
        if i < 3:
            print(f"  [{i}] {name}: engine {engine} knobs {knobs} behavior {g.get_behavior_notes_for_plan_at_index(i)} "
                  f"numeric {g.get_numeric_notes_for_plan_at_index(i)}")
    assert len(set(names(g))) == len(names(g)), "duplicate plan names"
    return ""


def check_select_plan_1():
    g, io = make_graph()
    g.select_plan(1)
    g.build_plans()
    assert g._plan_index == 1
    err = run(g, io)
    return f"{g.get_plan_name_at_index(1)}, err {err:.2e}, workspace {g.get_workspace_size()}"


def check_execute_plan_at_index_0():
    g, io = make_graph()
    g.build_plan_at_index(0)
    err = run(g, io, index=0)
    return f"{g.get_plan_name_at_index(0)}, err {err:.2e}"


def check_deselect_first_name():
    g, io = make_graph()
    first = g.get_plan_name_at_index(0)
    g.deselect_engines([first])
    g.build_plans()
    chosen = g.get_plan_name_at_index(g._plan_index)
    assert first not in chosen, f"deselected {first!r} but {chosen!r} was chosen"
    err = run(g, io)
    return f"without {first}: {chosen}, err {err:.2e}"


def check_workspace_limit_0():
    g, io = make_graph()
    g.deselect_workspace_greater_than(0)
    try:
        g.build_plans()
    except cudnn.cudnnGraphNotSupportedError as exc:
        assert "over the 0 limit" in str(exc), str(exc)
        return "every plan needs workspace: " + str(exc).splitlines()[1].strip()
    ws = g.get_workspace_size()
    assert ws == 0, f"workspace {ws} over the limit 0"
    err = run(g, io)
    return f"{g.get_plan_name_at_index(g._plan_index)} (workspace 0), err {err:.2e}"


def check_replay():
    g, io = make_graph()
    n = g.get_execution_plan_count()
    engine, knobs = g.get_engine_and_knobs_at_index(0)
    g.create_execution_plan(engine, knobs)
    assert g.get_execution_plan_count() == n + 1
    assert g.get_plan_name_at_index(n) == g.get_plan_name_at_index(0), (g.get_plan_name_at_index(n), g.get_plan_name_at_index(0))
    assert g.get_engine_and_knobs_at_index(n) == (engine, knobs)
    g.select_plan(n)
    g.build_plans()
    err = run(g, io)
    return f"replayed eng{engine} {knobs} as plan {n}, err {err:.2e}"


def check_build_all():
    # ALL hands every plan to the C API at once (graphPlanBuildMany; on
    # several threads, each with its own cuDNN handle): the same plans
    # build as one by one, and each runs the graph right. (No timing: the
    # second build would find the first's kernels in the driver's JIT cache.)
    g, io = make_graph()
    g.build_plans(cudnn.build_plan_policy.ALL)
    built = sorted(g._built_plans)
    assert built, "nothing built"
    ws = {i: g.get_workspace_size_plan_at_index(i) for i in built}
    alone, _ = make_graph()
    one_by_one = []
    for i in range(alone.get_execution_plan_count()):
        try:
            alone.build_plan_at_index(i)
            one_by_one.append(i)
        except cudnn.cudnnGraphNotSupportedError:
            pass
    assert built == one_by_one, f"built together {built}, one by one {one_by_one}"
    errs = [run(g, io, index=i) for i in built]
    err = run(g, io)
    return f"built {len(built)}/{g.get_execution_plan_count()}, workspaces {ws}, worst err {max(errs + [err]):.2e}"


def check_c_api_errors():
    g, _ = make_graph()
    m = g._module
    n, _ = m.plan_count()
    assert m.plan_select(n) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    assert "out of range" in _capi.last_error(), _capi.last_error()
    assert m.plan_build(-1) == _capi.GRAPH_ERROR_INVALID_ARGUMENT
    status = m.plan_add(987654, [])
    msg = _capi.last_error() if status != _capi.GRAPH_OK else ""
    if status == _capi.GRAPH_OK:  # cuDNN may only refuse it at build
        assert m.plan_build(n) == _capi.GRAPH_ERROR_NOT_SUPPORTED
        msg = _capi.last_error()
    return "bogus engine: " + msg.splitlines()[0][:120]


def check_strict_select_then_unpin():
    # A pinned plan runs through plain graph.execute as well; then the
    # default walk (no select) still runs.
    g, io = make_graph()
    last = g.get_execution_plan_count() - 1
    try:
        g.select_plan(last)
        g.build_plans()
    except cudnn.cudnnGraphNotSupportedError as exc:
        return f"last plan declines (strict, no fallback): {str(exc).splitlines()[0][:100]}"
    err = run(g, io)
    g2, io2 = make_graph()
    g2.build_plans()
    err2 = run(g2, io2)
    return f"plan {last} err {err:.2e}; default walk err {err2:.2e}"


CHECKS = [
    ("plan list from the GPU, count > 1", check_list),
    ("names match engine ids and knobs; notes", check_names_engines_notes),
    ("select_plan(1) then execute matches torch", check_select_plan_1),
    ("execute_plan_at_index(0) matches torch", check_execute_plan_at_index_0),
    ("deselect_engines(first plan's name)", check_deselect_first_name),
    ("deselect_workspace_greater_than(0)", check_workspace_limit_0),
    ("create_execution_plan(engine_id, knobs) replay", check_replay),
    ("C API argument errors and a bogus engine", check_c_api_errors),
    ("strict select of the last plan; default walk", check_strict_select_then_unpin),
    ("build_plans(ALL)", check_build_all),
]


def main():
    print(f"library: {_capi.library_path()}; torch {torch.__version__}; {torch.cuda.get_device_name()}")
    passed = failed = 0
    for name, check in CHECKS:
        if time.time() - START > BUDGET_S:
            print(f"FAIL {name}: skipped, over the {BUDGET_S:.0f} s budget")
            failed += 1
            continue
        t0 = time.time()
        try:
            detail = check()
            print(f"PASS {name} ({time.time() - t0:.1f} s) {detail}")
            passed += 1
        except Exception as exc:  # noqa: BLE001 - report and go on
            print(f"FAIL {name} ({time.time() - t0:.1f} s): {type(exc).__name__}: {exc}")
            traceback.print_exc(limit=3, file=sys.stdout)
            failed += 1
        sys.stdout.flush()
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
