"""Shape variants: a built graph run at shapes other than its own.

The frontend's dynamic-shape graphs run at the shapes of each execute: the
shapes ``override_uids``/``override_shapes``/``override_strides`` give, and
(on a graph built with a kernel cache or ``is_dynamic_shape_enabled``) the
own shape of a buffer too small for its declared tensor. The compiler
compiles static shapes, so such an execute runs a variant of the graph: the
same ops rebuilt with those tensors' dims and strides, every other dim
inferred again by the compiler's shape rules, planned with the graph's
heuristics, and kept on the graph for the next execute at the same shapes.
Through the kernel cache (keyed by the graph's text) a variant shares its
plans with any graph built at those shapes."""

import copy
import warnings
import weakref
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from . import _buffers, _ops
from ._enums import data_type
from ._errors import cudnnGraphNotSupportedError
from ._tensor import normalize_unit_strides

if TYPE_CHECKING:  # annotations only (_graph imports this module)
    from ._graph import pygraph

# uid -> (dims, strides) a variant gives the tensor.
Changes = Dict[int, Tuple[List[int], List[int]]]

# Where the compiler's message goes on to print the whole graph: the
# diagnostic before it names the op and the rule.
_TEXT_DUMP = "\n--- emitted MLIR ---"

# Data types whose buffers hold several elements per storage element (or
# none of their own): a buffer's dims do not give the tensor's.
_PACKED = (data_type.BOOLEAN, data_type.FP4_E2M1)

# What a variant does not share with its graph: the graph's structure is
# copied, its compiled state starts afresh.
_STRUCTURE = ("_nodes", "_all", "_tensors", "_tensor_by_uid")


class OverrideStrideWarning(UserWarning):
    """A shape override's strides were ignored: their count is not the
    tensor's rank, so they cannot describe it."""


def from_buffers(graph: "pygraph", uid_to_data) -> Changes:
    """The tensors whose buffer (a numpy array or torch tensor of the
    tensor's rank) spans fewer elements than the compiled dims and strides
    need: each runs at the buffer's own dims and strides, as the frontend
    describes such a buffer to a dynamic-shape plan. Left alone: ragged
    tensors (packed buffers, smaller by design), one-element tensors,
    buffers whose elements are not the tensor's (a bit-packed boolean mask,
    fp4 pairs, a byte blob for a wider type: their dims are not the
    tensor's), and a buffer at least as large as the tensor (read as
    declared)."""
    changes: Changes = {}
    for uid, _name, dt, dims, strides, _is_out in graph._io_tensors():
        data = uid_to_data.get(uid)
        if data is None or dt in _PACKED or not (_buffers.is_torch_tensor(data) or _buffers._is_numpy(data)):
            continue
        shape = getattr(data, "shape", None)
        if shape is not None and len(shape) == len(dims) and all(int(a) == int(b) for a, b in zip(shape, dims)):
            continue  # the declared dims: the common case, no describe()
        t = graph._tensor_by_uid.get(uid)
        if t is not None and t.ragged_offset is not None:
            continue
        dims = [int(x) for x in dims]
        if _buffers.span_elements(dims, [1] * len(dims)) <= 1:
            continue
        try:
            d = _buffers.describe(data)
        except (TypeError, ValueError):
            continue  # bind() names what is wrong with it
        if len(d.dims) != len(dims) or d.dims == dims:
            continue
        if _buffers._KIND_SIZE.get(d.kind) != _buffers.element_size(dt):
            continue
        declared = [int(s) for s in strides] if any(int(s) for s in strides) else _buffers.row_major(dims)
        if _buffers.span_elements(d.dims, d.strides) < _buffers.span_elements(dims, declared):
            changes[uid] = (list(d.dims), list(d.strides))
    return changes


