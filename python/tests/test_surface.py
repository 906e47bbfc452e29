"""The public surface that the tables in _enums.py and _ops.py define, pinned:
every enum's members in value order, and every op builder's tensor ports,
attributes and outputs (with the suffixes of their auto names)."""

import enum
import pickle

import pytest

import graph_compiler as gc
from graph_compiler import _enums, _ops

# enum -> its members, valued 0, 1, 2 ... in this order
ENUMS = {
    "behavior_note": "RUNTIME_COMPILATION REQUIRES_FILTER_INT8x32_REORDER REQUIRES_BIAS_INT8x32_REORDER SUPPORTS_CUDA_GRAPH_NATIVE_API CUBLASLT_DEPENDENCY",
    "build_plan_policy": "HEURISTICS_CHOICE ALL",
    "convolution_mode": "CONVOLUTION CROSS_CORRELATION",
    "data_type": "NOT_SET FLOAT DOUBLE HALF INT8 INT32 INT8x4 UINT8 UINT8x4 INT8x32 BFLOAT16 INT64 BOOLEAN FP8_E4M3 FP8_E5M2 FAST_FLOAT_FOR_FP8 FP8_E8M0 FP4_E2M1 FP8_E5M3 INT4",
    "diagonal_alignment": "TOP_LEFT BOTTOM_RIGHT",
    "heur_mode": "A B FALLBACK OPENSOURCE INSTANT",
    "moe_grouped_matmul_mode": "NONE GATHER SCATTER COMBINE",
    "norm_forward_phase": "NOT_SET INFERENCE TRAINING",
    "numerical_note": "TENSOR_CORE DOWN_CONVERT_INPUTS REDUCED_PRECISION_REDUCTION FFT NONDETERMINISTIC WINOGRAD WINOGRAD_TILE_4x4 WINOGRAD_TILE_6x6 WINOGRAD_TILE_13x13 STRICT_NAN_PROP",
    "pointwise_mode": "NOT_SET ADD ADD_SQUARE DIV MAX MIN MOD MUL POW SUB ABS CEIL COS EXP FLOOR LOG NEG RSQRT SIN SQRT TAN LOGICAL_NOT "
    "RELU_FWD SIGMOID_FWD TANH_FWD ELU_FWD GELU_FWD GELU_APPROX_TANH_FWD SOFTPLUS_FWD SWISH_FWD RELU_BWD SIGMOID_BWD TANH_BWD ELU_BWD "
    "GELU_BWD GELU_APPROX_TANH_BWD SOFTPLUS_BWD SWISH_BWD CMP_EQ CMP_NEQ CMP_GT CMP_GE CMP_LT CMP_LE LOGICAL_AND LOGICAL_OR BINARY_SELECT "
    "GEN_INDEX ERF IDENTITY RECIPROCAL",
    "reduction_mode": "NOT_SET ADD MUL MIN MAX AMAX AVG NORM1 NORM2 MUL_NO_ZEROS",
    "reshape_mode": "VIEW_ONLY LOGICAL",
    "tensor_reordering": "NONE INT8x32 F16x16 F8_128x4",
    "scalar_type": "RUNTIME_PARAM COMPILE_TIME_CONST",
    "attention_implementation": "AUTO COMPOSITE UNIFIED",
    "cuda_graph_retention": "PER_GRAPH NONE",
    "knob_type": "NOT_SET SWIZZLE TILE_SIZE EDGE MULTIPLY SPLIT_K_BUF TILEK STAGES REDUCTION_MODE SPLIT_K_SLC IDX_MODE SPECFILT KERNEL_CFG "
    "WORKSPACE TILE_CGA_M TILE_CGA_N BLOCK_SIZE OCCUPANCY ARRAY_SIZE_PER_THREAD SPLIT_COLS TILE_ROWS TILE_COLS LOAD_SIZE CTA_COUNT STREAM_K "
    "SPLIT_P_SLC TILE_M TILE_N WARP_SPEC_CFG SWAP_AB INPUT_TMA_ENABLE OUTPUT_TMA_ENABLE TILE_CGA "
    "SCHED_POLICY PACK_GQA SPLIT_KV PIPELINE_ARCH MMA_TILE_M MMA_TILE_N MMA_TILE_K CTA_GROUP WARPS_M WARPS_N CGA_POLICY",
}
# earlier spellings this package keeps: alias -> what it names
ALIASES = {"numeric_note": "numerical_note"}

