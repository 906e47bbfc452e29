"""The frontend's engine records (``cudnn.engines.base``): a plan entry
(engine id, knobs, its index in the backend's plan list, how it was asked
for) and what an engine's execute is handed. The graph compiler has no
python engines, so nothing here runs a graph: ``pygraph.backend_plan_entries``
answers PlanConfig entries, and programs that catch ``decline_types()`` catch
this package's refusals too."""

from typing import Any, NamedTuple

from graph_compiler._errors import cudnnGraphNotSupportedError
from graph_compiler._planning import PlanEntry



# one ranked plan entry: (engine_id, knobs, cpp_index, mode), frozen
PlanConfig = PlanEntry


class ExecutionContext(NamedTuple):
    """What an engine's execute is handed besides the variant pack."""

    handle: Any = None
    stream: Any = None
    workspace: Any = None


def decline_types():
    """The exception types that mean "this engine does not take the graph"
    (the caller moves on to the next engine): NotImplementedError,
    cudnnGraphNotSupportedError and ImportError (an optional dependency)."""
    return (NotImplementedError, cudnnGraphNotSupportedError, ImportError)
