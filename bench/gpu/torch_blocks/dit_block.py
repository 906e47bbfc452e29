"""DiT block with adaLN-Zero conditioning (test/models/dit_block.py) in
PyTorch, as DiT's reference DiTBlock computes it: silu -> adaLN Linear ->
six chunks, LayerNorm without affine (eps 1e-6) modulated per sample,
timm-style attention (fused qkv with bias, heads [3][heads][d],
F.scaled_dot_product_attention), tanh-GELU MLP, gated residuals; bf16.
Linear weights are the graph's [in, out], so linears are addmm.

The backward is autograd through that forward. The backward graph reads
the weights but not the biases (their effect arrives through the saved
activations), so the biases the forward needs are taken back from the
saved activations: bias = mean over rows of (saved output - saved input @
weight), the input's value up to bf16 roundings.
"""

from ._autograd import backward_of, leaves_of


def forward(torch, mod, f, b, s, hidden, heads, ffn):
    F = torch.nn.functional
    t, head_dim = b * s, hidden // heads

    def linear(v, name):  # rows [n, in] @ weight [in, out] + bias [1, out]
        return torch.addmm(f[name + ".bias"], v, f[name + ".weight"])

    def modulate(v, shift, scale):  # norm(v) * (1 + scale) + shift, per sample
        return F.layer_norm(v, (hidden,), eps=mod.EPS) * (1 + scale.unsqueeze(1)) + shift.unsqueeze(1)

    def block():
        x = f["x"]
        chunks = linear(F.silu(f["c"]), "adaLN_modulation").chunk(6, dim=1)
        shift_msa, scale_msa, gate_msa, shift_mlp, scale_mlp, gate_mlp = chunks
        qkv = linear(modulate(x, shift_msa, scale_msa).reshape(t, hidden), "attn.qkv")
        q, k, v = qkv.view(b, s, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
        o = F.scaled_dot_product_attention(q, k, v)
        attn = linear(o.transpose(1, 2).reshape(t, hidden), "attn.proj")
        h = x + gate_msa.unsqueeze(1) * attn.view(b, s, hidden)
        fc1 = linear(modulate(h, shift_mlp, scale_mlp).reshape(t, hidden), "mlp.fc1")
        mlp = linear(F.gelu(fc1, approximate="tanh"), "mlp.fc2")
        return h + gate_mlp.unsqueeze(1) * mlp.view(b, s, hidden)

    return block


def backward(torch, mod, f, b, s, hidden, heads, ffn):
    F = torch.nn.functional
    t = b * s

    def bias_of(name, out, inp):
        w = f[name + ".weight"]
        return (out.float() - inp.float() @ w.float()).mean(0, keepdim=True).to(w.dtype)

    with torch.no_grad():
        biases = {
            "adaLN_modulation": bias_of("adaLN_modulation", f["mod"], F.silu(f["c"])),
            "attn.qkv": bias_of("attn.qkv", f["qkv"], f["n1"]),
            "attn.proj": bias_of("attn.proj", f["attn"], f["o"].transpose(1, 2).reshape(t, hidden)),
            "mlp.fc1": bias_of("mlp.fc1", f["fc1"], f["n2"]),
            "mlp.fc2": bias_of("mlp.fc2", f["mlp"], F.gelu(f["fc1"], approximate="tanh")),
        }
    params = {"x": f["x"], "c": f["c"]}
    for name in mod.LINEARS:
        params[name + ".weight"] = f[name + ".weight"]
        params[name + ".bias"] = biases[name]
    leaves = leaves_of(torch, params, params)
    block = forward(torch, mod, leaves, b, s, hidden, heads, ffn)
    return (block, *backward_of(torch, leaves, f["dy"]))


CASES = {
    ("dit_block", "forward"): forward,
    ("dit_block", "backward"): backward,
}
