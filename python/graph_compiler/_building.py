"""The graph-building surface of pygraph: the Node record, tensor
bookkeeping (uids, names, tensors of other graphs), tensor_like /
tensor_scalar and the op builders (matmul, the pointwise ops, the structured
ops, the sdpa family). pygraph (_graph.py) inherits _GraphBuilding; its
tensor() and the builders generated from _ops' tables are defined there."""

import enum
import math
import os
import sys
import warnings
from typing import Any, Dict, List, Optional

from . import _buffers, _enums, _ops, _version
from ._enums import data_type, diagonal_alignment, is_float, mlir_type, norm_forward_phase, to_data_type
from ._errors import GraphValidationError, cudnnGraphNotSupportedError
from ._tensor import Tensor, attach, check_dims, row_major_stride


def paged_kv_length(k_dim, v_dim, k_table_dim, v_table_dim, extras=()) -> Optional[int]:
    """The K/V sequence length of a paged sdpa given no
    paged_attention_max_seq_len_kv, as the frontend infers it: the unpaged
    one of K and V, else the last dim of the first rank-4 extra (the bias,
    rng_dump), else what the tables' pages hold (the smaller of K's and
    V's); None when K and V have no rank-4 dims to read it from. Dims are
    lists (None for a table not given); extras are tensors or arrays."""
    if any(d is None or len(d) != 4 for d in (k_dim, v_dim)):
        return None
    tables = {"k": k_table_dim, "v": v_table_dim}
    pages = {"k": k_dim, "v": v_dim}
    for key, other in (("k", "v"), ("v", "k")):
        if tables[key] is not None and tables[other] is None:
            return int(pages[other][2])
    for extra in extras:
        dims = getattr(extra, "dim", None)
        if dims is None or callable(dims):  # torch's dim() is a method
            dims = getattr(extra, "shape", None)
        if dims is not None and len(dims) == 4:
            return int(dims[3])
    held = [int(tables[key][2]) * int(pages[key][2]) for key in ("k", "v") if tables[key] is not None and len(tables[key]) == 4]
    return min(held) if held else None


class NodeType(enum.Enum):
    """The frontend's kinds of graph node (``cudnn.NodeType``, what
    ``Node.node_type`` answers). The linear-attention summaries, GDP and
    ADALAYERNORM_BWD name frontend nodes this package builds no graph op for
    (they are python (FROST) engine work on Blackwell); they are members so
    programs that compare against them run."""

    ADALAYERNORM = "adalayernorm"
    ADALAYERNORM_BWD = "adalayernorm_backward"
    BATCHNORM = "batchnorm"
    BATCHNORM_BWD = "batchnorm_backward"
    BATCHNORM_INFERENCE = "batchnorm_inference"
    BLOCK_SCALE_DEQUANTIZE = "block_scale_dequantize"
    BLOCK_SCALE_QUANTIZE = "block_scale_quantize"
    COMPOSITE = "composite"
    CONCATENATE = "concatenate"
    CONV_DGRAD = "conv_dgrad"
    CONV_FPROP = "conv_fprop"
    CONV_WGRAD = "conv_wgrad"
    GDN = "gdn"
    GDN2 = "gdn2"
    GDN2_BWD = "gdn2_bwd"
    GDN2_SUMMARY = "gdn2_summary"
    GDN2_SUMMARY_BWD = "gdn2_summary_bwd"
    GDN_BWD = "gdn_bwd"
    GDN_SUMMARY = "gdn_summary"
    GDN_SUMMARY_BWD = "gdn_summary_bwd"
    GDP = "gdp"
    GDP_BWD = "gdp_bwd"
    GDP_SUMMARY = "gdp_summary"
    GDP_SUMMARY_BWD = "gdp_summary_bwd"
    GENSTATS = "genstats"
    INSTANCENORM = "instancenorm"
    INSTANCENORM_BWD = "instancenorm_backward"
    KDA = "kda"
    KDA_BWD = "kda_bwd"
    KDA_SUMMARY = "kda_summary"
    KDA_SUMMARY_BWD = "kda_summary_bwd"
    LAYERNORM = "layernorm"
    LAYERNORM_BWD = "layernorm_backward"
    MATMUL = "matmul"
    MATMUL_FP8 = "matmul_fp8"
    MOE_GROUPED_MATMUL = "moe_grouped_matmul"
    MOE_GROUPED_MATMUL_BWD = "moe_grouped_matmul_bwd"
    POINTWISE = "pointwise"
    REDUCTION = "reduction"
    RESHAPE = "reshape"
    RMSNORM = "rmsnorm"
    RMSNORM_BWD = "rmsnorm_backward"
    ROPE = "rope"
    ROPE_BWD = "rope_backward"
    SDPA = "sdpa"
    SDPA_BWD = "sdpa_backward"
    SDPA_FP8 = "sdpa_fp8"
    SDPA_FP8_BWD = "sdpa_fp8_backward"
    SDPA_MXFP8 = "sdpa_mxfp8"
    SDPA_MXFP8_BWD = "sdpa_mxfp8_backward"
    SLICE = "slice"
    TRANSPOSE = "transpose"


# builder name (a member's value) -> NodeType
_NODE_TYPE_OF_OP = {node_type.value: node_type for node_type in NodeType}


class Node:
    """One operation of the graph: ``op`` is the builder that made it
    (``node_type`` the frontend's NodeType of it), ``inputs``/``outputs`` its
    tensors by port."""

    def __init__(self, name, op, compute_data_type=None):
        self.name = name
        self.op = op
        self.compute_data_type = compute_data_type
        self.inputs: Dict[str, Tensor] = {}
        self.list_inputs: Dict[str, List[Tensor]] = {}
        self.outputs: Dict[str, Optional[Tensor]] = {}
        self.params: Dict[str, Any] = {}

    @property
    def node_type(self) -> Optional[NodeType]:
        """The frontend's NodeType of this node; None for the random-number
        generator (``rng``, which the frontend's Python surface names no
        NodeType for)."""
        return _NODE_TYPE_OF_OP.get(self.op)

    def validate(self) -> None:
        """Raises ValueError naming this node and the port when an input the
        node cannot do without is missing, or an output has no tensor. The
        shape rules are the compiler's: validate() of the graph checks them."""
        from ._ops import OPS, SDPA_OPS

        spec = OPS.get(self.op) or SDPA_OPS.get(self.op) or {}
        required = spec.get("pos") or spec.get("inputs", ())[: spec.get("fixed", 0)]
        if self.op == "matmul":
            required = ("A", "B")
        for port in required:
            if self.inputs.get(port) is None:
                raise ValueError(f"node {self.name!r} ({self.op}): input {port!r} is not set")
        for port, tensor in self.inputs.items():
            if tensor is not None and not isinstance(tensor, Tensor):
                raise ValueError(f"node {self.name!r} ({self.op}): input {port!r} is {type(tensor).__name__}, not a graph tensor")

    def infer_properties(self, context) -> None:
        """Fills in what the graph's data types decide (a GraphContext, or the
        graph itself): the compute type when the builder was given none (a
        float type; the graph's default otherwise), and the data type of
        outputs that have none, by the op's own rule (an output like its
        input, attention statistics in f32 ...) and else the intermediate
        type for virtual outputs and the io type for outputs the caller
        reads. Dims and strides are the compiler's to infer
        (graph.validate())."""
        from ._emit import _GraphEmission
        from ._enums import is_float

        class _Types:
            _dtype_of = _GraphEmission._dtype_of
            io_data_type = getattr(context, "io_data_type", None)
            intermediate_data_type = getattr(context, "intermediate_data_type", None)

        compute = getattr(context, "compute_data_type", None)
        if self.compute_data_type is None and compute is not None and is_float(compute):
            self.compute_data_type = compute
        types = _Types()
        for tensor in self.outputs.values():
            if tensor is None or tensor.data_type is not None:
                continue
            try:
                tensor.data_type = types._dtype_of(tensor)
            except ValueError:  # no type to give it: the graph's validate() names it
                pass

    def all_inputs(self):
        out = [t for t in self.inputs.values() if t is not None]
        for ts in self.list_inputs.values():
            out.extend(ts)
        return out

    def __repr__(self):
        return f"Node({self.name!r}, {self.op})"


