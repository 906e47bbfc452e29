"""``import cudnn`` for programs written against the cuDNN frontend's Python
graph API: everything comes from graph_compiler."""

import sys as _sys

import graph_compiler as _impl
from graph_compiler import FRONTEND_API_VERSION as __version__  # noqa: F401
from graph_compiler import *  # noqa: F401,F403
from graph_compiler import (  # noqa: F401
    FRONTEND_KNOB_TYPE_BASE,
    DeviceInfo,
    DeviceProperties,
    Graph,
    GraphContext,
    GraphExecutionError,
    GraphNoDeviceError,
    TorchNotAvailableError,
    GraphValidationError,
    Handle,
    KernelCache,
    Node,
    NodeType,
    Tensor,
    attention_implementation,
    backend_version,
    backend_version_string,
    behavior_note,
    build_plan_policy,
    convolution_mode,
    cuda_graph_retention,
    create_device_properties,
    create_handle,
    create_kernel_cache,
    cudnnGraphNotSupportedError,
    data_type,
    destroy_handle,
    device_properties,
    diagonal_alignment,
    from_mlir,
    get_cudnn_version,
    get_last_error_string,
    get_stream,
    graph,
    graph_cache,
    heur_mode,
    is_available,
    is_frontend_knob_type,
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
    pyplans,
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

# The frontend's compiled extension module: its enums, handle and stream
# functions live there and programs reach them as cudnn._pybind_module.<name>
# (older releases: cudnn._compiled_module). Here the package itself holds them.
_pybind_module = _impl
_compiled_module = _impl
wrapper = _sys.modules["graph_compiler._wrapper"]
# The frontend's wrapper module reaches the package as wrapper.cudnn.
wrapper.cudnn = _sys.modules[__name__]
# The module of the frontend's pure-Python graph class (cudnn._pygraph.pygraph):
# here the module that defines pygraph.
_pygraph = _sys.modules["graph_compiler._graph"]
_sys.modules["cudnn._pygraph"] = _pygraph
_sys.modules["cudnn._pybind_module"] = _impl
_sys.modules["cudnn._compiled_module"] = _impl
_sys.modules["cudnn.wrapper"] = wrapper

from . import ops  # noqa: E402,F401  (the frontend's torch operators: ImportError on use)
from . import engines  # noqa: E402,F401  (cudnn.engines.* as the frontend names it: no python engines)
from . import experimental  # noqa: E402,F401  (its experimental torch operators: ImportError on use)

# The frontend's CuTe DSL kernels (an optional extra there: importing one
# without its dependencies raises ImportError). The graph compiler has none of
# them, so each of these names raises that ImportError here.
_CUTEDSL_NAMES = frozenset(
    """BSA block_sparse_attention_forward block_sparse_attention_backward DSA CSA
    CSACompressorForward CSACompressorBackward csa_compressor_forward_wrapper
    csa_compressor_backward_wrapper NSA GemmSwigluSm100 gemm_swiglu_wrapper_sm100
    GemmSreluSm100 gemm_srelu_wrapper_sm100 GemmDsreluSm100 gemm_dsrelu_wrapper_sm100
    GemmAmaxSm100 gemm_amax_wrapper_sm100 GemmProjRopeMxfp8Bf16InSm100
    GemmProjRopeMxfp8Mxfp8InSm100 gemm_proj_rope_mxfp8_wrapper_sm100 RmsNormRhtAmaxSm100
    rmsnorm_rht_amax_wrapper_sm100 grouped_gemm GroupedGemmSm100 grouped_gemm_wrapper_sm100
    GroupedGemmSwigluSm100 grouped_gemm_swiglu_wrapper_sm100 GroupedGemmDswigluSm100
    grouped_gemm_dswiglu_wrapper_sm100 GroupedGemmSreluSm100 grouped_gemm_srelu_wrapper_sm100
    GroupedGemmDsreluSm100 grouped_gemm_dsrelu_wrapper_sm100 SdpafwdSm100D256
    sdpa_fwd_wrapper_sm100_d256 SdpabwdSm100D256 sdpa_bwd_wrapper_sm100_d256
    GroupedGemmQuantSm100 grouped_gemm_quant_wrapper_sm100 GroupedGemmGluSm100
    grouped_gemm_glu_wrapper_sm100 GroupedGemmGluHadamardSm100
    grouped_gemm_glu_hadamard_wrapper_sm100 GroupedGemmDgluSm100 grouped_gemm_dglu_wrapper_sm100
    GroupedGemmWgradSm100 grouped_gemm_wgrad_wrapper_sm100 discrete_grouped_gemm
    DiscreteGroupedGemmSwigluSm100 discrete_grouped_gemm_swiglu_wrapper_sm100
    DiscreteGroupedGemmDswigluSm100 discrete_grouped_gemm_dswiglu_wrapper_sm100
    gemm_swiglu_jax_sm100 gemm_srelu_jax_sm100 gemm_dsrelu_jax_sm100 gemm_amax_jax_sm100
    gemm_proj_rope_mxfp8_jax_sm100 grouped_gemm_jax_sm100 grouped_gemm_glu_jax_sm100
    grouped_gemm_dglu_jax_sm100 grouped_gemm_dsrelu_jax_sm100 grouped_gemm_wgrad_jax_sm100
    discrete_grouped_gemm_swiglu_jax_sm100 discrete_grouped_gemm_dswiglu_jax_sm100
    gnn Nvfp4AttentionQatBackward AlignedHCABackward aligned_hca_backward_wrapper
    GroupedGemmGluHadamardQuantSm100 grouped_gemm_glu_hadamard_quant_wrapper_sm100""".split()
)


def __getattr__(name):
    if name in _CUTEDSL_NAMES:
        raise ImportError(
            f"cudnn.{name} is one of the cuDNN frontend's CuTe DSL kernels (its optional 'cutedsl' extra); "
            "the graph compiler has no CuTe DSL kernels, only the graph API"
        )
    raise AttributeError(f"module 'cudnn' has no attribute {name!r}")
