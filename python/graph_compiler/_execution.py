"""Execution: variant packs (tensors, names or uids to buffers; the
ordered form with tensor_uids), workspace checks and lending, shape
overrides, the repeated-pack fast path, the C call on the handle's device
and stream, and CUDA graph population. pygraph (_graph.py) inherits
_GraphExecution."""

import contextlib
import sys

from . import _buffers, _capi, _plans, _variants
from ._variants import OverrideStrideWarning  # noqa: F401 (re-exported)
from ._enums import data_type, dtype_code, from_code
from ._errors import _status_error, cudnnGraphNotSupportedError
from ._handles import _CU_STREAM_LEGACY, _RUNTIME_SETTINGS, Handle, _applied_streams, _apply_handle_stream, _apply_stream, _current_cuda_device
from ._tensor import Tensor, check_int

_NO_LOCK = contextlib.nullcontext()  # the CPU reference holds no device state


class _GraphExecution:
    """pygraph's execute and CUDA graph population (mixed into pygraph)."""

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
        if not self._is_built:
            self.build()
        if override_uids is not None or override_shapes is not None or override_strides is not None or self._dynamic_shapes:
            variant = self._shape_variant("execute", tensor_dict, override_uids, override_shapes, override_strides)
            if variant is not None:
                lent = _variants.workspace_for(self, variant, workspace, variant._plan_index)
                variant.execute(_variants.by_uid(self, tensor_dict), lent, handle=handle)
                return
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
        self._check_plan_index(index)
        variant = self._shape_variant("execute_plan_at_index", tensor_dict, override_uids, override_shapes, override_strides)
        if variant is not None:
            at = _variants.plan_index_of(self, variant, index)
            lent = _variants.workspace_for(self, variant, workspace, at)
            variant.execute_plan_at_index(_variants.by_uid(self, tensor_dict), lent, at, handle=handle)
            return
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
            if workspace < 0:
                raise ValueError(f"execute(workspace={workspace}): a device pointer is an address, never negative")
            have = None  # a raw pointer: no size to check
            pointer = workspace
        else:
            have = _buffers.workspace_bytes(workspace)
            if have is None:
                raise TypeError(f"execute(workspace=...): expected a buffer (torch tensor, numpy array) or a device pointer, got {type(workspace).__name__}")
            if _buffers.is_torch_tensor(workspace) and workspace.device.type == "cuda":
                pointer = int(workspace.data_ptr())
        if have is not None and have < need:
            raise ValueError(f"execute(workspace=...): plan {index} ({self._plans[index].name!r}) of graph {self.name!r} needs {need} workspace bytes, the buffer holds {have}")
        if not pointer:
            return None
        # A raw pointer's size is unknown: lend what the plan asks for.
        return pointer, have if have is not None else need

    def _run_lending(self, lend, tensor_dict, index=None, handle=None) -> None:
        """_run with the caller's workspace lent to the GPU runtime (lend:
        _check_workspace's answer), returned to the runtime afterwards."""
        # The lent workspace is the calling thread's (the runtime keeps it
        # per thread): no lock needed.
        if lend is None or not _capi.lend_workspace(*lend):
            if lend is not None and self._plans and self._plans[self._plan_index if index is None else index].workspace > 0:
                self._warn_once("workspace", f"graph {self.name!r}: the loaded library cannot take a workspace (graphSetWorkspace); the GPU runtime uses its own")
            self._run(tensor_dict, index, handle=handle)
            return
        try:
            self._run(tensor_dict, index, handle=handle)
        finally:
            _capi.lend_workspace(0, 0)

    def _shape_variant(self, what, tensor_dict, override_uids, override_shapes, override_strides):
        """The variant of this graph (_variants.py) that runs this execute,
        or None when it runs at the graph's own shapes: the shapes the
        overrides give, else on a dynamic-shape graph (a kernel cache,
        is_dynamic_shape_enabled) those of buffers too small for their
        declared tensors."""
        changes = _variants.from_overrides(self, what, override_uids, override_shapes, override_strides)
        if changes:
            return _variants.variant(self, changes)
        if tensor_dict is not None and self._dynamic_shapes and self._io_info is not None:
            changes = _variants.from_buffers(self, {self._uid_of_key(k): v for k, v in tensor_dict.items() if k is not None})
            if changes:
                return _variants.variant(self, changes, or_declared=True)
        return None

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
        written = []  # the output Bounds
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
            t = getattr(self, "_tensor_by_uid", {}).get(uid)
            b = _buffers.bind(
                uid,
                name,
                dt,
                dims,
                strides,
                is_out,
                data,
                also=getattr(t, "declared_view", None),
                ragged=getattr(t, "ragged_offset", None) is not None,
            )
            if b.staged is not None:
                sig = None  # a stand-in is filled anew for every execute
            bound.append(b)
            # A ragged output's buffer holds only its packed tokens, not the
            # padded span bound here; a staged one runs on its own stand-in.
            if is_out and b.staged is None and getattr(t, "ragged_offset", None) is None:
                written.append(b)
        _buffers.warn_shared_outputs(written)
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
        gpu = device == _capi.GRAPH_DEVICE_GPU
        with _RUNTIME_SETTINGS if gpu else _NO_LOCK, _capi.on_device(ordinal if gpu else None):
            if handle is not None:
                _apply_handle_stream(handle)
            elif device == _capi.GRAPH_DEVICE_GPU:
                # No handle: the frontend's default handle, on the legacy
                # default stream, after the caller's work queued there.
                _apply_stream(_current_cuda_device() if ordinal is None else ordinal, _CU_STREAM_LEGACY)
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
        def run_on(stream):
            capture_handle = Handle(ordinal=device)
            capture_handle._raw_stream = stream
            self.execute(variant_pack, workspace, handle=capture_handle)

        if not self._is_built:
            self.build()  # not under the lock below: other threads' executes go on
        with _RUNTIME_SETTINGS:  # the capture stream is the device's meanwhile
            previous = _applied_streams.get(device, 0)
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