_POINTWISE_TENSOR_ARGS = {
    **{
        op: ("input",)
        for op in (
            "abs", "ceil", "cos", "elu", "erf", "exp", "floor", "gelu", "gelu_approx_tanh", "identity", "log",
            "logical_not", "neg", "reciprocal", "rsqrt", "sigmoid", "sin", "softplus", "sqrt", "tan", "tanh",
        )
    },
    **{op: ("a", "b") for op in ("add", "add_square", "div", "logical_and", "logical_or", "mul", "sub")},
    **{op: ("input0", "input1") for op in ("max", "min", "mod", "pow")},
    **{op: ("input", "comparison") for op in ("cmp_eq", "cmp_ge", "cmp_gt", "cmp_le", "cmp_lt", "cmp_neq")},
    "bias": ("input", "bias"),
    "scale": ("input", "scale"),
    **{
        op: ("loss", "input")
        for op in ("elu_backward", "gelu_approx_tanh_backward", "gelu_backward", "sigmoid_backward", "softplus_backward", "tanh_backward")
    },
    "binary_select": ("input0", "input1", "mask"),
}


def _pointwise_stride(node, dims) -> List[int]:
    """The frontend's strides of a pointwise result: those of its first
    input of the same dims, as they are (the compiler's graph-infer-layout
    gives a graph output the same); else row-major."""
    if not dims:
        return []
    for t in node.inputs.values():
        if t is not None and list(t.dim) == list(dims) and t.stride:
            return list(t.stride)
    return row_major_stride(dims)


def _promote_seq_len(t) -> None:
    """A per-batch sequence length declared 1-D, dims (B,) (the frontend's
    nested-layout attention harness, sdpa/fp16.py, declares seq_len_q/kv so),
    is the attention's [B, 1, 1, 1] form: one length per batch, its batch
    stride kept. The tensor is rewritten in place, as the frontend infers
    the 4-D form on the tensor itself; the buffer bound at execute spans the
    same B elements either way."""
    if t is None or len(t.dim) != 1:
        return
    batch_stride = int(t.stride[0]) if t.stride else 1
    t.declared_view = ([int(t.dim[0])], [batch_stride])  # a buffer of this view is the tensor's own
    t.dim = [int(t.dim[0]), 1, 1, 1]
    t.stride = [batch_stride, 1, 1, 1]


def _bind_positional(op, names, args, kwargs, most) -> None:
    """Moves a builder call's positional arguments into kwargs under
    `names`: TypeError for more than `most` names or a name given twice."""
    if len(args) > len(names):
        raise TypeError(f"{op}() takes at most {most}")
    for key, value in zip(names, args):
        if key in kwargs:
            raise TypeError(f"{op}() got multiple values for {key!r}")
        kwargs[key] = value


