//===- LinearAttentionKernelsTest.cpp - gdn / kda / gdn2 reference tests --===//

#include "GraphDialect/Reference/LinearAttentionKernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <random>

using namespace graph::ref;
using LAV = LinearAttentionVariant;

namespace {

NdArray randomArray(Shape shape, unsigned seed, double lo = -1.0,
                    double hi = 1.0) {
  NdArray a(std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  for (double &x : a.data)
    x = dist(gen);
  return a;
}

double maxAbsDiff(const NdArray &a, const NdArray &b) {
  EXPECT_EQ(a.shape, b.shape);
  double m = 0;
  for (int64_t i = 0; i < a.size() && i < b.size(); ++i)
    m = std::max(m, std::fabs(a.data[i] - b.data[i]));
  return m;
}

/// Owns a full set of inputs for one variant.
struct Case {
  LAV variant;
  NdArray q, k, v, g, beta, w, cu, init, aLog, dtBias;
  LinearAttentionInputs in;

  Case(LAV var, int64_t T, int64_t hq, int64_t hk, int64_t hv, int64_t K,
       int64_t V, std::vector<double> cuVals, unsigned seed)
      : variant(var) {
    int64_t ho = std::max(hq, hv);
    q = randomArray({T, hq, K}, seed);
    k = randomArray({T, hk, K}, seed + 1);
    v = randomArray({T, hv, V}, seed + 2);
    if (var == LAV::Gdn)
      g = randomArray({T, ho}, seed + 3, -0.7, -0.05);
    else
      g = randomArray({T, ho, K}, seed + 3, -0.7, -0.05);
    if (var == LAV::Gdn2) {
      beta = randomArray({T, ho, K}, seed + 4, 0.1, 1.5);
      w = randomArray({T, ho, V}, seed + 5, 0.2, 1.0);
    } else {
      beta = randomArray({T, ho}, seed + 4, 0.1, 0.9);
    }
    cu = NdArray({static_cast<int64_t>(cuVals.size())});
    cu.data = cuVals;
    init = randomArray({static_cast<int64_t>(cuVals.size()) - 1, ho, K, V},
                       seed + 6, -0.3, 0.3);
    relink();
  }
  void relink() {
    in = LinearAttentionInputs();
    in.q = &q;
    in.k = &k;
    in.v = &v;
    in.g = &g;
    in.beta = &beta;
    in.w = variant == LAV::Gdn2 ? &w : nullptr;
    in.cuSeqlens = &cu;
    in.initialState = &init;
  }
};

TEST(LinearAttention, HandComputedSingleToken) {
  NdArray q({1, 1, 1}, 2.0), k({1, 1, 1}, 3.0), v({1, 1, 1}, 5.0),
      g({1, 1}, -0.5), beta({1, 1}, 0.25);
  LinearAttentionInputs in;
  in.q = &q;
  in.k = &k;
  in.v = &v;
  in.g = &g;
  in.beta = &beta;
  LinearAttentionOptions opts;
  opts.outputFinalState = true;
  LinearAttentionForwardResult r;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, in, opts, r), "");
  // S1 = k beta v = 3.75; o = scale q S1 with scale = 1/sqrt(1).
  EXPECT_NEAR(r.finalState.data[0], 3.75, 1e-14);
  EXPECT_NEAR(r.o.data[0], 7.5, 1e-14);
  // A second token decays, erases and writes.
  NdArray q2({2, 1, 1}, 1.0), k2({2, 1, 1}, 1.0), v2({2, 1, 1}), g2({2, 1}),
      b2({2, 1}, 0.5);
  v2.data = {2.0, 4.0};
  g2.data = {0.0, std::log(0.5)};
  in.q = &q2;
  in.k = &k2;
  in.v = &v2;
  in.g = &g2;
  in.beta = &b2;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, in, opts, r), "");
  // S1 = 0.5 * 2 = 1; Sdec = 0.5; S2 = 0.5 + 0.5 (4 - 0.5) = 2.25.
  EXPECT_NEAR(r.o.data[0], 1.0, 1e-14);
  EXPECT_NEAR(r.o.data[1], 2.25, 1e-14);
}

