"""``cudnn.ops.norm``: the frontend's PyTorch normalization operators
(``layer_norm``, ``rms_norm``), torch custom ops it builds on its own graphs
and imports lazily. This package does not provide them: each name raises
ImportError naming the graph to build instead (``import cudnn.ops.norm``
itself works, as in the frontend)."""

__all__ = ["layer_norm", "rms_norm"]

_GRAPH_OP = {"layer_norm": "layernorm", "rms_norm": "rmsnorm"}


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise ImportError(
        f"{__name__}.{name} is one of the cuDNN frontend's PyTorch operators built on its graphs; "
        f"the graph compiler does not provide it: build the graph with cudnn.pygraph().{_GRAPH_OP[name]}(...) "
        "and execute it on torch tensors"
    )


def __dir__():
    return sorted(set(globals()) | set(__all__))
