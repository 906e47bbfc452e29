"""The sparse mixture-of-experts feed-forward of a Mixtral-style decoder
layer (HF MixtralSparseMoeBlock with the layer's post-attention RMSNorm and
residual; Mixtral-8x7B's hidden 4096, 8 experts, top-2, SwiGLU experts of
14336), inference forward, bf16 activations and weights with fp32 compute,
tokens as rows ([T, hidden], T = batch * seq):

    n      = rmsnorm(x) * norm.weight
    probs  = softmax(n @ w_router)                      # [T, E], over the experts
    -- host: top_k of probs per token, weights renormalized over the top k;
       the (token, slot) pairs sorted by expert --
    y[t]   = x[t] + sum_k topk_weights[t, k] * expert_{id[t, k]}(n[t])
    expert_e(v) = (swish(v @ w_gate[e]) * (v @ w_up[e])) @ w_down[e]

How a framework runs it with the frontend: top-k has no graph op, so the
router (rmsnorm, logits, softmax) is one launch whose probabilities the
framework top-k's on the host, and the experts are a second launch given
the routing: token_index [1, T*top_k, 1] (the source token of each routed
row, rows sorted by expert, stable), token_ks [1, T*top_k, 1] (each routed
row's slot among its token's top_k), first_token_offset [E, 1, 1] (where
each expert's rows start) and topk_weights [T, top_k]. The harness declares
phases "forward" and "backward" only (harness.phases()), so this module's
"forward" is one graph holding both launches' ops: the router's outputs
(probs) and the experts' routing inputs, which make_inputs computes as the
framework does, from the numpy router on the same bf16 inputs (so the
routing is the top-k of these very probabilities).

The experts, as the frontend's own MoE test calls the op (positional token,
weight, first_token_offset; mode, compute_data_type, name as keywords;
weights [E, K, N] with strides [K N, 1, K], i.e. each expert's block stored
as torch's nn.Linear weight [N, K]; the output set to bf16):

    gate = moe_grouped_matmul(n as [1, T, hidden], w_gate, offsets, token_index, mode=GATHER)
    up   = moe_grouped_matmul(n as [1, T, hidden], w_up,   offsets, token_index, mode=GATHER)
    act  = swish(gate) * up                                  # [1, T*top_k, ffn], expert order
    down = moe_grouped_matmul(act, w_down, offsets, token_index, token_ks, mode=SCATTER, top_k)
         -> [1, T*top_k, hidden], row t*top_k + k = slot k of token t
    y    = x + sum over k of (down as [T, top_k, hidden]) * (topk_weights as [T, top_k, 1])

token_ks is the slot index, not a weight: the op's SCATTER mode places
rows, it does not weigh them (the weighted COMBINE mode is a newer
frontend's, which cuDNN 9.19 lacks), so the top-k weighted sum is a
pointwise multiply and a reduction over the top_k axis in the graph.
Materialized in bf16: n, the three grouped-matmul outputs and act (as the
frontend's MoE test writes them); logits and the combine are f32, probs an
f32 output (Mixtral's router softmax runs in float).

The numpy reference (the per-token definition above, with each slot's
expert read back from token_index / token_ks / first_token_offset) agrees
with a direct implementation by loops over tokens, slots, hidden and ffn
units (own rmsnorm, softmax, top-2 with renormalization, SwiGLU expert) to
1e-16 at t=10 hidden=12 E=4 ffn=20 and at the small size; the loops' own
top-2 of the bf16-n probabilities reproduces make_inputs' routing and
weights exactly. A perturbed reference fails the harness's comparison at
the small size (softmax over the tokens instead of the experts: probs 6.4;
the two slots' weights swapped: y 0.26; bound 2e-2). The CPU reference
also takes empty experts (first, middle and last group empty: y 2.5e-3).
Measured at small and check sizes: router_probs 1.3e-3, y 2.5e-3 / 2.4e-3.
graph-opt at full size: 13 groups / 19 ops (the three grouped matmuls
alone on cuDNN; rmsnorm, router matmul + max, the softmax, SwiGLU, the
weighted combine, the residual, and the four views their own groups).

On the GPU machine: OWN_INPUTS_ONLY makes scripts/gpu/run_models.py give
every graph-run of this model make_feeds' inputs, the routing these very
probabilities make (graph-run's --random-inputs gives a legal but
synthetic one: routed row r from token r / top_k); its work estimate
counts the grouped matmuls (~2.9 TFLOP at full size), so the CPU
reference runs at the check size.
"""

import math

import numpy as np

import _transformer as tf
import harness
from harness import Model

