"""``cudnn.engines``: the frontend's table of its python (FROST) engines.

The frontend ships engines written in python next to cuDNN's backend engines
and lists them in ``cudnn.engines.manifest``; its tests ask that table whether
an engine is on offer before they assert that it served a graph. The graph
compiler has no python engines: the names are here so those programs import
and find nothing on offer (their FROST tests then skip)."""

from . import base, engine_ids, manifest  # noqa: F401
from .base import BaseEngine, ExecutionContext, PlanConfig, decline_types, public_knobs_repr  # noqa: F401
from .engine_ids import (  # noqa: F401
    BACKEND_ENGINE_ID_BASE,
    BACKEND_HEURISTIC_ENGINE_ID,
    CPP_OSS_ENGINE_ID_BASE,
    PYTHON_ENGINE_ID_BASE,
    is_backend_engine,
    is_python_engine,
)
from .manifest import MANIFEST, EngineFamily  # noqa: F401
