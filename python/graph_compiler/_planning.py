"""Validation and planning: validate, build_operation_graph, the plan
list's queries, selection and filters, building plans, workspace sizes,
engine and knob queries, and pyplans (the frontend's first plan API).
pygraph (_graph.py) inherits _GraphPlanning; create_execution_plans() is
defined in pygraph's class body."""

import dataclasses
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

from . import _capi, _enums, _plans, _variants
from ._enums import build_plan_policy, heur_mode, numerical_note
from ._errors import EngineIdError, GraphValidationError, _status_error, cudnnGraphNotSupportedError
from ._tensor import Tensor

if TYPE_CHECKING:  # annotations only (_graph imports this module)
    from ._graph import pygraph


@dataclasses.dataclass(frozen=True)
class PlanEntry:
    """One ranked entry of a plan list (the frontend's
    ``cudnn.engines.PlanConfig``): the engine, its knob choices, the entry's
    index in the plan list (cpp_index) and the heuristics mode that proposed
    it (None: not tracked)."""

    engine_id: int
    knobs: Optional[Mapping[Any, Any]] = None
    cpp_index: Optional[int] = None
    mode: Any = None


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


class _GraphPlanning:
    """pygraph's validation, plan list and plan building (mixed into pygraph)."""

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
        self._check_attention_support_surface()
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
        """(engine id, knobs) of plan ``index``, the knobs keyed by
        cudnn.knob_type as the frontend answers them (knobs no member
        mirrors, cuDNN's or the compiler's codegen engine's, by the extra
        knob_type values)."""
        cfg = self._plans[self._check_plan_index(index)]
        return (cfg.engine_id, _enums.public_knobs(cfg.knobs))

    def backend_plan_entries(self) -> List["PlanEntry"]:
        """cuDNN's ranked plans for this graph as PlanEntry records
        (``cudnn.engines.PlanConfig``: engine id, knobs keyed by
        cudnn.knob_type, cpp_index its index in the plan list, mode the
        heuristics mode when one mode made the list): those of
        create_execution_plans(), or, before it, those heuristics mode A
        proposes, asked without using up the graph's one planning call.
        [] when cuDNN offers none: it declines the graph, the graph uses a
        feature the compiler cannot model, or only the compiler's own plans
        and the CPU reference serve it. A graph the compiler rejects
        (GraphValidationError) and other errors propagate."""
        if self._planning_done:
            plans, modes = self._plans, list(self._heuristics or [])
        else:
            self.build_operation_graph()
            if self.unsupported_features():
                return []
            modes = [heur_mode.A]
            handle_device = self._handle.device if getattr(self._handle, "device", None) is not None else None
            try:
                with _capi.on_device(handle_device):
                    plans = _plans.propose(self._module, modes)
            except GraphValidationError:
                raise
            except cudnnGraphNotSupportedError:
                return []
        mode = modes[0] if len(modes) == 1 else None
        return [
            PlanEntry(cfg.engine_id, _enums.public_knobs(cfg.knobs), index, mode)
            for index, cfg in enumerate(plans)
            if cfg.device == _capi.GRAPH_DEVICE_GPU and cfg.engine_id >= 0
        ]

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
        start = self._plan_index
        if build_all:
            _plans.build_many(
                self._module, self._plans, [i for i in range(start, len(self._plans)) if i not in barred and i not in self._built_plans]
            )
        for index in range(start, len(self._plans)):
            # A plan select_plan() pinned must build; under ALL the plans
            # after it are built as far as they go.
            pinned = self._plan_pinned and index == start
            if index in barred:
                if pinned:
                    raise ValueError(
                        f"plan {index} ({self.get_plan_name_at_index(index)!r}) is pinned by select_plan() but "
                        f"excluded by {self._why_barred(index)}; drop one of the two instructions"
                    )
                failures.append(f"[{index}] {self._plans[index].name}: excluded by {self._why_barred(index)}")
                continue
            try:
                self._build_plan_at(index)
            except cudnnGraphNotSupportedError as exc:
                if pinned:
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
        variant = self._shape_variant("get_workspace_size", None, override_uids, override_shapes, override_strides)
        if variant is not None:
            return variant.get_workspace_size(handle)
        return self._plans[self._plan_index].workspace

    def get_workspace_size_plan_at_index(self, index: int, handle=None, override_uids=None, override_shapes=None, override_strides=None) -> int:
        index = self._check_plan_index(index)
        variant = self._shape_variant("get_workspace_size_plan_at_index", None, override_uids, override_shapes, override_strides)
        if variant is not None:
            return variant.get_workspace_size_plan_at_index(_variants.plan_index_of(self, variant, index), handle)
        return self._plans[index].workspace

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
                spans.setdefault(_enums.backend_knob_code(key), []).append(int(value))
        return [_enums.knob(_enums.knob_type_of(code), max(vs), min(vs), 1) for code, vs in sorted(spans.items())]

    def query_tensor_attributes_of_uid(self, uid: int) -> Tensor:
        """The tensor with ``uid`` (an input, output or scalar of the graph);
        raises RuntimeError when the graph has none."""
        t = self._tensor_by_uid.get(int(uid))
        if t is None:
            raise RuntimeError(f"query_tensor_attributes_of_uid: graph {self.name!r} has no tensor with uid {uid}")
        return t
