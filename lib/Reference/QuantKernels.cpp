//===- QuantKernels.cpp - block-scale quantization and MoE matmul ---------===//
//
// See QuantKernels.h for the semantics and sources.
//
//===----------------------------------------------------------------------===//

#include "GraphDialect/Reference/QuantKernels.h"
#include "KernelsInternal.h"

#include <algorithm>
#include <cmath>
#include <functional>

using namespace graph;
using namespace graph::ref;

namespace {

int emaxOf(DType t) {
  switch (t) {
  case DType::F8E4M3FN:
    return 8;
  case DType::F8E5M2:
    return 15;
  case DType::F4E2M1FN:
    return 2;
  default:
    return 0;
  }
}

double e8m0Clamp(int e) {
  return std::ldexp(1.0, std::max(-127, std::min(127, e)));
}

/// Rounds to `t`, saturating finite overflow at the max finite value.
double roundSat(DType t, double x) {
  if (std::isnan(x))
    return x;
  double m = maxFiniteValue(t);
  if (m > 0)
    x = std::max(-m, std::min(m, x));
  return roundTo(t, x);
}

/// [rows, K] view of a token-like tensor ([1,M,K] or [M,K]).
std::string rows2d(const NdArray *a, const char *port, int64_t &rows,
                   int64_t &cols) {
  if (!a)
    return std::string(port) + ": required";
  Shape s = a->shape;
  if (s.size() == 3 && s[0] == 1)
    s.erase(s.begin());
  if (s.size() != 2)
    return std::string(port) + ": must be [1,M,K] or [M,K], got " +
           shapeString(a->shape);
  rows = s[0];
  cols = s[1];
  return "";
}

std::string readInts(const NdArray *a, const char *port,
                     std::vector<int64_t> &out) {
  if (!a)
    return std::string(port) + ": required";
  out.clear();
  for (double x : a->data) {
    if (x != std::floor(x))
      return std::string(port) + ": values must be integers";
    out.push_back(static_cast<int64_t>(x));
  }
  return "";
}

/// Decodes first_token_offset into G+1 boundaries.
std::string decodeOffsets(const NdArray *off, int64_t numExperts,
                          int64_t capacity, std::vector<int64_t> &bounds) {
  if (auto e = readInts(off, "first_token_offset", bounds); !e.empty())
    return e;
  int64_t len = static_cast<int64_t>(bounds.size());
  if (numExperts <= 0)
    return "weight: expert count must be positive";
  bool explicitFormat;
  if (numExperts == 1) {
    if (len < 2)
      return "first_token_offset: E == 1 needs at least two boundaries";
    explicitFormat = true;
  } else if (len % numExperts == 1) {
    explicitFormat = true;
  } else if (len % numExperts == 0 && len > 0) {
    explicitFormat = false;
  } else {
    return "first_token_offset: length " + std::to_string(len) +
           " must be B*E+1 (explicit) or B*E (deprecated implicit), E = " +
           std::to_string(numExperts);
  }
  if (!explicitFormat)
    bounds.push_back(capacity);
  if (bounds.front() != 0)
    return "first_token_offset: the first boundary must be 0";
  for (size_t i = 1; i < bounds.size(); ++i)
    if (bounds[i] < bounds[i - 1])
      return "first_token_offset: boundaries must be nondecreasing";
  if (bounds.back() > capacity)
    return "first_token_offset: final boundary " +
           std::to_string(bounds.back()) + " exceeds the routed capacity " +
           std::to_string(capacity);
  return "";
}

} // namespace

double graph::ref::maxFiniteValue(DType type) {
  switch (type) {
  case DType::F8E4M3FN:
    return 448.0;
  case DType::F8E5M2:
    return 57344.0;
  case DType::F4E2M1FN:
    return 6.0;
  case DType::F8E8M0FNU:
    return std::ldexp(1.0, 127);
  case DType::F16:
    return 65504.0;
  case DType::BF16:
    return 3.3895313892515355e38;
  case DType::F32:
    return 3.4028234663852886e38;
  case DType::F64:
    return 1.7976931348623157e308;
  default:
    return 0.0;
  }
}

