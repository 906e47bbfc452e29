"""``cudnn.experimental.ops``: the frontend's experimental PyTorch operators
(aliases of its torch ops built on cuDNN graphs, resolved lazily there). This
package does not provide them: each name raises ImportError naming the graph
op to build instead (importing the module itself works, as in the frontend)."""

__all__ = ["moe_grouped_matmul", "swiglu_mlp", "rms_norm", "layer_norm"]

_GRAPH_OP = {
    "moe_grouped_matmul": "moe_grouped_matmul",
    "swiglu_mlp": "matmul, swish and mul",
    "rms_norm": "rmsnorm",
    "layer_norm": "layernorm",
}


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise ImportError(
        f"{__name__}.{name} is one of the cuDNN frontend's experimental PyTorch operators; "
        f"the graph compiler does not provide it: build a graph with cudnn.pygraph() ({_GRAPH_OP[name]}) "
        "and execute it on torch tensors"
    )


def __dir__():
    return sorted(set(globals()) | set(__all__))