_CONV = "padding pre_padding post_padding stride dilation convolution_mode"
_LA_FWD = "scale output_final_state use_qk_l2norm checkpoint_every_n_tokens safe_gate batch_invariant"
_LA_BWD = "scale use_qk_l2norm batch_invariant"
_NORM_BWD = ("grad input scale mean inv_variance", "", "DX DScale:DSCALE DBias:DBIAS")

# op -> (tensor ports, "[]" marking a list port; attributes; outputs, "port:suffix" where the two differ)
OPS = {
    "layernorm": ("input scale bias epsilon", "norm_forward_phase", "Y mean:MEAN inv_var:INV_VARIANCE"),
    "adalayernorm": ("input scale bias epsilon", "norm_forward_phase", "Y mean:MEAN inv_var:INV_VARIANCE"),
    "instancenorm": ("input scale bias epsilon", "norm_forward_phase", "Y mean:MEAN inv_var:INV_VARIANCE"),
    "rmsnorm": ("input scale bias epsilon", "norm_forward_phase", "Y inv_var:INV_VARIANCE"),
    "batchnorm": (
        "input scale bias in_running_mean in_running_var epsilon momentum peer_stats[]",
        "",
        "Y mean:MEAN inv_var:INV_VARIANCE next_running_mean:NEXT_RUNNING_MEAN next_running_var:NEXT_RUNNING_VAR",
    ),
    "batchnorm_inference": ("input mean inv_variance scale bias", "", "Y"),
    "layernorm_backward": _NORM_BWD,
    "adalayernorm_backward": _NORM_BWD,
    "instancenorm_backward": _NORM_BWD,
    "batchnorm_backward": ("grad input scale mean inv_variance peer_stats[]", "", "DX DScale:DSCALE DBias:DBIAS"),
    "rmsnorm_backward": ("grad input scale inv_variance", "has_dbias", "DX DScale:Dscale DBias:Dbias"),
    "rng": ("seed offset", "bernoulli_probability distribution", "Y"),
    "genstats": ("input", "", "SUM SQ_SUM"),
    "reduction": ("input group_offset", "mode", "OUT_0"),
    "block_scale_quantize": ("input group_offset", "block_size axis transpose", "Y scale"),
    "block_scale_dequantize": ("input descale", "block_size is_negative_scale", "OUT_0"),
    "moe_grouped_matmul": ("token weight first_token_offset token_index token_ks", "mode top_k", "OUT_0"),
    "moe_grouped_matmul_bwd": ("doutput token first_token_offset", "", "dweight"),
    "conv_fprop": ("image weight", _CONV, "Y"),
    "conv_dgrad": ("loss filter", _CONV, "DX"),
    "conv_wgrad": ("image loss", _CONV, "DW"),
    "reshape": ("input", "reshape_mode", "OUT_0"),
    "slice": ("input", "slices", "OUT_0"),
    "transpose": ("input", "permutation", "OUT_0"),
    "concatenate": ("inputs[]", "axis in_place_index", "OUT_0"),
    "rope": ("input freqs", "output_scale rope_dim", "OUT_0"),
    "rope_backward": ("dY freqs", "output_scale rope_dim", "OUT_0"),
    "gdn": ("q k v g beta cu_seqlens initial_state a_log dt_bias", _LA_FWD, "O final_state state_checkpoints"),
    "kda": ("q k v g beta cu_seqlens initial_state a_log dt_bias", _LA_FWD + " use_beta_sigmoid gate_lower_bound", "O final_state state_checkpoints"),
    "gdn2": ("q k v g beta w cu_seqlens initial_state a_log dt_bias", _LA_FWD + " gate_lower_bound", "O final_state state_checkpoints"),
    "gdn_bwd": ("q k v g beta cu_seqlens dO state_checkpoints initial_state d_final_state", _LA_BWD, "dQ dK dV dG dBeta d_initial_state"),
    "kda_bwd": ("q k v g beta cu_seqlens dO state_checkpoints initial_state d_final_state", _LA_BWD, "dQ dK dV dG dBeta d_initial_state"),
    "gdn2_bwd": ("q k v g beta w cu_seqlens dO state_checkpoints initial_state d_final_state", _LA_BWD, "dQ dK dV dG dBeta dW d_initial_state"),
}

