"""``cudnn.ops``: the frontend's torch custom operators (causal conv1d and
friends). There they are CuTe DSL kernels of its optional 'cutedsl' extra,
resolved on first use; importing one without that extra raises ImportError.
The graph compiler has none of them, so each name raises that ImportError
here (``import cudnn.ops`` itself works, as in the frontend)."""

# the names the frontend's cudnn/ops/__init__.py exports
__all__ = [
    "causal_conv1d", "causal_conv1d_nwh", "causal_conv1d_update", "b2b_causal_conv1d", "fft_causal_conv1d",
    "fwht_mxfp4_qdq", "nvfp4_block_scale_quantize", "nvfp4_block_scale_dequantize", "Nvfp4BlockScaleQuantizer",
    "Nvfp4BlockScaleDequantizer",
]


def __getattr__(name: str):
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise ImportError(
        f"{name} requires optional dependencies: it is one of the cuDNN frontend's CuTe DSL torch operators "
        "(its 'cutedsl' extra); the graph compiler has no CuTe DSL kernels, only the graph API"
    )


def __dir__():
    return sorted(set(globals()) | set(__all__))
