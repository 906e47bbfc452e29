"""``cudnn.gemm.ops``: the frontend's GEMM torch operators. ``swiglu_mlp``
(``cudnn.gemm.ops.swiglu_mlp``) is provided, on this package's graphs; the
other names the frontend exports here are not, and raise ImportError saying
why when they are resolved. Importing the package needs no torch
(swiglu_mlp imports it when called).

``swiglu_mlp`` is bound here to the function: importing the submodule binds
the package attribute to the module, and this import rebinds it."""

from .swiglu_mlp import swiglu_mlp  # noqa: F401

__all__ = ["moe_grouped_matmul", "situ_mlp", "swiglu_mlp", "swiglu_moe"]

_NOT_PROVIDED = {
    "moe_grouped_matmul": "a torch operator the frontend builds on its grouped GEMM kernels, which this package does not provide; "
    "build a graph with cudnn.pygraph().moe_grouped_matmul(...) and execute it on torch tensors",
    "situ_mlp": "an MLP entry point of the frontend this package does not provide; cudnn.gemm.ops.swiglu_mlp is the SwiGLU MLP",
    "swiglu_moe": "a torch operator over the frontend's CuTe DSL grouped GEMM kernels (its 'cutedsl' extra, SM100+); "
    "the graph compiler has no CuTe DSL kernels",
}


def __getattr__(name: str):
    if name in _NOT_PROVIDED:
        raise ImportError(f"cudnn.gemm.ops.{name} is not available: it is {_NOT_PROVIDED[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
