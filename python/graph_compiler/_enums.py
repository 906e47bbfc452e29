"""Enumerations of the cuDNN frontend's Python surface, with the MLIR spelling
each one has in the graph dialect."""

import enum
import operator
import threading


class _IntConvertible:
    """int(member) is the member's value, as for the frontend's pybind11
    enums (which are not int subclasses either)."""

    def __int__(self):
        return self.value

    __index__ = __int__


class data_type(_IntConvertible, enum.Enum):
    """Element types. ``mlir`` is the dialect's element type; ``itemsize`` the
    bytes one element takes in a host buffer (fp4 uses one byte per element,
    the low nibble, as the reference executor's raw-bits convention does)."""

    NOT_SET = 0
    FLOAT = 1
    DOUBLE = 2
    HALF = 3
    INT8 = 4
    INT32 = 5
    INT8x4 = 6
    UINT8 = 7
    UINT8x4 = 8
    INT8x32 = 9
    BFLOAT16 = 10
    INT64 = 11
    BOOLEAN = 12
    FP8_E4M3 = 13
    FP8_E5M2 = 14
    FAST_FLOAT_FOR_FP8 = 15
    FP8_E8M0 = 16
    FP4_E2M1 = 17
    FP8_E5M3 = 18
    INT4 = 19

    def __str__(self):
        return f"data_type.{self.name}"


# data_type -> (MLIR element type, GraphDType code of the C API, host bytes)
_DTYPE_INFO = {
    data_type.FLOAT: ("f32", 0, 4),
    data_type.HALF: ("f16", 1, 2),
    data_type.BFLOAT16: ("bf16", 2, 2),
    data_type.DOUBLE: ("f64", 3, 8),
    data_type.INT8: ("i8", 4, 1),
    data_type.UINT8: ("ui8", 5, 1),
    data_type.INT32: ("i32", 6, 4),
    data_type.INT64: ("i64", 7, 8),
    data_type.BOOLEAN: ("i1", 8, 1),
    data_type.FP8_E4M3: ("f8E4M3FN", 9, 1),
    data_type.FP8_E5M2: ("f8E5M2", 10, 1),
    data_type.FP8_E8M0: ("f8E8M0FNU", 11, 1),
    data_type.FP4_E2M1: ("f4E2M1FN", 12, 1),
}
_MLIR_TO_DTYPE = {info[0]: dt for dt, info in _DTYPE_INFO.items()}
_CODE_TO_DTYPE = {info[1]: dt for dt, info in _DTYPE_INFO.items()}

# Types whose host buffers hold raw bits in an unsigned integer array.
RAW_BITS_DTYPES = {
    data_type.BFLOAT16: "uint16",
    data_type.FP8_E4M3: "uint8",
    data_type.FP8_E5M2: "uint8",
    data_type.FP8_E8M0: "uint8",
    data_type.FP4_E2M1: "uint8",
}


def mlir_type(dt) -> str:
    """The dialect's element type for ``dt`` (a data_type)."""
    if dt not in _DTYPE_INFO:
        raise ValueError(f"data type {dt} has no element type in the graph dialect")
    return _DTYPE_INFO[dt][0]


def dtype_code(dt) -> int:
    return _DTYPE_INFO[dt][1]


def from_mlir_type(name: str):
    return _MLIR_TO_DTYPE.get(name)


def from_code(code: int):
    return _CODE_TO_DTYPE.get(code)


def is_float(dt) -> bool:
    return dt in (
        data_type.FLOAT,
        data_type.DOUBLE,
        data_type.HALF,
        data_type.BFLOAT16,
        data_type.FP8_E4M3,
        data_type.FP8_E5M2,
        data_type.FP8_E8M0,
        data_type.FP4_E2M1,
    )


def _numbered(name, members, doc=None, start=0):
    """The enum class ``name`` whose members, in the order ``members`` (a
    whitespace-separated string) lists them, are numbered ``start``,
    ``start`` + 1 ... as the frontend numbers them."""
    cls = enum.Enum(name, members.split(), module=__name__, qualname=name, type=_IntConvertible, start=start)
    cls.__doc__ = doc
    return cls