def from_overrides(graph: "pygraph", what: str, override_uids, override_shapes, override_strides) -> Changes:
    """The frontend's override lists as changes: a tensor's own dims with
    strides that differ only on extent-1 dims change nothing; a stride list
    of another rank than the tensor (a buffer's own stride() for a ragged
    tensor) is ignored with OverrideStrideWarning; any other entry is the
    shape the tensor runs at."""
    if override_uids is None and override_shapes is None and override_strides is None:
        return {}
    uids, shapes, strides = list(override_uids or []), list(override_shapes or []), list(override_strides or [])
    if not (len(uids) == len(shapes) == len(strides)):
        raise ValueError(
            f"{what}: override_uids, override_shapes and override_strides must name the same tensors: got {len(uids)}, {len(shapes)} and {len(strides)} entries"
        )
    changes: Changes = {}
    for uid, shape, stride in zip(uids, shapes, strides):
        t = graph._tensor_by_uid.get(int(uid))
        if t is None:
            raise ValueError(f"{what}: override_uids names uid {uid}, which is not a tensor of graph {graph.name!r}")
        dims, stride = [int(d) for d in shape], [int(s) for s in stride]
        if len(stride) != len(dims):
            if dims == list(t.dim):
                # Programs pass a buffer's own stride() as the override, e.g. a
                # packed [tokens, heads, dim] buffer for a ragged 4-D tensor:
                # no layout of that tensor, so the compiled one stands.
                warnings.warn(
                    f"{what}: override for tensor {t.name!r} (uid {uid}) gives {len(stride)} strides {stride} for its {len(dims)} dims: "
                    f"they do not describe the tensor, so its compiled strides {t.get_stride()} are used",
                    OverrideStrideWarning,
                    stacklevel=4,
                )
                continue
            raise ValueError(f"{what}: override for tensor {t.name!r} (uid {uid}) gives {len(stride)} strides {stride} for {len(dims)} dims {dims}")
        if any(d < 1 for d in dims):
            raise ValueError(f"{what}: override for tensor {t.name!r} (uid {uid}) gives dims {dims}: dims must be positive")
        if t.is_virtual:
            raise ValueError(f"{what}: override_uids names uid {uid} ({t.name!r}), a virtual tensor: only the graph's inputs and outputs have buffers")
        if dims == list(t.dim) and _buffers.same_addressing(dims, stride, t.get_stride()):
            continue
        changes[int(uid)] = (dims, normalize_unit_strides(dims, stride))
    return changes


class ShapeVariantWarning(UserWarning):
    """Buffers smaller than their tensors on a dynamic-shape graph give
    shapes the graph cannot be rebuilt at: it runs at its own shapes."""


def variant(graph: "pygraph", changes: Changes, or_declared: bool = False) -> "Optional[pygraph]":
    """The built variant of ``graph`` for ``changes`` (made and built on
    first use, then kept as long as the graph: a CUDA graph recorded from a
    variant, or work still queued on a stream, uses its module, so none is
    released early). With ``or_declared`` (shapes read off buffers,
    not asked for), a graph that cannot be rebuilt at them gives None, with
    ShapeVariantWarning once: the execute runs at the graph's own shapes,
    as it did before the buffers were read."""
    key = tuple(sorted((uid, tuple(d), tuple(s)) for uid, (d, s) in changes.items()))
    kept = graph.__dict__.setdefault("_shape_variants", {})
    if key in kept:
        found = kept[key]
        if isinstance(found, Exception):
            if not or_declared:
                raise found
            return None
        return found
    try:
        made = _specialize(graph, changes)
    except cudnnGraphNotSupportedError as exc:
        kept[key] = exc.with_traceback(None)
        if not or_declared:
            raise
        warnings.warn(f"{exc}; running it at its own shapes", ShapeVariantWarning, stacklevel=4)
        made = None
    else:
        kept[key] = made
    return made


def _describe(changes: Changes, graph: "pygraph") -> str:
    return ", ".join(f"{graph._tensor_by_uid[uid].name!r} (uid {uid}) at dims {d} strides {s}" for uid, (d, s) in sorted(changes.items()))