std::string graph::ref::blockScaleQuantize(const NdArray &x,
                                           const BlockScaleQuantizeOptions &o,
                                           NdArray &y, NdArray &scale) {
  int64_t rank = x.rank();
  if (rank == 0)
    return "input: must have rank >= 1";
  int64_t axis = o.axis < 0 ? o.axis + rank : o.axis;
  if (axis < 0 || axis >= rank)
    return "axis: " + std::to_string(o.axis) + " is out of range for rank " +
           std::to_string(rank);
  if (o.blockSize <= 0)
    return "block_size: must be positive";
  if (maxFiniteValue(o.valueType) <= 0)
    return std::string("Y: value type must be a float type, got ") +
           dtypeName(o.valueType);
  if (maxFiniteValue(o.scaleType) <= 0)
    return std::string("scale: scale type must be a float type, got ") +
           dtypeName(o.scaleType);
  bool e8m0 = o.scaleType == DType::F8E8M0FNU;
  if (e8m0 && o.rounding == ScaleRounding::OcpFloor && emaxOf(o.valueType) == 0)
    return std::string("Y: E8M0 (MX) scaling needs an fp8/fp4 value type, "
                       "got ") +
           dtypeName(o.valueType);
  Shape sShape = x.shape;
  int64_t n = x.shape[axis];
  sShape[axis] = (n + o.blockSize - 1) / o.blockSize;
  y = NdArray(x.shape);
  scale = NdArray(sShape);
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= x.shape[d];
  int64_t outer = x.size() / std::max<int64_t>(1, n * inner);
  int64_t nb = sShape[axis];
  double maxVal = maxFiniteValue(o.valueType);
  for (int64_t a = 0; a < outer; ++a)
    for (int64_t blk = 0; blk < nb; ++blk)
      for (int64_t in = 0; in < inner; ++in) {
        int64_t lo = blk * o.blockSize, hi = std::min(n, lo + o.blockSize);
        double amax = 0;
        for (int64_t i = lo; i < hi; ++i) {
          double v = std::fabs(x.data[(a * n + i) * inner + in]);
          if (!std::isnan(v))
            amax = std::max(amax, v);
        }
        double s;
        if (e8m0) {
          if (amax == 0 || std::isinf(amax))
            s = amax == 0 ? std::ldexp(1.0, -127) : std::ldexp(1.0, 127);
          else if (o.rounding == ScaleRounding::OcpFloor)
            s = e8m0Clamp(std::ilogb(amax) - emaxOf(o.valueType));
          else
            s = e8m0Clamp(
                static_cast<int>(std::ceil(std::log2(amax / maxVal))));
        } else {
          s = roundSat(o.scaleType, amax / maxVal);
        }
        scale.data[(a * nb + blk) * inner + in] = s;
        for (int64_t i = lo; i < hi; ++i) {
          int64_t idx = (a * n + i) * inner + in;
          y.data[idx] =
              roundSat(o.valueType, s == 0 ? x.data[idx] : x.data[idx] / s);
        }
      }
  return "";
}

std::string
graph::ref::blockScaleDequantize(const NdArray &x, const NdArray &descale,
                                 const std::vector<int64_t> &blockSize,
                                 bool isNegativeScale, NdArray &out) {
  int64_t rank = x.rank();
  if (blockSize.empty() || static_cast<int64_t>(blockSize.size()) > rank)
    return "block_size: needs 1 to rank(input) values";
  if (descale.rank() != rank)
    return "descale: rank " + std::to_string(descale.rank()) +
           " must equal the input rank " + std::to_string(rank);
  std::vector<int64_t> block(rank, 1);
  for (size_t i = 0; i < blockSize.size(); ++i) {
    if (blockSize[i] <= 0)
      return "block_size: values must be positive";
    block[rank - blockSize.size() + i] = blockSize[i];
  }
  for (int64_t d = 0; d < rank; ++d) {
    int64_t need = (x.shape[d] + block[d] - 1) / block[d];
    if (descale.shape[d] < need)
      return "descale: shape " + shapeString(descale.shape) +
             " too small for input " + shapeString(x.shape) + " (dim " +
             std::to_string(d) + " needs >= " + std::to_string(need) + ")";
  }
  Shape xs = rowMajorStrides(x.shape), ds = rowMajorStrides(descale.shape);
  out = NdArray(x.shape);
  double sign = isNegativeScale ? -1.0 : 1.0;
  for (int64_t e = 0; e < x.size(); ++e) {
    int64_t rem = e, off = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t idx = rem / xs[d];
      rem %= xs[d];
      off += (idx / block[d]) * ds[d];
    }
    out.data[e] = x.data[e] * sign * descale.data[off];
  }
  return "";
}