# Integer values are the frontend's C++ enums' (programs persist them):
# NOT_SET, where the C++ enum has one the bindings leave out, is 0.
heur_mode = _numbered("heur_mode", "A B FALLBACK OPENSOURCE INSTANT")  # INSTANT: an earlier binding's
build_plan_policy = _numbered("build_plan_policy", "HEURISTICS_CHOICE ALL")
norm_forward_phase = _numbered("norm_forward_phase", "NOT_SET INFERENCE TRAINING")
reduction_mode = _numbered("reduction_mode", "NOT_SET ADD MUL MIN MAX AMAX AVG NORM1 NORM2 MUL_NO_ZEROS")
pointwise_mode = _numbered(
    "pointwise_mode",
    """
    NOT_SET ADD ADD_SQUARE DIV MAX MIN MOD MUL POW SUB
    ABS CEIL COS EXP FLOOR LOG NEG RSQRT SIN SQRT
    TAN LOGICAL_NOT RELU_FWD SIGMOID_FWD TANH_FWD ELU_FWD GELU_FWD GELU_APPROX_TANH_FWD SOFTPLUS_FWD SWISH_FWD
    RELU_BWD SIGMOID_BWD TANH_BWD ELU_BWD GELU_BWD GELU_APPROX_TANH_BWD SOFTPLUS_BWD SWISH_BWD CMP_EQ CMP_NEQ
    CMP_GT CMP_GE CMP_LT CMP_LE LOGICAL_AND LOGICAL_OR BINARY_SELECT GEN_INDEX ERF IDENTITY
    RECIPROCAL
    """,
    doc="""The frontend's pointwise modes; the graph builders are the usual way to
    reach them (``graph.add``, ``graph.relu`` ...).""",
)
behavior_note = _numbered("behavior_note", "RUNTIME_COMPILATION REQUIRES_FILTER_INT8x32_REORDER REQUIRES_BIAS_INT8x32_REORDER SUPPORTS_CUDA_GRAPH_NATIVE_API CUBLASLT_DEPENDENCY", start=1)
numerical_note = _numbered(
    "numerical_note",
    "TENSOR_CORE DOWN_CONVERT_INPUTS REDUCED_PRECISION_REDUCTION FFT NONDETERMINISTIC WINOGRAD WINOGRAD_TILE_4x4 WINOGRAD_TILE_6x6 WINOGRAD_TILE_13x13 STRICT_NAN_PROP",
    start=1,
)
numeric_note = numerical_note  # the earlier spelling of this package
diagonal_alignment = _numbered("diagonal_alignment", "TOP_LEFT BOTTOM_RIGHT")
convolution_mode = _numbered("convolution_mode", "CONVOLUTION CROSS_CORRELATION", start=1)
moe_grouped_matmul_mode = _numbered("moe_grouped_matmul_mode", "NONE GATHER SCATTER COMBINE", start=1)
reshape_mode = _numbered("reshape_mode", "VIEW_ONLY LOGICAL", start=1)
reshape_mode.VIEW = reshape_mode.VIEW_ONLY  # the earlier spelling of this package (not a member)
tensor_reordering = _numbered("tensor_reordering", "NONE INT8x32 F16x16 F8_128x4")
scalar_type = _numbered(
    "scalar_type",
    "RUNTIME_PARAM COMPILE_TIME_CONST",
    doc="""How tensor_scalar(value, scalar_type) hands its value over. Both become
    a graph.scalar whose value is part of the graph (the dialect has no
    runtime scalar parameter); its data type follows the Python value (float:
    FLOAT, int: INT32, bool: BOOLEAN), as the frontend's overloads pick it.""",
)
cuda_graph_retention = _numbered(
    "cuda_graph_retention",
    "PER_GRAPH NONE",
    doc="""What a graph keeps alive for the CUDA graphs its executions are
    captured into (pygraph(cuda_graph_retention=...)). Recorded and reported
    by get_cuda_graph_retention(); the compiler's executables live as long as
    the graph either way, so both replay while the graph is alive.""",
)
attention_implementation = _numbered(
    "attention_implementation",
    "AUTO COMPOSITE UNIFIED",
    doc="""Which cuDNN attention implementation sdpa(implementation=...) asks for.
    The compiler picks its own engines for every sdpa: AUTO is the default;
    COMPOSITE and UNIFIED are recorded on the node and answered with a
    warning (they do not change the plan list).""",
)
# The frontend's knob types (KnobType_t). Its numbers are persisted (autotune
# caches store int(knob_type)): the backend-mirror band counts from 0, the
# band of knobs only the frontend's own python engines read starts at
# FRONTEND_KNOB_TYPE_BASE.
FRONTEND_KNOB_TYPE_BASE = 1000
_BACKEND_BAND = """
    NOT_SET SWIZZLE TILE_SIZE EDGE MULTIPLY SPLIT_K_BUF TILEK STAGES REDUCTION_MODE SPLIT_K_SLC
    IDX_MODE SPECFILT KERNEL_CFG WORKSPACE TILE_CGA_M TILE_CGA_N BLOCK_SIZE OCCUPANCY ARRAY_SIZE_PER_THREAD SPLIT_COLS
    TILE_ROWS TILE_COLS LOAD_SIZE CTA_COUNT STREAM_K SPLIT_P_SLC TILE_M TILE_N WARP_SPEC_CFG SWAP_AB
    INPUT_TMA_ENABLE OUTPUT_TMA_ENABLE TILE_CGA
    """.split()
