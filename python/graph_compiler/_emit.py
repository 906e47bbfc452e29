"""The graph handed to the compiler: dims and data types settled, the
package's own checks of each tensor (with its messages), the C API builder
calls, to_mlir(), and the features the compiler cannot model. pygraph
(_graph.py) inherits _GraphEmission."""

import math
from typing import TYPE_CHECKING, List

from . import _capi, _ops
from ._building import Node, _promote_seq_len
from ._enums import data_type, dtype_code, is_float, mlir_type
from ._errors import GraphValidationError, cudnnGraphNotSupportedError
from ._tensor import Tensor, row_major_stride

if TYPE_CHECKING:  # annotations only (_graph imports this module)
    from ._graph import pygraph


def _op_line(graph: "pygraph", node: Node) -> str:
    """``node`` as the dialect op it becomes and its input tensors (port,
    name, dims, data type), for a message."""
    ins = []
    for port, t in list(node.inputs.items()) + [(f"{k}_{i}", t) for k, ts in node.list_inputs.items() for i, t in enumerate(ts or ())]:
        if t is not None:
            try:
                dt = mlir_type(graph._dtype_of(t))
            except (ValueError, KeyError):
                dt = "?"
            ins.append(f"{port}: {t.name!r} tensor<{'x'.join(str(d) for d in (t.dim or []))}x{dt}>")
    return f"graph.{_ops.MNEMONIC.get(node.op, node.op)} {node.name!r} (" + ", ".join(ins) + ")"


class _Checks:
    """What the package checks of a tensor before the C API builder sees
    it, with its own messages: dims, strides, data type, a scalar's
    value."""

    def __init__(self, graph: "pygraph"):
        self.graph = graph

    def tensor(self, t: Tensor) -> None:
        if not t.dim:
            raise ValueError(f"tensor {t.name!r} (uid {t.uid}) has no dims")
        mlir_type(self.graph._dtype_of(t))
        bad = [d for d in t.dim if int(d) < 1]
        if bad:
            where = f" (inferred from the inputs and attributes of {t.producer[0].op} node {t.producer[0].name!r})" if t.producer is not None and not t.dim_assigned else ""
            raise ValueError(f"tensor {t.name!r} (uid {t.uid}) has dims {list(t.dim)}{where}: every dim must be positive")
        is_input = t.producer is None and t.pass_by_value is None
        if t.stride and (is_input or t.stride_assigned) and t.pass_by_value is None:
            if len(t.stride) != len(t.dim):
                raise ValueError(f"tensor {t.name!r} (uid {t.uid}) has {len(t.stride)} strides for {len(t.dim)} dims")

    def scalar(self, t: Tensor):
        """(data type, value) of pass-by-value ``t``: a float value for a
        float type, an int (exact) for the others."""
        dt = t.scalar_type or t.data_type or data_type.FLOAT
        elt = mlir_type(dt)
        v = t.pass_by_value
        if hasattr(v, "item"):
            v = v.item()
        if is_float(dt):
            if not math.isfinite(float(v)):
                _ops.nonfinite_bits(float(v), elt)  # ValueError: the type has no such value
            return dt, float(v)
        if dt == data_type.BOOLEAN:
            return dt, 1 if v else 0
        return dt, int(v)


