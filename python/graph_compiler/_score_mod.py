"""sdpa(score_mod=...): attention with a score modification, as a composite
graph of the compiler's ops.

The frontend's score_mod is a callback ``fn(graph, S) -> S'`` that builds
pointwise ops (index generation, comparisons, selects, softcapping ...) on
the attention scores. The frontend hands cuDNN the whole attention as one
composite graph with the callback's ops between the scaled Q K^T and the
softmax. The graph dialect's sdpa has no form for an arbitrary op graph
inside it, so here the attention is built as that composite in ops the
compiler has: S = (Q K^T) * attn_scale (+ bias), S' = fn(graph, S), the
row softmax (max, exp, sum, divide; Stats = max + log(sum)), O = P V. The
engines then run it as they run any graph: the scores live in memory (s_q *
s_kv f32 per head), not in a fused kernel's registers.
"""

import math
from typing import Any, Dict, List, Optional

from ._enums import data_type, reduction_mode, to_data_type
from ._tensor import row_major_stride

# sdpa keywords that change what the composite would have to compute; with a
# score_mod they are refused naming them (a mask belongs in the callback).
_REFUSED_WITH_SCORE_MOD = (
    "use_causal_mask", "use_causal_mask_bottom_right", "use_alibi_mask", "use_padding_mask",
    "diagonal_band_left_bound", "diagonal_band_right_bound", "left_bound", "right_bound",
    "sliding_window_length", "dropout", "rng_dump", "paged_attention_k_table", "paged_attention_v_table",
    "paged_attention_max_seq_len_kv", "sink_token", "block_mask", "score_max", "score_sum_exp",
    "cu_seq_len_q", "cu_seq_len_kv",
)
# taken and ignored as the frontend's composite does: hints for its kernels
_IGNORED = ("implementation", "unfuse_fma", "is_inference", "diagonal_alignment", "max_total_seq_len_q",
            "max_total_seq_len_kv", "softmax_precision", "use_deterministic_algorithm")
# ... and those the backward refuses besides: a bias's gradient and the sink's
_REFUSED_IN_BACKWARD = ("bias", "dBias", "dSink_token")


def composite_refusal(kwargs: Dict[str, Any]) -> str:
    """Why sdpa(**kwargs) with a score_mod cannot be built as the composite
    graph (a phrase), or "". The caller records it as an unsupported feature,
    refused at planning as the frontend's harnesses expect."""
    refused = sorted(k for k in _REFUSED_WITH_SCORE_MOD if kwargs.get(k) not in (None, False))
    if refused:
        return (f"the 'score_mod' argument with {', '.join(refused)} (with a score modification the compiler builds "
                "the attention as a composite graph of its own ops, which takes no built-in masks, dropout, paged "
                "caches or packed layouts: apply masks inside score_mod)")
    if not callable(kwargs.get("score_mod")):
        return f"the 'score_mod' argument {kwargs.get('score_mod')!r} (not a callable fn(graph, score) -> score)"
    dims = [getattr(kwargs.get(key), "dim", None) for key in ("q", "k", "v")]
    if any(not d or len(d) != 4 for d in dims):
        return "the 'score_mod' argument with q, k or v without dims ([B, H, S, D]) to build the composite graph on"
    if dims[1][1] != dims[2][1] or dims[0][1] % dims[1][1]:
        return (f"the 'score_mod' argument with q, k and v heads {dims[0][1]}, {dims[1][1]}, {dims[2][1]} (the "
                "composite graph takes k and v with one head count that divides q's)")
    return ""


def _options(g, kwargs: Dict[str, Any], op: str, name: str) -> None:
    """The plain builders' handling of the options a composite keeps:
    determinism bars nondeterministic plans; a HALF softmax precision warns
    (the composite's softmax is f32)."""
    if kwargs.get("use_deterministic_algorithm"):
        g._deterministic = True
    precision = to_data_type(kwargs.get("softmax_precision"), f"{op}(softmax_precision=...)")
    if precision is data_type.HALF:
        g._warn_once(("softmax_precision", op),
                     f"{op}(softmax_precision=HALF): the composite's softmax is f32 (more precise); recorded for {name!r}")


def backward_refusal(kwargs: Dict[str, Any]) -> str:
    """composite_refusal for sdpa_backward(score_mod=..., score_mod_bprop=...)."""
    refused = sorted(k for k in _REFUSED_IN_BACKWARD if kwargs.get(k) is not None)
    if refused:
        return (f"the 'score_mod' argument with {', '.join(refused)} (the composite backward of a score "
                "modification computes dQ, dK and dV only)")
    if kwargs.get("score_mod_bprop") is None:
        return ("the 'score_mod' argument without 'score_mod_bprop' (the composite backward takes the gradient "
                "through the score modification from score_mod_bprop, as the frontend's composite does)")
    if not callable(kwargs.get("score_mod_bprop")):
        return f"the 'score_mod_bprop' argument {kwargs.get('score_mod_bprop')!r} (not a callable fn(graph, dS) -> dS)"
    dims = [getattr(kwargs.get(key), "dim", None) for key in ("o", "dO", "stats")]
    if any(not d or len(d) != 4 for d in dims):
        return "the 'score_mod' argument with o, dO or stats without dims ([B, H, S, D]) to build the composite graph on"
    return composite_refusal(kwargs)


def sdpa_with_score_mod(g, kwargs: Dict[str, Any], name: str, compute_data_type: Any) -> List[Optional[Any]]:
    """Builds sdpa(**kwargs) with kwargs['score_mod'] as the composite graph
    (composite_refusal(kwargs) is ""); returns [O, Stats] (Stats None unless
    generate_stats)."""
    score_mod = kwargs.pop("score_mod")
    _options(g, kwargs, "sdpa", name)
    for key in _REFUSED_WITH_SCORE_MOD + _IGNORED:
        kwargs.pop(key, None)
    q, k, v = (g._ensure_tensor(kwargs.pop(key), name=f"{name}::{key}") for key in ("q", "k", "v"))
    attn_scale = kwargs.pop("attn_scale", None)
    if kwargs.pop("attn_scale_prefolded", False):
        attn_scale = math.log(2.0)  # Q carries attn_scale * log2(e): exp2 of the raw scores
    bias = kwargs.pop("bias", None)
    # seq_len_q/kv without use_padding_mask are graph tensors the callback
    # may read (the frontend's decode masks do); nothing else uses them here
    kwargs.pop("seq_len_q", None)
    kwargs.pop("seq_len_kv", None)
    generate_stats = bool(kwargs.pop("generate_stats", False))
    if kwargs:
        raise TypeError(f"sdpa() got unexpected arguments {sorted(kwargs)}")

    f32 = data_type.FLOAT
    cdt = compute_data_type if compute_data_type is not None else f32

    def named(suffix):
        return g._get_name("sdpa", f"{name}::{suffix}")

    def as_f32(t):
        t.set_data_type(f32)
        return t

    # The matmuls run on [B * H_kv, rows, cols] views of row-major copies
    # (identity transposes fold away where the layout already is row-major):
    # grouped heads broadcast K and V that way, and the score_mod's gen_index
    # masks stay out of the matmuls' groups (cuDNN declines such fusions).
    b, h, s_q, s_kv = q.dim[0], q.dim[1], q.dim[2], k.dim[2]
    # grouped heads: the queries of a K/V head's group are one run of rows
    # ([B * H_kv, group * S_q, D]), so the matmuls broadcast K and V
    bk, rows_q = b * k.dim[1], (h // k.dim[1]) * s_q

    def view(t, dims, suffix):
        r = g.reshape(input=t, name=named(suffix))
        r.set_dim(list(dims)).set_stride(row_major_stride(list(dims)))
        return r

    q_rows = g.transpose(input=q, permutation=[0, 1, 2, 3], name=named("Q_rows"))
    kt = g.transpose(input=k, permutation=[0, 1, 3, 2], name=named("K_T"))
    s3 = as_f32(g.matmul(A=view(q_rows, (bk, rows_q, q.dim[3]), "Q_3d"), B=view(kt, (bk, k.dim[3], s_kv), "K_T_3d"),
                         compute_data_type=cdt, name=named("bmm1")))
    s = as_f32(view(s3, (b, h, s_q, s_kv), "S"))
    if attn_scale is not None:
        scale = attn_scale
        if isinstance(attn_scale, (int, float)) and not isinstance(attn_scale, bool):
            scale = g.tensor_scalar(float(attn_scale), f32, name=named("attn_scale"))
        s = as_f32(g._pointwise("mul", [s, scale], named("scale"), cdt))
    if bias is not None:
        s = as_f32(g._pointwise("add", [s, bias], named("bias"), cdt))
    s = score_mod(g, s)
    if s is None or not hasattr(s, "set_data_type"):
        raise TypeError(f"sdpa(): score_mod returned {s!r}, not a tensor of the graph")
    rows = [b, h, s_q, 1]
    row_max = g.reduction(input=s, mode=reduction_mode.MAX, compute_data_type=cdt, name=named("max"))
    row_max.set_dim(rows).set_data_type(f32)
    e = as_f32(g._pointwise("exp", [as_f32(g._pointwise("sub", [s, row_max], named("sub"), cdt))], named("exp"), cdt))
    row_sum = g.reduction(input=e, mode=reduction_mode.ADD, compute_data_type=cdt, name=named("sum"))
    row_sum.set_dim(rows).set_data_type(f32)
    p = g._pointwise("div", [e, row_sum], named("softmax"), cdt)
    p.set_data_type(q.data_type)  # P V in the inputs' type, as the fused kernels run it
    # The second matmul likewise, on a row-major copy of V (folded away
    # where V is row-major); its f32 result is copied into O (in O's type
    # and strides) by an identity.
    v_rows = g.transpose(input=v, permutation=[0, 1, 2, 3], name=named("V_rows"))
    d_v = v.dim[3]
    o3 = as_f32(g.matmul(A=view(p, (bk, rows_q, s_kv), "P_3d"), B=view(v_rows, (bk, s_kv, d_v), "V_3d"),
                         compute_data_type=cdt, name=named("bmm2")))
    o_rows = as_f32(view(o3, (b, h, s_q, d_v), "O_rows"))
    o = g._pointwise("identity", [o_rows], named("O"), cdt)
    o.set_data_type(q.data_type)
    o.name = f"{name}::O"
    stats = None
    if generate_stats:
        log_sum = as_f32(g._pointwise("log", [row_sum], named("log"), cdt))
        stats = as_f32(g._pointwise("add", [row_max, log_sum], named("stats"), cdt))
        stats.name = f"{name}::Stats"
    g._reindex_ambiguous()
    return [o, stats]


def sdpa_backward_with_score_mod(g, kwargs: Dict[str, Any], name: str, compute_data_type: Any) -> List[Any]:
    """Builds sdpa_backward(**kwargs) with score_mod and score_mod_bprop as
    the composite graph (backward_refusal(kwargs) is ""); returns [dQ, dK,
    dV]. The scores are recomputed as the forward builds them (S' =
    score_mod(S * attn_scale), P = exp(S' - Stats)); then dV = P^T dO, dP =
    dO V^T, dS' = P (dP - rowsum(dO O)), dS = score_mod_bprop(dS') (the
    gradient through the modification), dQ = dS K * attn_scale and dK =
    dS^T Q * attn_scale. P and dS enter the matmuls in the inputs' type, as
    fused kernels take them."""
    score_mod = kwargs.pop("score_mod")
    score_mod_bprop = kwargs.pop("score_mod_bprop")
    _options(g, kwargs, "sdpa_backward", name)
    for key in _REFUSED_WITH_SCORE_MOD + _REFUSED_IN_BACKWARD + _IGNORED:
        kwargs.pop(key, None)
    q, k, v, o, d_o, stats = (g._ensure_tensor(kwargs.pop(key), name=f"{name}::{key}")
                              for key in ("q", "k", "v", "o", "dO", "stats"))
    attn_scale = kwargs.pop("attn_scale", None)
    if kwargs.pop("attn_scale_prefolded", False):
        attn_scale = math.log(2.0)
    kwargs.pop("seq_len_q", None)
    kwargs.pop("seq_len_kv", None)
    kwargs.pop("generate_stats", None)
    if kwargs:
        raise TypeError(f"sdpa_backward() got unexpected arguments {sorted(kwargs)}")

    f32 = data_type.FLOAT
    cdt = compute_data_type if compute_data_type is not None else f32
    low = q.data_type

    def named(suffix):
        return g._get_name("sdpa_backward", f"{name}::{suffix}")

    def as_type(t, dt):
        t.set_data_type(dt)
        return t

    b, h, s_q, s_kv = q.dim[0], q.dim[1], q.dim[2], k.dim[2]
    d_qk, d_v = q.dim[3], v.dim[3]
    h_kv = k.dim[1]
    # grouped heads as the forward takes them: dK and dV sum their group's
    # rows in the matmuls
    bk, rows_q = b * h_kv, (h // h_kv) * s_q

    def view(t, dims, suffix):
        r = g.reshape(input=t, name=named(suffix))
        r.set_dim(list(dims)).set_stride(row_major_stride(list(dims)))
        return r

    def rows(t, suffix, dims):
        # a row-major copy (an identity transpose, folded away where t is
        # row-major already) seen as [B * H, rows, cols]
        copy = g.transpose(input=t, permutation=[0, 1, 2, 3], name=named(suffix))
        return view(copy, dims, suffix + "_3d")

    def swap(t, suffix):
        return g.transpose(input=t, permutation=[0, 2, 1], name=named(suffix))

    def matmul(a, bm, suffix):
        return as_type(g.matmul(A=a, B=bm, compute_data_type=cdt, name=named(suffix)), f32)

    def pw(mode, inputs, suffix, dt=f32):
        return as_type(g._pointwise(mode, inputs, named(suffix), cdt), dt)

    def scaled(t, suffix):
        if attn_scale is None:
            return t
        scale = attn_scale
        if isinstance(attn_scale, (int, float)) and not isinstance(attn_scale, bool):
            scale = g.tensor_scalar(float(attn_scale), f32, name=named(suffix + "_scale"))
        return pw("mul", [t, scale], suffix)

    q3, k3 = rows(q, "Q_rows", (bk, rows_q, d_qk)), rows(k, "K_rows", (bk, s_kv, d_qk))
    v3, do3 = rows(v, "V_rows", (bk, s_kv, d_v)), rows(d_o, "dO_rows", (bk, rows_q, d_v))
    s = as_type(view(matmul(q3, swap(k3, "K_T"), "bmm_S"), (b, h, s_q, s_kv), "S"), f32)
    s = score_mod(g, scaled(s, "S_scaled"))
    if s is None or not hasattr(s, "set_data_type"):
        raise TypeError(f"sdpa_backward(): score_mod returned {s!r}, not a tensor of the graph")
    p = pw("exp", [pw("sub", [s, stats], "S_minus_stats")], "P")
    p_low = view(pw("identity", [p], "P_low", low), (bk, rows_q, s_kv), "P_3d")
    dv = as_type(view(matmul(swap(p_low, "P_T"), do3, "bmm_dV"), (b, h_kv, s_kv, d_v), "dV_rows"), f32)
    dp = as_type(view(matmul(do3, swap(v3, "V_T"), "bmm_dP"), (b, h, s_q, s_kv), "dP"), f32)
    row_dot = g.reduction(input=pw("mul", [d_o, o], "dO_O"), mode=reduction_mode.ADD, compute_data_type=cdt,
                          name=named("rowsum_dO_O"))
    row_dot.set_dim([b, h, s_q, 1]).set_data_type(f32)
    ds = pw("mul", [p, pw("sub", [dp, row_dot], "dP_minus_rowsum")], "dS_mod")
    ds = score_mod_bprop(g, ds)
    if ds is None or not hasattr(ds, "set_data_type"):
        raise TypeError(f"sdpa_backward(): score_mod_bprop returned {ds!r}, not a tensor of the graph")
    ds_low = view(pw("identity", [scaled(as_type(ds, f32), "dS")], "dS_low", low), (bk, rows_q, s_kv), "dS_3d")
    dq = as_type(view(matmul(ds_low, k3, "bmm_dQ"), (b, h, s_q, d_qk), "dQ_rows"), f32)
    dk = as_type(view(matmul(swap(ds_low, "dS_T"), q3, "bmm_dK"), (b, h_kv, s_kv, d_qk), "dK_rows"), f32)
    outs = []
    for grad, like, label in ((dq, q, "dQ"), (dk, k, "dK"), (dv, v, "dV")):
        out = g._pointwise("identity", [grad], named(label), cdt)
        out.set_data_type(like.data_type)
        out.name = f"{name}::{label}"
        outs.append(out)
    g._reindex_ambiguous()
    return outs