def _specialize(graph: "pygraph", changes: Changes) -> "pygraph":
    if graph._text is not None or not graph._nodes:
        raise cudnnGraphNotSupportedError(
            f"graph {graph.name!r} was loaded from its text (deserialize or from_mlir), so it cannot be rebuilt at other shapes "
            f"({_describe(changes, graph)}); it runs at its own shapes: build the graph for the new ones"
        )
    clone = object.__new__(type(graph))
    state = {k: v for k, v in graph.__dict__.items() if k not in _STRUCTURE and k != "_shape_variants"}
    # Buffers bound at build time (tensor_like's data) stay the caller's.
    memo = {id(v): v for v in graph._data_bindings.values()}
    structure = copy.deepcopy({k: graph.__dict__[k] for k in _STRUCTURE}, memo)
    clone.__dict__.update(state)
    clone.__dict__.update(structure)
    clone._note_filters, clone._barred_names, clone._warned = list(graph._note_filters), set(graph._barred_names), set()
    clone._text, clone._module, clone._is_validated = None, None, False
    clone._reset_planning_state()
    owner = weakref.ref(clone)
    for t in clone._all:
        if t.owner is not None:
            t.owner = owner
    # An op's result whose dims the user set to what its op infers at the
    # graph's own shapes takes what the op infers at the new ones (an
    # output's buffer allocated at the largest shape keeps its strides).
    # Dims no rule gives (reshape, reduction, conv gradients) or that differ
    # from the rule's suggestion (a moe_grouped_matmul_bwd's experts) stay
    # the user's.
    for node in clone._nodes:
        for port, t in node.outputs.items():
            if t is not None and t.dim_assigned and _ops.infer_dims(node, port) == list(t.dim):
                t.dim_assigned = False
    for uid, (dims, strides) in changes.items():
        t = clone._tensor_by_uid[uid]
        t.dim, t.dim_assigned = list(dims), True
        # A row-major layout stays undecided where the user left it so (the
        # compiler's layout rules decide, and the text matches a graph built
        # at these shapes, for the kernel cache).
        t.stride = list(strides)
        t.stride_assigned = t.stride_assigned or list(strides) != normalize_unit_strides(dims, _buffers.row_major(dims))
    try:
        clone.validate()
        clone.build_operation_graph()
        clone.create_execution_plans(graph._heuristics)
        if graph._plan_pinned:
            # The plan the caller chose (select_plan, build_plan_at_index),
            # found by its name among the variant's.
            clone.select_plan(plan_index_of(graph, clone, graph._plan_index))
        clone.build_plans()
    except (cudnnGraphNotSupportedError, ValueError, RuntimeError) as exc:
        raise cudnnGraphNotSupportedError(
            f"graph {graph.name!r} cannot run with {_describe(changes, graph)} (its shapes at build: "
            + ", ".join(f"{graph._tensor_by_uid[uid].name!r} {list(graph._tensor_by_uid[uid].dim)}" for uid in sorted(changes))
            + f"): rebuilt at those shapes, the compiler rejects it: {str(exc).split(_TEXT_DUMP)[0]}"
        ) from None
    return clone


def plan_index_of(graph: "pygraph", made: "pygraph", index: int) -> int:
    """The index in ``made``'s plan list (a variant's) of ``graph``'s plan
    ``index``, matched by name; cudnnGraphNotSupportedError when the variant
    is not offered that plan at its shapes."""
    if not graph._plans:
        return index
    name = graph._plans[index].name
    for i, plan in enumerate(made._plans):
        if plan.name == name:
            return i
    raise cudnnGraphNotSupportedError(
        f"plan {index} ({name!r}) of graph {graph.name!r} is not offered at these shapes; the plans offered are: "
        + ", ".join(repr(p.name) for p in made._plans)
    )


def workspace_for(graph: "pygraph", made: "pygraph", workspace, index: int):
    """The workspace ``made`` (a variant) runs plan ``index`` with: the
    caller's, unless it may be smaller than that plan needs (the caller
    sized it for the graph's own shapes): then none is lent and the runtime
    uses its own."""
    if workspace is None or not made._plans:
        return workspace
    need = made._plans[index].workspace
    if isinstance(workspace, int) and not isinstance(workspace, bool):
        own = graph._plans[graph._plan_index].workspace if graph._plans else 0
        return workspace if need <= own else None
    have = _buffers.workspace_bytes(workspace) or 0
    return workspace if have >= need else None


def by_uid(graph: "pygraph", tensor_dict) -> dict:
    """A variant pack keyed by uid (a variant's tensors are its own copies,
    so the caller's tensor keys would not be its)."""
    return {graph._uid_of_key(k): v for k, v in tensor_dict.items() if k is not None}
