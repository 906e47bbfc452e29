"""The op table: for each builder, its tensor ports (in positional order), its
attributes, its outputs, how output dims and default data types follow from
the inputs, and the attributes the node passes to the C API builder
(graphBuilderOp)."""

import math

from ._enums import (
    convolution_mode,
    data_type,
    diagonal_alignment,
    enum_name,
    moe_grouped_matmul_mode,
    norm_forward_phase,
    reduction_mode,
)
from ._tensor import check_int, check_ints

# ---------------------------------------------------------------------------
# Attribute text helpers (graphBuilderOp takes an MLIR attribute dictionary)
# ---------------------------------------------------------------------------


def fmt_float(value: float) -> str:
    value = float(value)
    if math.isfinite(value):
        return f"{value:.17e}"
    import struct

    return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]


# Float element types: (bits, exponent bits, mantissa bits, has infinity,
# NaN's bits or None for IEEE-style NaN, has a sign bit).
_FLOAT_FORMATS = {
    "f64": (64, 11, 52, True, None, True),
    "f32": (32, 8, 23, True, None, True),
    "f16": (16, 5, 10, True, None, True),
    "bf16": (16, 8, 7, True, None, True),
    "f8E5M2": (8, 5, 2, True, None, True),
    "f8E4M3FN": (8, 4, 3, False, 0x7F, True),
    "f8E8M0FNU": (8, 8, 0, False, 0xFF, False),
    "f4E2M1FN": (4, 2, 1, False, False, True),
}