NAME = "mixtral_moe"
TRAINS = False
# graph-run reads this model's routing from make_inputs, not a synthetic one
OWN_INPUTS_ONLY = True
SIZES = {
    # 64 tokens over 8 experts: uneven groups (12 to 21 rows at seed 0)
    "small": dict(t=64, hidden=64, experts=8, top_k=2, ffn=96),
    "check": dict(t=512, hidden=512, experts=8, top_k=2, ffn=1024),
    "full": dict(t=4096, hidden=4096, experts=8, top_k=2, ffn=14336),
}
EPS = 1e-5  # Mixtral's rms_norm_eps

EXPERT_WEIGHTS = ("w_gate", "w_up", "w_down")


def _shapes(t, hidden, experts, top_k, ffn):
    r = t * top_k
    return {
        "x": [t, hidden],
        "norm.weight": [1, hidden],
        "w_router": [hidden, experts],
        "w_gate": [experts, hidden, ffn],
        "w_up": [experts, hidden, ffn],
        "w_down": [experts, ffn, hidden],
        "token_index": [1, r, 1],
        "token_ks": [1, r, 1],
        "first_token_offset": [experts, 1, 1],
        "topk_weights": [t, top_k],
    }


def _expert_strides(e, k, n):
    """[E, K, N] stored as E blocks of [N, K] (nn.Linear's [out, in])."""
    return [k * n, 1, k]


# =============================================================================
# Graph
# =============================================================================


def build(cudnn, phase, t, hidden, experts, top_k, ffn):
    dt = cudnn.data_type
    bf16, f32, i32 = dt.BFLOAT16, dt.FLOAT, dt.INT32
    moe_mode = cudnn.moe_grouped_matmul_mode
    g = cudnn.pygraph(name=f"{NAME}_{phase}", io_data_type=bf16, intermediate_data_type=f32, compute_data_type=f32)
    shapes = _shapes(t, hidden, experts, top_k, ffn)
    r = t * top_k
    inputs, outputs = {}, {}

    def tensor(name, dtype=bf16, stride=None):
        inputs[name] = g.tensor(name=name, dim=shapes[name], stride=stride, data_type=dtype)
        return inputs[name]

    def output(name, tns, dtype):
        outputs[name] = tns.set_output(True).set_name(name).set_data_type(dtype)

    x = tensor("x")
    norm_w = tensor("norm.weight")
    w_router = tensor("w_router")
    w = {n: tensor(n, stride=_expert_strides(*shapes[n])) for n in EXPERT_WEIGHTS}
    token_index = tensor("token_index", i32, [r, 1, 1])
    token_ks = tensor("token_ks", i32, [r, 1, 1])
    offsets = tensor("first_token_offset", i32, [1, 1, 1])
    topk_weights = tensor("topk_weights")
    eps = g.tensor_scalar(EPS, f32, name="eps")

    # ---- router: rmsnorm, logits, softmax over the experts ----------------
    n, _ = g.rmsnorm(input=x, scale=norm_w, epsilon=eps, norm_forward_phase=cudnn.norm_forward_phase.INFERENCE, name="post_attention_layernorm")
    n.set_data_type(bf16)
    logits = g.matmul(n, w_router, name="router")
    row_max = g.reduction(logits, mode=cudnn.reduction_mode.MAX, out_dims=[t, 1], name="router.max")
    e = g.exp(g.sub(logits, row_max, name="router.shifted"), name="router.exp")
    denom = g.reduction(e, mode=cudnn.reduction_mode.ADD, out_dims=[t, 1], name="router.sum")
    output("router_probs", g.div(e, denom, name="router.softmax"), f32)

    # ---- experts: gather -> gate/up, SwiGLU, down -> scatter, combine -----
    tokens = g.reshape(n, out_dims=[1, t, hidden], name="tokens")

    def grouped(token, weight, name, **routing):
        out = g.moe_grouped_matmul(token, weight, offsets, compute_data_type=f32, name=name, **routing)
        return out.set_data_type(bf16)

    gate = grouped(tokens, w["w_gate"], "experts.gate", token_index=token_index, mode=moe_mode.GATHER)
    up = grouped(tokens, w["w_up"], "experts.up", token_index=token_index, mode=moe_mode.GATHER)
    act = g.mul(g.swish(gate, name="experts.silu"), up, name="experts.swiglu").set_data_type(bf16)
    down = grouped(act, w["w_down"], "experts.down", token_index=token_index, token_ks=token_ks, mode=moe_mode.SCATTER, top_k=top_k)
    slots = g.reshape(down, out_dims=[t, top_k, hidden], name="experts.slots")
    scale = g.reshape(topk_weights, out_dims=[t, top_k, 1], name="topk_weights.col")
    weighted = g.mul(slots, scale, name="experts.weighted")
    combined = g.reduction(weighted, mode=cudnn.reduction_mode.ADD, out_dims=[t, 1, hidden], name="experts.combine")
    moe = g.reshape(combined, out_dims=[t, hidden], name="experts.rows")
    output("y", g.add(moe, x, name="residual"), bf16)
    return Model(graph=g, inputs=inputs, outputs=outputs)


