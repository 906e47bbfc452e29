"""Where execution plans come from: the one place plan queries go through.

Two sources:

* the GPU: when a GPU is usable (the C API's ``graphPlanCreate`` succeeds),
  the plan list is the ranked list of the graph's anchor fused group,
  straight from the C API. The frontend lists plans per graph; a graph may
  lower to several fused groups here, and then its list (indices,
  select_plan, the plan filters of the list walk) is the anchor group's:
  the one with the most principal ops (not pointwise, reduction or a view),
  then the most ops, the earliest on a tie (``graphPlanGroup``). Every other
  group runs the first plan of its own list that builds, under the same
  deselect/workspace options. The list holds cuDNN's
  heuristics plans ("eng<id>_k<type>=<value>..."), then the codegen engine's
  plans that can run the group ("codegen_v2_t<threads>_i<items>[_p]",
  "codegen_v1": engine ids CODEGEN_V2_ENGINE_ID / CODEGEN_V1_ENGINE_ID,
  knobs CODEGEN_KNOB_*, no workspace, behavior note "GENERATED_KERNELS"),
  then explicit ``(engine_id, knobs)`` plans; with engine ids and knobs,
  workspace sizes, behavior and numeric notes, builds (a decline is a
  cudnnGraphNotSupportedError with the engine's reason). Executing with
  device buffers pins the chosen plan in the C API (``graphPlanSelect``,
  strict) and hands it the deselect-by-name and workspace filters
  (``graphSetPlanOptions``). ``deselect_engines(["cudnn"])`` bars every
  cuDNN plan, ``["codegen"]`` every codegen plan.
* the CPU reference executor otherwise: one plan, ``reference_cpu``. A
  machine without a GPU (or a graph the GPU cannot plan) falls back to it
  with one ``logging.info`` line saying why.

Host buffers (numpy) always run on the CPU reference, whatever plan is
selected; a GPU plan list only decides what device buffers run.
"""

import logging
from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

from . import _capi, _enums
from ._enums import behavior_note, heur_mode, numeric_note

CPU_REFERENCE_ENGINE_ID = 0
CPU_REFERENCE_NAME = "reference_cpu"
# A compiled artifact (exec.program) records each group's engine config: its
# plan list is that one recorded plan, run as the artifact says.
ARTIFACT_ENGINE_ID = -4
ARTIFACT_NAME = "compiled_artifact"

# The codegen engine's plans in a GPU plan list (GraphDialect-c/Graph.h's
# GRAPH_CODEGEN_*): engine ids, and the knob types of codegen_v2 plans.
CODEGEN_V2_ENGINE_ID = -2
CODEGEN_V1_ENGINE_ID = -3
CODEGEN_KNOB_THREADS = 1000
CODEGEN_KNOB_ITEMS = 1001
CODEGEN_KNOB_PREFETCH = 1002
# A cuDNN plan of another description of its group (GRAPH_KNOB_ALTERNATE_DESCRIPTION):
# value 0, a 1x1 convolution written as a matmul.
KNOB_ALTERNATE_DESCRIPTION = 2000
_enums.EXTRA_KNOB_NAMES.update(
    {
        CODEGEN_KNOB_THREADS: "CODEGEN_THREADS",
        CODEGEN_KNOB_ITEMS: "CODEGEN_ITEMS",
        CODEGEN_KNOB_PREFETCH: "CODEGEN_PREFETCH",
        KNOB_ALTERNATE_DESCRIPTION: "ALTERNATE_DESCRIPTION",
    }
)


def codegen_knob_key(code: int):
    """A codegen plan's knob code as get_engine_and_knobs_at_index answers
    it: a knob_type, as every plan's knob keys are (one of the extra values
    beside the members, named CODEGEN_*; backend_knob_code() gives the code
    back)."""
    return _enums.knob_type_of(int(code))

_log = logging.getLogger("graph_compiler")

# heur_mode -> GraphHeurMode. INSTANT asks mode A (cuDNN's instant mode is
# the fast heuristic A grew out of; the C API has A, B and FALLBACK).
# OPENSOURCE has no cuDNN mode: it asks for the open engines, which here are
# the compiler's own generated-kernel (codegen) plans, and the CPU reference
# plan where no GPU plans; asked alone it keeps only those (see propose).
_HEUR_CODES = {heur_mode.A: 0, heur_mode.B: 1, heur_mode.FALLBACK: 2, heur_mode.INSTANT: 0}


@dataclass
class PlanConfig:
    engine_id: int
    name: str
    knobs: Dict[Any, Any] = field(default_factory=dict)  # knob_type -> value
    device: int = _capi.GRAPH_DEVICE_CPU
    workspace: int = 0
    behavior_notes: Tuple[Any, ...] = ()
    numeric_notes: Tuple[Any, ...] = ()
    index: int = -1  # position in the C API's GPU plan list

    # The frontend's plan entries (cudnn.engines.PlanConfig) name the plans
    # its C++ graph runs by cpp_index (None: a python engine's plan) and
    # carry the heuristics mode that asked for them. Every plan here runs in
    # the compiled graph: a GPU plan is its index in the C API's list, the
    # CPU reference the one plan of the reference.
    @property
    def cpp_index(self) -> int:
        return self.index if self.index >= 0 else 0

    @property
    def mode(self):
        return None  # the list merges the modes asked; not tracked per plan


