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
s_kv f32 per head), not in a fused kernel's registers. K and V read through
page tables (a paged K/V cache) are gathered first by the dialect's
paged_cache_load, as the frontend's composite reads them through cuDNN's
PAGED_CACHE_LOAD.
"""

import math
from typing import Any, Dict, List, Optional

from ._building import paged_kv_length
from ._enums import data_type, reduction_mode, to_data_type
from ._tensor import row_major_stride

# sdpa keywords that change what the composite would have to compute; with a
# score_mod they are refused naming them (a mask belongs in the callback).
_REFUSED_WITH_SCORE_MOD = (
    "use_causal_mask", "use_causal_mask_bottom_right", "use_alibi_mask", "use_padding_mask",
    "diagonal_band_left_bound", "diagonal_band_right_bound", "left_bound", "right_bound",
    "sliding_window_length", "dropout", "rng_dump", "sink_token", "block_mask", "score_max", "score_sum_exp",
    "cu_seq_len_q", "cu_seq_len_kv",
)
# the paged K/V cache's arguments: the forward composite gathers the pages
_PAGED = ("paged_attention_k_table", "paged_attention_v_table", "paged_attention_max_seq_len_kv")
# ... of those, the built-in masks (a score_mod can build each of them)
_MASKS = frozenset((
    "use_causal_mask", "use_causal_mask_bottom_right", "use_alibi_mask", "use_padding_mask",
    "diagonal_band_left_bound", "diagonal_band_right_bound", "left_bound", "right_bound", "sliding_window_length",
))
# taken and ignored as the frontend's composite does: hints for its kernels
_IGNORED = ("implementation", "unfuse_fma", "is_inference", "diagonal_alignment", "max_total_seq_len_q",
            "max_total_seq_len_kv", "softmax_precision", "use_deterministic_algorithm")
# ... and those the backward refuses besides: a bias's gradient and the sink's
_REFUSED_IN_BACKWARD = ("bias", "dBias", "dSink_token")


def composite_refusal(kwargs: Dict[str, Any]) -> str:
    """Why sdpa(**kwargs) with a score_mod cannot be built as the composite
    graph (a phrase), or "". The caller records it as an unsupported feature,
    refused at planning as the frontend's harnesses expect."""
    # an rng_dump without dropout is ignored, as the plain sdpa ignores it
    refused = sorted(k for k in _REFUSED_WITH_SCORE_MOD if kwargs.get(k) not in (None, False)
                     and not (k == "rng_dump" and kwargs.get("dropout") is None))
    if refused:
        why = []
        if any(k in _MASKS for k in refused):
            why.append("it takes no built-in masks: apply them inside score_mod")
        if any(k not in _MASKS for k in refused):
            why.append("it has no dropout, sink, block mask, score statistics or packed layouts")
        return (f"the 'score_mod' argument with {', '.join(refused)} (with a score modification the compiler builds "
                f"the attention as a composite graph of its own ops; {'; '.join(why)})")
    if not callable(kwargs.get("score_mod")):
        return f"the 'score_mod' argument {kwargs.get('score_mod')!r} (not a callable fn(graph, score) -> score)"
    dims = [getattr(kwargs.get(key), "dim", None) for key in ("q", "k", "v")]
    if any(not d or len(d) != 4 for d in dims):
        return "the 'score_mod' argument with q, k or v without dims ([B, H, S, D]) to build the composite graph on"
    tables = [kwargs.get(f"paged_attention_{key}_table") for key in ("k", "v")]
    if kwargs.get("paged_attention_max_seq_len_kv") is not None and not any(t is not None for t in tables):
        return ("the 'score_mod' argument with paged_attention_max_seq_len_kv but no paged_attention_k_table or "
                "paged_attention_v_table (the length of the K/V the pages make)")
    if any(t is not None for t in tables):
        if why := _paged_refusal(kwargs):
            return why
    if dims[1][1] != dims[2][1] or dims[0][1] % dims[1][1]:
        return (f"the 'score_mod' argument with q, k and v heads {dims[0][1]}, {dims[1][1]}, {dims[2][1]} (the "
                "composite graph takes k and v with one head count that divides q's)")
    return ""


