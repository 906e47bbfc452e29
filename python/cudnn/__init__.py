"""``import cudnn`` for programs written against the cuDNN frontend's Python
graph API: everything comes from graph_compiler."""

import sys as _sys

import graph_compiler as _impl
from graph_compiler import *  # noqa: F401,F403
from graph_compiler import (  # noqa: F401
    GraphExecutionError,
    GraphNoDeviceError,
    GraphValidationError,
    __version__,
    backend_version,
    behavior_note,
    build_plan_policy,
    convolution_mode,
    create_handle,
    cudnnGraphNotSupportedError,
    data_type,
    destroy_handle,
    diagonal_alignment,
    from_mlir,
    get_stream,
    graph,
    heur_mode,
    is_available,
    moe_grouped_matmul_mode,
    norm_forward_phase,
    numeric_note,
    pointwise_mode,
    pygraph,
    reduction_mode,
    reshape_mode,
    set_stream,
    tensor,
    tensor_reordering,
)

# cudnn.<submodule> names resolve to the implementation's modules
for _name, _mod in list(_sys.modules.items()):
    if _name.startswith("graph_compiler."):
        _sys.modules["cudnn." + _name[len("graph_compiler."):]] = _mod