std::string graph::ref::moeGroupedMatmul(const MoeGroupedMatmulInputs &in,
                                         MoeMode mode, int64_t topK,
                                         NdArray &out, int64_t outRows) {
  int64_t m, k;
  if (auto e = rows2d(in.token, "token", m, k); !e.empty())
    return e;
  if (!in.weight || in.weight->rank() != 3)
    return "weight: must be [E,K,N]";
  int64_t E = in.weight->shape[0], N = in.weight->shape[2];
  if (in.weight->shape[1] != k)
    return "weight: K " + std::to_string(in.weight->shape[1]) +
           " must equal token's hidden size " + std::to_string(k);
  std::vector<int64_t> index, ks;
  if (mode != MoeMode::None) {
    if (auto e = readInts(in.tokenIndex, "token_index", index); !e.empty())
      return e;
  }
  if (mode == MoeMode::Scatter) {
    if (auto e = readInts(in.tokenKs, "token_ks", ks); !e.empty())
      return e;
    if (topK < 1 || topK > E)
      return "top_k: must be in [1, E] for SCATTER, got " +
             std::to_string(topK);
    if (index.size() != static_cast<size_t>(m) || ks.size() != index.size())
      return "token_index/token_ks: SCATTER needs one entry per routed token "
             "row (" +
             std::to_string(m) + ")";
  }
  int64_t capacity = mode == MoeMode::Gather ? int64_t(index.size()) : m;
  if (outRows <= 0)
    outRows = mode == MoeMode::Gather ? int64_t(index.size()) : m;
  std::vector<int64_t> bounds;
  if (auto e = decodeOffsets(in.firstTokenOffset, E, capacity, bounds);
      !e.empty())
    return e;
  // Resolve every routed row: source token row, destination row, expert.
  struct Route {
    int64_t src, dst, expert;
  };
  std::vector<Route> routes;
  std::vector<char> used(outRows, 0);
  for (size_t g = 0; g + 1 < bounds.size(); ++g)
    for (int64_t r = bounds[g]; r < bounds[g + 1]; ++r) {
      Route rt{r, r, static_cast<int64_t>(g) % E};
      if (mode == MoeMode::Gather) {
        rt.src = index[r];
        if (rt.src < 0 || rt.src >= m)
          return "token_index: entry " + std::to_string(r) + " = " +
                 std::to_string(rt.src) + " is outside [0, " +
                 std::to_string(m) + ")";
      } else if (mode == MoeMode::Scatter) {
        if (ks[r] < 0 || ks[r] >= topK)
          return "token_ks: entry " + std::to_string(r) +
                 " must be in [0, top_k)";
        rt.dst = index[r] * topK + ks[r];
      }
      if (rt.dst < 0 || rt.dst >= outRows)
        return "token_index: destination row " + std::to_string(rt.dst) +
               " is outside the output's " + std::to_string(outRows) + " rows";
      if (used[rt.dst])
        return "token_index/token_ks: destination row " +
               std::to_string(rt.dst) + " is written twice";
      used[rt.dst] = 1;
      routes.push_back(rt);
    }
  out = NdArray({1, outRows, N});
  const double *tok = in.token->data.data(), *w = in.weight->data.data();
  detail::parallelForEach(static_cast<int64_t>(routes.size()), [&](int64_t i) {
    const Route &rt = routes[i];
    double *o = &out.data[rt.dst * N];
    for (int64_t c = 0; c < k; ++c) {
      double t = tok[rt.src * k + c];
      const double *wr = &w[(rt.expert * k + c) * N];
      for (int64_t n = 0; n < N; ++n)
        o[n] += t * wr[n];
    }
  });
  return "";
}

