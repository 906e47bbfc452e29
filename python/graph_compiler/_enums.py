"""Enumerations of the cuDNN frontend's Python surface, with the MLIR spelling
each one has in the graph dialect."""

import enum


class data_type(enum.Enum):
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


class heur_mode(enum.Enum):
    A = 0
    B = 1
    FALLBACK = 2
    INSTANT = 3
    OPENSOURCE = 4


class build_plan_policy(enum.Enum):
    HEURISTICS_CHOICE = 0
    ALL = 1


class norm_forward_phase(enum.Enum):
    NOT_SET = 0
    INFERENCE = 1
    TRAINING = 2


class reduction_mode(enum.Enum):
    NOT_SET = 0
    ADD = 1
    MUL = 2
    MIN = 3
    MAX = 4
    AMAX = 5
    AVG = 6
    NORM1 = 7
    NORM2 = 8
    MUL_NO_ZEROS = 9


class pointwise_mode(enum.Enum):
    """The frontend's pointwise modes; the graph builders are the usual way to
    reach them (``graph.add``, ``graph.relu`` ...)."""

    NOT_SET = 0
    ADD = 1
    ADD_SQUARE = 2
    DIV = 3
    MAX = 4
    MIN = 5
    MOD = 6
    MUL = 7
    POW = 8
    SUB = 9
    ABS = 10
    CEIL = 11
    COS = 12
    EXP = 13
    FLOOR = 14
    LOG = 15
    NEG = 16
    RSQRT = 17
    SIN = 18
    SQRT = 19
    TAN = 20
    LOGICAL_NOT = 21
    RELU_FWD = 22
    SIGMOID_FWD = 23
    TANH_FWD = 24
    ELU_FWD = 25
    GELU_FWD = 26
    GELU_APPROX_TANH_FWD = 27
    SOFTPLUS_FWD = 28
    SWISH_FWD = 29
    RELU_BWD = 30
    SIGMOID_BWD = 31
    TANH_BWD = 32
    ELU_BWD = 33
    GELU_BWD = 34
    GELU_APPROX_TANH_BWD = 35
    SOFTPLUS_BWD = 36
    SWISH_BWD = 37
    CMP_EQ = 38
    CMP_NEQ = 39
    CMP_GT = 40
    CMP_GE = 41
    CMP_LT = 42
    CMP_LE = 43
    LOGICAL_AND = 44
    LOGICAL_OR = 45
    BINARY_SELECT = 46
    GEN_INDEX = 47
    ERF = 48
    IDENTITY = 49
    RECIPROCAL = 50


class behavior_note(enum.Enum):
    RUNTIME_COMPILATION = 0
    REQUIRES_FILTER_INT8x32_REORDER = 1
    REQUIRES_BIAS_INT8x32_REORDER = 2
    SUPPORTS_CUDA_GRAPH_NATIVE_API = 3


class numeric_note(enum.Enum):
    TENSOR_CORE = 0
    DOWN_CONVERT_INPUTS = 1
    REDUCED_PRECISION_REDUCTION = 2
    FFT = 3
    NONDETERMINISTIC = 4
    WINOGRAD = 5
    WINOGRAD_TILE_4x4 = 6
    WINOGRAD_TILE_6x6 = 7
    WINOGRAD_TILE_13x13 = 8
    STRICT_NAN_PROP = 9


class diagonal_alignment(enum.Enum):
    TOP_LEFT = 0
    BOTTOM_RIGHT = 1


class convolution_mode(enum.Enum):
    CROSS_CORRELATION = 0
    CONVOLUTION = 1


class moe_grouped_matmul_mode(enum.Enum):
    NONE = 0
    GATHER = 1
    SCATTER = 2


class reshape_mode(enum.Enum):
    VIEW = 0
    LOGICAL = 1


class tensor_reordering(enum.Enum):
    NONE = 0
    INT8x32 = 1
    F16x16 = 2
    F8_128x4 = 3


def enum_name(value) -> str:
    """Lower-case keyword of an enum member (or of its name as a string)."""
    return (getattr(value, "name", None) or str(value)).lower()
