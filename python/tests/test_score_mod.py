"""sdpa(score_mod=...): the frontend's flexible attention (its
test_flexible_sdpa.py callbacks), built as a composite graph and checked
against numpy on the CPU reference."""

from functools import partial

import re

import numpy as np
import pytest

import cudnn
from conftest import needs_lib

D = cudnn.data_type


def _strided(rng, dims, strides):
    buf = rng.standard_normal(int(np.prod(dims))).astype(np.float16)
    return np.lib.stride_tricks.as_strided(buf, dims, [s * 2 for s in strides])


def _attention(q, k, v, scale, modify):
    s = np.einsum("bhqd,bhkd->bhqk", q.astype(np.float64), k.astype(np.float64)) * scale
    s = modify(s)
    m = s.max(-1, keepdims=True)
    e = np.exp(s - m)
    l = e.sum(-1, keepdims=True)
    return np.einsum("bhqk,bhkd->bhqd", e / l, v.astype(np.float64)), m + np.log(l)


def _by_value(g, name, dtype):
    return g.tensor(name=name, dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), is_pass_by_value=True, data_type=dtype)


def _softcap_causal_or_prefix(gr, s, bound, neg_inf, cap):
    # softcap, then keep a causal band or the first `bound` keys
    s = gr.mul(a=gr.tanh(input=gr.div(a=s, b=cap)), b=cap)
    row = gr.gen_index(input=s, axis=2, compute_data_type=D.INT32)
    row.set_data_type(D.INT32)
    col = gr.gen_index(input=s, axis=3, compute_data_type=D.INT32)
    col.set_data_type(D.INT32)
    causal = gr.cmp_ge(input=row, comparison=col, compute_data_type=D.BOOLEAN)
    causal.set_data_type(D.BOOLEAN)
    prefix = gr.cmp_lt(input=col, comparison=bound, compute_data_type=D.FLOAT)
    prefix.set_data_type(D.BOOLEAN)
    keep = gr.logical_or(a=causal, b=prefix, compute_data_type=D.BOOLEAN)
    keep.set_data_type(D.BOOLEAN)
    return gr.binary_select(input0=s, input1=neg_inf, mask=keep)


@needs_lib
def test_score_mod_softcap_and_mask_match_numpy():
    b, h, s_q, s_kv, d = 2, 3, 64, 80, 32
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    qs, ks = (h * s_q * d, d, h * d, 1), (h * s_kv * d, d, h * d, 1)
    q = g.tensor(dim=(b, h, s_q, d), stride=qs, data_type=D.HALF)
    k = g.tensor(dim=(b, h, s_kv, d), stride=ks, data_type=D.HALF)
    v = g.tensor(dim=(b, h, s_kv, d), stride=ks, data_type=D.HALF)
    bound, neg_inf, cap = _by_value(g, "bound", D.INT32), _by_value(g, "neg_inf", D.FLOAT), _by_value(g, "cap", D.FLOAT)
    o, stats = g.sdpa(name="sdpa", q=q, k=k, v=v, attn_scale=0.17, generate_stats=True,
                      score_mod=partial(_softcap_causal_or_prefix, bound=bound, neg_inf=neg_inf, cap=cap))
    o.set_output(True).set_dim((b, h, s_q, d)).set_stride(qs)
    stats.set_output(True).set_data_type(D.FLOAT)
    g.build([cudnn.heur_mode.A])
    rng = np.random.default_rng(0)
    qv, kv, vv = _strided(rng, (b, h, s_q, d), qs), _strided(rng, (b, h, s_kv, d), ks), _strided(rng, (b, h, s_kv, d), ks)
    obuf = np.zeros(b * s_q * h * d, np.float16)
    ov = np.lib.stride_tricks.as_strided(obuf, (b, h, s_q, d), [s * 2 for s in qs])
    sv = np.zeros((b, h, s_q, 1), np.float32)
    g.execute({q: qv, k: kv, v: vv, o: ov, stats: sv, bound: np.full((1, 1, 1, 1), 5, np.int32),
               neg_inf: np.full((1, 1, 1, 1), -1e9, np.float32), cap: np.full((1, 1, 1, 1), 0.8, np.float32)})
    i, j = np.arange(s_q)[:, None], np.arange(s_kv)[None, :]
    ref_o, ref_stats = _attention(qv, kv, vv, 0.17,
                                  lambda s: np.where((i >= j) | (j < 5), np.tanh(s / 0.8) * 0.8, -1e9))
    np.testing.assert_allclose(ov.astype(np.float64), ref_o, atol=2e-3, rtol=2e-3)
    np.testing.assert_allclose(sv, ref_stats, atol=1e-5, rtol=1e-5)


