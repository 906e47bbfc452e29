//===- LinearAttentionKernels.cpp - gdn / kda / gdn2 reference ------------===//
//
// See LinearAttentionKernels.h for the recurrences. The inputs are first
// expanded to per-(token, output head) effective quantities (normalized and
// scaled q/k, decay alpha, erase gate b, write gate w); the recurrence then
// runs per output head on its own thread, and the gradients flow back through
// the expansion serially.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/LinearAttentionKernels.h"
#include "KernelsInternal.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace graph;
using namespace graph::ref;

namespace {

constexpr double kL2Eps = 1e-6;

/// A [T,H,C] view of a token tensor (C = 1 for per-head scalars).
struct View {
  const NdArray *a = nullptr;
  int64_t t = 0, h = 0, c = 1;
  double at(int64_t ti, int64_t hi, int64_t ci = 0) const {
    return a->data[(ti * h + hi) * c + ci];
  }
};

std::string makeView(const NdArray *a, int64_t rank, const char *port,
                     View &v) {
  if (!a)
    return std::string(port) + ": required";
  Shape s = a->shape;
  if (static_cast<int64_t>(s.size()) == rank + 1 && s[0] == 1)
    s.erase(s.begin());
  if (static_cast<int64_t>(s.size()) != rank)
    return std::string(port) + ": must be rank " + std::to_string(rank) +
           " (THD), got " + shapeString(a->shape);
  v.a = a;
  v.t = s[0];
  v.h = s[1];
  v.c = rank == 3 ? s[2] : 1;
  return "";
}

struct Problem {
  LinearAttentionVariant variant;
  const LinearAttentionInputs *in;
  const LinearAttentionOptions *opts;
  View q, k, v, g, beta, w;
  int64_t T = 0, HO = 0, K = 0, V = 0, N = 0;
  std::vector<int64_t> cu;
  double scale = 1.0;
  bool gateTransform = false;
  bool perKeyGate = false; // kda / gdn2
  // Effective per-(t, h) quantities, h in [0, HO).
  std::vector<double> qh, kh, alpha, b, wv, vv; // [T*HO*K] / [T*HO*V]
  std::vector<double> qNormInv, kNormInv;       // [T*HO] (l2norm only)
  std::vector<double> geff, gy;                 // [T*HO*K] (gate transform)
  std::vector<double> betaEff;                  // [T*HO*(K or 1)]

