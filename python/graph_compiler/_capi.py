"""ctypes binding of the compiler's C API (include/GraphDialect-c/Graph.h).

The library is looked up at first use, never at import: the package imports
and builds graphs on a machine without it (the dims of op outputs, which the
compiler's shape rules give, and everything after wait for it). Lookup order:

1. the environment variable ``GRAPH_CAPI_LIBRARY`` (a path to the .so): an
   explicit override, it wins and nothing else is tried;
2. ``libGraphCAPI.so`` next to this file: the copy an installed package
   carries (``pip install ./python`` or ``cmake --install``, see
   python/README.md);
3. ``build/lib/libGraphCAPI.so`` of the repository, when the package runs
   from a checkout (``<repo>/python/graph_compiler``).
"""

import ctypes
import os
import threading

GRAPH_OK = 0
GRAPH_ERROR_INVALID_ARGUMENT = 1
GRAPH_ERROR_INVALID_GRAPH = 2
GRAPH_ERROR_NOT_SUPPORTED = 3
GRAPH_ERROR_EXECUTION = 4
GRAPH_ERROR_NO_DEVICE = 5

STATUS_NAMES = {
    0: "GRAPH_OK",
    1: "GRAPH_ERROR_INVALID_ARGUMENT",
    2: "GRAPH_ERROR_INVALID_GRAPH",
    3: "GRAPH_ERROR_NOT_SUPPORTED",
    4: "GRAPH_ERROR_EXECUTION",
    5: "GRAPH_ERROR_NO_DEVICE",
}

GRAPH_DEVICE_CPU = 0
GRAPH_DEVICE_GPU = 1
MAX_RANK = 8


class GraphTensorInfo(ctypes.Structure):
    _fields_ = [
        ("uid", ctypes.c_int64),
        ("name", ctypes.c_char_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
        ("hasUid", ctypes.c_int32),
    ]


class GraphBuffer(ctypes.Structure):
    _fields_ = [
        ("uid", ctypes.c_int64),
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int),
        ("rank", ctypes.c_int32),
        ("dims", ctypes.c_int64 * MAX_RANK),
        ("strides", ctypes.c_int64 * MAX_RANK),
    ]


class GraphLibraryNotFound(RuntimeError):
    """libGraphCAPI.so could not be found or loaded."""


LIBRARY_NAME = "libGraphCAPI.so"