def _cpu_reference() -> PlanConfig:
    return PlanConfig(CPU_REFERENCE_ENGINE_ID, CPU_REFERENCE_NAME)


def _note(enum_cls, name: str):
    """The frontend's enum member for a cuDNN note name, else the name."""
    return enum_cls.__members__.get(name, name)


def _knob_key(key) -> int:
    """A knob key as the C API takes it: cuDNN's backend knob code (a
    cudnn.knob_type member maps to its code)."""
    from ._enums import backend_knob_code

    return backend_knob_code(key)


def _gpu_plan(module, index: int) -> PlanConfig:
    engine, knobs = module.plan_engine(index)
    return PlanConfig(
        engine_id=engine,
        name=module.plan_name(index),
        knobs={_enums.knob_type_of(t): v for t, v in knobs},  # keyed as the frontend's plans are
        device=_capi.GRAPH_DEVICE_GPU,
        workspace=0,  # known once built (build() fills it in)
        behavior_notes=tuple(_note(behavior_note, n) for n in module.plan_notes(index, False)),
        numeric_notes=tuple(_note(numeric_note, n) for n in module.plan_notes(index, True)),
        index=index,
    )


def is_gpu(plans) -> bool:
    return bool(plans) and plans[0].device == _capi.GRAPH_DEVICE_GPU


def is_codegen(plan: PlanConfig) -> bool:
    """A plan of the codegen engine (generated kernels) in a GPU list."""
    return plan.device == _capi.GRAPH_DEVICE_GPU and plan.engine_id in (CODEGEN_V2_ENGINE_ID, CODEGEN_V1_ENGINE_ID)


def deselected_by(plan: PlanConfig, names) -> bool:
    """Whether deselect_engines(``names``) bars ``plan``: its name contains
    one of them, or "cudnn" names the whole cuDNN engine (its plans are
    "eng<id>...", the C API's GPU executor reads it the same way)."""
    for name in names:
        if name and name in plan.name:
            return True
        if name == "cudnn" and plan.device == _capi.GRAPH_DEVICE_GPU and not is_codegen(plan):
            return True
    return False


def _heur_list(heuristics):
    if not heuristics:
        return []
    if not isinstance(heuristics, (list, tuple)):
        heuristics = [heuristics]
    return list(heuristics)


def _heur_codes(heuristics):
    heuristics = _heur_list(heuristics)
    if not heuristics:
        return []
    codes = []
    for h in heuristics:
        code = _HEUR_CODES.get(h)
        if code is None and isinstance(h, int) and not isinstance(h, bool) and 0 <= h <= 2:
            code = h
        if code is None and h is not heur_mode.OPENSOURCE:
            raise ValueError(f"heuristics: {h!r} is not a cudnn.heur_mode (A, B, FALLBACK, INSTANT, OPENSOURCE)")
        if code is not None and code not in codes:
            codes.append(code)
    return codes or [0, 2]


def opensource_only(heuristics) -> bool:
    """Whether ``heuristics`` asks for heur_mode.OPENSOURCE alone."""
    heuristics = _heur_list(heuristics)
    return bool(heuristics) and all(h is heur_mode.OPENSOURCE for h in heuristics)


def heuristics_key(heuristics):
    """What makes two plan lists of one graph the same list."""
    return (tuple(_heur_codes(heuristics)), opensource_only(heuristics))


def propose(module, heuristics) -> list:
    """The ranked plan list for a prepared module under ``heuristics`` (a list
    of heur_mode): the GPU's when a GPU is usable, else the CPU reference."""
    module._gpu_plans = False
    module._pinned_plan = None  # a new list has nothing pinned
    if not module.has_plan_api():
        _log.info("graph_compiler: the C API library has no GPU plan list (an older build); using the CPU reference plan")
        return [_cpu_reference()]
    if module.is_executable():
        return [PlanConfig(ARTIFACT_ENGINE_ID, ARTIFACT_NAME)]
    status = module.plan_create(_capi.GRAPH_DEVICE_GPU, _heur_codes(heuristics))
    if status == _capi.GRAPH_ERROR_NOT_SUPPORTED:
        # A usable GPU that cannot run the graph: the frontend's answer is
        # "not supported" here, at planning time, not a CPU plan that fails
        # later when the caller's CUDA tensors arrive.
        from ._graph import cudnnGraphNotSupportedError

        raise cudnnGraphNotSupportedError(f"no GPU engine runs this graph: {_capi.last_error().strip()}")
    if status != _capi.GRAPH_OK:
        first = (_capi.last_error().strip().splitlines() or [""])[0]
        why = "no usable GPU" if status == _capi.GRAPH_ERROR_NO_DEVICE else "the GPU cannot plan this graph"
        _log.info("graph_compiler: %s (%s: %s); using the CPU reference plan", why, _capi.STATUS_NAMES.get(status, status), first)
        return [_cpu_reference()]
    count, groups = module.plan_count()
    module._num_groups = groups
    module._plan_group = module.plan_group()
    if groups > 1:
        _log.info(
            "graph_compiler: the graph lowers to %d fused groups; the plan list is group %d's (the anchor), the others run the first plan of their own lists",
            groups,
            module._plan_group,
        )
    module._gpu_plans = True
    plans = [_gpu_plan(module, i) for i in range(count)]
    if opensource_only(heuristics):
        plans = [p for p in plans if is_codegen(p)]
    return plans


