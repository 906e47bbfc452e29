"""``import cudnn`` for programs written against the cuDNN frontend's Python
graph API: everything comes from graph_compiler."""

import sys as _sys

import graph_compiler as _impl
from graph_compiler import *  # noqa: F401,F403
from graph_compiler import (  # noqa: F401
    DeviceProperties,
    Graph,
    GraphExecutionError,
    GraphNoDeviceError,
    GraphValidationError,
    KernelCache,
    Tensor,
    __version__,
    attention_implementation,
    backend_version,
    backend_version_string,
    behavior_note,
    build_plan_policy,
    convolution_mode,
    create_device_properties,
    create_handle,
    create_kernel_cache,
    cudnnGraphNotSupportedError,
    data_type,
    destroy_handle,
    device_properties,
    diagonal_alignment,
    from_mlir,
    get_last_error_string,
    get_stream,
    graph,
    graph_cache,
    heur_mode,
    is_available,
    jit,
    kernel_cache,
    knob,
    knob_type,
    moe_grouped_matmul_mode,
    norm_forward_phase,
    numeric_note,
    numerical_note,
    pointwise_mode,
    pygraph,
    reduction_mode,
    reshape_mode,
    scalar_type,
    set_stream,
    tensor,
    tensor_reordering,
)

# cudnn.<submodule> names resolve to the implementation's modules
for _name, _mod in list(_sys.modules.items()):
    if _name.startswith("graph_compiler."):
        _sys.modules["cudnn." + _name[len("graph_compiler."):]] = _mod