def default_library_paths():
    """The places looked at without GRAPH_CAPI_LIBRARY, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(here, LIBRARY_NAME)]
    parent = os.path.dirname(here)
    repo = os.path.dirname(parent)
    # Only a checkout's python/ folder has a build/ beside it; an installed
    # package's grandparent is someone else's folder.
    if os.path.basename(parent) == "python" and os.path.isfile(os.path.join(repo, "CMakeLists.txt")):
        paths.append(os.path.join(repo, "build", "lib", LIBRARY_NAME))
    return paths


def library_path():
    """The path the package would load, or None when nothing is there."""
    env = os.environ.get("GRAPH_CAPI_LIBRARY")
    if env:
        return env if os.path.exists(env) else None
    for path in default_library_paths():
        if os.path.exists(path):
            return path
    return None


_lock = threading.Lock()
_lib = None
_lib_path = None
_context = None


def loaded_library_path():
    """The path of the library this process loaded, or None before the first
    load (library_path() is where the next first load would look)."""
    return _lib_path


def _declare(lib):
    c = ctypes
    vp = c.c_void_p
    sig = {
        "graphGetLastError": (c.c_char_p, []),
        "graphContextCreate": (vp, []),
        "graphContextDestroy": (None, [vp]),
        "graphModuleParse": (vp, [vp, c.c_char_p, c.c_size_t]),
        "graphModuleDestroy": (None, [vp]),
        "graphModuleNumGraphs": (c.c_int32, [vp]),
        "graphModuleGraphName": (c.c_char_p, [vp, c.c_int32]),
        "graphModuleSelect": (c.c_int, [vp, c.c_char_p]),
        "graphModulePrepare": (c.c_int, [vp]),
        "graphModulePrint": (vp, [vp, c.c_int, c.POINTER(c.c_size_t)]),
        "graphModuleWriteBytecode": (vp, [vp, c.POINTER(c.c_size_t)]),
        "graphFree": (None, [vp]),
        "graphNumInputs": (c.c_int32, [vp]),
        "graphNumOutputs": (c.c_int32, [vp]),
        "graphGetInput": (c.c_int, [vp, c.c_int32, c.POINTER(GraphTensorInfo)]),
        "graphGetOutput": (c.c_int, [vp, c.c_int32, c.POINTER(GraphTensorInfo)]),
        "graphExecute": (c.c_int, [vp, c.c_int, c.POINTER(GraphBuffer), c.c_int32]),
        "graphSetStream": (c.c_int, [vp]),
    }
    missing = []
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name, None)
        if fn is None:
            missing.append(name)
            continue
        fn.restype = restype
        fn.argtypes = argtypes
    # The GPU plan list: optional, so an older library still loads (the
    # package then keeps to the CPU plan).
    i64p = c.POINTER(c.c_int64)
    i32p = c.POINTER(c.c_int32)
    optional = {
        "graphGetLastStatus": (c.c_int, []),
        "graphPlanCreate": (c.c_int, [vp, c.c_int, c.POINTER(c.c_int), c.c_int32]),
        "graphPlanCount": (c.c_int32, [vp, i32p]),
        "graphPlanGroup": (c.c_int32, [vp]),
        "graphPlanName": (c.c_char_p, [vp, c.c_int32]),
        "graphPlanEngine": (c.c_int, [vp, c.c_int32, i64p, i64p, i32p]),
        "graphPlanWorkspace": (c.c_int64, [vp, c.c_int32]),
        "graphPlanNotes": (c.c_char_p, [vp, c.c_int32, c.c_int]),
        "graphPlanBuild": (c.c_int, [vp, c.c_int32]),
        "graphPlanBuildMany": (c.c_int, [vp, i32p, c.c_int32]),
        "graphPlanSelect": (c.c_int, [vp, c.c_int32]),
        "graphPlanAdd": (c.c_int, [vp, c.c_int64, i64p, c.c_int32]),
        "graphSetPlanOptions": (c.c_int, [vp, c.POINTER(c.c_char_p), c.c_int32, c.c_int64, c.c_int]),
        # Compiled artifacts (exec.program); optional like the plan list.
        "graphModuleLowerToExecutable": (vp, [vp]),
        "graphModuleIsExecutable": (c.c_int, [vp]),
        "graphSetWorkspace": (c.c_int, [vp, c.c_int64]),
        # Per-device handles; optional like the plan list.
        "graphSetDevice": (c.c_int, [c.c_int32]),
        "graphGetDevice": (c.c_int, [i32p]),
        "graphGetDeviceCount": (c.c_int, [i32p]),
        # The graph builder: the ops' shape rules (result_dims).
        "graphBuilderCreate": (vp, [vp, c.c_char_p, c.c_int, c.c_int, c.c_int]),
        "graphBuilderDestroy": (None, [vp]),
        "graphBuilderTensor": (c.c_int64, [vp, c.c_int, c.c_int32, i64p, i64p, c.c_char_p]),
        "graphBuilderOp": (
            c.c_int,
            [vp, c.c_char_p, c.c_char_p, c.c_char_p, c.POINTER(c.c_char_p), i64p, c.c_int32, c.POINTER(c.c_char_p), i64p, c.c_int32, c.c_char_p],
        ),
        "graphTensorGetDims": (c.c_int, [vp, c.c_int64, i32p, i64p]),
        "graphBuilderScalar": (c.c_int64, [vp, c.c_int, c.c_double, c.c_char_p]),
        "graphBuilderScalarInt": (c.c_int64, [vp, c.c_int, c.c_int64, c.c_char_p]),
        "graphTensorSetUid": (c.c_int, [vp, c.c_int64, c.c_int64]),
        "graphTensorSetDims": (c.c_int, [vp, c.c_int64, c.c_int32, i64p]),
        "graphTensorSetOutput": (c.c_int, [vp, c.c_int64, c.c_int]),
        "graphTensorSetByValue": (c.c_int, [vp, c.c_int64, c.c_int]),
        "graphBuilderPrint": (vp, [vp, c.POINTER(c.c_size_t)]),
        "graphBuilderFinish": (vp, [vp]),
    }
    for name, (restype, argtypes) in optional.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype = restype
            fn.argtypes = argtypes
    if missing:
        raise GraphLibraryNotFound(f"the loaded C API library lacks {', '.join(missing)} (an older build? rebuild the GraphCAPI target)")


def lib():
    """The loaded library; raises GraphLibraryNotFound with the places looked at."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is not None:
            return _lib
        path = library_path()
        if path is None:
            env = os.environ.get("GRAPH_CAPI_LIBRARY")
            looked = [env] if env else default_library_paths()
            raise GraphLibraryNotFound(
                "libGraphCAPI.so was not found (looked at: "
                + ", ".join(looked)
                + "). Build it with `ninja -C build GraphCAPI`, install the package with it "
                "(python/README.md) or point GRAPH_CAPI_LIBRARY at it. "
                "Graph construction works without it; the dims of op outputs (the compiler's shape rules), "
                "to_mlir() and validate/build/execute need it."
            )
        try:
            loaded = ctypes.CDLL(path)
        except OSError as exc:
            raise GraphLibraryNotFound(f"could not load the C API library {path}: {exc}") from None
        _declare(loaded)
        _lib_path = os.path.abspath(path)
        _lib = loaded
        return _lib