std::string graph::ref::moeScatterRows(
    const NdArray &input, const NdArray &tokenIndex, const NdArray &tokenKs,
    const NdArray &firstTokenOffset, int64_t topK, bool bounded, NdArray &out) {
  int64_t m, n;
  if (auto e = rows2d(&input, "input", m, n); !e.empty())
    return e;
  std::vector<int64_t> index, ks, offsets;
  if (auto e = readInts(&tokenIndex, "token_index", index); !e.empty())
    return e;
  if (auto e = readInts(&tokenKs, "token_ks", ks); !e.empty())
    return e;
  if (auto e = readInts(&firstTokenOffset, "first_token_offset", offsets);
      !e.empty())
    return e;
  if (index.size() != static_cast<size_t>(m) || ks.size() != index.size())
    return "token_index/token_ks: one destination per input row (" +
           std::to_string(m) + ")";
  if (offsets.size() < (bounded ? 2u : 1u))
    return "first_token_offset: needs its first entry" +
           std::string(bounded ? " and its last (bounded)" : "");
  // The routed rows, as the matmul's experts cover them.
  int64_t begin = std::clamp<int64_t>(offsets.front(), 0, m);
  int64_t end = bounded ? std::clamp<int64_t>(offsets.back(), begin, m) : m;
  out = NdArray(input.shape);
  std::vector<char> used(m, 0);
  for (int64_t r = begin; r < end; ++r) {
    if (ks[r] < 0 || ks[r] >= topK)
      return "token_ks: entry " + std::to_string(r) + " = " +
             std::to_string(ks[r]) +
             " must be in [0, top_k = " + std::to_string(topK) + ")";
    int64_t dst = index[r] * topK + ks[r];
    if (dst < 0 || dst >= m)
      return "token_index: row " + std::to_string(r) + " goes to row " +
             std::to_string(dst) + ", outside the output's " +
             std::to_string(m) + " rows";
    if (used[dst])
      return "token_index/token_ks: destination row " + std::to_string(dst) +
             " is written twice";
    used[dst] = 1;
    std::copy_n(&input.data[r * n], n, &out.data[dst * n]);
  }
  return "";
}

std::string graph::ref::moeGatherRows(const NdArray &input,
                                      const NdArray &tokenIndex, NdArray &out) {
  int64_t m, k;
  if (auto e = rows2d(&input, "input", m, k); !e.empty())
    return e;
  std::vector<int64_t> index;
  if (auto e = readInts(&tokenIndex, "token_index", index); !e.empty())
    return e;
  out = NdArray({1, static_cast<int64_t>(index.size()), k});
  for (size_t r = 0; r < index.size(); ++r)
    if (index[r] >= 0 && index[r] < m)
      std::copy_n(&input.data[index[r] * k], k, &out.data[r * k]);
  return "";
}

std::string graph::ref::moeGroupedMatmulBwd(const NdArray &doutput,
                                            const NdArray &token,
                                            const NdArray &firstTokenOffset,
                                            int64_t numExperts,
                                            NdArray &dweight) {
  int64_t m, k, md, n;
  if (auto e = rows2d(&token, "token", m, k); !e.empty())
    return e;
  if (auto e = rows2d(&doutput, "doutput", md, n); !e.empty())
    return e;
  if (md != m)
    return "doutput: row count " + std::to_string(md) + " must equal token's " +
           std::to_string(m);
  std::vector<int64_t> bounds;
  if (auto e = decodeOffsets(&firstTokenOffset, numExperts, m, bounds);
      !e.empty())
    return e;
  dweight = NdArray({numExperts, k, n});
  // One task per expert: each owns its dweight slice.
  detail::parallelForEach(numExperts, [&](int64_t e) {
    double *dw = &dweight.data[e * k * n];
    for (size_t g = e; g + 1 < bounds.size(); g += numExperts)
      for (int64_t r = bounds[g]; r < bounds[g + 1]; ++r)
        for (int64_t c = 0; c < k; ++c) {
          double t = token.data[r * k + c];
          for (int64_t j = 0; j < n; ++j)
            dw[c * n + j] += t * doutput.data[r * n + j];
        }
  });
  return "";
}