/// Independent textbook gated delta rule for MHA gdn without l2norm.
NdArray naiveGdn(const Case &c, double scale) {
  int64_t T = c.q.shape[0], H = c.q.shape[1], K = c.q.shape[2],
          V = c.v.shape[2];
  NdArray o({T, H, V});
  for (int64_t h = 0; h < H; ++h)
    for (size_t n = 0; n + 1 < c.cu.data.size(); ++n) {
      std::vector<double> S(K * V);
      for (int64_t x = 0; x < K * V; ++x)
        S[x] = c.init.data[(n * H + h) * K * V + x];
      for (int64_t t = c.cu.data[n]; t < c.cu.data[n + 1]; ++t) {
        double a = std::exp(c.g.data[t * H + h]), bt = c.beta.data[t * H + h];
        const double *kt = &c.k.data[(t * H + h) * K],
                     *vt = &c.v.data[(t * H + h) * V],
                     *qt = &c.q.data[(t * H + h) * K];
        for (double &x : S)
          x *= a;
        for (int64_t d = 0; d < V; ++d) {
          double pred = 0;
          for (int64_t i = 0; i < K; ++i)
            pred += kt[i] * S[i * V + d];
          for (int64_t i = 0; i < K; ++i)
            S[i * V + d] += bt * kt[i] * (vt[d] - pred);
        }
        for (int64_t d = 0; d < V; ++d)
          for (int64_t i = 0; i < K; ++i)
            o.data[(t * H + h) * V + d] += scale * qt[i] * S[i * V + d];
      }
    }
  return o;
}

TEST(LinearAttention, GdnMatchesTextbookDeltaRule) {
  Case c(LAV::Gdn, 9, 2, 2, 2, 3, 4, {0, 4, 9}, 10);
  LinearAttentionOptions opts;
  opts.scale = 0.6;
  LinearAttentionForwardResult r;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, c.in, opts, r), "");
  EXPECT_LT(maxAbsDiff(r.o, naiveGdn(c, 0.6)), 1e-13);
}

TEST(LinearAttention, VariantsCollapse) {
  // kda with a per-key gate constant over K equals gdn; gdn2 with a constant
  // per-key beta and w == beta equals kda.
  Case gdn(LAV::Gdn, 7, 2, 2, 2, 3, 2, {0, 7}, 20);
  Case kda(LAV::Kda, 7, 2, 2, 2, 3, 2, {0, 7}, 20);
  kda.q = gdn.q;
  kda.k = gdn.k;
  kda.v = gdn.v;
  kda.beta = gdn.beta;
  kda.init = gdn.init;
  for (int64_t t = 0; t < 7; ++t)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t c = 0; c < 3; ++c)
        kda.g.data[(t * 2 + h) * 3 + c] = gdn.g.data[t * 2 + h];
  kda.relink();
  Case gdn2(LAV::Gdn2, 7, 2, 2, 2, 3, 2, {0, 7}, 20);
  gdn2.q = kda.q;
  gdn2.k = kda.k;
  gdn2.v = kda.v;
  gdn2.g = kda.g;
  gdn2.init = kda.init;
  for (int64_t t = 0; t < 7; ++t)
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t c = 0; c < 3; ++c)
        gdn2.beta.data[(t * 2 + h) * 3 + c] = kda.beta.data[t * 2 + h];
      for (int64_t d = 0; d < 2; ++d)
        gdn2.w.data[(t * 2 + h) * 2 + d] = kda.beta.data[t * 2 + h];
    }
  gdn2.relink();
  LinearAttentionOptions opts;
  opts.outputFinalState = true;
  opts.useQkL2Norm = true;
  LinearAttentionForwardResult a, b, c;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, gdn.in, opts, a), "");
  ASSERT_EQ(linearAttentionForward(LAV::Kda, kda.in, opts, b), "");
  ASSERT_EQ(linearAttentionForward(LAV::Gdn2, gdn2.in, opts, c), "");
  EXPECT_LT(maxAbsDiff(a.o, b.o), 1e-13);
  EXPECT_LT(maxAbsDiff(b.o, c.o), 1e-13);
  EXPECT_LT(maxAbsDiff(a.finalState, c.finalState), 1e-13);
}