def _document_mask(gr, s, document, document_t, neg_inf):
    # test_flexible_sdpa.py's document mask: keys and queries of one
    # document attend to each other (integer masks scaled by document ids)
    col = gr.gen_index(input=s, axis=3, compute_data_type=D.INT32)
    col.set_data_type(D.INT32)
    ones = gr.cmp_le(input=col, comparison=col, compute_data_type=D.FLOAT)
    ones.set_data_type(D.INT32)
    row_doc = gr.scale(input=ones, scale=document, compute_data_type=D.FLOAT)
    row_doc.set_data_type(D.INT32)
    col_doc = gr.scale(input=ones, scale=document_t, compute_data_type=D.FLOAT)
    col_doc.set_data_type(D.INT32)
    same = gr.cmp_eq(input=row_doc, comparison=col_doc, compute_data_type=D.FLOAT)
    same.set_data_type(D.INT32)
    return gr.binary_select(input0=s, input1=neg_inf, mask=same)


@needs_lib
def test_score_mod_document_mask_matches_numpy():
    b, h, s, d = 1, 1, 16, 128
    st = (s * h * d, d, h * d, 1)
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q, k, v = (g.tensor(dim=(b, h, s, d), stride=st, data_type=D.HALF) for _ in range(3))
    document = g.tensor(dim=(1, 1, s, 1), stride=(s, s, 1, 1), data_type=D.INT32)
    document_t = g.tensor(dim=(1, 1, 1, s), stride=(s, s, s, 1), data_type=D.INT32)
    neg_inf = _by_value(g, "neg_inf", D.FLOAT)
    o, none = g.sdpa(name="sdpa", q=q, k=k, v=v, generate_stats=False, attn_scale=1 / np.sqrt(d),
                     score_mod=partial(_document_mask, document=document, document_t=document_t, neg_inf=neg_inf))
    assert none is None
    o.set_output(True).set_dim((b, h, s, d)).set_stride(st)
    g.build([cudnn.heur_mode.A])
    rng = np.random.default_rng(1)
    qv, kv, vv = (_strided(rng, (b, h, s, d), st) for _ in range(3))
    docs = np.sort(rng.integers(0, s, s)).astype(np.int32)
    ov = np.zeros((b, h, s, d), np.float16)
    g.execute({q: qv, k: kv, v: vv, o: ov, document: docs.reshape(1, 1, s, 1), document_t: docs.reshape(1, 1, 1, s),
               neg_inf: np.full((1, 1, 1, 1), -1e9, np.float32)})
    same = docs[:, None] == docs[None, :]
    ref, _ = _attention(qv, kv, vv, 1 / np.sqrt(d), lambda x: np.where(same, x, -1e9))
    np.testing.assert_allclose(ov.astype(np.float64), ref, atol=2e-3, rtol=2e-3)


@needs_lib
@pytest.mark.parametrize("extra", ["use_causal_mask", "dropout", "use_padding_mask", "gqa",
                                   "paged_attention_max_seq_len_kv"])
