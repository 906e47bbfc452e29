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


def _numbered(name, members, doc=None):
    """The enum class ``name`` whose members, in the order ``members`` (a
    whitespace-separated string) lists them, are numbered 0, 1, 2 ... as the
    frontend numbers them."""
    cls = enum.Enum(name, members.split(), module=__name__, qualname=name, start=0)
    cls.__doc__ = doc
    return cls


heur_mode = _numbered("heur_mode", "A B FALLBACK INSTANT OPENSOURCE")
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
behavior_note = _numbered("behavior_note", "RUNTIME_COMPILATION REQUIRES_FILTER_INT8x32_REORDER REQUIRES_BIAS_INT8x32_REORDER SUPPORTS_CUDA_GRAPH_NATIVE_API")
numeric_note = _numbered(
    "numeric_note",
    "TENSOR_CORE DOWN_CONVERT_INPUTS REDUCED_PRECISION_REDUCTION FFT NONDETERMINISTIC WINOGRAD WINOGRAD_TILE_4x4 WINOGRAD_TILE_6x6 WINOGRAD_TILE_13x13 STRICT_NAN_PROP",
)
diagonal_alignment = _numbered("diagonal_alignment", "TOP_LEFT BOTTOM_RIGHT")
convolution_mode = _numbered("convolution_mode", "CROSS_CORRELATION CONVOLUTION")
moe_grouped_matmul_mode = _numbered("moe_grouped_matmul_mode", "NONE GATHER SCATTER")
reshape_mode = _numbered("reshape_mode", "VIEW LOGICAL")
tensor_reordering = _numbered("tensor_reordering", "NONE INT8x32 F16x16 F8_128x4")


def enum_name(value) -> str:
    """Lower-case keyword of an enum member (or of its name as a string)."""
    return (getattr(value, "name", None) or str(value)).lower()
