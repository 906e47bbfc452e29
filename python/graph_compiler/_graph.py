"""The graph class, pygraph (cudnn.pygraph; cudnn._pygraph is this module):
its constructor, tensor() and create_execution_plans(), the builders
generated from _ops' tables, and cudnn.graph. The rest of the graph lives
by responsibility in the modules pygraph inherits from or that hold its
companions, their names re-exported here:

  _building   Node, tensor bookkeeping and the op builders (_GraphBuilding)
  _emit       the C API builder calls, to_mlir() (_GraphEmission)
  _planning   validate, build_operation_graph, plan lists, pyplans (_GraphPlanning)
  _execution  execute, variant packs, CUDA graphs (_GraphExecution)
  _serialize  from_mlir, serialize/deserialize, key, inspect (_GraphSerialization)
  _handles    handles and streams, KernelCache, DeviceProperties
  _errors     the exception types, _status_error, get_last_error_string
"""

import dataclasses
import inspect
import warnings
from typing import Any, Dict, List, Optional

from . import _capi, _enums, _ops, _plans
from ._enums import data_type, to_data_type
from ._tensor import Tensor, check_dims, check_ints, check_uid, row_major_stride

# The parts of the graph kept in their own modules (see the docstring above);
# every name is re-exported so graph_compiler._graph.X (cudnn._pygraph.X)
# stays what it was.
from ._errors import (  # noqa: F401
    cudnnGraphNotSupportedError,
    GraphValidationError,
    EngineIdError,
    GraphExecutionError,
    GraphNoDeviceError,
    TorchNotAvailableError,
    get_last_error_string,
    _status_error,
)
from ._handles import (  # noqa: F401
    DeviceInfo,
    Handle,
    _Handle,
    _check_handle,
    _current_cuda_device,
    _applied_streams,
    _apply_handle_stream,
    create_handle,
    destroy_handle,
    _CU_STREAM_LEGACY,
    set_stream,
    get_stream,
    KernelCache,
    create_kernel_cache,
    DeviceProperties,
    create_device_properties,
)
from ._building import (  # noqa: F401
    Node,
    NodeType,
    _POINTWISE_TENSOR_ARGS,
    _pointwise_stride,
    _GraphBuilding,
)
from ._emit import (  # noqa: F401
    _op_line,
    _Checks,
    _GraphEmission,
)
from ._planning import (  # noqa: F401
    pyplans,
    _GraphPlanning,
)
from ._execution import (  # noqa: F401
    _GraphExecution,
)
from ._serialize import (  # noqa: F401
    _SERIAL_MAGIC,
    _BYTECODE_MAGIC,
    _serialized_bytes,
    _GraphSerialization,
)

# What this module imported before the split and no longer uses itself: kept,
# so that an import of one of these names from graph_compiler._graph still works.
import ctypes, hashlib, json, math, os, sys, warnings, weakref  # noqa: E401,F401
from . import _buffers, _enums  # noqa: F401
from ._enums import (  # noqa: F401
    build_plan_policy,
    diagonal_alignment,
    dtype_code,
    enum_name,
    from_code,
    from_mlir_type,
    is_float,
    mlir_type,
    norm_forward_phase,
    numerical_note,
)
from ._tensor import attach, check_int  # noqa: F401


@dataclasses.dataclass(frozen=True)
class GraphContext:
    """A graph's data types as its constructor settled them (the frontend's
    ``pygraph.context``): intermediate and compute fall back to io when not
    given. A snapshot: set the types through the constructor."""

    io_data_type: Any = None
    intermediate_data_type: Any = None
    compute_data_type: Any = None


# pygraph() keywords of the frontend with no parameter of their own here:
# kept in the graph's settings (_cpp_graph_kwargs).
_LENIENT_GRAPH_KEYWORDS = {"is_cuda_graph_replay_expected"}


