"""Python front of the graph compiler, shaped like the cuDNN frontend's
Python graph API (``import cudnn`` works through the python/cudnn shim)."""

from ._enums import (  # noqa: F401
    behavior_note,
    build_plan_policy,
    convolution_mode,
    data_type,
    diagonal_alignment,
    heur_mode,
    moe_grouped_matmul_mode,
    norm_forward_phase,
    numeric_note,
    pointwise_mode,
    reduction_mode,
    reshape_mode,
    tensor_reordering,
)
from ._graph import (  # noqa: F401
    GraphExecutionError,
    GraphNoDeviceError,
    GraphValidationError,
    Node,
    create_handle,
    cudnnGraphNotSupportedError,
    destroy_handle,
    from_mlir,
    get_stream,
    graph,
    pygraph,
    set_stream,
)
from ._tensor import Tensor  # noqa: F401
from ._buffers import BufferViewWarning  # noqa: F401
from ._capi import GraphLibraryNotFound, library_path  # noqa: F401

tensor = Tensor

__version__ = "0.1.0"


def backend_version() -> int:
    """The frontend's version query; this package is not cuDNN."""
    return 0


def is_available() -> bool:
    """Whether libGraphCAPI.so can be loaded (validate/build/execute need it)."""
    from . import _capi

    return _capi.available()
