//===- AttentionKernelsTest.cpp - sdpa family reference tests -------------===//

#include "GraphDialect/Reference/AttentionKernels.h"

#include "gtest/gtest.h"

#include <cmath>
#include <functional>
#include <random>

using namespace graph::ref;

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

double maxAbs(const NdArray &a) {
  double m = 0;
  for (double x : a.data)
    m = std::max(m, std::fabs(x));
  return m;
}

using KeepFn = std::function<bool(int64_t, int64_t, int64_t)>; // b, i, j

/// Independent naive attention (MHA only) with an explicit keep predicate.
NdArray naiveAttention(const NdArray &q, const NdArray &k, const NdArray &v,
                       double scale, const KeepFn &keep) {
  int64_t B = q.shape[0], H = q.shape[1], Sq = q.shape[2], D = q.shape[3],
          Skv = k.shape[2], Dv = v.shape[3];
  NdArray o({B, H, Sq, Dv});
  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t i = 0; i < Sq; ++i) {
        std::vector<double> s(Skv, -INFINITY);
        double mx = -INFINITY;
        for (int64_t j = 0; j < Skv; ++j) {
          if (!keep(b, i, j))
            continue;
          double acc = 0;
          for (int64_t d = 0; d < D; ++d)
            acc += q.data[((b * H + h) * Sq + i) * D + d] *
                   k.data[((b * H + h) * Skv + j) * D + d];
          s[j] = acc * scale;
          mx = std::max(mx, s[j]);
        }
        if (mx == -INFINITY)
          continue;
        double sum = 0;
        for (int64_t j = 0; j < Skv; ++j)
          if (keep(b, i, j))
            sum += std::exp(s[j] - mx);
        for (int64_t j = 0; j < Skv; ++j) {
          if (!keep(b, i, j))
            continue;
          double p = std::exp(s[j] - mx) / sum;
          for (int64_t d = 0; d < Dv; ++d)
            o.data[((b * H + h) * Sq + i) * Dv + d] +=
                p * v.data[((b * H + h) * Skv + j) * Dv + d];
        }
      }
  return o;
}

TEST(SdpaForward, HandComputed) {
  NdArray q({1, 1, 1, 1}, 1.0), k({1, 1, 2, 1}), v({1, 1, 2, 1});
  k.data = {0.0, std::log(2.0)};
  v.data = {3.0, 6.0};
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, SdpaOptions(), r), "");
  EXPECT_NEAR(r.o.data[0], 5.0, 1e-12); // 1/3 * 3 + 2/3 * 6
  EXPECT_NEAR(r.stats.data[0], std::log(3.0), 1e-12);
  EXPECT_NEAR(r.scoreMax.data[0], std::log(2.0), 1e-12);
  EXPECT_NEAR(r.scoreSumExp.data[0], 1.5, 1e-12);
  // attn_scale multiplies the scores; default is 1.0.
  SdpaOptions opts;
  opts.attnScale = 0.0;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  EXPECT_NEAR(r.o.data[0], 4.5, 1e-12);
}

struct MaskCase {
  const char *name;
  int64_t sq, skv;
  std::function<void(SdpaOptions &)> set;
  KeepFn keep;
};