class pygraph(_GraphBuilding, _GraphEmission, _GraphPlanning, _GraphExecution, _GraphSerialization):
    """A graph under construction, shaped like the cuDNN frontend's Python
    graph. Tensors come from ``tensor()`` / ``tensor_like()`` /
    ``tensor_scalar()``; every op builder returns its output tensor(s);
    ``set_output(True)`` marks the outputs the caller reads; ``build()`` then
    ``execute({tensor: buffer, ...})``.
    """

    def __init__(
        self,
        name: str = "test_graph",
        io_data_type: Any = None,
        intermediate_data_type: Any = None,
        compute_data_type: Any = None,
        handle: Any = None,
        sm_count: Any = None,
        sm_version: Any = None,
        kernel_cache: Any = None,
        device_property: Any = None,
        is_dynamic_shape_enabled: bool = False,
        is_override_shape_enabled: bool = False,
        cuda_graph_retention: Any = None,
        **kwargs,
    ):
        unknown = sorted(set(kwargs) - _LENIENT_GRAPH_KEYWORDS)
        if unknown:
            # The frontend raises TypeError; kept (a newer frontend's option
            # should not stop a program) but said.
            warnings.warn(f"pygraph(): ignoring keyword(s) this package does not know: {', '.join(unknown)}", stacklevel=2)
        if cuda_graph_retention is not None and not isinstance(cuda_graph_retention, _enums.cuda_graph_retention):
            raise TypeError(f"pygraph(cuda_graph_retention=...) takes a cudnn.cuda_graph_retention member, got {cuda_graph_retention!r}")
        self._cuda_graph_retention = cuda_graph_retention if cuda_graph_retention is not None else _enums.cuda_graph_retention.PER_GRAPH
        io_data_type = to_data_type(io_data_type, "pygraph(io_data_type=...)")
        self.name = name or "test_graph"
        self.io_data_type = io_data_type
        self.intermediate_data_type = to_data_type(intermediate_data_type, "pygraph(intermediate_data_type=...)") or io_data_type
        self.compute_data_type = to_data_type(compute_data_type, "pygraph(compute_data_type=...)") or io_data_type
        # An integer compute type the caller asked for (int8 convolution
        # accumulates in INT32) is kept; one inherited from io_data_type is not.
        self._integer_compute = compute_data_type is not None and self.compute_data_type in (data_type.INT32, data_type.INT64)
        self._handle = handle
        if kernel_cache is not None and not isinstance(kernel_cache, KernelCache):
            raise TypeError(f"pygraph(kernel_cache=...) takes an object from cudnn.create_kernel_cache(), got {type(kernel_cache).__name__}")
        if device_property is not None and not isinstance(device_property, DeviceProperties):
            raise TypeError(f"pygraph(device_property=...) takes an object from cudnn.create_device_properties(), got {type(device_property).__name__}")
        self._kernel_cache = kernel_cache
        self._device_property = device_property
        # the frontend keeps this hint as a public attribute
        self.is_cuda_graph_replay_expected = bool(kwargs.get("is_cuda_graph_replay_expected", False))
        self._options = dict(
            kwargs,
            sm_count=sm_count,
            sm_version=sm_version,
            kernel_cache=kernel_cache,
            device_property=device_property,
            is_dynamic_shape_enabled=is_dynamic_shape_enabled,
            is_override_shape_enabled=is_override_shape_enabled,
        )
        # The frontend runs such a graph at each execute's shapes (_variants).
        self._dynamic_shapes = kernel_cache is not None or bool(is_dynamic_shape_enabled) or bool(is_override_shape_enabled)
        self._nodes: List[Node] = []
        self._all: List[Tensor] = []  # every tensor, creation order
        self._tensors: Dict[str, Tensor] = {}  # unique names only
        self._ambiguous_names: set = set()
        self._tensor_by_uid: Dict[int, Tensor] = {}
        self._reserved_uids: set = set()
        self._next_uid = 1
        self._node_count: Dict[str, int] = {}
        self._data_bindings: Dict[int, Any] = {}
        self._text: Optional[str] = None  # verbatim text (from_mlir / deserialize)
        self._module = None
        self._is_validated = False
        self._reset_planning_state()
        self._barred_names: set = set()
        self._workspace_limit: Optional[int] = None
        self._note_filters: list = []
        self._deterministic = False  # an op asked for use_deterministic_algorithm
        self._warned: set = set()

    # What planning, building and running derive from the graph's text (a
    # second deserialize() starts them afresh).
    _PLANNING_STATE = ("_frozen", "_prepared", "_plans", "_planning_done", "_plan_index", "_plan_pinned", "_is_built",
                       "_built_plans", "_io_info", "_heuristics", "_run_cache", "_probe_plans")

    def _reset_planning_state(self) -> None:
        self._frozen = self._prepared = self._planning_done = self._plan_pinned = self._is_built = False
        self._plans: List[_plans.PlanConfig] = []
        self._plan_index = 0
        self._built_plans: set = set()
        self._io_info = None  # (inputs, outputs) from the C API
        self._heuristics = None  # the heur modes of create_execution_plans
        self._run_cache = self._probe_plans = None

    def get_cuda_graph_retention(self):
        """The cuda_graph_retention the graph was constructed with (PER_GRAPH
        by default)."""
        return self._cuda_graph_retention

    @property
    def context(self) -> GraphContext:
        """The graph's io, intermediate and compute data types."""
        return GraphContext(self.io_data_type, self.intermediate_data_type, self.compute_data_type)

    @property
    def _cpp_graph_kwargs(self) -> Dict[str, Any]:
        """The graph-level settings the constructor was given, by keyword:
        the name, and every other option that is set (not None, not False).
        The frontend keeps this dict for the backend graph it lowers to; here
        it is a fresh copy for inspection."""
        settings = {k: v for k, v in self._options.items() if v is not None and v is not False}
        settings["name"] = self.name
        settings["cuda_graph_retention"] = self._cuda_graph_retention
        return settings

    # tensor() and create_execution_plans() (and __init__) are defined here,
    # in pygraph's own body, the rest in its bases: the frontend's signature
    # test reads pygraph in their __qualname__ (an unpatched class).

    def tensor(
        self,
        dim,
        stride=None,
        data_type=None,
        is_virtual: bool = False,
        is_pass_by_value: bool = False,
        ragged_offset=None,
        reordering_type=None,
        name: str = "",
        uid: Optional[int] = None,
        ragged_offset_multiplier: int = 1,
        alignment_value: int = 1,
    ) -> Tensor:
        """A tensor of the graph (an input unless an op produces it). The
        parameters are positional in this order, as the frontend's classic
        ``tensor()``; its unset sentinels are taken: data_type NOT_SET,
        reordering_type NONE (both leave the attribute unset) and uid -1
        (a uid is allocated, ``uid_assigned`` stays False).

        On a graph already built the tensor is not added to it (its plans
        are fixed): it belongs to no graph until a node of another graph
        consumes it, as the frontend's samples do when they make a backward
        graph's input with the forward graph's ``tensor_like``."""
        detached = self._frozen
        if not detached:
            self._check_mutable("add a tensor")
        data_type = to_data_type(data_type, f"tensor({name or 'unnamed'!r}, data_type=...)")
        if not name:
            name = f"tensor_{len(self._tensors)}"
        what = f"tensor({name!r})"
        if uid is not None and not isinstance(uid, bool) and uid == -1:
            uid = None  # the frontend's "unset"
        if uid is not None:
            uid = check_uid(uid, f"{what}: uid", name)
        dim = check_dims(dim, f"{what}: dim")
        if stride is not None:
            stride = check_ints(stride, f"{what}: stride")
        if stride is not None and len(stride) == 0:
            stride = None
        if stride is not None and len(stride) != len(dim):
            raise ValueError(f"tensor {name!r}: {len(stride)} strides for {len(dim)} dims")
        t = Tensor(
            name=name,
            dim=dim,
            stride=stride if stride is not None else row_major_stride(dim),
            data_type=data_type or (self.intermediate_data_type if is_virtual else self.io_data_type),
            is_virtual=is_virtual,
            is_pass_by_value=is_pass_by_value,
        )
        t.dim_assigned = True
        t.stride_assigned = stride is not None
        # Recorded; validate()/build raise cudnnGraphNotSupportedError for them.
        t.ragged_offset = ragged_offset
        if reordering_type is not None and getattr(reordering_type, "name", "NONE") != "NONE":
            t.reordering_type = reordering_type
        if ragged_offset_multiplier is not None and int(ragged_offset_multiplier) != 1:
            t.ragged_offset_multiplier = int(ragged_offset_multiplier)
        if alignment_value is not None and alignment_value != 1:
            t.set_alignment_value(alignment_value)
        if uid is not None:
            if not detached:
                self._claim_uid(uid, t)
            t.uid, t.uid_assigned = uid, True
        else:
            t.uid = self._alloc_uid()
        return t if detached else self._register(t)

    def create_execution_plans(self, heuristics: Optional[List] = None) -> None:
        """The ranked plan list (one shot)."""
        if self._planning_done:
            raise RuntimeError(
                "create_execution_plans() was already called on this graph; planning is one-shot — build a new graph to re-plan, or use select_plan() to switch plans"
            )
        self.build_operation_graph()
        self._raise_if_unsupported()
        self._heuristics = heuristics
        cache, text = self._kernel_cache, None
        if cache is not None:
            text = self.to_mlir()
            entry = cache._lookup(text, _plans.heuristics_key(heuristics))
            if entry is not None:
                # Built before under the same text and heuristics: share its
                # module, plan list and built plans.
                self._module, self._io_info = entry["module"], entry["io_info"]
                self._plans, self._built_plans = list(entry["plans"]), entry["built"]
                self._planning_done, self._plan_index = True, 0
                return
        # Planned on the handle's GPU; without a handle, on the thread's
        # current CUDA device.
        handle_device = self._handle.device if isinstance(self._handle, Handle) else None
        with _capi.on_device(handle_device):
            plans = _plans.propose(self._module, heuristics)
        if not plans:
            why = " (heur_mode.OPENSOURCE: no generated-kernel plan applies)" if _plans.opensource_only(heuristics) else ""
            raise cudnnGraphNotSupportedError(f"no engine proposed a plan for graph {self.name!r}{why}")
        self._plans = list(plans)
        self._planning_done = True
        self._plan_index = 0
        # Several fused groups: the list is the anchor group's (_plans.py says
        # how it is picked and what the other groups run).
        if cache is not None:
            cache._store(text, _plans.heuristics_key(heuristics), dict(module=self._module, io_info=self._io_info, plans=list(self._plans), built=self._built_plans))


