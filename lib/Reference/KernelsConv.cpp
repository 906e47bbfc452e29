//===- KernelsConv.cpp - Matmul and convolutions -------------*- C++ -*-===//

#include "KernelsInternal.h"

#include <algorithm>

namespace graph::ref {

using namespace detail;

//===----------------------------------------------------------------------===//
// Matmul
//===----------------------------------------------------------------------===//

std::string matmul(const NdArray &a, const NdArray &b, NdArray &out) {
  if (a.rank() < 2 || b.rank() < 2)
    return "matmul operands need rank >= 2, got " + shapeString(a.shape) +
           " and " + shapeString(b.shape);
  int64_t m = a.shape[a.rank() - 2], k = a.shape[a.rank() - 1];
  int64_t kb = b.shape[b.rank() - 2], n = b.shape[b.rank() - 1];
  if (k != kb)
    return "matmul contraction dims differ: A " + shapeString(a.shape) +
           " has K = " + std::to_string(k) + ", B " + shapeString(b.shape) +
           " has K = " + std::to_string(kb);
  Shape aBatch(a.shape.begin(), a.shape.end() - 2);
  Shape bBatch(b.shape.begin(), b.shape.end() - 2);
  Shape batch;
  if (!broadcastShapes(aBatch, bBatch, batch))
    return "matmul batch dims " + shapeString(aBatch) + " and " +
           shapeString(bBatch) + " do not broadcast";
  // Offsets of each batch's matrix in A and B.
  int64_t batches = numElements(batch);
  std::vector<int64_t> aOffsets(batches), bOffsets(batches);
  Shape aStrides = broadcastStrides(aBatch, batch);
  Shape bStrides = broadcastStrides(bBatch, batch);
  walk<2>(batch, {&aStrides, &bStrides}, 0, batches,
          [&](int64_t i, const std::array<int64_t, 2> &off) {
            aOffsets[i] = off[0] * m * k;
            bOffsets[i] = off[1] * k * n;
          });
  Shape outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  NdArray result(outShape);
  const double *ad = a.data.data();
  const double *bd = b.data.data();
  double *cd = result.data.data();
  // Tiles of rows x columns, each accumulated over K in blocks, so the
  // block of B a tile reads stays in cache while its rows use it (a row at
  // a time streamed all of B per row: at [8192, 2048] x [2048, 5632] that
  // is 92 MB per row). Every C element still sums its K products in order
  // p = 0, 1, ..., k - 1, so the results are those of the plain loop.
  constexpr int64_t kTileRows = 32, kTileCols = 256, kBlockK = 128;
  int64_t rowTiles = (m + kTileRows - 1) / kTileRows;
  int64_t colTiles = (n + kTileCols - 1) / kTileCols;
  int64_t tilesPerBatch = rowTiles * colTiles;
  // About 64K multiply-adds per task at least, counted over the tiles as
  // they are (a small matrix's one tile is smaller than a full one).
  int64_t tileWork = std::min(m, kTileRows) * std::min(n, kTileCols) * k;
  int64_t minTiles =
      std::max<int64_t>(1, (1 << 16) / std::max<int64_t>(1, tileWork));
  parallelFor(
      batches * tilesPerBatch,
      [&](int64_t begin, int64_t end) {
        for (int64_t tile = begin; tile < end; ++tile) {
          int64_t bt = tile / tilesPerBatch, t = tile % tilesPerBatch;
          int64_t i0 = (t / colTiles) * kTileRows;
          int64_t j0 = (t % colTiles) * kTileCols;
          int64_t i1 = std::min(m, i0 + kTileRows);
          int64_t j1 = std::min(n, j0 + kTileCols);
          const double *amat = ad + aOffsets[bt];
          const double *bmat = bd + bOffsets[bt];
          double *cmat = cd + bt * m * n;
          for (int64_t p0 = 0; p0 < k; p0 += kBlockK) {
            int64_t p1 = std::min(k, p0 + kBlockK);
            int64_t i = i0;
            // Four rows at a time share each load of B.
            for (; i + 4 <= i1; i += 4) {
              const double *a0 = amat + i * k, *a1 = a0 + k, *a2 = a1 + k,
                           *a3 = a2 + k;
              double *c0 = cmat + i * n, *c1 = c0 + n, *c2 = c1 + n,
                     *c3 = c2 + n;
              for (int64_t p = p0; p < p1; ++p) {
                double v0 = a0[p], v1 = a1[p], v2 = a2[p], v3 = a3[p];
                const double *brow = bmat + p * n;
                for (int64_t j = j0; j < j1; ++j) {
                  double bv = brow[j];
                  c0[j] += v0 * bv;
                  c1[j] += v1 * bv;
                  c2[j] += v2 * bv;
                  c3[j] += v3 * bv;
                }
              }
            }
            for (; i < i1; ++i) {
              const double *arow = amat + i * k;
              double *crow = cmat + i * n;
              for (int64_t p = p0; p < p1; ++p) {
                double av = arow[p];
                const double *brow = bmat + p * n;
                for (int64_t j = j0; j < j1; ++j)
                  crow[j] += av * brow[j];
              }
            }
          }
        }
      },
      minTiles);
  out = std::move(result);
  return "";
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

namespace {

struct ConvGeometry {
  int64_t n = 0, c = 0, k = 0, groups = 1, cPerGroup = 0, kPerGroup = 0;
  Shape inSpatial, filterSpatial, outSpatial;
  std::vector<int64_t> pre, post, stride, dilation;
  int64_t inSize = 0, filterSize = 0, outSize = 0; // spatial element counts
  // For output position o: pairs [pairBegin[o], pairBegin[o+1]) of
  // (filter spatial offset, input spatial offset) that touch the input.
  std::vector<int64_t> pairBegin, pairFilter, pairInput;
};

std::string fillAttr(const std::vector<int64_t> &given, size_t rank,
                     int64_t dflt, const char *name,
                     std::vector<int64_t> &out) {
  if (given.empty()) {
    out.assign(rank, dflt);
    return "";
  }
  if (given.size() != rank)
    return std::string("conv ") + name + " has " +
           std::to_string(given.size()) + " entries for " +
           std::to_string(rank) + " spatial dims";
  out = given;
  return "";
}

/// Checks attributes and the x / w shapes; computes the output spatial dims.
std::string makeGeometry(const Shape &x, const Shape &w,
                         const ConvParams &params, ConvGeometry &g) {
  if (x.size() < 3 || x.size() != w.size())
    return "conv image " + shapeString(x) + " and filter " + shapeString(w) +
           " need the same rank >= 3 ([N, C, spatial...])";
  size_t rank = x.size() - 2;
  std::string err;
  if (!(err = fillAttr(params.prePadding, rank, 0, "pre_padding", g.pre))
           .empty() ||
      !(err = fillAttr(params.postPadding, rank, 0, "post_padding", g.post))
           .empty() ||
      !(err = fillAttr(params.stride, rank, 1, "stride", g.stride)).empty() ||
      !(err = fillAttr(params.dilation, rank, 1, "dilation", g.dilation))
           .empty())
    return err;
  for (size_t d = 0; d < rank; ++d) {
    if (g.stride[d] < 1 || g.dilation[d] < 1)
      return "conv stride and dilation must be >= 1 (spatial dim " +
             std::to_string(d) + ")";
    if (g.pre[d] < 0 || g.post[d] < 0)
      return "conv padding must be >= 0 (spatial dim " + std::to_string(d) +
             ")";
  }
  g.n = x[0];
  g.c = x[1];
  g.k = w[0];
  g.cPerGroup = w[1];
  if (g.cPerGroup <= 0 || g.c % g.cPerGroup)
    return "conv image channels " + std::to_string(g.c) +
           " are not a multiple of the filter's " + std::to_string(w[1]);
  g.groups = g.c / g.cPerGroup;
  if (g.k % g.groups)
    return "conv filter count " + std::to_string(g.k) +
           " is not a multiple of the group count " + std::to_string(g.groups);
  g.kPerGroup = g.k / g.groups;
  g.inSpatial.assign(x.begin() + 2, x.end());
  g.filterSpatial.assign(w.begin() + 2, w.end());
  g.outSpatial.resize(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t extent = (g.filterSpatial[d] - 1) * g.dilation[d] + 1;
    int64_t span = g.inSpatial[d] + g.pre[d] + g.post[d] - extent;
    if (g.filterSpatial[d] < 1 || span < 0)
      return "conv filter " + shapeString(w) +
             " (dilated) does not fit the "
             "padded image " +
             shapeString(x) + " in spatial dim " + std::to_string(d);
    g.outSpatial[d] = span / g.stride[d] + 1;
  }
  g.inSize = numElements(g.inSpatial);
  g.filterSize = numElements(g.filterSpatial);
  g.outSize = numElements(g.outSpatial);
  // Pair table: for each output position, the filter taps that land inside.
  Shape inStrides = rowMajorStrides(g.inSpatial);
  Shape fStrides = rowMajorStrides(g.filterSpatial);
  std::vector<int64_t> o(rank, 0), r(rank, 0);
  g.pairBegin.assign(1, 0);
  for (int64_t ol = 0; ol < g.outSize; ++ol) {
    int64_t rem = ol;
    for (size_t d = rank; d-- > 0;) {
      o[d] = rem % g.outSpatial[d];
      rem /= g.outSpatial[d];
    }
    for (int64_t rl = 0; rl < g.filterSize; ++rl) {
      int64_t remr = rl, inOff = 0, fOff = 0;
      bool inside = true;
      for (size_t d = rank; d-- > 0;) {
        r[d] = remr % g.filterSpatial[d];
        remr /= g.filterSpatial[d];
        int64_t i = o[d] * g.stride[d] - g.pre[d] + r[d] * g.dilation[d];
        if (i < 0 || i >= g.inSpatial[d]) {
          inside = false;
          break;
        }
        inOff += i * inStrides[d];
        // Convolution mode flips the filter: tap r reads weight R-1-r.
        int64_t wr =
            params.crossCorrelation ? r[d] : g.filterSpatial[d] - 1 - r[d];
        fOff += wr * fStrides[d];
      }
      if (inside) {
        g.pairFilter.push_back(fOff);
        g.pairInput.push_back(inOff);
      }
    }
    g.pairBegin.push_back(static_cast<int64_t>(g.pairFilter.size()));
  }
  return "";
}

} // namespace

std::string convOutputShape(const Shape &x, const Shape &w,
                            const ConvParams &params, Shape &y) {
  ConvGeometry g;
  std::string err = makeGeometry(x, w, params, g);
  if (!err.empty())
    return err;
  y = {g.n, g.k};
  y.insert(y.end(), g.outSpatial.begin(), g.outSpatial.end());
  return "";
}

std::string convFprop(const NdArray &x, const NdArray &w,
                      const ConvParams &params, NdArray &y) {
  ConvGeometry g;
  std::string err = makeGeometry(x.shape, w.shape, params, g);
  if (!err.empty())
    return err;
  Shape yShape = {g.n, g.k};
  yShape.insert(yShape.end(), g.outSpatial.begin(), g.outSpatial.end());
  NdArray result(yShape);
  parallelFor(g.n * g.k, [&](int64_t begin, int64_t end) {
    for (int64_t nk = begin; nk < end; ++nk) {
      int64_t n = nk / g.k, k = nk % g.k, group = k / g.kPerGroup;
      double *out = result.data.data() + nk * g.outSize;
      for (int64_t c = 0; c < g.cPerGroup; ++c) {
        const double *img =
            x.data.data() + (n * g.c + group * g.cPerGroup + c) * g.inSize;
        const double *flt =
            w.data.data() + (k * g.cPerGroup + c) * g.filterSize;
        for (int64_t o = 0; o < g.outSize; ++o) {
          double acc = 0.0;
          for (int64_t p = g.pairBegin[o]; p < g.pairBegin[o + 1]; ++p)
            acc += img[g.pairInput[p]] * flt[g.pairFilter[p]];
          out[o] += acc;
        }
      }
    }
  });
  y = std::move(result);
  return "";
}

std::string convDgrad(const NdArray &dy, const NdArray &w,
                      const ConvParams &params, const Shape &dxShape,
                      NdArray &dx) {
  ConvGeometry g;
  std::string err = makeGeometry(dxShape, w.shape, params, g);
  if (!err.empty())
    return err;
  Shape expect = {g.n, g.k};
  expect.insert(expect.end(), g.outSpatial.begin(), g.outSpatial.end());
  if (dy.shape != expect)
    return "conv_dgrad loss " + shapeString(dy.shape) + " does not match " +
           shapeString(expect) + ", the fprop output of DX " +
           shapeString(dxShape) + " and filter " + shapeString(w.shape);
  NdArray result(dxShape);
  // One task per (n, input channel): the scatter targets are disjoint.
  parallelFor(g.n * g.c, [&](int64_t begin, int64_t end) {
    for (int64_t nc = begin; nc < end; ++nc) {
      int64_t n = nc / g.c, c = nc % g.c;
      int64_t group = c / g.cPerGroup, cl = c % g.cPerGroup;
      double *img = result.data.data() + nc * g.inSize;
      for (int64_t kl = 0; kl < g.kPerGroup; ++kl) {
        int64_t k = group * g.kPerGroup + kl;
        const double *grad = dy.data.data() + (n * g.k + k) * g.outSize;
        const double *flt =
            w.data.data() + (k * g.cPerGroup + cl) * g.filterSize;
        for (int64_t o = 0; o < g.outSize; ++o) {
          double gv = grad[o];
          for (int64_t p = g.pairBegin[o]; p < g.pairBegin[o + 1]; ++p)
            img[g.pairInput[p]] += gv * flt[g.pairFilter[p]];
        }
      }
    }
  });
  dx = std::move(result);
  return "";
}

std::string convWgrad(const NdArray &x, const NdArray &dy,
                      const ConvParams &params, const Shape &dwShape,
                      NdArray &dw) {
  ConvGeometry g;
  std::string err = makeGeometry(x.shape, dwShape, params, g);
  if (!err.empty())
    return err;
  Shape expect = {g.n, g.k};
  expect.insert(expect.end(), g.outSpatial.begin(), g.outSpatial.end());
  if (dy.shape != expect)
    return "conv_wgrad loss " + shapeString(dy.shape) + " does not match " +
           shapeString(expect) + ", the fprop output of image " +
           shapeString(x.shape) + " and DW " + shapeString(dwShape);
  NdArray result(dwShape);
  parallelFor(g.k * g.cPerGroup, [&](int64_t begin, int64_t end) {
    for (int64_t kc = begin; kc < end; ++kc) {
      int64_t k = kc / g.cPerGroup, cl = kc % g.cPerGroup;
      int64_t c = (k / g.kPerGroup) * g.cPerGroup + cl;
      double *flt = result.data.data() + kc * g.filterSize;
      for (int64_t n = 0; n < g.n; ++n) {
        const double *grad = dy.data.data() + (n * g.k + k) * g.outSize;
        const double *img = x.data.data() + (n * g.c + c) * g.inSize;
        for (int64_t o = 0; o < g.outSize; ++o) {
          double gv = grad[o];
          for (int64_t p = g.pairBegin[o]; p < g.pairBegin[o + 1]; ++p)
            flt[g.pairFilter[p]] += gv * img[g.pairInput[p]];
        }
      }
    }
  });
  dw = std::move(result);
  return "";
}

} // namespace graph::ref
