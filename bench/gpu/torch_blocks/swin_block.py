"""Swin Transformer block with shifted-window attention
(test/models/swin_block.py) in PyTorch, as Swin's SwinTransformerBlock and
timm's fused WindowAttention compute it: LayerNorm (eps 1e-5), torch.roll
cyclic shift, window partition (view / permute), fused qkv Linear,
F.scaled_dot_product_attention with the relative position bias plus the
shifted-window mask as its additive attn_mask (expanded over the images),
window reverse, roll back, residual, exact-GELU MLP; fp16 (model.half():
the norms' parameters in fp16 too). Linear weights are nn.Linear's [out, in]
(the graph's [in, out] inputs are transposed views of that storage).
"""


def forward(torch, mod, f, b, h, w, c, heads, ws, shift):
    F = torch.nn.functional
    n, nw, d = ws * ws, (h // ws) * (w // ws), c // heads
    dtype = f["x"].dtype
    norm = {k: (f[k + ".weight"].reshape(-1).to(dtype), f[k + ".bias"].reshape(-1).to(dtype)) for k in ("norm1", "norm2")}
    linear = {k: (f[k + ".weight"].t(), f[k + ".bias"].reshape(-1)) for k in ("attn.qkv", "attn.proj", "mlp.fc1", "mlp.fc2")}

    def layer_norm(v, k):
        return F.layer_norm(v, (c,), *norm[k], mod.EPS)

    def lin(v, k):
        return F.linear(v, *linear[k])

    def block():
        x = f["x"]  # [B, H*W, C]
        img = layer_norm(x, "norm1").view(b, h, w, c)
        img = torch.roll(img, shifts=(-shift, -shift), dims=(1, 2))
        windows = img.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b * nw, n, c)
        q, k, v = lin(windows, "attn.qkv").reshape(b * nw, n, 3, heads, d).permute(2, 0, 3, 1, 4)
        bias = (f["relative_position_bias"] + f["attn_mask"]).to(dtype)  # [nW, heads, N, N]
        bias = bias.unsqueeze(0).expand(b, nw, heads, n, n).reshape(b * nw, heads, n, n)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        proj = lin(o.transpose(1, 2).reshape(b * nw, n, c), "attn.proj")
        img = proj.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        hid = x + torch.roll(img, shifts=(shift, shift), dims=(1, 2)).reshape(b, h * w, c)
        return hid + lin(F.gelu(lin(layer_norm(hid, "norm2"), "mlp.fc1")), "mlp.fc2")

    return block


CASES = {("swin_block", "forward"): forward}
