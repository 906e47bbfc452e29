"""One Swin Transformer block with SHIFTED window attention (Liu et al. 2021,
microsoft/Swin-Transformer's SwinTransformerBlock with shift_size > 0;
Swin-T stage 1: 56x56 tokens of 96 channels, 3 heads of 32, window 7,
shift 3, MLP ratio 4), fp16 activations and weights with fp32 compute, as
one graph written with the frontend's ops:

    n  = norm1(x).view(B, H, W, C)                      # x [B, H*W, C]; nn.LayerNorm, eps 1e-5
    n  = roll(n, (-s, -s), dims=(1, 2))                 # cyclic shift
    xw = window_partition(n).view(B*nW, ws*ws, C)       # [B, H/ws, ws, W/ws, ws, C] -> permute(0,1,3,2,4,5)
    q, k, v = heads(xw @ Wqkv^T + bqkv)                 # channels [3][heads][d]
    a  = softmax(q k^T / sqrt(d) + rel_pos_bias + attn_mask[window]) v
    o  = window_reverse(a @ Wproj^T + bproj)            # [B, H/ws, W/ws, ws, ws, C] -> permute -> [B, H, W, C]
    h  = x + roll(o, (s, s), dims=(1, 2)).view(B, H*W, C)
    y  = h + fc2(gelu(fc1(norm2(h))))                   # exact GELU, hidden 4C

Graph side: the roll is two slices and a concatenate per axis
(roll(t, -s)[i] = t[(i + s) % H] = concat(t[s:], t[:s])); window
partition / reverse are the graph's 6-D reshape and transpose (the
transpose of a row-major virtual tensor is a copy, as torch's
.contiguous() is);
heads are views of the qkv projection's rows, as in the other transformer
models; the attention output is stored [B*nW, N, heads, d] so it reads back
as rows. The attention's additive bias is built in the graph from its two
pieces: the relative position bias [1, heads, N, N] (N = ws*ws; a graph
input made by make_inputs from a random relative_position_bias_table
through Swin's relative_position_index: the gather is the model's
parameter lookup, outside the block's math) plus the shifted-window mask
[nW, 1, N, N] (0 / -100 as Swin's attn_mask, computed by make_inputs with
Swin's code), a broadcast pointwise add to [nW, heads, N, N], then B copies
concatenated along the batch to [B*nW, heads, N, N] (window w of image b is
sdpa batch b*nW + w: the mask repeats every nW batches, which neither
sdpa's bias broadcast (batch 1 or B*nW) nor any strides of a 4-D tensor
express; folding the windows into the heads, [B, nW*heads], would
broadcast but costs copies of q, k and v). Linear weights are
nn.Linear's [out, in] storage, read as the matmul's B operand [in, out]
through transposed strides. Tensors a matmul or the attention reads (the
norm outputs, qkv, the attention bias and output, the GELU output) and the
projection output the window reverse copies are f16, as under autocast; the
reference rounds at the same places.

The numpy reference follows the paper's code line by line (torch.roll as
np.roll, window_partition / window_reverse as its view/permute, the mask
from img_mask's three slices per axis, relative_position_index from the
coordinate differences). Checked once by a scratch script (not part of the
corpus run): ``forward`` against ``direct_forward`` below (explicit loops
over windows, tokens and heads; the mask from whether each token wrapped
around, not from img_mask), without the f16 roundings: relative 2e-16 at
the small size and at h=9 w=6 ws=3 shift=1 (with them: identical);
attn_mask equals the wrap rule at 56x56 / ws 7 / shift 3 (15 of 64 windows
masked); relative_position_index equals (di + ws-1)(2ws-1) + (dj + ws-1)
for ws 3, 4, 7. Perturbed references fail against the graph's CPU run at
the small size (graph vs reference 2.0e-4, bound 1e-2): both rolls
reversed 0.44, partition / reverse without their permute 0.27, no mask
0.31, the reverse roll left out 0.65, the mask's rows reversed 0.56.

Forward (inference) only; no dropout / drop path.
"""

import math

import numpy as np

import _nn_ref as nn
import _transformer as tf
from harness import Model

NAME = "swin_block"
TRAINS = False
SIZES = {
    # 8x8 tokens, window 4 (2x2 = 4 windows, all but one cut by the shift)
    "small": dict(b=2, h=8, w=8, c=32, heads=2, ws=4, shift=2),
    "check": dict(b=2, h=28, w=28, c=96, heads=3, ws=7, shift=3),
    "full": dict(b=32, h=56, w=56, c=96, heads=3, ws=7, shift=3),
}
EPS = 1e-5
MLP_RATIO = 4