def available() -> bool:
    try:
        lib()
        return True
    except GraphLibraryNotFound:
        return False


def context():
    global _context
    if _context is None:
        handle = lib().graphContextCreate()
        if not handle:
            raise RuntimeError(f"graphContextCreate failed: {last_error()}")
        _context = handle
    return _context


def set_stream(stream: int) -> bool:
    """Queue GPU work on a CUDA stream (0: the runtime's own); True when the
    runtime took it. Raises on a machine without a GPU only when a real
    stream is asked for."""
    if not available():
        if stream not in (0, 1):  # the default stream (0, or the legacy handle 1) needs nothing
            raise RuntimeError("set_stream: libGraphCAPI.so is not available")
        return False
    library = lib()
    if not hasattr(library, "graphSetStream"):
        return False
    status = library.graphSetStream(ctypes.c_void_p(stream or None))
    # The default stream (0, or the legacy handle 1) needs no GPU: without
    # one, executes run on the CPU reference and there is nothing to set.
    if status != GRAPH_OK and stream not in (0, 1):
        raise RuntimeError(f"set_stream: {last_error()}")
    return status == GRAPH_OK


def lend_workspace(pointer: int, nbytes: int) -> bool:
    """Lend the calling thread's GPU executes ``nbytes`` of device memory at
    ``pointer`` as workspace (0: their own again). False when the library
    cannot (an older build, or no GPU runtime)."""
    if not available() or not hasattr(lib(), "graphSetWorkspace"):
        return False
    return lib().graphSetWorkspace(ctypes.c_void_p(pointer or None), ctypes.c_int64(nbytes)) == GRAPH_OK


def device_count() -> int:
    """The GPUs the driver sees; 0 without a driver or the library."""
    if not available() or not hasattr(lib(), "graphGetDeviceCount"):
        return 0
    count = ctypes.c_int32(0)
    if lib().graphGetDeviceCount(ctypes.byref(count)) != GRAPH_OK:
        return 0
    return int(count.value)


def current_device() -> int:
    """The GPU this thread's GPU calls run on (the C API's graphGetDevice:
    the selected one, else the thread's current CUDA device); 0 without a
    GPU runtime."""
    if not available() or not hasattr(lib(), "graphGetDevice"):
        return 0
    ordinal = ctypes.c_int32(0)
    if lib().graphGetDevice(ctypes.byref(ordinal)) != GRAPH_OK:
        return 0
    return int(ordinal.value)


class on_device:
    """``with on_device(n):`` runs the C API's GPU calls of this thread on
    GPU ``n`` (graphSetDevice), then clears the choice; ``None`` changes
    nothing. A GPU that does not exist raises ValueError naming it."""

    __slots__ = ("ordinal", "selected", "_set_device")

    def __init__(self, ordinal):
        self.ordinal = ordinal
        self.selected = False

    def __enter__(self):
        if self.ordinal is None:
            return self
        try:
            library = lib()
        except GraphLibraryNotFound:
            return self
        set_device = getattr(library, "graphSetDevice", None)
        if set_device is None:
            return self
        status = set_device(int(self.ordinal))
        if status == GRAPH_ERROR_INVALID_ARGUMENT:
            raise ValueError(last_error())
        # Without a driver there is nothing to select: the CPU paths run.
        self.selected = status == GRAPH_OK
        self._set_device = set_device
        return self

    def __exit__(self, *exc):
        if self.selected:
            self._set_device(-1)
        return False