TEST(SdpaForward, MaskCases) {
  std::vector<MaskCase> cases = {
      {"causal_top_left", 4, 4, [](SdpaOptions &o) { o.rightBound = 0; },
       [](int64_t, int64_t i, int64_t j) { return j <= i; }},
      {"causal_top_left_legacy_flag", 3, 5,
       [](SdpaOptions &o) { applyLegacyMaskFlags(o, true, false, {}); },
       [](int64_t, int64_t i, int64_t j) { return j <= i; }},
      {"causal_bottom_right_sq_lt_skv", 2, 4,
       [](SdpaOptions &o) { applyLegacyMaskFlags(o, false, true, {}); },
       // row 0 sees keys 0..2, row 1 all 4 keys
       [](int64_t, int64_t i, int64_t j) { return j <= i + 2; }},
      {"sliding_window_top_left", 5, 5,
       [](SdpaOptions &o) {
         o.rightBound = 0;
         o.leftBound = 2; // the diagonal and one key to its left
       },
       [](int64_t, int64_t i, int64_t j) { return j <= i && j > i - 2; }},
      {"band_bottom_right", 3, 6,
       [](SdpaOptions &o) {
         o.diagonalAlignment = DiagonalAlignment::BottomRight;
         o.rightBound = 1;
         o.leftBound = 3;
       },
       [](int64_t, int64_t i, int64_t j) {
         return j <= i + 3 + 1 && j > i + 3 - 3;
       }},
  };
  for (const MaskCase &c : cases) {
    SCOPED_TRACE(c.name);
    NdArray q = randomArray({2, 2, c.sq, 4}, 1),
            k = randomArray({2, 2, c.skv, 4}, 2),
            v = randomArray({2, 2, c.skv, 3}, 3);
    SdpaOptions opts;
    opts.attnScale = 0.5;
    c.set(opts);
    SdpaForwardResult r;
    ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
    EXPECT_LT(maxAbsDiff(r.o, naiveAttention(q, k, v, 0.5, c.keep)), 1e-12);
  }
}

TEST(SdpaForward, PaddingMask) {
  NdArray q = randomArray({2, 1, 3, 4}, 4), k = randomArray({2, 1, 4, 4}, 5),
          v = randomArray({2, 1, 4, 2}, 6);
  NdArray lq({2, 1, 1, 1}), lkv({2, 1, 1, 1});
  lq.data = {2, 3};
  lkv.data = {3, 1};
  SdpaOptions opts;
  opts.usePaddingMask = true;
  opts.seqLenQ = &lq;
  opts.seqLenKV = &lkv;
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  KeepFn keep = [&](int64_t b, int64_t i, int64_t j) {
    return i < lq.data[b] && j < lkv.data[b];
  };
  EXPECT_LT(maxAbsDiff(r.o, naiveAttention(q, k, v, 1.0, keep)), 1e-12);
  // Row 2 of batch 0 is padding: zero output, -inf stats.
  for (int d = 0; d < 2; ++d)
    EXPECT_EQ(r.o.data[(0 * 3 + 2) * 2 + d], 0.0);
  EXPECT_EQ(r.stats.data[2], -INFINITY);

  // Bottom-right alignment follows the per-batch actual lengths.
  opts.diagonalAlignment = DiagonalAlignment::BottomRight;
  opts.rightBound = 0;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  KeepFn keepBR = [&](int64_t b, int64_t i, int64_t j) {
    int64_t sqB = lq.data[b], skvB = lkv.data[b];
    return i < sqB && j < skvB && j <= i + skvB - sqB;
  };
  EXPECT_LT(maxAbsDiff(r.o, naiveAttention(q, k, v, 1.0, keepBR)), 1e-12);
}

TEST(SdpaForward, FullyMaskedRowsAreZero) {
  // Top-left band with Sq > Skv: rows far below the diagonal see no key.
  NdArray q = randomArray({1, 1, 6, 2}, 7), k = randomArray({1, 1, 2, 2}, 8),
          v = randomArray({1, 1, 2, 2}, 9);
  SdpaOptions opts;
  opts.rightBound = 0;
  opts.leftBound = 1; // only the diagonal: rows >= 2 are dead
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  for (int64_t i = 2; i < 6; ++i) {
    EXPECT_EQ(r.o.data[i * 2], 0.0);
    EXPECT_EQ(r.stats.data[i], -INFINITY);
    EXPECT_EQ(r.scoreSumExp.data[i], 0.0);
  }
  EXPECT_NEAR(r.o.data[0], v.data[0], 1e-12); // row 0 attends key 0 only
}

