"""GPT-2 block's backward (HF GPT2Block, GPT-2 small: pre-LN, fused QKV
with bias, causal attention, tanh GELU MLP; fp16) in PyTorch, for
bench_models.py: autograd through the block's forward as bench_models'
pre_ln_torch writes it (the gpt2_block/forward case), recorded once; each
backward() gives the gradients of x and of every weight and bias for the
graph's dy.

The backward graph reads the saved activations and the weights, not the
biases, so the forward here takes the biases those activations were made
with from the activations themselves (see implied_biases).
"""

from ._autograd import backward_of, leaves_of


def implied_biases(torch, f, b, s, hidden):
    """The biases the graph's saved activations were computed with: each
    projection's or layernorm's bias is the row mean of its saved output
    minus the bias-free part recomputed from its saved input (the outputs
    are rounded to fp16; the mean over the rows leaves an error far below
    fp16's resolution of the bias). fc2's bias only shifts y, no gradient
    depends on it: zero."""

    def v(name):
        return f[name].float()

    def row_mean(t):
        return t.mean(dim=0, keepdim=True)

    def layernorm_bias(out, inp, ln):
        xhat = (v(inp) - v(ln + ".mean")) * v(ln + ".inv_var")
        return row_mean(v(out) - xhat * v(ln + ".weight"))

    o_rows = f["o"].transpose(1, 2).reshape(b * s, hidden).float()  # o is stored [b, s, heads, d]
    biases = {
        "ln_1.bias": layernorm_bias("n1", "x", "ln_1"),
        "qkv.bias": row_mean(v("qkv") - v("n1") @ v("qkv.weight")),
        "proj.bias": row_mean(v("h") - v("x") - o_rows @ v("proj.weight")),
        "ln_2.bias": layernorm_bias("n2", "h", "ln_2"),
        "fc1.bias": row_mean(v("fc1") - v("n2") @ v("fc1.weight")),
        "fc2.bias": torch.zeros(1, hidden, device=f["x"].device),
    }
    return {name: t.to(f["x"].dtype) for name, t in biases.items()}


def gpt2_backward_torch(torch, mod, f, b, s, hidden, heads, ffn):
    from _transformer import PRE_LN_WEIGHTS  # test/models, on sys.path
    from bench_models import pre_ln_torch

    params = {**f, **implied_biases(torch, f, b, s, hidden)}
    names = ("x",) + PRE_LN_WEIGHTS
    leaves = leaves_of(torch, params, names)
    block = pre_ln_torch(causal=True, gelu="tanh")(torch, mod, leaves, b, s, hidden, heads, ffn)

    return (block, *backward_of(torch, leaves, f["dy"]))


CASES = {("gpt2_block", "backward"): gpt2_backward_torch}