TEST(LinearAttention, VarlenEqualsSeparateRunsAndZeroLength) {
  Case c(LAV::Kda, 8, 1, 1, 1, 2, 3, {0, 3, 3, 8}, 30);
  LinearAttentionOptions opts;
  opts.outputFinalState = true;
  LinearAttentionForwardResult all;
  ASSERT_EQ(linearAttentionForward(LAV::Kda, c.in, opts, all), "");
  // Zero-length sequence: final state is its initial state.
  for (int64_t x = 0; x < 6; ++x)
    EXPECT_EQ(all.finalState.data[6 + x], c.init.data[6 + x]);
  // Sequence 2 alone.
  Case s(LAV::Kda, 5, 1, 1, 1, 2, 3, {0, 5}, 30);
  std::copy_n(&c.q.data[3 * 2], 10, s.q.data.begin());
  std::copy_n(&c.k.data[3 * 2], 10, s.k.data.begin());
  std::copy_n(&c.v.data[3 * 3], 15, s.v.data.begin());
  std::copy_n(&c.g.data[3 * 2], 10, s.g.data.begin());
  std::copy_n(&c.beta.data[3], 5, s.beta.data.begin());
  std::copy_n(&c.init.data[12], 6, s.init.data.begin());
  LinearAttentionForwardResult one;
  ASSERT_EQ(linearAttentionForward(LAV::Kda, s.in, opts, one), "");
  for (int64_t x = 0; x < 15; ++x)
    EXPECT_NEAR(one.o.data[x], all.o.data[9 + x], 1e-14);
  for (int64_t x = 0; x < 6; ++x)
    EXPECT_NEAR(one.finalState.data[x], all.finalState.data[12 + x], 1e-14);
}

TEST(LinearAttention, CheckpointsArePrefixStates) {
  // Sequences of 7 and 4 tokens, checkpoint every 2: 3 + 1 entries,
  // capacity 11 / 2 = 5 rows, tail zero.
  Case c(LAV::Gdn2, 11, 2, 2, 2, 2, 2, {0, 7, 11}, 40);
  LinearAttentionOptions opts;
  opts.checkpointEveryNTokens = 2;
  LinearAttentionForwardResult r;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn2, c.in, opts, r), "");
  ASSERT_EQ(r.stateCheckpoints.shape, (Shape{5, 2, 2, 2}));
  auto prefixState = [&](int64_t start, int64_t len, int64_t seq) {
    Case p = c;
    p.cu = NdArray({2});
    p.cu.data = {0, double(len)};
    for (NdArray *x : {&p.q, &p.k, &p.v, &p.g, &p.beta, &p.w}) {
      int64_t row = x->size() / x->shape[0];
      x->shape[0] = len;
      x->data.assign(x->data.begin() + start * row,
                     x->data.begin() + (start + len) * row);
    }
    p.init.shape[0] = 1;
    p.init.data.assign(p.init.data.begin() + seq * 8,
                       p.init.data.begin() + seq * 8 + 8);
    p.relink();
    LinearAttentionOptions o;
    o.outputFinalState = true;
    LinearAttentionForwardResult pr;
    EXPECT_EQ(linearAttentionForward(LAV::Gdn2, p.in, o, pr), "");
    return pr.finalState;
  };
  int64_t rows[4][3] = {{0, 2, 0}, {1, 4, 0}, {2, 6, 0}, {3, 2, 1}};
  for (auto &rw : rows) {
    NdArray want = prefixState(rw[2] == 0 ? 0 : 7, rw[1], rw[2]);
    for (int64_t x = 0; x < 8; ++x)
      EXPECT_NEAR(r.stateCheckpoints.data[rw[0] * 8 + x], want.data[x], 1e-14)
          << "row " << rw[0];
  }
  for (int64_t x = 0; x < 8; ++x)
    EXPECT_EQ(r.stateCheckpoints.data[4 * 8 + x], 0.0);
}