def for_engine(module, engine_id: int, knobs) -> "PlanConfig | None":
    """The plan for an explicit (engine_id, knobs), or None when no engine
    owns the id. With a GPU plan list a cuDNN plan is appended to it (the
    create_execution_plan replay); a plan cuDNN refuses raises. A codegen
    engine id names the listed codegen plan with those knobs (its C API
    index), which is already in the list."""
    # a frontend-only knob type has no backend code: refused as a cuDNN plan refuses it
    pairs = [(_knob_key(k), int(v)) for k, v in dict(knobs or {}).items()]
    if getattr(module, "_gpu_plans", False):
        if int(engine_id) in (CODEGEN_V2_ENGINE_ID, CODEGEN_V1_ENGINE_ID):
            from ._graph import cudnnGraphNotSupportedError

            count, _ = module.plan_count()
            for i in range(count):
                engine, listed = module.plan_engine(i)
                if engine == int(engine_id) and sorted(listed) == sorted(pairs):
                    return _gpu_plan(module, i)
            raise cudnnGraphNotSupportedError(f"create_execution_plan({engine_id}, {dict(knobs or {})}): no codegen plan of the list has these knobs")
        status = module.plan_add(int(engine_id), pairs)
        if status != _capi.GRAPH_OK:
            from ._graph import cudnnGraphNotSupportedError

            raise cudnnGraphNotSupportedError(f"create_execution_plan({engine_id}, {dict(knobs or {})}): {_capi.last_error()}")
        count, _ = module.plan_count()
        return _gpu_plan(module, count - 1)
    if engine_id == CPU_REFERENCE_ENGINE_ID:
        plan = _cpu_reference()
        plan.knobs = dict(knobs or {})
        return plan
    return None


def build(module, plan: PlanConfig) -> None:
    """Finalize ``plan``; raises a decline (cudnnGraphNotSupportedError) when
    it cannot run this graph. The CPU reference runs every verified graph; a
    GPU plan is built by cuDNN, and its workspace size is filled in."""
    if plan.device != _capi.GRAPH_DEVICE_GPU:
        return None
    from ._graph import cudnnGraphNotSupportedError

    if module.plan_build(plan.index) != _capi.GRAPH_OK:
        raise cudnnGraphNotSupportedError(_capi.last_error())
    try:
        plan.workspace = module.plan_workspace(plan.index)
    except _capi.PlanError as exc:
        raise cudnnGraphNotSupportedError(str(exc)) from None
    return None


def build_many(module, plans, indices) -> None:
    """Finalize the GPU plans at positions ``indices`` of ``plans`` in one
    call (build_plans with build_plan_policy.ALL; cuDNN's on several threads,
    GRAPH_PLAN_BUILD_THREADS says how many). Declines are not
    raised here: build() of each plan then answers its own at once (the C
    API remembers a decline of this call for the next build of that plan)."""
    # The C API's plan indices, not positions in this list (they differ
    # where the list is filtered, e.g. heur_mode.OPENSOURCE).
    gpu = [plans[i].index for i in indices if plans[i].device == _capi.GRAPH_DEVICE_GPU]
    if len(gpu) > 1:
        module.plan_build_many(gpu)


def prepare_run(module, plans, index: int, deselect, workspace_limit) -> None:
    """Before a GPU execute: hand the C API the filters and pin plan
    ``index`` of a GPU plan list (nothing to do for the CPU plan)."""
    if not plans or plans[0].device != _capi.GRAPH_DEVICE_GPU:
        return
    options = (tuple(sorted(deselect)) if deselect else (), -1 if workspace_limit is None else int(workspace_limit))
    if getattr(module, "_plan_options", None) != options:
        if module.set_plan_options(list(options[0]), options[1], False) != _capi.GRAPH_OK:
            from ._graph import GraphExecutionError

            raise GraphExecutionError(f"setting the plan options: {_capi.last_error()}")
        module._plan_options = options
    # The plan the C API has pinned already (module._pinned_plan, set below
    # after a select that succeeded): not pinned again. Every call that can
    # change the C API's choice clears it (Module.plan_select / plan_create /
    # select / prepare, and propose), so a graph sharing the module (a
    # kernel cache) that pinned another plan is seen.
    target = plans[index].index
    if getattr(module, "_pinned_plan", None) != target:
        module._pinned_plan = None
        if module.plan_select(target) != _capi.GRAPH_OK:
            from ._graph import GraphExecutionError

            raise GraphExecutionError(f"selecting plan {index} ({plans[index].name!r}): {_capi.last_error()}")
        module._pinned_plan = target
