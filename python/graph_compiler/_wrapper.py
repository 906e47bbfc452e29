"""``cudnn.Graph``: the cuDNN frontend's high-level graph wrapper, on top of
pygraph.

Build the graph inside a ``with`` block, calling op builders with buffers
(numpy arrays, torch tensors) or graph tensors; leaving the block validates,
plans and builds it. The object is then called with buffers positionally
(after ``set_io_tuples`` or ``inputs=``/``outputs=``) or with one dict keyed
by canonical name (``"node::arg"``), tensor name, uid or graph tensor::

    with Graph(io_data_type=data_type.FLOAT, inputs=["mm::A", "mm::B"], outputs=["mm::C"]) as g:
        c = g.matmul(a, b, name="mm")
        c.set_output(True)
    out = g(a, b)

Buffers need no framework: numpy arrays run on the CPU reference and the
outputs the wrapper allocates are numpy arrays; with a torch tensor among
the inputs the outputs are torch tensors on its device.
"""

import itertools
import logging
import sys
import threading
from collections import OrderedDict
from typing import Any, Dict, List, Optional

from . import _buffers, _capi, _handles
from ._enums import data_type, heur_mode
from ._errors import TorchNotAvailableError
from ._graph import pygraph
from ._tensor import Tensor

logger = logging.getLogger(__name__)

# Handles get_default_handle() made and destroy_default_handle() has not yet
# released; each thread keeps its own handle per device.
_default_handle_registry: List[Any] = []
_default_handles = threading.local()


def _stream_device(stream) -> int:
    # a torch.cuda.Stream names its device; a raw stream runs on the current one
    device = getattr(getattr(stream, "device", None), "index", None)
    return int(device) if device is not None else _handles._current_cuda_device()


def get_default_handle(stream: Any = None):
    """The calling thread's handle for a device (the stream's, else the
    current one), made on first use; a stream given is set on it."""
    device = _stream_device(stream)
    by_device = _default_handles.__dict__.setdefault("by_device", {})
    handle = by_device.get(device)
    if handle is None or handle.destroyed:
        handle = _handles.Handle(ordinal=device)
        by_device[device] = handle
        _default_handle_registry.append(handle)
    if stream is not None:
        _handles.set_stream(handle, stream)
    return handle


def _on_device(device: int):
    # torch's current device too, when torch drives CUDA (on_device alone
    # selects only the C API's, and does nothing without the library)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        return torch.cuda.device(device)
    return _capi.on_device(device)


def _on_cuda(pack) -> bool:
    return any(getattr(buffer, "is_cuda", False) is True for buffer in pack.values())


def destroy_default_handle() -> None:
    """Release every handle get_default_handle() made, each on its own
    device (the current device is restored); one that fails to release
    stays registered for a later call, and the first failure is raised
    after the rest are released."""
    cudnn = sys.modules.get("cudnn")
    destroy = getattr(cudnn, "destroy_handle", None) or _handles.destroy_handle
    registry = _default_handle_registry
    failed, first_error = [], None
    for handle in list(registry):
        try:
            with _on_device(handle.device):
                destroy(handle)
        except Exception as exc:  # keep it for a retry; release the others
            failed.append(handle)
            first_error = first_error or exc
    registry[:] = failed
    if first_error is not None:
        raise first_error

# methods of the graph the wrapper handles itself (build steps, execution,
# plan selection): calling them through the wrapper is an error
_BLOCKED = frozenset(
    [
        "build",
        "build_operation_graph",
        "build_plan_at_index",
        "build_plans",
        "check_support",
        "create_execution_plan",
        "create_execution_plans",
        "deselect_behavior_notes",
        "deselect_engines",
        "deselect_numeric_notes",
        "deselect_workspace_greater_than",
        "execute",
        "execute_plan_at_index",
        "get_behavior_notes",
        "get_behavior_notes_for_plan_at_index",
        "get_engine_count",
        "get_execution_plan_count",
        "get_knobs_for_engine",
        "get_plan_name_at_index",
        "key",
        "populate_cuda_graph",
        "select_behavior_notes",
        "select_numeric_notes",
        "update_cuda_graph",
        "validate",
    ]
)

# methods returned unwrapped (no node bookkeeping)
_PASS_THROUGH = frozenset(
    [
        "get_workspace_size",
        "get_workspace_size_plan_at_index",
        "serialize",
        "deserialize",
        "query_tensor_attributes_of_uid",
        "find_tensor",
        "to_mlir",
        "inspect",
        "get_inputs",
        "get_outputs",
    ]
)