TEST(LinearAttention, GqaHeadsRepeat) {
  // Hq = 1 query head shared by Hv = 2 value heads equals duplicated q/k.
  Case a(LAV::Gdn, 5, 1, 1, 2, 3, 2, {0, 5}, 50);
  Case b(LAV::Gdn, 5, 2, 2, 2, 3, 2, {0, 5}, 50);
  b.g = a.g;
  b.beta = a.beta;
  b.v = a.v;
  b.init = a.init;
  for (int64_t t = 0; t < 5; ++t)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t c = 0; c < 3; ++c) {
        b.q.data[(t * 2 + h) * 3 + c] = a.q.data[t * 3 + c];
        b.k.data[(t * 2 + h) * 3 + c] = a.k.data[t * 3 + c];
      }
  b.relink();
  LinearAttentionForwardResult ra, rb;
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, a.in, {}, ra), "");
  ASSERT_EQ(linearAttentionForward(LAV::Gdn, b.in, {}, rb), "");
  EXPECT_LT(maxAbsDiff(ra.o, rb.o), 1e-14);
  EXPECT_EQ(ra.o.shape, (Shape{5, 2, 2}));
}

TEST(LinearAttention, SafeGateAndBetaSigmoid) {
  // Raw logits through the in-kernel transforms equal the host-side
  // transform fed as post-activation gates (the cuDNN test's contract).
  Case raw(LAV::Kda, 6, 2, 2, 2, 2, 2, {0, 6}, 60);
  raw.g = randomArray(raw.g.shape, 61, -2, 2);
  raw.beta = randomArray(raw.beta.shape, 62, -2, 2);
  NdArray aLog({2}), dt({2, 2});
  aLog.data = {0.3, -0.2};
  dt.data = {0.1, -0.1, 0.2, 0.0};
  raw.in.aLog = &aLog;
  raw.in.dtBias = &dt;
  LinearAttentionOptions o;
  o.safeGate = true;
  o.gateLowerBound = -4.0;
  o.useBetaSigmoid = true;
  LinearAttentionForwardResult a, b;
  ASSERT_EQ(linearAttentionForward(LAV::Kda, raw.in, o, a), "");
  Case eff = raw;
  for (int64_t t = 0; t < 6; ++t)
    for (int64_t h = 0; h < 2; ++h) {
      for (int64_t c = 0; c < 2; ++c) {
        double y = raw.g.data[(t * 2 + h) * 2 + c] + dt.data[h * 2 + c];
        eff.g.data[(t * 2 + h) * 2 + c] =
            -4.0 / (1 + std::exp(-std::exp(aLog.data[h]) * y));
      }
      eff.beta.data[t * 2 + h] = 1 / (1 + std::exp(-raw.beta.data[t * 2 + h]));
    }
  eff.relink();
  ASSERT_EQ(linearAttentionForward(LAV::Kda, eff.in, {}, b), "");
  EXPECT_LT(maxAbsDiff(a.o, b.o), 1e-13);
}

/// Central finite differences of L = sum(O Wo) + sum(final Wf).
void checkGradients(Case &c, const LinearAttentionOptions &optsIn,
                    bool withParams) {
  LinearAttentionOptions opts = optsIn;
  opts.outputFinalState = true;
  NdArray aLog, dt;
  if (withParams) {
    int64_t hg = c.g.shape[1];
    aLog = randomArray({hg}, 70, -0.3, 0.3);
    dt =
        randomArray(c.variant == LAV::Gdn ? Shape{hg} : Shape{hg, c.q.shape[2]},
                    71, -0.3, 0.3);
    c.in.aLog = &aLog;
    c.in.dtBias = &dt;
  }
  LinearAttentionForwardResult f;
  ASSERT_EQ(linearAttentionForward(c.variant, c.in, opts, f), "");
  NdArray wo = randomArray(f.o.shape, 72),
          wf = randomArray(f.finalState.shape, 73);
  LinearAttentionGrads g;
  ASSERT_EQ(linearAttentionBackward(c.variant, c.in, wo, &wf, opts, g), "");
  auto loss = [&]() {
    LinearAttentionForwardResult r;
    EXPECT_EQ(linearAttentionForward(c.variant, c.in, opts, r), "");
    double s = 0;
    for (int64_t i = 0; i < r.o.size(); ++i)
      s += r.o.data[i] * wo.data[i];
    for (int64_t i = 0; i < r.finalState.size(); ++i)
      s += r.finalState.data[i] * wf.data[i];
    return s;
  };
  const double h = 1e-6;
  auto fd = [&](NdArray &x, const NdArray &grad, const char *name) {
    SCOPED_TRACE(name);
    ASSERT_EQ(x.shape, grad.shape);
    for (int64_t i = 0; i < x.size(); ++i) {
      double saved = x.data[i];
      x.data[i] = saved + h;
      double up = loss();
      x.data[i] = saved - h;
      double dn = loss();
      x.data[i] = saved;
      EXPECT_NEAR(grad.data[i], (up - dn) / (2 * h), 2e-6) << "index " << i;
    }
  };
  fd(c.q, g.dQ, "dQ");
  fd(c.k, g.dK, "dK");
  fd(c.v, g.dV, "dV");
  fd(c.g, g.dG, "dG");
  fd(c.beta, g.dBeta, "dBeta");
  if (c.variant == LAV::Gdn2)
    fd(c.w, g.dW, "dW");
  fd(c.init, g.dInitialState, "d_initial_state");
  if (withParams) {
    fd(aLog, g.dALog, "d_a_log");
    fd(dt, g.dDtBias, "d_dt_bias");
  }
}

