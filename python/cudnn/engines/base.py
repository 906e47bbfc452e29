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


class BaseEngine:
    """The frontend's base class of its python engines. This package has
    none (every plan runs in the compiled graph), so no BaseEngine is ever
    offered a graph; the class carries the knob adapters that engine code
    written against the frontend subclasses and calls: an engine's own knob
    form to the public one (a dict keyed by cudnn.knob_type) and back. The
    defaults take plain dicts; an engine with a typed knob object overrides
    both."""

    name: str = ""
    engine_id: Any = None

    def knobs_to_public(self, knobs) -> dict:
        """The engine's knobs as ``{knob_type: int}``; None is no knobs."""
        if knobs is None:
            return {}
        if isinstance(knobs, dict):
            return dict(knobs)
        raise TypeError(
            f"{type(self).__name__}.knobs_to_public() takes a dict or None; a {type(knobs).__name__} knob object "
            "needs the engine's own knobs_to_public()"
        )

    def knobs_from_public(self, knobs):
        """The engine's own knob form of ``{knob_type: int}``; no knobs is None."""
        if not knobs:
            return None
        if isinstance(knobs, dict):
            return dict(knobs)
        raise TypeError(f"{type(self).__name__}.knobs_from_public() takes a dict of knob_type keys, got {type(knobs).__name__}")


def public_knobs_repr(knobs) -> str:
    """``NAME=value`` for each knob, sorted by knob name, comma-separated (an
    int key is printed as its number)."""

    def name(key):
        return getattr(key, "name", None) or str(int(key))

    return ", ".join(f"{name(key)}={int(value)}" for key, value in sorted(dict(knobs).items(), key=lambda kv: name(kv[0])))


def decline_types():
    """The exception types that mean "this engine does not take the graph"
    (the caller moves on to the next engine): NotImplementedError,
    cudnnGraphNotSupportedError and ImportError (an optional dependency)."""
    return (NotImplementedError, cudnnGraphNotSupportedError, ImportError)
