//===- LinearAttentionKernels.h - gdn / kda / gdn2 reference ----*- C++ -*-===//
//
// Plain sequential recurrences in double for the linear-attention family and
// the exact reverse-mode gradient of them. Sources: the cuDNN frontend
// linear-attention fp64 references and tests (test/python/.../
// reference_gdn2.py, test_linear_attention*.py: checkpoints, safe gate, beta
// sigmoid contracts) and flash-linear-attention (fla/ops/kda/naive.py,
// fla/ops/kda/gate.py, fla/ops/gdn2).
//
// Layout (THD, sequences packed along dim 0 by cu_seqlens [N+1]):
//   q [T,Hq,K], k [T,Hk,K], v [T,Hv,V]; HO = max(Hq,Hv); every head count
//   (Hq, Hk, Hv, and those of g, beta, w, a_log, dt_bias) must divide HO and
//   head h reads input head h / (HO / Hx) (repeat_interleave).
//   gdn:  g [T,Hg] (one log-decay per head), beta [T,Hb]
//   kda:  g [T,Hg,K] (per key channel),      beta [T,Hb]
//   gdn2: g [T,Hg,K], beta [T,Hb,K] (per-key erase gate), w [T,Hw,V] (write)
//   initial_state / final_state [N,HO,K,V] (K-major); O [T,HO,V].
//   A leading batch dim of 1 ([1,T,...]) is accepted on every token tensor.
//   Without cu_seqlens the whole T is one sequence.
//
// Per head and sequence, with S_0 = initial_state (or 0):
//   qh = scale * nq(q_t), kh = nk(k_t), n(x) = x / sqrt(|x|^2 + 1e-6) when
//   use_qk_l2norm (fla's l2norm), identity otherwise; scale = 1/sqrt(K) by
//   default.
//   alpha_t = exp(g_t)            (gdn: scalar broadcast over K)
//   e_t     = b_t * kh            (b_t = beta_t broadcast (gdn/kda) or the
//                                  gdn2 per-key beta_t)
//   u_t     = w_t * v_t - (Diag(alpha_t) S_{t-1})^T e_t
//             (w_t = beta_t broadcast over V for gdn/kda, w_t for gdn2)
//   S_t     = Diag(alpha_t) S_{t-1} + kh u_t^T
//   o_t     = S_t^T qh
// For gdn/kda this is S_t = S' + beta kh (v - S'^T kh)^T with S' the decayed
// state, i.e. the gated delta rule; gdn2 is GDN-2 of the cuDNN reference.
//
// Gate parametrisation (applied when safe_gate is set or a_log / dt_bias is
// given; g is then a raw logit, otherwise g is already the log decay):
//   y = g + dt_bias (dt_bias [Hg] for gdn, [Hg,K] or [Hg*K] otherwise; 0 if
//   absent), A = exp(a_log[h]) (1 if absent)
//   gdn (always) and kda/gdn2 without safe_gate: g_eff = -A softplus(y)
//   kda/gdn2 with safe_gate: g_eff = gate_lower_bound * sigmoid(A y)
//   (gate_lower_bound defaults to -5). use_beta_sigmoid: beta_eff =
//   sigmoid(beta) (any variant). The backward returns dG and dBeta w.r.t. the
//   raw inputs and, when given, d_a_log / d_dt_bias.
//
// state_checkpoints (checkpoint_every_n_tokens = c > 0): for each sequence
// of length L, in order, the states after c, 2c, ... tokens strictly before
// the end (max(L-1,0)/c entries), packed; the tensor has max(T/c, 1) rows
// and the unused tail rows are 0. batch_invariant has no numeric effect.
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_LINEARATTENTIONKERNELS_H
#define GRAPHDIALECT_REFERENCE_LINEARATTENTIONKERNELS_H

#include "GraphDialect/Reference/NdArray.h"

#include <optional>
#include <string>

namespace graph::ref {

enum class LinearAttentionVariant { Gdn, Kda, Gdn2 };

struct LinearAttentionInputs {
  const NdArray *q = nullptr, *k = nullptr, *v = nullptr, *g = nullptr,
                *beta = nullptr;
  const NdArray *w = nullptr;            // gdn2 only
  const NdArray *cuSeqlens = nullptr;    // [N+1]; null: one sequence
  const NdArray *initialState = nullptr; // [N,HO,K,V]
  const NdArray *aLog = nullptr;         // [Hg]
  const NdArray *dtBias = nullptr;       // [Hg] (gdn) or [Hg,K] / [Hg*K]
};

struct LinearAttentionOptions {
  std::optional<double> scale; // default 1/sqrt(K)
  bool useQkL2Norm = false;
  bool safeGate = false;
  double gateLowerBound = -5.0;
  bool useBetaSigmoid = false;
  bool outputFinalState = false;
  int64_t checkpointEveryNTokens = 0;
  bool batchInvariant = false; // no numeric effect on the CPU
};

struct LinearAttentionForwardResult {
  NdArray o;                // [T,HO,V]
  NdArray finalState;       // [N,HO,K,V] when outputFinalState
  NdArray stateCheckpoints; // [max(T/c,1),HO,K,V] when c > 0
};

std::string linearAttentionForward(LinearAttentionVariant variant,
                                   const LinearAttentionInputs &in,
                                   const LinearAttentionOptions &opts,
                                   LinearAttentionForwardResult &out);

struct LinearAttentionGrads {
  NdArray dQ, dK, dV, dG, dBeta, dW; // shaped like the inputs (dW: gdn2)
  NdArray dInitialState;             // when initialState is given
  NdArray dALog, dDtBias;            // when aLog / dtBias are given
};

/// `dO` is shaped like O; `dFinalState` ([N,HO,K,V]) may be null. The
/// backward recomputes the forward (state_checkpoints are not needed).
std::string linearAttentionBackward(LinearAttentionVariant variant,
                                    const LinearAttentionInputs &in,
                                    const NdArray &dO,
                                    const NdArray *dFinalState,
                                    const LinearAttentionOptions &opts,
                                    LinearAttentionGrads &out);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_LINEARATTENTIONKERNELS_H
