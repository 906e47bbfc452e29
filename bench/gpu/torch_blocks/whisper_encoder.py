"""Whisper-base audio encoder's front and first layer in PyTorch, fp16, as
openai-whisper's AudioEncoder runs it (test/models/whisper_encoder.py):
gelu(conv1(mel)), gelu(conv2(.)) with stride 2, permute to tokens, + the
sinusoidal positional embedding, then one pre-LN residual attention block
(LayerNorm in float, q / k / v projections with no key bias, unmasked
scaled_dot_product_attention, out projection; erf-GELU MLP).

The buffers are the graph's: the mel [b, 80, 1, t] and the conv filters
[d, c, 1, 3] stored channels-last, so their H = 1 squeezed away gives the
Conv1d operands [b, 80, t] / [d, c, 3] (views, channels fastest); the linear
weights are nn.Linear's [out, in] storage, which the graph reads as [in, out]
through transposed strides: .t() gives nn.Linear's weight back.
"""


def whisper_forward(torch, mod, f, b, t, mels, d, heads, ffn):
    F = torch.nn.functional
    t2 = mod.frames_out(t)
    head_dim = d // heads

    def conv_gelu(v, name):  # Conv1d(kernel 3, padding 1), stride 1 / 2
        w, bias = f[name + ".weight"].squeeze(2), f[name + ".bias"].reshape(-1)
        return F.gelu(F.conv1d(v, w, bias, stride=mod.CONV_STRIDES[name][1], padding=mod.CONV_PAD[1]))

    def layernorm(v, name):
        # Whisper's LayerNorm: x.float() against float weights, back to fp16
        return F.layer_norm(v.float(), (d,), f[name + ".weight"].reshape(-1), f[name + ".bias"].reshape(-1), mod.EPS).to(v.dtype)

    def linear(v, name):
        bias = f.get(name + ".bias")
        return F.linear(v, f[name + ".weight"].t(), None if bias is None else bias.reshape(-1))

    def heads_of(v):
        return v.view(b, t2, heads, head_dim).transpose(1, 2)

    def block():
        h = conv_gelu(conv_gelu(f["mel"].squeeze(2), "conv1"), "conv2")  # [b, d, t2]
        x = h.permute(0, 2, 1) + f["positional_embedding"].reshape(t2, d)  # [b, t2, d]
        a = layernorm(x, "attn_ln")
        q, k, v = (heads_of(linear(a, "attn." + n)) for n in ("query", "key", "value"))
        o = F.scaled_dot_product_attention(q, k, v)  # scale 1/sqrt(head_dim)
        x = x + linear(o.transpose(1, 2).reshape(b, t2, d), "attn.out")
        return x + linear(F.gelu(linear(layernorm(x, "mlp_ln"), "mlp.0")), "mlp.2")

    return block


CASES = {("whisper_encoder", "forward"): whisper_forward}