class _GraphBuilding:
    """pygraph's tensor bookkeeping and op builders (mixed into pygraph)."""

    # =========================================================================
    # Tensors, uids and names
    # =========================================================================

    def _alloc_uid(self) -> int:
        while self._next_uid in self._reserved_uids or self._next_uid in self._tensor_by_uid:
            self._next_uid += 1
        uid = self._next_uid
        self._next_uid += 1
        return uid

    def _warn_once(self, key, message: str) -> None:
        """warnings.warn(message) once per graph and ``key``, attributed to
        the caller's line (the first frame outside this package)."""
        if key in self._warned:
            return
        self._warned.add(key)
        here = os.path.dirname(os.path.abspath(__file__))
        level, frame = 2, sys._getframe(1)
        while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
            level, frame = level + 1, frame.f_back
        warnings.warn(message, stacklevel=level)

    def _claim_uid(self, uid: int, tensor: Tensor) -> None:
        """Give ``uid`` to ``tensor`` as a user uid: an auto holder is
        renumbered, a user holder is an error naming both. 0 is a uid like
        any other (the frontend accepts it; so does the graph dialect)."""
        if uid < 0:
            raise ValueError(f"uid must be non-negative, got {uid} (tensor {tensor.name!r})")
        holder = self._tensor_by_uid.get(uid)
        if holder is not None and holder is not tensor:
            if holder.uid_assigned:
                raise ValueError(f"uid {uid} is already user-assigned to tensor {holder.name!r}; cannot assign it to tensor {tensor.name!r} too")
            fresh = self._alloc_uid_skipping(uid)
            self._tensor_by_uid[fresh] = holder
            if holder.uid in self._data_bindings:
                self._data_bindings[fresh] = self._data_bindings.pop(holder.uid)
            holder.uid = fresh
        self._reserved_uids.add(uid)

    def _alloc_uid_skipping(self, uid):
        self._reserved_uids.add(uid)
        return self._alloc_uid()

    def _register(self, t: Tensor) -> Tensor:
        attach(t, self)
        self._all.append(t)
        if t.name in self._tensors or t.name in self._ambiguous_names:
            self._tensors.pop(t.name, None)
            self._ambiguous_names.add(t.name)
        else:
            self._tensors[t.name] = t
        self._tensor_by_uid[t.uid] = t
        return t

    def _rename_tensor(self, t: Tensor, name: str) -> None:
        if name == t.name:
            return
        self._check_mutable("rename a tensor")
        if self._tensors.get(t.name) is t:
            del self._tensors[t.name]
            # a label that was ambiguous may become unique again
        t.name = name
        if name in self._tensors or name in self._ambiguous_names:
            self._tensors.pop(name, None)
            self._ambiguous_names.add(name)
        else:
            self._tensors[name] = t
        self._reindex_ambiguous()

    def _reindex_ambiguous(self):
        counts: Dict[str, List[Tensor]] = {}
        for t in self._all:
            counts.setdefault(t.name, []).append(t)
        self._ambiguous_names = {n for n, ts in counts.items() if len(ts) > 1}
        self._tensors = {n: ts[0] for n, ts in counts.items() if len(ts) == 1}

    def _reuid_tensor(self, t: Tensor, uid: int) -> None:
        if uid == t.uid:
            if not self._frozen:
                t.uid_assigned = True
                self._reserved_uids.add(uid)
            return
        self._check_mutable("re-uid a tensor")
        self._claim_uid(uid, t)
        self._tensor_by_uid.pop(t.uid, None)
        if t.uid in self._data_bindings:
            self._data_bindings[uid] = self._data_bindings.pop(t.uid)
        t.uid = uid
        t.uid_assigned = True
        self._tensor_by_uid[uid] = t

    def _check_mutable(self, what: str) -> None:
        if self._frozen:
            raise RuntimeError(f"cannot {what} after lowering/planning — the graph is frozen (planning is one-shot; build a new graph)")
        self._is_validated = False
        self._module = None
        self._prepared = False

    def tensor_like(self, template: Any, name: str = "", is_virtual: bool = False) -> Tensor:
        """A tensor with the dims, strides and data type of ``template``: a
        graph tensor, a numpy array, a torch tensor, or any object with
        ``__cuda_array_interface__`` / ``__array_interface__`` / ``__dlpack__``
        (read without importing a framework). A uint16 numpy array describes
        bf16 (raw bits)."""
        if isinstance(template, Tensor):
            return self.tensor(
                dim=list(template.dim),
                stride=list(template.get_stride()),
                data_type=template.data_type,
                is_virtual=is_virtual,
                is_pass_by_value=template.is_pass_by_value,
                name=name,
            )
        d = _buffers.describe(template)
        dt = _buffers.default_data_type(d.kind)
        if dt is None:
            raise TypeError(f"tensor_like: no data type for a buffer of element type {d.kind!r}")
        pbv = _buffers.is_torch_tensor(template) and d.device == _buffers.CPU
        return self.tensor(dim=d.dims, stride=d.strides, data_type=dt, is_virtual=is_virtual, is_pass_by_value=pbv, name=name)

    def tensor_scalar(self, value: Any, scalar_type: Any = None, name: str = "") -> Tensor:
        """A pass-by-value scalar whose value is part of the graph.

        ``scalar_type`` is the frontend's cudnn.scalar_type (RUNTIME_PARAM or
        COMPILE_TIME_CONST: both become a graph.scalar, the dialect has no
        runtime scalar parameter) with the data type following the value as
        the frontend's overloads pick it (float: FLOAT, int: INT32, or INT64
        beyond int32, bool: BOOLEAN); or, as this package also takes, the
        scalar's data type (a data_type or a framework dtype)."""
        detached = self._frozen  # as tensor() on a built graph
        if not detached:
            self._check_mutable("add a tensor")
        if isinstance(scalar_type, _enums.scalar_type):
            scalar_type = None
        scalar_type = to_data_type(scalar_type, "tensor_scalar(scalar_type=...)")
        number = value.item() if hasattr(value, "item") and not isinstance(value, (bool, int, float)) else value
        if not isinstance(number, (bool, int, float)):
            raise TypeError(f"tensor_scalar({name or 'unnamed'!r}): value must be a number (bool, int, float, or a numpy/torch scalar), got {type(value).__name__} {value!r}")
        if scalar_type is None:
            if isinstance(value, bool):
                scalar_type = data_type.BOOLEAN
            elif isinstance(value, int):
                scalar_type = data_type.INT32 if -(2**31) <= value < 2**31 else data_type.INT64
            else:
                scalar_type = data_type.FLOAT
        if not name:
            name = f"scalar_{len(self._tensors)}"
        if isinstance(number, float) and not math.isfinite(number):
            if not is_float(scalar_type):
                raise ValueError(f"tensor_scalar({name!r}): value {number} of type {scalar_type.name}: an integer or boolean type has no NaN or infinity")
            try:
                _ops.nonfinite_bits(number, mlir_type(scalar_type))
            except ValueError as exc:
                raise ValueError(f"tensor_scalar({name!r}): value {number} of type {mlir_type(scalar_type)}: {exc.args[0].replace(f'element type {mlir_type(scalar_type)} has', 'the type has')}") from None
        t = Tensor(name=name, dim=[1, 1, 1, 1], stride=[1, 1, 1, 1], data_type=scalar_type, is_pass_by_value=True)
        t.pass_by_value = value
        t.scalar_type = scalar_type
        t.dim_assigned = True
        t.uid = self._alloc_uid()
        return t if detached else self._register(t)

    def _check_own(self, t: Tensor, use: str) -> None:
        """ValueError naming ``t`` and both graphs when ``t`` is a tensor of
        another graph (``use`` says what it was given as)."""
        if t.owner is None:
            return
        other = t.owner()
        if other is self:
            return
        if other is None:
            where = "a graph that no longer exists"
        elif other.name == self.name:
            where = f"another graph named {other.name!r}"
        else:
            where = f"graph {other.name!r}"
        raise ValueError(f"{use}: tensor {t.name!r} (uid {t.uid}) belongs to {where}, not to graph {self.name!r}; make the tensor in this graph (tensor() or tensor_like())")

    def _adopt(self, t: Tensor) -> None:
        """Make ``t``, an input tensor (tensor()/tensor_like()) of another
        graph, an input of this one, as the frontend does with any
        non-virtual tensor a node consumes (its samples build a backward
        graph from a tensor the forward graph made). A uid the caller set
        travels with it; an automatic one is replaced when this graph
        already uses it."""
        if t.uid_assigned:
            self._claim_uid(t.uid, t)
        elif t.uid in self._tensor_by_uid or t.uid in self._reserved_uids:
            t.uid = self._alloc_uid()
        self._register(t)

    def _ensure_tensor(self, arg: Any, name: str = "") -> Tensor:
        if isinstance(arg, Tensor):
            owner = arg.owner() if arg.owner is not None else None
            detached = arg.owner is None  # made on a built graph: no graph's yet
            if (detached or (owner is not None and owner is not self)) and arg.producer is None and not arg.is_virtual:
                self._adopt(arg)
            self._check_own(arg, f"operand {name!r}" if name else "operand")
            return arg
        if isinstance(arg, (int, float)) and not isinstance(arg, bool):
            return self.tensor_scalar(float(arg), data_type.FLOAT, name=name)
        what = f"operand {name!r}" if name else "operand"
        if arg is None:
            raise TypeError(f"{what} is None: expected a graph tensor (tensor(), tensor_like() or an op's output), a number, or a buffer to bind")
        try:
            desc = self.tensor_like(arg, name=name)
        except TypeError as exc:
            raise TypeError(f"{what}: {exc}") from None
        self._data_bindings[desc.uid] = arg
        return desc

    def find_tensor(self, name_or_uid) -> Optional[Tensor]:
        """The tensor with this uid (an int) or this name; an ambiguous name
        raises."""
        if isinstance(name_or_uid, int):
            return self._tensor_by_uid.get(name_or_uid)
        if name_or_uid in self._ambiguous_names:
            raise ValueError(f"tensor name {name_or_uid!r} is ambiguous (duplicate labels are legal; look up by uid or Tensor)")
        return self._tensors.get(name_or_uid)

    @property
    def nodes(self) -> List[Node]:
        return list(self._nodes)

    @property
    def tensors(self) -> Dict[str, Tensor]:
        return dict(self._tensors)

    def get_node(self, name: str) -> Optional[Node]:
        return next((n for n in self._nodes if n.name == name), None)

    def _produced(self):
        return {id(t) for n in self._nodes for t in n.outputs.values() if t is not None}

    def get_inputs(self) -> List[Tensor]:
        return self._graph_inputs()

    def get_outputs(self) -> List[Tensor]:
        return [t for n in self._nodes for t in n.outputs.values() if t is not None and not t.is_virtual]

    # =========================================================================
    # Builders
    # =========================================================================

    def _get_name(self, op: str, name: str) -> str:
        self._check_mutable(f"add a {op} op")
        if self._text is not None:
            raise RuntimeError("this graph was loaded from MLIR text; build a new graph to add ops")
        if name:
            return name
        count = self._node_count.get(op, 0)
        self._node_count[op] = count + 1
        return f"{op}.{count}"

    def _new_output(self, node: Node, port: str, suffix: str, dims=None) -> Tensor:
        t = Tensor(name=f"{node.name}::{suffix}", is_virtual=True)
        t.uid = self._alloc_uid()
        t.producer = (node, port)
        if dims:
            t.dim = list(dims)
            t.stride = row_major_stride(t.dim)
        node.outputs[port] = t
        return self._register(t)

    def _adopt_output(self, node: Node, port: str, t: Tensor) -> Tensor:
        """A caller-made tensor passed as an op's output (score_max, dBias)."""
        t = self._ensure_tensor(t, name=f"{node.name}::{port}")
        if t.producer is not None:
            raise ValueError(f"tensor {t.name!r} is already produced by node {t.producer[0].name!r}")
        t.producer = (node, port)
        node.outputs[port] = t
        return t

    def _cdt(self, compute_data_type):
        return to_data_type(compute_data_type, "compute_data_type")

    def matmul(self, A: Any, B: Any, compute_data_type: Any = None, padding: float = 0.0, name: str = "") -> Tensor:
        """C = A @ B (batched, batch dims broadcast)."""
        name = self._get_name("matmul", name)
        node = Node(name, "matmul", self._cdt(compute_data_type))
        node.inputs["A"] = self._ensure_tensor(A, name=f"{name}::A")
        node.inputs["B"] = self._ensure_tensor(B, name=f"{name}::B")
        node.params["padding"] = padding
        out = self._new_output(node, "C", "C")
        out.dim = _ops.infer_dims(node, "C") or []
        out.stride = row_major_stride(out.dim) if out.dim else []
        self._nodes.append(node)
        return out

    def _pointwise(self, mode: str, inputs, name: str, compute_data_type=None, extra=None) -> Tensor:
        node = Node(name, "pointwise", self._cdt(compute_data_type))
        node.params["mode"] = mode
        for key, value in (extra or {}).items():
            if value is not None:
                node.params[key] = value
        for i, t in enumerate(inputs):
            node.inputs[f"IN_{i}"] = self._ensure_tensor(t, name=f"{name}::IN_{i}")
        out = self._new_output(node, "OUT_0", "OUT_0")
        out.dim = _ops.infer_dims(node, "OUT_0") or []
        out.stride = _pointwise_stride(node, out.dim)
        self._nodes.append(node)
        return out

    def relu(self, input, negative_slope=None, lower_clip=None, upper_clip=None, name="", compute_data_type=None) -> Tensor:
        """ReLU, optionally leaky (negative_slope) and clipped."""
        return self._pointwise("relu", [input], self._get_name("relu", name), compute_data_type, dict(negative_slope=negative_slope, lower_clip=lower_clip, upper_clip=upper_clip))

    def leaky_relu(self, input, negative_slope, name="", compute_data_type=None) -> Tensor:
        return self._pointwise("leaky_relu", [input], self._get_name("leaky_relu", name), compute_data_type, dict(negative_slope=negative_slope))

    def swish(self, input, swish_beta=None, name="", compute_data_type=None) -> Tensor:
        return self._pointwise("swish", [input], self._get_name("swish", name), compute_data_type, dict(swish_beta=swish_beta))

    def floor_mod(self, input0, input1, compute_data_type=None, name="") -> Tensor:
        """Floored remainder input0 - floor(input0 / input1) * input1: the
        result takes the divisor's sign (torch.remainder; the frontend's
        FLOOR_MOD, cuDNN 9.26+), where mod is truncated (torch.fmod).

        The dialect has only the truncated mode, so this is four more
        pointwise ops in the same fused chain: r = mod(a, b), then
        r - floor(r / b) * b. r / b lies in (-1, 1), so its floor is -1
        exactly where r is non-zero with the other sign than b, and b is
        added there, as torch.remainder does. The nodes are named
        ``name::trunc_mod`` ... ``name`` (the last one, which gives the
        output ``name::OUT_0``)."""
        name = self._get_name("floor_mod", name)
        cdt = compute_data_type
        # the intermediates carry the compute type (FLOAT unless told): in a
        # half-precision intermediate r / b could round up to 1
        inner = self._cdt(cdt) or self.compute_data_type or data_type.FLOAT

        def step(op, args, suffix):
            out = self._pointwise(op, args, f"{name}::{suffix}", cdt)
            out.set_data_type(inner)
            return out

        remainder = step("mod", [input0, input1], "trunc_mod")
        divisor = remainder.producer[0].inputs["IN_1"]
        quotient = step("floor", [step("div", [remainder, divisor], "ratio")], "ratio_floor")
        correction = step("mul", [quotient, divisor], "correction")
        return self._pointwise("sub", [remainder, correction], name, cdt)

    def gen_index(self, input, axis, name="", compute_data_type=None) -> Tensor:
        out = self._pointwise("gen_index", [input], self._get_name("gen_index", name), compute_data_type, dict(axis=axis))
        return out

    def relu_backward(self, loss, input, negative_slope=None, lower_clip=None, upper_clip=None, name="", compute_data_type=None) -> Tensor:
        return self._pointwise(
            "relu_backward", [loss, input], self._get_name("relu_backward", name), compute_data_type, dict(negative_slope=negative_slope, lower_clip=lower_clip, upper_clip=upper_clip)
        )

    def leaky_relu_backward(self, loss, input, negative_slope, name="", compute_data_type=None) -> Tensor:
        return self._pointwise("leaky_relu_backward", [loss, input], self._get_name("leaky_relu_backward", name), compute_data_type, dict(negative_slope=negative_slope))

    def swish_backward(self, loss, input, swish_beta=None, name="", compute_data_type=None) -> Tensor:
        return self._pointwise("swish_backward", [loss, input], self._get_name("swish_backward", name), compute_data_type, dict(swish_beta=swish_beta))

    def _layernorm_from_saved_stats(self, args, kwargs, name, compute_data_type):
        """layernorm(..., pre_calculated_mean=, pre_calculated_invvar=): the
        inference-phase layernorm on statistics saved by a training forward
        (cuDNN 9.18+; sample 26 recomputes Y for a dReLU this way):
        y = (x - mean) * inv_variance * scale + bias. The dialect's layernorm
        computes its own statistics, so this is the pointwise chain itself;
        epsilon is already inside inv_variance and goes unused. Returns
        [Y, None, None] as the inference phase does."""
        args = list(args)
        if args and isinstance(args[0], norm_forward_phase):
            kwargs.setdefault("norm_forward_phase", args.pop(0))
        for port, value in zip(("input", "scale", "bias", "epsilon"), args):
            if port in kwargs:
                raise TypeError(f"layernorm() got multiple values for {port!r}")
            kwargs[port] = value
        mean = kwargs.pop("pre_calculated_mean", None)
        inv_variance = kwargs.pop("pre_calculated_invvar", None)
        phase = kwargs.pop("norm_forward_phase", None)
        x, scale, bias = kwargs.pop("input", None), kwargs.pop("scale", None), kwargs.pop("bias", None)
        epsilon = kwargs.pop("epsilon", None)
        if isinstance(epsilon, Tensor):
            # unused by the chain, but an input of this graph as in the
            # frontend (sample 26 makes it with the forward graph)
            self._ensure_tensor(epsilon, name="layernorm::epsilon")
        if kwargs:
            raise TypeError(f"layernorm() got unexpected arguments {sorted(kwargs)}")
        if x is None or mean is None or inv_variance is None:
            raise TypeError("layernorm() with pre-calculated statistics needs input, pre_calculated_mean and pre_calculated_invvar")
        name = self._get_name("layernorm", name)
        if phase != norm_forward_phase.INFERENCE:
            # the frontend's form is the inference phase; a training phase
            # with given statistics has no meaning to model
            self._note_unsupported(f"layernorm {name!r}: pre_calculated_mean/pre_calculated_invvar with norm_forward_phase {getattr(phase, 'name', phase)}")
        inner = self._cdt(compute_data_type) or self.compute_data_type or data_type.FLOAT
        steps = [("sub", mean, "centered"), ("mul", inv_variance, "normalized")]
        if scale is not None:
            steps.append(("mul", scale, "scaled"))
        if bias is not None:
            steps.append(("add", bias, "shifted"))
        y = x
        for i, (op, operand, suffix) in enumerate(steps):
            last = i == len(steps) - 1
            y = self._pointwise(op, [y, operand], name if last else f"{name}::{suffix}", compute_data_type)
            if not last:
                y.set_data_type(inner)
        return [y, None, None]

    def _rmsnorm_without_scale(self, node, compute_data_type):
        """rmsnorm(scale=None): Y = x * inv_var (+ bias), inv_var =
        1/sqrt(mean(x^2) + eps), as the frontend takes it. Without a scale
        the input's dims say what is normalized: its one non-unit dim after
        the first (a bias of the input's rank, when it is not 1 everywhere,
        says it as a scale would). With two or more the rows are ambiguous ([B, S, H]: H alone, or S and H) and
        the graph is refused. The dialect's rmsnorm needs a scale, so this
        is the chain itself: square, mean over the normalized dims, add
        epsilon, rsqrt, multiply."""
        name = node.name
        x, bias, eps = node.inputs["input"], node.inputs.get("bias"), node.inputs.get("epsilon")
        if eps is None:
            raise TypeError("rmsnorm() missing tensor argument 'epsilon'")
        dims = [int(d) for d in (x.dim or [])]
        if not dims:
            raise GraphValidationError(f"rmsnorm {name!r}: scale=None needs the input's dims to say what is normalized; the input has none")
        if bias is not None and len(bias.dim or []) != len(dims):
            raise GraphValidationError(f"rmsnorm {name!r}: bias dims {list(bias.dim or [])} must have the input's rank {len(dims)}")
        axes = [i for i, d in enumerate(bias.dim) if int(d) != 1] if bias is not None else []
        if not axes:
            axes = [i for i in range(1, len(dims)) if dims[i] != 1]
            if len(axes) > 1:
                raise GraphValidationError(
                    f"rmsnorm {name!r}: scale=None with input dims {dims} is ambiguous: dims {axes} after the first are "
                    "not 1, so the normalized dims could be the last alone or all of them; give a scale whose dims are "
                    "1 except along the normalized dims")
            axes = axes or list(range(1, len(dims)))
        stats = [1 if i in axes else d for i, d in enumerate(dims)]
        inner = self._cdt(compute_data_type) or self.compute_data_type or data_type.FLOAT
        square = self._pointwise("mul", [x, x], f"{name}::square", compute_data_type).set_data_type(inner)
        mean = self._structured("reduction", (), dict(input=square, mode=_enums.reduction_mode.AVG), f"{name}::mean_square", compute_data_type, stats)
        mean.set_data_type(inner)
        shifted = self._pointwise("add", [mean, eps], f"{name}::plus_epsilon", compute_data_type).set_data_type(inner)
        if len(shifted.dim) != len(stats):
            # an epsilon of another rank (tensor_scalar's [1, 1, 1, 1] beside
            # a 3-d input) broadcasts to its rank: back to the stats' dims
            shifted = self._structured("reshape", (), dict(input=shifted), f"{name}::stats_dims", compute_data_type, stats)
            shifted.set_data_type(inner)
        inv_var = self._pointwise("rsqrt", [shifted], f"{name}::rsqrt", compute_data_type)
        y = self._pointwise("mul", [x, inv_var], f"{name}::normalize", compute_data_type)
        if bias is not None:
            y.set_data_type(inner)
            y = self._pointwise("add", [y, bias], f"{name}::add_bias", compute_data_type)
        # named as the dialect rmsnorm's outputs are
        y.set_name(f"{name}::Y")
        inv_var.set_name(f"{name}::INV_VARIANCE")
        return [y, inv_var if _ops._training(node) else None]

    def _structured(self, op, args, kwargs, name, compute_data_type, out_dims):
        if op == "layernorm" and ("pre_calculated_mean" in kwargs or "pre_calculated_invvar" in kwargs):
            return self._layernorm_from_saved_stats(args, kwargs, name, compute_data_type)
        spec = _ops.OPS[op]
        ports = spec["inputs"]
        list_ports = spec.get("list_inputs", ())
        attrs = spec.get("attrs", ())
        name_ = self._get_name(op, name)
        node = Node(name_, op, None if spec.get("no_cdt") else self._cdt(compute_data_type))
        args = list(args)
        if op == "batchnorm":
            self._batchnorm_phase(args, kwargs)
        # the classic norm builders take the phase first
        if args and isinstance(args[0], norm_forward_phase) and "norm_forward_phase" in attrs:
            if "norm_forward_phase" in kwargs:
                raise TypeError(f"{op}() got multiple values for 'norm_forward_phase'")
            kwargs["norm_forward_phase"] = args.pop(0)
        positional = list(ports) + (list(list_ports) if not ports else []) + list(attrs)
        _bind_positional(op, positional, args, kwargs, f"{len(positional)} positional arguments ({', '.join(positional)})")
        for port in ports:
            v = kwargs.pop(port, None)
            if v is not None:
                node.inputs[port] = self._ensure_tensor(v, name=f"{name_}::{port}")
        for lp in list_ports:
            vs = kwargs.pop(lp, None) or []
            node.list_inputs[lp] = [self._ensure_tensor(v, name=f"{name_}::{lp}_{i}") for i, v in enumerate(vs)]
        for key in attrs:
            v = kwargs.pop(key, None)
            if v is not None:
                node.params[key] = v
        mode = node.params.get("mode")
        if op == "moe_grouped_matmul" and getattr(mode, "name", str(mode)).upper() == "COMBINE":
            # the dialect's modes are cuDNN 9.19's: the weighted combine is a
            # newer frontend's; built as SCATTER, refused at planning
            node.params["mode"] = type(mode).SCATTER if not isinstance(mode, str) else "SCATTER"
            self._note_unsupported(
                f"moe_grouped_matmul {name_!r}: mode COMBINE (a newer frontend's weighted combine; cuDNN 9.19 has the "
                "modes NONE, GATHER and SCATTER: weigh SCATTER's rows in the graph)")
            tok, w, top_k = node.inputs.get("token"), node.inputs.get("weight"), node.params.get("top_k")
            if out_dims is None and tok is not None and w is not None and len(tok.dim or []) == 3 and len(w.dim or []) == 3 and top_k:
                # COMBINE sums each token's top_k rows: [1, rows / top_k, N]
                out_dims = {"OUT_0": [1, tok.dim[1] // int(top_k), w.dim[2]]}
        top_k_scores = kwargs.pop("top_k_scores", None) if op == "moe_grouped_matmul" else None
        if top_k_scores is not None:
            self._ensure_tensor(top_k_scores, name=f"{name_}::top_k_scores")  # a bad argument fails here
            self._note_unsupported(
                f"moe_grouped_matmul {name_!r}: top_k_scores (the scores a newer frontend's COMBINE mode weights the "
                "experts' rows with; cuDNN 9.19 has the modes NONE, GATHER and SCATTER only)"
            )
        if kwargs:
            raise TypeError(f"{op}() got unexpected arguments {sorted(kwargs)}; tensor ports are {ports + tuple(list_ports)}, attributes are {attrs}")
        _ops.check_attrs(op, node)
        if op == "rmsnorm" and node.inputs.get("scale") is None and node.inputs.get("input") is not None:
            return self._rmsnorm_without_scale(node, compute_data_type)
        out_dims = self._blocked_elsewhere(op, node, name_, out_dims)
        required = {
            "layernorm": ("input", "scale", "bias", "epsilon"),
            "adalayernorm": ("input", "scale", "bias", "epsilon"),
            "instancenorm": ("input", "scale", "bias", "epsilon"),
            "rmsnorm": ("input", "scale", "epsilon"),
            "batchnorm": ("input", "scale", "bias", "epsilon"),
            "moe_grouped_matmul": ("token", "weight", "first_token_offset"),
        }.get(op)
        if required is None:
            required = [p for p in ports if p not in ("group_offset", "token_index", "token_ks", "cu_seqlens", "initial_state", "a_log", "dt_bias", "state_checkpoints", "d_final_state", "seq_len")]
        for port in required:
            if node.inputs.get(port) is None:
                raise TypeError(f"{op}() missing tensor argument {port!r}")
        if out_dims is not None and not isinstance(out_dims, dict):
            out_dims = {spec["outputs"][0][0]: out_dims}
        maybe = spec.get("maybe", {})
        outs = []
        for port, suffix in spec["outputs"]:
            cond = maybe.get(port)
            if cond is not None and not cond(node):
                node.outputs[port] = None
                outs.append(None)
                continue
            o = self._shaped_output(node, port, suffix, op, out_dims)
            outs.append(o)
        self._nodes.append(node)
        return outs[0] if len(outs) == 1 else outs

    def _blocked_elsewhere(self, op, node, name, out_dims):
        """The one place a block-scale op's block_size list becomes the
        dialect's single block size. A list blocking only the last dim is that
        size. A list that blocks another dim ([16, 1]: FlashInfer's FP4 GEMM
        dequantizes its operand B so): quantize blocks that one dim as its axis; otherwise (dequantize
        blocks the last dim only, a list longer than the rank, several
        blocked dims, an axis given too) it is recorded as unsupported with
        the output dims the frontend infers, so validate() passes as there."""
        block = node.params.get("block_size")
        x = node.inputs.get("input")
        if op not in ("block_scale_quantize", "block_scale_dequantize") or not isinstance(block, (list, tuple)):
            return out_dims
        if all(int(b) == 1 for b in block[:-1]):
            node.params["block_size"] = int(block[-1])  # the last dim: the dialect's own form
            return out_dims
        blocked = [i for i, b in enumerate(block) if int(b) != 1]
        fits = x is not None and bool(x.dim) and len(block) <= len(x.dim)
        if op == "block_scale_quantize" and len(blocked) == 1 and node.params.get("axis") is None and fits:
            # one blocked dim: quantize's own axis
            node.params["axis"] = len(x.dim) - len(block) + blocked[0]
            node.params["block_size"] = int(block[blocked[0]])
            return out_dims
        self._note_unsupported(
            f"{op} {name!r}: block_size {list(block)} (the dialect's block-scale ops take one block size along "
            "the last dim, or along one axis of the input's rank for quantize)")
        node.params["block_size"] = int(block[-1]) or 1
        if not fits or out_dims is not None:
            return out_dims
        if op == "block_scale_dequantize":
            return {"OUT_0": list(x.dim)}
        sizes = [1] * (len(x.dim) - len(block)) + [int(b) for b in block]
        return {"Y": list(x.dim), "scale": [-(-d // max(b, 1)) for d, b in zip(x.dim, sizes)]}

    def _shaped_output(self, node, port, suffix, op, out_dims):
        """A new output tensor of ``node`` at ``port``: dims from the caller's
        ``out_dims`` when given, else the op's shape rule; row-major strides."""
        o = self._new_output(node, port, suffix)
        d = (out_dims or {}).get(port)
        if d is not None:
            o.dim, o.dim_assigned = check_dims(d, f"{op}(out_dims=...) of output {port!r}"), True
        else:
            o.dim = _ops.infer_dims(node, port) or []
        o.stride = row_major_stride(o.dim) if o.dim else []
        return o

    @staticmethod
    def _batchnorm_phase(args, kwargs):
        """The frontend's first binding took batchnorm(norm_forward_phase,
        input, ...) (python_bindings/cudnn_frontend_pygraph.cpp); later ones
        dropped the argument, graph.batchnorm being the training op. TRAINING
        (and NOT_SET) are that op; INFERENCE is graph.batchnorm_inference's."""
        phase = None
        if args and isinstance(args[0], norm_forward_phase):
            if "norm_forward_phase" in kwargs:
                raise TypeError("batchnorm() got multiple values for 'norm_forward_phase'")
            phase = args.pop(0)
        elif "norm_forward_phase" in kwargs:
            phase = kwargs.pop("norm_forward_phase")
        if phase is None:
            return
        if isinstance(phase, str):
            phase = norm_forward_phase[phase.upper()]
        if not isinstance(phase, norm_forward_phase):
            raise TypeError(f"batchnorm(): norm_forward_phase takes a cudnn.norm_forward_phase, got {phase!r}")
        if phase is norm_forward_phase.INFERENCE:
            raise cudnnGraphNotSupportedError(
                "batchnorm(norm_forward_phase=INFERENCE): graph.batchnorm is the training batch norm (it outputs the batch "
                "mean/inv_variance and the next running stats); inference with given statistics is graph.batchnorm_inference"
            )

    def _sdpa_family(self, op, args, kwargs, name, compute_data_type, out_dims):
        spec = _ops.SDPA_OPS[op]
        pos = spec["pos"]
        _bind_positional(op, pos, args, kwargs, f"{len(pos)} positional tensor arguments {pos}")
        if op == "sdpa" and kwargs.get("score_mod") is not None:
            from . import _score_mod

            why = _score_mod.composite_refusal(kwargs)
            if not why:
                return _score_mod.sdpa_with_score_mod(self, kwargs, self._get_name(op, name), compute_data_type)
            # built as an sdpa without it, refused at planning naming why
            kwargs.pop("score_mod")
            self._note_unsupported(f"{op}(): {why}")
        if op == "sdpa_backward" and kwargs.get("score_mod") is not None:
            from . import _score_mod

            why = _score_mod.backward_refusal(kwargs)
            if not why:
                return _score_mod.sdpa_backward_with_score_mod(self, kwargs, self._get_name(op, name), compute_data_type)
            kwargs.pop("score_mod")
            kwargs.pop("score_mod_bprop", None)
            self._note_unsupported(f"{op}(): {why}")
        if op == "sdpa_fp8" and kwargs.get("paged_attention_k_table") is None and kwargs.get("paged_attention_v_table") is None:
            # the frontend checks "max kv length only with paged caches" for the
            # f16 node alone; its fp8 harness (sdpa/fp8.py) passes the length on
            # every graph, and without page tables it has nothing to act on
            kwargs.pop("paged_attention_max_seq_len_kv", None)
        paged = {}
        if op in ("sdpa", "sdpa_fp8"):
            # paged K/V caches: the page_table_k/v operands of graph.sdpa and
            # graph.sdpa_fp8
            for key, port in (("paged_attention_k_table", "page_table_k"), ("paged_attention_v_table", "page_table_v")):
                if kwargs.get(key) is not None:
                    paged[port] = kwargs.pop(key)
            max_seq = kwargs.pop("paged_attention_max_seq_len_kv", None)
            # refused where the frontend refuses it (at validate/planning,
            # not at this call), naming the argument
            if max_seq is not None and not paged:
                self._note_unsupported(
                    f"{op}(): the 'paged_attention_max_seq_len_kv' argument: When not using paged attention, there is no "
                    "need to explicitly set max kv sequence length"
                )
        total_lengths = {}
        for key in _ops.SDPA_MAX_TOTAL_SEQ_LEN:
            v = kwargs.pop(key, None)
            if v is None:
                continue
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{op}(): {key} must be a positive integer (a bound on the sum of the ragged batch's lengths), not {v!r}")
            total_lengths[key] = int(v)
        for key in _ops.SDPA_UNSUPPORTED + _ops.SDPA_OP_UNSUPPORTED.get(op, ()):
            v = kwargs.pop(key, None)
            if v is not None and v is not False:
                why = ""
                if key in _ops.SDPA_BLOCK_SCALED_O_UNSUPPORTED.get(op, ()):
                    why = " (block-scaled O: the frontend serves it on its python FROST engine only, cuDNN's backend has no lowering)"
                self._note_unsupported(f"{op}(): the {key!r} argument{why}")
        name_ = self._get_name(op, name)
        node = Node(name_, op, self._cdt(compute_data_type))
        for port, table in paged.items():
            node.inputs[port] = self._ensure_tensor(table, name=f"{name_}::{port}")
        node.params.update(total_lengths)  # recorded only: no attribute of the op
        for key in pos:
            v = kwargs.pop(key, None)
            if v is None:
                raise TypeError(f"{op}() missing tensor argument {key!r}")
            node.inputs[key] = self._ensure_tensor(v, name=f"{name_}::{key}")
        if paged and max_seq is None:
            max_seq = self._infer_paged_max_seq(node, kwargs)
            if max_seq is None:
                for port in paged:
                    self._note_unsupported(
                        f"{op}(): the 'paged_attention_{port[-1]}_table' argument without paged_attention_max_seq_len_kv "
                        "and no rank-4 K/V, bias or rng_dump to infer it from"
                    )
        if paged and max_seq is not None:
            node.params["paged_attention_max_seq_len_kv"] = int(max_seq)
        p = node.params
        scale = kwargs.pop("attn_scale", None)
        if kwargs.pop("attn_scale_prefolded", False):
            # Q carries attn_scale * log2(e): the frontend's engines then run
            # exp2 on the raw scores and apply no scale. The compiler's run
            # exp, so they scale the scores by ln 2: the same softmax.
            p["attn_scale_prefolded"] = True
            scale = math.log(2.0)
        if isinstance(scale, (int, float)) and not isinstance(scale, bool):
            p["attn_scale_value"] = float(scale)
        elif scale is not None:
            node.inputs["attn_scale"] = self._ensure_tensor(scale, name=f"{name_}::attn_scale")
        if op in ("sdpa", "sdpa_backward") and kwargs.get("sink_token") is not None:
            node.inputs["sink_token"] = self._ensure_tensor(kwargs.pop("sink_token"), name=f"{name_}::sink_token")
            if op == "sdpa_backward" and kwargs.get("dSink_token") is None:
                # the dialect's backward gives the sink's gradient whenever it
                # reads a sink (the frontend's frozen-sink form has no op here)
                self._note_unsupported(f"{op}(): 'sink_token' without 'dSink_token' (a sink the backward does not train)")
        kwargs.pop("sink_token", None)
        block_mask = kwargs.pop("block_mask", None) if op == "sdpa" else None
        if block_mask is not None:
            node.inputs["block_mask"] = self._ensure_tensor(block_mask, name=f"{name_}::block_mask")
        for key in ("bias", "seq_len_q", "seq_len_kv"):
            v = kwargs.pop(key, None)
            if v is not None:
                node.inputs[key] = self._ensure_tensor(v, name=f"{name_}::{key}")
                if key != "bias":
                    _promote_seq_len(node.inputs[key])
        for key in ("use_causal_mask", "use_causal_mask_bottom_right", "use_alibi_mask", "use_padding_mask"):
            if kwargs.pop(key, False):
                p[key] = True
        align = kwargs.pop("diagonal_alignment", None)
        if align is not None:
            if isinstance(align, str):
                align = diagonal_alignment[align.upper()]
            p["diagonal_alignment"] = align
        for key, alias in (("diagonal_band_left_bound", "left_bound"), ("diagonal_band_right_bound", "right_bound")):
            v = kwargs.pop(key, None)
            w = kwargs.pop(alias, None)
            v = v if v is not None else w
            if v is not None:
                p[key] = int(v)
        # sdpa/sdpa_backward call it sliding_window_length, sdpa_fp8 sliding_window
        swl = kwargs.pop("sliding_window_length", None)
        sw = kwargs.pop("sliding_window", None)
        if swl is not None and sw is not None and int(swl) != int(sw):
            raise RuntimeError(f"{op}(): sliding_window_length={swl} and sliding_window={sw} disagree")
        swl = swl if swl is not None else sw
        if swl is not None:
            if p.get("diagonal_band_left_bound") is not None:
                raise RuntimeError(f"{op}(): sliding window and left_bound cannot be set at the same time")
            p["sliding_window_length"] = int(swl)
        dropout = kwargs.pop("dropout", None)
        rng_dump = kwargs.pop("rng_dump", None)
        if dropout is not None:
            self._sdpa_dropout(op, node, dropout, rng_dump)
        elif rng_dump is not None:
            # the frontend ignores a dump without dropout (nothing writes it)
            self._warn_once(("rng_dump", op), f"{op}(): rng_dump without dropout is ignored (it is the Philox mask of "
                                              "dropout=(probability, seed, offset)); nothing writes it")
        generate_stats = kwargs.pop("generate_stats", None)
        is_inference = kwargs.pop("is_inference", None)
        if generate_stats is None:
            generate_stats = (is_inference is False) if is_inference is not None else False
        self._sdpa_options(op, node, kwargs, bool(generate_stats))
        out_given = {k: kwargs.pop(k) for k in spec.get("out_kwargs", ()) if kwargs.get(k) is not None}
        for k in spec.get("out_kwargs", ()):
            kwargs.pop(k, None)
        for k in ("score_max", "score_sum_exp", "dBias", "dSink_token"):
            if kwargs.get(k) is not None:
                raise NotImplementedError(f"{op}(): graph.{op} has no {k} result in the graph dialect (graph.sdpa has score_max/score_sum_exp, graph.sdpa_backward dBias and dSink_token)")
            kwargs.pop(k, None)
        if kwargs:
            raise TypeError(f"{op}() got unexpected arguments {sorted(kwargs)}")
        if out_dims is not None and not isinstance(out_dims, dict):
            out_dims = {spec["outputs"][0][0]: out_dims}
        rets = []
        for port, suffix in spec["outputs"]:
            if port == "Stats" and not generate_stats:
                node.outputs[port] = None
                rets.append(None)
                continue
            if port in spec.get("out_kwargs", ()):
                # the caller made these tensors: the frontend fills them in
                # and does not return them
                if port in out_given:
                    self._adopt_output(node, port, out_given[port])
                else:
                    node.outputs[port] = None
                continue
            o = self._shaped_output(node, port, suffix, op, out_dims)
            rets.append(o)
        self._nodes.append(node)
        if node.params.get("stats_use_log2") and node.outputs.get("Stats") is not None:
            # Stats in base 2: the natural-log Stats times log2(e), one
            # pointwise multiply after the op (the dialect's Stats is base e)
            raw = node.outputs["Stats"]
            raw.name = f"{name_}::Stats_ln"
            self._reindex_ambiguous()
            log2e = self.tensor_scalar(1.4426950408889634, data_type.FLOAT, name=f"{name_}::log2e")
            scaled = self._pointwise("mul", [raw, log2e], self._get_name("mul", f"{name_}::stats_log2"))
            scaled.name = f"{name_}::Stats"
            scaled.data_type = data_type.FLOAT
            scaled.producer[0].params["stats_log2_of"] = name_
            self._reindex_ambiguous()
            rets[rets.index(raw)] = scaled
        return rets

    @staticmethod
    def _infer_paged_max_seq(node, kwargs) -> Optional[int]:
        """paged_kv_length over the node's K, V and tables."""
        return paged_kv_length(
            *(getattr(node.inputs.get(key), "dim", None) for key in ("k", "v", "page_table_k", "page_table_v")),
            extras=(kwargs.get("bias"), kwargs.get("rng_dump")),
        )

    def _check_attention_support_surface(self) -> None:
        """The frontend's attention rules that cuDNN 9.19 programs meet at
        validate() as cudnnGraphNotSupportedError (its test harnesses turn
        that into a skip): ALiBi only under a causal band (right bound 0;
        the cuDNN engine declines the rest too); a bottom-right causal band
        or a left bound (sliding window) with more query rows than key rows
        and no padding mask leaves the first rows with no key to attend to,
        which the frontend refuses rather than define. The graph dialect
        defines those rows (they read zero), so that rule lives here, in the
        frontend's surface. MXFP8 attention needs cuDNN 9.21 or newer; the
        frontend refuses it at validate() on an older one (its
        test_sdpa_mxfp8_unsupported_version expects that)."""
        for node in self._nodes:
            if node.op in ("sdpa_mxfp8", "sdpa_mxfp8_backward") and _version.backend_version() < 92100:
                raise cudnnGraphNotSupportedError(
                    f"{node.op} {node.name!r}: MXFP8 attention requires cuDNN 9.21.0 or newer "
                    f"(loaded: {_version.backend_version_string()})"
                )
            if node.op not in ("sdpa", "sdpa_backward", "sdpa_fp8", "sdpa_fp8_backward"):
                continue
            q, k = node.inputs.get("q"), node.inputs.get("k")
            if q is None or k is None or len(q.dim) != 4 or len(k.dim) != 4:
                continue
            p = node.params
            if p.get("use_alibi_mask") and node.op in ("sdpa", "sdpa_backward"):
                # the right bound the engine sees: the explicit one, else 0
                # under a causal flag
                right = p.get("diagonal_band_right_bound")
                if right is None and (p.get("use_causal_mask") or p.get("use_causal_mask_bottom_right")):
                    right = 0
                if right != 0:
                    raise cudnnGraphNotSupportedError(
                        f"{node.op} {node.name!r}: When alibi mask is used, diagonal_band_right_bound needs to be set to 0."
                    )
            s_q, s_kv = q.dim[2], p.get("paged_attention_max_seq_len_kv") or k.dim[2]
            if p.get("use_padding_mask") or s_q <= s_kv:
                continue
            bottom_right = p.get("use_causal_mask_bottom_right") or (
                p.get("diagonal_alignment") == diagonal_alignment.BOTTOM_RIGHT and p.get("diagonal_band_right_bound") is not None
            )
            if bottom_right:
                raise cudnnGraphNotSupportedError(
                    f"{node.op} {node.name!r}: Bottom right causal mask does not support max_s_q > max_s_kv "
                    f"(s_q {s_q}, s_kv {s_kv}). Please virtually slice the Q tensor and pass it as max_s_q == max_s_kv"
                )
            # (the frontend's fp8 forward has no sliding-window rule)
            if node.op != "sdpa_fp8" and (p.get("diagonal_band_left_bound") is not None or p.get("sliding_window_length") is not None):
                raise cudnnGraphNotSupportedError(
                    f"{node.op} {node.name!r}: Sliding window attention is only supported with max_s_q <= max_s_kv "
                    f"(s_q {s_q}, s_kv {s_kv}; without a padding mask)"
                )

    def _sdpa_options(self, op, node, kwargs, generate_stats):
        """The frontend's sdpa options that pick among cuDNN's implementations
        or kernels. The compiler has its own engines: each is recorded on the
        node (inspect() shows it), honoured where the compiler can, and
        warned about where it cannot."""
        impl = kwargs.pop("implementation", None)
        if impl is not None:
            if isinstance(impl, str):
                impl = _enums.attention_implementation[impl.upper()]
            if not isinstance(impl, _enums.attention_implementation):
                raise TypeError(f"{op}(): implementation takes a cudnn.attention_implementation, got {impl!r}")
            node.params["implementation"] = impl
            if impl is not _enums.attention_implementation.AUTO:
                self._warn_once(
                    ("implementation", impl),
                    f"{op}(implementation={impl}): the compiler chooses its own attention engines (as AUTO does); the request is recorded on node {node.name!r}, not applied",
                )
        if kwargs.pop("unfuse_fma", False):
            node.params["unfuse_fma"] = True
            self._warn_once(
                "unfuse_fma",
                f"{op}(unfuse_fma=True): a cuDNN SM100 softmax option; the compiler's engines pick their own softmax arithmetic, so it is recorded on node {node.name!r}, not applied",
            )
        precision = to_data_type(kwargs.pop("softmax_precision", None), f"{op}(softmax_precision=...)")
        if precision is not None:
            if precision not in (data_type.FLOAT, data_type.HALF):
                raise ValueError(f"{op}(): softmax_precision is FLOAT or HALF, got {precision}")
            node.params["softmax_precision"] = precision
            if precision is data_type.HALF:
                self._warn_once(
                    ("softmax_precision", op),
                    f"{op}(softmax_precision=HALF): an exponent precision of the frontend's cc 10.7 engines; the compiler's engines compute the softmax in f32 (more precise), recorded on node {node.name!r}",
                )
        if kwargs.pop("use_deterministic_algorithm", False):
            # Honoured twice: sdpa_backward carries it to the compiler (on
            # the GPU a composite graph whose dQ needs no f32 accumulator),
            # and planning leaves out plans with the NONDETERMINISTIC note.
            node.params["use_deterministic_algorithm"] = True
            self._deterministic = True
        if kwargs.pop("stats_use_log2", False):
            if not generate_stats:
                raise ValueError(f"{op}(stats_use_log2=True) needs generate_stats=True (it changes the Stats output)")
            if op != "sdpa":
                raise NotImplementedError(f"{op}(stats_use_log2=True): only sdpa converts its Stats to base 2 here")
            node.params["stats_use_log2"] = True
        for key in ("cu_seq_len_q", "cu_seq_len_kv"):
            if kwargs.get(key) is not None:
                self._note_unsupported(f"{op}(): {key} (cumulative sequence lengths of a packed layout; seq_len_q/seq_len_kv with use_padding_mask=True is the supported form)")
            kwargs.pop(key, None)
        if kwargs.pop("fn", None) is not None:
            self._note_unsupported(f"{op}(): a score modification callback (fn/score_mod)")

    def _sdpa_dropout(self, op, node, dropout, rng_dump=None):
        """(probability, seed, offset) is Philox dropout: a graph.rng keep
        mask (written to ``rng_dump`` when given) that cuDNN generates inside
        the fused attention, forward and backward alike; (mask, scale) is an
        explicit keep mask."""
        items = tuple(dropout)
        if len(items) == 3 and isinstance(items[0], (int, float)) and not isinstance(items[0], bool):
            probability, seed, offset = items
            if not 0.0 <= float(probability) < 1.0:
                raise ValueError(f"{op}(): dropout probability must be in [0, 1), got {probability!r}")
            q, k = node.inputs["q"], node.inputs["k"]
            if len(q.dim) != 4 or len(k.dim) != 4:
                raise ValueError(f"{op}(): dropout needs q and k with dims set ([B, H, S, D])")
            dims = [q.dim[0], q.dim[1], q.dim[2], node.params.get("paged_attention_max_seq_len_kv") or k.dim[2]]
            rng = Node(self._get_name("rng", f"{node.name}::rng"), "rng", None)
            rng.inputs["seed"] = self._ensure_tensor(seed, name=f"{node.name}::seed")
            rng.inputs["offset"] = self._ensure_tensor(offset, name=f"{node.name}::offset")
            rng.params["bernoulli_probability"] = 1.0 - float(probability)
            if rng_dump is not None:
                mask = self._adopt_output(rng, "Y", rng_dump)
                if not mask.dim:
                    mask.dim, mask.stride = list(dims), row_major_stride(dims)
            else:
                mask = self._new_output(rng, "Y", "rng_mask", dims=dims)
            self._nodes.append(rng)
            node.inputs["dropout_mask"] = mask
            node.params["dropout_probability"] = float(probability)
            return
        if len(items) == 2:
            mask, scale = items
            if rng_dump is not None:
                self._warn_once(("rng_dump", op), f"{op}(): rng_dump with an explicit (mask, scale) dropout is ignored: "
                                                  "it dumps the Philox mask of dropout=(probability, seed, offset)")
            node.inputs["dropout_mask"] = self._ensure_tensor(mask, name=f"{node.name}::dropout_mask")
            if isinstance(scale, (int, float)) and not isinstance(scale, bool):
                if float(scale) < 1.0:
                    raise ValueError(f"{op}(): dropout scale must be 1 / keep probability (at least 1), got {scale!r}")
                node.params["dropout_probability"] = 1.0 - 1.0 / float(scale)
                return
            # The frontend's form: the scale a tensor read when the graph
            # runs. The dialect's dropout scale is compile-time.
            self._ensure_tensor(scale, name=f"{node.name}::dropout_scale")  # a bad argument fails here
            self._note_unsupported(
                f"{op} {node.name!r}: dropout=(mask, scale) with the scale a tensor (the graph's dropout scale is a "
                "constant: give it as a float, 1 / keep probability)")
            node.params["dropout_probability"] = 0.0
            return
        raise ValueError(f"{op}(): dropout must be (probability, seed, offset) or (mask, scale), got {len(items)} elements")
