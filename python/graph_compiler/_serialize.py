"""The graph as text and bytes: from_mlir (text, an artifact, MLIR
bytecode), lower_to_executable, serialize/deserialize, key(), inspect()
and repr. pygraph (_graph.py) inherits _GraphSerialization."""

import hashlib
import json
from typing import TYPE_CHECKING, Any, Dict, Optional

from . import _capi
from ._enums import from_code
from ._errors import GraphValidationError, _status_error
from ._tensor import Tensor

if TYPE_CHECKING:  # annotations only (_graph imports this module)
    from ._graph import pygraph


_SERIAL_MAGIC = b"GRAPHPY1\n"
_BYTECODE_MAGIC = b"ML\xefR"  # MLIR bytecode files start with it


def _serialized_bytes(data) -> bytes:
    """deserialize()'s data as bytes: bytes, bytearray, memoryview, str, or
    a list/tuple of byte values (the frontend's form)."""
    if isinstance(data, (bytes, bytearray, memoryview)):
        return bytes(data)
    if isinstance(data, str):
        try:
            return data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise GraphValidationError(f"deserialize(): the str cannot be encoded as UTF-8: {exc}") from None
    if isinstance(data, (list, tuple)):
        for i, v in enumerate(data):
            if isinstance(v, bool) or not isinstance(v, int):
                raise TypeError(f"deserialize(): data[{i}] must be a byte value (int), got {type(v).__name__} {v!r}")
            if not 0 <= v < 256:
                raise GraphValidationError(f"deserialize(): data[{i}] is {v}: a list of data holds byte values 0..255")
        return bytes(data)
    raise TypeError(f"deserialize() takes what serialize() returned (bytes, bytearray, memoryview, str or a list of byte values), got {type(data).__name__}")


