"""Every op family's emitted text parses and verifies (graph-opt, and the C
API when it is built)."""

import pytest

import graph_compiler as gc
from conftest import graph_opt, needs_graph_opt

D = gc.data_type
PH = gc.norm_forward_phase


def g_(io=D.FLOAT):
    return gc.pygraph(io_data_type=io, intermediate_data_type=D.FLOAT, compute_data_type=D.FLOAT)


def fam_matmul_pointwise():
    g = g_()
    a, b = g.tensor(dim=[2, 4, 8]), g.tensor(dim=[1, 8, 16])
    c = g.matmul(a, b, compute_data_type=D.FLOAT, padding=0.5)
    outs = [c]
    row = g.tensor(dim=[1, 1, 16])
    for op in ("abs", "ceil", "cos", "elu", "erf", "exp", "floor", "gelu", "gelu_approx_tanh", "identity", "log", "logical_not",
               "neg", "reciprocal", "rsqrt", "sigmoid", "sin", "softplus", "sqrt", "tan", "tanh"):
        outs.append(getattr(g, op)(c))
    for op in ("add", "add_square", "div", "logical_and", "logical_or", "mul", "sub", "max", "min", "mod", "pow",
               "cmp_eq", "cmp_ge", "cmp_gt", "cmp_le", "cmp_lt", "cmp_neq", "bias", "scale"):
        outs.append(getattr(g, op)(c, row))
    for op in ("elu_backward", "gelu_approx_tanh_backward", "gelu_backward", "sigmoid_backward", "softplus_backward", "tanh_backward"):
        outs.append(getattr(g, op)(c, c))
    outs += [g.relu(c, negative_slope=0.1, lower_clip=0.0, upper_clip=6.0), g.leaky_relu(c, 0.2), g.swish(c, swish_beta=1.5),
             g.gen_index(c, axis=1), g.relu_backward(c, c, lower_clip=0.0), g.leaky_relu_backward(c, c, 0.1), g.swish_backward(c, c, 1.0),
             g.binary_select(c, c, g.tensor(dim=[2, 4, 1], data_type=D.BOOLEAN))]
    outs[-1].set_output(True)
    outs[-4].set_output(True)
    return g


def fam_conv():
    g = g_(D.HALF)
    x, w = g.tensor(dim=[2, 8, 16, 16]), g.tensor(dim=[16, 8, 3, 3])
    y = g.conv_fprop(x, w, padding=[1, 1], stride=[2, 2], dilation=[1, 1]).set_output(True)
    g.conv_fprop(x, w, pre_padding=[1, 0], post_padding=[1, 2], convolution_mode=gc.convolution_mode.CONVOLUTION).set_output(True)
    dy = g.tensor(dim=[2, 16, 8, 8])
    g.conv_dgrad(dy, w, padding=[1, 1], stride=[2, 2]).set_dim([2, 8, 16, 16]).set_output(True)
    g.conv_wgrad(x, dy, padding=[1, 1], stride=[2, 2]).set_dim([16, 8, 3, 3]).set_output(True)
    x3, w3 = g.tensor(dim=[1, 4, 8, 8, 8]), g.tensor(dim=[8, 4, 3, 3, 3])
    g.conv_fprop(x3, w3, padding=[1, 1, 1]).set_output(True)
    return g


def fam_norms():
    g = g_()
    x, s, b = g.tensor(dim=[4, 32, 1, 1]), g.tensor(dim=[1, 32, 1, 1]), g.tensor(dim=[1, 32, 1, 1])
    eps = g.tensor_scalar(1e-5, D.FLOAT)
    for op in ("layernorm", "instancenorm"):
        for t in getattr(g, op)(x, s, b, eps, norm_forward_phase=PH.TRAINING):
            t.set_output(True)
        getattr(g, op)(x, s, b, eps, norm_forward_phase=PH.INFERENCE)[0].set_output(True)
    ag = g.tensor(dim=[4, 32, 1, 1])
    for t in g.adalayernorm(x, ag, ag, eps, norm_forward_phase=PH.TRAINING):
        t.set_output(True)
    y, iv = g.rmsnorm(x, s, None, eps, norm_forward_phase=PH.TRAINING)
    y.set_output(True)
    g.rmsnorm(x, s, b, eps, norm_forward_phase=PH.INFERENCE)[0].set_output(True)
    m, v = g.tensor(dim=[4, 1, 1, 1]), g.tensor(dim=[4, 1, 1, 1])
    for op in ("layernorm_backward",):
        for t in getattr(g, op)(x, x, s, m, v):
            t.set_output(True)
    for t in g.adalayernorm_backward(x, x, ag, m, v):
        t.set_output(True)
    for t in g.rmsnorm_backward(x, x, s, v, has_dbias=False):
        if t is not None:
            t.set_output(True)
    xi = g.tensor(dim=[2, 16, 8, 8])
    si = g.tensor(dim=[1, 16, 1, 1])
    mi = g.tensor(dim=[2, 16, 1, 1])
    for t in g.instancenorm_backward(xi, xi, si, mi, mi):
        t.set_output(True)
    return g


