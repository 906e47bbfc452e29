//===- AttentionKernels.cpp - CPU reference of the sdpa family ------------===//
//
// See AttentionKernels.h for the semantics. Work is split over (batch, query
// head) pairs on the reference's worker threads; every task owns its
// outputs (dK/dV/dBias go through per-query-head buffers reduced
// afterwards), so results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/AttentionKernels.h"
#include "KernelsInternal.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <initializer_list>
#include <limits>

using namespace graph;
using namespace graph::ref;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Geometry {
  int64_t b = 0, hq = 0, hk = 0, hv = 0, sq = 0, skv = 0, d = 0, dv = 0;
};

/// Index into a rank-4 array whose dims of size 1 broadcast.
double bcast4(const NdArray &a, int64_t b, int64_t h, int64_t i, int64_t j) {
  const Shape &s = a.shape;
  int64_t bb = s[0] == 1 ? 0 : b, hh = s[1] == 1 ? 0 : h,
          ii = s[2] == 1 ? 0 : i, jj = s[3] == 1 ? 0 : j;
  return a.data[((bb * s[1] + hh) * s[2] + ii) * s[3] + jj];
}

std::string checkBroadcast4(const NdArray *a, const Geometry &g,
                            const char *port) {
  if (!a)
    return "";
  if (a->rank() != 4)
    return std::string(port) + ": must be rank 4, got " + shapeString(a->shape);
  int64_t want[4] = {g.b, g.hq, g.sq, g.skv};
  for (int i = 0; i < 4; ++i)
    if (a->shape[i] != 1 && a->shape[i] != want[i])
      return std::string(port) + ": dim " + std::to_string(i) + " of " +
             shapeString(a->shape) + " must be 1 or " + std::to_string(want[i]);
  return "";
}

std::string readLengths(const NdArray *t, int64_t b, int64_t maxLen,
                        const char *port, std::vector<int64_t> &out) {
  if (!t)
    return std::string(port) + ": required when the padding mask is enabled";
  if (t->size() != b)
    return std::string(port) + ": must hold B = " + std::to_string(b) +
           " lengths, got shape " + shapeString(t->shape);
  out.resize(b);
  for (int64_t i = 0; i < b; ++i) {
    double x = t->data[i];
    if (!(x >= 0) || x > static_cast<double>(maxLen) || x != std::floor(x))
      return std::string(port) + ": length " + std::to_string(x) +
             " of batch " + std::to_string(i) + " is not an integer in [0, " +
             std::to_string(maxLen) + "]";
    out[i] = static_cast<int64_t>(x);
  }
  return "";
}

/// Validated geometry plus mask evaluation.
struct Ctx {
  Geometry g;
  const SdpaOptions *opts = nullptr;
  std::vector<int64_t> lenQ, lenKV;
  double dropScale = 1.0;

  bool rowValid(int64_t b, int64_t i) const {
    return !opts->usePaddingMask || i < lenQ[b];
  }
  /// Whether the block mask (if any) keeps the 128 x 128 tile of (i, j).
  bool tileKept(int64_t b, int64_t h, int64_t i, int64_t j) const {
    const NdArray *mask = opts->blockMask;
    if (!mask)
      return true;
    const Shape &m = mask->shape;
    int64_t n = j / 128;
    int64_t byte = ((b * m[1] + h) * m[2] + i / 128) * m[3] + n / 8;
    return (static_cast<int64_t>(mask->data[byte]) >> (n % 8)) & 1;
  }
  bool keep(int64_t b, int64_t i, int64_t j) const {
    int64_t sqB = g.sq, skvB = g.skv;
    if (opts->usePaddingMask) {
      if (j >= lenKV[b])
        return false;
      sqB = lenQ[b];
      skvB = lenKV[b];
    }
    int64_t shift = opts->diagonalAlignment == DiagonalAlignment::BottomRight
                        ? skvB - sqB
                        : 0;
    if (opts->rightBound && j > i + shift + *opts->rightBound)
      return false;
    if (opts->leftBound && j <= i + shift - *opts->leftBound)
      return false;
    return true;
  }
  double dropout(int64_t b, int64_t h, int64_t i, int64_t j) const {
    if (!opts->dropoutMask)
      return 1.0;
    return bcast4(*opts->dropoutMask, b, h, i, j) * dropScale;
  }
  double extra(int64_t b, int64_t h, int64_t i, int64_t j) const {
    double s = 0;
    if (opts->bias)
      s += bcast4(*opts->bias, b, h, i, j);
    if (opts->useAlibiMask)
      s += alibiSlope(h, g.hq) * static_cast<double>(j - i);
    return s;
  }
};

std::string checkQkv(const NdArray &q, const NdArray &k, const NdArray &v,
                     const SdpaOptions &opts, Ctx &ctx) {
  if (q.rank() != 4)
    return "q: must be rank 4 [B,H,S,D], got " + shapeString(q.shape);
  if (k.rank() != 4)
    return "k: must be rank 4 [B,H,S,D], got " + shapeString(k.shape);
  if (v.rank() != 4)
    return "v: must be rank 4 [B,H,S,D], got " + shapeString(v.shape);
  Geometry &g = ctx.g;
  g.b = q.shape[0];
  g.hq = q.shape[1];
  g.sq = q.shape[2];
  g.d = q.shape[3];
  g.hk = k.shape[1];
  g.skv = k.shape[2];
  g.hv = v.shape[1];
  g.dv = v.shape[3];
  if (k.shape[0] != g.b || v.shape[0] != g.b)
    return "k/v: batch must equal q's batch " + std::to_string(g.b);
  if (k.shape[3] != g.d)
    return "k: head dim " + std::to_string(k.shape[3]) +
           " must equal q's head dim " + std::to_string(g.d);
  if (v.shape[2] != g.skv)
    return "v: sequence length " + std::to_string(v.shape[2]) +
           " must equal k's " + std::to_string(g.skv);
  if (g.hk <= 0 || g.hq % g.hk != 0)
    return "k: head count " + std::to_string(g.hk) +
           " must divide q's head count " + std::to_string(g.hq);
  if (g.hv <= 0 || g.hq % g.hv != 0)
    return "v: head count " + std::to_string(g.hv) +
           " must divide q's head count " + std::to_string(g.hq);
  ctx.opts = &opts;
  if (std::string e = checkBroadcast4(opts.bias, g, "bias"); !e.empty())
    return e;
  if (std::string e = checkBroadcast4(opts.dropoutMask, g, "dropout_mask");
      !e.empty())
    return e;
  if (opts.usePaddingMask) {
    if (std::string e =
            readLengths(opts.seqLenQ, g.b, g.sq, "seq_len_q", ctx.lenQ);
        !e.empty())
      return e;
    if (std::string e =
            readLengths(opts.seqLenKV, g.b, g.skv, "seq_len_kv", ctx.lenKV);
        !e.empty())
      return e;
  }
  if (opts.leftBound && *opts.leftBound < 1)
    return "diagonal_band_left_bound: must be >= 1, got " +
           std::to_string(*opts.leftBound);
  if (opts.rightBound && *opts.rightBound < 0)
    return "diagonal_band_right_bound: must be >= 0, got " +
           std::to_string(*opts.rightBound);
  double p = opts.dropoutProbability;
  if (!(p >= 0.0 && p < 1.0))
    return "dropout: probability must be in [0, 1), got " + std::to_string(p);
  if (p > 0.0 && !opts.dropoutMask)
    return "dropout: probability > 0 needs an explicit dropout_mask (the "
           "Philox stream is not reproduced on the CPU)";
  ctx.dropScale = opts.dropoutScale ? *opts.dropoutScale : 1.0 / (1.0 - p);
  if (opts.blockMask &&
      opts.blockMask->shape !=
          Shape{g.b, g.hq, (g.sq + 127) / 128, ((g.skv + 127) / 128 + 7) / 8})
    return "block_mask: shape " + shapeString(opts.blockMask->shape) +
           " must be [B, Hq, ceil(Sq / 128), ceil(ceil(Skv / 128) / 8)]";
  if (opts.sinkToken && opts.sinkToken->size() != g.hq)
    return "sink_token: shape " + shapeString(opts.sinkToken->shape) +
           " must hold one logit per query head [1, " + std::to_string(g.hq) +
           ", 1, 1]";
  return "";
}

double dot(const double *a, const double *b, int64_t n) {
  double s = 0;
  for (int64_t i = 0; i < n; ++i)
    s += a[i] * b[i];
  return s;
}

/// Rounding hook: identity or fp8 rounding of value*scale.
struct Quant {
  bool enabled = false;
  DType type = DType::F8E4M3FN;
  double scale = 1.0;
  double apply(double x) const {
    return enabled ? roundTo(type, x * scale) : x;
  }
};

struct FwdArgs {
  double sFactor = 1.0;  // multiplies <q,k>
  Quant pQuant;          // applied to P' before P V
  double pvFactor = 1.0; // multiplies (P V)
};

struct FwdOut {
  NdArray o, stats, smax, ssum;
  double amaxP = 0, amaxO = 0;
};

/// Scores of one (b, h) row block with mask flags; returns row stats: the
/// max `mx` of the kept scores and `sum` of exp(s - mx).
///
/// NaN and Inf, as cuDNN's softmax treats them:
///  - a kept NaN score makes the row NaN (mx and sum NaN, so Stats, P and O
///    are NaN); std::max alone would skip it, and a row of NaN scores would
///    pass for a dead one;
///  - a row with no kept score (masked, padded), or whose kept scores are all
///    -inf, is dead (mx = -inf, sum = 0): O = 0, Stats = -inf, no gradient;
///  - a -inf score among finite ones drops that key (exp(-inf) = 0);
///  - a +inf score makes exp(inf - inf) NaN: the row is NaN.
void rowScores(const Ctx &ctx, const NdArray &q, const NdArray &k,
               double sFactor, int64_t b, int64_t h, int64_t i,
               std::vector<double> &s, std::vector<char> &kept, double &mx,
               double &sum) {
  const Geometry &g = ctx.g;
  int64_t hk = h / (g.hq / g.hk);
  const double *qi = &q.data[((b * g.hq + h) * g.sq + i) * g.d];
  mx = -kInf;
  bool anyNan = false;
  for (int64_t j = 0; j < g.skv; ++j) {
    kept[j] =
        ctx.rowValid(b, i) && ctx.keep(b, i, j) && ctx.tileKept(b, h, i, j);
    if (!kept[j])
      continue;
    const double *kj = &k.data[((b * g.hk + hk) * g.skv + j) * g.d];
    s[j] = sFactor * dot(qi, kj, g.d) + ctx.extra(b, h, i, j);
    anyNan |= std::isnan(s[j]);
    mx = std::max(mx, s[j]);
  }
  if (anyNan) {
    mx = std::numeric_limits<double>::quiet_NaN();
    sum = mx;
    return;
  }
  sum = 0;
  if (mx == -kInf)
    return;
  for (int64_t j = 0; j < g.skv; ++j)
    if (kept[j])
      sum += std::exp(s[j] - mx);
}

/// Folds head h's attention sink into a valid row's softmax statistics:
/// the sink is one more logit, so the max covers it and the sum gains its
/// exp (a row with no kept score then has max = sink, sum = 1, O = 0).
void addSink(const Ctx &ctx, int64_t b, int64_t h, int64_t i, double &mx,
             double &sum) {
  if (!ctx.opts->sinkToken || !ctx.rowValid(b, i) || std::isnan(mx))
    return;
  double sink = ctx.opts->sinkToken->data[h];
  double top = std::max(mx, sink);
  sum = (mx == -kInf ? 0.0 : sum * std::exp(mx - top)) + std::exp(sink - top);
  mx = top;
}

void fwdCore(const Ctx &ctx, const NdArray &q, const NdArray &k,
             const NdArray &v, const FwdArgs &args, FwdOut &out) {
  const Geometry &g = ctx.g;
  out.o = NdArray({g.b, g.hq, g.sq, g.dv});
  out.stats = NdArray({g.b, g.hq, g.sq, 1});
  out.smax = NdArray({g.b, g.hq, g.sq, 1});
  out.ssum = NdArray({g.b, g.hq, g.sq, 1});
  std::vector<double> amaxP(g.b * g.hq, 0.0), amaxO(g.b * g.hq, 0.0);
  detail::parallelForEach(g.b * g.hq, [&](int64_t task) {
    int64_t b = task / g.hq, h = task % g.hq;
    int64_t hv = h / (g.hq / g.hv);
    std::vector<double> s(g.skv), acc(g.dv);
    std::vector<char> kept(g.skv);
    for (int64_t i = 0; i < g.sq; ++i) {
      double mx, sum;
      rowScores(ctx, q, k, args.sFactor, b, h, i, s, kept, mx, sum);
      addSink(ctx, b, h, i, mx, sum);
      int64_t row = (b * g.hq + h) * g.sq + i;
      out.smax.data[row] = mx;
      out.ssum.data[row] = sum;
      out.stats.data[row] = mx == -kInf ? -kInf : mx + std::log(sum);
      if (mx == -kInf)
        continue; // dead row: O stays 0
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t j = 0; j < g.skv; ++j) {
        if (!kept[j])
          continue;
        double p = std::exp(s[j] - mx) / sum * ctx.dropout(b, h, i, j);
        amaxP[task] = std::max(amaxP[task], std::fabs(p));
        p = args.pQuant.apply(p);
        const double *vj = &v.data[((b * g.hv + hv) * g.skv + j) * g.dv];
        for (int64_t d = 0; d < g.dv; ++d)
          acc[d] += p * vj[d];
      }
      for (int64_t d = 0; d < g.dv; ++d) {
        double x = acc[d] * args.pvFactor;
        out.o.data[row * g.dv + d] = x;
        amaxO[task] = std::max(amaxO[task], std::fabs(x));
      }
    }
  });
  out.amaxP = *std::max_element(amaxP.begin(), amaxP.end());
  out.amaxO = *std::max_element(amaxO.begin(), amaxO.end());
}

struct BwdArgs {
  const NdArray *qS, *kS;
  double sFactor = 1.0;
  const NdArray *oD, *dOD; // D = rowsum(oD dOD) dFactor
  double dFactor = 1.0;
  const NdArray *dOdp, *vdp; // dP' = <dOdp_i, vdp_j> dpFactor
  double dpFactor = 1.0;
  const NdArray *dOdv; // dV = sum P8 dOdv * dvFactor
  double dvFactor = 1.0;
  const NdArray *kdq; // dQ = sum dS8 kdq * dqFactor
  double dqFactor = 1.0;
  const NdArray *qdk; // dK = sum dS8 qdk * dkFactor
  double dkFactor = 1.0;
  Quant pQuant;          // P' -> P8 (used for dV)
  double dsFactor = 1.0; // dS8 = dsQuant(dS * dsFactor)
  Quant dsQuant;
  bool wantDBias = false;
};

struct BwdOut {
  NdArray dQ, dK, dV, dBias, dSink;
  double amaxDS = 0;
};

void bwdCore(const Ctx &ctx, const NdArray &stats, const BwdArgs &a,
             BwdOut &out) {
  const Geometry &g = ctx.g;
  int64_t groupK = g.hq / g.hk, groupV = g.hq / g.hv;
  out.dQ = NdArray({g.b, g.hq, g.sq, g.d});
  NdArray dKFull({g.b, g.hq, g.skv, g.d}), dVFull({g.b, g.hq, g.skv, g.dv});
  NdArray dSFull;
  if (a.wantDBias)
    dSFull = NdArray({g.b, g.hq, g.sq, g.skv});
  std::vector<double> amaxDS(g.b * g.hq, 0.0);
  // The sink's gradient per (b, h) task: the sink's probability in each row
  // times -D (its logit has no value row), summed over rows and batches.
  const NdArray *sink = ctx.opts->sinkToken;
  std::vector<double> dSinkPart(sink ? g.b * g.hq : 0, 0.0);
  detail::parallelForEach(g.b * g.hq, [&](int64_t task) {
    int64_t b = task / g.hq, h = task % g.hq;
    int64_t hk = h / groupK, hv = h / groupV;
    std::vector<double> s(g.skv);
    std::vector<char> kept(g.skv);
    for (int64_t i = 0; i < g.sq; ++i) {
      double mx, sum;
      rowScores(ctx, *a.qS, *a.kS, a.sFactor, b, h, i, s, kept, mx, sum);
      int64_t row = (b * g.hq + h) * g.sq + i;
      double lse = stats.data[row];
      double dRow = a.dFactor * dot(&a.oD->data[row * g.dv],
                                    &a.dOD->data[row * g.dv], g.dv);
      if (sink && ctx.rowValid(b, i) && !std::isnan(mx))
        dSinkPart[task] -= std::exp(sink->data[h] - lse) * dRow;
      if (mx == -kInf)
        continue; // dead row: no gradient
      const double *dOdpI = &a.dOdp->data[row * g.dv];
      const double *dOdvI = &a.dOdv->data[row * g.dv];
      double *dQI = &out.dQ.data[row * g.d];
      for (int64_t j = 0; j < g.skv; ++j) {
        if (!kept[j])
          continue;
        double p = std::exp(s[j] - lse);
        double m = ctx.dropout(b, h, i, j);
        double p8 = a.pQuant.apply(p * m);
        double *dVJ = &dVFull.data[((b * g.hq + h) * g.skv + j) * g.dv];
        for (int64_t d = 0; d < g.dv; ++d)
          dVJ[d] += p8 * dOdvI[d] * a.dvFactor;
        const double *vj = &a.vdp->data[((b * g.hv + hv) * g.skv + j) * g.dv];
        double dp = a.dpFactor * dot(dOdpI, vj, g.dv);
        double dS = p * (m * dp - dRow);
        if (a.wantDBias)
          dSFull.data[row * g.skv + j] = dS;
        double dSs = dS * a.dsFactor;
        amaxDS[task] = std::max(amaxDS[task], std::fabs(dSs));
        double dS8 = a.dsQuant.apply(dSs);
        const double *kj = &a.kdq->data[((b * g.hk + hk) * g.skv + j) * g.d];
        for (int64_t d = 0; d < g.d; ++d)
          dQI[d] += dS8 * kj[d] * a.dqFactor;
        const double *qi = &a.qdk->data[row * g.d];
        double *dKJ = &dKFull.data[((b * g.hq + h) * g.skv + j) * g.d];
        for (int64_t d = 0; d < g.d; ++d)
          dKJ[d] += dS8 * qi[d] * a.dkFactor;
      }
    }
  });
  out.amaxDS = *std::max_element(amaxDS.begin(), amaxDS.end());
  if (sink) {
    out.dSink = NdArray({1, g.hq, 1, 1});
    for (int64_t task = 0; task < g.b * g.hq; ++task)
      out.dSink.data[task % g.hq] += dSinkPart[task];
  }
  // Reduce the per-query-head buffers onto the kv heads.
  out.dK = NdArray({g.b, g.hk, g.skv, g.d});
  out.dV = NdArray({g.b, g.hv, g.skv, g.dv});
  for (int64_t b = 0; b < g.b; ++b)
    for (int64_t h = 0; h < g.hq; ++h) {
      int64_t n = g.skv * g.d, src = (b * g.hq + h) * n,
              dst = (b * g.hk + h / groupK) * n;
      for (int64_t x = 0; x < n; ++x)
        out.dK.data[dst + x] += dKFull.data[src + x];
      n = g.skv * g.dv;
      src = (b * g.hq + h) * n;
      dst = (b * g.hv + h / groupV) * n;
      for (int64_t x = 0; x < n; ++x)
        out.dV.data[dst + x] += dVFull.data[src + x];
    }
  if (a.wantDBias) {
    const Shape &bs = ctx.opts->bias->shape;
    out.dBias = NdArray(bs);
    for (int64_t b = 0; b < g.b; ++b)
      for (int64_t h = 0; h < g.hq; ++h)
        for (int64_t i = 0; i < g.sq; ++i)
          for (int64_t j = 0; j < g.skv; ++j) {
            int64_t bb = bs[0] == 1 ? 0 : b, hh = bs[1] == 1 ? 0 : h,
                    ii = bs[2] == 1 ? 0 : i, jj = bs[3] == 1 ? 0 : j;
            out.dBias.data[((bb * bs[1] + hh) * bs[2] + ii) * bs[3] + jj] +=
                dSFull.data[((b * g.hq + h) * g.sq + i) * g.skv + j];
          }
  }
}

/// The largest magnitude in `a`; NaN elements are skipped (std::max keeps the
/// running value), +-inf counts as inf.
double amaxOf(const NdArray &a) {
  double m = 0;
  for (double x : a.data)
    m = std::max(m, std::fabs(x));
  return m;
}

void scaleInPlace(NdArray &a, double s) {
  for (double &x : a.data)
    x *= s;
}

std::string checkSameShape(const NdArray &a, const Shape &want,
                           const char *port) {
  if (a.shape != want)
    return std::string(port) + ": shape " + shapeString(a.shape) + " must be " +
           shapeString(want);
  return "";
}

std::string checkBwdShapes(const Ctx &ctx, const NdArray &o, const NdArray &dO,
                           const NdArray &stats) {
  const Geometry &g = ctx.g;
  if (auto e = checkSameShape(o, {g.b, g.hq, g.sq, g.dv}, "o"); !e.empty())
    return e;
  if (auto e = checkSameShape(dO, {g.b, g.hq, g.sq, g.dv}, "dO"); !e.empty())
    return e;
  if (stats.size() != g.b * g.hq * g.sq)
    return "stats: shape " + shapeString(stats.shape) + " must be " +
           shapeString({g.b, g.hq, g.sq, 1});
  return "";
}

/// checkQkv, then the shapes of the tensors only a backward reads.
std::string checkBwdInputs(const NdArray &q, const NdArray &k, const NdArray &v,
                           const NdArray &o, const NdArray &dO,
                           const NdArray &stats, const SdpaOptions &opts,
                           Ctx &ctx) {
  if (std::string e = checkQkv(q, k, v, opts, ctx); !e.empty())
    return e;
  return checkBwdShapes(ctx, o, dO, stats);
}

bool isFp8(DType t) { return t == DType::F8E4M3FN || t == DType::F8E5M2; }

/// The forward tensors every sdpa variant returns (its result type differs
/// only in the amax fields).
template <typename Result> void moveForwardTensors(FwdOut &r, Result &out) {
  out.o = std::move(r.o);
  out.stats = std::move(r.stats);
  out.scoreMax = std::move(r.smax);
  out.scoreSumExp = std::move(r.ssum);
}

/// dQ, dK and dV (dBias is not in every result type).
template <typename Result> void moveGradients(BwdOut &r, Result &out) {
  out.dQ = std::move(r.dQ);
  out.dK = std::move(r.dK);
  out.dV = std::move(r.dV);
}

/// The amax of dQ, dK and dV, before any output scaling.
template <typename Result>
void recordGradientAmax(const BwdOut &r, Result &out) {
  out.amaxDQ = amaxOf(r.dQ);
  out.amaxDK = amaxOf(r.dK);
  out.amaxDV = amaxOf(r.dV);
}

/// Backward operands when every product reads the plain q, k, v, o, dO (the
/// mxfp8 backward swaps some for their transposed copies).
BwdArgs plainBwdOperands(const NdArray &q, const NdArray &k, const NdArray &v,
                         const NdArray &o, const NdArray &dO) {
  BwdArgs a;
  a.qS = &q;
  a.kS = &k;
  a.oD = &o;
  a.dOD = &dO;
  a.dOdp = &dO;
  a.vdp = &v;
  a.dOdv = &dO;
  a.kdq = &k;
  a.qdk = &q;
  return a;
}

/// MXFP8 shares one e8m0 descale among each 32 elements along the blocked axis.
constexpr int64_t kMxBlockSize = 32;

/// One mxfp8 operand to dequantize: data, its descales, the blocked axis.
struct MxOperand {
  const NdArray &data;
  const NdArray &descale;
  int64_t axis;
  NdArray &out;
  const char *port;
};

/// Dequantizes the operands in order; the first error wins.
std::string dequantizeMx(std::initializer_list<MxOperand> operands) {
  for (const MxOperand &m : operands)
    if (std::string e = blockDequantize(m.data, m.descale, m.axis, kMxBlockSize,
                                        m.out, m.port);
        !e.empty())
      return e;
  return "";
}

} // namespace

std::string graph::ref::pagedCacheGather(const NdArray &container,
                                         const NdArray &table,
                                         const NdArray *seqLen, int64_t maxSeq,
                                         NdArray &out) {
  if (container.rank() != 4 || table.rank() != 4 ||
      (seqLen && seqLen->rank() != 4))
    return "paged cache: container, page table and seq_len_kv must have rank "
           "4";
  int64_t pages = container.shape[0], heads = container.shape[1],
          pageSize = container.shape[2], d = container.shape[3];
  int64_t batch = table.shape[0], perBatch = table.shape[2];
  if (pageSize <= 0 || (maxSeq + pageSize - 1) / pageSize > perBatch)
    return "paged cache: the page table has " + std::to_string(perBatch) +
           " pages per batch, too few for " + std::to_string(maxSeq) +
           " positions of page size " + std::to_string(pageSize);
  out = NdArray({batch, heads, maxSeq, d});
  for (int64_t b = 0; b < batch; ++b) {
    double valid =
        seqLen ? seqLen->data[b % seqLen->size()] : static_cast<double>(maxSeq);
    for (int64_t s = 0; s < maxSeq && s < valid; ++s) {
      double entry = table.data[b * perBatch + s / pageSize];
      auto page = static_cast<int64_t>(entry);
      if (page < 0 || page >= pages)
        return "paged cache: page table entry " + std::to_string(page) +
               " (batch " + std::to_string(b) + ", position " +
               std::to_string(s) + ") is outside the container's " +
               std::to_string(pages) + " pages";
      for (int64_t h = 0; h < heads; ++h) {
        const double *src =
            &container.data[((page * heads + h) * pageSize + s % pageSize) * d];
        double *dst = &out.data[((b * heads + h) * maxSeq + s) * d];
        std::copy(src, src + d, dst);
      }
    }
  }
  return "";
}

namespace {

/// Ragged layout of a rank-4 tensor: its strides and the elements its dims
/// and strides span (the buffer the offsets index).
struct RaggedLayout {
  Shape strides;
  int64_t span = 0;

  RaggedLayout(const Shape &shape, const Shape &given)
      : strides(given.empty() ? rowMajorStrides(shape) : given) {
    span = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 0)
        span = 0;
      if (span)
        span += (shape[i] - 1) * strides[i];
    }
  }

  int64_t address(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return b * strides[0] + h * strides[1] + s * strides[2] + d * strides[3];
  }
};

/// Calls `visit(b, h, s, d, address)` for each packed position of a ragged
/// tensor of `shape` (the first seqLen[b] positions of batch b, which
/// starts at offsets[b]); an address past the span is an error.
std::string forEachRagged(const Shape &shape, const RaggedLayout &layout,
                          const NdArray &offsets, const NdArray &seqLen,
                          const std::string &port,
                          const std::function<void(int64_t, int64_t)> &visit) {
  if (shape.size() != 4 || layout.strides.size() != 4)
    return "ragged_offset_" + port + ": " + port + " must have rank 4";
  int64_t batch = shape[0], heads = shape[1], seq = shape[2], d = shape[3];
  if (offsets.size() < batch + 1)
    return "ragged_offset_" + port + " has " + std::to_string(offsets.size()) +
           " offsets, fewer than the " + std::to_string(batch + 1) +
           " of batch " + std::to_string(batch) + " + 1";
  if (seqLen.size() == 0)
    return "ragged_offset_" + port + " needs the padding mask's lengths";
  for (int64_t b = 0; b < batch; ++b) {
    auto start = static_cast<int64_t>(offsets.data[b]);
    int64_t valid = std::min<int64_t>(
        seq, static_cast<int64_t>(seqLen.data[b % seqLen.size()]));
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t s = 0; s < valid; ++s)
        for (int64_t i = 0; i < d; ++i) {
          int64_t at = start + layout.address(0, h, s, i);
          if (at < 0 || at >= layout.span)
            return "ragged_offset_" + port + ": batch " + std::to_string(b) +
                   " (offset " + std::to_string(start) + ", position " +
                   std::to_string(s) + ") addresses element " +
                   std::to_string(at) + ", outside the " +
                   std::to_string(layout.span) + " elements " + port +
                   "'s dims and strides span";
          visit(((b * heads + h) * seq + s) * d + i, at);
        }
  }
  return "";
}

/// `value` laid out in memory by `layout`: the buffer it was read from.
std::vector<double> memoryImage(const NdArray &value,
                                const RaggedLayout &layout) {
  std::vector<double> image(layout.span, 0.0);
  const Shape &n = value.shape;
  int64_t flat = 0;
  for (int64_t b = 0; b < n[0]; ++b)
    for (int64_t h = 0; h < n[1]; ++h)
      for (int64_t s = 0; s < n[2]; ++s)
        for (int64_t d = 0; d < n[3]; ++d)
          image[layout.address(b, h, s, d)] = value.data[flat++];
  return image;
}

} // namespace

std::string graph::ref::raggedUnpack(const NdArray &value, const Shape &strides,
                                     const NdArray &offsets,
                                     const NdArray &seqLen,
                                     const std::string &port, NdArray &out) {
  if (value.rank() != 4)
    return "ragged_offset_" + port + ": " + port + " must have rank 4";
  RaggedLayout layout(value.shape, strides);
  std::vector<double> image = memoryImage(value, layout);
  out = NdArray(value.shape);
  return forEachRagged(
      value.shape, layout, offsets, seqLen, port,
      [&](int64_t flat, int64_t at) { out.data[flat] = image[at]; });
}

std::string graph::ref::raggedPack(const NdArray &padded, const Shape &strides,
                                   const NdArray &offsets,
                                   const NdArray &seqLen,
                                   const std::string &port, NdArray &out,
                                   std::vector<char> *written) {
  if (padded.rank() != 4)
    return "ragged_offset_" + port + ": " + port + " must have rank 4";
  RaggedLayout layout(padded.shape, strides);
  std::vector<double> image(layout.span, 0.0);
  std::vector<char> packed(written ? layout.span : 0, 0);
  std::string error = forEachRagged(padded.shape, layout, offsets, seqLen, port,
                                    [&](int64_t flat, int64_t at) {
                                      image[at] = padded.data[flat];
                                      if (written)
                                        packed[at] = 1;
                                    });
  if (!error.empty())
    return error;
  const Shape &n = padded.shape;
  out = NdArray(n);
  if (written)
    written->assign(out.data.size(), 0);
  int64_t flat = 0;
  for (int64_t b = 0; b < n[0]; ++b)
    for (int64_t h = 0; h < n[1]; ++h)
      for (int64_t s = 0; s < n[2]; ++s)
        for (int64_t d = 0; d < n[3]; ++d, ++flat) {
          int64_t at = layout.address(b, h, s, d);
          out.data[flat] = image[at];
          if (written)
            (*written)[flat] = packed[at];
        }
  return "";
}

std::string
graph::ref::applyLegacyMaskFlags(SdpaOptions &opts, bool causalMask,
                                 bool causalMaskBottomRight,
                                 std::optional<int64_t> slidingWindowLength) {
  if (causalMask && causalMaskBottomRight)
    return "causal_mask and causal_mask_bottom_right are mutually exclusive";
  if (causalMask || causalMaskBottomRight) {
    opts.diagonalAlignment = causalMask ? DiagonalAlignment::TopLeft
                                        : DiagonalAlignment::BottomRight;
    if (!opts.rightBound)
      opts.rightBound = 0;
  }
  if (slidingWindowLength)
    opts.leftBound = *slidingWindowLength;
  return "";
}

std::string graph::ref::sdpaForward(const NdArray &q, const NdArray &k,
                                    const NdArray &v, const SdpaOptions &opts,
                                    SdpaForwardResult &out) {
  Ctx ctx;
  if (std::string e = checkQkv(q, k, v, opts, ctx); !e.empty())
    return e;
  FwdOut r;
  FwdArgs args;
  args.sFactor = opts.attnScale;
  fwdCore(ctx, q, k, v, args, r);
  moveForwardTensors(r, out);
  return "";
}

std::string graph::ref::sdpaBackward(const NdArray &q, const NdArray &k,
                                     const NdArray &v, const NdArray &o,
                                     const NdArray &dO, const NdArray &stats,
                                     const SdpaOptions &opts,
                                     SdpaBackwardResult &out) {
  Ctx ctx;
  if (std::string e = checkBwdInputs(q, k, v, o, dO, stats, opts, ctx);
      !e.empty())
    return e;
  BwdArgs a = plainBwdOperands(q, k, v, o, dO);
  a.sFactor = opts.attnScale;
  a.dqFactor = opts.attnScale;
  a.dkFactor = opts.attnScale;
  a.wantDBias = opts.bias != nullptr;
  BwdOut r;
  bwdCore(ctx, stats, a, r);
  moveGradients(r, out);
  out.dBias = std::move(r.dBias);
  out.dSinkToken = std::move(r.dSink);
  return "";
}

std::string graph::ref::sdpaFp8Forward(const NdArray &q, const NdArray &k,
                                       const NdArray &v,
                                       const SdpaFp8ForwardScales &sc,
                                       DType pType, const SdpaOptions &opts,
                                       SdpaFp8ForwardResult &out) {
  if (!isFp8(pType))
    return std::string("sdpa_fp8: P type must be an fp8 type (Q's dtype), "
                       "got ") +
           dtypeName(pType);
  Ctx ctx;
  if (std::string e = checkQkv(q, k, v, opts, ctx); !e.empty())
    return e;
  FwdArgs args;
  args.sFactor = opts.attnScale * sc.descaleQ * sc.descaleK;
  args.pQuant = {true, pType, sc.scaleS};
  args.pvFactor = sc.descaleS * sc.descaleV;
  FwdOut r;
  fwdCore(ctx, q, k, v, args, r);
  out.amaxS = r.amaxP;
  out.amaxO = r.amaxO;
  scaleInPlace(r.o, sc.scaleO);
  moveForwardTensors(r, out);
  return "";
}

std::string graph::ref::sdpaFp8Backward(const NdArray &q, const NdArray &k,
                                        const NdArray &v, const NdArray &o,
                                        const NdArray &dO, const NdArray &stats,
                                        const SdpaFp8BackwardScales &sc,
                                        DType pType, DType dPType,
                                        const SdpaOptions &opts,
                                        SdpaFp8BackwardResult &out) {
  if (!isFp8(pType) || !isFp8(dPType))
    return "sdpa_fp8_backward: P and dP types must be fp8 types";
  if (opts.dropoutMask || opts.dropoutProbability > 0)
    return "sdpa_fp8_backward: dropout is not supported (cuDNN fp8 backward "
           "has no dropout)";
  Ctx ctx;
  if (std::string e = checkBwdInputs(q, k, v, o, dO, stats, opts, ctx);
      !e.empty())
    return e;
  BwdArgs a = plainBwdOperands(q, k, v, o, dO);
  a.sFactor = opts.attnScale * sc.descaleQ * sc.descaleK;
  a.dFactor = sc.descaleDO * sc.descaleO;
  a.dpFactor = sc.descaleDO * sc.descaleV;
  a.dvFactor = sc.descaleS * sc.descaleDO;
  a.pQuant = {true, pType, sc.scaleS};
  a.dsFactor = opts.attnScale;
  a.dsQuant = {true, dPType, sc.scaleDP};
  a.dqFactor = sc.descaleDP * sc.descaleK;
  a.dkFactor = sc.descaleDP * sc.descaleQ;
  a.wantDBias = opts.bias != nullptr;
  BwdOut r;
  bwdCore(ctx, stats, a, r);
  out.amaxDP = r.amaxDS;
  recordGradientAmax(r, out);
  scaleInPlace(r.dQ, sc.scaleDQ);
  scaleInPlace(r.dK, sc.scaleDK);
  scaleInPlace(r.dV, sc.scaleDV);
  moveGradients(r, out);
  out.dBias = std::move(r.dBias);
  return "";
}

std::string graph::ref::blockDequantize(const NdArray &x,
                                        const NdArray &descale, int64_t axis,
                                        int64_t blockSize, NdArray &out,
                                        const char *port) {
  int64_t rank = x.rank();
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return std::string(port) + ": block axis out of range";
  if (blockSize <= 0)
    return std::string(port) + ": block size must be positive";
  if (descale.rank() != rank)
    return std::string(port) + ": descale rank " +
           std::to_string(descale.rank()) + " must equal the data rank " +
           std::to_string(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t need =
        d == axis ? (x.shape[d] + blockSize - 1) / blockSize : x.shape[d];
    if (descale.shape[d] < need)
      return std::string(port) + ": descale " + shapeString(descale.shape) +
             " too small for data " + shapeString(x.shape) + " (dim " +
             std::to_string(d) + " needs >= " + std::to_string(need) + ")";
  }
  out = NdArray(x.shape);
  Shape xs = rowMajorStrides(x.shape), ds = rowMajorStrides(descale.shape);
  for (int64_t e = 0; e < x.size(); ++e) {
    int64_t rem = e, off = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t idx = rem / xs[d];
      rem %= xs[d];
      off += (d == axis ? idx / blockSize : idx) * ds[d];
    }
    out.data[e] = x.data[e] * descale.data[off];
  }
  return "";
}

std::string graph::ref::sdpaMxfp8Forward(
    const NdArray &q, const NdArray &k, const NdArray &v,
    const NdArray &descaleQ, const NdArray &descaleK, const NdArray &descaleV,
    const SdpaOptions &opts, SdpaMxfp8ForwardResult &out,
    const MxPQuant &pQuant) {
  NdArray qd, kd, vd;
  if (std::string e = dequantizeMx({{q, descaleQ, 3, qd, "descale_q"},
                                    {k, descaleK, 3, kd, "descale_k"},
                                    {v, descaleV, 2, vd, "descale_v"}});
      !e.empty())
    return e;
  Ctx ctx;
  if (std::string e = checkQkv(qd, kd, vd, opts, ctx); !e.empty())
    return e;
  FwdArgs args;
  args.sFactor = opts.attnScale;
  if (pQuant.enabled) {
    if (!(pQuant.scale > 0))
      return "sdpa_mxfp8: P quantization scale must be positive";
    args.pQuant = {true, pQuant.type, pQuant.scale};
    args.pvFactor = 1.0 / pQuant.scale;
  }
  FwdOut r;
  fwdCore(ctx, qd, kd, vd, args, r);
  out.amaxO = r.amaxO;
  moveForwardTensors(r, out);
  return "";
}

std::string graph::ref::sdpaMxfp8Backward(const SdpaMxfp8BackwardInputs &in,
                                          const SdpaOptions &opts,
                                          SdpaMxfp8BackwardResult &out) {
  struct Port {
    const NdArray *p;
    const char *name;
  } ports[] = {{in.q, "q"},
               {in.qT, "q_T"},
               {in.k, "k"},
               {in.kT, "k_T"},
               {in.v, "v"},
               {in.oF16, "o_f16"},
               {in.dOF16, "dO_f16"},
               {in.dO, "dO"},
               {in.dOT, "dO_T"},
               {in.stats, "stats"},
               {in.descaleQ, "descale_q"},
               {in.descaleQT, "descale_q_T"},
               {in.descaleK, "descale_k"},
               {in.descaleKT, "descale_k_T"},
               {in.descaleV, "descale_v"},
               {in.descaleDO, "descale_dO"},
               {in.descaleDOT, "descale_dO_T"}};
  for (const Port &p : ports)
    if (!p.p)
      return std::string(p.name) + ": required by sdpa_mxfp8_backward";
  if (opts.dropoutMask || opts.dropoutProbability > 0)
    return "sdpa_mxfp8_backward: dropout is not supported";
  if (in.qT->shape != in.q->shape)
    return "q_T: shape must equal q's (logical dims)";
  if (in.kT->shape != in.k->shape)
    return "k_T: shape must equal k's (logical dims)";
  if (in.dOT->shape != in.dO->shape)
    return "dO_T: shape must equal dO's (logical dims)";
  NdArray q, qT, k, kT, v, dO, dOT;
  if (std::string e =
          dequantizeMx({{*in.q, *in.descaleQ, 3, q, "descale_q"},
                        {*in.qT, *in.descaleQT, 2, qT, "descale_q_T"},
                        {*in.k, *in.descaleK, 3, k, "descale_k"},
                        {*in.kT, *in.descaleKT, 2, kT, "descale_k_T"},
                        {*in.v, *in.descaleV, 2, v, "descale_v"},
                        {*in.dO, *in.descaleDO, 3, dO, "descale_dO"},
                        {*in.dOT, *in.descaleDOT, 2, dOT, "descale_dO_T"}});
      !e.empty())
    return e;
  Ctx ctx;
  if (std::string e =
          checkBwdInputs(q, k, v, *in.oF16, *in.dOF16, *in.stats, opts, ctx);
      !e.empty())
    return e;
  if (dO.shape != in.oF16->shape)
    return "dO: shape must equal o_f16's";
  // o and dO enter D = rowsum(o dO) in f16; dV, dQ and dK read the
  // transposed (differently blocked) copies.
  BwdArgs a = plainBwdOperands(q, k, v, *in.oF16, dO);
  a.dOD = in.dOF16;
  a.dOdv = &dOT;
  a.kdq = &kT;
  a.qdk = &qT;
  a.sFactor = opts.attnScale;
  a.dsFactor = opts.attnScale;
  BwdOut r;
  bwdCore(ctx, *in.stats, a, r);
  recordGradientAmax(r, out);
  moveGradients(r, out);
  return "";
}
