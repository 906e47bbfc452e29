"""Python front of the graph compiler, shaped like the cuDNN frontend's
Python graph API (``import cudnn`` works through the python/cudnn shim)."""

from ._enums import (  # noqa: F401
    FRONTEND_KNOB_TYPE_BASE,
    attention_implementation,
    behavior_note,
    build_plan_policy,
    convolution_mode,
    cuda_graph_retention,
    data_type,
    diagonal_alignment,
    heur_mode,
    is_frontend_knob_type,
    knob,
    knob_type,
    moe_grouped_matmul_mode,
    norm_forward_phase,
    numeric_note,
    numerical_note,
    pointwise_mode,
    reduction_mode,
    reshape_mode,
    scalar_type,
    tensor_reordering,
)
from ._graph import (  # noqa: F401
    DeviceInfo,
    DeviceProperties,
    GraphContext,
    GraphExecutionError,
    GraphNoDeviceError,
    TorchNotAvailableError,
    GraphValidationError,
    Handle,
    KernelCache,
    Node,
    NodeType,
    create_device_properties,
    create_handle,
    create_kernel_cache,
    cudnnGraphNotSupportedError,
    destroy_handle,
    from_mlir,
    get_last_error_string,
    get_stream,
    graph,
    pygraph,
    pyplans,
    set_stream,
)
# the backend calls under set_stream / destroy_handle, replaceable here as
# on the frontend's extension module
from ._handles import _raw_destroy_handle, _raw_set_stream  # noqa: F401
from ._jit import graph_cache, jit  # noqa: F401
from ._wrapper import Graph  # noqa: F401
from ._tensor import Tensor  # noqa: F401
from ._buffers import BufferTooSmallWarning, BufferViewWarning, SharedOutputWarning  # noqa: F401
from ._capi import GraphLibraryNotFound, library_path, loaded_library_path  # noqa: F401
from ._variants import OverrideStrideWarning, ShapeVariantWarning  # noqa: F401
from ._version import backend_version, backend_version_string, get_cudnn_version  # noqa: F401

tensor = Tensor
kernel_cache = KernelCache
backend_graph = pygraph  # the name the frontend's extension module gives its graph class
device_properties = DeviceProperties

__version__ = "0.1.0"
# The version of the cuDNN frontend's Python API this package models:
# ``cudnn.__version__``. Programs gate features on it (FlashInfer's "cuDNN
# FP4 requires version 1.13+"); a gated feature this package lacks is then
# refused at create_execution_plans() naming it, not by the gate.
FRONTEND_API_VERSION = "1.27.0"


def is_available() -> bool:
    """Whether libGraphCAPI.so can be loaded (validate/build/execute need it)."""
    from . import _capi

    return _capi.available()
