"""The graph: builders, uid/name bookkeeping, MLIR emission, planning and
execution through the C API.

In their own modules, re-exported here:

  _building   Node, tensor bookkeeping and the op builders (_GraphBuilding)
  _emit       the C API builder calls, to_mlir() (_GraphEmission)
  _serialize  from_mlir, serialize/deserialize, key, inspect (_GraphText)
  _handles    handles and streams, KernelCache, DeviceProperties
  _errors     the exception types, _status_error, get_last_error_string
"""

import ctypes
import dataclasses
import hashlib
import inspect
import json
import math
import os
import sys
import warnings
import weakref
from typing import Any, Dict, List, Optional

from . import _buffers, _capi, _enums, _ops, _plans
from ._enums import (
    build_plan_policy,
    data_type,
    diagonal_alignment,
    dtype_code,
    enum_name,
    from_code,
    from_mlir_type,
    is_float,
    mlir_type,
    norm_forward_phase,
    numerical_note,
    to_data_type,
)
from ._tensor import Tensor, attach, check_dims, check_int, check_ints, check_uid, row_major_stride

# The parts of the graph kept in their own modules (see the docstring above);
# every name is re-exported so graph_compiler._graph.X (cudnn._pygraph.X)
# stays what it was.
from ._errors import (  # noqa: F401
    cudnnGraphNotSupportedError,
    GraphValidationError,
    EngineIdError,
    GraphExecutionError,
    GraphNoDeviceError,
    get_last_error_string,
    _status_error,
)
from ._handles import (  # noqa: F401
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
    _POINTWISE_TENSOR_ARGS,
    _pointwise_stride,
    _GraphBuilding,
)
from ._emit import (  # noqa: F401
    _op_line,
    _Checks,
    _GraphEmission,
)
from ._serialize import (  # noqa: F401
    _SERIAL_MAGIC,
    _BYTECODE_MAGIC,
    _serialized_bytes,
    _GraphText,
)


@dataclasses.dataclass(frozen=True)
class GraphContext:
    """A graph's data types as its constructor settled them (the frontend's
    ``pygraph.context``): intermediate and compute fall back to io when not
    given. A snapshot: set the types through the constructor."""

    io_data_type: Any = None
    intermediate_data_type: Any = None
    compute_data_type: Any = None


