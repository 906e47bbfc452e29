"""T5 v1.1 decoder layer (HF T5Block, is_decoder=True) in PyTorch, bf16, as
test/models/t5_decoder_block.py defines it: T5LayerNorm (RMS, no bias),
causal self-attention with the relative position bias, cross-attention on
the encoder output with its padding mask, gated tanh-GELU feed-forward; no
projection biases, scores unscaled (scaled_dot_product_attention scale=1).
Tokens are rows (x [b * s, hidden], encoder [b * s_enc, hidden]); weights
are stored [in, out], so a projection is rows @ W.

forward: the layer. backward: autograd through that forward (recorded once,
run with retain_graph) for the graph's dy, giving the gradients of x, the
encoder output, the position bias (summed over the batch, as it is shared)
and every weight, by the backward graph's output names.
"""

from ._autograd import backward_of, leaves_of


def t5_layer(torch, mod, f, b, s, s_enc, hidden, heads, head_dim, ffn, self_bias):
    """The layer on tensors ``f``; ``self_bias()`` gives the self-attention's
    additive mask: position bias with the causal mask folded in."""
    F = torch.nn.functional
    inner = heads * head_dim
    # encoder padding: keys at or past the encoder sequence's length masked
    enc_len = f["seq_len_kv"].reshape(b, 1).long()
    enc_keep = (torch.arange(s_enc, device=enc_len.device)[None, :] < enc_len).view(b, 1, 1, s_enc)

    def rmsnorm(v, name):  # HF T5LayerNorm
        variance = v.float().pow(2).mean(-1, keepdim=True)
        return f[name + ".weight"].reshape(-1) * (v * torch.rsqrt(variance + mod.EPS)).to(v.dtype)

    def heads_of(rows, seq):
        return rows.view(b, seq, heads, head_dim).transpose(1, 2)

    def attention(prefix, q_in, kv_in, kv_seq, mask):
        q = heads_of(q_in @ f[prefix + ".q.weight"], s)
        k = heads_of(kv_in @ f[prefix + ".k.weight"], kv_seq)
        v = heads_of(kv_in @ f[prefix + ".v.weight"], kv_seq)
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, scale=1.0)
        return o.transpose(1, 2).reshape(b * s, inner) @ f[prefix + ".o.weight"]

    def block():
        x, enc = f["x"], f["encoder_hidden_states"]
        n0 = rmsnorm(x, mod.NORMS[0])
        h1 = x + attention(mod.SA, n0, n0, s, self_bias())
        h2 = h1 + attention(mod.CA, rmsnorm(h1, mod.NORMS[1]), enc, s_enc, enc_keep)
        n2 = rmsnorm(h2, mod.NORMS[2])
        ff = mod.FF
        gated = F.gelu(n2 @ f[ff + ".wi_0.weight"], approximate="tanh") * (n2 @ f[ff + ".wi_1.weight"])
        return h2 + gated @ f[ff + ".wo.weight"]

    return block


def _causal(torch, s, device):
    """True above the diagonal: the future keys a decoder row may not see."""
    return torch.ones(s, s, dtype=torch.bool, device=device).triu(1)


def t5_forward(torch, mod, f, **dims):
    # HF folds the causal mask into the position bias once per decoder stack
    bias = f["position_bias"]
    masked = bias.masked_fill(_causal(torch, dims["s"], bias.device), float("-inf"))
    return t5_layer(torch, mod, f, **dims, self_bias=lambda: masked)


def t5_backward(torch, mod, f, **dims):
    names = ("x", "encoder_hidden_states", "position_bias") + mod.WEIGHTS
    leaves = leaves_of(torch, f, names)
    future = _causal(torch, dims["s"], f["x"].device)
    # the bias is a leaf here: mask it inside the recorded forward
    block = t5_layer(
        torch, mod, {**f, **leaves}, **dims,
        self_bias=lambda: leaves["position_bias"].masked_fill(future, float("-inf")),
    )

    return (block, *backward_of(torch, leaves, f["dy"]))


CASES = {
    ("t5_decoder_block", "forward"): t5_forward,
    ("t5_decoder_block", "backward"): t5_backward,
}