def test_score_mod_with_a_builtin_mask_is_refused_at_planning_naming_it(extra):
    # as the frontend's harnesses expect: validate() and
    # build_operation_graph() pass, planning raises naming the reason
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q = g.tensor(dim=(1, 2, 16, 32), stride=(1024, 32, 64, 1), data_type=D.HALF)
    kv_heads = 3 if extra == "gqa" else 2  # 3 k/v heads do not group 2 q heads
    k, v = (g.tensor(dim=(1, kv_heads, 16, 32), stride=(512 * kv_heads, 32, 32 * kv_heads, 1), data_type=D.HALF)
            for _ in range(2))
    kwargs = {"use_causal_mask": dict(use_causal_mask=True), "use_padding_mask": dict(use_padding_mask=True),
              "gqa": {}}.get(extra)
    if extra == "dropout":
        seed = g.tensor(dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), data_type=D.INT64)
        kwargs = dict(dropout=(0.1, seed, seed))
    if extra == "use_padding_mask":
        lens = g.tensor(dim=(1, 1, 1, 1), stride=(1, 1, 1, 1), data_type=D.INT32)
        kwargs.update(seq_len_q=lens, seq_len_kv=lens)
    if extra == "paged_attention_max_seq_len_kv":  # a length without the page tables it is the length of
        kwargs = dict(paged_attention_max_seq_len_kv=16)
    o, _ = g.sdpa(q=q, k=k, v=v, attn_scale=0.5, score_mod=lambda gr, s: s, **kwargs)
    o.set_output(True)
    g.validate()
    g.build_operation_graph()
    why = {"use_causal_mask": "takes no built-in masks: apply them inside score_mod",
           "use_padding_mask": "takes no built-in masks", "dropout": "has no dropout",
           "paged_attention_max_seq_len_kv": "but no paged_attention_k_table"}.get(extra, "")
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match="score_mod' argument with " +
                       ("q, k and v heads 2, 3, 3" if extra == "gqa" else extra) + ".*" + re.escape(why)):
        g.create_execution_plans([cudnn.heur_mode.A])