class pygraph(_GraphBuilding, _GraphEmission, _GraphText):
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
        **kwargs,
    ):
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
        self._options = dict(
            kwargs,
            sm_count=sm_count,
            sm_version=sm_version,
            kernel_cache=kernel_cache,
            device_property=device_property,
            is_dynamic_shape_enabled=is_dynamic_shape_enabled,
            is_override_shape_enabled=is_override_shape_enabled,
        )
        self._nodes: List[Node] = []
        self._all: List[Tensor] = []  # every tensor, creation order
        self._tensors: Dict[str, Tensor] = {}  # unique names only
        self._ambiguous_names: set = set()
        self._tensor_by_uid: Dict[int, Tensor] = {}
        self._reserved_uids: set = set()
        self._next_uid = 1
        self._node_count: Dict[str, int] = {}
        self._data_bindings: Dict[int, Any] = {}
        self._frozen = False
        self._text: Optional[str] = None  # verbatim text (from_mlir / deserialize)
        self._module = None
        self._is_validated = False
        self._prepared = False
        self._plans: List[_plans.PlanConfig] = []
        self._planning_done = False
        self._plan_index = 0
        self._plan_pinned = False
        self._is_built = False
        self._built_plans: set = set()
        self._barred_names: set = set()
        self._workspace_limit: Optional[int] = None
        self._note_filters: list = []
        self._io_info = None  # (inputs, outputs) from the C API
        self._heuristics = None  # the heur modes of create_execution_plans
        self._deterministic = False  # an op asked for use_deterministic_algorithm
        self._warned: set = set()

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
        return settings

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
    ) -> Tensor:
        """A tensor of the graph (an input unless an op produces it). The
        parameters are positional in this order, as the frontend's classic
        ``tensor()``; its unset sentinels are taken: data_type NOT_SET,
        reordering_type NONE (both leave the attribute unset) and uid -1
        (a uid is allocated, ``uid_assigned`` stays False)."""
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
        if uid is not None:
            self._claim_uid(uid, t)
            t.uid, t.uid_assigned = uid, True
        else:
            t.uid = self._alloc_uid()
        return self._register(t)

    # =========================================================================
    # Validation and planning
    # =========================================================================

    def _parse(self):
        if self._text is None:
            return self._module_from_builder()
        text = self._text
        try:
            module = _capi.Module(text)
        except UnicodeEncodeError as exc:
            raise GraphValidationError(f"the text of graph {self.name!r} cannot be encoded as UTF-8 (a lone surrogate?): {exc}") from None
        except _capi.ParseError as exc:
            raise GraphValidationError(f"the compiler rejected graph {self.name!r}:\n{exc}\n--- emitted MLIR ---\n{text}") from None
        return module

    def validate(self) -> None:
        """Build the graph through the C API builder and have the compiler
        parse and verify it;
        raises GraphValidationError (a cudnnGraphNotSupportedError and a
        ValueError) with the compiler's diagnostics."""
        if self._is_validated and self._module is not None:
            return
        if self.unsupported_features():
            # A feature the compiler cannot model (ragged offsets, paged
            # attention, score_mod ...) is refused where the frontend refuses
            # an unsupported graph, at create_execution_plans(): its programs
            # call validate() and build_operation_graph() outside the
            # try that turns cudnnGraphNotSupportedError into a skip.
            self._finalize_dims(rule_errors=False)
            self._is_validated = True
            return
        self._module = self._parse()
        self._io_info = (self._module.inputs(), self._module.outputs())
        if self._text is not None:
            self._adopt_text_tensors()
        self._is_validated = True

    def build_operation_graph(self) -> None:
        """Validate, then run the compiler's prepare pipeline (uids, layouts,
        canonicalization)."""
        if not self._is_validated:
            self.validate()
        if self._prepared:
            return
        if self._module is None and self.unsupported_features():
            self._prepared = self._frozen = True  # create_execution_plans() refuses it
            return
        status = self._module.prepare()
        if status != _capi.GRAPH_OK:
            raise _status_error(status, f"graph-prepare failed for graph {self.name!r}")
        self._io_info = (self._module.inputs(), self._module.outputs())
        self._adopt_inferred_strides()
        self._prepared = True
        self._frozen = True
        if self._kernel_cache is not None:
            self._kernel_cache._finalized = True

    def _adopt_inferred_strides(self) -> None:
        """Outputs whose strides the user left unset take the strides the
        compiler inferred (a conv on a channels-last image writes a
        channels-last output), as the frontend's get_stride() reports them
        after building: buffers allocated from them (cudnn.Graph's
        ``graph(x, w)``) then hold what execute writes."""
        _, outs = self._io_info
        by_uid = {info["uid"]: info for info in outs if info["uid"] is not None}
        for t in self._all:
            info = by_uid.get(t.uid) if t.uid is not None else None
            if info is None or t.stride_assigned or list(info["dims"]) != list(t.dim):
                continue
            if any(info["strides"]):
                t.stride = list(info["strides"])

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

    def check_support(self) -> None:
        """Raise cudnnGraphNotSupportedError unless a plan of the list (not
        excluded by deselect_engines, the workspace limit, a note filter or
        use_deterministic_algorithm) builds; the plans it builds stay built.
        Before create_execution_plans() it plans first, with build()'s
        default modes."""
        if not self._planning_done:
            # The frontend's first Python API checked support right after
            # building the graph, then called build(): plan here with the
            # modes build() uses without arguments; build() keeps the list.
            self.validate()
            self.build_operation_graph()
            self.create_execution_plans(None)
        barred = self._barred_indices()
        failures = []
        for index in range(len(self._plans)):
            if index in barred:
                failures.append(f"[{index}] {self._plans[index].name}: excluded by {self._why_barred(index)}")
                continue
            try:
                self._build_plan_at(index)
            except cudnnGraphNotSupportedError as exc:
                failures.append(f"[{index}] {self._plans[index].name}: {exc}")
                continue
            return
        raise cudnnGraphNotSupportedError("no plan in the list could be built:\n  " + "\n  ".join(failures or ["the plan list is empty"]))

    def get_execution_plan_count(self) -> int:
        return len(self._plans) if self._planning_done else 0

    def _check_plan_index(self, index: int) -> int:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self._plans):
            raise IndexError(f"plan index {index} out of range for {len(self._plans)} plan(s)")
        return index

    def get_plan_name_at_index(self, index: int) -> str:
        return self._plans[self._check_plan_index(index)].name

    def get_engine_and_knobs_at_index(self, index: int):
        """(engine id, knobs) of plan ``index``. A cuDNN plan's knobs are keyed
        by cudnn.knob_type, as the frontend answers them (a backend knob code
        without a member stays an int); the compiler's own plans (negative
        ids) keep their own integer knob codes."""
        cfg = self._plans[self._check_plan_index(index)]
        if cfg.engine_id >= 0:
            return (cfg.engine_id, _enums.public_knobs(cfg.knobs))
        return (cfg.engine_id, dict(cfg.knobs))

    def get_behavior_notes_for_plan_at_index(self, index: int):
        return list(self._plans[self._check_plan_index(index)].behavior_notes)

    def get_behavior_notes(self):
        if not self._plans:
            return []
        return list(self._plans[self._plan_index].behavior_notes)

    def get_numeric_notes_for_plan_at_index(self, index: int):
        return list(self._plans[self._check_plan_index(index)].numeric_notes)

    def select_plan(self, index: int) -> "pygraph":
        if not self._planning_done:
            raise RuntimeError("call create_execution_plans() before select_plan()")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self._plans):
            raise IndexError(f"plan index {index} out of range for {len(self._plans)} plan(s) (graph.plans)")
        self._plan_index = index
        self._plan_pinned = True
        self._is_built = False
        return self

    @property
    def plans(self):
        return list(self._plans)

    @property
    def selected_engine(self):
        """The python engine that serves the selected plan, None when the
        graph's own lowering does. The frontend offers python (FROST) engines
        next to cuDNN's; this package has none (its plans are cuDNN's, its
        own generated kernels and the CPU reference, all run by the compiled
        graph), so this is always None."""
        return None

    def _is_barred(self, index: int) -> bool:
        """Whether plan ``index`` is excluded by deselect_engines, the
        workspace limit, a note filter or use_deterministic_algorithm (read
        from the filters and the plan as they are now: nothing cached)."""
        if not (self._barred_names or self._workspace_limit is not None or self._note_filters or self._deterministic):
            return False  # no filter set: nothing is barred
        if not 0 <= index < len(self._plans):
            return False
        cfg = self._plans[index]
        if _plans.deselected_by(cfg, self._barred_names):
            return True
        if self._workspace_limit is not None and cfg.workspace > self._workspace_limit:
            return True
        for kind, note, keep in self._note_filters:
            notes = cfg.behavior_notes if kind == "behavior" else cfg.numeric_notes
            if (note in notes) != keep:
                return True
        return bool(self._deterministic and numerical_note.NONDETERMINISTIC in cfg.numeric_notes)

    def _barred_indices(self) -> set:
        return {i for i in range(len(self._plans)) if self._is_barred(i)}

    def _why_barred(self, index) -> str:
        cfg = self._plans[index]
        if _plans.deselected_by(cfg, self._barred_names):
            return "deselect_engines()"
        if self._workspace_limit is not None and cfg.workspace > self._workspace_limit:
            return f"deselect_workspace_greater_than({self._workspace_limit})"
        if self._deterministic and numerical_note.NONDETERMINISTIC in cfg.numeric_notes and not any(k == "numeric" and n is numerical_note.NONDETERMINISTIC for k, n, _ in self._note_filters):
            return "use_deterministic_algorithm=True (the plan is NONDETERMINISTIC)"
        return "a note filter"

    def deselect_engines(self, engine_names: List[str]) -> "pygraph":
        if isinstance(engine_names, str):
            engine_names = [engine_names]
        self._barred_names.update(engine_names)
        if self._is_built and self._is_barred(self._plan_index):
            self._is_built = False
        return self

    def deselect_workspace_greater_than(self, workspace_limit: int) -> "pygraph":
        self._workspace_limit = int(workspace_limit)
        if self._is_built and self._is_barred(self._plan_index):
            self._is_built = False
        return self

    def _filter_notes(self, kind, notes, keep):
        self._note_filters.extend((kind, n, keep) for n in notes)
        if self._is_built and self._is_barred(self._plan_index):
            self._is_built = False
        return self

    def deselect_behavior_notes(self, notes) -> "pygraph":
        return self._filter_notes("behavior", notes, False)

    def select_behavior_notes(self, notes) -> "pygraph":
        return self._filter_notes("behavior", notes, True)

    def deselect_numeric_notes(self, notes) -> "pygraph":
        return self._filter_notes("numeric", notes, False)

    def select_numeric_notes(self, notes) -> "pygraph":
        return self._filter_notes("numeric", notes, True)

    def _reject_if_barred(self, index: int) -> None:
        if self._is_barred(index):
            raise ValueError(f"plan {index} ({self.get_plan_name_at_index(index)!r}) is excluded by deselect_engines()/a note filter")

    def _build_plan_at(self, index: int) -> None:
        cfg = self._plans[index]
        if index not in self._built_plans:
            _plans.build(self._module, cfg)
            self._built_plans.add(index)
        # A GPU plan's workspace is known once built.
        if self._workspace_limit is not None and cfg.workspace > self._workspace_limit:
            raise cudnnGraphNotSupportedError(f"plan {index} ({cfg.name!r}) needs {cfg.workspace} workspace bytes, over the {self._workspace_limit} limit")

    def build_plans(self, *args, **kwargs) -> None:
        """Walk the plan list from the selected index and build the first plan
        that builds (every plan with build_plan_policy.ALL)."""
        if not self._planning_done:
            self.create_execution_plans()
        policy = kwargs.get("policy", args[0] if args else None)
        build_all = policy == build_plan_policy.ALL
        barred = self._barred_indices()
        failures = []
        self._is_built = False
        for index in range(self._plan_index, len(self._plans)):
            if index in barred:
                if self._plan_pinned:
                    raise ValueError(
                        f"plan {index} ({self.get_plan_name_at_index(index)!r}) is pinned by select_plan() but "
                        f"excluded by {self._why_barred(index)}; drop one of the two instructions"
                    )
                failures.append(f"[{index}] {self._plans[index].name}: excluded by {self._why_barred(index)}")
                continue
            try:
                self._build_plan_at(index)
            except cudnnGraphNotSupportedError as exc:
                if self._plan_pinned:
                    raise
                failures.append(f"[{index}] {self._plans[index].name}: {exc}")
                continue
            if not self._is_built:
                self._plan_index, self._is_built = index, True
            if not build_all:
                return
        if self._is_built:
            return
        raise cudnnGraphNotSupportedError("no plan in the list could be built:\n  " + "\n  ".join(failures or ["the plan list is empty"]))

    def build_plan_at_index(self, index: int) -> "pygraph":
        if not self._planning_done:
            raise RuntimeError("call create_execution_plans() before build_plan_at_index()")
        self._check_plan_index(index)
        self._reject_if_barred(index)
        self._build_plan_at(index)
        self._plan_index, self._is_built = index, True
        return self

    def build(self, heuristics: Optional[List] = None, *args, **kwargs) -> None:
        """validate -> build_operation_graph -> create_execution_plans ->
        check_support -> build_plans."""
        self.validate()
        self.build_operation_graph()
        if not self._planning_done:
            self.create_execution_plans(heuristics)
        self.check_support()
        self.build_plans()

    def get_execution_plan_list(self, heuristics) -> "pyplans":
        """The frontend's first plan API (python_bindings/pygraph: the graph's
        plan list for the heuristics modes, as a ``pyplans`` with
        check_support, build_all_plans, filter_out_* and
        get_max_workspace_size; set_execution_plans() then gives the graph
        its plans). The list is this graph's own one-shot plan list
        (create_execution_plans(heuristics)); the object is a view of it."""
        self.create_execution_plans(heuristics)
        return pyplans(self)

    def set_execution_plans(self, plans: "pyplans") -> None:
        """Give the graph the plans of a ``pyplans`` from its own
        get_execution_plan_list(), in their order of preference: the first
        plan that builds (and is not filtered out) is the one execute runs.
        cudnnGraphNotSupportedError when none builds."""
        if not isinstance(plans, pyplans):
            raise TypeError(f"set_execution_plans() takes the pyplans get_execution_plan_list() returned, got {type(plans).__name__}")
        if plans._graph is not self:
            raise ValueError("set_execution_plans(): these plans were listed for another graph")
        self.build_plans()

    def create_execution_plan(self, engine_id: int, knobs: Any = None) -> "pygraph":
        """Append the plan of an explicit (engine_id, knobs) to the list."""
        self.build_operation_graph()
        cfg = _plans.for_engine(self._module, engine_id, knobs)
        if cfg is None:
            raise ValueError(f"no engine on this graph owns engine_id {engine_id}")
        self._plans = list(self._plans) + [cfg]
        self._planning_done = True
        return self

    def get_workspace_size(self, handle=None, override_uids=None, override_shapes=None, override_strides=None) -> int:
        if not self._is_built:
            raise RuntimeError("Call build() first")
        self._check_overrides("get_workspace_size", override_uids, override_shapes, override_strides)
        return self._plans[self._plan_index].workspace

    def get_workspace_size_plan_at_index(self, index: int, handle=None, override_uids=None, override_shapes=None, override_strides=None) -> int:
        self._check_overrides("get_workspace_size_plan_at_index", override_uids, override_shapes, override_strides)
        return self._plans[self._check_plan_index(index)].workspace

    # ---- engine and tensor queries ------------------------------------------

    def _engine_plans(self):
        """The plans get_engine_count/get_knobs_for_engine read: the default
        heuristics' proposals (computed once, so the engine ids do not shrink
        while a program adds plans with create_execution_plan over them), and
        the graph's own list once planned."""
        self.build_operation_graph()
        if getattr(self, "_probe_plans", None) is None:
            self._probe_plans = self._plans if self._planning_done else _plans.propose(self._module, None)
        if self._planning_done and self._plans is not self._probe_plans:
            return list(self._probe_plans) + list(self._plans)
        return self._probe_plans

    def get_engine_count(self) -> int:
        """Engines create_execution_plan(engine_id, knobs) may name: ids 0 ..
        count-1. Without a GPU that is the CPU reference (engine 0); with
        one, one past the largest cuDNN engine id of the plan list (the C
        API lists plans, not cuDNN's engine count, so an id below it that
        no listed plan uses may still be declined by cuDNN at build)."""
        ids = [p.engine_id for p in self._engine_plans() if p.engine_id >= 0]
        return max(ids) + 1 if ids else 0

    def get_knobs_for_engine(self, engine_id: int) -> List[_enums.knob]:
        """The knobs of ``engine_id``: for each knob type the plan list uses
        with that engine, a knob whose min_value/max_value span the values
        the listed plans use (stride 1); none for an id below the count that
        no listed plan uses. cuDNN's full ranges are not exposed by the C
        API, so the span can be narrower than cuDNN's; values outside it are
        still tried by create_execution_plan. An id out of range raises
        EngineIdError (a RuntimeError, as in the frontend, and a ValueError)."""
        listed = {p.engine_id for p in self._engine_plans()}
        if isinstance(engine_id, bool) or not isinstance(engine_id, int) or not (engine_id in listed or 0 <= engine_id < self.get_engine_count()):
            raise EngineIdError(f"get_knobs_for_engine: engine id {engine_id!r} is not an engine of graph {self.name!r} (ids 0..{self.get_engine_count() - 1}, listed {sorted(listed)})")
        spans: Dict[int, List[int]] = {}
        for cfg in self._engine_plans():
            if cfg.engine_id != engine_id:
                continue
            for key, value in cfg.knobs.items():
                code = _enums.backend_knob_code(key) if isinstance(key, _enums.knob_type) else int(key)
                spans.setdefault(code, []).append(int(value))
        return [_enums.knob(_enums.knob_type_of(code), max(vs), min(vs), 1) for code, vs in sorted(spans.items())]

    def query_tensor_attributes_of_uid(self, uid: int) -> Tensor:
        """The tensor with ``uid`` (an input, output or scalar of the graph);
        raises RuntimeError when the graph has none."""
        t = self._tensor_by_uid.get(int(uid))
        if t is None:
            raise RuntimeError(f"query_tensor_attributes_of_uid: graph {self.name!r} has no tensor with uid {uid}")
        return t

    def populate_cuda_graph(self, handle, variant_pack, workspace, cuda_graph) -> None:
        """Records one execute with ``variant_pack`` into ``cuda_graph`` (an
        empty cudaGraph_t: an int or a cuda-python graph object) for the
        caller to instantiate and launch, or to add as a child graph."""
        self._record_cuda_graph("populate_cuda_graph", handle, variant_pack, workspace, cuda_graph, update=False)

    def update_cuda_graph(self, handle, variant_pack, workspace, cuda_graph) -> None:
        """Records ``cuda_graph`` (filled by populate_cuda_graph) again with
        the buffers of ``variant_pack``; the nodes keep their topology, so an
        instantiated copy takes the change through cudaGraphExecUpdate."""
        self._record_cuda_graph("update_cuda_graph", handle, variant_pack, workspace, cuda_graph, update=True)

    def _record_cuda_graph(self, call, handle, variant_pack, workspace, cuda_graph, update) -> None:
        from . import _cudagraph

        target = _cudagraph.graph_pointer(cuda_graph)
        device = handle.device if isinstance(handle, Handle) else _current_cuda_device()
        try:
            nodes = _cudagraph.node_count(target)
        except _cudagraph.CudaGraphError as exc:
            raise cudnnGraphNotSupportedError(f"{call} (graph {self.name!r}): {exc}") from None
        if update and nodes == 0:
            raise ValueError(f"{call} (graph {self.name!r}): the CUDA graph is empty; fill it with populate_cuda_graph first")
        if not update and nodes != 0:
            raise ValueError(
                f"{call} (graph {self.name!r}): the CUDA graph already has {nodes} node(s); populate_cuda_graph fills an "
                "empty graph (update_cuda_graph records a populated one again)"
            )
        previous = _applied_streams.get(device, 0)

        def run_on(stream):
            capture_handle = Handle(device)
            capture_handle._raw_stream = stream
            self.execute(variant_pack, workspace, handle=capture_handle)

        try:
            if update:
                _cudagraph.clear(target)
            _cudagraph.record(target, device, run_on)
        except _cudagraph.CudaGraphError as exc:
            raise cudnnGraphNotSupportedError(f"{call} (graph {self.name!r}): {exc}") from None
        finally:
            # Later executes queue on the stream they did before.
            with _capi.on_device(device):
                _capi.set_stream(previous)
            _applied_streams[device] = previous
        if _cudagraph.node_count(target) == 0:
            raise cudnnGraphNotSupportedError(
                f"{call} (graph {self.name!r}): the execute queued no GPU work (a variant pack of host buffers runs on "
                "the CPU reference, outside any CUDA graph)"
            )

    # =========================================================================
    # Execution
    # =========================================================================

    def _uid_of_key(self, key) -> int:
        if isinstance(key, Tensor):
            self._check_own(key, "variant pack key")
            return key.uid
        if isinstance(key, str):
            if key in self._ambiguous_names:
                raise ValueError(f"tensor name {key!r} is ambiguous (duplicate labels); key the variant pack by uid or Tensor")
            t = self._tensors.get(key)
            if t is None:
                raise KeyError(f"no tensor named {key!r} in graph {self.name!r}")
            return t.uid
        if isinstance(key, int) and not isinstance(key, bool):
            return key
        if hasattr(key, "get_uid"):
            return key.get_uid()
        raise TypeError(f"variant pack keys are tensors, names or uids, got {type(key).__name__}")

    def _io_tensors(self):
        """(uid, name, data_type, dims, declared strides, is_output) of every
        buffer execute needs, from the compiler's view of the graph."""
        ins, outs = self._io_info
        rows = []
        for info, is_out in [(i, False) for i in ins] + [(o, True) for o in outs]:
            rows.append((info["uid"], info["name"], from_code(info["dtype_code"]), info["dims"], info["strides"], is_out))
        return rows

    def _as_pack(self, what, tensor_dict, tensor_uids):
        """The variant pack as a mapping. With ``tensor_uids``, the frontend's
        ordered form: ``tensor_dict`` is a sequence of buffers, the i-th for
        the tensor of uid ``tensor_uids[i]`` (the two as long as each other,
        no uid twice); uids the graph does not use are ignored, as keys of a
        mapping are."""
        if tensor_uids is None:
            if isinstance(tensor_dict, (list, tuple)):
                raise TypeError(f"{what}: a sequence of buffers needs tensor_uids= (the uid of each buffer, in the same order)")
            return tensor_dict
        if isinstance(tensor_dict, dict):
            raise TypeError(f"{what}: tensor_uids= goes with a sequence of buffers, not a mapping (a mapping names its tensors itself)")
        values, uids = list(tensor_dict), list(tensor_uids)
        if len(values) != len(uids):
            raise ValueError(f"{what}: {len(values)} buffers for {len(uids)} tensor_uids: the two lists must be as long as each other")
        pack = {}
        for uid in uids:
            uid = check_int(uid, f"{what}: tensor_uids entry")
            if uid in pack:
                raise ValueError(f"{what}: uid {uid} appears twice in tensor_uids")
            pack[uid] = None
        return dict(zip(pack, values))

    def execute(self, tensor_dict, workspace=None, handle=None, override_uids=None, override_shapes=None, override_strides=None, tensor_uids=None) -> None:
        """Run the selected plan. ``tensor_dict`` maps tensors (or names, or
        uids) to buffers: numpy arrays run on the CPU reference, torch CUDA
        tensors (and other device buffers) on the GPU; or, with
        ``tensor_uids``, it is a sequence of buffers in the order of those
        uids. ``workspace`` is checked against the plan's workspace size (see
        _check_workspace); override_uids/shapes/strides must restate the
        graph's own dims and strides (the compiled graph has static shapes)."""
        # The calls below are skipped where their answer is known (a mapping,
        # no overrides, no workspace): the host time of a repeated execute.
        if tensor_uids is not None or not isinstance(tensor_dict, dict):
            tensor_dict = self._as_pack("execute", tensor_dict, tensor_uids)
        if override_uids is not None or override_shapes is not None or override_strides is not None:
            self._check_overrides("execute", override_uids, override_shapes, override_strides)
        if not self._is_built:
            self.build()
        if self._is_barred(self._plan_index):
            raise ValueError(f"plan {self._plan_index} ({self.get_plan_name_at_index(self._plan_index)!r}) is excluded by {self._why_barred(self._plan_index)}; build again")
        if workspace is None:
            self._run(tensor_dict, None, handle=handle)
            return
        lend = self._check_workspace(workspace, self._plan_index)
        self._run_lending(lend, tensor_dict, handle=handle)

    def execute_plan_at_index(
        self, tensor_dict, workspace=None, index: int = 0, handle=None, override_uids=None, override_shapes=None, override_strides=None, tensor_uids=None
    ) -> None:
        """execute() with plan ``index`` of the list (built first if needed)."""
        tensor_dict = self._as_pack("execute_plan_at_index", tensor_dict, tensor_uids)
        if not self._planning_done:
            raise RuntimeError("call create_execution_plans() before execute_plan_at_index()")
        self._check_overrides("execute_plan_at_index", override_uids, override_shapes, override_strides)
        self._check_plan_index(index)
        self._reject_if_barred(index)
        self._build_plan_at(index)
        lend = self._check_workspace(workspace, index)
        self._run_lending(lend, tensor_dict, index, handle=handle)

    def _check_workspace(self, workspace, index: int):
        """A workspace smaller than plan ``index`` needs is an error (cuDNN
        would read past it). A device buffer (a CUDA torch tensor or a raw
        device pointer) is lent to the GPU runtime for the execute
        (graphSetWorkspace): its groups run in it instead of the workspace
        the runtime keeps. Returns (pointer, bytes) to lend, or None."""
        if workspace is None:
            return None
        need = self._plans[index].workspace if self._plans else 0
        pointer = None
        if isinstance(workspace, int) and not isinstance(workspace, bool):
            have = None  # a raw pointer: no size to check
            pointer = workspace
        elif _buffers.is_torch_tensor(workspace):
            have = int(workspace.numel()) * int(workspace.element_size())
            if workspace.device.type == "cuda":
                pointer = int(workspace.data_ptr())
        elif hasattr(workspace, "nbytes"):
            have = int(workspace.nbytes)
        else:
            raise TypeError(f"execute(workspace=...): expected a buffer (torch tensor, numpy array) or a device pointer, got {type(workspace).__name__}")
        if have is not None and have < need:
            raise ValueError(f"execute(workspace=...): plan {index} ({self._plans[index].name!r}) of graph {self.name!r} needs {need} workspace bytes, the buffer holds {have}")
        if not pointer:
            return None
        # A raw pointer's size is unknown: lend what the plan asks for.
        return pointer, have if have is not None else need

    def _run_lending(self, lend, tensor_dict, index=None, handle=None) -> None:
        """_run with the caller's workspace lent to the GPU runtime (lend:
        _check_workspace's answer), returned to the runtime afterwards."""
        if lend is None or not _capi.lend_workspace(*lend):
            if lend is not None and self._plans and self._plans[self._plan_index if index is None else index].workspace > 0:
                self._warn_once("workspace", f"graph {self.name!r}: the loaded library cannot take a workspace (graphSetWorkspace); the GPU runtime uses its own")
            self._run(tensor_dict, index, handle=handle)
            return
        try:
            self._run(tensor_dict, index, handle=handle)
        finally:
            _capi.lend_workspace(0, 0)

    def _check_overrides(self, what, override_uids, override_shapes, override_strides) -> None:
        """The frontend's dynamic-shape overrides. Restating a tensor's own
        dims and strides is accepted; anything else raises
        cudnnGraphNotSupportedError naming the tensor (the compiled graph
        has static shapes: build a graph for the new shape)."""
        if override_uids is None and override_shapes is None and override_strides is None:
            return
        uids = list(override_uids or [])
        shapes = list(override_shapes or [])
        strides = list(override_strides or [])
        if not (len(uids) == len(shapes) == len(strides)):
            raise ValueError(
                f"{what}: override_uids, override_shapes and override_strides must name the same tensors: got {len(uids)}, {len(shapes)} and {len(strides)} entries"
            )
        for uid, shape, stride in zip(uids, shapes, strides):
            t = self._tensor_by_uid.get(int(uid))
            if t is None:
                raise ValueError(f"{what}: override_uids names uid {uid}, which is not a tensor of graph {self.name!r}")
            if [int(d) for d in shape] != list(t.dim) or [int(s) for s in stride] != list(t.get_stride()):
                raise cudnnGraphNotSupportedError(
                    f"{what}: override for tensor {t.name!r} (uid {uid}) asks for dims {list(shape)} strides {list(stride)}, but the graph is compiled for "
                    f"dims {list(t.dim)} strides {t.get_stride()}: shape overrides (dynamic shapes) are not supported, build a graph for the new shape"
                )

    @staticmethod
    def _pack_signature(tensor_dict):
        """What must stay the same for a variant pack to reuse the buffers
        checked last time: the same keys and objects, at the same address
        with the same dims and strides. None when an object is not a numpy
        array or torch tensor (those are re-described every time)."""
        sig = []
        append = sig.append
        torch_types = _buffers._TORCH_TENSOR_TYPES
        for key, data in tensor_dict.items():
            if type(data) in torch_types or _buffers.is_torch_tensor(data):
                shape = data.shape  # torch.Size: an immutable tuple
                append((id(key), id(data), data.data_ptr(), shape if isinstance(shape, tuple) else tuple(shape), data.stride()))
            elif isinstance(getattr(data, "__array_interface__", None), dict) and hasattr(data, "strides") and not _buffers.is_numpy_scalar(data):
                append((id(key), id(data), data.__array_interface__["data"][0], data.shape, data.strides))
            else:
                return None
        return sig  # compared with ==; held only by _run_cache

    def _run(self, tensor_dict, plan_index=None, handle=None):
        # The fast path: the same pack as last time skips describing and
        # checking every buffer again (most of the host time of a small graph).
        sig = self._pack_signature(tensor_dict) if not self._data_bindings else None
        cached = getattr(self, "_run_cache", None)
        if sig is not None and cached is not None and cached[0] == sig:
            _, device, array, count, refresh, ordinal = cached
            for entry in refresh:
                if isinstance(entry, _buffers.StagedScalar):
                    entry.refresh(sys.modules["torch"])  # a host scalar's value, maybe changed
                else:
                    host, source = entry
                    host.copy_(source)  # a device scalar read for a host pack
            self._execute_buffers(device, array, count, plan_index, ordinal, handle)
            return
        uid_to_data = dict(self._data_bindings)
        for key, data in tensor_dict.items():
            if key is None or data is None:
                continue
            uid_to_data[self._uid_of_key(key)] = data
        bound = []
        repack = []  # bit-packed boolean outputs: (caller's buffer, stand-in, axis)
        for uid, name, dt, dims, strides, is_out in self._io_tensors():
            data = uid_to_data.get(uid)
            if data is None:
                raise ValueError(f"the variant pack is missing a buffer for tensor uid {uid}" + (f" ({name!r})" if name else ""))
            axis = _buffers.packed_boolean_axis(dims, strides, data) if dt == data_type.BOOLEAN else None
            if axis is not None:
                stand_in = _buffers.unpack_booleans(data, dims, strides, axis, read=not is_out)
                if is_out:
                    repack.append((data, stand_in, axis))
                data = stand_in
                sig = None  # the stand-ins are made anew for every execute
            b = _buffers.bind(uid, name, dt, dims, strides, is_out, data)
            if b.staged is not None:
                sig = None  # a stand-in is filled anew for every execute
            bound.append(b)
        where = _buffers.pack_device(bound)
        refresh = _buffers.move_scalars(bound, where)
        buffers = []
        for b in bound:
            g = _capi.GraphBuffer()
            g.uid = b.uid
            g.data = b.ptr
            g.dtype = dtype_code(b.dt)
            g.rank = len(b.dims)
            for i, (x, s) in enumerate(zip(b.dims, b.strides)):
                g.dims[i] = x
                g.strides[i] = s
            buffers.append(g)
        device = _capi.GRAPH_DEVICE_GPU if where == _buffers.GPU else _capi.GRAPH_DEVICE_CPU
        # The GPU of the pack's torch tensors (None: not known from them).
        torch_device = _buffers._torch_device(bound) if where == _buffers.GPU else None
        ordinal = getattr(torch_device, "index", None)
        array = _capi.Module.buffer_array(buffers)
        # The staged scalars live as long as the cached pack that points at them.
        self._run_cache = (sig, device, array, len(buffers), refresh, ordinal) if sig is not None else None
        self._execute_buffers(device, array, len(buffers), plan_index, ordinal, handle)
        _buffers.copy_back_staged(bound)
        for packed, stand_in, axis in repack:
            _buffers.pack_booleans(stand_in, packed, axis)
        del bound

    def _execute_buffers(self, device, array, count, plan_index, ordinal=None, handle=None):
        # The GPU it runs on: the handle's (execute's, else the graph's), as
        # in the frontend; without one, the GPU of the pack's torch tensors.
        handle = handle if handle is not None else self._handle
        if device == _capi.GRAPH_DEVICE_GPU and isinstance(handle, Handle):
            ordinal = handle.device
        else:
            handle = None
        with _capi.on_device(ordinal if device == _capi.GRAPH_DEVICE_GPU else None):
            if handle is not None:
                _apply_handle_stream(handle)
            if device == _capi.GRAPH_DEVICE_GPU:
                # A GPU plan list: run exactly the chosen plan.
                _plans.prepare_run(self._module, self._plans, self._plan_index if plan_index is None else plan_index, self._barred_names, self._workspace_limit)
            status = self._module.execute_array(device, array, count)
            # Read the reason before leaving the device scope: restoring the
            # caller's device is a C API call, and it clears the last error.
            reason = _capi.last_error() if status != _capi.GRAPH_OK else ""
        if status != _capi.GRAPH_OK:
            where = "on the GPU" if device == _capi.GRAPH_DEVICE_GPU else "on the CPU reference"
            raise _status_error(status, f"executing graph {self.name!r} {where} failed", reason)


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

    for op in _ops.OPS:
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


