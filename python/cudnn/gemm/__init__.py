"""``cudnn.gemm``: the frontend's GEMM operation family. There it holds CuTe
DSL kernels (dense, grouped and discrete-grouped GEMMs with fused
epilogues, SM100+), a pure-PyTorch reference and ``cudnn.gemm.ops``, the
torch operators built on cuDNN graphs; its public names resolve lazily.

Here ``cudnn.gemm.ops.swiglu_mlp`` is provided, built on this package's
graphs (``cudnn.pygraph``); the names that need the frontend's CuTe DSL
kernels raise ImportError saying so when they are resolved (importing
``cudnn.gemm`` itself works, as in the frontend, and needs no torch)."""

import importlib

# the names the frontend's cudnn/gemm/__init__.py exports, and the module
# each one comes from
_LAZY_EXPORTS = {
    "MhcProjectionBackward": "cudnn.gemm.mhc_projection_bwd",
    "mhc_projection_backward": "cudnn.gemm.mhc_projection_bwd",
    "moe_grouped_matmul": "cudnn.gemm.ops",
    "situ_mlp": "cudnn.gemm.ops",
    "swiglu_mlp": "cudnn.gemm.ops",
    "swiglu_moe": "cudnn.gemm.ops",
}

__all__ = list(_LAZY_EXPORTS)


def __getattr__(name: str):
    module = _LAZY_EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if module == "cudnn.gemm.mhc_projection_bwd":
        raise ImportError(
            f"cudnn.gemm.{name} is one of the cuDNN frontend's CuTe DSL kernels (its optional 'cutedsl' extra); "
            "the graph compiler has no CuTe DSL kernels, only the graph API"
        )
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