def has_shape_rules() -> bool:
    """Whether the library answers result_dims (graphTensorGetDims)."""
    return available() and hasattr(lib(), "graphTensorGetDims")


def result_dims(kind, mode, name, inputs, outputs, attributes):
    """The compiler's shape rule for one op of the graph dialect: builds the
    op alone with graphBuilderOp, its results without dims, and reads the
    dims the rule filled in. ``inputs``: (ODS port, dims, GraphDType code)
    per operand; ``outputs``: the ODS result ports; ``attributes``: an MLIR
    attribute dictionary or "". Returns (dims by result port, error): a port
    the rule leaves to the user is absent; error is the rule's diagnostic
    when the operands break it (then no dims), else None. ValueError for a
    request the builder refuses (a bad port, attribute or dim)."""
    library = lib()
    builder = library.graphBuilderCreate(context(), b"probe", 0, 0, 0)
    if not builder:
        raise RuntimeError(f"graphBuilderCreate failed: {last_error()}")
    try:
        in_ports, in_ids = [], []
        for port, dims, dtype in inputs:
            array = (ctypes.c_int64 * max(len(dims), 1))(*dims)
            tid = library.graphBuilderTensor(builder, dtype, len(dims), array, None, None)
            if tid < 0:
                raise ValueError(last_error())
            in_ports.append(port.encode())
            in_ids.append(tid)
        out_ports, out_ids = [], []
        for port in outputs:
            tid = library.graphBuilderTensor(builder, 0, 0, None, None, None)
            out_ports.append(port.encode())
            out_ids.append(tid)
        status = library.graphBuilderOp(
            builder,
            kind.encode(),
            mode.encode() if mode else None,
            name.encode("utf-8", "surrogatepass") if name else None,
            (ctypes.c_char_p * max(len(in_ports), 1))(*in_ports),
            (ctypes.c_int64 * max(len(in_ids), 1))(*in_ids),
            len(in_ids),
            (ctypes.c_char_p * max(len(out_ports), 1))(*out_ports),
            (ctypes.c_int64 * max(len(out_ids), 1))(*out_ids),
            len(out_ids),
            attributes.encode("utf-8", "surrogatepass") if attributes else None,
        )
        if status == GRAPH_ERROR_INVALID_GRAPH:
            return {}, last_error()
        if status != GRAPH_OK:
            raise ValueError(last_error())
        dims = {}
        for port, tid in zip(outputs, out_ids):
            rank = ctypes.c_int32(MAX_RANK)
            values = (ctypes.c_int64 * MAX_RANK)()
            if library.graphTensorGetDims(builder, tid, ctypes.byref(rank), values) == GRAPH_OK and rank.value > 0:
                dims[port] = [int(values[i]) for i in range(rank.value)]
        return dims, None
    finally:
        library.graphBuilderDestroy(builder)


def _utf8(text):
    return text.encode("utf-8") if text else None


def _int64s(values):
    return (ctypes.c_int64 * max(len(values), 1))(*[int(v) for v in values])