# =============================================================================
# Inputs: the framework's host-side routing
# =============================================================================


def _router_probs(x, norm_w, w_router, rnd=lambda a: a):
    n, _ = tf.rmsnorm(x, norm_w, EPS)
    logits = rnd(n) @ w_router
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def route(probs, top_k, experts):
    """What the framework computes on the host from the router's
    probabilities (HF Mixtral: topk, renormalize; then the grouped-matmul
    routing): expert ids [T, top_k] (largest first), weights [T, top_k],
    token_index and token_ks [T * top_k] in expert order (stable: tokens
    ascending within an expert), first_token_offset [E]."""
    ids = np.argsort(-probs, axis=-1, kind="stable")[:, :top_k]
    weights = np.take_along_axis(probs, ids, axis=-1)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    order = np.argsort(ids.reshape(-1), kind="stable")  # flat slot t * top_k + k
    counts = np.bincount(ids.reshape(-1), minlength=experts)
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return ids, weights, order // top_k, order % top_k, offsets


def make_inputs(phase, rng, t, hidden, experts, top_k, ffn):
    """x and the weights (std 1/sqrt(K) for every matmul's B operand, the
    norm's scale 1 + 0.1 N(0, 1)), then the routing the framework derives
    from the router's probabilities on these bf16 inputs (n rounded to
    bf16 as the graph materializes it)."""
    shapes = _shapes(t, hidden, experts, top_k, ffn)
    rnd = lambda a: harness.round_to("bfloat16", a)  # noqa: E731
    f = {
        "x": rnd(rng.standard_normal(shapes["x"])),
        "norm.weight": rnd(1.0 + 0.1 * rng.standard_normal(shapes["norm.weight"])),
        "w_router": rnd(rng.standard_normal(shapes["w_router"]) / math.sqrt(hidden)),
    }
    for name in EXPERT_WEIGHTS:
        k = shapes[name][1]
        f[name] = rng.standard_normal(shapes[name], dtype=np.float32) * np.float32(1.0 / math.sqrt(k))
    _, weights, token_index, token_ks, offsets = route(_router_probs(f["x"], f["norm.weight"], f["w_router"], rnd), top_k, experts)
    f["token_index"] = token_index.reshape(shapes["token_index"])
    f["token_ks"] = token_ks.reshape(shapes["token_ks"])
    f["first_token_offset"] = offsets.reshape(shapes["first_token_offset"])
    f["topk_weights"] = weights  # rounded to bf16 by the harness, as HF casts them
    return f


# =============================================================================
# Numpy reference (float64, from the model definition)
# =============================================================================


def _expert_ids(feeds, t, experts, top_k):
    """id[t, k]: the expert of token t's slot k, read back from the routing
    inputs (expert e owns routed rows first_token_offset[e] .. the next)."""
    index = feeds["token_index"].reshape(-1).astype(np.int64)
    ks = feeds["token_ks"].reshape(-1).astype(np.int64)
    starts = feeds["first_token_offset"].reshape(-1).astype(np.int64)
    bounds = list(starts) + [t * top_k]
    ids = np.full((t, top_k), -1, np.int64)
    for e in range(experts):
        ids[index[bounds[e] : bounds[e + 1]], ks[bounds[e] : bounds[e + 1]]] = e
    assert (ids >= 0).all(), "routing leaves a (token, slot) without an expert"
    return ids


def reference(phase, feeds, t, hidden, experts, top_k, ffn):
    f = feeds
    n, _ = tf.rmsnorm(f["x"], f["norm.weight"], EPS)
    logits = n @ f["w_router"]
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    probs = z / z.sum(axis=-1, keepdims=True)
    ids = _expert_ids(f, t, experts, top_k)
    moe = np.zeros_like(f["x"])
    for e in range(experts):
        tok, slot = np.nonzero(ids == e)
        if tok.size == 0:
            continue
        v = n[tok]
        h = tf.swish(v @ f["w_gate"][e]) * (v @ f["w_up"][e])
        np.add.at(moe, tok, f["topk_weights"][tok, slot][:, None] * (h @ f["w_down"][e]))
    return {"router_probs": probs, "y": f["x"] + moe}