  int64_t headOf(const View &x, int64_t h) const { return h / (HO / x.h); }
};

std::string checkHeads(const View &x, int64_t ho, const char *port) {
  if (x.h <= 0 || ho % x.h != 0)
    return std::string(port) + ": head count " + std::to_string(x.h) +
           " must divide max(Hq, Hv) = " + std::to_string(ho);
  return "";
}

std::string setup(LinearAttentionVariant variant,
                  const LinearAttentionInputs &in,
                  const LinearAttentionOptions &opts, Problem &p) {
  p.variant = variant;
  p.in = &in;
  p.opts = &opts;
  bool gdn2 = variant == LinearAttentionVariant::Gdn2;
  p.perKeyGate = variant != LinearAttentionVariant::Gdn;
  if (auto e = makeView(in.q, 3, "q", p.q); !e.empty())
    return e;
  if (auto e = makeView(in.k, 3, "k", p.k); !e.empty())
    return e;
  if (auto e = makeView(in.v, 3, "v", p.v); !e.empty())
    return e;
  if (auto e = makeView(in.g, p.perKeyGate ? 3 : 2, "g", p.g); !e.empty())
    return e;
  if (auto e = makeView(in.beta, gdn2 ? 3 : 2, "beta", p.beta); !e.empty())
    return e;
  if (gdn2) {
    if (auto e = makeView(in.w, 3, "w", p.w); !e.empty())
      return e;
  } else if (in.w) {
    return "w: only gdn2 takes a write gate";
  }
  p.T = p.q.t;
  p.K = p.q.c;
  p.V = p.v.c;
  p.HO = std::max(p.q.h, p.v.h);
  for (const View *x : {&p.k, &p.v, &p.g, &p.beta})
    if (x->t != p.T)
      return "k/v/g/beta: token count must equal q's " + std::to_string(p.T);
  if (gdn2 && p.w.t != p.T)
    return "w: token count must equal q's " + std::to_string(p.T);
  if (p.k.c != p.K)
    return "k: key dim " + std::to_string(p.k.c) + " must equal q's " +
           std::to_string(p.K);
  if (p.perKeyGate && p.g.c != p.K)
    return "g: last dim must be the key dim " + std::to_string(p.K);
  if (gdn2 && p.beta.c != p.K)
    return "beta: gdn2's beta is per key channel, last dim must be " +
           std::to_string(p.K);
  if (gdn2 && p.w.c != p.V)
    return "w: last dim must be the value dim " + std::to_string(p.V);
  const std::pair<const View *, const char *> heads[] = {
      {&p.q, "q"}, {&p.k, "k"}, {&p.v, "v"}, {&p.g, "g"}, {&p.beta, "beta"}};
  for (auto [x, name] : heads)
    if (auto e = checkHeads(*x, p.HO, name); !e.empty())
      return e;
  if (gdn2)
    if (auto e = checkHeads(p.w, p.HO, "w"); !e.empty())
      return e;
  // Sequences.
  if (in.cuSeqlens) {
    const NdArray &cu = *in.cuSeqlens;
    if (cu.size() < 2)
      return "cu_seqlens: needs at least 2 boundaries";
    for (double x : cu.data)
      p.cu.push_back(static_cast<int64_t>(x));
    if (p.cu.front() != 0 || p.cu.back() != p.T)
      return "cu_seqlens: must start at 0 and end at total_T = " +
             std::to_string(p.T);
    for (size_t i = 1; i < p.cu.size(); ++i)
      if (p.cu[i] < p.cu[i - 1])
        return "cu_seqlens: must be nondecreasing";
  } else {
    p.cu = {0, p.T};
  }
  p.N = static_cast<int64_t>(p.cu.size()) - 1;
  if (in.initialState && in.initialState->shape != Shape{p.N, p.HO, p.K, p.V})
    return "initial_state: shape " + shapeString(in.initialState->shape) +
           " must be " + shapeString({p.N, p.HO, p.K, p.V});
  p.gateTransform = opts.safeGate || in.aLog || in.dtBias;
  if (in.aLog && in.aLog->size() != p.g.h)
    return "a_log: must hold one value per gate head (" +
           std::to_string(p.g.h) + "), got " + shapeString(in.aLog->shape);
  int64_t dtWant = p.g.h * (p.perKeyGate ? p.K : 1);
  if (in.dtBias && in.dtBias->size() != dtWant)
    return "dt_bias: must hold " + std::to_string(dtWant) + " values, got " +
           shapeString(in.dtBias->shape);
  if (opts.checkpointEveryNTokens < 0)
    return "checkpoint_every_n_tokens: must be >= 0";
  p.scale = opts.scale ? *opts.scale : 1.0 / std::sqrt(double(p.K));

  // Effective quantities.
  int64_t TH = p.T * p.HO, K = p.K, V = p.V;
  p.qh.assign(TH * K, 0);
  p.kh.assign(TH * K, 0);
  p.alpha.assign(TH * K, 0);
  p.b.assign(TH * K, 0);
  p.wv.assign(TH * V, 0);
  p.vv.assign(TH * V, 0);
  p.qNormInv.assign(TH, 1.0);
  p.kNormInv.assign(TH, 1.0);
  p.geff.assign(TH * K, 0);
  p.gy.assign(TH * K, 0);
  p.betaEff.assign(TH * (gdn2 ? K : 1), 0);
  for (int64_t t = 0; t < p.T; ++t)
    for (int64_t h = 0; h < p.HO; ++h) {
      int64_t th = t * p.HO + h;
      int64_t hq = p.headOf(p.q, h), hk = p.headOf(p.k, h),
              hv = p.headOf(p.v, h), hg = p.headOf(p.g, h),
              hb = p.headOf(p.beta, h);
      double sq = 0, sk = 0;
      for (int64_t c = 0; c < K; ++c) {
        sq += p.q.at(t, hq, c) * p.q.at(t, hq, c);
        sk += p.k.at(t, hk, c) * p.k.at(t, hk, c);
      }
      if (opts.useQkL2Norm) {
        p.qNormInv[th] = 1.0 / std::sqrt(sq + kL2Eps);
        p.kNormInv[th] = 1.0 / std::sqrt(sk + kL2Eps);
      }
      for (int64_t c = 0; c < K; ++c) {
        p.qh[th * K + c] = p.scale * p.q.at(t, hq, c) * p.qNormInv[th];
        p.kh[th * K + c] = p.k.at(t, hk, c) * p.kNormInv[th];
      }
      // Gate.
      double aScale = in.aLog ? std::exp(in.aLog->data[hg]) : 1.0;
      for (int64_t c = 0; c < K; ++c) {
        int64_t gc = p.perKeyGate ? c : 0;
        double g = p.g.at(t, hg, gc);
        if (p.gateTransform) {
          double y =
              g + (in.dtBias ? in.dtBias->data[hg * (p.perKeyGate ? K : 1) + gc]
                             : 0.0);
          p.gy[th * K + c] = y;
          if (p.perKeyGate && opts.safeGate) {
            g = opts.gateLowerBound / (1.0 + std::exp(-aScale * y));
          } else {
            double sp = y > 30 ? y : std::log1p(std::exp(y));
            g = -aScale * sp;
          }
        }
        p.geff[th * K + c] = g;
        p.alpha[th * K + c] = std::exp(g);
      }
      // Beta / write gates.
      auto act = [&](double x) {
        return opts.useBetaSigmoid ? 1.0 / (1.0 + std::exp(-x)) : x;
      };
      if (gdn2) {
        int64_t hw = p.headOf(p.w, h);
        for (int64_t c = 0; c < K; ++c) {
          double be = act(p.beta.at(t, hb, c));
          p.betaEff[th * K + c] = be;
          p.b[th * K + c] = be * p.kh[th * K + c];
        }
        for (int64_t c = 0; c < V; ++c)
          p.wv[th * V + c] = p.w.at(t, hw, c);
      } else {
        double be = act(p.beta.at(t, hb));
        p.betaEff[th] = be;
        for (int64_t c = 0; c < K; ++c)
          p.b[th * K + c] = be * p.kh[th * K + c];
        for (int64_t c = 0; c < V; ++c)
          p.wv[th * V + c] = be;
      }
      for (int64_t c = 0; c < V; ++c)
        p.vv[th * V + c] = p.v.at(t, hv, c);
    }
  return "";
}

/// One recurrence step: S (in: S_{t-1}, out: S_t); writes o_t.
void step(const Problem &p, int64_t th, std::vector<double> &S,
          std::vector<double> &u, double *o) {
  int64_t K = p.K, V = p.V;
  const double *al = &p.alpha[th * K], *e = &p.b[th * K], *kh = &p.kh[th * K],
               *qh = &p.qh[th * K], *w = &p.wv[th * V], *v = &p.vv[th * V];
  for (int64_t c = 0; c < K; ++c)
    for (int64_t d = 0; d < V; ++d)
      S[c * V + d] *= al[c];
  for (int64_t d = 0; d < V; ++d) {
    double acc = 0;
    for (int64_t c = 0; c < K; ++c)
      acc += S[c * V + d] * e[c];
    u[d] = w[d] * v[d] - acc;
  }
  for (int64_t c = 0; c < K; ++c)
    for (int64_t d = 0; d < V; ++d)
      S[c * V + d] += kh[c] * u[d];
  for (int64_t d = 0; d < V; ++d) {
    double acc = 0;
    for (int64_t c = 0; c < K; ++c)
      acc += qh[c] * S[c * V + d];
    o[d] = acc;
  }
}

void initState(const Problem &p, int64_t n, int64_t h, std::vector<double> &S) {
  int64_t KV = p.K * p.V;
  if (p.in->initialState)
    std::copy_n(&p.in->initialState->data[(n * p.HO + h) * KV], KV, S.begin());
  else
    std::fill(S.begin(), S.end(), 0.0);
}

Shape likeShape(const NdArray *a) { return a ? a->shape : Shape{}; }

} // namespace

