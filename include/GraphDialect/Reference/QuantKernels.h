//===- QuantKernels.h - block-scale quantization, MoE -----------*- C++ -*-===//
//
// block_scale_quantize (OCP MX v1.0 scale rule, cuDNN node
// block_scale_quantize.h): blocks of `blockSize` consecutive elements along
// `axis` (default last). Per block, amax = max |x|;
//   E8M0 scale (MXFP8 / MXFP4):
//     OcpFloor (default, the MX spec): scale = 2^(floor(log2 amax) - emax),
//       emax = 8 (e4m3), 15 (e5m2), 2 (e2m1); clamped to [2^-127, 2^127];
//       amax == 0 gives 2^-127.
//     RoundUp (cuBLAS/TransformerEngine style, selectable):
//       scale = 2^ceil(log2(amax / maxFinite)), so that no element saturates.
//   Any other scale type (e.g. e4m3 for NVFP4 block 16):
//     scale = round_scaleType(amax / maxFinite(valueType)), 0 -> no scaling.
//   Y = round_valueType(x / scale), saturating at the format's max finite
//   value (NaN stays NaN). The scale has x's dims with dim[axis] =
//   ceil(n / blockSize) (a partial trailing block is its own block).
//   `transpose` only changes the physical layout cuDNN picks for Y/scale; the
//   logical values are identical, so it has no effect here.
//   group_offset (grouped quantization) is not supported.
//
// block_scale_dequantize: Y = X * descale of its block; block sizes per
//   trailing dim (a single value = the last dim; cuDNN passes e.g. {1, 32}).
//   is_negative_scale: Y = X * (-descale) (the meaning of the flag is not
//   documented publicly; this literal reading is an assumption).
//
// moe_grouped_matmul (cuDNN docs operations/MoE Grouped Matmul): token
//   [1,M,K] (or [M,K]), weight [E,K,N], first_token_offset with G+1 explicit
//   nondecreasing boundaries starting at 0 (G = B*E; group g spans
//   [off[g], off[g+1]) and uses expert g % E) or the deprecated G implicit
//   starts (E > 1 and G % E == 0: the last group ends at the routed capacity).
//   Format: length % E == 1 -> explicit, == 0 -> implicit (E == 1: explicit).
//   Routed row r of a group with expert e:
//     NONE:    out[r]  = token[r] @ W[e]
//     GATHER:  out[r]  = token[token_index[r]] @ W[e]   (out rows = R =
//              token_index's length)
//     SCATTER: out[token_index[r] * top_k + token_ks[r]] = token[r] @ W[e]
//   Rows not produced (beyond the final boundary, unused scatter slots) are
//   0 here (cuDNN leaves them untouched). Output [1, rows, N].
// moe_grouped_matmul_bwd: dweight[e] = sum over groups g with g % E == e of
//   token[rows of g]^T @ doutput[rows of g]; E is given (dweight's dim 0).
//
//===----------------------------------------------------------------------===//

#ifndef GRAPHDIALECT_REFERENCE_QUANTKERNELS_H
#define GRAPHDIALECT_REFERENCE_QUANTKERNELS_H

#include "GraphDialect/Reference/NdArray.h"

#include <string>
#include <vector>

namespace graph::ref {

enum class ScaleRounding { OcpFloor, RoundUp };

struct BlockScaleQuantizeOptions {
  int64_t blockSize = 32;
  int64_t axis = -1; // negative counts from the end
  bool transpose = false;
  DType valueType = DType::F8E4M3FN;
  DType scaleType = DType::F8E8M0FNU;
  ScaleRounding rounding = ScaleRounding::OcpFloor;
};

/// Largest finite value of a float type (448 for e4m3, 57344 for e5m2, 6 for
/// e2m1...); 0 for non-float types.
double maxFiniteValue(DType type);

/// y holds the quantized values (already rounded to valueType), scale the
/// per-block scales (rounded to scaleType).
std::string blockScaleQuantize(const NdArray &x,
                               const BlockScaleQuantizeOptions &opts,
                               NdArray &y, NdArray &scale);

/// `blockSize` lists block extents for the trailing dims of x.
std::string blockScaleDequantize(const NdArray &x, const NdArray &descale,
                                 const std::vector<int64_t> &blockSize,
                                 bool isNegativeScale, NdArray &out);

enum class MoeMode { None, Gather, Scatter };

struct MoeGroupedMatmulInputs {
  const NdArray *token = nullptr;            // [1,M,K] or [M,K]
  const NdArray *weight = nullptr;           // [E,K,N]
  const NdArray *firstTokenOffset = nullptr; // G+1 or G values
  const NdArray *tokenIndex = nullptr;       // R values (gather / scatter)
  const NdArray *tokenKs = nullptr;          // R values (scatter)
};

/// `outRows`: row count of the output; <= 0 derives it (token_index's length
/// for GATHER, token rows otherwise). Output [1, outRows, N].
std::string moeGroupedMatmul(const MoeGroupedMatmulInputs &in, MoeMode mode,
                             int64_t topK, NdArray &out, int64_t outRows = 0);

/// moe_scatter_rows: each routed row r of `input` [1,M,N] (from
/// firstTokenOffset's first entry to its last when `bounded`, else to M) to
/// row token_index[r] * topK + token_ks[r] of `out` (the input's dims; rows
/// nothing lands on are 0); a slot outside [0, topK) or a destination out
/// of range or written twice is an error naming the row.
std::string moeScatterRows(const NdArray &input, const NdArray &tokenIndex,
                           const NdArray &tokenKs,
                           const NdArray &firstTokenOffset, int64_t topK,
                           bool bounded, NdArray &out);

/// moe_gather_rows: row r of `out` [1,S,K] is row token_index[r] of `input`
/// [1,T,K]; an index outside [0, T) gives a row of zeros (padding rows
/// may hold any index).
std::string moeGatherRows(const NdArray &input, const NdArray &tokenIndex,
                          NdArray &out);

/// dweight [E,K,N] from doutput [1,M,N] and token [1,M,K].
std::string moeGroupedMatmulBwd(const NdArray &doutput, const NdArray &token,
                                const NdArray &firstTokenOffset,
                                int64_t numExperts, NdArray &dweight);

} // namespace graph::ref

#endif // GRAPHDIALECT_REFERENCE_QUANTKERNELS_H