_FRONTEND_BAND = """
    SCHED_POLICY PACK_GQA SPLIT_KV PIPELINE_ARCH MMA_TILE_M MMA_TILE_N MMA_TILE_K CTA_GROUP WARPS_M WARPS_N CGA_POLICY
    """.split()
knob_type = enum.Enum(
    "knob_type",
    [(n, i) for i, n in enumerate(_BACKEND_BAND)] + [(n, FRONTEND_KNOB_TYPE_BASE + i) for i, n in enumerate(_FRONTEND_BAND)],
    module=__name__,
    qualname="knob_type",
    type=_IntConvertible,
)
knob_type.__doc__ = """The frontend's knob types. A cuDNN plan's knobs are keyed by them
    (get_engine_and_knobs_at_index); backend_knob_code() maps a member to
    cuDNN's backend knob code (cudnnBackendKnobType_t). The members from
    FRONTEND_KNOB_TYPE_BASE on are the frontend's python-engine knobs: no
    cuDNN plan takes them. Knobs no member mirrors (cuDNN's SPLIT_K, USE_TEX,
    ..., the compiler's codegen knobs) are extra negative values beside the
    members, knob_type(-code - 1), named BACKEND_KNOB_<code> or CODEGEN_*."""


def _backend_only_knob(cls, value):
    """knob_type(v) for a v of no member: a negative v names cuDNN backend
    knob code -v - 1, which no frontend knob type mirrors (SPLIT_K, USE_TEX,
    CTA_SPLIT_K_MODE, ...). cuDNN's plans carry such knobs; they come back as
    these extra knob_type values (named BACKEND_KNOB_<code>), so every key of
    a plan's knobs is a knob_type and replaying the plan keeps them all. The
    value is negative so it never meets a member's, present or appended."""
    if isinstance(value, bool):
        return None
    try:
        value = operator.index(value)  # numpy integers too
    except TypeError:
        return None
    if value >= 0:
        return None
    with _BACKEND_ONLY_LOCK:
        known = _BACKEND_ONLY.get(value)
        if known is None:
            known = object.__new__(cls)
            code = -value - 1
            known._name_ = EXTRA_KNOB_NAMES.get(code, f"BACKEND_KNOB_{code}")
            known._value_ = value
            known.__objclass__ = cls
            _BACKEND_ONLY[value] = known
        return known


# Names of the extra values by code (the compiler's own codegen knobs).
EXTRA_KNOB_NAMES: dict = {}
_BACKEND_ONLY: dict = {}
_BACKEND_ONLY_LOCK = threading.Lock()
knob_type._missing_ = classmethod(_backend_only_knob)
# Copied and pickled by value, so the extra values round-trip as members do.
knob_type.__reduce_ex__ = lambda self, protocol: (knob_type, (self._value_,))


def is_frontend_knob_type(member) -> bool:
    """Whether ``member`` (a knob_type or its int) lies in the frontend-only band."""
    return int(member) >= FRONTEND_KNOB_TYPE_BASE


# knob_type member name -> cudnnBackendKnobType_t (cudnn_graph.h of cuDNN 9.19);
# the TMA knobs are newer than those headers and have no code here.
_KNOB_CODES = {
    "SWIZZLE": 1, "TILE_SIZE": 2, "EDGE": 4, "MULTIPLY": 11, "SPLIT_K_BUF": 12, "TILEK": 13, "STAGES": 14,
    "REDUCTION_MODE": 15, "SPLIT_K_SLC": 17, "IDX_MODE": 18, "SPECFILT": 23, "KERNEL_CFG": 24, "WORKSPACE": 25,
    "TILE_CGA": 26, "TILE_CGA_M": 27, "TILE_CGA_N": 28, "BLOCK_SIZE": 29, "OCCUPANCY": 30, "ARRAY_SIZE_PER_THREAD": 31,
    "SPLIT_COLS": 33, "TILE_ROWS": 34, "TILE_COLS": 35, "LOAD_SIZE": 36, "CTA_COUNT": 37, "STREAM_K": 38,
    "SPLIT_P_SLC": 39, "TILE_M": 40, "TILE_N": 41, "WARP_SPEC_CFG": 42, "SWAP_AB": 43,
}
_CODE_TO_KNOB = {code: name for name, code in _KNOB_CODES.items()}


