"""Mixtral sparse mixture-of-experts feed-forward with its RMSNorm and
residual (test/models/mixtral_moe.py) in PyTorch, as HF's MixtralRMSNorm and
MixtralSparseMoeBlock compute it: RMSNorm (eps 1e-5), router Linear,
softmax in float over the experts, then a loop over the experts gathering
their tokens (index_select), the SwiGLU expert as three F.linear, and the
top-k weighted sum back into the tokens (index_add_); bf16.

The routing is the graph's input, as the framework hands it over after its
host-side top-k: the routed rows token_index / token_ks (sorted by expert,
expert e owning rows first_token_offset[e] up to the next) and
topk_weights. The block uses that routing, so both sides run the same
experts on the same tokens; the per-expert row ranges are read to the host
once, as the framework holds them. Expert weights [E, in, out] are stored
as nn.Linear's [out, in] per expert (transposed views).
"""


def forward(torch, mod, f, t, hidden, experts, top_k, ffn):
    F = torch.nn.functional
    bounds = f["first_token_offset"].reshape(-1).tolist() + [t * top_k]
    token = f["token_index"].reshape(-1).long()  # routed row -> its token
    slot = f["token_ks"].reshape(-1).long()  # routed row -> its slot among the token's top_k
    w_gate, w_up, w_down = (f[n].transpose(1, 2) for n in mod.EXPERT_WEIGHTS)  # [E, out, in]

    def rmsnorm(v):
        v32 = v.float()
        return f["norm.weight"].reshape(-1) * (v32 * torch.rsqrt(v32.pow(2).mean(-1, keepdim=True) + mod.EPS)).to(v.dtype)

    def block():
        x = f["x"]
        n = rmsnorm(x)
        probs = F.softmax(n @ f["w_router"], dim=-1, dtype=torch.float)
        row_weight = f["topk_weights"][token, slot].unsqueeze(1)  # [T * top_k, 1]
        out = torch.zeros_like(x)
        for e in range(experts):
            lo, hi = bounds[e], bounds[e + 1]
            if lo == hi:
                continue
            tok = token[lo:hi]
            v = n.index_select(0, tok)
            act = F.silu(F.linear(v, w_gate[e])) * F.linear(v, w_up[e])
            out.index_add_(0, tok, F.linear(act, w_down[e]) * row_weight[lo:hi])
        return {"router_probs": probs, "y": x + out}

    return block


CASES = {("mixtral_moe", "forward"): forward}