// NaN and Inf semantics of the reference's softmax (issue 13): a row whose
// kept scores hold a NaN is NaN, as cuDNN's softmax gives it; only a row with
// no kept score (masked, padded) or whose kept scores are all -inf is dead
// (O = 0, Stats = -inf).
TEST(SdpaForward, NanScoresGiveNanRows) {
  const double nan = std::nan("");
  // Row 0: every score NaN (its q is NaN). Rows 1 and 2: finite.
  NdArray q({1, 1, 3, 2}), k({1, 1, 2, 2}), v({1, 1, 2, 1});
  q.data = {nan, nan, 0.5, 0.25, 1.0, 0.0};
  k.data = {1.0, 0.0, 0.0, 1.0};
  v.data = {3.0, 6.0};
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, SdpaOptions(), r), "");
  EXPECT_TRUE(std::isnan(r.o.data[0])) << r.o.data[0]; // was 0.0 (dead row)
  EXPECT_TRUE(std::isnan(r.stats.data[0])) << r.stats.data[0];
  EXPECT_TRUE(std::isnan(r.scoreMax.data[0]));
  EXPECT_TRUE(std::isnan(r.scoreSumExp.data[0]));
  EXPECT_TRUE(std::isfinite(r.o.data[1]));
  EXPECT_TRUE(std::isfinite(r.o.data[2]));

  // A NaN in key 1 makes that score NaN for every query (even 0 * NaN): one
  // NaN among finite scores makes each row NaN.
  k.data = {1.0, 0.0, nan, 1.0};
  ASSERT_EQ(sdpaForward(q, k, v, SdpaOptions(), r), "");
  for (int64_t i = 0; i < 3; ++i)
    EXPECT_TRUE(std::isnan(r.o.data[i])) << "row " << i;
}

TEST(SdpaForward, NanBiasGivesNanRowMaskedNanIsDead) {
  const double nan = std::nan("");
  NdArray q = randomArray({1, 1, 2, 2}, 21), k = randomArray({1, 1, 2, 2}, 22),
          v = randomArray({1, 1, 2, 2}, 23);
  NdArray bias({1, 1, 2, 2});
  bias.data = {nan, nan, 0.0, nan}; // row 0 all NaN; row 1 key 1 NaN
  SdpaOptions opts;
  opts.bias = &bias;
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  EXPECT_TRUE(std::isnan(r.o.data[0]));
  EXPECT_TRUE(std::isnan(r.o.data[2]));
  // A causal mask drops row 0's key 1: with bias NaN only there, row 0 sees
  // key 0 alone (bias 0) and is finite.
  bias.data = {0.0, nan, 0.0, 0.0};
  opts.rightBound = 0;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  EXPECT_NEAR(r.o.data[0], v.data[0], 1e-12);
  EXPECT_TRUE(std::isfinite(r.stats.data[0]));
}

TEST(SdpaForward, InfiniteScores) {
  const double inf = INFINITY;
  NdArray q({1, 1, 2, 1}, 1.0), k({1, 1, 2, 1}), v({1, 1, 2, 1});
  v.data = {3.0, 6.0};
  NdArray bias({1, 1, 2, 2});
  // Row 0: every score -inf, a dead row (O 0, Stats -inf). Row 1: one -inf
  // score drops that key.
  bias.data = {-inf, -inf, -inf, 0.0};
  SdpaOptions opts;
  opts.bias = &bias;
  SdpaForwardResult r;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  EXPECT_EQ(r.o.data[0], 0.0);
  EXPECT_EQ(r.stats.data[0], -inf);
  EXPECT_NEAR(r.o.data[1], 6.0, 1e-12);
  // +inf: exp(inf - inf) has no value, the row is NaN.
  bias.data = {inf, 0.0, 0.0, 0.0};
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  EXPECT_TRUE(std::isnan(r.o.data[0]));
  EXPECT_NEAR(r.o.data[1], 4.5, 1e-12);
}

TEST(SdpaBackward, NanRowGivesNanGradients) {
  const double nan = std::nan("");
  NdArray q = randomArray({1, 1, 2, 2}, 31), k = randomArray({1, 1, 2, 2}, 32),
          v = randomArray({1, 1, 2, 2}, 33);
  q.data[0] = nan; // row 0's scores all NaN
  SdpaForwardResult f;
  ASSERT_EQ(sdpaForward(q, k, v, SdpaOptions(), f), "");
  NdArray dO({1, 1, 2, 2}, 1.0);
  SdpaBackwardResult g;
  ASSERT_EQ(sdpaBackward(q, k, v, f.o, dO, f.stats, SdpaOptions(), g), "");
  EXPECT_TRUE(std::isnan(g.dQ.data[0]));
  EXPECT_TRUE(std::isnan(g.dK.data[0]));
  EXPECT_TRUE(std::isnan(g.dV.data[0]));
}

TEST(SdpaForward, GqaEqualsRepeatedKv) {
  NdArray q = randomArray({1, 6, 3, 4}, 10), k = randomArray({1, 2, 5, 4}, 11),
          v = randomArray({1, 3, 5, 2}, 12);
  NdArray kr({1, 6, 5, 4}), vr({1, 6, 5, 2});
  for (int64_t h = 0; h < 6; ++h) {
    std::copy_n(&k.data[(h / 3) * 20], 20, &kr.data[h * 20]);
    std::copy_n(&v.data[(h / 2) * 10], 10, &vr.data[h * 10]);
  }
  SdpaOptions opts;
  opts.rightBound = 0;
  opts.diagonalAlignment = DiagonalAlignment::BottomRight;
  SdpaForwardResult a, b;
  ASSERT_EQ(sdpaForward(q, k, v, opts, a), "");
  ASSERT_EQ(sdpaForward(q, kr, vr, opts, b), "");
  EXPECT_LT(maxAbsDiff(a.o, b.o), 1e-13);
  EXPECT_LT(maxAbsDiff(a.stats, b.stats), 1e-13);
}

TEST(SdpaForward, AlibiSlopes) {
  for (int64_t h = 0; h < 8; ++h)
    EXPECT_NEAR(alibiSlope(h, 8), std::pow(2.0, -(h + 1.0)), 1e-15);
  // 6 heads: 4 slopes of base 2^-2, then 2^-1 and 2^-3.
  EXPECT_NEAR(alibiSlope(0, 6), 0.25, 1e-15);
  EXPECT_NEAR(alibiSlope(3, 6), std::pow(2.0, -8), 1e-15);
  EXPECT_NEAR(alibiSlope(4, 6), 0.5, 1e-15);
  EXPECT_NEAR(alibiSlope(5, 6), 0.125, 1e-15);
  // The ALiBi term equals an explicit bias slope * (j - i).
  NdArray q = randomArray({1, 2, 3, 2}, 13), k = randomArray({1, 2, 3, 2}, 14),
          v = randomArray({1, 2, 3, 2}, 15);
  NdArray bias({1, 2, 3, 3});
  for (int64_t h = 0; h < 2; ++h)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 3; ++j)
        bias.data[(h * 3 + i) * 3 + j] = alibiSlope(h, 2) * (j - i);
  SdpaOptions a, b;
  a.useAlibiMask = true;
  a.rightBound = b.rightBound = 0;
  b.bias = &bias;
  SdpaForwardResult ra, rb;
  ASSERT_EQ(sdpaForward(q, k, v, a, ra), "");
  ASSERT_EQ(sdpaForward(q, k, v, b, rb), "");
  EXPECT_LT(maxAbsDiff(ra.o, rb.o), 1e-13);
}

TEST(SdpaForward, DropoutMask) {
  NdArray q = randomArray({1, 1, 2, 2}, 16), k = randomArray({1, 1, 3, 2}, 17),
          v = randomArray({1, 1, 3, 2}, 18);
  NdArray mask({1, 1, 2, 3}, 1.0);
  mask.data[1] = 0.0;
  SdpaOptions opts;
  opts.dropoutProbability = 0.25;
  opts.dropoutMask = &mask;
  SdpaForwardResult r, plain;
  ASSERT_EQ(sdpaForward(q, k, v, opts, r), "");
  ASSERT_EQ(sdpaForward(q, k, v, SdpaOptions(), plain), "");
  // Row 1 keeps everything: O scaled by 1 / (1 - p).
  for (int d = 0; d < 2; ++d)
    EXPECT_NEAR(r.o.data[2 + d], plain.o.data[2 + d] / 0.75, 1e-12);
  EXPECT_LT(maxAbsDiff(r.stats, plain.stats), 1e-14); // stats are pre-dropout
  SdpaOptions bad;
  bad.dropoutProbability = 0.1;
  EXPECT_NE(sdpaForward(q, k, v, bad, r).find("dropout"), std::string::npos);
}

TEST(SdpaForward, Errors) {
  NdArray q({1, 4, 2, 8}), k({1, 3, 2, 8}), v({1, 4, 2, 8});
  SdpaForwardResult r;
  EXPECT_NE(sdpaForward(q, k, v, SdpaOptions(), r).find("k: head count"),
            std::string::npos);
  NdArray k2({1, 4, 2, 4});
  EXPECT_NE(sdpaForward(q, k2, v, SdpaOptions(), r).find("k: head dim"),
            std::string::npos);
  SdpaOptions opts;
  opts.usePaddingMask = true;
  EXPECT_NE(sdpaForward(q, v, v, opts, r).find("seq_len_q"), std::string::npos);
  NdArray bias({2, 1, 2, 2});
  SdpaOptions ob;
  ob.bias = &bias;
  EXPECT_NE(sdpaForward(q, v, v, ob, r).find("bias"), std::string::npos);
}

/// Loss = sum(O * W); checks every gradient of the backward against central
/// finite differences of the forward.
void checkBackwardFd(const NdArray &q, const NdArray &k, const NdArray &v,
                     SdpaOptions opts, NdArray *bias) {
  SdpaForwardResult f;
  ASSERT_EQ(sdpaForward(q, k, v, opts, f), "");
  NdArray w = randomArray(f.o.shape, 99);
  SdpaBackwardResult g;
  ASSERT_EQ(sdpaBackward(q, k, v, f.o, w, f.stats, opts, g), "");
  auto loss = [&](const NdArray &qq, const NdArray &kk, const NdArray &vv) {
    SdpaForwardResult r;
    EXPECT_EQ(sdpaForward(qq, kk, vv, opts, r), "");
    double s = 0;
    for (int64_t i = 0; i < r.o.size(); ++i)
      s += r.o.data[i] * w.data[i];
    return s;
  };
  const double h = 1e-6;
  auto fd = [&](NdArray &x, const NdArray &grad, const char *name) {
    SCOPED_TRACE(name);
    ASSERT_EQ(x.shape, grad.shape);
    for (int64_t i = 0; i < x.size(); ++i) {
      double saved = x.data[i];
      x.data[i] = saved + h;
      double up = loss(q, k, v);
      x.data[i] = saved - h;
      double dn = loss(q, k, v);
      x.data[i] = saved;
      EXPECT_NEAR(grad.data[i], (up - dn) / (2 * h), 1e-6) << "index " << i;
    }
  };
  fd(const_cast<NdArray &>(q), g.dQ, "dQ");
  fd(const_cast<NdArray &>(k), g.dK, "dK");
  fd(const_cast<NdArray &>(v), g.dV, "dV");
  if (bias)
    fd(*bias, g.dBias, "dBias");
}

TEST(SdpaBackward, FiniteDifferencesPlain) {
  NdArray q = randomArray({1, 2, 3, 4}, 20), k = randomArray({1, 2, 4, 4}, 21),
          v = randomArray({1, 2, 4, 3}, 22);
  SdpaOptions opts;
  opts.attnScale = 0.7;
  checkBackwardFd(q, k, v, opts, nullptr);
}

TEST(SdpaBackward, FiniteDifferencesMasksBiasDropoutGqa) {
  NdArray q = randomArray({2, 4, 3, 2}, 23), k = randomArray({2, 2, 5, 2}, 24),
          v = randomArray({2, 1, 5, 3}, 25);
  NdArray bias = randomArray({1, 4, 3, 5}, 26);
  NdArray mask({2, 1, 3, 5}, 1.0);
  mask.data[3] = mask.data[17] = 0.0;
  NdArray lq({2, 1, 1, 1}), lkv({2, 1, 1, 1});
  lq.data = {3, 2};
  lkv.data = {5, 4};
  SdpaOptions opts;
  opts.attnScale = 0.9;
  opts.bias = &bias;
  opts.dropoutProbability = 0.2;
  opts.dropoutMask = &mask;
  opts.usePaddingMask = true;
  opts.seqLenQ = &lq;
  opts.seqLenKV = &lkv;
  opts.diagonalAlignment = DiagonalAlignment::BottomRight;
  opts.rightBound = 0;
  opts.leftBound = 3;
  checkBackwardFd(q, k, v, opts, &bias);
}

TEST(SdpaBackward, FiniteDifferencesAlibiBroadcastBias) {
  NdArray q = randomArray({1, 3, 4, 2}, 27), k = randomArray({1, 3, 4, 2}, 28),
          v = randomArray({1, 3, 4, 2}, 29);
  NdArray bias = randomArray({1, 1, 4, 4}, 30); // broadcast over heads
  SdpaOptions opts;
  opts.bias = &bias;
  opts.useAlibiMask = true;
  opts.rightBound = 0;
  checkBackwardFd(q, k, v, opts, &bias);
}

NdArray quantize(const NdArray &x, DType t, double scale) {
  NdArray r(x.shape);
  for (int64_t i = 0; i < x.size(); ++i)
    r.data[i] = roundTo(t, x.data[i] * scale);
  return r;
}

TEST(SdpaFp8, ForwardMatchesManualPipeline) {
  // fp8 inputs with scales: compare with the plain forward on the
  // dequantized inputs (fp8 error on P only), then check the amaxes.
  NdArray qf = randomArray({1, 2, 4, 16}, 31),
          kf = randomArray({1, 2, 6, 16}, 32),
          vf = randomArray({1, 2, 6, 16}, 33);
  double sq = 64, sk = 32, sv = 128;
  NdArray q8 = quantize(qf, DType::F8E4M3FN, sq),
          k8 = quantize(kf, DType::F8E4M3FN, sk),
          v8 = quantize(vf, DType::F8E4M3FN, sv);
  SdpaFp8ForwardScales sc;
  sc.descaleQ = 1 / sq;
  sc.descaleK = 1 / sk;
  sc.descaleV = 1 / sv;
  sc.scaleS = 256;
  sc.descaleS = 1.0 / 256;
  sc.scaleO = 16;
  SdpaOptions opts;
  opts.attnScale = 0.25;
  opts.rightBound = 0;
  SdpaFp8ForwardResult r;
  ASSERT_EQ(sdpaFp8Forward(q8, k8, v8, sc, DType::F8E4M3FN, opts, r), "");
  NdArray qd(q8), kd(k8), vd(v8);
  for (double &x : qd.data)
    x /= sq;
  for (double &x : kd.data)
    x /= sk;
  for (double &x : vd.data)
    x /= sv;
  SdpaForwardResult p;
  ASSERT_EQ(sdpaForward(qd, kd, vd, opts, p), "");
  EXPECT_LT(maxAbsDiff(r.stats, p.stats), 1e-12); // stats are exact
  NdArray unscaled(r.o);
  for (double &x : unscaled.data)
    x /= 16;
  EXPECT_LT(maxAbsDiff(unscaled, p.o), 0.07 * maxAbs(p.o));
  EXPECT_NEAR(r.amaxO, maxAbs(unscaled), 1e-12); // amax before scale_o
  EXPECT_DOUBLE_EQ(r.amaxS, 1.0);                // causal row 0 has P = 1
  // With a tiny scale_s, P underflows fp8 and O collapses: quantization of
  // P really happens.
  sc.scaleS = 1e-6;
  sc.descaleS = 1e6;
  ASSERT_EQ(sdpaFp8Forward(q8, k8, v8, sc, DType::F8E4M3FN, opts, r), "");
  EXPECT_EQ(maxAbs(r.o), 0.0);
}

TEST(SdpaFp8, BackwardCloseToPlain) {
  NdArray q = quantize(randomArray({1, 2, 3, 16}, 34), DType::F8E4M3FN, 1),
          k = quantize(randomArray({1, 1, 5, 16}, 35), DType::F8E4M3FN, 1),
          v = quantize(randomArray({1, 1, 5, 16}, 36), DType::F8E4M3FN, 1);
  SdpaOptions opts;
  opts.attnScale = 0.25;
  SdpaForwardResult f;
  ASSERT_EQ(sdpaForward(q, k, v, opts, f), "");
  NdArray dO = quantize(randomArray(f.o.shape, 37), DType::F8E5M2, 1);
  NdArray o8 = quantize(f.o, DType::F8E4M3FN, 1);
  SdpaBackwardResult plain;
  ASSERT_EQ(sdpaBackward(q, k, v, o8, dO, f.stats, opts, plain), "");
  SdpaFp8BackwardScales sc;
  sc.scaleS = 448;
  sc.descaleS = 1 / 448.0;
  sc.scaleDP = 1024;
  sc.descaleDP = 1 / 1024.0;
  sc.scaleDQ = 2;
  SdpaFp8BackwardResult r;
  ASSERT_EQ(sdpaFp8Backward(q, k, v, o8, dO, f.stats, sc, DType::F8E4M3FN,
                            DType::F8E5M2, opts, r),
            "");
  NdArray dQ(r.dQ);
  for (double &x : dQ.data)
    x /= 2;
  EXPECT_NEAR(r.amaxDQ, maxAbs(dQ), 1e-12);
  EXPECT_LT(maxAbsDiff(dQ, plain.dQ), 0.15 * maxAbs(plain.dQ));
  EXPECT_LT(maxAbsDiff(r.dK, plain.dK), 0.15 * maxAbs(plain.dK));
  EXPECT_LT(maxAbsDiff(r.dV, plain.dV), 0.1 * maxAbs(plain.dV));
  EXPECT_NEAR(r.amaxDV, maxAbs(r.dV), 1e-12);
  EXPECT_GT(r.amaxDP, 0.0);
  NdArray mask({1, 1, 3, 5}, 1.0);
  opts.dropoutMask = &mask;
  EXPECT_NE(sdpaFp8Backward(q, k, v, o8, dO, f.stats, sc, DType::F8E4M3FN,
                            DType::F8E5M2, opts, r)
                .find("dropout"),
            std::string::npos);
}

TEST(SdpaMxfp8, ForwardEqualsPlainOnDequantized) {
  NdArray q = quantize(randomArray({1, 2, 3, 64}, 40), DType::F8E4M3FN, 8),
          k = quantize(randomArray({1, 2, 40, 64}, 41), DType::F8E4M3FN, 8),
          v = quantize(randomArray({1, 2, 40, 32}, 42), DType::F8E4M3FN, 8);
  // E8M0 descales: powers of two per block.
  NdArray dq({1, 2, 3, 2}), dk({1, 2, 40, 2}), dv({1, 2, 2, 32});
  for (int64_t i = 0; i < dq.size(); ++i)
    dq.data[i] = std::ldexp(1.0, -3 - static_cast<int>(i % 3));
  for (int64_t i = 0; i < dk.size(); ++i)
    dk.data[i] = std::ldexp(1.0, -3 - static_cast<int>(i % 2));
  for (int64_t i = 0; i < dv.size(); ++i)
    dv.data[i] = std::ldexp(1.0, -2 - static_cast<int>(i % 4));
  SdpaOptions opts;
  opts.attnScale = 0.125;
  SdpaMxfp8ForwardResult r;
  ASSERT_EQ(sdpaMxfp8Forward(q, k, v, dq, dk, dv, opts, r), "");
  NdArray qd, kd, vd;
  ASSERT_EQ(blockDequantize(q, dq, 3, 32, qd, "q"), "");
  ASSERT_EQ(blockDequantize(k, dk, 3, 32, kd, "k"), "");
  ASSERT_EQ(blockDequantize(v, dv, 2, 32, vd, "v"), "");
  // Spot-check the block mapping: element d=40 of q row 0 uses block 1.
  EXPECT_DOUBLE_EQ(qd.data[40], q.data[40] * dq.data[1]);
  EXPECT_DOUBLE_EQ(vd.data[33 * 32 + 5], v.data[33 * 32 + 5] * dv.data[32 + 5]);
  SdpaForwardResult p;
  ASSERT_EQ(sdpaForward(qd, kd, vd, opts, p), "");
  EXPECT_LT(maxAbsDiff(r.o, p.o), 1e-13);
  EXPECT_NEAR(r.amaxO, maxAbs(p.o), 1e-13);
  NdArray small({1, 2, 3, 1});
  EXPECT_NE(sdpaMxfp8Forward(q, k, v, small, dk, dv, opts, r).find("descale_q"),
            std::string::npos);
}

TEST(SdpaMxfp8, BackwardEqualsPlainWithUnitScales) {
  NdArray q = randomArray({1, 2, 3, 32}, 43),
          k = randomArray({1, 2, 4, 32}, 44),
          v = randomArray({1, 2, 4, 32}, 45);
  SdpaOptions opts;
  opts.attnScale = 0.3;
  opts.rightBound = 0;
  SdpaForwardResult f;
  ASSERT_EQ(sdpaForward(q, k, v, opts, f), "");
  NdArray dO = randomArray(f.o.shape, 46);
  SdpaBackwardResult plain;
  ASSERT_EQ(sdpaBackward(q, k, v, f.o, dO, f.stats, opts, plain), "");
  NdArray oneD({1, 2, 4, 1}, 1.0), oneS({1, 2, 1, 32}, 1.0);
  SdpaMxfp8BackwardInputs in;
  in.q = in.qT = &q;
  in.k = in.kT = &k;
  in.v = &v;
  in.oF16 = &f.o;
  in.dOF16 = in.dO = in.dOT = &dO;
  in.stats = &f.stats;
  in.descaleQ = in.descaleK = in.descaleDO = &oneD;
  in.descaleQT = in.descaleKT = in.descaleV = in.descaleDOT = &oneS;
  SdpaMxfp8BackwardResult r;
  ASSERT_EQ(sdpaMxfp8Backward(in, opts, r), "");
  EXPECT_LT(maxAbsDiff(r.dQ, plain.dQ), 1e-13);
  EXPECT_LT(maxAbsDiff(r.dK, plain.dK), 1e-13);
  EXPECT_LT(maxAbsDiff(r.dV, plain.dV), 1e-13);
  EXPECT_NEAR(r.amaxDK, maxAbs(plain.dK), 1e-13);
  in.descaleV = nullptr;
  EXPECT_NE(sdpaMxfp8Backward(in, opts, r).find("descale_v"),
            std::string::npos);
}

} // namespace