def backend_knob_code(key) -> int:
    """The cuDNN backend knob code of ``key``: a knob_type member, or an int
    (a backend code already, as plan knobs carry them)."""
    if isinstance(key, knob_type):
        if int(key) < 0:
            return -int(key) - 1  # a backend-only knob (_backend_only_knob)
        code = _KNOB_CODES.get(key.name)
        if code is None and is_frontend_knob_type(key):
            raise KnobCodeError(
                f"knob {key} is a frontend-only knob type (python engines): it has no cuDNN backend knob code, "
                "no cuDNN plan takes it (convert_to_backend_knob_type: CUDNN_STATUS_NOT_SUPPORTED)"
            )
        if code is None:
            raise KnobCodeError(f"knob {key} has no cuDNN backend knob code in the cuDNN this package was written against (9.19)")
        return code
    if isinstance(key, bool) or not isinstance(key, int):
        raise TypeError(f"a knob key is a cudnn.knob_type or an int backend knob code, got {key!r}")
    if key < 0:  # int() of an extra knob_type value
        return -int(key) - 1
    return int(key)


class KnobCodeError(ValueError, RuntimeError):
    """A knob_type with no cuDNN backend knob code (a ValueError as this
    package raised before; a RuntimeError as the frontend's binding raises)."""


def knob_type_of(code: int):
    """The knob_type of a backend knob code: its member, else the extra value
    that names a backend-only knob (BACKEND_KNOB_<code>)."""
    name = _CODE_TO_KNOB.get(code)
    return knob_type[name] if name else knob_type(-int(code) - 1)


def public_knobs(knobs) -> dict:
    """A cuDNN plan's knobs as the frontend answers them: keyed by knob_type
    (backend-only knobs by their extra values)."""
    return {k if isinstance(k, knob_type) else knob_type_of(backend_knob_code(k)): v for k, v in dict(knobs).items()}


class knob:
    """One tunable of an engine, as get_knobs_for_engine() answers it:
    ``type`` (a knob_type; an extra value for a knob no member mirrors), and
    the ``max_value``, ``min_value`` and ``stride`` of its values."""

    __slots__ = ("_type", "_max", "_min", "_stride")

    def __init__(self, knob_type=None, max_value=None, min_value=None, stride=None):
        self._type = knob_type if knob_type is not None else globals()["knob_type"].NOT_SET
        self._max, self._min, self._stride = max_value, min_value, stride

    type = property(lambda self: self._type)
    max_value = property(lambda self: self._max)
    min_value = property(lambda self: self._min)
    stride = property(lambda self: self._stride)

    def __eq__(self, other):
        return isinstance(other, knob) and (self._type, self._max, self._min, self._stride) == (other._type, other._max, other._min, other._stride)

    __hash__ = None

    def __repr__(self):
        name = self._type.name if hasattr(self._type, "name") else self._type
        return f'{{"knob_type": "{name}", "max_value": {self._max}, "min_value": {self._min}, "stride": {self._stride}}}'


# Framework dtypes, by the name their str() ends in ("torch.float16" ->
# "float16"; numpy's "float16" too). torch.float8_e4m3fnuz and friends are
# other formats and are not mapped; torch.float4_e2m1fn_x2 packs two values
# per byte where this package keeps one (see data_type).
_FRAMEWORK_DTYPES = {
    "float16": data_type.HALF,
    "half": data_type.HALF,
    "bfloat16": data_type.BFLOAT16,
    "float32": data_type.FLOAT,
    "float": data_type.FLOAT,
    "float64": data_type.DOUBLE,
    "double": data_type.DOUBLE,
    "int8": data_type.INT8,
    "int32": data_type.INT32,
    "int": data_type.INT32,
    "int64": data_type.INT64,
    "long": data_type.INT64,
    "uint8": data_type.UINT8,
    "bool": data_type.BOOLEAN,
    "float8_e4m3fn": data_type.FP8_E4M3,
    "float8_e5m2": data_type.FP8_E5M2,
    "float8_e8m0fnu": data_type.FP8_E8M0,
}


def to_data_type(value, what: str = "data_type"):
    """``value`` as a data_type: a data_type member (NOT_SET and None are
    None), or a framework dtype (torch.float16, torch.bfloat16, numpy.float32
    ...), matched by name as the frontend's _library_type does for torch.
    Anything else raises TypeError naming ``what``."""
    if value is None:
        return None
    if isinstance(value, data_type):
        return None if value is data_type.NOT_SET else value
    if getattr(value, "name", None) == "NOT_SET" and type(value).__name__ == "data_type":
        return None
    text = str(value)
    module = ""
    if text.startswith("torch."):
        module, text = "torch", text[len("torch."):]
    elif type(value).__module__ == "numpy" or type(value).__name__ == "dtype" or isinstance(value, type):
        text = getattr(value, "__name__", None) or getattr(value, "name", None) or text
        module = "numpy"
    dt = _FRAMEWORK_DTYPES.get(text) if module else None
    if dt is None:
        raise TypeError(f"{what}: no available conversion from type {value!r} to a library type (cudnn.data_type, or a torch/numpy dtype of {sorted(_FRAMEWORK_DTYPES)})")
    return dt


def enum_name(value) -> str:
    """Lower-case keyword of an enum member (or of its name as a string)."""
    return (getattr(value, "name", None) or str(value)).lower()