def _pages(rng, cache, page_size, pages_order):
    """A paged copy of `cache` [B, H, S, D]: its pages shuffled into a
    container [pages, H, page_size, D] (one spare page of noise), and the
    table [B, 1, pages per batch, 1] naming them."""
    b, h, s, d = cache.shape
    per_batch = -(-s // page_size)
    padded = np.zeros((b, h, per_batch * page_size, d), cache.dtype)
    padded[:, :, :s] = cache
    container = rng.standard_normal((b * per_batch + 1, h, page_size, d)).astype(cache.dtype)
    table = np.zeros((b, 1, per_batch, 1), np.int32)
    for i in range(b):
        for p in range(per_batch):
            slot = pages_order[i * per_batch + p]
            container[slot] = padded[i, :, p * page_size:(p + 1) * page_size]
            table[i, 0, p, 0] = slot
    return container, table


def _decode_mask(gr, s, seq_len_kv, neg_inf, cap):
    # test_flexible_sdpa's decode graph: softcap, then the keys past each
    # batch's length masked
    s = gr.mul(a=gr.tanh(input=gr.div(a=s, b=cap)), b=cap)
    col = gr.gen_index(input=s, axis=3, compute_data_type=D.INT32)
    col.set_data_type(D.INT32)
    valid = gr.cmp_lt(input=col, comparison=seq_len_kv, compute_data_type=D.FLOAT)
    valid.set_data_type(D.BOOLEAN)
    return gr.binary_select(input0=s, input1=neg_inf, mask=valid)


@needs_lib
@pytest.mark.parametrize("page_size", [1, 4])
def test_score_mod_with_paged_caches_matches_numpy(page_size):
    # test_flexible_sdpa's paged decode: q [B, H, 1, D], K and V read
    # through page tables (pages shuffled, the last page partly past the
    # length), each batch's own seq_len_kv
    b, h, s_q, s_kv, d = 3, 2, 2, 30, 16
    rng = np.random.default_rng(1)
    per_batch = -(-s_kv // page_size)
    order = rng.permutation(b * per_batch + 1)[: b * per_batch]
    kf = rng.standard_normal((b, h, s_kv, d)).astype(np.float16)
    vf = rng.standard_normal((b, h, s_kv, d)).astype(np.float16)
    k_container, k_table = _pages(rng, kf, page_size, order)
    v_container, v_table = _pages(rng, vf, page_size, order[::-1])
    lens = np.array([30, 7, 18], np.int32).reshape(b, 1, 1, 1)
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    qs = (h * s_q * d, d, h * d, 1)
    q = g.tensor(dim=(b, h, s_q, d), stride=qs, data_type=D.HALF)
    kc, vc = g.tensor_like(k_container), g.tensor_like(v_container)
    kt, vt, seq_kv = g.tensor_like(k_table), g.tensor_like(v_table), g.tensor_like(lens)
    neg_inf, cap = _by_value(g, "neg_inf", D.FLOAT), _by_value(g, "cap", D.FLOAT)
    o, _ = g.sdpa(name="sdpa", q=q, k=kc, v=vc, attn_scale=0.25, seq_len_kv=seq_kv,
                  paged_attention_k_table=kt, paged_attention_v_table=vt, paged_attention_max_seq_len_kv=s_kv,
                  score_mod=partial(_decode_mask, seq_len_kv=seq_kv, neg_inf=neg_inf, cap=cap))
    o.set_output(True).set_dim((b, h, s_q, d)).set_stride(qs)
    g.build([cudnn.heur_mode.A])
    assert [n.op for n in g._nodes][:2] == ["paged_cache_load", "paged_cache_load"]
    qv = _strided(rng, (b, h, s_q, d), qs)
    obuf = np.zeros(b * s_q * h * d, np.float16)
    ov = np.lib.stride_tricks.as_strided(obuf, (b, h, s_q, d), [s * 2 for s in qs])
    g.execute({q: qv, kc: k_container, vc: v_container, kt: k_table, vt: v_table, seq_kv: lens, o: ov,
               neg_inf: np.full((1, 1, 1, 1), -1e9, np.float32), cap: np.full((1, 1, 1, 1), 0.8, np.float32)})
    # positions past a batch's length read zero from the cache, and the
    # mask hides them
    valid = np.arange(s_kv)[None, None, None, :] < lens
    kz = np.where(valid.transpose(0, 1, 3, 2), kf, 0)
    vz = np.where(valid.transpose(0, 1, 3, 2), vf, 0)
    ref_o, _ = _attention(qv, kz, vz, 0.25, lambda s: np.where(valid, np.tanh(s / 0.8) * 0.8, -1e9))
    np.testing.assert_allclose(ov.astype(np.float64), ref_o, atol=2e-3, rtol=2e-3)
    # a page table naming a page outside the container is an error naming it
    bad = k_table.copy()
    bad[1, 0, 0, 0] = k_container.shape[0]
    with pytest.raises(Exception, match=f"page table entry {k_container.shape[0]} .*outside the container"):
        g.execute({q: qv, kc: k_container, vc: v_container, kt: bad, vt: v_table, seq_kv: lens, o: ov,
                   neg_inf: np.full((1, 1, 1, 1), -1e9, np.float32), cap: np.full((1, 1, 1, 1), 0.8, np.float32)})


@needs_lib
@pytest.mark.parametrize("case", ["short_table", "k_only"])
def test_score_mod_paged_tables_are_checked_against_the_length(case):
    # a table with too few pages for the length is refused at planning
    # naming it; K paged and V dense takes V's length
    b, h, d = 2, 2, 8
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q = g.tensor(dim=(b, h, 1, d), stride=(h * d, d, d, 1), data_type=D.HALF)
    kc = g.tensor(dim=(16, h, 4, d), stride=(h * 4 * d, 4 * d, d, 1), data_type=D.HALF)
    pages = 7 if case == "short_table" else 8
    kt = g.tensor(dim=(b, 1, pages, 1), stride=(pages, pages, 1, 1), data_type=D.INT32)
    if case == "short_table":
        v, kwargs = kc, dict(paged_attention_v_table=kt, paged_attention_max_seq_len_kv=30)
    else:
        v, kwargs = g.tensor(dim=(b, h, 30, d), stride=(h * 30 * d, 30 * d, d, 1), data_type=D.HALF), {}
    o, _ = g.sdpa(q=q, k=kc, v=v, attn_scale=0.5, paged_attention_k_table=kt, score_mod=lambda gr, s: s, **kwargs)
    o.set_output(True)
    if case == "short_table":
        g.validate()
        with pytest.raises(cudnn.cudnnGraphNotSupportedError,
                           match=re.escape("paged_attention_k_table of dims [2, 1, 7, 1] (must be [2, 1, 8, 1]: "
                                           "[B, 1, ceil(30 / page size 4), 1]")):
            g.create_execution_plans([cudnn.heur_mode.A])
        return
    g.build([cudnn.heur_mode.A])
    gathered = [n for n in g._nodes if n.op == "paged_cache_load"]
    assert [n.params["max_seq_len"] for n in gathered] == [30]


def _causal(gr, s, fill):
    row = gr.gen_index(input=s, axis=2)
    row.set_data_type(D.INT32)
    col = gr.gen_index(input=s, axis=3)
    col.set_data_type(D.INT32)
    keep = gr.cmp_ge(input=row, comparison=col, compute_data_type=D.BOOLEAN)
    keep.set_data_type(D.BOOLEAN)
    return gr.binary_select(input0=s, input1=fill, mask=keep)


def _attention_grads(q, k, v, do, scale, modify, modify_grad):
    # numpy's sdpa backward through a score modification: modify(s) and
    # modify_grad(s, ds') (the gradient through it)
    q, k, v, do = (x.astype(np.float64) for x in (q, k, v, do))
    s = np.einsum("bhqd,bhkd->bhqk", q, k) * scale
    sm = modify(s)
    p = np.exp(sm - sm.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = np.einsum("bhqk,bhkd->bhqd", p, v)
    dv = np.einsum("bhqk,bhqd->bhkd", p, do)
    dp = np.einsum("bhqd,bhkd->bhqk", do, v)
    ds = modify_grad(s, p * (dp - (dp * p).sum(-1, keepdims=True))) * scale
    return o, np.einsum("bhqk,bhkd->bhqd", ds, k), np.einsum("bhqk,bhqd->bhkd", ds, q), dv


def _backward_graph(b, h, s_q, s_kv, d, strides, score_mod, score_mod_bprop, scalars):
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q, o, do = (g.tensor(name=n, dim=(b, h, s_q, d), stride=strides(s_q), data_type=D.HALF) for n in ("q", "o", "dO"))
    k, v = (g.tensor(name=n, dim=(b, h, s_kv, d), stride=strides(s_kv), data_type=D.HALF) for n in ("k", "v"))
    stats = g.tensor(name="stats", dim=(b, h, s_q, 1), stride=(h * s_q, s_q, 1, 1), data_type=D.FLOAT)
    made = {n: _by_value(g, n, D.FLOAT) for n in scalars}
    dq, dk, dv = g.sdpa_backward(name="bwd", q=q, k=k, v=v, o=o, dO=do, stats=stats, attn_scale=1 / np.sqrt(d),
                                 score_mod=partial(score_mod, **made), score_mod_bprop=partial(score_mod_bprop, **made))
    for t, n in ((dq, s_q), (dk, s_kv), (dv, s_kv)):
        t.set_output(True).set_dim((b, h, n, d)).set_stride(strides(n))
    g.build([cudnn.heur_mode.A])
    return g, (q, k, v, o, do, stats), (dq, dk, dv), made


@needs_lib
def test_score_mod_backward_causal_matches_numpy():
    # test_flexible_sdpa_bprop.py's program: the causal mask as score_mod
    # and, as score_mod_bprop, the same mask zeroing the score gradient;
    # BSHD strides, s_q != s_kv
    b, h, s_q, s_kv, d = 2, 3, 24, 40, 32

    def strides(s):
        return (s * h * d, d, h * d, 1)

    def bprop(gr, ds, zero, neg_inf):
        return _causal(gr, ds, zero)

    g, (q, k, v, o, do, stats), (dq, dk, dv), made = _backward_graph(
        b, h, s_q, s_kv, d, strides, lambda gr, s, zero, neg_inf: _causal(gr, s, neg_inf), bprop, ("zero", "neg_inf"))
    rng = np.random.default_rng(5)
    qv, ov, dov = (_strided(rng, (b, h, s_q, d), strides(s_q)) for _ in range(3))
    kv, vv = (_strided(rng, (b, h, s_kv, d), strides(s_kv)) for _ in range(2))
    keep = np.arange(s_q)[:, None] >= np.arange(s_kv)[None, :]
    ref_o, ref_dq, ref_dk, ref_dv = _attention_grads(qv, kv, vv, dov, 1 / np.sqrt(d),
                                                     lambda s: np.where(keep, s, -1e9), lambda s, ds: np.where(keep, ds, 0))
    # O and Stats as the forward gives them (O rounded to f16)
    ov[...] = ref_o.astype(np.float16)
    sc = np.where(keep, np.einsum("bhqd,bhkd->bhqk", qv.astype(np.float64), kv.astype(np.float64)) / np.sqrt(d), -1e9)
    m = sc.max(-1, keepdims=True)
    sv = np.ascontiguousarray(m + np.log(np.exp(sc - m).sum(-1, keepdims=True)), np.float32)
    outs = [np.zeros(b * n * h * d, np.float16) for n in (s_q, s_kv, s_kv)]
    views = [np.lib.stride_tricks.as_strided(buf, (b, h, n, d), [x * 2 for x in strides(n)])
             for buf, n in zip(outs, (s_q, s_kv, s_kv))]
    g.execute({q: qv, k: kv, v: vv, o: ov, do: dov, stats: sv, dq: views[0], dk: views[1], dv: views[2],
               made["zero"]: np.zeros((1, 1, 1, 1), np.float32), made["neg_inf"]: np.full((1, 1, 1, 1), -1e9, np.float32)})
    for got, ref in zip(views, (ref_dq, ref_dk, ref_dv)):
        np.testing.assert_allclose(got.astype(np.float64), ref, atol=1e-2, rtol=1e-2)
    assert np.abs(ref_dq).max() > 0.1  # the comparison is not of zeros


@needs_lib
def test_score_mod_backward_softcap_uses_the_bprop_callback():
    # a nonlinear modification: softcap, whose bprop multiplies the score
    # gradient by 1 - tanh(s / cap)^2 from the forward's tanh (the callbacks
    # share it, as the frontend's Softcap object does)
    b, h, s, d, cap = 1, 2, 16, 32, 0.8
    state = {}

    def strides(n):
        return (h * n * d, n * d, d, 1)

    def softcap(gr, sc, cap_t):
        state["tanh"] = gr.tanh(input=gr.div(a=sc, b=cap_t))
        return gr.mul(a=state["tanh"], b=cap_t)

    def softcap_bprop(gr, ds, cap_t):
        # d/dx cap tanh(x / cap) = 1 - tanh(x / cap)^2: ds - ds t t
        t = state["tanh"]
        return gr.sub(a=ds, b=gr.mul(a=gr.mul(a=ds, b=t), b=t))

    g, (q, k, v, o, do, stats), (dq, dk, dv), made = _backward_graph(b, h, s, s, d, strides, softcap,
                                                                      lambda gr, ds, cap_t: softcap_bprop(gr, ds, cap_t),
                                                                      ("cap_t",))
    rng = np.random.default_rng(6)
    qv, kv, vv, ov, dov = (_strided(rng, (b, h, s, d), strides(s)) for _ in range(5))
    modify = lambda x: cap * np.tanh(x / cap)  # noqa: E731
    ref_o, ref_dq, ref_dk, ref_dv = _attention_grads(qv, kv, vv, dov, 1 / np.sqrt(d), modify,
                                                     lambda x, dsm: dsm * (1 - np.tanh(x / cap) ** 2))
    # the reference's gradient itself, by central differences of sum(O dO)
    # in a few elements of q
    for idx in ((0, 0, 3, 5), (0, 1, 9, 30), (0, 1, 15, 0)):
        bumped = []
        for eps in (1e-4, -1e-4):
            qe = qv.astype(np.float64)
            qe[idx] += eps
            bumped.append((_attention_grads(qe, kv, vv, dov, 1 / np.sqrt(d), modify, lambda x, y: y)[0]
                           * dov.astype(np.float64)).sum())
        assert abs((bumped[0] - bumped[1]) / 2e-4 - ref_dq[idx]) < 1e-5 * max(1.0, abs(ref_dq[idx]))
    ov[...] = ref_o.astype(np.float16)
    sc = cap * np.tanh(np.einsum("bhqd,bhkd->bhqk", qv.astype(np.float64), kv.astype(np.float64)) / np.sqrt(d) / cap)
    m = sc.max(-1, keepdims=True)
    sv = np.ascontiguousarray(m + np.log(np.exp(sc - m).sum(-1, keepdims=True)), np.float32)
    outs = {t: np.zeros((b, h, s, d), np.float16) for t in (dq, dk, dv)}
    g.execute({q: qv, k: kv, v: vv, o: ov, do: dov, stats: sv, **outs, made["cap_t"]: np.full((1, 1, 1, 1), cap, np.float32)})
    for t, ref in ((dq, ref_dq), (dk, ref_dk), (dv, ref_dv)):
        np.testing.assert_allclose(outs[t].astype(np.float64), ref, atol=1e-2, rtol=1e-2)


def _small_backward_inputs():
    """A graph with q, k, v, o, dO ([1, 2, 16, 32] f16) and stats."""
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    t = {n: g.tensor(name=n, dim=(1, 2, 16, 32), stride=(1024, 512, 32, 1), data_type=D.HALF) for n in ("q", "k", "v", "o", "dO")}
    stats = g.tensor(name="stats", dim=(1, 2, 16, 1), stride=(32, 16, 1, 1), data_type=D.FLOAT)
    return g, t, stats


@needs_lib
def test_score_mod_backward_without_bprop_is_refused_at_planning():
    g, t, stats = _small_backward_inputs()
    grads = g.sdpa_backward(**t, stats=stats, attn_scale=0.5, score_mod=lambda gr, s: s)
    for x in grads:
        x.set_output(True)
    g.validate()
    with pytest.raises(cudnn.cudnnGraphNotSupportedError, match=r"score_mod' argument without 'score_mod_bprop'"):
        g.build([cudnn.heur_mode.A])


@needs_lib
def test_score_mod_grouped_heads_forward_and_backward_match_numpy():
    # grouped-query attention (6 q heads over 2 k/v heads) with a causal
    # score_mod: O, and dQ, dK, dV (each k/v head's gradient sums its group)
    b, hq, hk, s, d = 1, 6, 2, 16, 32
    grp = hq // hk
    rng = np.random.default_rng(8)
    qv, ov, dov = (rng.standard_normal((b, hq, s, d)).astype(np.float16) for _ in range(3))
    kv, vv = (rng.standard_normal((b, hk, s, d)).astype(np.float16) for _ in range(2))
    keep = np.arange(s)[:, None] >= np.arange(s)[None, :]
    rep = lambda x: np.repeat(x, grp, axis=1)  # noqa: E731
    ref_o, ref_dq, ref_dk, ref_dv = _attention_grads(qv, rep(kv), rep(vv), dov, 0.2, lambda x: np.where(keep, x, -1e9),
                                                     lambda x, ds: np.where(keep, ds, 0))
    ref_dk = ref_dk.reshape(b, hk, grp, s, d).sum(2)
    ref_dv = ref_dv.reshape(b, hk, grp, s, d).sum(2)

    def tensors(g, names_dims):
        return [g.tensor(name=n, dim=dims, stride=[int(np.prod(dims[i + 1:])) for i in range(4)], data_type=D.HALF)
                for n, dims in names_dims]

    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q, k, v = tensors(g, [("q", (b, hq, s, d)), ("k", (b, hk, s, d)), ("v", (b, hk, s, d))])
    fill = _by_value(g, "fill", D.FLOAT)
    o, stats = g.sdpa(q=q, k=k, v=v, attn_scale=0.2, generate_stats=True, score_mod=lambda gr, x: _causal(gr, x, fill))
    o.set_output(True)
    stats.set_output(True).set_data_type(D.FLOAT)
    g.build([cudnn.heur_mode.A])
    o_out, st_out = np.zeros((b, hq, s, d), np.float16), np.zeros((b, hq, s, 1), np.float32)
    g.execute({q: qv, k: kv, v: vv, o: o_out, stats: st_out, fill: np.full((1, 1, 1, 1), -1e9, np.float32)})
    np.testing.assert_allclose(o_out.astype(np.float64), ref_o, atol=2e-3, rtol=2e-3)

    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q, k, v, o, do = tensors(g, [("q", (b, hq, s, d)), ("k", (b, hk, s, d)), ("v", (b, hk, s, d)), ("o", (b, hq, s, d)),
                                 ("dO", (b, hq, s, d))])
    st = g.tensor(name="stats", dim=(b, hq, s, 1), stride=(hq * s, s, 1, 1), data_type=D.FLOAT)
    fill, zero = _by_value(g, "fill", D.FLOAT), _by_value(g, "zero", D.FLOAT)
    grads = g.sdpa_backward(q=q, k=k, v=v, o=o, dO=do, stats=st, attn_scale=0.2,
                            score_mod=lambda gr, x: _causal(gr, x, fill), score_mod_bprop=lambda gr, x: _causal(gr, x, zero))
    outs = {}
    for t, like in zip(grads, (qv, kv, vv)):
        t.set_output(True)
        outs[t] = np.zeros(like.shape, np.float16)
    g.build([cudnn.heur_mode.A])
    assert [t.get_dim() for t in grads] == [[b, hq, s, d], [b, hk, s, d], [b, hk, s, d]]
    g.execute({q: qv, k: kv, v: vv, o: o_out, do: dov, st: st_out, fill: np.full((1, 1, 1, 1), -1e9, np.float32),
               zero: np.zeros((1, 1, 1, 1), np.float32), **outs})
    for t, ref in zip(grads, (ref_dq, ref_dk, ref_dv)):
        np.testing.assert_allclose(outs[t].astype(np.float64), ref, atol=2e-2, rtol=2e-2)


@needs_lib
def test_score_mod_composites_keep_determinism_and_warn_on_half_softmax():
    # the options the plain builders honour: determinism bars
    # nondeterministic plans for the whole graph; HALF softmax warns
    g, t, stats = _small_backward_inputs()
    assert g._deterministic is False
    g.sdpa_backward(**t, stats=stats, attn_scale=0.5, score_mod=lambda gr, s: s, score_mod_bprop=lambda gr, s: s,
                    use_deterministic_algorithm=True)
    assert g._deterministic is True
    with pytest.warns(UserWarning, match=r"softmax_precision=HALF.*f32"):
        g.sdpa(q=t["q"], k=t["k"], v=t["v"], attn_scale=0.5, score_mod=lambda gr, s: s,
               softmax_precision=cudnn.data_type.HALF)


@needs_lib
def test_score_mod_ignores_an_rng_dump_without_dropout():
    # as the plain sdpa (and the frontend) ignore it: a warning, no refusal
    g = cudnn.pygraph(io_data_type=D.HALF, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)
    q, k, v = (g.tensor(dim=(1, 2, 8, 16), stride=(256, 16, 32, 1), data_type=D.HALF) for _ in range(3))
    dump = g.tensor(dim=(1, 2, 8, 8), stride=(128, 64, 8, 1), data_type=D.FLOAT)
    with pytest.warns(UserWarning, match="rng_dump without dropout is ignored"):
        o, _ = g.sdpa(q=q, k=k, v=v, attn_scale=0.5, rng_dump=dump, score_mod=lambda gr, s: s)
    o.set_output(True)
    g.build([cudnn.heur_mode.A])
    assert g.unsupported_features() == [] and dump.producer is None