std::string graph::ref::linearAttentionForward(
    LinearAttentionVariant variant, const LinearAttentionInputs &in,
    const LinearAttentionOptions &opts, LinearAttentionForwardResult &out) {
  Problem p;
  if (std::string e = setup(variant, in, opts, p); !e.empty())
    return e;
  int64_t K = p.K, V = p.V, KV = K * V, c = opts.checkpointEveryNTokens;
  out.o = NdArray({p.T, p.HO, V});
  NdArray finalState({p.N, p.HO, K, V});
  // Checkpoint slots: per sequence, packed in order.
  std::vector<int64_t> ckBase(p.N, 0);
  int64_t ckRows = 0;
  if (c > 0) {
    for (int64_t n = 0; n < p.N; ++n) {
      ckBase[n] = ckRows;
      ckRows += std::max<int64_t>(p.cu[n + 1] - p.cu[n] - 1, 0) / c;
    }
    out.stateCheckpoints = NdArray({std::max<int64_t>(p.T / c, 1), p.HO, K, V});
  }
  detail::parallelForEach(p.HO, [&](int64_t h) {
    std::vector<double> S(KV), u(V), o(V);
    for (int64_t n = 0; n < p.N; ++n) {
      initState(p, n, h, S);
      for (int64_t t = p.cu[n]; t < p.cu[n + 1]; ++t) {
        step(p, t * p.HO + h, S, u, o.data());
        std::copy(o.begin(), o.end(), &out.o.data[(t * p.HO + h) * V]);
        int64_t done = t - p.cu[n] + 1;
        if (c > 0 && done % c == 0 && t + 1 < p.cu[n + 1]) {
          int64_t row = ckBase[n] + done / c - 1;
          std::copy(S.begin(), S.end(),
                    &out.stateCheckpoints.data[(row * p.HO + h) * KV]);
        }
      }
      std::copy(S.begin(), S.end(), &finalState.data[(n * p.HO + h) * KV]);
    }
  });
  if (opts.outputFinalState)
    out.finalState = std::move(finalState);
  else
    out.finalState = NdArray();
  (void)ckRows;
  return "";
}