def _install_pointwise_builders():
    def make(op, argnames):
        def builder(self, *args, name: str = "", compute_data_type: Any = None, **kwargs):
            tensors = list(args)
            for an in argnames[len(args):]:
                if an not in kwargs:
                    raise TypeError(f"{op}() missing tensor argument {an!r}")
                tensors.append(kwargs.pop(an))
            if len(tensors) != len(argnames) or kwargs:
                bad = kwargs or f"{len(tensors)} tensors"
                raise TypeError(f"{op}() expects tensor arguments {argnames}; got unexpected {bad}")
            return self._pointwise(op, tensors, self._get_name(op, name), compute_data_type)

        builder.__name__ = op
        builder.__qualname__ = f"pygraph.{op}"
        builder.__doc__ = f"Element-wise {op}({', '.join(argnames)})."
        return builder

    for op, argnames in _POINTWISE_TENSOR_ARGS.items():
        if not hasattr(pygraph, op):
            setattr(pygraph, op, make(op, argnames))


def _install_structured_builders():
    def make(op):
        def builder(self, *args, name: str = "", compute_data_type: Any = None, out_dims: Any = None, **kwargs):
            return self._structured(op, args, kwargs, name, compute_data_type, out_dims)

        spec = _ops.OPS[op]
        builder.__name__ = op
        builder.__qualname__ = f"pygraph.{op}"
        builder.__doc__ = f"{op}({', '.join(spec['inputs'] + tuple(spec.get('list_inputs', ())))}) -> ({', '.join(p for p, _ in spec['outputs'])})."
        return builder

    for op, spec in _ops.OPS.items():
        if not spec.get("internal"):
            setattr(pygraph, op, make(op))

    def make_sdpa(op):
        def builder(self, *args, name: str = "", compute_data_type: Any = None, out_dims: Any = None, **kwargs):
            return self._sdpa_family(op, args, kwargs, name, compute_data_type, out_dims)

        spec = _ops.SDPA_OPS[op]
        builder.__name__ = op
        builder.__qualname__ = f"pygraph.{op}"
        returns = spec.get("returns") or [p for p, _ in spec["outputs"]]
        builder.__doc__ = f"{op}({', '.join(spec['pos'])}, ...) -> [{', '.join(returns)}]"
        return builder

    for op in _ops.SDPA_OPS:
        setattr(pygraph, op, make_sdpa(op))
    # the frontend binds these older names to the same builders
    pygraph.scaled_dot_product_flash_attention = pygraph.sdpa
    pygraph.scaled_dot_product_flash_attention_backward = pygraph.sdpa_backward