def fam_batchnorm():
    g = g_(D.HALF)
    x = g.tensor(dim=[2, 16, 8, 8])
    c = [g.tensor(dim=[1, 16, 1, 1], data_type=D.FLOAT) for _ in range(4)]
    eps, mom = g.tensor_scalar(1e-5, D.FLOAT), g.tensor_scalar(0.1, D.FLOAT)
    outs = g.batchnorm(x, c[0], c[1], c[2], c[3], eps, mom, peer_stats=[g.tensor(dim=[2, 16, 1, 1], data_type=D.FLOAT)])
    for t in outs:
        t.set_output(True)
    y, m, iv, nrm, nrv = g.batchnorm(x, c[0], c[1], epsilon=eps)
    assert nrm is None and nrv is None
    y.set_output(True)
    g.batchnorm_inference(x, c[0], c[1], c[2], c[3]).set_output(True)
    for t in g.batchnorm_backward(x, x, c[0], c[1], c[2]):
        t.set_output(True)
    s, sq = g.genstats(x)
    s.set_output(True)
    sq.set_output(True)
    return g


def fam_structural():
    g = g_()
    x = g.tensor(dim=[4, 16])
    off = g.tensor(dim=[3], data_type=D.INT32)
    for mode in ("ADD", "MUL", "MIN", "MAX", "AMAX", "AVG", "NORM1", "NORM2", "MUL_NO_ZEROS"):
        g.reduction(x, mode=getattr(gc.reduction_mode, mode)).set_dim([4, 1]).set_output(True)
    g.reduction(x, off, gc.reduction_mode.ADD).set_dim([4, 1]).set_output(True)
    g.reshape(x).set_dim([2, 2, 16]).set_output(True)
    g.slice(x, slices=[slice(0, 4), slice(4, 12, 2)]).set_output(True)
    g.slice(x, slices=[slice(1, 3)]).set_output(True)
    g.transpose(x, permutation=[1, 0]).set_output(True)
    g.concatenate([x, g.tensor(dim=[4, 4])], axis=-1, in_place_index=0).set_output(True)
    xr, f = g.tensor(dim=[2, 8, 16, 64], data_type=D.BFLOAT16), g.tensor(dim=[1, 1, 16, 32])
    y = g.rope(xr, f).set_output(True)
    g.rope_backward(y, f, output_scale=0.5).set_output(True)
    return g


def fam_sdpa():
    g = g_(D.BFLOAT16)
    q, k, v = (g.tensor(dim=[2, 8, 64, 32]) for _ in range(3))
    bias = g.tensor(dim=[1, 8, 64, 64])
    sl = g.tensor(dim=[2, 1, 1, 1], data_type=D.INT32)
    o, st = g.sdpa(q, k, v, attn_scale=0.125, use_causal_mask=True, generate_stats=True)
    o.set_output(True)
    st.set_output(True)
    scale = g.tensor_scalar(0.125, D.FLOAT)
    smax, ssum = g.tensor(dim=[2, 8, 64, 1], data_type=D.FLOAT), g.tensor(dim=[2, 8, 64, 1], data_type=D.FLOAT)
    outs = g.sdpa(q, k, v, attn_scale=scale, bias=bias, use_padding_mask=True, seq_len_q=sl, seq_len_kv=sl,
                  use_causal_mask_bottom_right=True, score_max=smax, score_sum_exp=ssum)
    assert len(outs) == 2 and outs[1] is None  # [O, Stats], as the frontend returns; score_max/score_sum_exp are the caller's
    assert smax.producer[1] == "score_max" and ssum.producer[1] == "score_sum_exp"
    outs[0].set_output(True)
    mask = g.tensor(dim=[2, 8, 64, 64], data_type=D.BOOLEAN)
    g.sdpa(q, k, v, dropout=(mask, 1 / 0.9), diagonal_alignment=gc.diagonal_alignment.BOTTOM_RIGHT,
           diagonal_band_left_bound=16, diagonal_band_right_bound=0)[0].set_output(True)
    g.sdpa(q, k, v, sliding_window_length=8, use_causal_mask=True, use_alibi_mask=True)[0].set_output(True)
    dO = g.tensor(dim=[2, 8, 64, 32])
    for t in g.sdpa_backward(q, k, v, o, dO, st, attn_scale=0.125, use_causal_mask=True):
        t.set_output(True)
    dbias = g.tensor(dim=[1, 8, 64, 64])
    outs = g.sdpa_backward(q, k, v, o, dO, st, bias=bias, dBias=dbias)
    assert len(outs) == 3 and dbias.producer[1] == "dBias"  # [dQ, dK, dV]; dBias is the caller's
    return g