std::string graph::ref::linearAttentionBackward(
    LinearAttentionVariant variant, const LinearAttentionInputs &in,
    const NdArray &dO, const NdArray *dFinalState,
    const LinearAttentionOptions &opts, LinearAttentionGrads &out) {
  Problem p;
  if (std::string e = setup(variant, in, opts, p); !e.empty())
    return e;
  int64_t K = p.K, V = p.V, KV = K * V, HO = p.HO;
  if (dO.size() != p.T * HO * V)
    return "dO: shape " + shapeString(dO.shape) + " must be " +
           shapeString({p.T, HO, V});
  if (dFinalState && dFinalState->shape != Shape{p.N, HO, K, V})
    return "d_final_state: shape " + shapeString(dFinalState->shape) +
           " must be " + shapeString({p.N, HO, K, V});
  bool gdn2 = variant == LinearAttentionVariant::Gdn2;
  int64_t TH = p.T * HO;
  // Gradients of the effective quantities.
  std::vector<double> dqh(TH * K, 0), dkh(TH * K, 0), dal(TH * K, 0),
      db(TH * K, 0), dw(TH * V, 0), dv(TH * V, 0);
  NdArray dInit({p.N, HO, K, V});
  detail::parallelForEach(HO, [&](int64_t h) {
    std::vector<double> S(KV), u(V), o(V), dS(KV), dSdec(KV), du(V), de(K);
    for (int64_t n = 0; n < p.N; ++n) {
      int64_t t0 = p.cu[n], t1 = p.cu[n + 1], L = t1 - t0;
      // Forward, keeping S_{t-1} for every step.
      std::vector<double> states((L + 1) * KV);
      initState(p, n, h, S);
      std::copy(S.begin(), S.end(), states.begin());
      for (int64_t t = t0; t < t1; ++t) {
        step(p, t * HO + h, S, u, o.data());
        std::copy(S.begin(), S.end(), &states[(t - t0 + 1) * KV]);
      }
      if (dFinalState)
        std::copy_n(&dFinalState->data[(n * HO + h) * KV], KV, dS.begin());
      else
        std::fill(dS.begin(), dS.end(), 0.0);
      for (int64_t t = t1 - 1; t >= t0; --t) {
        int64_t th = t * HO + h;
        const double *Sprev = &states[(t - t0) * KV];
        const double *Scur = &states[(t - t0 + 1) * KV];
        const double *doT = &dO.data[th * V];
        const double *qh = &p.qh[th * K], *kh = &p.kh[th * K],
                     *al = &p.alpha[th * K], *e = &p.b[th * K],
                     *w = &p.wv[th * V], *v = &p.vv[th * V];
        // o = S_t^T qh
        for (int64_t c = 0; c < K; ++c) {
          double acc = 0;
          for (int64_t d = 0; d < V; ++d) {
            acc += Scur[c * V + d] * doT[d];
            dS[c * V + d] += qh[c] * doT[d];
          }
          dqh[th * K + c] += acc;
        }
        // u recomputed from the decayed previous state.
        for (int64_t d = 0; d < V; ++d) {
          double acc = 0;
          for (int64_t c = 0; c < K; ++c)
            acc += al[c] * Sprev[c * V + d] * e[c];
          u[d] = w[d] * v[d] - acc;
        }
        // S_t = Sdec + kh u^T
        for (int64_t d = 0; d < V; ++d) {
          double acc = 0;
          for (int64_t c = 0; c < K; ++c)
            acc += dS[c * V + d] * kh[c];
          du[d] = acc;
        }
        for (int64_t c = 0; c < K; ++c) {
          double acc = 0;
          for (int64_t d = 0; d < V; ++d)
            acc += dS[c * V + d] * u[d];
          dkh[th * K + c] += acc;
        }
        // u = w v - Sdec^T e
        for (int64_t d = 0; d < V; ++d) {
          dw[th * V + d] += du[d] * v[d];
          dv[th * V + d] += du[d] * w[d];
        }
        for (int64_t c = 0; c < K; ++c) {
          double acc = 0;
          for (int64_t d = 0; d < V; ++d) {
            acc += al[c] * Sprev[c * V + d] * du[d];
            dSdec[c * V + d] = dS[c * V + d] - e[c] * du[d];
          }
          de[c] = -acc;
          db[th * K + c] += de[c]; // gradient w.r.t. e = b * kh, split below
        }
        // Sdec = Diag(alpha) S_{t-1}
        for (int64_t c = 0; c < K; ++c) {
          double acc = 0;
          for (int64_t d = 0; d < V; ++d) {
            acc += dSdec[c * V + d] * Sprev[c * V + d];
            dS[c * V + d] = al[c] * dSdec[c * V + d];
          }
          dal[th * K + c] += acc;
        }
      }
      std::copy(dS.begin(), dS.end(), &dInit.data[(n * HO + h) * KV]);
    }
  });

  // Back through the expansion. db currently holds d/de (e = beff * kh).
  out.dQ = NdArray(likeShape(in.q));
  out.dK = NdArray(likeShape(in.k));
  out.dV = NdArray(likeShape(in.v));
  out.dG = NdArray(likeShape(in.g));
  out.dBeta = NdArray(likeShape(in.beta));
  if (gdn2)
    out.dW = NdArray(likeShape(in.w));
  if (in.aLog)
    out.dALog = NdArray(in.aLog->shape);
  if (in.dtBias)
    out.dDtBias = NdArray(in.dtBias->shape);
  std::vector<double> dy(K);
  for (int64_t t = 0; t < p.T; ++t)
    for (int64_t h = 0; h < HO; ++h) {
      int64_t th = t * HO + h;
      int64_t hq = p.headOf(p.q, h), hk = p.headOf(p.k, h),
              hv = p.headOf(p.v, h), hg = p.headOf(p.g, h),
              hb = p.headOf(p.beta, h);
      // beta / w.
      double dBetaEff = 0;
      std::vector<double> dkEff(&dkh[th * K], &dkh[th * K] + K);
      for (int64_t c = 0; c < K; ++c) {
        double de = db[th * K + c];
        double beff = gdn2 ? p.betaEff[th * K + c] : p.betaEff[th];
        dkEff[c] += de * beff;
        double dbe = de * p.kh[th * K + c];
        if (gdn2) {
          double s = p.betaEff[th * K + c];
          out.dBeta.data[(t * p.beta.h + hb) * K + c] +=
              opts.useBetaSigmoid ? dbe * s * (1 - s) : dbe;
        } else {
          dBetaEff += dbe;
        }
      }
      if (gdn2) {
        int64_t hw = p.headOf(p.w, h);
        for (int64_t d = 0; d < V; ++d)
          out.dW.data[(t * p.w.h + hw) * V + d] += dw[th * V + d];
      } else {
        for (int64_t d = 0; d < V; ++d)
          dBetaEff += dw[th * V + d];
        double s = p.betaEff[th];
        out.dBeta.data[t * p.beta.h + hb] +=
            opts.useBetaSigmoid ? dBetaEff * s * (1 - s) : dBetaEff;
      }
      for (int64_t d = 0; d < V; ++d)
        out.dV.data[(t * p.v.h + hv) * V + d] += dv[th * V + d];
      // q, k through scale and l2norm: x_eff = x * r (r = 1 without norm).
      auto backNorm = [&](const View &x, int64_t hx, double r, double factor,
                          const double *dEff, NdArray &dst) {
        // y = x r; dx = r (dy - y (y . dy)) with dy = factor * dEff.
        double ydy = 0;
        for (int64_t c = 0; c < K; ++c)
          ydy += x.at(t, hx, c) * r * factor * dEff[c];
        for (int64_t c = 0; c < K; ++c) {
          double g = factor * dEff[c];
          if (opts.useQkL2Norm)
            g = r * (g - x.at(t, hx, c) * r * ydy);
          dst.data[(t * x.h + hx) * K + c] += g;
        }
      };
      backNorm(p.q, hq, p.qNormInv[th], p.scale, &dqh[th * K], out.dQ);
      backNorm(p.k, hk, p.kNormInv[th], 1.0, dkEff.data(), out.dK);
      // Gate: alpha = exp(geff).
      double aScale = in.aLog ? std::exp(in.aLog->data[hg]) : 1.0;
      for (int64_t c = 0; c < K; ++c) {
        double dGeff = dal[th * K + c] * p.alpha[th * K + c];
        double dRaw = dGeff, dA = 0;
        if (p.gateTransform) {
          double y = p.gy[th * K + c];
          if (p.perKeyGate && opts.safeGate) {
            double z = aScale * y, s = 1.0 / (1.0 + std::exp(-z));
            double dz = dGeff * opts.gateLowerBound * s * (1 - s);
            dRaw = dz * aScale;
            dA = dz * z;
          } else {
            double s = 1.0 / (1.0 + std::exp(-y));
            dRaw = dGeff * (-aScale * s);
            dA = dGeff * p.geff[th * K + c];
          }
        }
        int64_t gc = p.perKeyGate ? c : 0;
        int64_t gIndex = (t * p.g.h + hg) * (p.perKeyGate ? K : 1) + gc;
        out.dG.data[gIndex] += dRaw;
        if (in.aLog)
          out.dALog.data[hg] += dA;
        if (in.dtBias)
          out.dDtBias.data[hg * (p.perKeyGate ? K : 1) + gc] += dRaw;
      }
    }
  if (in.initialState)
    out.dInitialState = std::move(dInit);
  return "";
}