class pyplans:
    """What pygraph.get_execution_plan_list() answers (the frontend's first
    Python API, python_bindings/pyplans.cpp): the graph's plan list with
    filter_out_numeric_notes, filter_out_behavior_notes,
    filter_out_workspace_greater_than, build_all_plans, check_support and
    get_max_workspace_size. The list is the graph's own, so each method acts
    on the graph: the filters are its deselect_* filters."""

    def __init__(self, graph: "pygraph"):
        self._graph = graph

    def filter_out_numeric_notes(self, notes) -> None:
        self._graph.deselect_numeric_notes(list(notes))

    def filter_out_behavior_notes(self, notes) -> None:
        self._graph.deselect_behavior_notes(list(notes))

    def filter_out_workspace_greater_than(self, workspace: int) -> None:
        self._graph.deselect_workspace_greater_than(workspace)

    def build_all_plans(self) -> None:
        """Build every plan of the list that is not filtered out."""
        self._graph.build_plans(build_plan_policy.ALL)

    def check_support(self) -> None:
        """cudnnGraphNotSupportedError unless a plan of the list builds."""
        self._graph.check_support()

    def get_max_workspace_size(self) -> int:
        """The largest workspace of the plans not filtered out (0 for none);
        a GPU plan's size is exact once the plan is built."""
        g = self._graph
        barred = g._barred_indices()
        return max((cfg.workspace for i, cfg in enumerate(g._plans) if i not in barred), default=0)

    def __repr__(self):
        return f"<pyplans: {len(self._graph._plans)} plan(s) of graph {self._graph.name!r}>"


def from_mlir(text: str, name: Optional[str] = None) -> pygraph:
    return pygraph.from_mlir(text, name)