class Builder:
    """One graph built through the C API builder (graphBuilderCreate ...
    graphBuilderFinish): the compiler writes and parses its text. io None:
    the graph has no io_data_type. Each call raises BuilderError (its
    status and the builder's message) when the builder refuses it."""

    def __init__(self, name, io, intermediate, compute):
        self._lib = lib()
        self.handle = self._lib.graphBuilderCreate(context(), _utf8(name), -1 if io is None else io, intermediate, compute)
        if not self.handle:
            raise BuilderError(last_status(), last_error())

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            try:
                self._lib.graphBuilderDestroy(handle)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
            self.handle = None

    def _check(self, status):
        if status != GRAPH_OK:
            raise BuilderError(status, last_error())

    def tensor(self, dtype, dims, strides, name, uid):
        """A tensor's id; uid None: none given."""
        tid = self._lib.graphBuilderTensor(self.handle, dtype, len(dims), _int64s(dims), _int64s(strides) if strides else None, _utf8(name))
        if tid < 0:
            raise BuilderError(last_status(), last_error())
        if uid is not None:
            self._check(self._lib.graphTensorSetUid(self.handle, tid, int(uid)))
        return tid

    def scalar(self, dtype, value, dims, name, uid):
        """A scalar's id: a float ``value`` through graphBuilderScalar, an
        int (integer and boolean dtypes) exactly through
        graphBuilderScalarInt."""
        if isinstance(value, int):
            if not -(2**63) <= value < 2**63:
                raise BuilderError(GRAPH_ERROR_INVALID_ARGUMENT, f"scalar {name!r}: {value} does not fit in 64 bits")
            tid = self._lib.graphBuilderScalarInt(self.handle, dtype, value, _utf8(name))
        else:
            tid = self._lib.graphBuilderScalar(self.handle, dtype, float(value), _utf8(name))
        if tid < 0:
            raise BuilderError(last_status(), last_error())
        self._check(self._lib.graphTensorSetDims(self.handle, tid, len(dims), _int64s(dims)))
        self._check(self._lib.graphTensorSetUid(self.handle, tid, int(uid)))
        return tid

    def set_output(self, tid):
        self._check(self._lib.graphTensorSetOutput(self.handle, tid, 1))

    def set_by_value(self, tid):
        self._check(self._lib.graphTensorSetByValue(self.handle, tid, 1))

    def op(self, kind, mode, name, ins, outs, attributes):
        """ins/outs: (ODS port, tensor id) pairs; attributes: an MLIR
        attribute dictionary or ""."""
        in_ports = [p.encode() for p, _ in ins]
        out_ports = [p.encode() for p, _ in outs]
        self._check(
            self._lib.graphBuilderOp(
                self.handle,
                kind.encode(),
                mode.encode() if mode else None,
                _utf8(name),
                (ctypes.c_char_p * max(len(in_ports), 1))(*in_ports),
                _int64s([t for _, t in ins]),
                len(ins),
                (ctypes.c_char_p * max(len(out_ports), 1))(*out_ports),
                _int64s([t for _, t in outs]),
                len(outs),
                _utf8(attributes),
            )
        )

    def text(self):
        """The graph's text as the builder emits it (generic op form), or
        None when it cannot (a bad scalar)."""
        size = ctypes.c_size_t(0)
        ptr = self._lib.graphBuilderPrint(self.handle, ctypes.byref(size))
        if not ptr:
            return None
        try:
            return ctypes.string_at(ptr, size.value).decode("utf-8", "replace")
        finally:
            self._lib.graphFree(ptr)

    def finish(self):
        """The parsed and verified module; ParseError with the compiler's
        diagnostics when it does not verify."""
        handle = self._lib.graphBuilderFinish(self.handle)
        if not handle:
            raise ParseError(last_error())
        return Module._adopt(handle)


def last_error() -> str:
    text = lib().graphGetLastError()
    return text.decode("utf-8", "replace") if text else ""