def fam_fp8():
    g = g_(D.FP8_E4M3)
    q, k, v = (g.tensor(dim=[2, 4, 32, 64]) for _ in range(3))
    s = [g.tensor(dim=[1, 1, 1, 1], data_type=D.FLOAT) for _ in range(6)]
    o, st, amax_s, amax_o = g.sdpa_fp8(q, k, v, *s, generate_stats=True, use_causal_mask=True)
    for t in (o, st, amax_s, amax_o):
        t.set_output(True)
    x = g.tensor(dim=[128, 256], data_type=D.BFLOAT16)
    y, sc = g.block_scale_quantize(x, block_size=32)
    y.set_output(True)
    sc.set_output(True)
    g.block_scale_dequantize(y, sc, block_size=32).set_data_type(D.FLOAT).set_output(True)
    return g


def fam_moe():
    g = g_(D.BFLOAT16)
    t, w = g.tensor(dim=[1, 64, 32]), g.tensor(dim=[4, 32, 16])
    off = g.tensor(dim=[4, 1, 1], data_type=D.INT32)
    y = g.moe_grouped_matmul(t, w, off).set_output(True)
    g.moe_grouped_matmul_bwd(y, t, off).set_data_type(D.FLOAT).set_output(True)
    return g


def fam_linear_attention():
    g = g_(D.BFLOAT16)
    q, k, v = g.tensor(dim=[64, 2, 32]), g.tensor(dim=[64, 2, 32]), g.tensor(dim=[64, 4, 32])
    gg, beta = g.tensor(dim=[64, 4], data_type=D.FLOAT), g.tensor(dim=[64, 4], data_type=D.FLOAT)
    cu = g.tensor(dim=[3], data_type=D.INT32)
    o, fs, ck = g.gdn(q, k, v, gg, beta, cu_seqlens=cu, output_final_state=True, scale=0.17)
    assert ck is None
    o.set_output(True)
    fs.set_output(True)
    do = g.tensor(dim=[64, 4, 32])
    for t in g.gdn_bwd(q, k, v, gg, beta, cu_seqlens=cu, dO=do):
        if t is not None:
            t.set_output(True)
    return g


FAMILIES = [fam_matmul_pointwise, fam_conv, fam_norms, fam_batchnorm, fam_structural, fam_sdpa, fam_fp8, fam_moe, fam_linear_attention]


@needs_graph_opt
@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__[4:])
def test_graph_opt_accepts(family):
    text = family().to_mlir()
    ok, out = graph_opt(text)
    assert ok, f"graph-opt rejected:\n{out}\n--- text ---\n{text}"


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.__name__[4:])
def test_validate_through_capi(family):
    if not gc.is_available():
        pytest.skip("libGraphCAPI.so is not built (ninja -C build GraphCAPI, or set GRAPH_CAPI_LIBRARY)")
    g = family()
    g.validate()
    g.build_operation_graph()


def test_scalar_float_text():
    g = g_()
    x = g.tensor(dim=[2])
    g.mul(x, g.tensor_scalar(0.1, D.FLOAT, name='alpha "a"')).set_output(True)
    text = g.to_mlir()
    assert 'scalar 1.000000e-01 : f32 {name = "alpha \\22a\\22", uid = 2 : i64} -> tensor<1x1x1x1xf32>' in text


def test_int64_scalar_is_exact():
    # beyond 2**53, where a double would round it
    g = gc.pygraph(io_data_type=D.INT64, compute_data_type=D.INT64)
    x = g.tensor(dim=[2], data_type=D.INT64)
    g.add(x, g.tensor_scalar(2**62 + 1, D.INT64, name="big")).set_output(True)
    assert "scalar 4611686018427387905 : i64" in g.to_mlir()
