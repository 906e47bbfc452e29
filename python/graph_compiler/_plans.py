"""Where execution plans come from: the one place plan queries go through.

Today the only engine is the CPU reference executor, so every graph gets one
plan, ``reference_cpu``. The GPU plan list (cuDNN engine configs and
generated kernels, ranked by graph-select-engines) arrives later from the
runtime through the C API; ``propose`` is where it will be merged in, and
nothing else in the package needs to change for it.
"""

from dataclasses import dataclass, field
from typing import Any, Dict, Tuple

from . import _capi

CPU_REFERENCE_ENGINE_ID = 0
CPU_REFERENCE_NAME = "reference_cpu"


@dataclass
class PlanConfig:
    engine_id: int
    name: str
    knobs: Dict[Any, Any] = field(default_factory=dict)
    device: int = _capi.GRAPH_DEVICE_CPU
    workspace: int = 0
    behavior_notes: Tuple[Any, ...] = ()
    numeric_notes: Tuple[Any, ...] = ()


def _cpu_reference() -> PlanConfig:
    return PlanConfig(CPU_REFERENCE_ENGINE_ID, CPU_REFERENCE_NAME)


def propose(module, heuristics) -> list:
    """The ranked plan list for a parsed module under ``heuristics`` (a list
    of heur_mode). Every mode ranks the CPU reference the same way."""
    return [_cpu_reference()]


def for_engine(module, engine_id: int, knobs) -> "PlanConfig | None":
    """The plan for an explicit (engine_id, knobs), or None when no engine
    owns the id."""
    if engine_id == CPU_REFERENCE_ENGINE_ID:
        plan = _cpu_reference()
        plan.knobs = dict(knobs or {})
        return plan
    return None


def build(module, plan: PlanConfig) -> None:
    """Finalize ``plan``; raises a decline (cudnnGraphNotSupportedError) when
    it cannot run this graph. The CPU reference runs every verified graph."""
    return None