FORWARD_INPUTS = (
    "x", "norm1.weight", "norm1.bias", "attn.qkv.weight", "attn.qkv.bias", "relative_position_bias", "attn_mask",
    "attn.proj.weight", "attn.proj.bias", "norm2.weight", "norm2.bias", "mlp.fc1.weight", "mlp.fc1.bias",
    "mlp.fc2.weight", "mlp.fc2.bias",
)


def _shapes(b, h, w, c, heads, ws):
    n = ws * ws
    nw = (h // ws) * (w // ws)
    f = MLP_RATIO * c
    return {
        "x": [b, h * w, c],
        "norm1.weight": [1, c],
        "norm1.bias": [1, c],
        "attn.qkv.weight": [c, 3 * c],  # B of the matmul; stored [3C, C]
        "attn.qkv.bias": [1, 3 * c],
        "relative_position_bias": [1, heads, n, n],
        "attn_mask": [nw, 1, n, n],
        "attn.proj.weight": [c, c],
        "attn.proj.bias": [1, c],
        "norm2.weight": [1, c],
        "norm2.bias": [1, c],
        "mlp.fc1.weight": [c, f],
        "mlp.fc1.bias": [1, f],
        "mlp.fc2.weight": [f, c],
        "mlp.fc2.bias": [1, c],
    }


def _linear_stride(dims):
    """Strides of a matmul B operand [in, out] stored as nn.Linear's [out, in]."""
    return [1, dims[0]]


def _check_dims(h, w, ws, shift):
    if h % ws or w % ws or not 0 < shift < ws:
        raise ValueError(f"{NAME}: h={h}, w={w} must be multiples of ws={ws}, and 0 < shift={shift} < ws")


# =============================================================================
# Graph
# =============================================================================


def build(cudnn, phase, b, h, w, c, heads, ws, shift):
    if phase != "forward":
        raise ValueError(f"{NAME} has no {phase!r} phase")
    _check_dims(h, w, ws, shift)
    dt = cudnn.data_type
    f16, f32 = dt.HALF, dt.FLOAT
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=f16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(b, h, w, c, heads, ws)
    t, n, d = b * h * w, ws * ws, c // heads
    nwh, nww = h // ws, w // ws
    nw = nwh * nww
    inputs = {}

    def tensor(name, dtype=f16, stride=None):
        inputs[name] = g.tensor(name=name, dim=shapes[name], stride=stride, data_type=dtype)
        return inputs[name]

    x = tensor("x")
    ln1_w, ln1_b = tensor("norm1.weight", f32), tensor("norm1.bias", f32)
    wqkv = tensor("attn.qkv.weight", stride=_linear_stride(shapes["attn.qkv.weight"]))
    bqkv = tensor("attn.qkv.bias")
    rpb = tensor("relative_position_bias", f32)
    mask = tensor("attn_mask", f32)
    wproj = tensor("attn.proj.weight", stride=_linear_stride(shapes["attn.proj.weight"]))
    bproj = tensor("attn.proj.bias")
    ln2_w, ln2_b = tensor("norm2.weight", f32), tensor("norm2.bias", f32)
    w1 = tensor("mlp.fc1.weight", stride=_linear_stride(shapes["mlp.fc1.weight"]))
    b1 = tensor("mlp.fc1.bias")
    w2 = tensor("mlp.fc2.weight", stride=_linear_stride(shapes["mlp.fc2.weight"]))
    b2 = tensor("mlp.fc2.bias")

    eps = g.tensor_scalar(EPS, f32, name="eps")
    inf = cudnn.norm_forward_phase.INFERENCE

    def roll(v, by, axis, name):
        """torch.roll(v, by, dims=axis): out[i] = v[(i - by) % size], as
        concat(v[size - by:], v[:size - by]) along the axis."""
        size = v.dim[axis]
        cut = (size - by) % size
        pre = [slice(None)] * axis
        tail = g.slice(v, slices=pre + [slice(cut, None)], name=f"{name}.tail")
        head = g.slice(v, slices=pre + [slice(0, cut)], name=f"{name}.head")
        return g.concatenate([tail, head], axis=axis, name=name)

    # x [B, H*W, C] -> rows, norm1, the image [B, H, W, C]
    xr = g.reshape(x, out_dims=[t, c], name="x.rows")
    n1 = g.layernorm(input=xr, scale=ln1_w, bias=ln1_b, epsilon=eps, norm_forward_phase=inf, name="norm1")[0].set_data_type(f16)
    img = g.reshape(n1, out_dims=[b, h, w, c], name="norm1.image")
    # cyclic shift by (-s, -s)
    shifted = roll(roll(img, -shift, 1, "shift.h"), -shift, 2, "shift.w")
    # window partition -> rows [B*nW*N, C]
    part = g.reshape(shifted, out_dims=[b, nwh, ws, nww, ws, c], name="partition.split")
    part = g.transpose(part, permutation=[0, 1, 3, 2, 4, 5], name="partition.permute")
    windows = g.reshape(part, out_dims=[b * nw * n, c], name="windows")

    # attention over each window: sdpa batch B*nW, sequence N
    qkv = tf.linear(g, windows, wqkv, bqkv, "attn.qkv").set_data_type(f16)
    q, k, v = tf.qkv_attention_heads(g, qkv, b * nw, n, heads, d)
    # bias: relative position bias + the window's mask, repeated over the images
    bias_w = g.add(rpb, mask, name="attn.bias.windows").set_data_type(f16)  # [nW, heads, N, N]
    bias = g.concatenate([bias_w] * b, axis=0, name="attn.bias")  # [B*nW, heads, N, N]
    o = g.sdpa(q=q, k=k, v=v, attn_scale=1.0 / math.sqrt(d), bias=bias, is_inference=True, name="attn.sdpa")[0]
    o.set_data_type(f16).set_stride(tf.bshd_strides(b * nw, n, heads, d))
    proj = tf.linear(g, tf.merge_heads(g, o, b * nw, n, heads, d, "attn.rows"), wproj, bproj, "attn.proj").set_data_type(f16)

    # window reverse -> [B, H, W, C], reverse shift by (s, s), residual
    rev = g.reshape(proj, out_dims=[b, nwh, nww, ws, ws, c], name="reverse.split")
    rev = g.transpose(rev, permutation=[0, 1, 3, 2, 4, 5], name="reverse.permute")
    rev = g.reshape(rev, out_dims=[b, h, w, c], name="reverse.image")
    back = roll(roll(rev, shift, 1, "unshift.h"), shift, 2, "unshift.w")
    hid = g.add(g.reshape(back, out_dims=[t, c], name="unshift.rows"), xr, name="attn_residual")

    # MLP
    n2 = g.layernorm(input=hid, scale=ln2_w, bias=ln2_b, epsilon=eps, norm_forward_phase=inf, name="norm2")[0].set_data_type(f16)
    act = g.gelu(tf.linear(g, n2, w1, b1, "mlp.fc1"), name="mlp.gelu").set_data_type(f16)
    out = g.add(tf.linear(g, act, w2, b2, "mlp.fc2"), hid, name="mlp_residual").set_data_type(f16)
    y = g.reshape(out, out_dims=[b, h * w, c], name="y.tokens")
    y.set_output(True).set_name("y").set_data_type(f16)
    return Model(graph=g, inputs=inputs, outputs={"y": y})


# =============================================================================
# Swin's own pieces (numpy transcriptions of the paper's code)
# =============================================================================


def window_partition(x, ws):
    """[B, H, W, C] -> [B*nW, ws, ws, C] (Swin's window_partition)."""
    bb, hh, ww, cc = x.shape
    x = x.reshape(bb, hh // ws, ws, ww // ws, ws, cc)
    return x.transpose(0, 1, 3, 2, 4, 5).reshape(-1, ws, ws, cc)


def window_reverse(windows, ws, hh, ww):
    """[B*nW, ws, ws, C] -> [B, H, W, C] (Swin's window_reverse)."""
    bb = int(windows.shape[0] / (hh * ww / ws / ws))
    x = windows.reshape(bb, hh // ws, ww // ws, ws, ws, -1)
    return x.transpose(0, 1, 3, 2, 4, 5).reshape(bb, hh, ww, -1)


def relative_position_index(ws):
    """[N, N] indices into the [(2ws-1)^2, heads] bias table (Swin's
    WindowAttention.__init__)."""
    coords = np.stack(np.meshgrid(np.arange(ws), np.arange(ws), indexing="ij"))  # 2, ws, ws
    flat = coords.reshape(2, -1)
    rel = (flat[:, :, None] - flat[:, None, :]).transpose(1, 2, 0).copy()  # N, N, 2
    rel[:, :, 0] += ws - 1
    rel[:, :, 1] += ws - 1
    rel[:, :, 0] *= 2 * ws - 1
    return rel.sum(-1)


def relative_position_bias(table, ws):
    """[1, heads, N, N] from the [(2ws-1)^2, heads] table."""
    n = ws * ws
    return table[relative_position_index(ws).reshape(-1)].reshape(n, n, -1).transpose(2, 0, 1)[None]


def attn_mask(hh, ww, ws, shift):
    """[nW, 1, N, N] (Swin's SwinTransformerBlock.__init__: attn_mask is
    [nW, N, N], added as mask.unsqueeze(1).unsqueeze(0) to the
    [B, nW, heads, N, N] scores: here with the heads axis kept)."""
    img_mask = np.zeros((1, hh, ww, 1))
    slices = (slice(0, -ws), slice(-ws, -shift), slice(-shift, None))
    cnt = 0
    for hs in slices:
        for wsl in slices:
            img_mask[:, hs, wsl, :] = cnt
            cnt += 1
    mask_windows = window_partition(img_mask, ws).reshape(-1, ws * ws)
    m = mask_windows[:, None, :] - mask_windows[:, :, None]
    return np.where(m != 0, -100.0, 0.0)[:, None]


# =============================================================================
# Inputs and reference
# =============================================================================


def make_inputs(phase, rng, b, h, w, c, heads, ws, shift):
    _check_dims(h, w, ws, shift)
    s = _shapes(b, h, w, c, heads, ws)
    f = MLP_RATIO * c

    def bias(name):
        return 0.1 * rng.standard_normal(s[name])

    # the table: trained stage-1 tables hold O(1) values (Swin initializes
    # them with std 0.02, which would leave the bias invisible)
    table = 0.5 * rng.standard_normal(((2 * ws - 1) ** 2, heads))
    return {
        "x": rng.standard_normal(s["x"]),
        "norm1.weight": 1.0 + 0.1 * rng.standard_normal(s["norm1.weight"]),
        "norm1.bias": bias("norm1.bias"),
        "attn.qkv.weight": nn.fan_in_normal(rng, s["attn.qkv.weight"], c),
        "attn.qkv.bias": bias("attn.qkv.bias"),
        "relative_position_bias": relative_position_bias(table, ws),
        "attn_mask": attn_mask(h, w, ws, shift),
        "attn.proj.weight": nn.fan_in_normal(rng, s["attn.proj.weight"], c),
        "attn.proj.bias": bias("attn.proj.bias"),
        "norm2.weight": 1.0 + 0.1 * rng.standard_normal(s["norm2.weight"]),
        "norm2.bias": bias("norm2.bias"),
        "mlp.fc1.weight": nn.fan_in_normal(rng, s["mlp.fc1.weight"], c),
        "mlp.fc1.bias": bias("mlp.fc1.bias"),
        "mlp.fc2.weight": nn.fan_in_normal(rng, s["mlp.fc2.weight"], f),
        "mlp.fc2.bias": bias("mlp.fc2.bias"),
    }


def _window_attention(f, xw, mask, heads, rnd):
    """Swin's WindowAttention.forward on windows [B_, N, C]; returns the
    projection's output [B_, N, C]. The weights are the matmul's [in, out]
    (nn.Linear's W^T)."""
    b_, n, cc = xw.shape
    d = cc // heads
    qkv = rnd(xw @ f["attn.qkv.weight"] + f["attn.qkv.bias"])
    qkv = qkv.reshape(b_, n, 3, heads, d).transpose(2, 0, 3, 1, 4)
    q, k, v = qkv[0], qkv[1], qkv[2]
    q = q * d**-0.5
    attn = q @ k.swapaxes(-2, -1)
    # the graph materializes rel_pos_bias + mask once, in f16
    nw = mask.shape[0]
    bias = rnd(f["relative_position_bias"] + mask)  # [nW, heads, N, N]
    attn = (attn.reshape(b_ // nw, nw, heads, n, n) + bias[None]).reshape(-1, heads, n, n)
    attn = np.exp(attn - attn.max(axis=-1, keepdims=True))
    attn = attn / attn.sum(axis=-1, keepdims=True)
    o = rnd(attn @ v).transpose(0, 2, 1, 3).reshape(b_, n, cc)
    return rnd(o @ f["attn.proj.weight"] + f["attn.proj.bias"])


def forward(f, b, h, w, c, heads, ws, shift, rnd=nn.to_f16):
    """Swin's SwinTransformerBlock.forward (shift_size > 0) in float64;
    ``rnd`` rounds where the graph stores f16."""
    x = f["x"]
    shortcut = x
    n1 = rnd(tf.layernorm(x, f["norm1.weight"], f["norm1.bias"], EPS)[0]).reshape(b, h, w, c)
    shifted = np.roll(n1, shift=(-shift, -shift), axis=(1, 2))
    xw = window_partition(shifted, ws).reshape(-1, ws * ws, c)
    aw = _window_attention(f, xw, attn_mask(h, w, ws, shift), heads, rnd).reshape(-1, ws, ws, c)
    shifted = window_reverse(aw, ws, h, w)
    x = np.roll(shifted, shift=(shift, shift), axis=(1, 2)).reshape(b, h * w, c)
    x = shortcut + x
    n2 = rnd(tf.layernorm(x, f["norm2.weight"], f["norm2.bias"], EPS)[0])
    act = rnd(tf.gelu_erf(n2 @ f["mlp.fc1.weight"] + f["mlp.fc1.bias"]))
    return x + act @ f["mlp.fc2.weight"] + f["mlp.fc2.bias"]


def reference(phase, feeds, b, h, w, c, heads, ws, shift):
    return {"y": forward(feeds, b, h, w, c, heads, ws, shift)}


def direct_forward(f, b, h, w, c, heads, ws, shift, rnd=nn.to_f16):
    """The same block by explicit loops, independent of roll / partition /
    the mask's construction (a check of ``forward``, not run by the corpus):
    shifted coordinates (r, q) hold image pixel ((r + s) % H, (q + s) % W);
    the window of a shifted coordinate is (r // ws, q // ws); two tokens of a
    window see each other unmasked iff both wrapped around (or both did
    not) along each axis; the position bias indexes the table by the
    tokens' in-window coordinate differences, here read back from the
    [1, heads, N, N] input at (token index p, token index q)."""
    d = c // heads
    x = f["x"].reshape(b, h, w, c)
    n1 = rnd(tf.layernorm(x.reshape(-1, c), f["norm1.weight"], f["norm1.bias"], EPS)[0]).reshape(b, h, w, c)
    rpb = f["relative_position_bias"][0]
    proj = np.zeros((b, h, w, c))
    for bi in range(b):
        for wr in range(h // ws):
            for wc in range(w // ws):
                toks = [(wr * ws + i, wc * ws + j) for i in range(ws) for j in range(ws)]  # shifted coords
                pix = [((r + shift) % h, (q + shift) % w) for r, q in toks]
                wrap = [(r + shift >= h, q + shift >= w) for r, q in toks]
                xs = np.array([n1[bi, pr, pc] for pr, pc in pix])  # [N, C]
                qkv = rnd(xs @ f["attn.qkv.weight"] + f["attn.qkv.bias"][0])
                out = np.zeros((len(toks), c))
                for hd in range(heads):
                    qh = qkv[:, hd * d:(hd + 1) * d]
                    kh = qkv[:, c + hd * d:c + (hd + 1) * d]
                    vh = qkv[:, 2 * c + hd * d:2 * c + (hd + 1) * d]
                    for p in range(len(toks)):
                        scores = []
                        for qq in range(len(toks)):
                            m = 0.0 if wrap[p] == wrap[qq] else -100.0
                            bias = rnd(rpb[hd, p, qq] + m)
                            scores.append(sum(qh[p, e] * kh[qq, e] for e in range(d)) / math.sqrt(d) + bias)
                        mx = max(scores)
                        e = [math.exp(sc - mx) for sc in scores]
                        tot = sum(e)
                        out[p, hd * d:(hd + 1) * d] = sum(e[qq] / tot * vh[qq] for qq in range(len(toks)))
                pr_out = rnd(rnd(out) @ f["attn.proj.weight"] + f["attn.proj.bias"][0])
                for (pr, pc), val in zip(pix, pr_out):
                    proj[bi, pr, pc] = val
    hid = f["x"] + proj.reshape(b, h * w, c)
    n2 = rnd(tf.layernorm(hid, f["norm2.weight"], f["norm2.bias"], EPS)[0])
    act = rnd(tf.gelu_erf(n2 @ f["mlp.fc1.weight"] + f["mlp.fc1.bias"]))
    return hid + act @ f["mlp.fc2.weight"] + f["mlp.fc2.bias"]