def nonfinite_bits(value: float, elt: str) -> str:
    """A NaN or infinity as MLIR's hexadecimal float literal of ``elt`` (the
    bit pattern, exactly as wide as the type: the parser refuses wider
    ones). ValueError when ``elt`` has no such value (an fp8/fp4 type
    without infinity or NaN)."""
    fmt = _FLOAT_FORMATS.get(elt)
    if fmt is None:
        raise ValueError(f"{value} has no form in element type {elt}")
    bits, ebits, mbits, has_inf, nan_bits, signed = fmt
    negative = math.copysign(1.0, value) < 0
    if math.isnan(value):
        if nan_bits is False:
            raise ValueError(f"element type {elt} has no NaN")
        pattern = nan_bits if nan_bits is not None else (((1 << ebits) - 1) << mbits) | (1 << (mbits - 1))
    else:
        if not has_inf:
            raise ValueError(f"element type {elt} has no infinity")
        pattern = ((1 << ebits) - 1) << mbits
    if negative and signed:
        pattern |= 1 << (bits - 1)
    return "0x%0*X" % (max(bits // 4, 1), pattern)


def f64(value) -> str:
    return f"{fmt_float(value)} : f64"


def i64(value, what: str = "an integer attribute") -> str:
    """An i64 attribute; TypeError naming ``what`` for a value that is not
    an int of int64's range (a float is not truncated: the frontend's
    bindings refuse it)."""
    return f"{check_int(value, what)} : i64"


def i64_array(values, what: str = "an integer array attribute") -> str:
    return "array<i64" + ("" if not values else ": " + ", ".join(str(check_int(v, f"{what}[{i}]")) for i, v in enumerate(values))) + ">"


# ---------------------------------------------------------------------------
# Attribute forms the dims depend on (the dims themselves are the compiler's
# shape rules: result_dims below)
# ---------------------------------------------------------------------------


def _slice_bounds(node):
    t = node.inputs.get("input")
    d = list(t.dim) if t is not None and t.dim else None
    sls = node.params.get("slices")
    if not d or sls is None:
        return None
    sls = list(sls) + [slice(None)] * (len(d) - len(sls))
    starts, limits, steps = [], [], []
    for sl, n in zip(sls, d):
        if isinstance(sl, int):
            sl = slice(sl, sl + 1)
        if not isinstance(sl, slice):
            raise TypeError(f"slice: slices must be python slice objects or ints, got {sl!r}")
        start, stop, step = sl.indices(int(n))
        if step < 1:
            raise NotImplementedError(f"slice: step {step} (the graph dialect slices with steps >= 1)")
        stop = max(stop, start)
        starts.append(start)
        limits.append(stop)
        steps.append(step)
    return starts, limits, steps


# ---------------------------------------------------------------------------
# Attribute conversions
# ---------------------------------------------------------------------------


def _phase_keyword(node):
    phase = node.params.get("norm_forward_phase")
    if phase is None or enum_name(phase) in ("not_set", "none"):
        return "training"
    name = enum_name(phase)
    if name not in ("training", "inference"):
        raise ValueError(f"norm_forward_phase must be TRAINING or INFERENCE, got {phase}")
    return name


def _training(node):
    return _phase_keyword(node) == "training"


def _conv_attrs(node):
    attrs = []
    p = node.params
    for key in ("padding", "pre_padding", "post_padding", "stride", "dilation"):
        if p.get(key) is not None:
            attrs.append((key, i64_array(p[key], key)))
    mode = p.get("convolution_mode")
    if mode is not None:
        attrs.append(("convolution_mode", f"#graph.conv_mode<{enum_name(mode)}>"))
    return attrs


def _enum_member(enum, value, what):
    """``value`` as a member of ``enum`` (a member, or its name in any case;
    NOT_SET is refused): TypeError for another type, ValueError for a name
    or member that is not accepted, each listing what is."""
    listing = _enum_listing(enum)
    if isinstance(value, str):
        member = enum.__members__.get(value.upper())
        if member is None or member.name == "NOT_SET":
            raise ValueError(f"{what}={value!r} is not accepted: it takes {listing}")
        return member
    if not isinstance(value, enum):
        raise TypeError(f"{what} takes {listing}, got {type(value).__name__} {value!r}")
    if value.name == "NOT_SET":
        raise ValueError(f"{what}={value} is not accepted: it takes {listing}")
    return value


def _conv_list(op, node, key):
    value = node.params[key]
    if isinstance(value, (str, bytes, bytearray)) or not hasattr(value, "__iter__"):
        raise TypeError(
            f"{op}({key}={value!r}): {key} takes a list of ints, one per spatial dim (e.g. [1, 1] for a 2-D convolution); "
            "padding modes such as 'same' or 'valid' are not accepted, give the padding itself"
        )
    values = check_ints(value, f"{op}(): {key}")
    first = node.inputs.get(OPS[op]["inputs"][0])
    if first is not None and first.dim and len(first.dim) >= 3 and len(values) != len(first.dim) - 2:
        sp = len(first.dim) - 2
        raise ValueError(f"{op}(): {key} {values} has {len(values)} entries, but {first.name!r} (dims {list(first.dim)}) has {sp} spatial dims: give {sp}, one per spatial dim")
    if key in ("stride", "dilation"):
        for i, v in enumerate(values):
            if v < 1:
                raise ValueError(f"{op}(): {key}[{i}] is {v}: a convolution {key} must be at least 1")
    return values


# Attributes the frontend's bindings take as int64_t (a float there is a
# TypeError, not truncated) and as lists of them.
_INT_ATTRS = ("rope_dim", "axis", "top_k", "in_place_index", "max_seq_len", "paged_attention_max_seq_len_kv",
              "max_total_seq_len_q", "max_total_seq_len_kv")
_INT_LIST_ATTRS = ("permutation",)


def check_attrs(op, node):
    """Check (and normalize) the attributes a builder was given, so a bad
    one is reported at the builder, naming it and what is accepted."""
    p = node.params
    for key in _INT_ATTRS:
        if p.get(key) is not None:
            p[key] = check_int(p[key], f"{op}(): {key}")
    for key in _INT_LIST_ATTRS:
        if p.get(key) is not None:
            p[key] = check_ints(p[key], f"{op}(): {key}")
    if OPS[op].get("emit") == "conv":
        for key in ("padding", "pre_padding", "post_padding", "stride", "dilation"):
            if p.get(key) is not None:
                p[key] = _conv_list(op, node, key)
        if p.get("convolution_mode") is not None:
            p["convolution_mode"] = _enum_member(convolution_mode, p["convolution_mode"], f"{op}(): convolution_mode")
    elif op == "rng":
        dist = p.get("distribution")
        if dist is not None and str(getattr(dist, "name", dist)).upper() != "BERNOULLI":
            from ._graph import cudnnGraphNotSupportedError

            raise cudnnGraphNotSupportedError(f"rng(): distribution {dist} is not supported: cuDNN's Philox masks here are Bernoulli only")
        keep = p.get("bernoulli_probability")
        if keep is None:
            raise ValueError("rng(): bernoulli_probability (the keep probability) is required")
        if isinstance(keep, bool) or not isinstance(keep, (int, float)) or not 0.0 <= float(keep) <= 1.0:
            raise ValueError(f"rng(): bernoulli_probability must be a number in [0, 1], got {keep!r}")
        p["bernoulli_probability"] = float(keep)
        p.pop("distribution", None)
    elif op == "reduction":
        if p.get("mode") is None:
            raise ValueError(f"reduction(): mode is required: {_enum_listing(reduction_mode)}")
        p["mode"] = _enum_member(reduction_mode, p["mode"], "reduction(): mode")


def _enum_listing(enum):
    return f"a cudnn.{enum.__name__} ({', '.join(m.name for m in enum if m.name != 'NOT_SET')})"


def _reduction_keyword(mode):
    if mode is None:
        raise ValueError("reduction needs a mode (cudnn.reduction_mode.ADD, ...)")
    name = enum_name(mode)
    if name == "not_set":
        raise ValueError("reduction needs a mode (cudnn.reduction_mode.ADD, ...)")
    return name


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------
#
# inputs        tensor ports in positional order (port name == builder kwarg)
# list_inputs   ports taking a list of tensors
# attrs         non-tensor kwargs, positional after the ports
# outputs       (port, suffix of the auto name "<node>::<suffix>")
# maybe         port -> predicate(node): the output exists
# dtype         port -> "like:<input port>" | a data_type default
# emit          name of the attribute function below (_ATTRS)

_OUT_0 = (("OUT_0", "OUT_0"),)


def _norm_fwd():
    """layernorm, adalayernorm, instancenorm: mean and inv_var exist in
    training."""
    return dict(
        inputs=("input", "scale", "bias", "epsilon"),
        attrs=("norm_forward_phase",),
        outputs=(("Y", "Y"), ("mean", "MEAN"), ("inv_var", "INV_VARIANCE")),
        maybe={"mean": _training, "inv_var": _training},
        emit="norm_fwd",
    )


_CONV_ATTRS = ("padding", "pre_padding", "post_padding", "stride", "dilation", "convolution_mode")


def _conv(inputs, out):
    return dict(inputs=inputs, attrs=_CONV_ATTRS, outputs=((out, out),), emit="conv")


def _one_input(attr, emit, **more):
    """reshape, slice, transpose: one input, one attribute, an output of the
    input's data type."""
    spec = dict(inputs=("input",), attrs=(attr,), outputs=_OUT_0)
    return dict(spec, dtype={"OUT_0": "like:input"}, emit=emit, **more)


def _rope(first):
    return dict(inputs=(first, "freqs"), attrs=("output_scale", "rope_dim"), outputs=_OUT_0, emit="rope")


_NORM_BWD = dict(
    inputs=("grad", "input", "scale", "mean", "inv_variance"),
    outputs=(("DX", "DX"), ("DScale", "DSCALE"), ("DBias", "DBIAS")),
    emit="norm_bwd",
)

_LA_FWD_INPUTS = ("q", "k", "v", "g", "beta")
_LA_FWD_TAIL = ("cu_seqlens", "initial_state", "a_log", "dt_bias")
_LA_FWD_ATTRS = ("scale", "output_final_state", "use_qk_l2norm", "checkpoint_every_n_tokens", "safe_gate", "batch_invariant")
_LA_BWD_TAIL = ("cu_seqlens", "dO", "state_checkpoints", "initial_state", "d_final_state")


def _la_fwd(extra_in=(), extra_attrs=()):
    return dict(
        inputs=_LA_FWD_INPUTS + tuple(extra_in) + _LA_FWD_TAIL,
        attrs=_LA_FWD_ATTRS + tuple(extra_attrs),
        outputs=(("O", "O"), ("final_state", "final_state"), ("state_checkpoints", "state_checkpoints")),
        maybe={
            "final_state": lambda n: bool(n.params.get("output_final_state")),
            "state_checkpoints": lambda n: bool(n.params.get("checkpoint_every_n_tokens")),
        },
        dtype={"final_state": data_type.FLOAT, "state_checkpoints": data_type.FLOAT, "O": "like:v"},
        emit="linear_attention_fwd",
        fixed=len(_LA_FWD_INPUTS) + len(extra_in),
    )


def _la_bwd(extra_in=(), extra_out=()):
    outs = [("dQ", "dQ"), ("dK", "dK"), ("dV", "dV"), ("dG", "dG"), ("dBeta", "dBeta")] + [(p, p) for p in extra_out] + [("d_initial_state", "d_initial_state")]
    like = {"dQ": "q", "dK": "k", "dV": "v", "dG": "g", "dBeta": "beta", "dW": "w", "d_initial_state": "initial_state"}
    return dict(
        inputs=_LA_FWD_INPUTS + tuple(extra_in) + _LA_BWD_TAIL,
        attrs=("scale", "use_qk_l2norm", "batch_invariant"),
        outputs=tuple(outs),
        maybe={"d_initial_state": lambda n: n.inputs.get("initial_state") is not None},
        dtype={p: "like:" + like[p] for p, _ in outs},
        emit="linear_attention_bwd",
        fixed=len(_LA_FWD_INPUTS) + len(extra_in),
    )


OPS = {
    # ---- norms ---------------------------------------------------------------
    "layernorm": _norm_fwd(),
    "adalayernorm": _norm_fwd(),
    "instancenorm": _norm_fwd(),
    "rmsnorm": dict(
        inputs=("input", "scale", "bias", "epsilon"),
        attrs=("norm_forward_phase",),
        outputs=(("Y", "Y"), ("inv_var", "INV_VARIANCE")),
        maybe={"inv_var": _training},
        emit="rmsnorm",
    ),
    "batchnorm": dict(
        inputs=("input", "scale", "bias", "in_running_mean", "in_running_var", "epsilon", "momentum"),
        list_inputs=("peer_stats",),
        outputs=(("Y", "Y"), ("mean", "MEAN"), ("inv_var", "INV_VARIANCE"), ("next_running_mean", "NEXT_RUNNING_MEAN"), ("next_running_var", "NEXT_RUNNING_VAR")),
        maybe={
            "next_running_mean": lambda n: n.inputs.get("in_running_mean") is not None,
            "next_running_var": lambda n: n.inputs.get("in_running_var") is not None,
        },
        emit="batchnorm",
    ),
    "batchnorm_inference": dict(
        inputs=("input", "mean", "inv_variance", "scale", "bias"),
        outputs=(("Y", "Y"),),
        emit="batchnorm_inference",
    ),
    "layernorm_backward": _NORM_BWD,
    "adalayernorm_backward": _NORM_BWD,
    "instancenorm_backward": _NORM_BWD,
    "batchnorm_backward": dict(_NORM_BWD, list_inputs=("peer_stats",)),
    "rmsnorm_backward": dict(
        inputs=("grad", "input", "scale", "inv_variance"),
        attrs=("has_dbias",),
        outputs=(("DX", "DX"), ("DScale", "Dscale"), ("DBias", "Dbias")),
        maybe={"DBias": lambda n: n.params.get("has_dbias", True) is not False},
        emit="rmsnorm_bwd",
    ),
    "rng": dict(
        inputs=("seed", "offset"),
        attrs=("bernoulli_probability", "distribution"),
        outputs=(("Y", "Y"),),
        dtype={"Y": data_type.FLOAT},
        emit="rng",
    ),
    "genstats": dict(
        inputs=("input",),
        outputs=(("SUM", "SUM"), ("SQ_SUM", "SQ_SUM")),
        emit="genstats",
    ),
    # ---- reduction, quantization, MoE -----------------------------------------
    "reduction": dict(
        inputs=("input", "group_offset"),
        attrs=("mode",),
        outputs=_OUT_0,
        emit="reduction",
    ),
    "block_scale_quantize": dict(
        inputs=("input", "group_offset"),
        attrs=("block_size", "axis", "transpose"),
        outputs=(("Y", "Y"), ("scale", "scale")),
        dtype={"Y": data_type.FP8_E4M3, "scale": data_type.FP8_E8M0},
        emit="block_scale_quantize",
    ),
    "block_scale_dequantize": dict(
        inputs=("input", "descale"),
        attrs=("block_size", "is_negative_scale"),
        outputs=_OUT_0,
        emit="block_scale_dequantize",
    ),
    "moe_grouped_matmul": dict(
        inputs=("token", "weight", "first_token_offset", "token_index", "token_ks"),
        attrs=("mode", "top_k"),
        outputs=_OUT_0,
        emit="moe",
    ),
    "moe_grouped_matmul_bwd": dict(
        inputs=("doutput", "token", "first_token_offset"),
        outputs=(("dweight", "dweight"),),
        emit="moe_bwd",
    ),
    # ---- convolution -----------------------------------------------------------
    "conv_fprop": _conv(("image", "weight"), "Y"),
    "conv_dgrad": _conv(("loss", "filter"), "DX"),
    "conv_wgrad": _conv(("image", "loss"), "DW"),
    # ---- structural --------------------------------------------------------------
    "reshape": _one_input("reshape_mode", "unary_structural", no_cdt=True),
    "slice": _one_input("slices", "slice"),
    "transpose": _one_input("permutation", "transpose"),
    "concatenate": dict(
        inputs=(),
        list_inputs=("inputs",),
        attrs=("axis", "in_place_index"),
        outputs=_OUT_0,
        dtype={"OUT_0": "like:inputs"},
        emit="concatenate",
        no_cdt=True,
    ),
    "rope": _rope("input"),
    "rope_backward": _rope("dY"),
    # a paged K/V cache gathered into [B, H, S, D]: the frontend has no such
    # builder (its sdpa takes page tables), so it is not a pygraph method;
    # the score_mod composite builds it
    "paged_cache_load": dict(
        inputs=("container", "page_table", "seq_len"),
        attrs=("max_seq_len",),
        outputs=(("Y", "Y"),),
        dtype={"Y": "like:container"},
        emit="paged_cache_load",
        internal=True,
    ),
    # ---- linear attention ----------------------------------------------------------
    "gdn": _la_fwd(),
    "kda": _la_fwd(extra_attrs=("use_beta_sigmoid", "gate_lower_bound")),
    "gdn2": _la_fwd(extra_in=("w",), extra_attrs=("gate_lower_bound",)),
    "gdn_bwd": _la_bwd(),
    "kda_bwd": _la_bwd(),
    "gdn2_bwd": _la_bwd(extra_in=("w",), extra_out=("dW",)),
}

# mnemonic in the dialect when it differs from the builder name
MNEMONIC = {}

# ---------------------------------------------------------------------------
# The sdpa family
# ---------------------------------------------------------------------------

SDPA_OPTIONAL_OPERANDS = ("attn_scale", "bias", "seq_len_q", "seq_len_kv", "dropout_mask")

# The ports of each op that take a ragged (packed) layout: the op's
# ragged_offset_<port> operand carries the tensor's offsets.
RAGGED_PORTS = {
    "sdpa": ("q", "k", "v", "O", "Stats", "page_table_k", "page_table_v"),
    "sdpa_fp8": ("q", "k", "v", "O", "Stats"),
    "sdpa_backward": ("q", "k", "v", "o", "dO", "stats", "dQ", "dK", "dV"),
}

SDPA_OPS = {
    "sdpa": dict(
        pos=("q", "k", "v"),
        groups=(),
        outputs=(("O", "O"), ("Stats", "Stats"), ("score_max", "score_max"), ("score_sum_exp", "score_sum_exp")),
        out_kwargs=("score_max", "score_sum_exp"),
        returns=("O", "Stats"),  # the frontend returns [O, Stats]; score_max/score_sum_exp are the caller's
        optional_style=True,
        stats=True,
    ),
    "sdpa_backward": dict(
        pos=("q", "k", "v", "o", "dO", "stats"),
        groups=(),
        outputs=(("dQ", "dQ"), ("dK", "dK"), ("dV", "dV"), ("dBias", "dBias"), ("dSink_token", "dSink_token")),
        out_kwargs=("dBias", "dSink_token"),
        returns=("dQ", "dK", "dV"),  # dBias and dSink_token are the caller's tensors, not returned
    ),
    "sdpa_fp8": dict(
        pos=("q", "k", "v", "descale_q", "descale_k", "descale_v", "descale_s", "scale_s", "scale_o"),
        groups=(("descale", 3, 7), ("scale", 7, 9)),
        outputs=(("O", "O"), ("Stats", "Stats"), ("Amax_S", "Amax_S"), ("Amax_O", "Amax_O")),
        stats=True,
    ),
    "sdpa_fp8_backward": dict(
        pos=(
            "q", "k", "v", "o", "dO", "stats",
            "descale_q", "descale_k", "descale_v", "descale_o", "descale_dO", "descale_s", "descale_dP",
            "scale_s", "scale_dQ", "scale_dK", "scale_dV", "scale_dP",
        ),
        groups=(("descale", 6, 13), ("scale", 13, 18)),
        outputs=(("dQ", "dQ"), ("dK", "dK"), ("dV", "dV"), ("amax_dQ", "amax_dQ"), ("amax_dK", "amax_dK"), ("amax_dV", "amax_dV"), ("amax_dP", "amax_dP")),
    ),
    "sdpa_mxfp8": dict(
        pos=("q", "k", "v", "descale_q", "descale_k", "descale_v"),
        groups=(("descale", 3, 6),),
        outputs=(("O", "O"), ("Stats", "Stats"), ("Amax_O", "Amax_O")),
        stats=True,
    ),
    "sdpa_mxfp8_backward": dict(
        pos=(
            "q", "q_T", "k", "k_T", "v", "o_f16", "dO_f16", "dO", "dO_T", "stats",
            "descale_q", "descale_q_T", "descale_k", "descale_k_T", "descale_v", "descale_dO", "descale_dO_T",
        ),
        groups=(("descale", 10, 17),),
        outputs=(("dQ", "dQ"), ("dK", "dK"), ("dV", "dV"), ("amax_dQ", "amax_dQ"), ("amax_dK", "amax_dK"), ("amax_dV", "amax_dV")),
    ),
}

SDPA_FLOAT_OUTPUTS = {"Stats", "score_max", "score_sum_exp", "Amax_S", "Amax_O", "amax_dQ", "amax_dK", "amax_dV", "amax_dP"}

# kwargs of the frontend's sdpa builders the dialect has no form for
SDPA_UNSUPPORTED = (
    "paged_attention_k_table",
    "paged_attention_v_table",
    "paged_attention_max_seq_len_kv",
    "score_mod",
)
# attention sinks: graph.sdpa's and sdpa_backward's sink_token operand (and
# sdpa_backward's dSink_token result); the fp8/mxfp8 ops have none
SDPA_SINK = ("sink_token", "dSink_token")
# the frontend's bounds on a ragged batch's total positions (sum of seq_len),
# which size its THD workspaces: taken and checked, not needed (the compiler's
# workspaces are sized by the padded dims)
SDPA_MAX_TOTAL_SEQ_LEN = ("max_total_seq_len_q", "max_total_seq_len_kv")
# ... and of sdpa_backward alone: the backward score modification callback
# without a score_mod (with one, _score_mod builds the composite backward)
SDPA_BACKWARD_UNSUPPORTED = ("score_mod_bprop",)
# ... and of the fp8/mxfp8 forwards alone: block-scaled O (sf_o, the caller's
# per-(b, h) scale-factor planes of an FP4/E4M3 O, and sdpa_mxfp8's scale_o, the
# FP4 global scale). The frontend has no cuDNN backend lowering for them: its
# own tests (sdpa/fp8.py, sdpa/mxfp8.py) say they run on its python (FROST)
# MXFP8 engine only, which the compiler does not have
SDPA_BLOCK_SCALED_O_UNSUPPORTED = {"sdpa_fp8": ("sf_o",), "sdpa_mxfp8": ("sf_o", "scale_o")}
# a block mask is graph.sdpa's alone (cuDNN's unified forward takes it)
SDPA_OP_UNSUPPORTED = {
    op: SDPA_BLOCK_SCALED_O_UNSUPPORTED.get(op, ()) + SDPA_SINK + ("block_mask",)
    for op in ("sdpa_fp8", "sdpa_fp8_backward", "sdpa_mxfp8", "sdpa_mxfp8_backward")
}
SDPA_OP_UNSUPPORTED["sdpa_backward"] = SDPA_BACKWARD_UNSUPPORTED + ("block_mask",)


# ---------------------------------------------------------------------------
# Attributes: what each node passes to graphBuilderOp besides its tensors,
# mode and name, as (name, MLIR attribute text or None for a unit attribute)
# ---------------------------------------------------------------------------


def _require(node, ports):
    """The tensors of ``ports`` (KeyError for a port the node lacks)."""
    return [node.inputs[p] for p in ports]


def _attrs_norm_fwd(node, spec):
    return []


def _attrs_batchnorm(node, spec):
    _require(node, ("input", "scale", "bias", "epsilon"))
    return []


def _attrs_batchnorm_inference(node, spec):
    _require(node, ("input", "mean", "inv_variance", "scale", "bias"))
    return []


def _attrs_norm_bwd(node, spec):
    _require(node, ("grad", "input", "scale", "mean", "inv_variance"))
    return []


def _attrs_rmsnorm_bwd(node, spec):
    _require(node, ("grad", "input", "scale", "inv_variance"))
    return [] if node.params.get("has_dbias", True) is not False else [("has_dbias", "false")]


def _attrs_genstats(node, spec):
    _require(node, ("input",))
    return []


def _attrs_rng(node, spec):
    _require(node, ("seed", "offset"))
    return [("bernoulli_probability", f64(node.params["bernoulli_probability"]))]


def _attrs_reduction(node, spec):
    _require(node, ("input",))
    _reduction_keyword(node.params.get("mode"))
    return []


def _block_size_attrs(node):
    """The block_size attribute the block-scale ops need (their error if the
    node has none)."""
    if node.params.get("block_size") is None:
        raise ValueError(f"{node.op} {node.name!r} needs block_size")
    # a list is made one size by the builder (_GraphBuilding._blocked_elsewhere)
    return [("block_size", i64(int(node.params["block_size"]), "block_size"))]


def _attrs_block_scale_quantize(node, spec):
    _require(node, ("input",))
    p = node.params
    extra = _block_size_attrs(node)
    if p.get("axis") is not None:
        extra.append(("axis", i64(p["axis"], "axis")))
    if p.get("transpose"):
        extra.append(("transpose", None))
    return extra


def _attrs_block_scale_dequantize(node, spec):
    _require(node, ("input", "descale"))
    extra = _block_size_attrs(node)
    if node.params.get("is_negative_scale"):
        extra.append(("is_negative_scale", None))
    return extra


def _attrs_moe(node, spec):
    _require(node, ("token", "weight", "first_token_offset"))
    extra = []
    if node.params.get("mode") is not None:
        extra.append(("mode", f"#graph.moe_mode<{enum_name(node.params['mode'])}>"))
    if node.params.get("top_k") is not None:
        extra.append(("top_k", i64(node.params["top_k"], "top_k")))
    return extra


def _attrs_moe_bwd(node, spec):
    _require(node, ("doutput", "token", "first_token_offset"))
    return []


def _attrs_conv(node, spec):
    _require(node, spec["inputs"])
    p = node.params
    if p.get("padding") is not None and (p.get("pre_padding") is not None or p.get("post_padding") is not None):
        # the frontend lets pre/post override the symmetric padding
        p = dict(p)
        sym = p.pop("padding")
        p.setdefault("pre_padding", sym)
        p.setdefault("post_padding", sym)
        if p["pre_padding"] is None:
            p["pre_padding"] = sym
        if p["post_padding"] is None:
            p["post_padding"] = sym

        class _N:  # a view of the node with the merged params
            params = p

        return _conv_attrs(_N)
    return _conv_attrs(node)


def _attrs_unary_structural(node, spec):
    _require(node, ("input",))
    mode = node.params.get("reshape_mode")
    if mode is not None and enum_name(mode) not in ("view_only", "view", "logical"):
        raise NotImplementedError(f"reshape: reshape_mode {mode}")
    return []


def _attrs_slice(node, spec):
    _require(node, ("input",))
    bounds = _slice_bounds(node)
    if bounds is None:
        raise ValueError(f"slice {node.name!r} needs slices=[slice(...), ...]")
    starts, limits, steps = bounds
    extra = [("start", i64_array(starts, "slice start")), ("limit", i64_array(limits, "slice limit"))]
    if any(s != 1 for s in steps):
        extra.append(("step", i64_array(steps, "slice step")))
    return extra


def _attrs_transpose(node, spec):
    _require(node, ("input",))
    perm = node.params.get("permutation")
    if perm is None:
        raise ValueError(f"transpose {node.name!r} needs permutation")
    return [("permutation", i64_array(perm, "permutation"))]


def _attrs_concatenate(node, spec):
    ins = node.list_inputs.get("inputs") or []
    axis = node.params.get("axis")
    if axis is None:
        raise ValueError(f"concatenate {node.name!r} needs axis")
    if ins and axis < 0:
        axis += len(ins[0].dim)
    extra = [("axis", i64(axis, "axis"))]
    if node.params.get("in_place_index") is not None:
        extra.append(("in_place_index", i64(node.params["in_place_index"], "in_place_index")))
    return extra


def _attrs_rope(node, spec):
    _require(node, (spec["inputs"][0], "freqs"))
    extra = []
    if node.params.get("output_scale") is not None:
        extra.append(("output_scale", f64(node.params["output_scale"])))
    if node.params.get("rope_dim") is not None:
        extra.append(("rope_dim", i64(node.params["rope_dim"], "rope_dim")))
    return extra


def _attrs_paged_cache_load(node, spec):
    _require(node, ("container", "page_table"))
    return [("max_seq_len", i64(node.params["max_seq_len"], "max_seq_len"))]


def _la_attrs(node, spec):
    _require(node, spec["inputs"][: spec["fixed"]])
    extra = []
    for key in spec["attrs"]:
        v = node.params.get(key)
        if v is None or v is False:
            continue
        if v is True:
            extra.append((key, None))
        elif key in ("scale", "gate_lower_bound"):
            extra.append((key, f64(v)))
        else:
            extra.append((key, i64(v, key)))
    return extra


def _attrs_sdpa(node):
    spec = SDPA_OPS[node.op]
    _require(node, spec["pos"])
    p = node.params
    extra = []
    if p.get("attn_scale_value") is not None:
        extra.append(("attn_scale_value", f64(p["attn_scale_value"])))
    for unit in ("use_causal_mask", "use_causal_mask_bottom_right", "use_alibi_mask", "use_padding_mask"):
        if p.get(unit):
            extra.append((unit, None))
    if p.get("diagonal_alignment") is not None:
        extra.append(("diagonal_alignment", f"#graph.diagonal_alignment<{enum_name(p['diagonal_alignment'])}>"))
    for key in ("diagonal_band_left_bound", "diagonal_band_right_bound", "sliding_window_length"):
        if p.get(key) is not None:
            extra.append((key, i64(p[key], key)))
    if p.get("dropout_probability") is not None:
        extra.append(("dropout_probability", f64(p["dropout_probability"])))
    if p.get("paged_attention_max_seq_len_kv") is not None:
        extra.append(("paged_attention_max_seq_len_kv", i64(p["paged_attention_max_seq_len_kv"], "paged_attention_max_seq_len_kv")))
    if spec.get("stats") and node.outputs.get("Stats") is not None:
        extra.append(("generate_stats", None))
    if node.op == "sdpa_backward" and p.get("use_deterministic_algorithm"):
        extra.append(("use_deterministic_algorithm", None))
    return extra


def _attrs_matmul(node):
    _require(node, ("A", "B"))
    node.outputs["C"]
    if node.params.get("padding"):
        return [("padding", f64(node.params["padding"]))]
    return []


def _attrs_pointwise(node):
    node.outputs["OUT_0"]
    extra = []
    for key in ("negative_slope", "lower_clip", "upper_clip", "swish_beta", "elu_alpha", "softplus_beta"):
        if node.params.get(key) is not None:
            extra.append((key, f64(node.params[key])))
    if node.params.get("axis") is not None:
        extra.append(("axis", i64(node.params["axis"], "axis")))
    node.params["mode"]
    return extra


_ATTRS = {
    "norm_fwd": _attrs_norm_fwd,
    "rmsnorm": _attrs_norm_fwd,
    "batchnorm": _attrs_batchnorm,
    "batchnorm_inference": _attrs_batchnorm_inference,
    "norm_bwd": _attrs_norm_bwd,
    "rmsnorm_bwd": _attrs_rmsnorm_bwd,
    "genstats": _attrs_genstats,
    "rng": _attrs_rng,
    "reduction": _attrs_reduction,
    "block_scale_quantize": _attrs_block_scale_quantize,
    "block_scale_dequantize": _attrs_block_scale_dequantize,
    "moe": _attrs_moe,
    "moe_bwd": _attrs_moe_bwd,
    "conv": _attrs_conv,
    "unary_structural": _attrs_unary_structural,
    "slice": _attrs_slice,
    "transpose": _attrs_transpose,
    "concatenate": _attrs_concatenate,
    "rope": _attrs_rope,
    "paged_cache_load": _attrs_paged_cache_load,
    "linear_attention_fwd": _la_attrs,
    "linear_attention_bwd": _la_attrs,
}


def node_attributes(node):
    """The attributes of ``node`` that graphBuilderOp takes in its
    dictionary (the op's name, mode and compute data type aside); raises
    for an attribute the node lacks or the dialect cannot take."""
    if node.op == "matmul":
        return _attrs_matmul(node)
    if node.op == "pointwise":
        return _attrs_pointwise(node)
    if node.op in SDPA_OPS:
        return _attrs_sdpa(node)
    spec = OPS[node.op]
    return _ATTRS[spec["emit"]](node, spec)


# ---------------------------------------------------------------------------
# Shape rules: the compiler's (graphBuilderOp fills in result dims)
# ---------------------------------------------------------------------------


_NORM_PHASE_OPS = ("layernorm", "adalayernorm", "instancenorm", "rmsnorm")


def _ods_port(port):
    """The dialect's name of a builder port: pointwise IN_<i> is inputs_<i>,
    a single output OUT_0 is output."""
    if port == "OUT_0":
        return "output"
    if port.startswith("IN_"):
        return "inputs_" + port[3:]
    return port


def _result_ports(node):
    if node.op == "matmul":
        return ["C"]
    if node.op == "pointwise":
        return ["OUT_0"]
    spec = SDPA_OPS[node.op] if node.op in SDPA_OPS else OPS[node.op]
    return [port for port, _ in spec["outputs"]]


def _builder_request(node):
    """(kind, mode, attribute dictionary) of ``node`` as graphBuilderOp
    takes them."""
    attrs = node_attributes(node)
    mode = None
    if node.op == "pointwise":
        mode = node.params["mode"]
    elif node.op in _NORM_PHASE_OPS:
        mode = _phase_keyword(node)
    elif node.op == "reduction":
        mode = _reduction_keyword(node.params.get("mode"))
    elif node.op == "moe_grouped_matmul":
        for key, text in list(attrs):
            if key == "mode":  # #graph.moe_mode<gather>: the builder's mode
                mode = text[text.index("<") + 1 : -1]
                attrs.remove((key, text))
    text = ", ".join(name if value is None else f"{name} = {value}" for name, value in attrs)
    return MNEMONIC.get(node.op, node.op), mode, "{" + text + "}" if text else ""


_RESULT_DIMS_CACHE = {}


def result_dims(node):
    """The compiler's shape rule on ``node`` as its inputs are now: (dims by
    output port, error). A port is absent when the rule leaves its dims to
    the user (reduction, reshape, rng), when an input has no dims yet, when
    the library is not there, or when the rule fails: then ``error`` is the
    compiler's diagnostic (the verifier reports the same at validate)."""
    from . import _capi
    from ._enums import dtype_code

    # The attribute forms the dialect has no word for are refused at the
    # builder call (a TypeError waits for the text).
    try:
        if node.op == "slice" and node.params.get("slices") is not None:
            _slice_bounds(node)
    except TypeError:
        return {}, None
    inputs = []
    tensors = [(port, t) for port, t in node.inputs.items() if t is not None]
    for key, ts in node.list_inputs.items():
        tensors.extend((f"{key}_{i}", t) for i, t in enumerate(ts or ()))
    for port, t in tensors:
        if not t.dim:
            return {}, None
        dt = t.data_type if t.data_type is not None else getattr(t, "scalar_type", None)
        try:
            code = dtype_code(dt) if dt is not None else 0
        except KeyError:
            code = 0
        inputs.append((_ods_port(port), tuple(int(d) for d in t.dim), code))
    try:
        kind, mode, attrs = _builder_request(node)
    except (TypeError, IndexError, KeyError, ZeroDivisionError, ValueError, NotImplementedError, AttributeError):
        return {}, None
    ports = _result_ports(node)
    key = (kind, mode, attrs, node.name, tuple(inputs), tuple(ports))
    hit = _RESULT_DIMS_CACHE.get(key)
    if hit is not None:
        return hit
    if not _capi.has_shape_rules():
        return {}, None
    try:
        dims, error = _capi.result_dims(kind, mode, node.name, inputs, [_ods_port(p) for p in ports], attrs)
    except ValueError:
        return {}, None
    by_ods = {_ods_port(p): p for p in ports}
    hit = ({by_ods[p]: d for p, d in dims.items()}, error)
    if len(_RESULT_DIMS_CACHE) > 4096:
        _RESULT_DIMS_CACHE.clear()
    _RESULT_DIMS_CACHE[key] = hit
    return hit


def infer_dims(node, port):
    """Dims of output ``port`` of ``node`` from its inputs' current dims, as
    the compiler's shape rule gives them (result_dims), or None when the
    rule leaves them to the user's set_dim (reduction, reshape) or has no
    answer (see result_dims)."""
    if node.op in _DIMS_LEFT_TO_USER:
        return None
    d = result_dims(node)[0].get(port)
    return list(d) if d else None


# Outputs whose dims the inputs do not determine, so the frontend infers
# none (its programs set them): a filter [K, C/groups, R, S] does not say
# the group count, so a grouped (e.g. depthwise) conv's DX and DW would get
# an ungrouped conv's dims; DW's window is also ambiguous under stride.
_DIMS_LEFT_TO_USER = {"conv_dgrad": "DX", "conv_wgrad": "DW"}


__all__ = ["OPS", "SDPA_OPS", "node_attributes", "infer_dims", "fmt_float", "norm_forward_phase", "reduction_mode", "convolution_mode", "diagonal_alignment", "moe_grouped_matmul_mode"]
