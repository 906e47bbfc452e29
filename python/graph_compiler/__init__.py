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