_install_pointwise_builders()
_install_structured_builders()


def _signature_line(fn, owner: str) -> str:
    """``fn``'s signature as pybind11 writes the first line of a bound
    method's docstring: ``name(self: owner, a: type = default, ...) -> ret``."""
    parts = []
    for p in inspect.signature(fn).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        text = p.name
        if p.name == "self":
            text += f": {owner}"
        elif p.annotation is not p.empty:
            text += f": {getattr(p.annotation, '__name__', None) or str(p.annotation).replace('typing.', '')}"
        if p.default is not p.empty:
            text += f" = {p.default!r}"
        parts.append(text)
    return f"{fn.__name__}({', '.join(parts)}) -> None"


# The frontend's extension module documents its graph constructor pybind11's
# way, a signature line first; programs and tests read the positional order
# from it (cudnn._pybind_module.backend_graph is pygraph here).
pygraph.__init__.__doc__ = (
    _signature_line(pygraph.__init__, "cudnn.pygraph")
    + "\n\nA graph named ``name`` with io/intermediate/compute data types "
    "(intermediate and compute default to io), bound to ``handle``; the "
    "parameters are positional in this order, other options are keywords."
)


class graph(pygraph):
    """``cudnn.graph(handle, ...)``: the frontend's context manager,
    ``with cudnn.graph(handle) as (g, _): ...`` yields ``(graph, [])``. Its
    defaults are the frontend's: name "cudnn_graph", io HALF, intermediate
    and compute FLOAT; other keywords go to pygraph. The object itself is a
    pygraph (no with-statement needed)."""

    def __init__(
        self,
        handle: Any = None,
        name: str = "cudnn_graph",
        io_data_type: Any = data_type.HALF,
        intermediate_data_type: Any = data_type.FLOAT,
        compute_data_type: Any = data_type.FLOAT,
        **graph_kwargs,
    ):
        super().__init__(
            name=name,
            io_data_type=io_data_type,
            intermediate_data_type=intermediate_data_type,
            compute_data_type=compute_data_type,
            handle=handle,
            **graph_kwargs,
        )

    def __enter__(self):
        return self, []

    def __exit__(self, exc_type, exc, tb):
        return False


def from_mlir(text: str, name: Optional[str] = None) -> pygraph:
    return pygraph.from_mlir(text, name)