# sdpa-family op -> (positional tensor ports; outputs[; what the builder returns when not all of them])
SDPA = {
    "sdpa": ("q k v", "O Stats score_max score_sum_exp", "O Stats"),
    "sdpa_backward": ("q k v o dO stats", "dQ dK dV dBias dSink_token", "dQ dK dV"),
    "sdpa_fp8": ("q k v descale_q descale_k descale_v descale_s scale_s scale_o", "O Stats Amax_S Amax_O"),
    "sdpa_fp8_backward": (
        "q k v o dO stats descale_q descale_k descale_v descale_o descale_dO descale_s descale_dP scale_s scale_dQ scale_dK scale_dV scale_dP",
        "dQ dK dV amax_dQ amax_dK amax_dV amax_dP",
    ),
    "sdpa_mxfp8": ("q k v descale_q descale_k descale_v", "O Stats Amax_O"),
    "sdpa_mxfp8_backward": (
        "q q_T k k_T v o_f16 dO_f16 dO dO_T stats descale_q descale_q_T descale_k descale_k_T descale_v descale_dO descale_dO_T",
        "dQ dK dV amax_dQ amax_dK amax_dV",
    ),
}


def test_every_enum_and_op_is_pinned():
    enums = {n for n, v in vars(_enums).items() if isinstance(v, type) and issubclass(v, enum.Enum)}
    assert enums == set(ENUMS) | set(ALIASES)
    for alias, target in ALIASES.items():
        assert getattr(gc, alias) is getattr(gc, target) is getattr(_enums, target)
    assert gc.reshape_mode.VIEW is gc.reshape_mode.VIEW_ONLY
    assert [op for op, spec in _ops.OPS.items() if not spec.get("internal")] == list(OPS)
    assert list(_ops.SDPA_OPS) == list(SDPA)
    # ops the compiler builds for the frontend's composites, not builders of
    # the frontend's surface: no pygraph method
    internal = [op for op, spec in _ops.OPS.items() if spec.get("internal")]
    assert internal == ["paged_cache_load"]
    assert not any(hasattr(gc.pygraph, op) for op in internal)


ONE_BASED = dict.fromkeys(("behavior_note", "numerical_note", "convolution_mode", "reshape_mode", "moe_grouped_matmul_mode"), 1)


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_enum(name):
    cls = getattr(gc, name)
    assert cls is getattr(_enums, name)
    assert [m.name for m in cls] == ENUMS[name].split()
    if name == "knob_type":  # two bands: the backend mirror from 0, the frontend-only knobs from 1000
        n_backend = ENUMS[name].split().index("SCHED_POLICY")
        assert [m.value for m in cls] == list(range(n_backend)) + list(range(1000, 1000 + len(cls) - n_backend))
    else:
        # 1-based where the frontend's C++ enum starts with a NOT_SET its
        # bindings leave out
        start = ONE_BASED.get(name, 0)
        assert [m.value for m in cls] == list(range(start, start + len(ENUMS[name].split())))
    assert (cls.__module__, cls.__qualname__) == (_enums.__name__, name)
    for m in cls:
        assert str(m) == f"{name}.{m.name}"
        assert pickle.loads(pickle.dumps(m)) is m


def test_enum_docstrings():
    assert gc.pointwise_mode.__doc__.startswith("The frontend's pointwise modes; the graph builders")
    assert gc.data_type.__doc__.startswith("Element types.")
    assert gc.heur_mode.__doc__ is None


def _outputs(text):
    return tuple(tuple(o.split(":")) if ":" in o else (o, o) for o in text.split())


@pytest.mark.parametrize("op", list(OPS))
def test_structured_builder(op):
    ports, attrs, outs = OPS[op]
    spec = _ops.OPS[op]
    plain = [p for p in ports.split() if not p.endswith("[]")]
    lists = [p[:-2] for p in ports.split() if p.endswith("[]")]
    assert (spec["inputs"], spec.get("list_inputs", ()), spec.get("attrs", ())) == (tuple(plain), tuple(lists), tuple(attrs.split()))
    assert tuple(spec["outputs"]) == _outputs(outs)
    builder = getattr(gc.pygraph, op)
    assert builder.__name__ == op
    assert builder.__doc__ == f"{op}({', '.join(plain + lists)}) -> ({', '.join(p for p, _ in _outputs(outs))})."
    positional = (plain or lists) + attrs.split()
    g = gc.pygraph()
    with pytest.raises(TypeError, match=rf"^{op}\(\) takes at most {len(positional)} positional arguments \({', '.join(positional)}\)$"):
        builder(g, *([None] * (len(positional) + 1)))


@pytest.mark.parametrize("op", list(SDPA))
def test_sdpa_builder(op):
    pos, outs, *returns = SDPA[op]
    spec = _ops.SDPA_OPS[op]
    assert spec["pos"] == tuple(pos.split())
    assert tuple(p for p, _ in spec["outputs"]) == tuple(outs.split())
    returned = (returns or [outs])[0]
    assert getattr(gc.pygraph, op).__doc__ == f"{op}({', '.join(pos.split())}, ...) -> [{', '.join(returned.split())}]"