# tensor makers: their results are kept as caller-made tensors
_TENSOR_MAKERS = frozenset(["tensor", "tensor_like", "tensor_scalar"])

# graph data type -> (numpy dtype name, torch dtype name) of an output buffer
_BUFFER_DTYPES = {
    data_type.FLOAT: ("float32", "float32"),
    data_type.HALF: ("float16", "float16"),
    data_type.DOUBLE: ("float64", "float64"),
    data_type.BFLOAT16: ("uint16", "bfloat16"),  # numpy: raw bf16 bits
    data_type.INT8: ("int8", "int8"),
    data_type.UINT8: ("uint8", "uint8"),
    data_type.INT32: ("int32", "int32"),
    data_type.INT64: ("int64", "int64"),
    data_type.BOOLEAN: ("bool", "bool"),
}


def _is_buffer(obj) -> bool:
    """A framework buffer the wrapper turns into a graph tensor."""
    if isinstance(obj, Tensor):
        return False
    return (
        hasattr(obj, "__dlpack__")
        or hasattr(obj, "__array_interface__")
        or hasattr(obj, "__cuda_array_interface__")
    )


def _describe(t: Tensor) -> str:
    return f"tensor {t.get_name()!r} (uid {t.get_uid()})"


class Graph:
    """The frontend's ``cudnn.Graph``: a context manager that builds a
    pygraph, then validates, plans and builds it on exit, allocates its
    workspace and maps buffers to graph tensors when called.

    Keyword arguments: ``handle`` (passed to execute; "auto" or None: none),
    ``inputs``/``outputs`` (the positional order, as set_io_tuples takes),
    ``heuristics`` (default [heur_mode.A, heur_mode.FALLBACK]),
    ``workspace_alloc`` (False: every call must pass ``workspace=``); the
    rest go to pygraph (io_data_type, compute_data_type, name, ...).
    """

    def __init__(
        self,
        *,
        handle: Any = None,
        inputs: Optional[List[Any]] = None,
        outputs: Optional[List[Any]] = None,
        heuristics: Optional[List[Any]] = None,
        workspace_alloc: bool = True,
        **kwargs,
    ) -> None:
        for what, value in (("inputs", inputs), ("outputs", outputs), ("heuristics", heuristics)):
            if value is not None and not isinstance(value, (list, tuple)):
                raise ValueError(f"Graph({what}=...) must be a list or tuple, got {type(value).__name__}")
        self.__kwargs = kwargs
        self.__graph: Optional[pygraph] = None
        self.__built = False
        self.__tensor_map: Dict[int, Tensor] = {}  # id(buffer) -> graph tensor
        self.__buffers: Dict[int, Any] = {}  # id(buffer) -> buffer (keeps ids valid)
        self.__tensor_in: "OrderedDict[str, Tensor]" = OrderedDict()  # "node::arg" -> tensor
        self.__tensor_out: "OrderedDict[str, Tensor]" = OrderedDict()  # name -> tensor
        self.__tensor_unknown: List[Tensor] = []  # made by tensor()/tensor_like()
        self.__node_count: Dict[str, int] = {}
        self.__node_names: set = set()
        self.__input_tuples = None
        self.__output_tuples = None
        self.__inputs = list(inputs or [])
        self.__outputs = list(outputs or [])
        self.__heuristics = list(heuristics or [heur_mode.A, heur_mode.FALLBACK])
        self.__handle = handle
        self.__workspace: Any = None if workspace_alloc else False

    # ------------------------------------------------------------------
    # Building
    # ------------------------------------------------------------------

    def __enter__(self) -> "Graph":
        if self.__graph is not None:
            raise RuntimeError("Graph already created: a Graph is built once (make a new Graph)")
        kwargs = dict(self.__kwargs)
        if self.__handle not in ("auto", None):
            kwargs["handle"] = self.__handle
        self.__graph = pygraph(**kwargs)
        return self

    def __exit__(self, exc_type, exc_value, tb):
        if exc_type is not None:
            logger.error("Exception during graph construction: %s", exc_value)
            self.__graph = None
            return False
        g = self.__graph
        g.validate()
        g.build_operation_graph()
        g.create_execution_plans(self.__heuristics)
        g.check_support()
        g.build_plans()
        self.__built = True
        if self.__workspace is None:
            self.__workspace = self.__alloc_workspace(g.get_workspace_size())
        if self.__inputs or self.__outputs:
            self.set_io_tuples(self.__inputs, self.__outputs)
        logger.debug("Inputs: %s", list(self.__tensor_in))
        logger.debug("Outputs: %s", list(self.__tensor_out))
        return False

    @staticmethod
    def __alloc_workspace(size: int):
        torch = _torch()
        if torch is not None and torch.cuda.is_available():
            return torch.empty(size, device="cuda", dtype=torch.uint8)
        import numpy

        return numpy.empty(size, dtype=numpy.uint8)

    def __graph_tensor(self, buffer) -> Tensor:
        key = id(buffer)
        if key not in self.__tensor_map:
            self.__buffers[key] = buffer
            if getattr(buffer, "requires_grad", False):
                buffer = buffer.detach()
            self.__tensor_map[key] = self.__graph.tensor_like(buffer)
        return self.__tensor_map[key]

    def __convert(self, node_name: str, where: str, obj):
        """A buffer becomes its graph tensor; graph tensors are recorded as
        inputs of the node under "node::where"; tuples (sdpa's dropout) are
        converted element by element."""
        if isinstance(obj, tuple):
            items = list(obj)
            for j, elem in enumerate(items):
                if _is_buffer(elem):
                    items[j] = self.__graph_tensor(elem)
                if isinstance(items[j], Tensor):
                    self.__tensor_in[f"{node_name}::{where}::{j}"] = items[j]
            return tuple(items)
        if _is_buffer(obj):
            obj = self.__graph_tensor(obj)
        if isinstance(obj, Tensor):
            self.__tensor_in[f"{node_name}::{where}"] = obj
        return obj

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_Graph__") or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(name)
        g = self.__dict__.get("_Graph__graph")
        if g is None:
            raise RuntimeError(f"Graph.{name}: the graph is not created; build it inside 'with cudnn.Graph(...) as g:'")
        attr = getattr(g, name)
        if name in _PASS_THROUGH:
            return attr
        if name in _BLOCKED:
            raise RuntimeError(f"Calling {name} via wrapper is not allowed (cudnn.Graph validates, plans and builds on leaving the with block, and executes when called)")
        if not callable(attr):
            return attr
        if name in _TENSOR_MAKERS:

            def make_tensor(*args, **kwargs):
                out = attr(*args, **kwargs)
                self.__tensor_unknown.append(out)
                return out

            return make_tensor

        def node(*args, **kwargs):
            if self.__built:
                raise RuntimeError(f"Graph.{name}: the graph is already built; add nodes inside the with block")
            count = self.__node_count.get(name, 0)
            self.__node_count[name] = count + 1
            node_name = kwargs.get("name") or f"{name}.{count}"
            kwargs["name"] = node_name
            if node_name in self.__node_names:
                raise ValueError(f"Node name {node_name!r} already used")
            self.__node_names.add(node_name)
            args = [self.__convert(node_name, str(i), a) for i, a in enumerate(args)]
            kwargs = {k: (v if k == "name" else self.__convert(node_name, k, v)) for k, v in kwargs.items()}
            output = attr(*args, **kwargs)
            outs = [output] if isinstance(output, Tensor) else list(output) if isinstance(output, (list, tuple)) else []
            for i, t in enumerate(outs):
                if isinstance(t, Tensor):
                    self.__tensor_out[t.get_name() or f"{node_name}::{i}"] = t
            return output

        return node

    # ------------------------------------------------------------------
    # I/O order
    # ------------------------------------------------------------------

    def __find(self, key, table: Dict[str, Tensor]) -> Optional[str]:
        """The key of ``table`` that ``key`` (canonical name, tensor name,
        uid, graph tensor or a buffer used to build the graph) names."""
        if isinstance(key, str):
            if key in table:
                return key
            for k, t in table.items():
                if t.get_name() == key:
                    return k
        elif isinstance(key, int) and not isinstance(key, bool):
            for k, t in table.items():
                if t.get_uid() == key:
                    return k
        elif isinstance(key, Tensor):
            for k, t in table.items():
                if t is key:
                    return k
        elif _is_buffer(key) and id(key) in self.__tensor_map and self.__buffers.get(id(key)) is key:
            want = self.__tensor_map[id(key)]
            for k, t in table.items():
                if t is want:
                    return k
        return None

    def set_io_tuples(self, inputs: List[Any], outputs: List[Any]) -> None:
        """The order of buffers for a positional call and of the outputs it
        returns. Each entry is a canonical name ("node::arg"), a tensor name,
        a uid, a graph tensor or a buffer used to build the graph; every
        non-virtual tensor must be listed. Before the with block ends the
        lists are kept and applied when it does."""
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"set_io_tuples: inputs must be a list or tuple, got {type(inputs).__name__}")
        if not isinstance(outputs, (list, tuple)):
            raise ValueError(f"set_io_tuples: outputs must be a list or tuple, got {type(outputs).__name__}")
        if not self.__built:
            self.__inputs, self.__outputs = list(inputs), list(outputs)
            return
        found = set()

        def resolve(kind, i, key, table):
            if isinstance(key, Tensor) and any(key is t for t in self.__tensor_unknown) and not any(key is t for t in table.values()):
                t = key
            else:
                k = self.__find(key, table)
                if k is None:
                    raise ValueError(f"{kind} at index {i} ({key!r}) not found in tensor map (known: {sorted(table)})")
                t = table[k]
            if id(t) in found:
                raise ValueError(f"{kind} at index {i} ({key!r}) is a duplicate")
            found.add(id(t))
            return t

        ins = [resolve("Input", i, k, self.__tensor_in) for i, k in enumerate(inputs)]
        outs = [resolve("Output", i, k, self.__tensor_out) for i, k in enumerate(outputs)]
        for i, t in enumerate(ins):
            if t.get_is_virtual():
                raise ValueError(f"Input at index {i} is a virtual tensor: {_describe(t)}")
        for i, t in enumerate(outs):
            if t.get_is_virtual():
                raise ValueError(f"Output at index {i} is a virtual tensor (call set_output(True) on it): {_describe(t)}")
        for name, t in self.__tensor_out.items():
            if not t.get_is_virtual() and not any(t is o for o in outs):
                raise ValueError(f"Node output {name} is a non-virtual tensor but not specified as output")
        for name, t in self.__tensor_in.items():
            if not t.get_is_virtual() and not t.get_is_pass_by_value() and id(t) not in found:
                raise ValueError(f"Node input {name} is a non-virtual tensor but not specified as input or output")
        self.__input_tuples = tuple(ins)
        self.__output_tuples = tuple(outs)

    # ------------------------------------------------------------------
    # Execution
    # ------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        """``g(x, w, ...)`` after set_io_tuples: returns the output (one) or
        a list of outputs, freshly allocated. ``g({key: buffer, ...})``:
        fills the dict's missing outputs with fresh buffers under their
        canonical names and returns the dict. Keywords (workspace, handle)
        go to execute."""
        if self.__graph is None:
            raise RuntimeError("Graph not created")
        if not self.__built:
            raise RuntimeError("You should not invoke the graph before the context exits")
        if len(args) == 1 and isinstance(args[0], dict):
            return self.__call_dict(args[0], **kwargs)
        if not self.__input_tuples and self.__output_tuples is None:
            raise ValueError("You should not invoke the graph with positional arguments before running set_io_tuples()")
        if len(args) != len(self.__input_tuples):
            raise ValueError(f"Number of arguments ({len(args)}) does not match number of inputs ({len(self.__input_tuples)}: {[t.get_name() for t in self.__input_tuples]})")
        pack = {t: buf for t, buf in zip(self.__input_tuples, args)}
        outs = [self.__alloc_like(t, args) for t in self.__output_tuples]
        pack.update(zip(self.__output_tuples, outs))
        self.__execute(pack, kwargs)
        return outs[0] if len(outs) == 1 else outs

    def __call_dict(self, tensor_dict: dict, **kwargs) -> dict:
        pack: Dict[Tensor, Any] = {}
        missing: Dict[int, Any] = {}  # id(tensor) -> (name, tensor)
        for name, t in itertools.chain(self.__tensor_in.items(), self.__tensor_out.items()):
            if t in pack or t.get_is_virtual():
                continue
            buf = self.__extract(name, t, tensor_dict)
            if buf is None:
                if t.get_is_pass_by_value() and getattr(t, "pass_by_value", None) is not None:
                    continue  # a tensor_scalar: its value is part of the graph
                missing.setdefault(id(t), (name, t))
                continue
            if not _is_buffer(buf) and not t.get_is_pass_by_value():
                raise RuntimeError(f"Tensor {name} is not provided as a buffer (got {type(buf).__name__})")
            pack[t] = buf
        missing_inputs = []
        for name, t in missing.values():
            if t in pack:
                continue
            if name in self.__tensor_out:
                pack[t] = tensor_dict[name] = self.__alloc_like(t, list(tensor_dict.values()))
            else:
                missing_inputs.append(name)
        if missing_inputs:
            raise RuntimeError(f"Non-virtual input tensors not found in variant pack: {missing_inputs}")
        self.__execute(pack, kwargs)
        return tensor_dict

    @staticmethod
    def __extract(name: str, t: Tensor, tensor_dict: dict):
        for key in (name, t, t.get_name(), t.get_uid()):
            try:
                if key in tensor_dict:
                    return tensor_dict[key]
            except TypeError:
                continue
        return None

    def __execute(self, pack, kwargs) -> None:
        kwargs = dict(kwargs)
        if "handle" not in kwargs and self.__handle is not None:
            if self.__handle != "auto":
                kwargs["handle"] = self.__handle
            elif _on_cuda(pack):
                kwargs["handle"] = get_default_handle()
        if "workspace" not in kwargs:
            if self.__workspace is False:
                raise RuntimeError("Need to specify workspace to execute graph (Graph(workspace_alloc=False) was given)")
            kwargs["workspace"] = self.__workspace
        self.__graph.execute(pack, **kwargs)

    def __alloc_like(self, t: Tensor, buffers):
        """A buffer with ``t``'s dims, strides and data type: a torch tensor
        on the device of the first torch tensor among ``buffers`` (on the
        current CUDA device when the buffers are other device arrays), else
        a numpy array."""
        dt = t.get_data_type()
        if dt is None or getattr(dt, "name", "") == "NOT_SET":
            dt = self.__graph._dtype_of(t)  # the type the graph gives an unset output
        names = _BUFFER_DTYPES.get(dt)
        if names is None:
            raise TypeError(f"cudnn.Graph cannot allocate output {_describe(t)}: no buffer type for data type {getattr(dt, 'name', dt)}; pass the output in the dict")
        dims, strides = list(t.get_dim()), list(t.get_stride())
        like = next((b for b in buffers if _buffers.is_torch_tensor(b)), None)
        if like is not None:
            torch = _torch()
            return torch.empty_strided(dims, strides, dtype=getattr(torch, names[1]), device=like.device)
        # Other device arrays (CuPy, anything with __cuda_array_interface__):
        # the output is a torch tensor on the current CUDA device, as the
        # frontend's wrapper returns; numpy only when torch cannot hold it.
        if any(hasattr(b, "__cuda_array_interface__") for b in buffers):
            torch = _torch()
            if torch is None:
                raise TorchNotAvailableError(f"cudnn.Graph allocates output {_describe(t)} with torch, which is not installed; pass the output in the dict")
            if not torch.cuda.is_available():
                raise RuntimeError(f"cudnn.Graph cannot allocate output {_describe(t)} on the GPU without torch; pass the output in the dict")
            return torch.empty_strided(dims, strides, dtype=getattr(torch, names[1]), device=torch.device("cuda", torch.cuda.current_device()))
        import numpy

        dtype = numpy.dtype(names[0])
        flat = numpy.empty(max(_buffers.span_elements(dims, strides), 1), dtype=dtype)
        return numpy.lib.stride_tricks.as_strided(flat, shape=dims, strides=[s * dtype.itemsize for s in strides])

    # ------------------------------------------------------------------
    # Introspection (this package's additions)
    # ------------------------------------------------------------------

    @property
    def graph(self) -> Optional[pygraph]:
        """The underlying pygraph."""
        return self.__graph

    @property
    def input_names(self) -> List[str]:
        """Canonical names ("node::arg") of every node input seen."""
        return list(self.__tensor_in)

    @property
    def output_names(self) -> List[str]:
        """Names of every node output seen."""
        return list(self.__tensor_out)

    def __repr__(self) -> str:
        state = "built" if self.__built else "building" if self.__graph is not None else "not created"
        return f"<cudnn.Graph {state}, {len(self.__node_names)} nodes>"


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch
