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

from ._enums import data_type, reduction_mode
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
            "max_total_seq_len_kv", "softmax_precision")


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
    if not (dims[0][1] == dims[1][1] == dims[2][1]):
        return (f"the 'score_mod' argument with grouped or multi-query heads (q has {dims[0][1]} heads, k "
                f"{dims[1][1]}, v {dims[2][1]}), which the composite graph does not build")
    return ""


def sdpa_with_score_mod(g, kwargs: Dict[str, Any], name: str, compute_data_type: Any) -> List[Optional[Any]]:
    """Builds sdpa(**kwargs) with kwargs['score_mod'] as the composite graph
    (composite_refusal(kwargs) is ""); returns [O, Stats] (Stats None unless
    generate_stats)."""
    score_mod = kwargs.pop("score_mod")
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

    # The matmuls run on [B * H, rows, cols] views of row-major copies
    # (identity transposes fold away where the layout already is row-major):
    # on the H200 cuDNN 9.19 offers no engine config for a matmul with two
    # batch dims (measured: a plain [2, 4, 256, 128] x [2, 4, 128, 256]).
    b, h, s_q, s_kv = q.dim[0], q.dim[1], q.dim[2], k.dim[2]

    def view(t, dims, suffix):
        r = g.reshape(input=t, name=named(suffix))
        r.set_dim(list(dims)).set_stride(row_major_stride(list(dims)))
        return r

    q_rows = g.transpose(input=q, permutation=[0, 1, 2, 3], name=named("Q_rows"))
    kt = g.transpose(input=k, permutation=[0, 1, 3, 2], name=named("K_T"))
    s3 = as_f32(g.matmul(A=view(q_rows, (b * h, s_q, q.dim[3]), "Q_3d"), B=view(kt, (b * h, k.dim[3], s_kv), "K_T_3d"),
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
    o3 = as_f32(g.matmul(A=view(p, (b * h, s_q, s_kv), "P_3d"), B=view(v_rows, (b * h, s_kv, d_v), "V_3d"),
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