class Module:
    """One parsed module (owned; destroyed with the object)."""

    def __init__(self, text):
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        self._lib = lib()
        handle = self._lib.graphModuleParse(context(), data, len(data))
        if not handle:
            raise ParseError(last_error())
        self.handle = handle

    @classmethod
    def _adopt(cls, handle):
        """Wrap a module handle the C API returned (owned from now on)."""
        module = cls.__new__(cls)
        module._lib = lib()
        module.handle = handle
        return module

    def __del__(self):
        handle = getattr(self, "handle", None)
        if handle:
            try:
                self._lib.graphModuleDestroy(handle)
            except Exception:  # noqa: BLE001 - interpreter shutdown
                pass
            self.handle = None

    def graph_names(self):
        n = self._lib.graphModuleNumGraphs(self.handle)
        return [self._lib.graphModuleGraphName(self.handle, i).decode("utf-8", "replace") for i in range(n)]

    # _pinned_plan: the plan index graphPlanSelect pinned last through this
    # object (_plans.prepare_run skips pinning it again); None when unknown.
    # Every call that may change the C API's choice clears it.
    _pinned_plan = None

    def select(self, name: str) -> int:
        self._pinned_plan = None
        return self._lib.graphModuleSelect(self.handle, name.encode())

    def prepare(self) -> int:
        self._pinned_plan = None
        return self._lib.graphModulePrepare(self.handle)

    def print(self, generic: bool = False) -> str:
        size = ctypes.c_size_t(0)
        ptr = self._lib.graphModulePrint(self.handle, 1 if generic else 0, ctypes.byref(size))
        if not ptr:
            raise RuntimeError(f"graphModulePrint failed: {last_error()}")
        try:
            return ctypes.string_at(ptr, size.value).decode("utf-8")
        finally:
            self._lib.graphFree(ptr)

    def bytecode(self) -> bytes:
        size = ctypes.c_size_t(0)
        ptr = self._lib.graphModuleWriteBytecode(self.handle, ctypes.byref(size))
        if not ptr:
            raise RuntimeError(f"graphModuleWriteBytecode failed: {last_error()}")
        try:
            return ctypes.string_at(ptr, size.value)
        finally:
            self._lib.graphFree(ptr)

    # --- Compiled artifacts (GraphDialect-c/Graph.h, "exec.program") ------

    def has_executable_api(self) -> bool:
        return hasattr(self._lib, "graphModuleLowerToExecutable")

    def lower_to_executable(self) -> "Module":
        """graphModuleLowerToExecutable: a NEW module holding one
        exec.program per graph (this one is unchanged). Raises LowerError
        (status and the C API's message) on failure."""
        if not self.has_executable_api():
            raise LowerError(GRAPH_ERROR_NOT_SUPPORTED, "the loaded C API library lacks graphModuleLowerToExecutable (an older build? rebuild the GraphCAPI target)")
        handle = self._lib.graphModuleLowerToExecutable(self.handle)
        if not handle:
            raise LowerError(last_status(), last_error())
        return Module._adopt(handle)

    def is_executable(self) -> bool:
        fn = getattr(self._lib, "graphModuleIsExecutable", None)
        return fn is not None and fn(self.handle) == 1

    def _infos(self, count_fn, get_fn):
        out = []
        for i in range(count_fn(self.handle)):
            info = GraphTensorInfo()
            status = get_fn(self.handle, i, ctypes.byref(info))
            if status != GRAPH_OK:
                raise RuntimeError(f"reading tensor {i} failed ({STATUS_NAMES.get(status, status)}): {last_error()}")
            rank = info.rank
            out.append(
                dict(
                    uid=info.uid if info.hasUid else None,
                    name=(info.name or b"").decode("utf-8", "replace"),
                    dtype_code=info.dtype,
                    dims=[info.dims[j] for j in range(rank)],
                    strides=[info.strides[j] for j in range(rank)],
                )
            )
        return out

    def inputs(self):
        return self._infos(self._lib.graphNumInputs, self._lib.graphGetInput)

    def outputs(self):
        return self._infos(self._lib.graphNumOutputs, self._lib.graphGetOutput)

    def execute(self, device: int, buffers) -> int:
        return self.execute_array(device, self.buffer_array(buffers), len(buffers))

    @staticmethod
    def buffer_array(buffers):
        array = (GraphBuffer * max(len(buffers), 1))()
        for i, b in enumerate(buffers):
            array[i] = b
        return array

    def execute_array(self, device: int, array, count: int) -> int:
        return self._lib.graphExecute(self.handle, device, array, count)


    # --- GPU plan list (GraphDialect-c/Graph.h, "GPU plan list") ---------

    def has_plan_api(self) -> bool:
        return hasattr(self._lib, "graphPlanCreate")

    def plan_create(self, device: int, modes) -> int:
        """graphPlanCreate; GRAPH_ERROR_NO_DEVICE (5) without a usable GPU."""
        self._pinned_plan = None
        if not self.has_plan_api():
            return GRAPH_ERROR_NO_DEVICE
        modes = list(modes)
        array = (ctypes.c_int * max(len(modes), 1))(*modes)
        return self._lib.graphPlanCreate(self.handle, device, array, len(modes))

    def plan_count(self):
        """(plans, fused groups); raises PlanError on failure."""
        groups = ctypes.c_int32(-1)
        n = self._lib.graphPlanCount(self.handle, ctypes.byref(groups))
        if n < 0:
            raise PlanError(last_status(), last_error())
        return n, groups.value

    def plan_group(self) -> int:
        """The index of the fused group the plan list is of (the graph's
        anchor group); 0 with an older library (which listed the first)."""
        fn = getattr(self._lib, "graphPlanGroup", None)
        if fn is None:
            return 0
        group = fn(self.handle)
        if group < 0:
            raise PlanError(last_status(), last_error())
        return group

    def plan_name(self, index: int) -> str:
        text = self._lib.graphPlanName(self.handle, index)
        if text is None:
            raise PlanError(last_status(), last_error())
        return text.decode("utf-8", "replace")

    def plan_engine(self, index: int):
        """(engine_id, [(knob_type, value), ...])."""
        engine = ctypes.c_int64(-1)
        count = ctypes.c_int32(0)
        status = self._lib.graphPlanEngine(self.handle, index, ctypes.byref(engine), None, ctypes.byref(count))
        if status != GRAPH_OK and count.value <= 0:
            raise PlanError(status, last_error())
        capacity = count.value
        knobs = (ctypes.c_int64 * max(2 * capacity, 2))()
        count = ctypes.c_int32(capacity)
        status = self._lib.graphPlanEngine(self.handle, index, ctypes.byref(engine), knobs, ctypes.byref(count))
        if status != GRAPH_OK:
            raise PlanError(status, last_error())
        return engine.value, [(knobs[2 * k], knobs[2 * k + 1]) for k in range(count.value)]

    def plan_notes(self, index: int, numeric: bool):
        text = self._lib.graphPlanNotes(self.handle, index, 1 if numeric else 0)
        if text is None:
            raise PlanError(last_status(), last_error())
        text = text.decode("utf-8", "replace")
        return [n for n in text.split(",") if n]

    def plan_workspace(self, index: int) -> int:
        """Bytes of workspace (builds the plan first); raises PlanError when
        the plan declines."""
        n = self._lib.graphPlanWorkspace(self.handle, index)
        if n < 0:
            raise PlanError(last_status(), last_error())
        return n

    def plan_build(self, index: int) -> int:
        return self._lib.graphPlanBuild(self.handle, index)

    def plan_build_many(self, indices) -> int:
        """Builds plans `indices` (cuDNN's several at once); GRAPH_OK when
        every one built. A library without graphPlanBuildMany builds them
        one by one."""
        indices = [int(i) for i in indices]
        fn = getattr(self._lib, "graphPlanBuildMany", None)
        if fn is None:
            status = GRAPH_OK
            for index in indices:
                built = self.plan_build(index)
                status = built if status == GRAPH_OK else status
            return status
        array = (ctypes.c_int32 * max(len(indices), 1))(*indices)
        return fn(self.handle, array, len(indices))

    def plan_select(self, index: int) -> int:
        self._pinned_plan = None  # prepare_run records a select it made
        return self._lib.graphPlanSelect(self.handle, index)

    def plan_add(self, engine_id: int, knobs) -> int:
        knobs = list(knobs)
        flat = (ctypes.c_int64 * max(2 * len(knobs), 2))()
        for k, (t, v) in enumerate(knobs):
            flat[2 * k], flat[2 * k + 1] = int(t), int(v)
        return self._lib.graphPlanAdd(self.handle, int(engine_id), flat, len(knobs))

    def set_plan_options(self, deselect, workspace_limit: int, autotune: bool) -> int:
        names = [n.encode("utf-8") for n in deselect]
        array = (ctypes.c_char_p * max(len(names), 1))(*names)
        return self._lib.graphSetPlanOptions(self.handle, array, len(names), int(workspace_limit), 1 if autotune else 0)


def last_status() -> int:
    fn = getattr(lib(), "graphGetLastStatus", None)
    return fn() if fn is not None else GRAPH_ERROR_EXECUTION


class PlanError(RuntimeError):
    """A plan-list call failed: ``status`` (a GraphStatus) and the message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class LowerError(RuntimeError):
    """graphModuleLowerToExecutable failed: ``status`` (a GraphStatus) and
    the message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class ParseError(Exception):
    """graphModuleParse failed; the message is the compiler's diagnostics."""


class BuilderError(Exception):
    """A graph-builder call was refused: ``status`` (a GraphStatus) and the
    builder's message."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