def _paged_length(kwargs: Dict[str, Any]) -> Optional[int]:
    """The sequence length of K and V read through page tables: the given
    paged_attention_max_seq_len_kv, else as the plain sdpa infers it."""
    given = kwargs.get("paged_attention_max_seq_len_kv")
    if given is not None:
        return int(given)
    keys = ("k", "v", "paged_attention_k_table", "paged_attention_v_table")
    dims = (getattr(kwargs.get(key), "dim", None) for key in keys)
    return paged_kv_length(*dims, extras=(kwargs.get("bias"), kwargs.get("rng_dump")))


def _paged_refusal(kwargs: Dict[str, Any]) -> str:
    """Why the page tables of sdpa(**kwargs) do not describe the K/V the
    composite gathers (a phrase), or ""."""
    length = _paged_length(kwargs)
    if length is None or length <= 0:
        return ("the 'score_mod' argument with a page table and no paged_attention_max_seq_len_kv or rank-4 "
                "K/V to infer the length of the K/V the pages make from")
    batch = kwargs["q"].dim[0]
    for key in ("k", "v"):
        table = kwargs.get(f"paged_attention_{key}_table")
        if table is None:
            continue
        page_size = kwargs[key].dim[2]
        want = [batch, 1, -(-length // page_size), 1]
        if list(getattr(table, "dim", None) or []) != want:
            return (f"the 'score_mod' argument with paged_attention_{key}_table of dims {getattr(table, 'dim', None)} "
                    f"(must be {want}: [B, 1, ceil({length} / page size {page_size}), 1], the pages of each batch)")
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


class _Composite:
    """The ops both composites build, named f"{name}::{suffix}" under `op`
    and typed as the composites type them (f32 unless told)."""

    def __init__(self, g, op: str, name: str, compute_data_type: Any, kwargs: Dict[str, Any]):
        self.g, self.op, self.name = g, op, name
        self.f32 = data_type.FLOAT
        self.cdt = compute_data_type if compute_data_type is not None else self.f32
        # the frontend's engines run exp2 on raw scores of a Q that carries
        # attn_scale * log2(e); the compiler's run exp, so ln 2 scales them
        self.attn_scale = kwargs.pop("attn_scale", None)
        if kwargs.pop("attn_scale_prefolded", False):
            self.attn_scale = math.log(2.0)
        # seq_len_q/kv without use_padding_mask are graph tensors the
        # callbacks may read (the frontend's decode masks do); nothing else
        # uses them here
        kwargs.pop("seq_len_q", None)
        kwargs.pop("seq_len_kv", None)

    def named(self, suffix):
        return self.g._get_name(self.op, f"{self.name}::{suffix}")

    def typed(self, t, dt=None):
        t.set_data_type(dt or self.f32)
        return t

    def view(self, t, dims, suffix):
        r = self.g.reshape(input=t, name=self.named(suffix))
        r.set_dim(list(dims)).set_stride(row_major_stride(list(dims)))
        return r

    def rows(self, t, suffix, dims, view_suffix):
        """A row-major copy of t (an identity transpose, folded away where t
        is row-major already) seen as `dims` ([B * H_kv, rows, cols])."""
        copy = self.g.transpose(input=t, permutation=[0, 1, 2, 3], name=self.named(suffix))
        return self.view(copy, dims, view_suffix)

    def swap(self, t, suffix):
        return self.g.transpose(input=t, permutation=[0, 2, 1], name=self.named(suffix))

    def paged(self, container, table, seq_len, max_seq_len, label):
        """The [B, H, max_seq_len, D] a paged cache holds (container
        [pages, H, page_size, D], table [B, 1, pages per batch, 1])."""
        table = self.g._ensure_tensor(table, name=self.named(f"page_table_{label}"))
        seq_len = self.g._ensure_tensor(seq_len, name=self.named("seq_len_kv")) if seq_len is not None else None
        return self.g._structured("paged_cache_load", (), dict(container=container, page_table=table, seq_len=seq_len,
                                                                max_seq_len=max_seq_len),
                                  self.named(f"{label}_pages"), None, None)

    def matmul(self, a, b, suffix):
        return self.typed(self.g.matmul(A=a, B=b, compute_data_type=self.cdt, name=self.named(suffix)))

    def pw(self, mode, inputs, suffix, dt=None):
        return self.typed(self.g._pointwise(mode, inputs, self.named(suffix), self.cdt), dt)

    def row_reduce(self, t, mode, suffix, dims):
        r = self.g.reduction(input=t, mode=mode, compute_data_type=self.cdt, name=self.named(suffix))
        r.set_dim(list(dims)).set_data_type(self.f32)
        return r

    def scaled(self, t, suffix, scalar_suffix):
        if self.attn_scale is None:
            return t
        scale = self.attn_scale
        if isinstance(scale, (int, float)) and not isinstance(scale, bool):
            scale = self.g.tensor_scalar(float(scale), self.f32, name=self.named(scalar_suffix))
        return self.pw("mul", [t, scale], suffix)

    def callback(self, fn, what, t):
        out = fn(self.g, t)
        if out is None or not hasattr(out, "set_data_type"):
            raise TypeError(f"{self.op}(): {what} returned {out!r}, not a tensor of the graph")
        return out

    def output(self, t, dt, label):
        """t copied (an identity) into a result of type dt named label."""
        out = self.pw("identity", [t], label, dt)
        out.name = f"{self.name}::{label}"
        return out


def sdpa_with_score_mod(g, kwargs: Dict[str, Any], name: str, compute_data_type: Any) -> List[Optional[Any]]:
    """Builds sdpa(**kwargs) with kwargs['score_mod'] as the composite graph
    (composite_refusal(kwargs) is ""); returns [O, Stats] (Stats None unless
    generate_stats)."""
    score_mod = kwargs.pop("score_mod")
    _options(g, kwargs, "sdpa", name)
    if kwargs.get("rng_dump") is not None:
        g._warn_once(("rng_dump", "sdpa"), "sdpa(): rng_dump without dropout is ignored (it is the Philox mask of "
                                           "dropout=(probability, seed, offset)); nothing writes it")
    max_seq_len = _paged_length(kwargs)
    tables = {key: kwargs.pop(f"paged_attention_{key}_table", None) for key in ("k", "v")}
    seq_len_kv = kwargs.get("seq_len_kv")
    for key in _REFUSED_WITH_SCORE_MOD + _PAGED + _IGNORED:
        kwargs.pop(key, None)
    q, k, v = (g._ensure_tensor(kwargs.pop(key), name=f"{name}::{key}") for key in ("q", "k", "v"))
    c = _Composite(g, "sdpa", name, compute_data_type, kwargs)
    # K and V from their pages ([B, H, max_seq_len, D]); with seq_len_kv
    # only each batch's valid positions are read (the rest are zero)
    if tables["k"] is not None:
        k = c.paged(k, tables["k"], seq_len_kv, max_seq_len, "K")
    if tables["v"] is not None:
        v = c.paged(v, tables["v"], seq_len_kv, max_seq_len, "V")
    bias = kwargs.pop("bias", None)
    generate_stats = bool(kwargs.pop("generate_stats", False))
    if kwargs:
        raise TypeError(f"sdpa() got unexpected arguments {sorted(kwargs)}")

    # The matmuls run on [B * H_kv, rows, cols] views of row-major copies:
    # grouped heads broadcast K and V that way (the queries of a K/V head's
    # group are one run of rows), and the score_mod's gen_index masks stay
    # out of the matmuls' groups (cuDNN declines such fusions).
    b, h, s_q, s_kv = q.dim[0], q.dim[1], q.dim[2], k.dim[2]
    bk, rows_q = b * k.dim[1], (h // k.dim[1]) * s_q
    d_v = v.dim[3]
    q_rows = g.transpose(input=q, permutation=[0, 1, 2, 3], name=c.named("Q_rows"))
    kt = g.transpose(input=k, permutation=[0, 1, 3, 2], name=c.named("K_T"))
    s3 = c.matmul(c.view(q_rows, (bk, rows_q, q.dim[3]), "Q_3d"), c.view(kt, (bk, k.dim[3], s_kv), "K_T_3d"), "bmm1")
    s = c.scaled(c.typed(c.view(s3, (b, h, s_q, s_kv), "S")), "scale", "attn_scale")
    if bias is not None:
        s = c.pw("add", [s, bias], "bias")
    s = c.callback(score_mod, "score_mod", s)
    rows = [b, h, s_q, 1]
    row_max = c.row_reduce(s, reduction_mode.MAX, "max", rows)
    e = c.pw("exp", [c.pw("sub", [s, row_max], "sub")], "exp")
    row_sum = c.row_reduce(e, reduction_mode.ADD, "sum", rows)
    p = c.pw("div", [e, row_sum], "softmax", q.data_type)  # P V in the inputs' type, as fused kernels run it
    # The second matmul likewise; its f32 result is copied into O (in O's
    # type and strides) by an identity.
    v_rows = g.transpose(input=v, permutation=[0, 1, 2, 3], name=c.named("V_rows"))
    o3 = c.matmul(c.view(p, (bk, rows_q, s_kv), "P_3d"), c.view(v_rows, (bk, s_kv, d_v), "V_3d"), "bmm2")
    o = c.output(c.typed(c.view(o3, (b, h, s_q, d_v), "O_rows")), q.data_type, "O")
    stats = None
    if generate_stats:
        stats = c.pw("add", [row_max, c.pw("log", [row_sum], "log")], "stats")
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
    c = _Composite(g, "sdpa_backward", name, compute_data_type, kwargs)
    kwargs.pop("generate_stats", None)
    if kwargs:
        raise TypeError(f"sdpa_backward() got unexpected arguments {sorted(kwargs)}")

    low = q.data_type
    b, h, s_q, s_kv = q.dim[0], q.dim[1], q.dim[2], k.dim[2]
    d_qk, d_v = q.dim[3], v.dim[3]
    h_kv = k.dim[1]
    # grouped heads as the forward takes them: dK and dV sum their group's
    # rows in the matmuls
    bk, rows_q = b * h_kv, (h // h_kv) * s_q
    q3, k3 = c.rows(q, "Q_rows", (bk, rows_q, d_qk), "Q_rows_3d"), c.rows(k, "K_rows", (bk, s_kv, d_qk), "K_rows_3d")
    v3, do3 = c.rows(v, "V_rows", (bk, s_kv, d_v), "V_rows_3d"), c.rows(d_o, "dO_rows", (bk, rows_q, d_v), "dO_rows_3d")
    s = c.typed(c.view(c.matmul(q3, c.swap(k3, "K_T"), "bmm_S"), (b, h, s_q, s_kv), "S"))
    s = c.callback(score_mod, "score_mod", c.scaled(s, "S_scaled", "S_scaled_scale"))
    p = c.pw("exp", [c.pw("sub", [s, stats], "S_minus_stats")], "P")
    p_low = c.view(c.pw("identity", [p], "P_low", low), (bk, rows_q, s_kv), "P_3d")
    dv = c.typed(c.view(c.matmul(c.swap(p_low, "P_T"), do3, "bmm_dV"), (b, h_kv, s_kv, d_v), "dV_rows"))
    dp = c.typed(c.view(c.matmul(do3, c.swap(v3, "V_T"), "bmm_dP"), (b, h, s_q, s_kv), "dP"))
    row_dot = c.row_reduce(c.pw("mul", [d_o, o], "dO_O"), reduction_mode.ADD, "rowsum_dO_O", [b, h, s_q, 1])
    ds = c.pw("mul", [p, c.pw("sub", [dp, row_dot], "dP_minus_rowsum")], "dS_mod")
    ds = c.typed(c.callback(score_mod_bprop, "score_mod_bprop", ds))
    ds_low = c.view(c.pw("identity", [c.scaled(ds, "dS", "dS_scale")], "dS_low", low), (bk, rows_q, s_kv), "dS_3d")
    dq = c.typed(c.view(c.matmul(ds_low, k3, "bmm_dQ"), (b, h, s_q, d_qk), "dQ_rows"))
    dk = c.typed(c.view(c.matmul(c.swap(ds_low, "dS_T"), q3, "bmm_dK"), (b, h_kv, s_kv, d_qk), "dK_rows"))
    outs = [c.output(grad, like.data_type, label) for grad, like, label in ((dq, q, "dQ"), (dk, k, "dK"), (dv, v, "dV"))]
    g._reindex_ambiguous()
    return outs