class _GraphSerialization:
    """pygraph's text round trips, serialization and inspection (mixed into pygraph)."""

    # =========================================================================
    # Text round trips, serialization, inspection
    # =========================================================================

    def key(self, *args, **kwargs) -> int:
        """A cache key of the graph: equal for graphs with equal text."""
        digest = hashlib.sha256(self.to_mlir().encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "little") & 0x7FFFFFFFFFFFFFFF

    @classmethod
    def from_mlir(cls, text, name: Optional[str] = None) -> "pygraph":
        """A graph holding ``text`` verbatim (one graph.graph; with several,
        ``name`` selects one). Its inputs and outputs become tensors, so
        execute() takes buffers keyed by them, their names or their uids.
        ``text`` may also be a compiled artifact (exec.program, e.g. from
        lower_to_executable()), as text or as MLIR bytecode (bytes)."""
        if name is not None and not isinstance(name, str):
            raise TypeError(f"from_mlir(name=...) takes the name of a graph.graph (str), got {type(name).__name__}")
        if isinstance(text, (bytes, bytearray, memoryview)):
            data = bytes(text)
            if data.startswith(_BYTECODE_MAGIC):
                # Keep the graph's text form: print the parsed bytecode.
                try:
                    text = _capi.Module(data).print()
                except _capi.ParseError as exc:
                    raise GraphValidationError(f"the compiler rejected the MLIR bytecode given to from_mlir():\n{exc}") from None
                except UnicodeDecodeError as exc:
                    raise GraphValidationError(f"from_mlir(): the MLIR bytecode prints as text that is not UTF-8: {exc}") from None
            else:
                try:
                    text = data.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise GraphValidationError(f"from_mlir(): the bytes are neither MLIR bytecode nor UTF-8 text: {exc}") from None
        elif not isinstance(text, str):
            raise TypeError(f"from_mlir() takes MLIR text (str) or bytes (text or MLIR bytecode), got {type(text).__name__}")
        g = cls(name=name or "test_graph")
        g._text = text
        g.validate()
        if name is not None:
            if g._module.select(name) != _capi.GRAPH_OK:
                raise GraphValidationError(f"from_mlir(): no graph named {name!r} in the text: {_capi.last_error()}")
            g._io_info = (g._module.inputs(), g._module.outputs())
            g._adopt_text_tensors()
        else:
            names = g._module.graph_names()
            if names:
                g.name = names[0]
        g._frozen = True
        return g

    def _adopt_text_tensors(self):
        self._all, self._tensors, self._ambiguous_names, self._tensor_by_uid = [], {}, set(), {}
        ins, outs = self._io_info
        for info, is_out in [(i, False) for i in ins] + [(o, True) for o in outs]:
            t = Tensor(name=info["name"], dim=info["dims"], stride=[s for s in info["strides"]] if any(info["strides"]) else None, data_type=from_code(info["dtype_code"]))
            t.uid, t.uid_assigned = info["uid"], True
            t.dim_assigned = True
            if is_out:
                t.producer = (None, "text")
            self._register(t)

    def lower_to_executable(self, bytecode: bool = False):
        """The graph compiled to an AOT artifact (one ``exec.program``, the
        module graphModuleLowerToExecutable returns): its MLIR text, or with
        ``bytecode=True`` its MLIR bytecode (bytes). Lowering runs the GPU
        pipeline (prepare, fuse, engine selection) on a copy of the graph's
        current state and needs no GPU; the graph itself is unchanged.
        ``pygraph.from_mlir`` loads either form back (an artifact executes
        only on the GPU).

        Raises GraphValidationError when the graph does not verify,
        cudnnGraphNotSupportedError when the pipeline or the lowering
        rejects it (e.g. an op no GPU engine runs), ValueError for a graph
        that already is a compiled artifact; the message names the graph and
        carries the C API's message."""
        self.validate()
        try:
            artifact = self._module.lower_to_executable()
        except _capi.LowerError as exc:
            raise _status_error(exc.status, f"lowering graph {self.name!r} to an executable artifact failed", str(exc)) from None
        return artifact.bytecode() if bytecode else artifact.print()

    def serialize(self) -> bytes:
        """Bytes that ``deserialize`` turns back into an executable graph: the
        MLIR text with the graph's name and plan selection."""
        text = self.to_mlir()
        header = {"name": self.name, "plan_index": self._plan_index}
        # The plan's name too: a GPU list's order may differ in another
        # process (large groups are ranked by time), its names do not.
        if self._plans and 0 <= self._plan_index < len(self._plans):
            header["plan_name"] = self._plans[self._plan_index].name
        return _SERIAL_MAGIC + json.dumps(header).encode() + b"\n" + text.encode("utf-8")

    def deserialize(self, *args, **kwargs) -> None:
        """Load what serialize() produced ((data) or (handle, data)): bytes,
        bytearray, memoryview, str, or a list of byte values. A wrong type
        raises TypeError; data that is not a serialized graph raises
        GraphValidationError (a ValueError) and leaves the graph as it was."""
        # The frontend's keywords: deserialize(handle_, pyobj, enforce_precompiled=False)
        # and deserialize(pyobj, enforce_precompiled=False).
        kwargs.pop("enforce_precompiled", None)
        kwargs.pop("handle_", None)
        kwargs.pop("handle", None)
        if "pyobj" in kwargs:
            args = tuple(args) + (kwargs.pop("pyobj"),)
        if kwargs:
            raise TypeError(f"deserialize() got unexpected arguments {sorted(kwargs)}")
        if not args:
            raise TypeError("deserialize() needs the serialized data")
        data = _serialized_bytes(args[-1])
        if not data.startswith(_SERIAL_MAGIC):
            raise GraphValidationError("deserialize(): not data from serialize() (bad header: it does not start with the GRAPHPY1 magic line)")
        rest = data[len(_SERIAL_MAGIC):]
        header_line, sep, body = rest.partition(b"\n")
        if not sep:
            raise GraphValidationError("deserialize(): truncated data: no graph text after the header line")
        try:
            header = json.loads(header_line.decode("utf-8"))
        except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
            raise GraphValidationError(f"deserialize(): the header line is not JSON from serialize(): {type(exc).__name__}: {exc}") from None
        if not isinstance(header, dict):
            raise GraphValidationError(f"deserialize(): the header line must be a JSON object, got {type(header).__name__}")
        name = header.get("name", self.name)
        if not isinstance(name, str) or not name:
            raise GraphValidationError(f"deserialize(): the header's name must be a non-empty str, got {name!r}")
        index = header.get("plan_index", 0)
        if isinstance(index, bool) or not isinstance(index, int):
            raise GraphValidationError(f"deserialize(): the header's plan_index must be an int, got {index!r}")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise GraphValidationError(f"deserialize(): the graph text is not UTF-8: {exc}") from None
        if self._nodes:
            raise RuntimeError("deserialize() into a graph that already has ops; use a fresh graph")
        # A graph that holds what an earlier deserialize() loaded takes the new
        # graph in its place, as the frontend's does: its plans, built state
        # and run cache go with the old one (the caller's plan filters, e.g.
        # deselect_engines, stay); a load that fails leaves the old one.
        saved = {k: getattr(self, k, None) for k in ("name", "_text", "_is_validated", "_module") + self._PLANNING_STATE}
        self.name, self._text, self._is_validated, self._module = name, text, False, None
        self._reset_planning_state()
        try:
            self.validate()
            self.build_operation_graph()
            self.create_execution_plans()
            names = [p.name for p in self._plans]
            plan_name = header.get("plan_name")
            if isinstance(plan_name, str) and plan_name in names:
                self._plan_index = names.index(plan_name)
            elif 0 <= index < len(self._plans):
                self._plan_index = index
            self.build_plans()
        except BaseException:
            for k, v in saved.items():
                setattr(self, k, v)
            raise

    def inspect(self) -> Dict[str, Any]:
        return {
            "context": {
                "name": self.name,
                "io_data_type": str(self.io_data_type),
                "intermediate_data_type": str(self.intermediate_data_type),
                "compute_data_type": str(self.compute_data_type),
            },
            "nodes": [
                {
                    "name": n.name,
                    "type": n.op if n.op != "pointwise" else n.params.get("mode"),
                    "inputs": {**{k: v.name for k, v in n.inputs.items() if v is not None}, **{k: [t.name for t in v] for k, v in n.list_inputs.items()}},
                    "outputs": {k: v.name for k, v in n.outputs.items() if v is not None},
                    "params": {k: (v if isinstance(v, (int, float, str, bool, list, tuple)) else str(v)) for k, v in n.params.items()},
                }
                for n in self._nodes
            ],
            "tensors": {
                t.name: {"dim": list(t.dim), "stride": t.get_stride(), "dtype": str(t.data_type), "is_virtual": t.is_virtual, "uid": t.uid}
                for t in self._all
                if t.name in self._tensors
            },
        }

    def __repr__(self) -> str:
        return json.dumps(self.inspect(), default=str, indent=2)
