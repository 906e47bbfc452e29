"""BERT-base encoder layer (HF BertLayer, post-LN) in PyTorch, fp16, as
test/models/bert_layer.py defines it: separate query / key / value
projections with bias, scaled_dot_product_attention with a key padding mask
from each sequence's length (padded query rows still attend to the real
tokens), attention output dense + residual + LayerNorm, erf-GELU MLP +
residual + LayerNorm (eps 1e-12). Tokens are rows [b * s, hidden]; the
weights are stored [in, out], so a linear layer is addmm(bias, x, W).
"""


def bert_forward(torch, mod, f, b, s, hidden, heads, ffn):
    F = torch.nn.functional
    head_dim = hidden // heads
    # HF builds the (extended) attention mask once per model forward, from the
    # padding mask: here True = attend, keys at or past the sequence's length
    # masked; [b, 1, 1, s] broadcasts over heads and query rows.
    lengths = f["seq_len_kv"].reshape(b, 1).long()
    keep = (torch.arange(s, device=lengths.device)[None, :] < lengths).view(b, 1, 1, s)

    def linear(v, name):
        return torch.addmm(f[name + ".bias"].reshape(-1), v, f[name + ".weight"])

    def layernorm(v, name):
        return F.layer_norm(v, (hidden,), f[name + ".weight"].reshape(-1), f[name + ".bias"].reshape(-1), mod.EPS)

    def heads_of(v):
        return v.view(b, s, heads, head_dim).transpose(1, 2)

    def block():
        x = f["x"]
        q, k, v = (heads_of(linear(x, n)) for n in ("query", "key", "value"))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=keep)
        context = o.transpose(1, 2).reshape(b * s, hidden)
        a = layernorm(linear(context, "attention.output.dense") + x, "attention.output.LayerNorm")
        inter = F.gelu(linear(a, "intermediate.dense"))
        return layernorm(linear(inter, "output.dense") + a, "output.LayerNorm")

    return block


CASES = {("bert_layer", "forward"): bert_forward}