class _GraphEmission:
    """pygraph's emission to the C API builder (mixed into pygraph)."""

    # =========================================================================
    # Emission
    # =========================================================================

    def _graph_inputs(self) -> List[Tensor]:
        produced = self._produced()
        seen, out = set(), []
        used = {id(t) for n in self._nodes for t in n.all_inputs()}
        for t in self._all:
            if id(t) in used and id(t) not in produced and t.pass_by_value is None and id(t) not in seen:
                seen.add(id(t))
                out.append(t)
        return out

    def _dtype_of(self, t: Tensor):
        if t.data_type is not None:
            return t.data_type
        if t.producer is not None:
            node, port = t.producer
            rule = None
            if node.op in _ops.SDPA_OPS:
                if port in _ops.SDPA_FLOAT_OUTPUTS:
                    return data_type.FLOAT
            elif node.op == "pointwise":
                if node.params.get("mode") == "gen_index":
                    return data_type.INT32
            elif node.op != "matmul":
                rule = _ops.OPS[node.op].get("dtype", {}).get(port)
            if isinstance(rule, str) and rule.startswith("like:"):
                src = rule[5:]
                srcs = node.list_inputs.get(src) or ([node.inputs[src]] if node.inputs.get(src) is not None else [])
                if srcs:
                    return self._dtype_of(srcs[0])
            elif isinstance(rule, data_type):
                return rule
        dt = self.intermediate_data_type if t.is_virtual else self.io_data_type
        if dt is None and t.is_virtual:
            dt = data_type.FLOAT
        if dt is None:
            raise ValueError(f"tensor {t.name!r} (uid {t.uid}) has no data type: call set_data_type() or give the graph an io_data_type")
        return dt

    def _finalize_dims(self, rule_errors: bool = True):
        """Dims of op outputs from the inputs as they are now (a set_dim on
        an input after building an op is honoured). rule_errors=False
        leaves the outputs of an op whose shape rule rejects its inputs
        without dims (a graph that never reaches the compiler)."""
        for node in self._nodes:
            for port, t in node.outputs.items():
                if t is None or t.dim_assigned:
                    continue
                d = _ops.infer_dims(node, port)
                if d:
                    if list(d) != list(t.dim):
                        t.dim = list(d)
                        if not t.stride_assigned:
                            t.stride = row_major_stride(t.dim)
                elif not t.dim and (rule_errors or _ops.result_dims(node)[1] is None):
                    self._no_dims(node, t)
            if node.op == "transpose":
                self._transpose_output_strides(node)

    @staticmethod
    def _transpose_output_strides(node: Node) -> None:
        """A transpose the caller reads (an output) without strides of its
        own is a view, as the frontend infers it: its strides are the
        input's, permuted, so its buffer holds the elements in the input's
        memory order. (An intermediate keeps the compiler's layout.)"""
        out, source = node.outputs.get("OUT_0"), node.inputs.get("input")
        permutation = node.params.get("permutation")
        if out is None or source is None or out.is_virtual or out.stride_assigned or not permutation:
            return
        strides = source.get_stride()
        if len(strides) != len(permutation) or sorted(permutation) != list(range(len(strides))):
            return  # the compiler's verifier names a bad permutation
        out.stride, out.stride_assigned = [strides[axis] for axis in permutation], True

    def _no_dims(self, node: Node, t: Tensor) -> None:
        """Raise for op output ``t`` that the compiler's shape rule gave no
        dims: the rule rejects the inputs (GraphValidationError with its
        diagnostic and the op's line), the library that holds the rules is
        missing (GraphLibraryNotFound), or the dims are the user's."""
        error = _ops.result_dims(node)[1]
        if error is not None:
            diagnostic = error.split("the shape rule fails: ", 1)[-1]
            raise GraphValidationError(
                f"the compiler rejected graph {self.name!r}: output {t.name!r} (uid {t.uid}): {diagnostic} "
                f"(the shape rule of {node.op} node {node.name!r} gives it no dims; dims must be positive and fit the rule)"
                f"\n--- the op ---\n{_op_line(self, node)}"
            )
        if not _capi.has_shape_rules():
            _capi.lib()  # GraphLibraryNotFound, saying where it looked
            raise _capi.GraphLibraryNotFound(f"the loaded {_capi.LIBRARY_NAME} has no shape rules (graphTensorGetDims): rebuild the GraphCAPI target")
        what = {
            "reduction": "the reduced dims",
            "reshape": "the new dims",
            "conv_dgrad": "the conv input's dims (the filter does not give the group count, so DX's dims cannot be inferred)",
            "conv_wgrad": "the filter's dims (the group count and window cannot be inferred from image and loss)",
        }.get(node.op, "its dims")
        raise ValueError(f"output {t.name!r} (uid {t.uid}) of {node.op} node {node.name!r} has no dims: call set_dim() with {what}")

    def _note_unsupported(self, what: str) -> None:
        """Record a frontend feature the compiler cannot model: the builder
        call, validate() and build_operation_graph() succeed (as in the
        frontend) and create_execution_plans() (so build(), check_support(),
        execute()) and to_mlir() raise cudnnGraphNotSupportedError naming it,
        which the frontend's programs treat as 'not supported here' (a skip),
        not as a failure."""
        self.__dict__.setdefault("_unsupported_features", []).append(what)

    def _attach_ragged_offsets(self) -> dict:
        """Ragged (packed THD) tensors an sdpa reads or writes: the node takes
        each tensor's offsets as its ragged_offset_<port> operand (the
        frontend's tensors carry them; the dialect's op does). Returns the
        ids of the tensors only such ports use: a ragged tensor any other op
        reads or writes stays unsupported, since that op would read the
        packed buffer as a padded one: those map to the phrase naming the
        node and port."""
        served, elsewhere = set(), {}
        for node in self._nodes:
            # attached afresh each time: an offset cleared since is gone
            for key in [k for k in node.inputs if k.startswith("ragged_offset_")]:
                del node.inputs[key]
        for node in self._nodes:
            ragged_ports = _ops.RAGGED_PORTS.get(node.op, ())
            for port, t in list(node.inputs.items()) + list(node.outputs.items()):
                if t is None or t.ragged_offset is None or port.startswith("ragged_offset_"):
                    continue
                if port not in ragged_ports:
                    of = node.params.get("stats_log2_of")
                    if of is not None:
                        # the base-2 Stats are a multiply after the attention
                        use = f"sdpa {of!r} writes it with stats_use_log2=True, a pointwise multiply after the attention (node {node.name!r})"
                    else:
                        use = f"{node.op} node {node.name!r} takes it at port {port!r}"
                    elsewhere.setdefault(id(t), use)
                    continue
                offsets = t.ragged_offset
                if not isinstance(offsets, Tensor):
                    raise TypeError(
                        f"tensor {t.name!r}: set_ragged_offset() takes a graph tensor (e.g. graph.tensor_like(offsets)), not {type(offsets).__name__}"
                    )
                # 1-D (B + 1,) offsets (sdpa/fp16.py's) are the [B + 1, 1, 1, 1] form
                _promote_seq_len(offsets)
                node.inputs[f"ragged_offset_{port}"] = offsets
                served.add(id(t))
        return {i: None for i in served if i not in elsewhere} | elsewhere

    def unsupported_features(self) -> List[str]:
        """The features this graph uses that the compiler cannot model (empty
        when it can run); create_execution_plans()/build()/to_mlir() raise
        cudnnGraphNotSupportedError listing them."""
        what = list(self.__dict__.get("_unsupported_features", ()))
        ragged = self._attach_ragged_offsets()
        for t in self._all:
            what.extend(t._unsupported_features(ragged_ok=ragged.get(id(t), "") is None, ragged_use=ragged.get(id(t))))
        return what

    def _raise_if_unsupported(self) -> None:
        what = self.unsupported_features()
        if what:
            raise cudnnGraphNotSupportedError(
                f"graph {self.name!r} uses features the graph compiler does not support: " + "; ".join(what)
            )

    def to_mlir(self) -> str:
        """The graph as graph-dialect MLIR text, as the compiler prints the
        module the C API builder made of it."""
        if self._text is not None:
            return self._text
        builder = self._build()
        try:
            return builder.finish().print()
        except _capi.ParseError:
            # A graph the verifier rejects (validate() says why): the text
            # the builder gave the parser.
            return builder.text()

    def _module_from_builder(self):
        builder = self._build()
        try:
            return builder.finish()
        except _capi.ParseError as exc:
            raise GraphValidationError(f"the compiler rejected graph {self.name!r}:\n{exc}\n--- emitted MLIR ---\n{builder.text()}") from None

    def _build(self):
        """The graph in a C API builder (_capi.Builder), every op added:
        ValueError (and the others its checks raise) for a graph it cannot
        take; GraphValidationError for a call the builder refuses."""
        try:
            return self._build_unchecked()
        except _capi.BuilderError as exc:
            raise GraphValidationError(f"the compiler rejected graph {self.name!r}: {exc}") from None

    def _build_unchecked(self):
        self._raise_if_unsupported()
        self._finalize_dims()
        check = _Checks(self)
        inputs = self._graph_inputs()
        for t in inputs:
            if t.is_virtual:
                raise ValueError(f"tensor {t.name!r} (uid {t.uid}) is virtual but no node produces it")
        outputs = self.get_outputs()
        if not self._nodes:
            raise ValueError("the graph has no operations")
        if not outputs:
            raise ValueError("the graph has no outputs: mark the tensors you read with set_output(True)")
        uids = {}
        for t in inputs + outputs:
            if t.uid in uids and uids[t.uid] is not t:
                raise ValueError(f"uid {t.uid} is used by tensors {uids[t.uid].name!r} and {t.name!r}")
            uids[t.uid] = t
        for t in inputs + outputs:
            check.tensor(t)
        io = dtype_code(self.io_data_type) if self.io_data_type is not None else None
        intermediate = dtype_code(self.intermediate_data_type or data_type.FLOAT)
        cdt = self.compute_data_type if self.compute_data_type is not None and (is_float(self.compute_data_type) or getattr(self, "_integer_compute", False)) else data_type.FLOAT
        builder = _capi.Builder(self.name, io, intermediate, dtype_code(cdt))
        ids = {}

        def tensor(t, strides, uid=True):
            # virtual tensors' uids appear nowhere in the graph: not given
            ids[id(t)] = builder.tensor(dtype_code(self._dtype_of(t)), t.dim, t.stride if strides else None, t.name, t.uid if uid else None)
            return ids[id(t)]

        for t in inputs:
            tensor(t, bool(t.stride) and t.pass_by_value is None)
            # A one-element pass-by-value input is one cuDNN takes by value
            # (graph.by_value): some fused engines read such a scalar on the
            # host and crash on a device pointer. A larger one (tensor_like
            # marks every CPU torch tensor) is read from memory as any input.
            if t.is_pass_by_value and t.pass_by_value is None and math.prod(int(d) for d in t.dim) == 1:
                builder.set_by_value(ids[id(t)])
        for t in outputs:
            builder.set_output(tensor(t, bool(t.stride) and t.stride_assigned and t.pass_by_value is None))
        for node in self._nodes:
            for t in node.all_inputs():
                if t.pass_by_value is not None and id(t) not in ids:
                    dt, v = check.scalar(t)
                    ids[id(t)] = builder.scalar(dtype_code(dt), v, t.dim, t.name, t.uid)
            kind, mode, attrs = _ops._builder_request(node)
            ins = [(port, t) for port, t in node.inputs.items() if t is not None]
            for key, ts in node.list_inputs.items():
                ins.extend((f"{key}_{i}", t) for i, t in enumerate(ts or ()))
            outs = [(port, node.outputs.get(port)) for port in _ops._result_ports(node)]
            outs = [(port, t) for port, t in outs if t is not None]
            for _, t in ins + outs:
                check.tensor(t)
                if id(t) not in ids:
                    tensor(t, bool(t.stride) and t.stride_assigned, uid=False)
            if node.compute_data_type is not None:
                cdt_attr = f"compute_data_type = {mlir_type(node.compute_data_type)}"
                attrs = "{" + (attrs[1:-1] + ", " if attrs else "") + cdt_attr + "}"
            builder.op(kind, mode, node.name, [(_ops._ods_port(p), ids[id(t)]) for p, t in ins], [(_ops._ods_port(p), ids[id(t)]) for p, t in outs], attrs)
        return builder