TEST(LinearAttentionBackward, FiniteDifferencesGdn) {
  Case c(LAV::Gdn, 6, 2, 1, 4, 3, 2, {0, 2, 6}, 80);
  LinearAttentionOptions o;
  o.useQkL2Norm = true;
  checkGradients(c, o, false);
}

TEST(LinearAttentionBackward, FiniteDifferencesGdnSafeGateBetaSigmoid) {
  Case c(LAV::Gdn, 5, 2, 2, 2, 2, 3, {0, 5}, 81);
  c.g = randomArray(c.g.shape, 82, -1, 1);
  LinearAttentionOptions o;
  o.safeGate = true;
  o.useBetaSigmoid = true;
  o.scale = 0.8;
  checkGradients(c, o, true);
}

TEST(LinearAttentionBackward, FiniteDifferencesKda) {
  Case c(LAV::Kda, 6, 2, 2, 1, 3, 2, {0, 4, 4, 6}, 83);
  LinearAttentionOptions o;
  o.useQkL2Norm = true;
  checkGradients(c, o, false);
}

TEST(LinearAttentionBackward, FiniteDifferencesKdaSafeGate) {
  Case c(LAV::Kda, 5, 1, 1, 2, 2, 2, {0, 5}, 84);
  c.g = randomArray(c.g.shape, 85, -1, 1);
  LinearAttentionOptions o;
  o.safeGate = true;
  o.gateLowerBound = -3.0;
  checkGradients(c, o, true);
}

TEST(LinearAttentionBackward, FiniteDifferencesGdn2) {
  Case c(LAV::Gdn2, 6, 2, 2, 2, 3, 2, {0, 3, 6}, 86);
  LinearAttentionOptions o;
  o.useQkL2Norm = true;
  checkGradients(c, o, false);
}

TEST(LinearAttentionBackward, FiniteDifferencesGdn2SafeGateBetaSigmoid) {
  Case c(LAV::Gdn2, 4, 2, 1, 2, 2, 3, {0, 4}, 87);
  c.g = randomArray(c.g.shape, 88, -1, 1);
  LinearAttentionOptions o;
  o.safeGate = true;
  o.useBetaSigmoid = true;
  checkGradients(c, o, true);
}

TEST(LinearAttention, Errors) {
  Case c(LAV::Gdn2, 4, 2, 2, 2, 2, 2, {0, 4}, 90);
  LinearAttentionForwardResult r;
  c.in.w = nullptr;
  EXPECT_NE(linearAttentionForward(LAV::Gdn2, c.in, {}, r).find("w:"),
            std::string::npos);
  c.relink();
  NdArray badCu({2});
  badCu.data = {0, 3};
  c.in.cuSeqlens = &badCu;
  EXPECT_NE(linearAttentionForward(LAV::Gdn2, c.in, {}, r).find("cu_seqlens"),
            std::string::npos);
  c.relink();
  NdArray k3 = randomArray({4, 3, 2}, 91);
  c.in.k = &k3;
  EXPECT_NE(linearAttentionForward(LAV::Gdn2, c.in, {}, r).find("k: head"),
            std::string::npos);
  c.relink();
  NdArray beta2({4, 2});
  c.in.beta = &beta2;
  EXPECT_NE(linearAttentionForward(LAV::Gdn2, c.in, {}, r).find("beta"),
            std::string::npos);
}

} // namespace
